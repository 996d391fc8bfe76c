//! The recording's symbols: per DSO it names, its build id, the file that names
//! its frames (or that none does yet), its debug file and its samples; for the
//! kernel, whether a kallsyms file was given. Shown from the status line of a
//! perf.data (a toggle that says how many DSOs are named), asked for the first
//! time it is opened, and again whenever frames are named anew; a folder given to
//! the page brings its status with it and opens it.

use std::rc::Rc;

use pgolens_protocol::{DocId, Request, SymbolStatus};

use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod symbols_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Show or hide the panel.
    Toggle,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolsState {
    pub open: bool,
    pub status: Option<Rc<SymbolStatus>>,
    /// The status was asked for (then it is asked again when frames are renamed).
    pub asked: bool,
}

impl SymbolsState {
    pub fn update(&mut self, msg: Msg, doc: DocId, out: &mut Outbox) -> bool {
        match msg {
            Msg::Toggle => {
                self.open = !self.open;
                if self.open && !self.asked {
                    out.send(doc, Request::Symbols);
                    self.asked = true;
                }
                true
            }
        }
    }

    /// A status arrived: asked for, or (`folder`) after a folder was given, which
    /// opens the panel on what it matched.
    pub fn loaded(&mut self, status: SymbolStatus, folder: bool) -> bool {
        self.status = Some(Rc::new(status));
        self.asked = true;
        self.open |= folder;
        true
    }

    /// The frames were named anew (binaries dropped one by one): a status asked for
    /// before is asked again.
    pub fn symbolized(&mut self, doc: DocId, out: &mut Outbox) {
        if self.asked {
            out.send(doc, Request::Symbols);
        }
    }
}

/// The status line's summary: how many DSOs with samples have their file (the
/// kernel: kallsyms), of how many.
pub fn named_count(status: &SymbolStatus) -> (usize, usize) {
    let sampled: Vec<_> = status.dsos.iter().filter(|d| d.samples > 0).collect();
    (sampled.iter().filter(|d| d.matched.is_some()).count(), sampled.len())
}
