//! The BOLT views of a session: the function table of an fdata or YAML profile,
//! and (for YAML, which holds the graphs) each function's control-flow graph,
//! laid out here (blocks sized to their text, layered top to bottom) so the page
//! only draws.

use alloc::string::String;
use alloc::vec::Vec;

use alloc::collections::BTreeMap;

use pgolens::formats::bolt::{fdata, yaml};
use pgolens::formats::perf::perf2bolt::binary::Binary;
use pgolens::layout::layered::{self, Edge, Node, Options};
use pgolens::model::bolt::{
    binary_function, cfg_from_fdata, cfg_from_yaml, demangle_local, place_on_binary, Cfg, Column, FunctionRows,
};
use pgolens::model::disasm;
use pgolens::model::fdata_records::{self, location_text, RecordColumn, Records};
use pgolens_protocol::{
    grouped, Cell, CfgBlock, CfgCall, CfgEdge, CfgGraph, CfgInsn, DocId, FlowScore, Row, TablePage, TableQuery,
    CFG_CALL_LINES, CFG_CHAR_PX, CFG_CODE_LINES, CFG_FLAG_GAP, CFG_LINE_PX, CFG_NOTE_CHARS, CFG_NOTE_LINES, CFG_PAD_PX,
};

use crate::bat::BatView;
use crate::session::{fail, Failure};
use crate::tables;

/// A BOLT profile's rows and the order last asked for.
pub struct BoltView {
    rows: FunctionRows,
    /// The YAML profile the rows come from (its functions are the rows, in order).
    pub yaml: Option<yaml::Profile<'static>>,
    /// The fdata profile the rows come from: with the binary, it gives graphs.
    fdata: Option<fdata::Fdata<'static>>,
    /// The open ELF document the profile's code is read from.
    pub binary: Option<DocId>,
    /// A BOLTed binary's profile as perf2bolt -w writes it from BAT.
    pub translated_yaml: Option<Vec<u8>>,
    /// The open BOLTed binary (ELF with BAT) whose BAT translated this profile to
    /// the input binary: its BAT view counts its blocks with it.
    pub translated_with: Option<DocId>,
    order: tables::RowOrder<Column>,
    /// Row ids by raw function name, for calls to link to their callees.
    by_name: Option<BTreeMap<String, u32>>,
    /// The record table order last asked for.
    record_order: Option<RecordOrder>,
}

/// A record table's rows under one query, and the table's total count: computed
/// when the query changes, not for every page.
struct RecordOrder {
    which: Records,
    column: RecordColumn,
    descending: bool,
    filter: String,
    ids: Vec<u32>,
    weight: u64,
}

impl BoltView {
    pub fn fdata(data: &[u8]) -> Result<BoltView, pgolens::Error> {
        Ok(BoltView::from_fdata(owned(fdata::decode(data)?)))
    }

    /// The views of an fdata profile already decoded (or aggregated from branches).
    pub fn from_fdata(profile: fdata::Fdata<'static>) -> BoltView {
        BoltView {
            rows: FunctionRows::from_fdata(&profile),
            yaml: None,
            fdata: Some(profile),
            binary: None,
            translated_yaml: None,
            translated_with: None,
            order: tables::RowOrder::default(),
            by_name: None,
            record_order: None,
        }
    }

    pub fn yaml(data: &[u8]) -> Result<BoltView, pgolens::Error> {
        Ok(BoltView::from_yaml(yaml::decode(data)?.into_owned()))
    }

    /// The views of a YAML profile already decoded (as it streamed in).
    pub fn from_yaml(profile: yaml::Profile<'static>) -> BoltView {
        let rows = FunctionRows::from_yaml(&profile);
        BoltView {
            rows,
            yaml: Some(profile),
            fdata: None,
            binary: None,
            translated_yaml: None,
            translated_with: None,
            order: tables::RowOrder::default(),
            by_name: None,
            record_order: None,
        }
    }

