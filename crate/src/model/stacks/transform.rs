//! Transforms of the call stacks, as the Firefox Profiler offers them: each maps
//! the prefix tree to a new tree, node by node, and a sample goes where its leaf
//! goes (or is dropped). Parents come before children in both trees, so one pass
//! in node order maps a whole tree, and transforms compose by composing the maps.
//!
//! Folding inlined frames ([`Transform::FoldInlined`]) is one more such map: a node
//! of an inlined frame goes where its caller's node went, so its weight lands on the
//! function whose code holds it, as perf's `--no-inline` shows the stacks.

use alloc::vec;
use alloc::vec::Vec;

use super::{Frame, FrameId, FrameKind, NodeId, NodeTable, NO_FRAME, ROOT};

/// A transform of the call stacks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Remove the function from every stack; its callees attach to its caller.
    Merge(FrameId),
    /// Keep the stacks through the function, rooted at its outermost call.
    FocusFunction(FrameId),
    /// Keep the stacks that start with `path` (frames from the root; from the leaf
    /// when `inverted`), rooted at the path's last frame.
    FocusSubtree { path: Vec<FrameId>, inverted: bool },
    /// Each run of frames of DSO `dso` becomes one `frame` (the caller interns it:
    /// [`super::StackProfile::dso_frame`]).
    CollapseDso { dso: u32, frame: FrameId },
    /// The calls between the function's outermost and any inner call of it are
    /// removed: what its inner calls call hangs from the outermost.
    CollapseRecursion(FrameId),
    /// Only the function's direct calls of itself are merged into one.
    CollapseDirectRecursion(FrameId),
    /// Drop the samples whose stack holds the function.
    DropFunction(FrameId),
    /// Remove every inlined frame ([`FrameKind::Inlined`]): its weight goes to the
    /// function it was inlined into (the frame below it), its callees hang from it.
    FoldInlined,
}

/// Where a node went: [`DROPPED`] when its samples are dropped.
pub const DROPPED: NodeId = u32::MAX;

/// A tree derived by transforms, and where each node of the original went.
pub struct Derived {
    pub nodes: NodeTable,
    pub map: Vec<NodeId>,
}

/// Applies `transforms` in order to the tree given by `parent` and `frame`
/// (node 0 the root, parents before children); `frames` are the frames it names.
pub fn derive(parent: &[NodeId], frame: &[FrameId], transforms: &[Transform], frames: &[Frame]) -> Derived {
    let mut map: Vec<NodeId> = (0..u32::try_from(parent.len()).unwrap_or(u32::MAX)).collect();
    let mut nodes = NodeTable::new();
    let mut first = true;
    for t in transforms {
        let step = if first { apply(parent, frame, t, frames) } else { apply(&nodes.parent, &nodes.frame, t, frames) };
        first = false;
        for m in &mut map {
            *m = if *m == DROPPED { DROPPED } else { step.map.get(*m as usize).copied().unwrap_or(DROPPED) };
        }
        nodes = step.nodes;
    }
    if first {
        // No transform: the tree itself.
        for (&p, &f) in parent.iter().zip(frame).skip(1) {
            nodes.child(p, f);
        }
    }
    Derived { nodes, map }
}

