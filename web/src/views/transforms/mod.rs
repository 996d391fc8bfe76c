//! Transforms of the call stacks, page side: the list applied to a file's stack
//! views (`SampleFilter::transforms`, which the worker applies before it
//! aggregates), pushed from the call tree's context menu and undone from the
//! breadcrumbs above the flame graph and the call tree, as the Firefox Profiler
//! offers them; and their part of a link.
//!
//! Link encoding: key `transforms`, a comma-separated list, one item per transform
//! in order: `mf-F` merge, `ff-F` focus on a function, `fs-F1.F2…` focus on a
//! subtree (`fsi-` when its path runs from the leaf, bottom-up), `cd-D` collapse a
//! DSO, `rec-F` collapse recursion, `drec-F` collapse direct recursion only, `df-F`
//! drop samples, `inl` fold inlined frames — `F` a frame id, `D` an index into
//! `FrameNames::dsos`. Items not understood are dropped.
//!
//! Folding inlined frames is a toggle (the flame graph's button and `f` key):
//! pushing it when the list holds it takes it out, wherever it is.

use pgolens_protocol::{FrameNames, Transform};

use crate::app::link::Params;
use crate::views::flame::FrameLookup;

#[cfg(target_arch = "wasm32")]
pub mod breadcrumbs;

/// What the user does to the transforms.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Push(Transform),
    /// Undo back to the first `n` transforms.
    PopTo(usize),
}

/// Applies `msg` to `transforms`; returns whether they changed.
pub fn update(transforms: &mut Vec<Transform>, msg: Msg) -> bool {
    match msg {
        Msg::Push(Transform::FoldInlined) if transforms.contains(&Transform::FoldInlined) => {
            transforms.retain(|t| *t != Transform::FoldInlined);
            true
        }
        Msg::Push(t) => {
            // The same transform twice in a row does nothing more.
            if transforms.last() == Some(&t) {
                return false;
            }
            transforms.push(t);
            true
        }
        Msg::PopTo(n) => {
            let changed = n < transforms.len();
            transforms.truncate(n);
            changed
        }
    }
}

/// One transform as a link item.
fn item(t: &Transform) -> String {
    match t {
        Transform::Merge { frame } => format!("mf-{frame}"),
        Transform::FocusFunction { frame } => format!("ff-{frame}"),
        Transform::FocusSubtree { path, inverted } => {
            let path: Vec<String> = path.iter().map(u32::to_string).collect();
            format!("{}-{}", if *inverted { "fsi" } else { "fs" }, path.join("."))
        }
        Transform::CollapseDso { dso } => format!("cd-{dso}"),
        Transform::CollapseRecursion { frame } => format!("rec-{frame}"),
        Transform::CollapseDirectRecursion { frame } => format!("drec-{frame}"),
        Transform::DropFunction { frame } => format!("df-{frame}"),
        Transform::FoldInlined => String::from("inl"),
    }
}

/// A link item back (see [`item`]).
fn parse_item(text: &str) -> Option<Transform> {
    if text == "inl" {
        return Some(Transform::FoldInlined);
    }
    let (kind, arg) = text.split_once('-')?;
    let number = || arg.parse::<u32>().ok();
    Some(match kind {
        "mf" => Transform::Merge { frame: number()? },
        "ff" => Transform::FocusFunction { frame: number()? },
        "fs" | "fsi" => {
            let path: Option<Vec<u32>> = arg.split('.').map(|f| f.parse().ok()).collect();
            Transform::FocusSubtree { path: path?, inverted: kind == "fsi" }
        }
        "cd" => Transform::CollapseDso { dso: number()? },
        "rec" => Transform::CollapseRecursion { frame: number()? },
        "drec" => Transform::CollapseDirectRecursion { frame: number()? },
        "df" => Transform::DropFunction { frame: number()? },
        _ => return None,
    })
}

/// The transforms' part of a link (nothing when there are none).
pub fn write_link(transforms: &[Transform], link: &mut Params) {
    if !transforms.is_empty() {
        let items: Vec<String> = transforms.iter().map(item).collect();
        link.push("transforms", items.join(","));
    }
}

/// The transforms a link holds.
pub fn read_link(link: &Params) -> Vec<Transform> {
    link.get("transforms").map_or_else(Vec::new, |list| list.split(',').filter_map(parse_item).collect())
}

