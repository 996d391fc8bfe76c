//! The Summary view: `llvm-profdata show --detailed-summary`'s numbers and the
//! cutoff curve, asked for once, when the tab is first shown.

use std::rc::Rc;

use pgolens_protocol::{DocId, ProfileSummary, Reply, Request};

use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod summary_view;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryState {
    /// The summary and, for context-sensitive profiles, the CS records' one.
    pub data: Option<Rc<(ProfileSummary, Option<ProfileSummary>)>>,
    pub asked: bool,
}

impl SummaryState {
    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        if !self.asked {
            out.send(doc, Request::Summary);
            self.asked = true;
        }
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Summary { summary, cs_summary } => {
                self.data = Some(Rc::new((summary, cs_summary)));
                true
            }
            _ => false,
        }
    }
}
