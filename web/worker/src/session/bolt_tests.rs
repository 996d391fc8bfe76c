//! The worker's sessions of BOLT profiles against the corpus: fdata, YAML,
//! pre-aggregated and branch-stack input, their tables and graphs with and without
//! the binary, and BOLTed binaries with their BAT.

use super::tests::{corpus, name_of, query, session};
use super::*;
use pgolens_protocol::{Cell, CfgCall, CfgInsn, Reply, Request, CFG_NOTE_CHARS};

#[test]
fn bolt_fdata_opens_on_its_function_table() {
    let mut s = session("cprog.instr.fdata", &corpus("bolt-perf/cprog/cprog.instr.fdata"));
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.open_on, View::BoltFunctions);
    assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltBranches]);
    // Every column the core describes sorts; no binary, so no block counts.
    let ids: Vec<String> = tables::bolt_columns(false).into_iter().map(|c| c.id).collect();
    assert!(!ids.iter().any(|c| c == "blocks"));
    for id in &ids {
        for descending in [false, true] {
            let page = s.table(&query(TableId::BoltFunctions, id, descending, ""), 0, 100).unwrap();
            assert_eq!(page.rows.len() as u64, page.total, "{id}");
            assert!(page.rows.iter().all(|r| r.cells.len() == page.columns.len()));
        }
    }
    // llvm-bolt --print-cfg with this profile: classify runs 13,334,000 times,
    // hot_loop 2,000 (cprog.cfg.txt).
    let page = s.table(&query(TableId::BoltFunctions, "exec", true, ""), 0, 100).unwrap();
    let exec =
        |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).map(|r| r.cells[1].clone()).unwrap();
    assert_eq!(exec("classify"), Cell::Count(13_334_000));
    assert_eq!(exec("hot_loop"), Cell::Count(2000));
    let execs: Vec<u64> = page.rows.iter().map(|r| if let Cell::Count(t) = r.cells[1] { t } else { 0 }).collect();
    assert!(execs.windows(2).all(|w| w[0] >= w[1]), "{execs:?}");
    let filtered = s.table(&query(TableId::BoltFunctions, "exec", true, "hot_"), 0, 100).unwrap();
    assert_eq!(filtered.matching, 1);
}

#[test]
fn bolt_yaml_opens_on_its_function_table() {
    let mut s = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.format, "bolt-yaml");
    assert_eq!(opened.summary.open_on, View::BoltFunctions);
    // YAML knows every function's block count: the column is there.
    let page = s.table(&query(TableId::BoltFunctions, "exec", true, ""), 0, 100).unwrap();
    assert!(page.columns.iter().any(|c| c.id == "blocks"));
    let row = |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).unwrap().cells.clone();
    // The same executions as --print-cfg with the fdata it was written from; classify has 9 blocks.
    assert_eq!(row("classify")[1], Cell::Count(13_334_000));
    assert_eq!(row("classify")[2], Cell::Count(9));
    assert_eq!(row("hot_loop")[1], Cell::Count(2000));
}

/// perf2bolt 22 writes a YAML of basic samples (`-w` without LBR) with no count
/// at all: the page says so, of those files alone.
#[test]
fn a_yaml_of_basic_samples_without_counts_is_said_to_be_one() {
    let mut remarked = Vec::new();
    for program in ["cprog", "cxxprog"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/bolt-perf").join(program);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        names.sort();
        assert!(names.len() >= 6, "{names:?}");
        for name in names {
            let bytes = corpus(&format!("bolt-perf/{program}/{name}"));
            let opened = session(&name, &bytes).finish().unwrap();
            let text = String::from_utf8(bytes).unwrap();
            // What the remark says: the flag, and no count in the file.
            let sampled = text.contains("profile-flags:   [ sample ]");
            let counted = text.lines().any(|l| {
                let l = l.trim_start_matches([' ', '-']);
                (l.starts_with("exec:") || l.starts_with("count:") || l.contains(" cnt: ")) && !l.ends_with(" 0")
            }) || text.contains(", cnt: ");
            assert_eq!(opened.summary.remark.is_some(), sampled && !counted, "{name}");
            if let Some(remark) = opened.summary.remark {
                assert!(remark.starts_with("a profile of basic samples with no counts"), "{remark}");
                remarked.push(name);
            }
        }
    }
    // The no-LBR runs' YAMLs (perf.data and pre-aggregated samples), and only those.
    assert_eq!(
        remarked,
        ["cprog.nolbr.yaml", "cprog.preagg-samples.yaml", "cxxprog.nolbr.yaml", "cxxprog.preagg-samples.yaml"]
    );
    // One count is enough not to be one.
    let text = String::from_utf8(corpus("bolt-perf/cprog/cprog.nolbr.yaml")).unwrap();
    let counted = text.replacen("exec:            0", "exec:            5", 1);
    assert_ne!(counted, text);
    assert_eq!(session("counted.yaml", counted.as_bytes()).finish().unwrap().summary.remark, None);
}

