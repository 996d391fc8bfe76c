//! The BOLT Functions tab: the profile's functions as a sortable virtual table.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::{Action, Doc};
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn BoltFunctionsView(props: &Props) -> Html {
    let t = &props.doc.bolt_functions.table;
    let count = match t.total {
        Some(n) => format!("{n} functions"),
        None => String::from("loading…"),
    };
    html! {
        <div class="functions bolt-functions">
            <TableView table={t.clone()} on_msg={props.dispatch.reform(Action::BoltFunctions)} label="Functions"
                count={count} filter={true} />
        </div>
    }
}
