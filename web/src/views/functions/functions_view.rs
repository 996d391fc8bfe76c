//! The Functions tab of an instrumentation profile: the shared table beside the
//! selected function's detail.

use std::rc::Rc;

use yew::prelude::*;

use super::function_detail::FunctionDetail;
use super::Msg;
use crate::app::{Action, Doc};
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn FunctionsView(props: &Props) -> Html {
    let f = &props.doc.functions;
    let d = &props.dispatch;
    let t = &f.table;
    let count = match (t.matching, t.total) {
        (Some(m), Some(t)) if m != t => format!("{m} of {t} functions"),
        (_, Some(t)) => crate::views::count(t, "function"),
        _ => String::from("loading…"),
    };
    html! {
        <div class="functions">
            <TableView table={t.clone()} on_msg={d.reform(|m| Action::Functions(Msg::Table(m)))}
                label="Functions" count={count} />
            <FunctionDetail detail={f.detail.clone()} selected={t.selected} log_scale={f.log_scale}
                on_log={d.reform(|_| Action::Functions(Msg::ToggleLogScale))} />
        </div>
    }
}