#[test]
fn bolt_yaml_graphs_are_laid_out() {
    let mut s = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltCfg]);
    // No function asked for: the function table's first row, hot_loop (most taken
    // branches), with its 13 blocks in llvm-bolt's --print-cfg.
    let graph = s.bolt_cfg(None, None, None).unwrap();
    assert_eq!((graph.name.as_str(), graph.blocks.len()), ("hot_loop", 13));
    let first = s.table(&query(TableId::BoltFunctions, "branches", true, ""), 0, 1).unwrap();
    assert_eq!(first.rows[0].id, graph.function);
    // classify: 13,334,000 runs in llvm-bolt's --print-cfg with the fdata this YAML
    // was written from, its 9 blocks.
    let page = s.table(&query(TableId::BoltFunctions, "exec", true, "classify"), 0, 10).unwrap();
    let classify = page.rows.iter().find(|r| name_of(&r.cells[0]) == "classify").unwrap().id;
    let graph = s.bolt_cfg(Some(classify), None, None).unwrap();
    assert_eq!((graph.name.as_str(), graph.exec_count, graph.blocks.len()), ("classify", 13_334_000, 9));
    assert_eq!(graph.blocks[0].exec_count, 13_334_000);
    assert!(graph.blocks[0].entry && graph.blocks[0].lines[0].starts_with("#0"));
    // An instrumentation profile conserves flow.
    assert_eq!((graph.flow.weighted_gap, graph.flow.flagged), (0.0, 0));
    for b in &graph.blocks {
        assert!(b.x >= 0.0 && b.y >= 0.0 && b.x + b.w <= graph.width + 0.5 && b.y + b.h <= graph.height + 0.5);
    }
    for e in &graph.edges {
        assert!(e.points.len() >= 4 && e.points.len() % 2 == 0, "{e:?}");
    }
    // main's calls link to their callees' rows.
    let main = s.table(&query(TableId::BoltFunctions, "exec", true, "main"), 0, 10).unwrap();
    let main_id = main.rows.iter().find(|r| name_of(&r.cells[0]) == "main").unwrap().id;
    let graph = s.bolt_cfg(Some(main_id), None, None).unwrap();
    let calls: Vec<&CfgCall> = graph.blocks.iter().flat_map(|b| &b.calls).collect();
    let hot_loop = calls.iter().find(|c| c.callee == "hot_loop").unwrap();
    let page = s.table(&query(TableId::BoltFunctions, "exec", true, "hot_loop"), 0, 10).unwrap();
    assert_eq!(hot_loop.function, Some(page.rows[0].id));
    assert_eq!(hot_loop.count, 2000);
}

/// (offset, mnemonic) of every instruction llvm-bolt printed for `function`
/// (`--print-cfg`), CFI pseudo-instructions left out.
fn printed_instructions(text: &str, function: &str) -> Vec<(u64, String)> {
    let body = text.split("Binary Function \"").find(|f| f.starts_with(&format!("{function}\""))).unwrap();
    body.lines()
        .filter_map(|l| {
            let (offset, rest) = l.strip_prefix("    ")?.split_once(": \t")?;
            let mnemonic = rest.split('\t').next()?;
            (mnemonic != "!CFI").then(|| (u64::from_str_radix(offset, 16).unwrap(), mnemonic.to_string()))
        })
        .collect()
}

