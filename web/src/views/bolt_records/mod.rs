//! The raw lines of an fdata profile as paged tables: its branch lines (from, to,
//! mispredictions, count), its memory lines (instruction, data, count) and a
//! `no_lbr` profile's sample lines (where, count), sortable by any column, filtered
//! by name, each row naming its line in the file.

use pgolens_protocol::{DocId, Reply, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod bolt_records_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoltRecords {
    pub branches: Table,
    pub memory: Table,
    pub samples: Table,
}

impl Default for BoltRecords {
    fn default() -> Self {
        BoltRecords {
            branches: Table::new(TableId::BoltBranches),
            memory: Table::new(TableId::BoltMemory),
            samples: Table::new(TableId::BoltSamples),
        }
    }
}

impl BoltRecords {
    fn table(&mut self, id: TableId) -> &mut Table {
        match id {
            TableId::BoltMemory => &mut self.memory,
            TableId::BoltSamples => &mut self.samples,
            _ => &mut self.branches,
        }
    }

    pub fn update(&mut self, id: TableId, msg: table::Msg, doc: DocId, out: &mut Outbox) -> bool {
        self.table(id).update(msg, doc, out).0
    }

    pub fn enter(&mut self, id: TableId, doc: DocId, out: &mut Outbox) {
        self.table(id).need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page)
                if matches!(page.query.table, TableId::BoltBranches | TableId::BoltMemory | TableId::BoltSamples) =>
            {
                self.table(page.query.table).loaded(page)
            }
            _ => false,
        }
    }

    pub fn failed(&mut self, req: pgolens_protocol::ReqId) {
        self.branches.failed(req);
        self.memory.failed(req);
        self.samples.failed(req);
    }
}