    /// What the page says of the profile beside its status: a YAML profile of
    /// basic samples (`profile-flags: [ sample ]`) with no count at all, as
    /// perf2bolt 22 writes one (`-w`) beside an fdata that has the samples: every
    /// row of its table is 0, and that is the file, not the page.
    pub fn remark(&self) -> Option<String> {
        let p = self.yaml.as_ref()?;
        let counted = p.functions.iter().any(|f| f.exec > 0 || f.extern_entries > 0)
            || p.blocks.iter().any(|b| b.exec > 0)
            || p.block_extras.iter().any(|e| e.events > 0)
            || p.successors.iter().any(|s| s.count > 0)
            || p.calls.iter().any(|c| c.count > 0);
        (p.header.flags.has(yaml::ProfileFlags::BASIC) && !p.functions.is_empty() && !counted).then(|| {
            String::from(
                "a profile of basic samples with no counts (as perf2bolt writes its YAML without LBR; its fdata has the samples)",
            )
        })
    }

    /// The fdata profile, when the profile is one (decoded, or aggregated from branches).
    pub fn fdata_profile(&self) -> Option<&fdata::Fdata<'static>> {
        self.fdata.as_ref()
    }

    /// A page of the function table.
    pub fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column =
            Column::from_id(&query.column).ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let order = self
            .order
            .get(
                &mut self.rows,
                column,
                query.descending,
                &query.filter,
                |r, c, d| r.sorted(c, d),
                |r, o, f| r.filter(o, f),
            )
            .to_vec();
        let rows = &self.rows;
        let has_blocks = rows.rows.iter().any(|r| r.numbers.blocks.is_some());
        let shown: Vec<Column> =
            Column::ALL.into_iter().filter(|&c| c != Column::Name && (has_blocks || c != Column::Blocks)).collect();
        Ok(tables::page(
            query,
            tables::bolt_columns(has_blocks),
            rows.rows.len(),
            Some(rows.weight),
            &order,
            start,
            count,
            |&id| {
                let row = rows.rows.get(id as usize)?;
                let mut cells =
                    alloc::vec![Cell::Name { text: row.shown().into(), raw: Some(row.name.clone()), tag: None }];
                cells.extend(shown.iter().map(|&c| match (c, rows.value(id, c)) {
                    (Column::Mispredicted, Some(ppm)) => Cell::Ppm(u32::try_from(ppm).unwrap_or(u32::MAX)),
                    (_, Some(v)) => Cell::Count(v),
                    (_, None) => Cell::Empty,
                }));
                Some(Row { id, cells })
            },
        ))
    }
}

impl BoltView {
    /// The profile as a file: fdata as perf2bolt writes it, or YAML as LLVM's
    /// writer does (wrapped as the input was); `stem` names it.
    pub fn export(&self, stem: &str, as_yaml: bool) -> Result<(String, Vec<u8>), Failure> {
        if let Some(profile) = &self.yaml {
            return Ok((alloc::format!("{stem}.yaml"), yaml::write(profile, profile.wrap_column())));
        }
        if as_yaml {
            let bytes = self.translated_yaml.clone().ok_or_else(|| {
                fail("YAML is written from a YAML profile, or from a BOLTed binary's BAT (fdata needs BOLT's block hashes)")
            })?;
            return Ok((alloc::format!("{stem}.yaml"), bytes));
        }
        let profile = self.fdata.as_ref().ok_or_else(|| fail("no profile to write"))?;
        let mut out = Vec::new();
        fdata::write(profile, &mut out);
        Ok((alloc::format!("{stem}.fdata"), out))
    }

    /// The record tables the profile has lines for.
    pub fn records(&self) -> Vec<Records> {
        let Some(f) = &self.fdata else { return Vec::new() };
        let mut out = Vec::new();
        if !f.branches.is_empty() {
            out.push(Records::Branches);
        }
        if !f.memory.is_empty() {
            out.push(Records::Memory);
        }
        if !f.samples.is_empty() {
            out.push(Records::Samples);
        }
        out
    }