#[test]
fn an_fdata_profile_with_its_binary_gives_graphs_with_bolts_instructions() {
    let mut s = session("cprog.instr.fdata", &corpus("bolt-perf/cprog/cprog.instr.fdata"));
    s.finish().unwrap();
    assert!(s.bolt_cfg(None, None, None).is_err(), "no graphs without the binary");
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    let mut other = session("big", &corpus("bolt-perf/bigcfg/big"));
    other.finish().unwrap();
    assert!(s.correlate(3, &other).is_err(), "a binary without the profile's functions");
    assert_eq!(s.correlate(2, &elf).unwrap(), [View::Dump, View::BoltFunctions, View::BoltCfg, View::BoltBranches]);
    assert_eq!(s.bolt_binary(), Some(2));
    let text = String::from_utf8(corpus("bolt-perf/cprog/cprog.cfg.txt")).unwrap();
    for function in ["hot_loop", "classify", "checksum_buf"] {
        let page = s.table(&query(TableId::BoltFunctions, "exec", true, function), 0, 10).unwrap();
        let row = page.rows.iter().find(|r| name_of(&r.cells[0]) == function).unwrap().id;
        let graph = s.bolt_cfg(Some(row), Some(&elf), None).unwrap();
        assert_eq!((graph.binary.as_deref(), graph.code_note.as_deref()), (Some("cprog"), None));
        let ours: Vec<(u64, String)> = graph
            .blocks
            .iter()
            .flat_map(|b| &b.code)
            .map(|i| (i.offset, i.text.split_whitespace().next().unwrap().to_string()))
            .collect();
        let mut ours_sorted = ours.clone();
        ours_sorted.sort();
        let mut theirs = printed_instructions(&text, function);
        theirs.sort();
        assert_eq!(ours_sorted, theirs, "{function}");
        for b in &graph.blocks {
            assert_eq!(Some(b.code.len() as u32), b.instructions, "{function} #{}", b.index);
        }
    }
    // The YAML written from the same profile matches the binary block for block.
    let mut y = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
    y.finish().unwrap();
    y.correlate(2, &elf).unwrap();
    let page = y.table(&query(TableId::BoltFunctions, "exec", true, "classify"), 0, 10).unwrap();
    let classify = page.rows.iter().find(|r| name_of(&r.cells[0]) == "classify").unwrap().id;
    let graph = y.bolt_cfg(Some(classify), Some(&elf), None).unwrap();
    assert_eq!(graph.name, "classify");
    assert!(graph.blocks.iter().all(|b| b.offset.is_some() && !b.code.is_empty()));
    // A function the profile lists two blocks of (sort_ints: `nblocks: 22`, two
    // blocks with counts) is the binary's whole graph, each block with its code.
    let page = y.table(&query(TableId::BoltFunctions, "exec", true, "sort_ints"), 0, 10).unwrap();
    let sort_ints = page.rows.iter().find(|r| name_of(&r.cells[0]) == "sort_ints").unwrap().id;
    let sorted = y.bolt_cfg(Some(sort_ints), Some(&elf), None).unwrap();
    assert_eq!((sorted.blocks.len(), sorted.code_note.as_deref()), (22, None));
    assert!(sorted.blocks.iter().all(|b| b.offset.is_some() && b.code.len() as u32 == b.instructions.unwrap()));
    // Its jump table: every entry is a taken edge, the next block's too, listed
    // hottest first as llvm-bolt lists the entry block's successors.
    let entry = &graph.blocks[0];
    let jump = entry.code.last().unwrap();
    assert!(jump.text.starts_with("jmp"), "{jump:?}");
    let note = jump.note.as_deref().unwrap();
    let ours: Vec<u64> =
        note.split(", → ").map(|e| e.split('×').nth(1).unwrap().replace(',', "").parse().unwrap()).collect();
    let body = text.split("Binary Function \"").find(|f| f.starts_with("classify\"")).unwrap();
    let successors = body.lines().find(|l| l.starts_with("  Successors: ")).unwrap();
    let printed: Vec<u64> =
        successors.split("count: ").skip(1).map(|c| c.split(')').next().unwrap().parse().unwrap()).collect();
    assert_eq!(ours, printed);
    assert_eq!(printed.len(), 8);
    // The block's text wraps the note into a column of short lines.
    let at = entry.lines.iter().position(|l| l.contains("  # ")).unwrap();
    let first = entry.lines[at].split_once("  # ").unwrap().1;
    let column = entry.lines[at].find("  # ").unwrap() + 4;
    let parts: Vec<&str> = std::iter::once(first)
        .chain(entry.lines[at + 1..].iter().map(|l| {
            assert!(l[..column].trim().is_empty(), "{l:?}");
            &l[column..]
        }))
        .collect();
    assert!(parts.len() > 1 && parts.iter().all(|p| p.chars().count() <= CFG_NOTE_CHARS), "{parts:?}");
    assert_eq!(parts.join(" "), note);
    // classify's calls: the instruction is annotated with the call count.
    let calls: Vec<&CfgInsn> =
        graph.blocks.iter().flat_map(|b| &b.code).filter(|i| i.text.starts_with("call")).collect();
    assert!(calls.iter().all(|i| i.note.is_some()) || calls.is_empty());
}

