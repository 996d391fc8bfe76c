//! The Branches and Memory tabs of an fdata profile: its lines in the shared
//! paged table.

use std::rc::Rc;

use pgolens_protocol::TableId;
use yew::prelude::*;

use crate::app::{Action, Doc};
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
    pub table: TableId,
}

#[function_component]
pub fn BoltRecordsView(props: &Props) -> Html {
    let records = &props.doc.bolt_records;
    let (t, label, noun) = match props.table {
        TableId::BoltMemory => (&records.memory, "Memory lines", "memory lines"),
        TableId::BoltSamples => (&records.samples, "Sample lines", "sample lines"),
        _ => (&records.branches, "Branch lines", "branch lines"),
    };
    let count = match t.total {
        Some(n) => format!("{n} {noun}"),
        None => String::from("loading…"),
    };
    let id = props.table;
    html! {
        <div class="functions bolt-records">
            <TableView table={t.clone()} on_msg={props.dispatch.reform(move |m| Action::BoltRecords(id, m))} label={label}
                count={count} filter={true} />
        </div>
    }
}
