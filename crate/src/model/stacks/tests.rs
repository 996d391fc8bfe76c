//! Tests of the stack model's queries on hand-built profiles.

#![allow(clippy::cast_possible_truncation)]

use super::*;
use alloc::format;

/// main → a → b (3), main → a (1), main → c → b (2), main → a → a → b (4) on
/// event 0 at times 0..; one sample of event 1.
fn profile() -> (StackProfile, [FrameId; 4]) {
    let mut p = StackProfile::new();
    let cycles = p.add_event("cycles");
    let other = p.add_event("instructions");
    let main = p.frame("main", Some("prog"), FrameKind::User);
    let a = p.frame("a", Some("prog"), FrameKind::User);
    let b = p.frame("b", Some("libc.so"), FrameKind::User);
    let c = p.frame("c", None, FrameKind::Kernel);
    assert_eq!(p.frame("a", Some("prog"), FrameKind::User), a, "interned");
    p.push_sample(cycles, 0, 3, &[main, a, b]).unwrap();
    p.push_sample(cycles, 10, 1, &[main, a]).unwrap();
    p.push_sample(cycles, 20, 2, &[main, c, b]).unwrap();
    p.push_sample(cycles, 30, 4, &[main, a, a, b]).unwrap();
    p.push_sample(other, 5, 100, &[main]).unwrap();
    (p, [main, a, b, c])
}

fn all(event: u32) -> Filter {
    Filter { event, ..Filter::default() }
}

#[test]
fn unit_weights_are_not_stored_until_another_weight_comes() {
    let mut p = StackProfile::new();
    p.add_event("cycles");
    let main = p.frame("main", None, FrameKind::User);
    let a = p.frame("a", None, FrameKind::User);
    p.push_sample(0, 0, 1, &[main]).unwrap();
    p.push_sample(0, 1, 1, &[main, a]).unwrap();
    assert!(p.weight.is_empty());
    p.push_sample(0, 2, 5, &[main, a]).unwrap();
    p.push_sample(0, 3, 1, &[main]).unwrap();
    assert_eq!(p.weight, vec![1, 1, 5, 1]);
    assert!(p.event.is_empty(), "all samples of event 0");
    let tree = p.call_tree(&all(0));
    assert_eq!(tree.total(), 8);
    assert_eq!(p.timeline(&all(0), 4).bins, vec![1, 1, 5, 1]);
    // A sample of another event makes the events stored.
    p.add_event("instructions");
    p.push_sample(1, 3, 2, &[main, a]).unwrap();
    assert_eq!(p.event, vec![0, 0, 0, 0, 1]);
    assert_eq!(p.call_tree(&all(0)).total(), 8);
    assert_eq!(p.call_tree(&all(1)).total(), 2);
}

fn named(p: &StackProfile, t: &CallTree) -> Vec<(u32, String, u64, u64)> {
    t.depths()
        .zip(&t.nodes)
        .map(|(depth, n)| {
            let name = p.frame_info(n.frame).map_or_else(|| String::from("<root>"), |f| f.name.clone());
            (depth, name, n.total, n.self_weight)
        })
        .collect()
}

fn rows(v: &[(u32, &str, u64, u64)]) -> Vec<(u32, String, u64, u64)> {
    v.iter().map(|&(d, n, t, s)| (d, String::from(n), t, s)).collect()
}

#[test]
fn the_prefix_tree_shares_prefixes_and_rejects_unknown_ids() {
    let (mut p, [main, ..]) = profile();
    // root, main, a, b, c, b (under c), a (under a), b (under a a)
    assert_eq!(p.node_count(), 8);
    assert_eq!(p.sample_count(), 5);
    assert_eq!(p.push_sample(0, 0, 1, &[main, 99]), None);
    assert_eq!(p.push_sample(7, 0, 1, &[main]), None);
    assert_eq!(p.push_sample_at(0, 0, 1, 1000), None);
    assert_eq!(p.frame_dso(2), Some("libc.so"));
    assert_eq!(p.frame_dso(3), None);
    assert_eq!(p.time_range(), Some((0, 30)));
    // Kept as samples come, in any order; a rejected sample leaves it.
    assert_eq!(p.push_sample(7, 99, 1, &[main]), None);
    assert_eq!(p.time_range(), Some((0, 30)));
    p.push_sample(0, 45, 1, &[main]).unwrap();
    p.push_sample(0, 12, 1, &[main]).unwrap();
    assert_eq!(p.time_range(), Some((0, 45)));
    assert_eq!(StackProfile::new().time_range(), None);
}

