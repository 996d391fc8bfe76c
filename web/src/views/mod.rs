//! One folder per view: its state, its messages, its part of the reducer and its
//! components. [`crate::app`] routes messages and worker replies to them; the
//! components (browser only) draw them.

use pgolens_protocol::View;

pub mod bat;
pub mod bolt_cfg;
pub mod bolt_functions;
pub mod bolt_records;
pub mod call_tree;
pub mod dump;
pub mod flame;
pub mod functions;
pub mod memprof;
pub mod sample_functions;
pub mod sample_symbols;
pub mod stack_chart;
pub mod stack_functions;
pub mod summary;
pub mod symbols;
pub mod table;
pub mod transforms;

/// A view's tab title.
pub fn title(view: View) -> &'static str {
    match view {
        View::Dump => "Dump",
        View::Flame => "Flame graph",
        View::Functions => "Functions",
        View::Summary => "Summary",
        View::MemProf => "MemProf",
        View::BoltFunctions => "Functions",
        View::BoltCfg => "CFG",
        View::BoltBranches => "Branches",
        View::BoltMemory => "Memory",
        View::BoltSamples => "Samples",
        View::Bat => "BAT",
        View::SampleFunctions => "Functions",
        View::SampleSymbols => "Symbols",
        View::CallTree => "Call tree",
        View::StackChart => "Stack chart",
    }
}

/// A view's tab title among `tabs`: a recording turned into a BOLT profile has
/// two function tables, the BOLT one says so; a sample profile's stack functions
/// (self and total samples over its inline trees) are its flat profile.
pub fn title_among(view: View, tabs: &[View]) -> &'static str {
    match view {
        View::BoltFunctions if tabs.contains(&View::Functions) => "BOLT functions",
        View::Functions if tabs.contains(&View::SampleFunctions) => "Flat profile",
        _ => title(view),
    }
}

/// `n` things, `noun` in the singular: "1 function", "7 functions".
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The view with this [`id`] (a link's `tab`).
pub fn from_id(text: &str) -> Option<View> {
    View::ALL.into_iter().find(|&v| id(v) == text)
}

/// A view's id in the page (tab and panel element ids, a link's `tab`).
pub fn id(view: View) -> &'static str {
    match view {
        View::Dump => "dump",
        View::Flame => "flame",
        View::Functions => "functions",
        View::Summary => "summary",
        View::MemProf => "memprof",
        View::BoltFunctions => "bolt-functions",
        View::BoltCfg => "bolt-cfg",
        View::BoltBranches => "bolt-branches",
        View::BoltMemory => "bolt-memory",
        View::BoltSamples => "bolt-samples",
        View::Bat => "bat",
        View::SampleFunctions => "sample-functions",
        View::SampleSymbols => "sample-symbols",
        View::CallTree => "call-tree",
        View::StackChart => "stack-chart",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_one_thing_in_the_singular() {
        assert_eq!(count(1u32, "function"), "1 function");
        assert_eq!(count(0u32, "function"), "0 functions");
        assert_eq!(count(7u64, "sample"), "7 samples");
    }

    #[test]
    fn every_view_is_found_by_its_id() {
        for view in View::ALL {
            assert_eq!(from_id(id(view)), Some(view));
        }
        assert_eq!(from_id("nope"), None);
    }
}