    /// A page of an fdata record table (branch or memory lines).
    pub fn record_table(
        &mut self,
        which: Records,
        query: TableQuery,
        start: u64,
        count: u64,
    ) -> Result<TablePage, Failure> {
        let fdata = self.fdata.as_ref().ok_or_else(|| fail("only an fdata profile has record tables"))?;
        let column = RecordColumn::from_id(&query.column)
            .filter(|c| RecordColumn::of(which).contains(c))
            .ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let fresh = self.record_order.as_ref().is_some_and(|o| {
            o.which == which && o.column == column && o.descending == query.descending && o.filter == query.filter
        });
        if !fresh {
            let sorted = fdata_records::sorted(fdata, which, column, query.descending);
            self.record_order = Some(RecordOrder {
                which,
                column,
                descending: query.descending,
                filter: query.filter.clone(),
                ids: fdata_records::filter(fdata, which, &sorted, &query.filter),
                weight: fdata_records::weight(fdata, which),
            });
        }
        let (order, weight) = self.record_order.as_ref().map_or((&[][..], 0), |o| (o.ids.as_slice(), o.weight));
        let signed = |v: i64| u64::try_from(v).map_or_else(|_| Cell::Text(alloc::format!("{v}")), Cell::Count);
        Ok(tables::page(
            query,
            tables::record_columns(which),
            fdata_records::len(fdata, which),
            Some(weight),
            order,
            start,
            count,
            |&id| {
                let r = fdata_records::row(fdata, which, id)?;
                let mut cells = alloc::vec![Cell::Text(location_text(r.from))];
                if let Some(to) = r.to {
                    cells.push(Cell::Text(location_text(to)));
                }
                if let Some(m) = r.mispredicted {
                    cells.push(signed(m));
                }
                cells.extend([signed(r.count), Cell::Count(r.line)]);
                Some(Row { id, cells })
            },
        ))
    }

    /// Whether the profile gives graphs (a YAML profile does; fdata with its binary,
    /// or translated through a BOLTed binary's BAT).
    pub fn has_graphs(&self) -> bool {
        self.yaml.is_some() || self.binary.is_some() || self.translated_branches()
    }

    /// Whether the profile has branches translated through BAT (see [`BoltView::translated_with`]):
    /// BAT's blocks of each function, counted by them, are its graphs.
    fn translated_branches(&self) -> bool {
        self.translated_with.is_some() && self.fdata.as_ref().is_some_and(|f| f.bolted_collection && f.no_lbr.is_none())
    }

    /// Whether `elf` is a binary this profile can be read with: an x86-64 ELF that
    /// has one of the profile's functions (and, for a YAML profile naming its
    /// binary's build id, that build id, or for an input binary (not `bolted`) the
    /// id of the binary llvm-bolt wrote from it).
    pub fn matches(&self, binary: Result<Binary<'_>, Failure>, bolted: bool) -> Result<(), Failure> {
        let binary = binary?;
        if let (Some(yaml), Some(id)) = (&self.yaml, binary.build_id) {
            let hex = pgolens::read::hex_string(id);
            // llvm-bolt gives the binary it writes the input's build id with the
            // last bit flipped, and perf2bolt through BAT names that one in the
            // profile it writes for the input binary: both are this binary's.
            let mut flipped = id.to_vec();
            if let Some(last) = flipped.last_mut() {
                *last ^= 1;
            }
            let named = &*yaml.header.build_id;
            let of_its_output = || named == pgolens::read::hex_string(&flipped).as_bytes();
            if !named.is_empty() && named != hex.as_bytes() && (bolted || !of_its_output()) {
                return Err(fail(alloc::format!(
                    "the profile is of build id {}, the binary's is {hex}",
                    String::from_utf8_lossy(&yaml.header.build_id)
                )));
            }
        }
        // Most of the profile's counts are in functions the binary has (every binary
        // shares `_start` and friends; a profile's hot functions are its own).
        let weight = |r: &pgolens::model::bolt::FunctionRow| {
            r.numbers.exec_count.saturating_add(r.numbers.branches).saturating_add(r.numbers.calls_out).max(1)
        };
        let (found, total) = self.rows.rows.iter().fold((0u64, 0u64), |(found, total), r| {
            let w = weight(r);
            let here = if binary_function(&binary, &r.name).is_some() { w } else { 0 };
            (found.saturating_add(here), total.saturating_add(w))
        });
        if found.saturating_mul(2) >= total && found > 0 {
            Ok(())
        } else {
            Err(fail("most of the profile's counts are in functions the binary does not have"))
        }
    }