#[test]
fn the_call_tree_merges_paths_in_preorder_with_siblings_by_name() {
    let (p, _) = profile();
    let t = p.call_tree(&all(0));
    assert_eq!(
        named(&p, &t),
        rows(&[
            (0, "<root>", 10, 0),
            (1, "main", 10, 0),
            (2, "a", 8, 1),
            (3, "a", 4, 0),
            (4, "b", 4, 4),
            (3, "b", 3, 3),
            (2, "c", 2, 0),
            (3, "b", 2, 2),
        ])
    );
    assert_eq!(t.total(), 10);
    assert_eq!(t.nodes[4].parent, 3);
    let (a, b) = (1, 2);
    assert_eq!(t.path(4), vec![0, a, a, b]);
    assert_eq!(t.paths().path(4), t.path(4), "the shape alone names the same path");
    assert_eq!(t.paths().path(0), Vec::<FrameId>::new());
    // The other event sees only its sample.
    assert_eq!(named(&p, &p.call_tree(&all(1))), rows(&[(0, "<root>", 100, 0), (1, "main", 100, 100)]));
    // A time range keeps the samples in it (10 and 20).
    let t = p.call_tree(&Filter { event: 0, time: Some(10..21), ..Filter::default() });
    assert_eq!(
        named(&p, &t),
        rows(&[(0, "<root>", 3, 0), (1, "main", 3, 0), (2, "a", 1, 1), (2, "c", 2, 0), (3, "b", 2, 2)])
    );
    assert_eq!(p.call_tree(&all(5)).total(), 0);
}

#[test]
fn the_inverted_tree_starts_at_the_leaves() {
    let (p, _) = profile();
    let t = p.inverted(&all(0));
    assert_eq!(
        named(&p, &t),
        rows(&[
            (0, "<root>", 10, 0),
            (1, "a", 1, 1),
            (2, "main", 1, 0),
            (1, "b", 9, 9),
            (2, "a", 7, 0),
            (3, "a", 4, 0),
            (4, "main", 4, 0),
            (3, "main", 3, 0),
            (2, "c", 2, 0),
            (3, "main", 2, 0),
        ])
    );
}

#[test]
fn functions_count_a_recursive_frame_once_per_stack() {
    let (p, [main, a, b, c]) = profile();
    let mut f = p.functions(&all(0));
    f.sort_by_key(|s| s.frame);
    assert_eq!(
        f,
        vec![
            FunctionStats { frame: main, self_weight: 0, total: 10 },
            FunctionStats { frame: a, self_weight: 1, total: 8 },
            FunctionStats { frame: b, self_weight: 9, total: 9 },
            FunctionStats { frame: c, self_weight: 0, total: 2 },
        ]
    );
    let f = p.functions(&Filter { event: 0, time: Some(20..31), ..Filter::default() });
    assert_eq!(f.iter().map(|s| (s.frame, s.total)).collect::<Vec<_>>(), vec![(main, 6), (a, 4), (b, 6), (c, 2)]);
}

#[test]
fn the_sandwich_shows_callers_and_callees() {
    let (p, [_, a, ..]) = profile();
    let s = p.sandwich(&all(0), a);
    // Callers from the innermost a: a ← main (1+3), a ← a ← main (4); a is the
    // leaf of one stack (1): its self weight, as in the callees.
    assert_eq!(
        named(&p, &s.callers),
        rows(&[(0, "<root>", 8, 0), (1, "a", 8, 1), (2, "a", 4, 0), (3, "main", 4, 0), (2, "main", 4, 0)])
    );
    // Callees from the outermost a: a (1), a → b (3), a → a → b (4).
    assert_eq!(
        named(&p, &s.callees),
        rows(&[(0, "<root>", 8, 0), (1, "a", 8, 1), (2, "a", 4, 0), (3, "b", 4, 4), (2, "b", 3, 3)])
    );
    assert_eq!(p.sandwich(&all(0), 99).callers.total(), 0);
}

#[test]
fn search_reports_the_share_of_stacks_holding_a_match() {
    let (p, [_, a, b, c]) = profile();
    let s = p.search(&all(0), "C");
    assert_eq!(s, SearchResult { frames: vec![c], weight: 2, total: 10 });
    let s = p.search(&all(0), "/^a$|^c/");
    assert_eq!(s, SearchResult { frames: vec![a, c], weight: 10, total: 10 });
    assert_eq!(p.search(&all(0), "b").weight, 9);
    assert_eq!(p.search(&all(0), "b").frames, vec![b]);
    assert_eq!(p.search(&all(0), "").frames, Vec::<u32>::new());
    assert!(matches("/st.*push$/", "std::vec::push"));
    assert!(!matches("/^vec/", "std::vec"));
    assert!(matches("VEC", "std::vec"));
    assert!(matches("a*b", "xa*by"), "plain patterns are literal");
}