#[test]
fn branches_with_their_binary_become_perf2bolts_profile() {
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    for (input, reference) in [
        ("bolt-perf/cprog/cprog.brstack.perf.data", "bolt-perf/cprog/cprog.brstack.fdata"),
        ("bolt-perf/cprog/cprog.preagg-traces.txt", "bolt-perf/cprog/cprog.preagg-traces.fdata"),
    ] {
        let mut s = session(input.rsplit('/').next().unwrap(), &corpus(input));
        let opened = s.finish().unwrap();
        assert!(opened.summary.branch_profile, "{input}");
        let views = s.correlate(2, &elf).unwrap();
        assert!(views.contains(&View::BoltFunctions) && views.contains(&View::BoltCfg), "{input}: {views:?}");
        // The function table is the one of the fdata perf2bolt wrote from the same input.
        let mut theirs = session("ref.fdata", &corpus(reference));
        theirs.finish().unwrap();
        let rows = |s: &mut Session| -> Vec<Vec<Cell>> {
            let mut page = s.table(&query(TableId::BoltFunctions, "name", false, ""), 0, 10_000).unwrap().rows;
            page.sort_by_key(|r| name_of(&r.cells[0]).to_string());
            page.into_iter().map(|r| r.cells).collect()
        };
        assert_eq!(rows(&mut s), rows(&mut theirs), "{input}");
        // And its graphs come with the code.
        let graph = s.bolt_cfg(None, Some(&elf), None).unwrap();
        assert!(graph.blocks.iter().all(|b| !b.code.is_empty()), "{input}");
        // The one shown first is the table's first row (most branches: main in the
        // recording, hot_loop in the traces), not the one most often entered
        // (helper/1 in the recording: one block, no edges).
        let first = s.table(&query(TableId::BoltFunctions, "branches", true, ""), 0, 1).unwrap();
        assert_eq!((first.rows[0].id, name_of(&first.rows[0].cells[0])), (graph.function, graph.name.as_str()));
        assert!(graph.edges.len() > 1, "{input}: {}", graph.name);
    }
    // A perf.data without branch stacks is no BOLT profile.
    let mut plain = session("cprog.fp.perf.data", &corpus("bolt-perf/cprog/cprog.fp.perf.data"));
    assert!(!plain.finish().unwrap().summary.branch_profile);
}

#[test]
fn fdata_lines_are_tables() {
    let path = "bolt-perf/cprog/cprog.brstack-mem.fdata";
    let text = String::from_utf8(corpus(path)).unwrap();
    let mut s = session("cprog.brstack-mem.fdata", text.as_bytes());
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltBranches, View::BoltMemory]);
    // Every line of the file is a row, the largest count first.
    let lines = |kinds: &str| -> Vec<&str> {
        text.lines().filter(|l| l.len() > 1 && kinds.contains(&l[..1]) && &l[1..2] == " ").collect()
    };
    let counts = |kinds: &str| -> Vec<i64> {
        lines(kinds).iter().map(|l| l.rsplit(' ').next().unwrap().parse().unwrap()).collect()
    };
    for (table, kinds, width) in [(TableId::BoltBranches, "012", 5), (TableId::BoltMemory, "345", 4)] {
        let page = s.table(&query(table, "", true, ""), 0, 1_000_000).unwrap();
        let mut expected = counts(kinds);
        assert_eq!(page.total as usize, expected.len(), "{table:?}");
        expected.sort_by(|a, b| b.cmp(a));
        let shown: Vec<i64> = page
            .rows
            .iter()
            .map(|r| match &r.cells[width - 2] {
                Cell::Count(c) => *c as i64,
                Cell::Text(t) => t.parse().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(shown, expected, "{table:?}");
        assert!(page.rows.iter().all(|r| r.cells.len() == width));
    }
    // Filtered by name: only rows from or to main.
    let page = s.table(&query(TableId::BoltBranches, "line", false, "main"), 0, 1_000_000).unwrap();
    let main = lines("012")
        .into_iter()
        .filter(|l| l.split(' ').nth(1) == Some("main") || l.split(' ').nth(4) == Some("main"))
        .count();
    assert_eq!(page.matching as usize, main);
    assert!(main > 0);
}

#[test]
fn the_big_function_is_laid_out_whole() {
    let mut s = session("big.instr.yaml", &corpus("bolt-perf/bigcfg/big.instr.yaml"));
    s.finish().unwrap();
    let page = s.table(&query(TableId::BoltFunctions, "blocks", true, ""), 0, 1).unwrap();
    let graph = s.bolt_cfg(Some(page.rows[0].id), None, None).unwrap();
    // BOLT's graph of it has 2,015 blocks and 3,821 edges; its YAML lists the
    // successors of 3,693 of them (the others are only in the binary).
    assert_eq!((graph.blocks.len(), graph.edges.len()), (2015, 3693));
    assert!(graph.layers > 10 && graph.edges.iter().any(|e| e.back));
    assert!(graph.edges.iter().all(|e| e.points.len() >= 4));
}

#[test]
fn a_no_lbr_profile_lists_its_sample_lines() {
    let path = "bolt-perf/cprog/cprog.nolbr.fdata";
    let text = String::from_utf8(corpus(path)).unwrap();
    let mut s = session("cprog.nolbr.fdata", text.as_bytes());
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltSamples]);
    // Every `KIND NAME OFFSET COUNT` line after the `no_lbr` header, largest count first.
    let mut counts: Vec<u64> = text
        .lines()
        .filter(|l| l.len() > 2 && "012".contains(&l[..1]) && &l[1..2] == " ")
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    counts.sort_by(|a, b| b.cmp(a));
    let page = s.table(&query(TableId::BoltSamples, "", true, ""), 0, 1_000_000).unwrap();
    assert_eq!(page.columns.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["from", "count", "line"]);
    let shown: Vec<u64> =
        page.rows.iter().map(|r| if let Cell::Count(c) = r.cells[1] { c } else { panic!() }).collect();
    assert_eq!(shown, counts);
    assert!(!counts.is_empty());
}