    /// The row of the function named `name` (raw), built once.
    fn row_of(&mut self, name: &str) -> Option<u32> {
        let rows = &self.rows;
        let index = self.by_name.get_or_insert_with(|| {
            rows.rows.iter().enumerate().map(|(i, r)| (r.name.clone(), u32::try_from(i).unwrap_or(u32::MAX))).collect()
        });
        index.get(name).copied()
    }

    /// Function `function` (a row id; `None`: the hottest) as a laid-out graph;
    /// `binary` (its name and bytes) gives the blocks' instructions, and an fdata
    /// profile its graph. Without it, a profile translated through BAT has the input
    /// function's blocks from `bat` (the BOLTed binary's name and BAT), with no
    /// instructions.
    pub fn cfg(
        &mut self,
        function: Option<u32>,
        binary: Option<(&str, Result<Binary<'_>, pgolens::Error>)>,
        bat: Option<(&str, &BatView)>,
    ) -> Result<CfgGraph, Failure> {
        let id = match function {
            Some(id) => id,
            // The function table's first row: the most taken branches (a sampled
            // profile's exec counts are a few entries seen; its hottest by them
            // was a one-block helper), then the most runs.
            None => (0..self.rows.rows.len())
                .max_by_key(|&i| {
                    let n = self.rows.rows.get(i).map(|r| (r.numbers.branches, r.numbers.exec_count));
                    (n.unwrap_or_default(), core::cmp::Reverse(i))
                })
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| fail("the profile has no functions"))?,
        };
        let name = self.rows.rows.get(id as usize).map(|r| r.name.clone()).unwrap_or_default();
        let file = binary.as_ref().map(|(file, _)| String::from(*file));
        let elf = match &binary {
            Some((_, Ok(b))) => Some(b),
            _ => None,
        };
        let in_binary = elf.and_then(|b| Some((b, binary_function(b, &name)?)));
        let mut code_note = match (&binary, in_binary) {
            (None, _) => Some(String::from("Drop the binary to see each block's instructions.")),
            (Some((file, Err(e))), _) => Some(alloc::format!("{file} is not a binary pgolens reads: {e}")),
            (Some((file, Ok(_))), None) => Some(alloc::format!("{file} has no function {name}.")),
            _ => None,
        };
        let bat = bat.filter(|_| self.translated_branches());
        let mut cfg = match (&self.yaml, &self.fdata, in_binary, bat) {
            (Some(yaml), ..) => cfg_from_yaml(yaml, id as usize),
            (None, Some(fdata), Some((b, f)), _) => cfg_from_fdata(fdata, b, f),
            // The input binary is not at hand: BAT knows its blocks.
            (None, Some(fdata), None, Some((bolted, bat))) => {
                code_note = Some(alloc::format!("Blocks from {bolted}'s BAT: instructions need the input binary."));
                bat.profile_cfg(fdata, &name)
            }
            _ => {
                return Err(fail("an fdata profile's graphs come from its binary: drop the binary it was recorded on"))
            }
        }
        .ok_or_else(|| fail(alloc::format!("no graph for {name}")))?;
        let placed = match (in_binary, &self.yaml) {
            (Some(_), None) => true,
            (Some((b, f)), Some(yaml)) => {
                let declared = yaml.functions.get(id as usize).map_or(0, |f| f.block_count as usize);
                let branches = yaml.header.flags.has(yaml::ProfileFlags::BRANCH);
                match place_on_binary(&mut cfg, b, f, declared, branches) {
                    Ok(()) => true,
                    // perf2bolt writes `nblocks: 0` for a function it has nothing for.
                    Err(_) if declared == 0 => {
                        code_note = Some(alloc::format!("The profile has no blocks for {name}."));
                        false
                    }
                    Err(blocks) => {
                        code_note = Some(alloc::format!(
                            "The binary's {name} has {blocks} blocks, the profile's {declared}: it is not the binary profiled."
                        ));
                        false
                    }
                }
            }
            (None, _) => false,
        };
        let code = match in_binary.filter(|_| placed) {
            Some((b, f)) => code_of(&cfg, b, f),
            None => Vec::new(),
        };
        let gaps = cfg.flow_gaps();
        let flow = cfg.flow();
        let mut blocks: Vec<CfgBlock> = Vec::with_capacity(cfg.blocks.len());
        for (i, b) in cfg.blocks.iter().enumerate() {
            let calls: Vec<CfgCall> = b
                .calls
                .iter()
                .map(|c| CfgCall {
                    callee: c.callee.clone(),
                    demangled: demangle_local(&c.callee),
                    count: c.count,
                    mispredicted: c.mispredicted,
                    function: self.row_of(&c.callee),
                })
                .collect();
            let (inflow, outflow) = flow.get(i).copied().unwrap_or_default();
            let gap = gaps.blocks.get(i).copied();
            let (gap, not_counted) = (gap.and_then(Result::ok), gap.and_then(Result::err));
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let code = code.get(i).cloned().unwrap_or_default();
            let lines = block_lines(index, b.offset, b.exec_count, b.instructions, &calls, &code);
            let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CFG_CHAR_PX;
            let height = lines.len() as f64 * CFG_LINE_PX;
            blocks.push(CfgBlock {
                index,
                offset: b.offset,
                exec_count: b.exec_count,
                instructions: b.instructions,
                entry: b.entry,
                inflow,
                outflow,
                gap,
                not_counted: not_counted.map(|why| String::from(why.reason())),
                flagged: gap.is_some_and(|g| g >= CFG_FLAG_GAP),
                lines,
                code,
                x: 0.0,
                y: 0.0,
                w: width + 2.0 * CFG_PAD_PX,
                h: height + 2.0 * CFG_PAD_PX,
                calls,
            });
        }
        let nodes: Vec<Node> = blocks.iter().map(|b| Node { width: b.w as f32, height: b.h as f32 }).collect();
        let edges: Vec<Edge> =
            cfg.edges.iter().map(|e| Edge { from: e.from, to: e.to, weight: e.count.unwrap_or(0) }).collect();
        let entries: Vec<u32> =
            cfg.blocks.iter().enumerate().filter(|(_, b)| b.entry).filter_map(|(i, _)| u32::try_from(i).ok()).collect();
        let entries = if entries.is_empty() { alloc::vec![0] } else { entries };
        let laid = layered::layout(&nodes, &edges, &entries, &Options::default());
        for (b, p) in blocks.iter_mut().zip(&laid.nodes) {
            b.x = f64::from(p.x);
            b.y = f64::from(p.y);
        }
        let edges: Vec<CfgEdge> = cfg
            .edges
            .iter()
            .zip(&laid.edges)
            .map(|(e, route)| CfgEdge {
                from: e.from,
                to: e.to,
                count: e.count,
                mispredicted: e.mispredicted,
                inferred: e.inferred,
                back: route.back,
                points: route.points.iter().flat_map(|&(x, y)| [f64::from(x), f64::from(y)]).collect(),
            })
            .collect();
        let row = self.rows.rows.get(id as usize);
        Ok(CfgGraph {
            function: id,
            name: cfg.name.clone(),
            demangled: row.and_then(|r| r.demangled().map(Into::into)),
            exec_count: row.map_or(cfg.exec_count, |r| r.numbers.exec_count),
            max_count: edges.iter().filter_map(|e| e.count).max().unwrap_or(0),
            blocks,
            edges,
            width: f64::from(laid.width),
            height: f64::from(laid.height),
            layers: laid.layers,
            crossings: laid.crossings,
            layout_ms: 0.0,
            flow: FlowScore {
                weighted_gap: gaps.weighted,
                worst_gap: gaps.worst,
                worst_block: gaps.worst_block,
                flagged: u32::try_from(gaps.blocks.iter().flatten().filter(|&&g| g >= CFG_FLAG_GAP).count())
                    .unwrap_or(u32::MAX),
            },
            unmatched: cfg.unmatched.len() as u64,
            binary: file.filter(|_| placed),
            code_note,
        })
    }
}