#[test]
fn the_timeline_buckets_weight_by_time() {
    let (p, _) = profile();
    assert_eq!(p.timeline(&all(0), 4), Timeline { start: 0, end: 31, bins: vec![3, 1, 2, 4] });
    assert_eq!(p.timeline(&Filter { event: 0, time: Some(10..20), ..Filter::default() }, 2).bins, vec![1, 0]);
    assert_eq!(p.timeline(&all(1), 2).bins, vec![100, 0]);
    assert_eq!(StackProfile::new().timeline(&all(0), 3).bins, vec![0, 0, 0]);
}

#[test]
fn the_timeline_buckets_spans_whose_product_with_the_buckets_overflows() {
    let (mut p, [main, a, ..]) = profile();
    // Times near 2^64: span * 4 buckets does not fit in 64 bits.
    p.push_sample(0, u64::MAX - 2, 7, &[main, a]).unwrap();
    p.push_sample(0, u64::MAX / 2, 5, &[main]).unwrap();
    let t = p.timeline(&all(0), 4);
    assert_eq!((t.start, t.end), (0, u64::MAX - 1));
    // (2^64 - 1) / 2 * 4 / (2^64 - 2) is 2; (2^64 - 3) * 4 / (2^64 - 2) is 3.
    assert_eq!(t.bins, vec![10, 0, 5, 7]);
    // A span that fits: the same buckets as the exact quotient.
    let t = p.timeline(&Filter { event: 0, time: Some(0..31), ..Filter::default() }, 3);
    assert_eq!(t.bins, vec![4, 2, 4]);
}

#[test]
fn the_hash_tables_grow() {
    let mut p = StackProfile::new();
    let e = p.add_event("cycles");
    let frames: Vec<FrameId> = (0..500).map(|i| p.frame(&alloc::format!("f{i}"), None, FrameKind::User)).collect();
    for (i, w) in frames.windows(3).enumerate() {
        p.push_sample(e, i as u64, 1, w).unwrap();
    }
    assert_eq!(p.frames().len(), 500);
    for (i, w) in frames.windows(3).enumerate() {
        p.push_sample(e, i as u64, 1, w).unwrap();
    }
    // 498 distinct stacks of 3 frames: 498 roots' children, each with one chain.
    assert_eq!(p.node_count(), 1 + 3 * 498);
    assert_eq!(p.call_tree(&all(e)).total(), 996);
    assert_eq!(p.functions(&all(e)).iter().map(|f| f.total).max(), Some(6));
}

#[test]
fn nodes_keep_their_ids_after_the_node_index_is_freed() {
    let (mut p, [main, a, b, c]) = profile();
    let known = p.node_count();
    let main_a_b = p.stack(&[main, a, b]).unwrap();
    p.end_stacks();
    // Found again through the rebuilt table, not added twice.
    assert_eq!(p.stack(&[main, a, b]), Some(main_a_b));
    assert_eq!(p.node_count(), known);
    let main_b = p.stack(&[main, b]).unwrap();
    assert_eq!(main_b as usize, known, "a new node takes the next id");
    assert_eq!(p.stack(&[main, c, b]).map(|n| (n as usize) < known), Some(true));
    assert_eq!(p.node_count(), known + 1);
}

#[test]
fn ending_the_stacks_gives_back_the_room_arrays_grew_for() {
    let (mut p, [main, a, b, c]) = profile();
    let e = 0;
    p.reserve_samples(10_000);
    for (i, f) in [a, b, c].iter().cycle().take(300).enumerate() {
        p.push_sample(e, i as u64, 1, &[main, *f, b]).unwrap();
    }
    let (nodes, samples) = (p.node_count(), p.sample_count());
    let tree = p.call_tree(&all(e));
    assert!(p.time.capacity() >= 10_000 && p.nodes.parent.capacity() > nodes);
    p.end_stacks();
    assert_eq!((p.time.capacity(), p.leaf.capacity()), (samples, samples));
    assert_eq!((p.nodes.parent.capacity(), p.nodes.frame.capacity()), (nodes, nodes));
    assert_eq!(p.frames.capacity(), p.frames.len());
    // The same profile.
    assert_eq!(p.call_tree(&all(e)), tree);
}

