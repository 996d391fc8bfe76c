//! The BAT tab: the table of hot functions and cold fragments, and the selected
//! one's translation entries beside it.

use std::rc::Rc;

use yew::prelude::*;

use super::BatState;
use crate::app::{Action, Doc};
use crate::views::table::table_view::TableView;
use crate::views::table::Msg as TableMsg;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

/// Entries listed in the detail at most (the table of a huge function stays usable).
const MAX_ENTRIES: usize = 5000;

#[function_component]
pub fn BatView(props: &Props) -> Html {
    let b = &props.doc.bat;
    let count = match b.table.total {
        Some(n) => format!("{n} functions and fragments"),
        None => String::from("loading…"),
    };
    html! {
        <div class="functions bat">
            <TableView table={b.table.clone()} on_msg={props.dispatch.reform(Action::Bat)} label="BAT functions"
                count={count} filter={true} />
            {detail(b, &props.dispatch)}
        </div>
    }
}

fn detail(b: &BatState, dispatch: &Callback<Action>) -> Html {
    let d = match (&b.detail, b.table.selected) {
        (Some(d), Some(id)) if d.row == id => d,
        (_, Some(_)) => {
            return html! { <aside class="fn-detail" aria-label="Translation"><p class="muted">{"Loading…"}</p></aside> }
        }
        _ => {
            return html! { <aside class="fn-detail" aria-label="Translation"><p class="muted">{"Select a function to see how BOLT moved it: each output offset and the input offset it came from."}</p></aside> }
        }
    };
    let link = |(row, name): &(u32, String)| {
        let row = *row;
        html! { <button class="link mono" onclick={dispatch.reform(move |_| Action::Bat(TableMsg::Select(row)))}>{name.clone()}</button> }
    };
    let blocks = d.entries.iter().filter(|e| !e.branch).count();
    html! {
        <aside class="fn-detail bat-detail" aria-label="Translation">
            <h3 class="mono" title={d.name.clone()}>{d.demangled.clone().unwrap_or_else(|| d.name.clone())}</h3>
            <table><tbody>
                <tr><td>{"Output address"}</td><td class="num">{format!("{:#x}", d.address)}</td></tr>
                if let Some(h) = d.hash { <tr><td>{"Hash"}</td><td class="num">{format!("{h:#018x}")}</td></tr> }
                if let Some(n) = d.blocks { <tr><td>{"Input blocks"}</td><td class="num">{n.to_string()}</td></tr> }
                <tr><td>{"Entries"}</td><td class="num">{format!("{} ({blocks} blocks, {} branches)", d.entries.len(), d.entries.len() - blocks)}</td></tr>
            </tbody></table>
            if let Some(parent) = &d.parent { <p>{"Cold fragment of "}{link(parent)}</p> }
            if !d.fragments.is_empty() { <p>{"Cold fragments: "}{for d.fragments.iter().map(link)}</p> }
            if !d.secondary_entry_points.is_empty() {
                <p>{"Secondary entry points at input offsets "}{d.secondary_entry_points.iter().map(|o| format!("{o:#x}")).collect::<Vec<_>>().join(", ")}</p>
            }
            <table class="bat-entries mono" aria-label="Translation entries">
                <thead><tr><th>{"output"}</th><th>{"input"}</th><th>{"kind"}</th><th>{"block"}</th></tr></thead>
                <tbody>{for d.entries.iter().take(MAX_ENTRIES).map(|e| html! {
                    <tr class={classes!(e.branch.then_some("branch"))}>
                        <td class="num">{format!("{:#x}", e.output_offset)}</td>
                        <td class="num">{format!("{:#x}", e.input_offset)}</td>
                        <td>{if e.branch { "branch" } else { "block" }}</td>
                        <td class="num">{e.block_index.map(|i| format!("#{i}")).unwrap_or_default()}</td>
                    </tr>
                })}</tbody>
            </table>
            if d.entries.len() > MAX_ENTRIES { <p class="muted">{format!("… and {} more entries", d.entries.len() - MAX_ENTRIES)}</p> }
        </aside>
    }
}