/// Each block's instructions, with the counts the profile has at them: a call's
/// count, and on a block's last instruction the edges it takes (not the
/// fall-through into the next block).
fn code_of(cfg: &Cfg, binary: &Binary<'_>, function: usize) -> Vec<Vec<CfgInsn>> {
    let Some(f) = binary.functions.get(function) else { return Vec::new() };
    let mut starts: Vec<u64> = cfg.blocks.iter().filter_map(|b| b.offset).collect();
    starts.sort_unstable();
    cfg.blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let Some(start) = b.offset else { return Vec::new() };
            let end = starts.iter().copied().find(|&s| s > start).unwrap_or(f.size);
            let lines = disasm::block(binary, f.address, start, end);
            let last = lines.last().map(|l| l.offset);
            // The edge into the next block is the fall-through, unless the block
            // ends in a jump (a jump table's next entry is taken too).
            let falls_through = lines.last().is_some_and(|l| l.falls_through);
            let mut successors = u32::try_from(i).map(|i| cfg.successors(i)).unwrap_or_default().to_vec();
            // Hottest first, as llvm-bolt lists a jump table's successors.
            successors.sort_by_key(|e| core::cmp::Reverse(e.count));
            let taken: Vec<String> = successors
                .iter()
                .filter(|e| !falls_through || cfg.blocks.get(e.to as usize).and_then(|t| t.offset) != Some(end))
                .filter_map(|e| {
                    let count = e.count?;
                    let mispredicted = if e.mispredicted > 0 {
                        alloc::format!(" ({} mispredicted)", e.mispredicted)
                    } else {
                        String::new()
                    };
                    Some(alloc::format!("→ #{} ×{}{mispredicted}", e.to, grouped(count)))
                })
                .collect();
            lines
                .into_iter()
                .map(|l| {
                    let at = b.calls.iter().filter(|c| c.offset == l.offset);
                    let note = if b.calls.iter().any(|c| c.offset == l.offset) {
                        Some(alloc::format!("×{}", grouped(at.map(|c| c.count).fold(0, u64::saturating_add))))
                    } else if Some(l.offset) == last && !taken.is_empty() {
                        Some(taken.join(", "))
                    } else {
                        None
                    };
                    CfgInsn { offset: l.offset, text: l.text, note }
                })
                .collect()
        })
        .collect()
}

