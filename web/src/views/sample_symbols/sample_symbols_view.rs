//! The Symbols tab: the profile symbol list in the shared table.

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
pub fn SampleSymbolsView(props: &Props) -> Html {
    let t = &props.doc.sample_symbols.table;
    let count = match (t.matching, t.total) {
        (Some(m), Some(t)) if m != t => format!("{m} of {t} symbols"),
        (_, Some(t)) => format!("{t} symbols in the profile symbol list"),
        _ => String::from("loading…"),
    };
    html! {
        <div class="functions sample-symbols">
            <TableView table={t.clone()} on_msg={props.dispatch.reform(Action::SampleSymbols)} label="Symbols" {count} />
        </div>
    }
}
