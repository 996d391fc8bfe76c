//! The Functions view of a BOLT profile: its functions in the shared paged table
//! (execution count, branch edges and counts, mispredictions, calls out).

use std::rc::Rc;

use pgolens_protocol::{DocId, Reply, Request, TableId};

use crate::app::outbox::Outbox;
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
pub mod bolt_functions_view;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoltFunctions {
    pub table: Table,
    /// The profile written out was asked for.
    pub exporting: bool,
    /// The file the worker wrote, to be saved (name, bytes); taken once saved.
    pub exported: Option<Rc<(String, Vec<u8>)>>,
}

impl Default for BoltFunctions {
    fn default() -> Self {
        BoltFunctions { table: Table::new(TableId::BoltFunctions), exporting: false, exported: None }
    }
}

impl BoltFunctions {
    /// Applies `msg`; returns whether anything changed and the row clicked, if any.
    pub fn update(&mut self, msg: table::Msg, doc: DocId, out: &mut Outbox) -> (bool, Option<u32>) {
        self.table.update(msg, doc, out)
    }

    /// Asks the worker to write the profile out (fdata or YAML).
    pub fn export(&mut self, yaml: bool, doc: DocId, out: &mut Outbox) -> bool {
        if self.exporting {
            return false;
        }
        self.exporting = true;
        out.send(doc, Request::ExportBolt { yaml });
        true
    }

    /// The file was handed to the browser to save.
    pub fn saved(&mut self) -> bool {
        self.exported.take().is_some()
    }

    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::BoltFunctions => self.table.loaded(page),
            Reply::Exported { name, bytes } => {
                self.exporting = false;
                self.exported = Some(Rc::new((name, bytes.0)));
                true
            }
            _ => false,
        }
    }
}