/// One transform of one tree.
fn apply(parent: &[NodeId], frame: &[FrameId], t: &Transform, frames: &[Frame]) -> Derived {
    let n = parent.len();
    let mut out = NodeTable::new();
    let mut map = vec![DROPPED; n];
    if let Some(m) = map.first_mut() {
        *m = ROOT;
    }
    let at = |v: &[NodeId], i: NodeId| v.get(i as usize).copied().unwrap_or(DROPPED);
    let frame_of = |i: usize| frame.get(i).copied().unwrap_or(NO_FRAME);
    let dso_of = |f: FrameId| frames.get(f as usize).and_then(|x| x.dso);
    match t {
        Transform::Merge(f) => {
            for i in 1..n {
                let p = at(&map, parent.get(i).copied().unwrap_or(ROOT));
                let fr = frame_of(i);
                let to = if fr == *f { p } else { out.child(p, fr) };
                set(&mut map, i, to);
            }
        }
        Transform::DropFunction(f) => {
            for i in 1..n {
                let p = at(&map, parent.get(i).copied().unwrap_or(ROOT));
                let fr = frame_of(i);
                let to = if fr == *f { DROPPED } else { out.child(p, fr) };
                set(&mut map, i, to);
            }
        }
        Transform::FocusFunction(f) => {
            // Nodes above the function's outermost call map nowhere; from it down,
            // paths hang from the new root.
            let mut inside = vec![false; n];
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let fr = frame_of(i);
                let (to, is_in) = if inside.get(p as usize).copied().unwrap_or(false) {
                    (out.child(at(&map, p), fr), true)
                } else if fr == *f {
                    (out.child(ROOT, fr), true)
                } else {
                    (DROPPED, false)
                };
                set(&mut map, i, to);
                if let Some(x) = inside.get_mut(i) {
                    *x = is_in;
                }
            }
        }
        Transform::FocusSubtree { path, inverted: false } => {
            let k = path.len();
            // How deep each node is, and whether its path so far follows `path`.
            let mut depth = vec![0usize; n];
            let mut follows = vec![true; n];
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let d = depth.get(p as usize).copied().unwrap_or(0).saturating_add(1);
                let f = follows.get(p as usize).copied().unwrap_or(false)
                    && (d > k || path.get(d.saturating_sub(1)) == Some(&frame_of(i)));
                let to = match d.cmp(&k) {
                    core::cmp::Ordering::Less => DROPPED,
                    core::cmp::Ordering::Equal if f => out.child(ROOT, frame_of(i)),
                    core::cmp::Ordering::Equal => DROPPED,
                    core::cmp::Ordering::Greater => out.child(at(&map, p), frame_of(i)),
                };
                set(&mut map, i, to);
                if let (Some(x), Some(y)) = (depth.get_mut(i), follows.get_mut(i)) {
                    *x = d;
                    *y = f;
                }
            }
        }
        Transform::FocusSubtree { path, inverted: true } => {
            // A stack ending with the path (its first frame the leaf) keeps the
            // frames down to the path's last one, which becomes the leaf.
            let mut copy = vec![ROOT; n];
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let to = out.child(at(&copy, p), frame_of(i));
                set(&mut copy, i, to);
            }
            for i in 1..n {
                let mut node = u32::try_from(i).unwrap_or(ROOT);
                let mut ok = true;
                for (j, &want) in path.iter().enumerate() {
                    if node == ROOT || frame_of(node as usize) != want {
                        ok = false;
                        break;
                    }
                    if j.saturating_add(1) < path.len() {
                        node = parent.get(node as usize).copied().unwrap_or(ROOT);
                    }
                }
                set(&mut map, i, if ok { at(&copy, node) } else { DROPPED });
            }
        }
        Transform::CollapseDso { dso, frame: into } => {
            let mut in_dso = vec![false; n];
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let fr = frame_of(i);
                let here = dso_of(fr) == Some(*dso);
                let to = match (here, p != ROOT && in_dso.get(p as usize).copied().unwrap_or(false)) {
                    (true, true) => at(&map, p),
                    (true, false) => out.child(at(&map, p), *into),
                    (false, _) => out.child(at(&map, p), fr),
                };
                set(&mut map, i, to);
                if let Some(x) = in_dso.get_mut(i) {
                    *x = here;
                }
            }
        }
        Transform::CollapseRecursion(f) => {
            // The new node of the function's outermost call on each path.
            let mut outer = vec![DROPPED; n];
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let fr = frame_of(i);
                let o = at(&outer, p);
                let to = if fr == *f && o != DROPPED { o } else { out.child(at(&map, p), fr) };
                set(&mut map, i, to);
                set(
                    &mut outer,
                    i,
                    if o != DROPPED {
                        o
                    } else if fr == *f {
                        to
                    } else {
                        DROPPED
                    },
                );
            }
        }
        Transform::FoldInlined => {
            // An inlined frame with no caller in the stack (a chain cut short) stays.
            let inlined = |f: FrameId| frames.get(f as usize).is_some_and(|x| x.kind == FrameKind::Inlined);
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let fr = frame_of(i);
                let to = if inlined(fr) && p != ROOT { at(&map, p) } else { out.child(at(&map, p), fr) };
                set(&mut map, i, to);
            }
        }
        Transform::CollapseDirectRecursion(f) => {
            for i in 1..n {
                let p = parent.get(i).copied().unwrap_or(ROOT);
                let fr = frame_of(i);
                let to = if fr == *f && p != ROOT && frame_of(p as usize) == *f {
                    at(&map, p)
                } else {
                    out.child(at(&map, p), fr)
                };
                set(&mut map, i, to);
            }
        }
    }
    Derived { nodes: out, map }
}

