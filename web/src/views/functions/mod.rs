//! The Functions view of an instrumentation profile: the function table (the shared
//! paged table) and the selected function's detail (counters, value sites, traces).

use std::rc::Rc;

use pgolens_protocol::{DocId, FnDetail, Reply, Request, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
mod function_detail;
#[cfg(target_arch = "wasm32")]
pub mod functions_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Table(table::Msg),
    ToggleLogScale,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Functions {
    pub table: Table,
    pub detail: Option<Rc<FnDetail>>,
    /// The counter chart's scale.
    pub log_scale: bool,
}

impl Default for Functions {
    fn default() -> Self {
        Functions { table: Table::new(TableId::Functions), detail: None, log_scale: false }
    }
}

impl Functions {
    pub fn update(&mut self, msg: Msg, doc: DocId, out: &mut Outbox) -> bool {
        match msg {
            Msg::Table(msg) => {
                let (changed, selected) = self.table.update(msg, doc, out);
                if let Some(row) = selected {
                    out.send(doc, Request::Function { row });
                }
                changed
            }
            Msg::ToggleLogScale => {
                self.log_scale = !self.log_scale;
                true
            }
        }
    }

    /// Shows the first rows (the tab was opened).
    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::Functions => self.table.loaded(page),
            Reply::Function(detail) => {
                if self.table.selected != Some(detail.id) {
                    return false;
                }
                self.detail = Some(Rc::new(*detail));
                true
            }
            _ => false,
        }
    }
}
