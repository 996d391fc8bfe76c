//! The BAT view of a BOLTed binary: its hot functions and cold fragments in the
//! shared paged table (output address, kind, input blocks, translation entries,
//! secondary entry points, hash), and the selected one's translation table
//! (output offset → input offset, block or branch entry, block index) beside it,
//! with links between a function and its cold fragments, and a picture of where
//! its blocks went, coloured by their counts when a profile of the binary is open.

use std::rc::Rc;

use pgolens_protocol::{BatDetail, DocId, Reply, Request, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod bat_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatState {
    pub table: Table,
    pub detail: Option<Rc<BatDetail>>,
}

impl Default for BatState {
    fn default() -> Self {
        BatState { table: Table::new(TableId::BatFunctions), detail: None }
    }
}

impl BatState {
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> bool {
        let (changed, selected) = self.table.update(msg, doc, out);
        if let Some(row) = selected {
            out.send(doc, Request::BatFunction { row });
        }
        changed
    }

    /// Asks again for the selected function: a profile of the binary was translated
    /// through its BAT, or closed, so the picture's counts change.
    pub fn reload(&mut self, doc: DocId, out: &mut Outbox) -> bool {
        let Some(row) = self.table.selected else { return false };
        out.send(doc, Request::BatFunction { row });
        true
    }

    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::BatFunctions => self.table.loaded(page),
            Reply::BatFunction(detail) => {
                if self.table.selected != Some(detail.row) {
                    return false;
                }
                self.detail = Some(Rc::new(*detail));
                true
            }
            _ => false,
        }
    }
}