#[test]
fn a_bolted_binary_opens_on_its_bat() {
    let bytes = corpus("bolt-perf/cprog/cprog.bolt");
    let mut s = session("cprog.bolt", &bytes);
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.format, "elf+bat");
    assert_eq!((opened.summary.views.as_slice(), opened.summary.open_on), (&[View::Dump, View::Bat][..], View::Bat));
    let bat = pgolens::formats::bolt::bat::from_elf(&bytes).unwrap().unwrap();
    let page = s.table(&query(TableId::BatFunctions, "address", false, ""), 0, 1000).unwrap();
    // 21 hot functions and 4 cold fragments, named from cprog.bolt's symbols (nm:
    // hot_loop at 0x407080, the local hot_loop.cold.0 at 0x407580, which BOLT names
    // with its `/1` suffix).
    assert_eq!(page.total as usize, bat.hot.functions.len() + bat.cold.functions.len());
    assert_eq!(page.total, 25);
    let row = |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).unwrap();
    assert_eq!(row("hot_loop").cells[1], Cell::Hex(0x407080));
    assert_eq!(row("hot_loop.cold.0/1").cells[1], Cell::Hex(0x407580));
    assert_eq!(row("hot_loop.cold.0/1").cells[2], Cell::Text("cold of hot_loop".into()));
    // A function in full: its entries as decoded, its fragment linked.
    let hot = row("hot_loop").id;
    let detail = s.bat_function(hot, None).unwrap();
    let decoded = bat.hot.functions.iter().find(|f| f.address.value == 0x407080).unwrap();
    assert_eq!(detail.entries.len(), decoded.entries.len());
    assert_eq!(detail.blocks, decoded.num_blocks.map(|n| n.value));
    assert_eq!(detail.fragments, vec![(row("hot_loop.cold.0/1").id, "hot_loop.cold.0/1".to_string())]);
    assert_eq!(detail.entries.iter().filter(|e| !e.branch).count(), decoded.blocks().count());
    let cold = s.bat_function(row("hot_loop.cold.0/1").id, None).unwrap();
    assert_eq!(cold.parent, Some((hot, "hot_loop".to_string())));
    // The picture: every block of hot_loop, hot part and cold fragment, whichever is asked.
    let fragment = bat.cold.functions.iter().find(|f| f.address.value == 0x407580).unwrap();
    assert_eq!(detail.moved.len(), decoded.blocks().count() + fragment.blocks().count());
    assert_eq!(detail.moved.iter().filter(|m| m.fragment == 1).count(), fragment.blocks().count());
    assert_eq!(cold.moved, detail.moved);
    assert!(detail.profile.is_none() && detail.moved.iter().all(|m| m.count.is_none()));
    // Sorted by entries, largest first; filtered by name.
    let page = s.table(&query(TableId::BatFunctions, "entries", true, "cold"), 0, 1000).unwrap();
    assert_eq!(page.matching, 4);
}

#[test]
fn a_recording_of_a_bolted_binary_becomes_the_input_binarys_profile() {
    // perf2bolt with BAT: the function table is the one of its translated fdata;
    // its graphs are BAT's (a_translated_profiles_graphs_are_bats_blocks).
    let mut elf = session("cprog.bolt", &corpus("bolt-perf/cprog/cprog.bolt"));
    elf.finish().unwrap();
    let mut s = session("cprog.bolt.brstack.perf.data", &corpus("bolt-perf/cprog/cprog.bolt.brstack.perf.data"));
    assert!(s.finish().unwrap().summary.branch_profile);
    let views = s.correlate(2, &elf).unwrap();
    assert!(views.contains(&View::BoltFunctions) && views.contains(&View::BoltCfg), "{views:?}");
    // Saved as YAML: perf2bolt -w's from BAT, byte for byte; an unBOLTed one has none.
    let (name, yaml) = s.export_bolt(true).unwrap();
    assert_eq!(name, "cprog.bolt.brstack.perf.data.yaml");
    assert!(yaml == corpus("bolt-perf/cprog/cprog.bolt.bat.yaml"), "cprog.bolt.bat.yaml");
    let mut theirs = session("ref.fdata", &corpus("bolt-perf/cprog/cprog.bolt.bat.fdata"));
    theirs.finish().unwrap();
    let rows = |s: &mut Session| -> Vec<Vec<Cell>> {
        let mut page = s.table(&query(TableId::BoltFunctions, "name", false, ""), 0, 10_000).unwrap().rows;
        page.sort_by_key(|r| name_of(&r.cells[0]).to_string());
        page.into_iter().map(|r| r.cells).collect()
    };
    assert_eq!(rows(&mut s), rows(&mut theirs));
}

