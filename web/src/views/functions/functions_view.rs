//! The Functions tab: a filter box, the function table (sortable headers, a virtual
//! list that asks the worker for the visible rows only) and the selected function's
//! detail beside it.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::function_detail::FunctionDetail;
use super::scroll::use_paged_rows;
use crate::state::{Action, Doc, FnColumn, FnRow};

/// Height of one table row; `.fn-row` in style.css has the same.
const ROW_PX: f64 = 22.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn FunctionsView(props: &Props) -> Html {
    let f = &props.doc.functions;
    let d = &props.dispatch;
    let need = d.reform(|(start, end)| Action::NeedFunctionRows { start, end });
    let (scroll, window) = use_paged_rows(f.matching, ROW_PX, f.query.clone(), need);
    let matching = f.matching.unwrap_or(0);

    let oninput = d.reform(|e: InputEvent| {
        let value = e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
        Action::FilterFunctions(value)
    });
    let headers = FnColumn::ALL.into_iter().map(|column| {
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
        let onclick = d.reform(move |_: MouseEvent| Action::SortFunctions(column));
        html! {
            <div role="columnheader" aria-sort={sort} class={classes!("fn-cell", format!("fn-{}", column.id()))}>
                <button class="fn-sort" {onclick}>{column.title()}{arrow}</button>
            </div>
        }
    });
    let first = window.first;
    let rows = (first..first.saturating_add(window.count)).map(|i| match f.row(i) {
        Some(row) => row_html(row, f.selected == Some(row.id), d),
        None => html! { <div key={format!("pending-{i}")} role="row" class="fn-row pending"><div role="cell" class="fn-cell fn-name">{"…"}</div></div> },
    });
    let count = match (f.matching, f.total) {
        (Some(m), Some(t)) if m != t => format!("{m} of {t} functions"),
        (_, Some(t)) => format!("{t} functions"),
        _ => String::from("loading…"),
    };
    html! {
        <div class="functions">
            <div class="fn-main">
                <div class="fn-toolbar">
                    <input type="search" class="fn-filter" placeholder="Filter by name" aria-label="Filter functions"
                        value={f.query.filter.clone()} {oninput} />
                    <span class="muted fn-count" aria-live="polite">{count}</span>
                </div>
                <div class="fn-table" role="table" aria-label="Functions" aria-rowcount={matching.to_string()}>
                    <div role="rowgroup" class="fn-head"><div role="row" class="fn-row head">{ for headers }</div></div>
                    <div class="fn-body" role="rowgroup" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                        <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                            <div class="window" role="presentation">{ for rows }</div>
                        </div>
                    </div>
                </div>
            </div>
            <FunctionDetail detail={f.detail.clone()} selected={f.selected} log_scale={f.log_scale}
                on_log={d.reform(|_| Action::ToggleLogScale)} />
        </div>
    }
}

fn count(n: Option<u64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn row_html(row: &FnRow, selected: bool, d: &Callback<Action>) -> Html {
    let id = row.id;
    let onclick = d.reform(move |_: MouseEvent| Action::SelectFunction(id));
    let shown = row.demangled.clone().unwrap_or_else(|| row.name.clone());
    let share = row.nonzero_ppm.map(|p| format!("{:.1}%", f64::from(p) / 10_000.0)).unwrap_or_default();
    html! {
        <div key={id} role="row" class={classes!("fn-row", selected.then_some("selected"))} aria-selected={selected.to_string()}
            data-id={id.to_string()} {onclick}>
            <div role="cell" class="fn-cell fn-name" title={row.name.clone()}>
                {shown}
                if row.cs { <span class="badge cs" title="context-sensitive record">{"CS"}</span> }
            </div>
            <div role="cell" class="fn-cell fn-hash">{row.hash.clone().unwrap_or_default()}</div>
            <div role="cell" class="fn-cell fn-counters">{count(row.counters)}</div>
            <div role="cell" class="fn-cell fn-entry">{count(row.entry)}</div>
            <div role="cell" class="fn-cell fn-max">{count(row.max)}</div>
            <div role="cell" class="fn-cell fn-total">{count(row.total)}</div>
            <div role="cell" class="fn-cell fn-nonzero">{share}</div>
        </div>
    }
}
