//! The MemProf view: allocation sites in the shared paged table, sortable by any
//! metric the profile has, and the selected site's call stack and fields.

use std::rc::Rc;

use pgolens_protocol::{DocId, MemSite, Reply, Request, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod memprof_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemProf {
    pub table: Table,
    pub detail: Option<Rc<MemSite>>,
}

impl Default for MemProf {
    fn default() -> Self {
        MemProf { table: Table::new(TableId::MemProf), detail: None }
    }
}

impl MemProf {
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> bool {
        let (changed, selected) = self.table.update(msg, doc, out);
        if let Some(site) = selected {
            out.send(doc, Request::MemProfSite { site });
        }
        changed
    }

    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::MemProf => self.table.loaded(page),
            Reply::MemProfSite(site) => {
                if self.table.selected != Some(site.id) {
                    return false;
                }
                self.detail = Some(Rc::new(*site));
                true
            }
            _ => false,
        }
    }
}