#[test]
fn a_bolt_profile_is_saved_as_perf2bolt_and_llvm_write_it() {
    // A recording with its binary: perf2bolt's fdata of it, as a line set.
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    let mut s = session("cprog.brstack.perf.data", &corpus("bolt-perf/cprog/cprog.brstack.perf.data"));
    s.finish().unwrap();
    assert!(s.export_bolt(false).is_err(), "nothing to save before the binary");
    s.correlate(2, &elf).unwrap();
    let (name, bytes) = s.export_bolt(false).unwrap();
    assert_eq!(name, "cprog.brstack.perf.data.fdata");
    assert!(s.export_bolt(true).is_err(), "YAML needs BAT's block hashes");
    let lines = |b: &[u8]| {
        let mut l: Vec<String> = String::from_utf8(b.to_vec()).unwrap().lines().map(String::from).collect();
        l.sort();
        l
    };
    assert_eq!(lines(&bytes), lines(&corpus("bolt-perf/cprog/cprog.brstack.fdata")));
    // An LLVM-written YAML comes back byte for byte.
    let yaml = corpus("bolt-perf/cprog/cprog.instr.yaml");
    let mut y = session("cprog.instr.yaml", &yaml);
    y.finish().unwrap();
    let (name, bytes) = y.export_bolt(true).unwrap();
    assert_eq!((name.as_str(), bytes == yaml), ("cprog.instr.yaml", true));
}

#[test]
fn a_bolted_binarys_moved_blocks_are_counted_by_a_profile_translated_through_its_bat() {
    let mut sessions = crate::Sessions::default();
    let mut elf = session("cprog.bolt", &corpus("bolt-perf/cprog/cprog.bolt"));
    elf.finish().unwrap();
    let page = elf.table(&query(TableId::BatFunctions, "address", false, ""), 0, 1000).unwrap();
    let row = |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).unwrap().id;
    let (hot, cold) = (row("hot_loop"), row("hot_loop.cold.0/1"));
    sessions.insert(1, elf);
    let detail = |sessions: &mut crate::Sessions, row: u32| match sessions.answer(1, Request::BatFunction { row }) {
        Some(Reply::BatFunction(d)) => *d,
        other => panic!("{other:?}"),
    };
    let counts = |d: &BatDetail| -> Vec<(u64, u32, Option<u64>)> {
        let mut c: Vec<_> = d.moved.iter().map(|m| (m.input_offset, m.fragment, m.count)).collect();
        c.sort();
        c
    };
    assert_eq!(detail(&mut sessions, hot).profile, None);

    // A recording of it, translated through its BAT: hot_loop's 13 blocks (11 hot,
    // 2 in its cold fragment) with their counts in the input binary's profile, as
    // perf2bolt's cprog.bolt.bat.yaml counts them (crate/tests/bat_profile.rs).
    let mut perf = session("cprog.bolt.brstack.perf.data", &corpus("bolt-perf/cprog/cprog.bolt.brstack.perf.data"));
    perf.finish().unwrap();
    sessions.insert(2, perf);
    assert!(matches!(sessions.answer(2, Request::Correlate { binary: 1 }), Some(Reply::Correlated { binary: 1, .. })));
    let d = detail(&mut sessions, hot);
    assert_eq!(d.profile.as_deref(), Some("cprog.bolt.brstack.perf.data"));
    let expected = vec![
        (0x0, 0, Some(64)),
        (0x17, 0, Some(62)),
        (0x30, 0, Some(320)),
        (0x52, 0, Some(313)),
        (0x60, 0, Some(27)),
        (0x80, 0, Some(16)),
        (0x97, 0, Some(0)),
        (0xa0, 0, Some(12)),
        (0xa3, 0, Some(330)),
        (0xb2, 0, Some(329)),
        (0xc4, 1, Some(0)),
        (0xca, 0, Some(73)),
        (0xdc, 1, Some(0)),
    ];
    assert_eq!(counts(&d), expected);
    // The cold fragment's row shows the same picture.
    assert_eq!(detail(&mut sessions, cold).moved, d.moved);

    // perf2bolt's own fdata of that recording, opened later, counts the same.
    let mut fdata = session("cprog.bolt.bat.fdata", &corpus("bolt-perf/cprog/cprog.bolt.bat.fdata"));
    fdata.finish().unwrap();
    sessions.insert(3, fdata);
    assert!(matches!(sessions.answer(3, Request::Correlate { binary: 1 }), Some(Reply::Correlated { .. })));
    let d = detail(&mut sessions, hot);
    assert_eq!((d.profile.as_deref(), counts(&d)), (Some("cprog.bolt.bat.fdata"), expected));

    // Without them, no counts.
    sessions.answer(3, Request::Close);
    sessions.answer(2, Request::Close);
    let d = detail(&mut sessions, hot);
    assert!(d.profile.is_none() && d.moved.iter().all(|m| m.count.is_none()));
}

