//! The Functions view of a file with call stacks: self and total weight per
//! function under the flame graph's event and time range, in the shared paged table.
//! A row opens its function's sandwich in the flame graph.

use pgolens_protocol::{DocId, Reply, SampleFilter, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod stack_functions_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackFunctions {
    pub table: Table,
}

impl Default for StackFunctions {
    fn default() -> Self {
        StackFunctions { table: Table::new(TableId::StackFunctions) }
    }
}

impl StackFunctions {
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> bool {
        self.table.update(msg, doc, out).0
    }

    /// Follows the graph's samples; on the Functions tab (`shown`), asks for the
    /// first rows. Returns whether it asked.
    pub fn refresh(&mut self, samples: &SampleFilter, shown: bool, doc: DocId, out: &mut Outbox) -> bool {
        if self.table.follow_samples(samples, doc, out) {
            return true;
        }
        shown && self.table.need_rows(0, table::FIRST_PAGE, doc, out)
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::StackFunctions => self.table.loaded(page),
            _ => false,
        }
    }
}