fn set(v: &mut [NodeId], i: usize, to: NodeId) {
    if let Some(x) = v.get_mut(i) {
        *x = to;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CallTree, Filter, FrameKind, FunctionStats, StackProfile};
    use super::Transform::{self, *};
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// main → a → b (3), main → a (1), main → c → b (2), main → a → a → b (4);
    /// main and a in `prog` (DSO 0), b in `libc.so` (DSO 1), c in none.
    fn profile() -> (StackProfile, [u32; 4]) {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let main = p.frame("main", Some("prog"), FrameKind::User);
        let a = p.frame("a", Some("prog"), FrameKind::User);
        let b = p.frame("b", Some("libc.so"), FrameKind::User);
        let c = p.frame("c", None, FrameKind::Kernel);
        p.push_sample(e, 0, 3, &[main, a, b]).unwrap();
        p.push_sample(e, 1, 1, &[main, a]).unwrap();
        p.push_sample(e, 2, 2, &[main, c, b]).unwrap();
        p.push_sample(e, 3, 4, &[main, a, a, b]).unwrap();
        (p, [main, a, b, c])
    }

    fn with(transforms: Vec<Transform>) -> Filter {
        Filter { transforms, ..Filter::default() }
    }

    /// (depth, name, total, self) per node in pre-order.
    fn named(p: &StackProfile, t: &CallTree) -> Vec<(u32, String, u64, u64)> {
        t.depths()
            .zip(&t.nodes)
            .map(|(depth, n)| {
                let name = p.frame_info(n.frame).map_or(String::from("<root>"), |f| f.name.clone());
                (depth, name, n.total, n.self_weight)
            })
            .collect()
    }

    fn rows(v: &[(u32, &str, u64, u64)]) -> Vec<(u32, String, u64, u64)> {
        v.iter().map(|&(d, n, t, s)| (d, String::from(n), t, s)).collect()
    }

    #[test]
    fn merging_a_function_gives_its_weight_to_its_caller() {
        let (p, [_, a, ..]) = profile();
        let t = p.call_tree(&with(vec![Merge(a)]));
        let want = [(0, "<root>", 10, 0), (1, "main", 10, 1), (2, "b", 7, 7), (2, "c", 2, 0), (3, "b", 2, 2)];
        assert_eq!(named(&p, &t), rows(&want));
    }

    #[test]
    fn dropping_a_function_drops_its_samples_from_every_query() {
        let (p, [main, a, b, c]) = profile();
        let f = with(vec![DropFunction(c)]);
        let want =
            [(0, "<root>", 8, 0), (1, "main", 8, 0), (2, "a", 8, 1), (3, "a", 4, 0), (4, "b", 4, 4), (3, "b", 3, 3)];
        assert_eq!(named(&p, &p.call_tree(&f)), rows(&want));
        let search = p.search(&f, "b");
        assert_eq!((search.weight, search.total), (7, 8));
        let mut stats = p.functions(&f);
        stats.sort_by_key(|s| s.frame);
        assert_eq!(
            stats,
            [
                FunctionStats { frame: main, self_weight: 0, total: 8 },
                FunctionStats { frame: a, self_weight: 1, total: 8 },
                FunctionStats { frame: b, self_weight: 7, total: 7 },
            ]
        );
        assert_eq!(p.sandwich(&f, b).callers.total(), 7);
        assert_eq!(p.inverted(&f).total(), 8);
    }

    #[test]
    fn focusing_on_a_function_roots_its_stacks_at_its_outermost_call() {
        let (p, [_, a, ..]) = profile();
        let t = p.call_tree(&with(vec![FocusFunction(a)]));
        let want = [(0, "<root>", 8, 0), (1, "a", 8, 1), (2, "a", 4, 0), (3, "b", 4, 4), (2, "b", 3, 3)];
        assert_eq!(named(&p, &t), rows(&want));
    }

    #[test]
    fn focusing_on_a_subtree_keeps_the_stacks_below_its_path() {
        let (p, [main, a, b, c]) = profile();
        let t = p.call_tree(&with(vec![FocusSubtree { path: vec![main, c], inverted: false }]));
        assert_eq!(named(&p, &t), rows(&[(0, "<root>", 2, 0), (1, "c", 2, 0), (2, "b", 2, 2)]));
        // Inverted: the stacks ending a → b, cut after a (which becomes their leaf).
        let t = p.call_tree(&with(vec![FocusSubtree { path: vec![b, a], inverted: true }]));
        let want = [(0, "<root>", 7, 0), (1, "main", 7, 0), (2, "a", 7, 3), (3, "a", 4, 4)];
        assert_eq!(named(&p, &t), rows(&want));
        // An empty path keeps everything, either way.
        for inverted in [false, true] {
            assert_eq!(p.call_tree(&with(vec![FocusSubtree { path: vec![], inverted }])).total(), 10);
        }
    }

    #[test]
    fn collapsing_a_dso_turns_each_run_of_its_frames_into_one() {
        let (mut p, _) = profile();
        let prog = p.dso_frame(0).unwrap();
        assert_eq!(p.frame_info(prog).map(|f| f.name.as_str()), Some("prog"));
        let t = p.call_tree(&with(vec![CollapseDso { dso: 0, frame: prog }]));
        let want = [(0, "<root>", 10, 0), (1, "prog", 10, 1), (2, "b", 7, 7), (2, "c", 2, 0), (3, "b", 2, 2)];
        assert_eq!(named(&p, &t), rows(&want));
    }

    #[test]
    fn recursion_collapses_directly_or_through_other_calls() {
        let (p, [_, a, ..]) = profile();
        let want =
            [(0, "<root>", 10, 0), (1, "main", 10, 0), (2, "a", 8, 1), (3, "b", 7, 7), (2, "c", 2, 0), (3, "b", 2, 2)];
        assert_eq!(named(&p, &p.call_tree(&with(vec![CollapseDirectRecursion(a)]))), rows(&want));
        assert_eq!(named(&p, &p.call_tree(&with(vec![CollapseRecursion(a)]))), rows(&want));
        // a → c → a → b: only the indirect collapse takes c out.
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let [main, a, c, b] = ["main", "a", "c", "b"].map(|n| p.frame(n, None, FrameKind::User));
        p.push_sample(e, 0, 5, &[main, a, c, a, b]).unwrap();
        p.push_sample(e, 1, 2, &[main, a, c]).unwrap();
        let t = p.call_tree(&with(vec![CollapseRecursion(a)]));
        let want = [(0, "<root>", 7, 0), (1, "main", 7, 0), (2, "a", 7, 0), (3, "b", 5, 5), (3, "c", 2, 2)];
        assert_eq!(named(&p, &t), rows(&want));
        let t = p.call_tree(&with(vec![CollapseDirectRecursion(a)]));
        assert_eq!(t.nodes.len(), 6, "unchanged: {:?}", named(&p, &t));
    }

    #[test]
    fn transforms_compose_in_order_and_unknown_frames_change_nothing() {
        let (p, [main, _, b, _]) = profile();
        let t = p.call_tree(&with(vec![Merge(main), FocusFunction(b)]));
        assert_eq!(named(&p, &t), rows(&[(0, "<root>", 9, 0), (1, "b", 9, 9)]));
        assert_eq!(p.call_tree(&with(vec![Merge(99), DropFunction(99)])), p.call_tree(&Filter::default()));
    }

    /// main → sort (3 samples in its own code), main → sort → [swap] (5, swap inlined
    /// into sort), main → sort → [swap] → [less] (2, less inlined into swap),
    /// main → sort → [swap] → cmp (4, a real call from the inlined code), and an
    /// inlined frame with no caller, [orphan] (1).
    fn inlined_profile() -> (StackProfile, [u32; 6]) {
        let mut p = StackProfile::new();
        let e = p.add_event("cpu-clock");
        let main = p.frame("main", Some("prog"), FrameKind::User);
        let sort = p.frame("sort", Some("prog"), FrameKind::User);
        let swap = p.frame("swap", Some("prog"), FrameKind::Inlined);
        let less = p.frame("less", Some("prog"), FrameKind::Inlined);
        let cmp = p.frame("cmp", Some("prog"), FrameKind::User);
        let orphan = p.frame("orphan", Some("prog"), FrameKind::Inlined);
        p.push_sample(e, 0, 3, &[main, sort]).unwrap();
        p.push_sample(e, 1, 5, &[main, sort, swap]).unwrap();
        p.push_sample(e, 2, 2, &[main, sort, swap, less]).unwrap();
        p.push_sample(e, 3, 4, &[main, sort, swap, cmp]).unwrap();
        p.push_sample(e, 4, 1, &[orphan]).unwrap();
        (p, [main, sort, swap, less, cmp, orphan])
    }

    #[test]
    fn folding_inlined_frames_gives_their_weight_to_the_function_holding_them() {
        let (p, [main, sort, swap, less, cmp, orphan]) = inlined_profile();
        let unfolded = [
            (0, "<root>", 15, 0),
            (1, "main", 14, 0),
            (2, "sort", 14, 3),
            (3, "swap", 11, 5),
            (4, "cmp", 4, 4),
            (4, "less", 2, 2),
            (1, "orphan", 1, 1),
        ];
        assert_eq!(named(&p, &p.call_tree(&Filter::default())), rows(&unfolded));
        let folded = with(vec![FoldInlined]);
        let want =
            [(0, "<root>", 15, 0), (1, "main", 14, 0), (2, "sort", 14, 10), (3, "cmp", 4, 4), (1, "orphan", 1, 1)];
        assert_eq!(named(&p, &p.call_tree(&folded)), rows(&want));
        // Unfolded, the functions table already gives inlined code's samples to
        // sort (as perf report does); folded, the inlined rows are gone.
        let stats = |f: &Filter| {
            let mut s = p.functions(f);
            s.sort_by_key(|s| s.frame);
            s.iter().map(|s| (s.frame, s.self_weight, s.total)).collect::<Vec<_>>()
        };
        assert_eq!(
            stats(&Filter::default()),
            [(main, 0, 14), (sort, 10, 14), (swap, 0, 11), (less, 0, 2), (cmp, 4, 4), (orphan, 1, 1)]
        );
        assert_eq!(stats(&folded), [(main, 0, 14), (sort, 10, 14), (cmp, 4, 4), (orphan, 1, 1)]);
        // Folding twice is folding once; folding composes with the other transforms.
        assert_eq!(p.call_tree(&with(vec![FoldInlined, FoldInlined])), p.call_tree(&folded));
        let t = p.call_tree(&with(vec![FoldInlined, FocusFunction(sort)]));
        assert_eq!(named(&p, &t), rows(&[(0, "<root>", 14, 0), (1, "sort", 14, 10), (2, "cmp", 4, 4)]));
        assert_eq!(p.inverted(&folded).nodes.get(1).map(|n| (n.frame, n.self_weight)), Some((cmp, 4)));
    }

    #[test]
    fn the_heaviest_child_comes_first() {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let [main, y, z, w] = ["main", "y", "z", "w"].map(|n| p.frame(n, None, FrameKind::User));
        p.push_sample(e, 0, 1, &[main, y]).unwrap();
        p.push_sample(e, 0, 5, &[main, z, w]).unwrap();
        let t = p.call_tree(&Filter::default());
        assert_eq!(t.nodes.iter().map(|n| n.frame).collect::<Vec<_>>(), vec![u32::MAX, main, y, z, w]);
        let h = t.heaviest_first();
        let want = [(0, "<root>", 6, 0), (1, "main", 6, 0), (2, "z", 5, 0), (3, "w", 5, 5), (2, "y", 1, 1)];
        assert_eq!(named(&p, &h), rows(&want));
        assert_eq!(h.nodes.iter().map(|n| n.parent).collect::<Vec<_>>(), vec![0, 0, 1, 2, 1]);
    }
}