/// perf2bolt through BAT writes, for the input binary, a YAML naming the BOLTed
/// binary's build id (the input's with its last bit flipped, as llvm-bolt patches
/// it); llvm-bolt reads it on the input binary, and so does the page: its graphs
/// are put on the input binary's code, local functions found by their
/// `name/file/N` names. Another build id is still refused.
#[test]
fn a_yaml_written_through_bat_is_read_with_the_input_binary() {
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    let mut y = session("cprog.bolt.bat.yaml", &corpus("bolt-perf/cprog/cprog.bolt.bat.yaml"));
    y.finish().unwrap();
    let views = y.correlate(2, &elf).unwrap();
    assert!(views.contains(&View::BoltCfg), "{views:?}");
    let page = y.table(&query(TableId::BoltFunctions, "name", false, "helper"), 0, 10).unwrap();
    let helper = page.rows.iter().find(|r| name_of(&r.cells[0]) == "helper/cmain.c/1").unwrap().id;
    let graph = y.bolt_cfg(Some(helper), Some(&elf), None).unwrap();
    assert_eq!(graph.code_note, None);
    assert!(graph.blocks.iter().all(|b| b.offset.is_some() && b.code.len() as u32 == b.instructions.unwrap()));
    // The BOLTed binary itself is not the one this profile describes.
    let mut bolted = session("cprog.bolt", &corpus("bolt-perf/cprog/cprog.bolt"));
    bolted.finish().unwrap();
    let mut other = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
    other.finish().unwrap();
    assert!(other.correlate(3, &bolted).is_err());
}

/// perf2bolt names a local function after its source file when the symbol table
/// has one (`NAME/FILE/N`): the table shows it demangled, file and number kept.
#[test]
fn a_local_function_named_after_its_file_is_demangled() {
    let mut s = session("cxxprog.bolt.bat.fdata", &corpus("bolt-perf/cxxprog/cxxprog.bolt.bat.fdata"));
    s.finish().unwrap();
    let page = s.table(&query(TableId::BoltFunctions, "name", false, "total_area"), 0, 10).unwrap();
    let names: Vec<_> = page
        .rows
        .iter()
        .map(|r| match &r.cells[0] {
            Cell::Name { text, raw, .. } => (text.as_str(), raw.as_deref()),
            other => panic!("{other:?}"),
        })
        .collect();
    let raw = "_ZL10total_areaRKSt6vectorISt10unique_ptrIN3geo5ShapeESt14default_deleteIS2_EESaIS5_EE/cxxprog.cpp/1";
    let shown = "total_area(std::vector<std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >, \
                 std::allocator<std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> > > > const&) /cxxprog.cpp/1";
    assert_eq!(names, [(shown, Some(raw))]);
}