/// A transform as its breadcrumb says it: "Merge foo", "Collapse libc.so.6".
pub fn label(t: &Transform, names: Option<&FrameNames>) -> String {
    let name = |frame: &u32| names.map_or_else(|| format!("#{frame}"), |n| n.name(*frame).to_string());
    match t {
        Transform::Merge { frame } => format!("Merge {}", name(frame)),
        Transform::FocusFunction { frame } => format!("Focus {}", name(frame)),
        Transform::FocusSubtree { path, inverted } => {
            let last = path.last().map_or_else(String::new, name);
            format!("Focus {} {last}", if *inverted { "callers of" } else { "subtree" })
        }
        Transform::CollapseDso { dso } => {
            let dso_name = names.and_then(|n| n.dsos.get(*dso as usize)).cloned();
            format!("Collapse {}", dso_name.unwrap_or_else(|| format!("DSO #{dso}")))
        }
        Transform::CollapseRecursion { frame } => format!("Collapse recursion {}", name(frame)),
        Transform::CollapseDirectRecursion { frame } => format!("Collapse direct recursion {}", name(frame)),
        Transform::DropFunction { frame } => format!("Drop {}", name(frame)),
        Transform::FoldInlined => String::from("Fold inlined frames"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Transform> {
        vec![
            Transform::Merge { frame: 3 },
            Transform::FocusFunction { frame: 4 },
            Transform::FocusSubtree { path: vec![0, 1, 2], inverted: false },
            Transform::FocusSubtree { path: vec![7], inverted: true },
            Transform::CollapseDso { dso: 2 },
            Transform::CollapseRecursion { frame: 5 },
            Transform::CollapseDirectRecursion { frame: 6 },
            Transform::DropFunction { frame: 8 },
            Transform::FoldInlined,
        ]
    }

    #[test]
    fn a_link_carries_the_transforms_in_order() {
        let mut link = Params::default();
        write_link(&all(), &mut link);
        assert_eq!(link.get("transforms"), Some("mf-3,ff-4,fs-0.1.2,fsi-7,cd-2,rec-5,drec-6,df-8,inl"));
        let back = Params::parse(&link.fragment());
        assert_eq!(read_link(&back), all());
        let mut none = Params::default();
        write_link(&[], &mut none);
        assert_eq!(none, Params::default());
    }

    #[test]
    fn junk_in_a_link_is_dropped() {
        let link = Params::parse("transforms=mf-3,zz-1,mf-,ff-x,fs-1..2,fs-,cd--1,rec-4294967296,,df-9,drec-2");
        assert_eq!(
            read_link(&link),
            vec![
                Transform::Merge { frame: 3 },
                Transform::DropFunction { frame: 9 },
                Transform::CollapseDirectRecursion { frame: 2 }
            ]
        );
        assert_eq!(read_link(&Params::parse("transforms=")), vec![]);
        assert_eq!(read_link(&Params::default()), vec![]);
    }

    #[test]
    fn transforms_push_and_undo() {
        let mut t = Vec::new();
        assert!(update(&mut t, Msg::Push(Transform::Merge { frame: 1 })));
        assert!(!update(&mut t, Msg::Push(Transform::Merge { frame: 1 })));
        assert!(update(&mut t, Msg::Push(Transform::DropFunction { frame: 2 })));
        assert_eq!(t.len(), 2);
        assert!(!update(&mut t, Msg::PopTo(2)));
        assert!(update(&mut t, Msg::PopTo(1)));
        assert_eq!(t, vec![Transform::Merge { frame: 1 }]);
        assert!(update(&mut t, Msg::PopTo(0)));
        assert!(t.is_empty());
    }

    #[test]
    fn folding_inlined_frames_toggles_wherever_it_is_in_the_list() {
        let mut t = vec![Transform::Merge { frame: 1 }];
        assert!(update(&mut t, Msg::Push(Transform::FoldInlined)));
        assert!(update(&mut t, Msg::Push(Transform::DropFunction { frame: 2 })));
        assert_eq!(
            t,
            vec![Transform::Merge { frame: 1 }, Transform::FoldInlined, Transform::DropFunction { frame: 2 }]
        );
        // Pushed again: unfolded, the transforms around it kept.
        assert!(update(&mut t, Msg::Push(Transform::FoldInlined)));
        assert_eq!(t, vec![Transform::Merge { frame: 1 }, Transform::DropFunction { frame: 2 }]);
        assert_eq!(label(&Transform::FoldInlined, None), "Fold inlined frames");
    }

    #[test]
    fn breadcrumbs_name_functions_and_dsos() {
        let names = FrameNames {
            names: ["main", "memcpy"].into_iter().collect(),
            dsos: vec!["prog".into(), "libc.so.6".into()],
            dso: vec![0, 1].into(),
            kinds: ["user", "user"].into_iter().collect(),
            ..FrameNames::default()
        };
        let label = |t| label(&t, Some(&names));
        assert_eq!(label(Transform::Merge { frame: 1 }), "Merge memcpy");
        assert_eq!(label(Transform::FocusFunction { frame: 0 }), "Focus main");
        assert_eq!(label(Transform::FocusSubtree { path: vec![0, 1], inverted: false }), "Focus subtree memcpy");
        assert_eq!(label(Transform::CollapseDso { dso: 1 }), "Collapse libc.so.6");
        assert_eq!(label(Transform::DropFunction { frame: 0 }), "Drop main");
    }
}