/// `fdata` owning its names, to outlive the file's bytes.
fn owned(fdata: fdata::Fdata<'_>) -> fdata::Fdata<'static> {
    fdata::Fdata {
        bolted_collection: fdata.bolted_collection,
        no_lbr: fdata.no_lbr.map(|events| events.into_iter().map(|e| e.into_owned().into()).collect()),
        branches: fdata
            .branches
            .into_iter()
            .map(|b| fdata::Branch { from: b.from.into_owned(), to: b.to.into_owned(), ..b })
            .collect(),
        samples: fdata.samples.into_iter().map(|s| fdata::Sample { at: s.at.into_owned(), ..s }).collect(),
        memory: fdata
            .memory
            .into_iter()
            .map(|m| fdata::MemoryAccess { pc: m.pc.into_owned(), address: m.address.into_owned(), ..m })
            .collect(),
        ignored_from_line: fdata.ignored_from_line,
    }
}

/// A block's text: `#index  @offset  count  (n insns)`, then its calls, hottest
/// first, then its instructions.
fn block_lines(
    index: u32,
    offset: Option<u64>,
    count: u64,
    instructions: Option<u32>,
    calls: &[CfgCall],
    code: &[CfgInsn],
) -> Vec<String> {
    let mut head = alloc::format!("#{index}");
    if let Some(offset) = offset {
        head.push_str(&alloc::format!("  @{offset:#x}"));
    }
    head.push_str(&alloc::format!("  ×{}", grouped(count)));
    if let Some(n) = instructions {
        head.push_str(&alloc::format!("  {n} insn{}", if n == 1 { "" } else { "s" }));
    }
    let mut lines = alloc::vec![head];
    for c in calls.iter().take(CFG_CALL_LINES) {
        let name = c.demangled.as_deref().unwrap_or(if c.callee.is_empty() { "[unknown]" } else { &c.callee });
        let short: String = name.chars().take(48).collect();
        let cut = if short.len() < name.len() { "…" } else { "" };
        lines.push(alloc::format!("→ {short}{cut}  ×{}", grouped(c.count)));
    }
    if calls.len() > CFG_CALL_LINES {
        lines.push(alloc::format!("  + {} more calls", calls.len().saturating_sub(CFG_CALL_LINES)));
    }
    for i in code.iter().take(CFG_CODE_LINES) {
        let line = alloc::format!("{:>5x}: {}", i.offset, i.text);
        match i.note.as_deref() {
            Some(note) => noted(&mut lines, line, note),
            None => lines.push(line),
        }
    }
    if code.len() > CFG_CODE_LINES {
        lines.push(alloc::format!("  … {} more instructions", code.len().saturating_sub(CFG_CODE_LINES)));
    }
    lines
}

/// `line` with `note` after it. A long note (a jump table's edges) is wrapped at
/// its commas into a column of lines [`CFG_NOTE_CHARS`] wide, at most
/// [`CFG_NOTE_LINES`] of them: one line would make the block, and the whole
/// graph, as wide as every edge's count.
fn noted(lines: &mut Vec<String>, line: String, note: &str) {
    let indent = line.chars().count().saturating_add(4);
    let mut parts: Vec<String> = Vec::new();
    for item in note.split_inclusive(", ") {
        match parts.last_mut() {
            Some(last) if last.chars().count().saturating_add(item.chars().count()) <= CFG_NOTE_CHARS => {
                last.push_str(item)
            }
            _ => parts.push(item.into()),
        }
    }
    let hidden = parts.len().saturating_sub(CFG_NOTE_LINES);
    if hidden > 0 {
        let more: usize = parts.iter().skip(CFG_NOTE_LINES.saturating_sub(1)).map(|p| p.matches(", ").count()).sum();
        parts.truncate(CFG_NOTE_LINES.saturating_sub(1));
        parts.push(alloc::format!("… {} more", more.saturating_add(1)));
    }
    for (k, part) in parts.iter().enumerate() {
        let part = part.trim_end();
        if k == 0 {
            lines.push(alloc::format!("{line}  # {part}"));
        } else {
            lines.push(alloc::format!("{:indent$}{part}", ""));
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn a_long_note_is_wrapped_and_cut_with_what_it_leaves_out() {
        let note: Vec<String> = (0..20).map(|k| alloc::format!("→ #{k} ×{}", grouped(1_000_000 + k))).collect();
        let mut lines = Vec::new();
        noted(&mut lines, "    c: jmpq    *0x402010(,%rcx,8)".into(), &note.join(", "));
        // Two edges a line (17 and 18 characters each with the comma), three lines
        // of them and what is left.
        assert_eq!(lines.len(), CFG_NOTE_LINES);
        assert_eq!(lines[0], "    c: jmpq    *0x402010(,%rcx,8)  # → #0 ×1,000,000, → #1 ×1,000,001,");
        assert_eq!(lines[2].trim_start(), "→ #4 ×1,000,004, → #5 ×1,000,005,");
        assert_eq!(lines[3].trim_start(), "… 14 more");
        assert!(lines[1..].iter().all(|l| l.find('→').or(l.find('…')) == lines[0].find("→ #0")));
        // A short note stays on its line.
        let mut lines = Vec::new();
        noted(&mut lines, "   1f: callq   0x401000".into(), "×12,345");
        assert_eq!(lines, ["   1f: callq   0x401000  # ×12,345"]);
    }
}