#[test]
fn preorder_visits_siblings_by_rank_then_id() {
    // A pseudo-random tree (parents before children) over 50 frames with shuffled
    // ranks, against the walk of one sort of every (parent, rank, id).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rand = |n: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % u64::from(n)) as u32
    };
    let n = 3000u32;
    let mut parent = vec![0u32];
    let mut frame = vec![NO_FRAME];
    for id in 1..n {
        // Mostly recent parents, so that some nodes have many children.
        parent.push(id.saturating_sub(1 + rand(id.min(40))));
        frame.push(rand(50));
    }
    let rank: Vec<u32> = (0..50).map(|f| (f * 37) % 50).collect();
    let mut sorted: Vec<(u32, u32, u32)> =
        (1..n).map(|id| (parent[id as usize], rank[frame[id as usize] as usize], id)).collect();
    sorted.sort_unstable();
    let mut expected = Vec::new();
    let mut stack = vec![0u32];
    while let Some(node) = stack.pop() {
        expected.push(node);
        stack.extend(sorted.iter().filter(|k| k.0 == node).rev().map(|k| k.2));
    }
    let order = preorder(&parent, &frame, &rank);
    assert_eq!(order.len(), n as usize);
    assert_eq!(order, expected);
}

#[test]
fn a_frame_without_symbols_keeps_its_source_out_of_line() {
    // Name, dso, kind and a pointer: what a recording's hundreds of thousands of
    // unsymbolized frames cost each.
    assert!(core::mem::size_of::<Frame>() <= 48, "{}", core::mem::size_of::<Frame>());
    let (mut p, [main, a, ..]) = profile();
    p.describe(a, "_Z1av", Some("a.c"), Some(3));
    p.describe(main, "main", None, None);
    let (fa, fm) = (p.frame_info(a).unwrap(), p.frame_info(main).unwrap());
    assert_eq!((fa.raw(), fa.file(), fa.line()), (Some("_Z1av"), Some("a.c"), Some(3)));
    // The raw name is kept only where it differs; what is known stays.
    assert_eq!((fm.raw(), fm.file(), fm.line()), (None, None, None));
    assert!(fm.source.is_none(), "nothing to keep, nothing boxed");
    p.describe(a, "_Z1bv", Some("b.c"), Some(9));
    let fa = p.frame_info(a).unwrap();
    assert_eq!((fa.raw(), fa.file(), fa.line()), (Some("_Z1av"), Some("a.c"), Some(3)));
}

#[test]
fn depths_follow_the_parent_links_and_end_on_any_tree() {
    let (p, [main, a, b, c]) = profile();
    let mut q = StackProfile::new();
    let e = q.add_event("cycles");
    let frames = [main, a, b, c].map(|f| q.frame(&p.frame_info(f).unwrap().name, None, FrameKind::User));
    for i in 0..200u64 {
        let depth = 1 + (i * 7 % 9) as usize;
        let stack: Vec<FrameId> = (0..depth).map(|d| frames[((i >> d) % 4) as usize]).collect();
        q.push_sample(e, i, 1, &stack).unwrap();
    }
    for tree in [q.call_tree(&all(e)), q.call_tree(&all(e)).heaviest_first(), q.inverted(&all(e))] {
        let mut by_links = vec![0u32; tree.nodes.len()];
        for (i, n) in tree.nodes.iter().enumerate().skip(1) {
            by_links[i] = by_links[n.parent as usize] + 1;
        }
        assert_eq!(tree.depths().collect::<Vec<_>>(), by_links);
        assert_eq!(tree.depths().max(), Some(9));
    }
    // Parents after their children, out of range, or themselves: a depth each, no more.
    let node = |parent| CallNode { frame: 0, parent, total: 1, self_weight: 1 };
    let odd = CallTree { nodes: vec![node(3), node(0), node(9), node(1), node(4), node(u32::MAX)] };
    assert_eq!(odd.depths().collect::<Vec<_>>(), [0, 1, 0, 0, 0, 0]);
}

