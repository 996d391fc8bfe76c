//! The Functions view of a BOLT profile: its functions in the shared paged table
//! (execution count, branch edges and counts, mispredictions, calls out).

use pgolens_protocol::{DocId, Reply, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod bolt_functions_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoltFunctions {
    pub table: Table,
}

impl Default for BoltFunctions {
    fn default() -> Self {
        BoltFunctions { table: Table::new(TableId::BoltFunctions) }
    }
}

impl BoltFunctions {
    /// Applies `msg`; returns whether anything changed and the row clicked, if any.
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> (bool, Option<u32>) {
        self.table.update(msg, doc, out)
    }

    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::BoltFunctions => self.table.loaded(page),
            _ => false,
        }
    }
}
