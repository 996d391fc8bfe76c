//! The Symbols view of a sample profile: its profile symbol list (extbinary's
//! `SecProfileSymbolList`: the functions of the profiled binary, sampled or not) in
//! the shared paged table, sorted and filtered by name.

use pgolens_protocol::{DocId, Reply, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod sample_symbols_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleSymbols {
    pub table: Table,
}

impl Default for SampleSymbols {
    fn default() -> Self {
        SampleSymbols { table: Table::new(TableId::SampleSymbols) }
    }
}

impl SampleSymbols {
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> bool {
        self.table.update(msg, doc, out).0
    }

    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::SampleSymbols => self.table.loaded(page),
            _ => false,
        }
    }
}