#[test]
fn frames_sort_by_name_a_word_at_a_time_as_by_the_whole_key() {
    let mut p = StackProfile::new();
    let mut names: Vec<String> = Vec::new();
    // Runs sharing a prefix longer than a word, past the few sorted whole.
    for i in [0x1a2b_u32, 0x9, 0x10, 0xfff, 0x1000, 0x1, 0x1a2c, 0x100, 0x99] {
        names.push(alloc::format!("libLLVM.so.22.1+{i:#x}"));
        names.push(alloc::format!("libclang-cpp.so.22.1+{i:#x}"));
    }
    // Prefixes of one another, NUL bytes inside and at word edges, no name, long
    // names that differ at their ends, and bytes past ASCII.
    for n in [
        "",
        "a",
        "ab",
        "ab\0",
        "ab\0\0\0\0\0\0",
        "ab\0\0\0\0\0\0\0",
        "ab\0\0\0\0\0\0\0\0x",
        "abcdefgh",
        "abcdefg",
        "abcdefghi",
    ] {
        names.push(String::from(n));
    }
    names.push(alloc::string::ToString::to_string("x").repeat(100));
    names.push(alloc::format!("{}y", alloc::string::ToString::to_string("x").repeat(99)));
    names.push(alloc::format!("{}w", alloc::string::ToString::to_string("x").repeat(99)));
    names.push(String::from("é"));
    names.push(String::from("z"));
    for (i, n) in names.iter().enumerate() {
        let kind = if i % 3 == 0 { FrameKind::Kernel } else { FrameKind::User };
        p.frame(n, None, kind);
        // The same name again in another DSO and kind.
        p.frame(n, Some(if i % 2 == 0 { "b.so" } else { "a.so" }), FrameKind::Inlined);
    }
    let frames = p.frames();
    assert!(frames.len() > 60);
    let mut ids: Vec<u32> = (0..frames.len() as u32).collect();
    let mut expected = ids.clone();
    expected.sort_by(|&a, &b| {
        let (x, y) = (&frames[a as usize], &frames[b as usize]);
        (&x.name, x.dso, x.kind, a).cmp(&(&y.name, y.dso, y.kind, b))
    });
    ids.reverse();
    ranks::sort_by_name(&mut ids, frames);
    assert_eq!(ids, expected);
}

/// A stack of (name, dso, kind) frames, root first.
type NamedStack = &'static [(&'static str, Option<&'static str>, FrameKind)];

fn built(samples: &[(&str, u64, u64, NamedStack)]) -> StackProfile {
    let mut p = StackProfile::new();
    for &(event, time, weight, stack) in samples {
        let event = p.add_event(event);
        let frames: Vec<FrameId> = stack.iter().map(|&(name, dso, kind)| p.frame(name, dso, kind)).collect();
        if let Some(&leaf) = frames.last() {
            if p.frame_info(leaf).is_some_and(|f| f.name == "b") {
                p.describe(leaf, "_Z1bv", Some("b.c"), Some(3));
            }
        }
        p.push_sample(event, time, weight, &frames).unwrap();
    }
    p
}

#[test]
fn a_profile_appended_is_the_profile_of_both_parts_samples() {
    const MAIN: (&str, Option<&str>, FrameKind) = ("main", Some("prog"), FrameKind::User);
    const A: (&str, Option<&str>, FrameKind) = ("a", Some("prog"), FrameKind::User);
    const B: (&str, Option<&str>, FrameKind) = ("b", Some("libc.so"), FrameKind::User);
    const B_INLINED: (&str, Option<&str>, FrameKind) = ("b", Some("libc.so"), FrameKind::Inlined);
    const K: (&str, Option<&str>, FrameKind) = ("k", None, FrameKind::Kernel);
    let samples: &[(&str, u64, u64, NamedStack)] = &[
        ("cycles", 1, 1, &[MAIN, A, B]),
        ("cycles", 2, 1, &[MAIN, A]),
        ("cycles", 5 << 32, 1, &[MAIN, K]),
        ("instructions", 3, 7, &[MAIN, A, B_INLINED]),
        ("cycles", (5 << 32) + 1, 1, &[MAIN, A, A, B]),
        ("cycles", 4, 2, &[K, MAIN]),
        ("instructions", 6, 1, &[MAIN, A, B]),
    ];
    let whole = format!("{:?}", built(samples));
    for cut in 0..=samples.len() {
        let (before, after) = samples.split_at(cut);
        let mut first = built(before);
        let second = built(after);
        let frames = first.append(&second);
        assert_eq!(format!("{first:?}"), whole, "cut after {cut} samples");
        assert_eq!(frames.len(), second.frames().len());
        for (theirs, &ours) in second.frames().iter().zip(&frames) {
            let ours = first.frame_info(ours).unwrap();
            assert_eq!((&ours.name, ours.kind), (&theirs.name, theirs.kind));
        }
    }
}
