//! The Functions tab of a file with call stacks: self and total weight per function
//! under the flame graph's event and time range, sortable and filterable, drawn as
//! a virtual list like the instrprof function table (the same scroll hook, window
//! geometry and row styles). A row's button opens its sandwich in the Flame graph tab.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::scroll::use_paged_rows;
use crate::flame_state::{StackColumn, StackFnRow};
use crate::state::Action;
use crate::state::Doc;

/// Height of one table row; `.fn-row` in style.css has the same.
const ROW_PX: f64 = 22.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn StackFunctionsView(props: &Props) -> Html {
    let f = &props.doc.stacks.functions;
    let d = &props.dispatch;
    let need = d.reform(|(start, end)| Action::NeedStackFunctionRows { start, end });
    let (scroll, window) = use_paged_rows(f.matching, ROW_PX, f.query.clone(), need);
    let matching = f.matching.unwrap_or(0);
    let oninput = d.reform(|e: InputEvent| {
        Action::FilterStackFunctions(e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
    });
    let headers = StackColumn::ALL.into_iter().map(|column| {
        let sort = match (f.query.column == column, f.query.descending) {
            (false, _) => "none",
            (true, true) => "descending",
            (true, false) => "ascending",
        };
        let arrow = match sort {
            "descending" => " ▾",
            "ascending" => " ▴",
            _ => "",
        };
        let onclick = d.reform(move |_: MouseEvent| Action::SortStackFunctions(column));
        let class = if column == StackColumn::Name { "fn-cell fn-name" } else { "fn-cell" };
        html! {
            <div role="columnheader" aria-sort={sort} class={class} data-column={column.id()}>
                <button class="fn-sort" {onclick}>{column.title()}{arrow}</button>
            </div>
        }
    });
    let first = window.first;
    let rows = (first..first.saturating_add(window.count)).map(|i| match f.row(i) {
        Some(row) => row_html(row, f.weight, d),
        None => html! { <div key={format!("pending-{i}")} role="row" class="fn-row sf-row pending"><div role="cell" class="fn-cell fn-name">{"…"}</div></div> },
    });
    let range = if f.query.samples.range.is_some() { " in the selected time range" } else { "" };
    let count = match (f.matching, f.total) {
        (Some(m), Some(_)) => format!("{m} functions with samples{range}"),
        _ => String::from("loading…"),
    };
    html! {
        <div class="functions stack-functions">
            <div class="fn-main">
                <div class="fn-toolbar">
                    <input type="search" class="fn-filter" placeholder="Filter by name" aria-label="Filter functions"
                        value={f.query.filter.clone()} {oninput} />
                    <span class="muted fn-count" aria-live="polite">{count}</span>
                </div>
                <div class="fn-table" role="table" aria-label="Functions" aria-rowcount={matching.to_string()}>
                    <div role="rowgroup" class="fn-head"><div role="row" class="fn-row sf-row head">
                        { for headers }
                        <div role="columnheader" class="fn-cell">{"Self %"}</div>
                        <div role="columnheader" class="fn-cell">{"Total %"}</div>
                        <div role="columnheader" class="fn-cell"></div>
                    </div></div>
                    <div class="fn-body" role="rowgroup" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                        <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                            <div class="window" role="presentation">{ for rows }</div>
                        </div>
                    </div>
                </div>
            </div>
        </div>
    }
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return String::new();
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

fn row_html(row: &StackFnRow, weight: u64, d: &Callback<Action>) -> Html {
    let frame = row.frame;
    let onclick = d.reform(move |_: MouseEvent| Action::ShowSandwich(Some(frame)));
    html! {
        <div key={frame} role="row" class="fn-row sf-row" data-frame={frame.to_string()}>
            <div role="cell" class="fn-cell fn-name" title={row.dso.clone()}>{&row.name}</div>
            <div role="cell" class="fn-cell sf-self">{row.self_weight.to_string()}</div>
            <div role="cell" class="fn-cell sf-total">{row.total.to_string()}</div>
            <div role="cell" class="fn-cell sf-self-pct">{percent(row.self_weight, weight)}</div>
            <div role="cell" class="fn-cell sf-total-pct">{percent(row.total, weight)}</div>
            <div role="cell" class="fn-cell"><button class="sf-sandwich" title="Callers and callees in the flame graph" {onclick}>{"Sandwich"}</button></div>
        </div>
    }
}
