//! The Functions tab of a file with call stacks: self and total weight per function
//! under the flame graph's event and time range, in the shared table. A row's
//! button opens its sandwich in the Flame graph tab.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::{Action, Doc};
use crate::views::flame::Msg as FlameMsg;
use crate::views::table::table_view::{Extra, TableView};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn StackFunctionsView(props: &Props) -> Html {
    let t = &props.doc.stack_functions.table;
    let d = &props.dispatch;
    let range =
        if t.query.samples.as_ref().is_some_and(|s| s.range.is_some()) { " in the selected time range" } else { "" };
    let count = match (t.matching, t.total) {
        (Some(m), Some(_)) => format!("{m} functions with samples{range}"),
        _ => String::from("loading…"),
    };
    let sandwich = {
        let d = d.clone();
        Callback::from(move |frame: u32| {
            let onclick = d.reform(move |_: MouseEvent| Action::Flame(FlameMsg::ShowSandwich(Some(frame))));
            html! { <button class="sf-sandwich" title="Callers and callees in the flame graph" {onclick}>{"Sandwich"}</button> }
        })
    };
    html! {
        <div class="functions stack-functions">
            <TableView table={t.clone()} on_msg={d.reform(Action::StackFunctions)} label="Functions" count={count}
                extra={Some(Extra { title: AttrValue::from(""), cell: sandwich })} />
        </div>
    }
}