#[test]
fn a_translated_profiles_graphs_are_bats_blocks_until_the_input_binary_comes() {
    let mut sessions = crate::Sessions::default();
    let open = |sessions: &mut crate::Sessions, id: DocId, name: &str, path: &str| {
        let mut s = session(name, &corpus(path));
        s.finish().unwrap();
        sessions.insert(id, s);
    };
    open(&mut sessions, 1, "cprog.bolt", "bolt-perf/cprog/cprog.bolt");
    open(&mut sessions, 2, "cprog.bolt.brstack.perf.data", "bolt-perf/cprog/cprog.bolt.brstack.perf.data");
    let Some(Reply::Correlated { views, .. }) = sessions.answer(2, Request::Correlate { binary: 1 }) else { panic!() };
    assert!(views.contains(&View::BoltCfg), "{views:?}");
    let row = |sessions: &mut crate::Sessions, doc: DocId, name: &str| {
        let page = sessions.get_mut(doc).unwrap().table(&query(TableId::BoltFunctions, "name", false, ""), 0, 1000);
        page.unwrap().rows.iter().find(|r| name_of(&r.cells[0]) == name).unwrap().id
    };
    let cfg = |sessions: &mut crate::Sessions, doc: DocId, function: u32| match sessions
        .answer(doc, Request::BoltCfg { function: Some(function) })
    {
        Some(Reply::BoltCfg(g)) => *g,
        other => panic!("{other:?}"),
    };
    // (offset, count) of each block; (from, to, count, mispredicted) of each edge, by offset.
    let shape = |g: &CfgGraph| {
        let at = |b: u32| g.blocks[b as usize].offset.unwrap();
        let blocks: Vec<(u64, u64)> = g.blocks.iter().map(|b| (b.offset.unwrap(), b.exec_count)).collect();
        let mut edges: Vec<_> =
            g.edges.iter().map(|e| (at(e.from), at(e.to), e.count.unwrap(), e.mispredicted)).collect();
        edges.sort();
        (blocks, edges)
    };
    let hot_loop = row(&mut sessions, 2, "hot_loop");
    let g = cfg(&mut sessions, 2, hot_loop);
    // hot_loop's 13 input blocks from BAT (11 in its hot part, 2 in its cold
    // fragment), counted as crate/tests/bat_profile.rs has them.
    let blocks = vec![
        (0x0, 64),
        (0x17, 62),
        (0x30, 320),
        (0x52, 313),
        (0x60, 27),
        (0x80, 16),
        (0x97, 0),
        (0xa0, 12),
        (0xa3, 330),
        (0xb2, 329),
        (0xc4, 0),
        (0xca, 73),
        (0xdc, 0),
    ];
    // cprog.bolt.bat.fdata's branches of hot_loop within it, each from the block
    // holding it (`1 hot_loop 50 1 hot_loop 52 13 310`: 0x30 -> 0x52, 13 mispredicted).
    let edges = vec![
        (0x0, 0x17, 58, 0),
        (0x17, 0x30, 62, 0),
        (0x30, 0x52, 310, 13),
        (0x30, 0x60, 27, 0),
        (0x52, 0xa3, 304, 0),
        (0x60, 0x80, 16, 0),
        (0x60, 0xa0, 11, 0),
        (0x80, 0xa3, 14, 0),
        (0xa0, 0xa3, 12, 0),
        (0xa3, 0xb2, 329, 0),
        (0xb2, 0x30, 258, 0),
        (0xb2, 0xca, 73, 4),
    ];
    assert_eq!(shape(&g), (blocks.clone(), edges.clone()));
    assert_eq!((g.name.as_str(), g.exec_count, g.unmatched), ("hot_loop", 64, 0));
    // The call of classify (`1 hot_loop 56 1 classify 0 0 313`), linked to its row.
    let call = &g.blocks[3].calls[0];
    assert_eq!(
        (call.callee.as_str(), call.count, call.function),
        ("classify", 313, Some(row(&mut sessions, 2, "classify")))
    );
    // No instructions, and the page says why.
    assert!(g.blocks.iter().all(|b| b.code.is_empty() && b.instructions.is_none()) && g.binary.is_none());
    assert_eq!(g.code_note.as_deref(), Some("Blocks from cprog.bolt's BAT: instructions need the input binary."));
    // No function asked for: the hottest, as for any profile.
    assert!(matches!(sessions.answer(2, Request::BoltCfg { function: None }), Some(Reply::BoltCfg(_))));

    // perf2bolt's own fdata with the BOLTed binary: the same graph, not the BOLTed code.
    open(&mut sessions, 3, "cprog.bolt.bat.fdata", "bolt-perf/cprog/cprog.bolt.bat.fdata");
    assert!(matches!(sessions.answer(3, Request::Correlate { binary: 1 }), Some(Reply::Correlated { .. })));
    let theirs_row = row(&mut sessions, 3, "hot_loop");
    let theirs = cfg(&mut sessions, 3, theirs_row);
    assert_eq!(shape(&theirs), (blocks, edges));
    assert!(theirs.binary.is_none() && theirs.blocks.iter().all(|b| b.code.is_empty()));

    // The input binary attached: its code, as for any fdata with its binary.
    open(&mut sessions, 4, "cprog", "bolt-perf/cprog/cprog");
    assert!(matches!(sessions.answer(2, Request::Correlate { binary: 4 }), Some(Reply::Correlated { .. })));
    let g = cfg(&mut sessions, 2, hot_loop);
    assert_eq!((g.binary.as_deref(), g.code_note.as_deref()), (Some("cprog"), None));
    assert!(g.blocks.iter().all(|b| !b.code.is_empty()), "{:?}", g.blocks);
    assert_eq!(g.blocks.iter().map(|b| b.exec_count).max(), Some(330));
    // A local function under BOLT's other name (`op_add/cmain.c/1`, the input
    // binary's `op_add/1`): its code too.
    let op_add = row(&mut sessions, 2, "op_add/cmain.c/1");
    let g = cfg(&mut sessions, 2, op_add);
    assert_eq!((g.binary.as_deref(), g.code_note.as_deref()), (Some("cprog"), None));
    assert!(!g.blocks.is_empty() && g.blocks.iter().all(|b| !b.code.is_empty()));
    // The BOLTed binary's BAT view still counts its blocks with the profile.
    assert!(sessions.get_mut(2).unwrap().translated_profile(1));
}
