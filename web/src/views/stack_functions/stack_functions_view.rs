//! The Functions tab of a file with call stacks: self and total weight per function
//! under the flame graph's event and time range, in the shared table. A row's
//! button opens its sandwich in the Flame graph tab; the selected row's bar opens
//! its function (the shared selection of the stack views) in the flame graph, the
//! sandwich or the call tree.

use std::rc::Rc;

use pgolens_protocol::View;
use yew::prelude::*;

use crate::app::{Action, Doc};
use crate::views::flame::{FrameLookup, Msg as FlameMsg};
use crate::views::table::table_view::{Extra, TableView};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn StackFunctionsView(props: &Props) -> Html {
    let doc = &props.doc;
    let t = &doc.stack_functions.table;
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
    // The selected row's function, opened in another stack view.
    let open = t.selected.map(|frame| {
        let name = doc.stacks.names.as_ref().map_or_else(|| format!("function {frame}"), |n| n.name(frame).to_string());
        let go = |view: View| {
            let d = d.clone();
            Callback::from(move |_: MouseEvent| {
                d.emit(Action::Flame(FlameMsg::SelectFrame(Some(frame))));
                match view {
                    View::Flame => d.emit(Action::Flame(FlameMsg::ShowSandwich(Some(frame)))),
                    _ => d.emit(Action::SelectTab(view)),
                }
            })
        };
        let flame = {
            let d = d.clone();
            Callback::from(move |_: MouseEvent| {
                d.emit(Action::Flame(FlameMsg::SelectFrame(Some(frame))));
                d.emit(Action::SelectTab(View::Flame));
            })
        };
        html! {
            <div class="fn-toolbar sf-open" role="group" aria-label="Open the selected function">
                <span class="sf-open-name mono" title={name.clone()}>{name}</span>
                <button class="sf-open-flame" onclick={flame}>{"Flame graph"}</button>
                <button class="sf-open-sandwich" onclick={go(View::Flame)}>{"Sandwich"}</button>
                if doc.tabs().contains(&View::CallTree) {
                    <button class="sf-open-call-tree" onclick={go(View::CallTree)}>{"Call tree"}</button>
                }
            </div>
        }
    });
    html! {
        <div class="functions stack-functions">
            {open.unwrap_or_default()}
            <TableView table={t.clone()} on_msg={d.reform(Action::StackFunctions)} label="Functions" count={count}
                extra={Some(Extra { title: AttrValue::from(""), cell: sandwich })} />
        </div>
    }
}
