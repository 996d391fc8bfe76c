//! The one table component: draws any [`Table`] from the columns the worker
//! described (sortable headers, a virtual list that asks for the visible rows only,
//! cells by kind), with an optional filter box and an optional extra column a view
//! adds (a button per row).

use pgolens_protocol::{Cell, CellKind, Column, Row};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::{Msg, Table};
use crate::components::scroll::use_paged_rows;

/// Height of one table row; `.fn-row` in style.css has the same.
const ROW_PX: f64 = 22.0;

/// A view's extra last column: its header and a cell per row (by row id).
#[derive(Clone, PartialEq)]
pub struct Extra {
    pub title: AttrValue,
    pub cell: Callback<u32, Html>,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub table: Table,
    pub on_msg: Callback<Msg>,
    /// The table's accessible name.
    pub label: AttrValue,
    /// The line beside the filter (counts).
    pub count: AttrValue,
    /// Show a name filter.
    #[prop_or(true)]
    pub filter: bool,
    #[prop_or_default]
    pub extra: Option<Extra>,
}

/// The grid track of a column.
fn track(c: &Column) -> &'static str {
    match c.kind {
        CellKind::Name => "minmax(16ch, 1fr)",
        CellKind::Hex => "19ch",
        CellKind::Ppm => "8ch",
        CellKind::Count | CellKind::Text => "10ch",
    }
}

#[function_component]
pub fn TableView(props: &Props) -> Html {
    let t = &props.table;
    let on = &props.on_msg;
    let need = on.reform(|(start, end)| Msg::NeedRows { start, end });
    let (scroll, window) = use_paged_rows(t.matching, ROW_PX, t.query.clone(), need);
    let matching = t.matching.unwrap_or(0);
    let mut tracks: Vec<&str> = Vec::new();
    for c in t.columns.iter() {
        tracks.push(track(c));
        if c.share {
            tracks.push("8ch");
        }
    }
    if props.extra.is_some() {
        tracks.push("9ch");
    }
    let template = format!("grid-template-columns: {}", tracks.join(" "));

    let headers = t.columns.iter().map(|c| header(c, t, on));
    let extra_header =
        props.extra.as_ref().map(|x| html! { <div role="columnheader" class="fn-cell">{x.title.clone()}</div> });
    let first = window.first;
    let rows = (first..first.saturating_add(window.count)).map(|i| match t.row(i) {
        Some(row) => row_html(row, t, &template, props.extra.as_ref(), on),
        None => html! {
            <div key={format!("pending-{i}")} role="row" class="fn-row pending" style={template.clone()}>
                <div role="cell" class="fn-cell fn-name">{"…"}</div>
            </div>
        },
    });
    let oninput = on.reform(|e: InputEvent| {
        Msg::Filter(e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
    });
    html! {
        <div class="fn-main">
            <div class="fn-toolbar">
                if props.filter {
                    <input type="search" class="fn-filter" placeholder="Filter by name" aria-label="Filter functions"
                        value={t.query.filter.clone()} {oninput} />
                }
                <span class="muted fn-count" aria-live="polite">{props.count.clone()}</span>
            </div>
            <div class="fn-table" role="table" aria-label={props.label.clone()} aria-rowcount={matching.to_string()}>
                <div role="rowgroup" class="fn-head">
                    <div role="row" class="fn-row head" style={template.clone()}>{ for headers }{extra_header}</div>
                </div>
                <div class="fn-body" role="rowgroup" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                    <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                        <div class="window" role="presentation">{ for rows }</div>
                    </div>
                </div>
            </div>
        </div>
    }
}

fn header(c: &Column, t: &Table, on: &Callback<Msg>) -> Html {
    let class = classes!("fn-cell", format!("fn-{}", c.id), (c.kind == CellKind::Name).then_some("fn-name"));
    let title = c.help.clone();
    let share = c.share.then(|| html! { <div role="columnheader" class="fn-cell">{format!("{} %", c.title)}</div> });
    if !c.sortable {
        return html! { <><div role="columnheader" {class} data-column={c.id.clone()} {title}>{&c.title}</div>{share}</> };
    }
    let sort = match (t.query.column == c.id, t.query.descending) {
        (false, _) => "none",
        (true, true) => "descending",
        (true, false) => "ascending",
    };
    let arrow = match sort {
        "descending" => " ▾",
        "ascending" => " ▴",
        _ => "",
    };
    let id = c.id.clone();
    let onclick = on.reform(move |_: MouseEvent| Msg::Sort(id.clone()));
    html! {
        <>
            <div role="columnheader" aria-sort={sort} {class} data-column={c.id.clone()} {title}>
                <button class="fn-sort" {onclick}>{&c.title}{arrow}</button>
            </div>
            {share}
        </>
    }
}

fn percent(part: u64, whole: Option<u64>) -> String {
    match whole {
        Some(w) if w > 0 => format!("{:.2}%", part as f64 * 100.0 / w as f64),
        _ => String::new(),
    }
}

fn row_html(row: &Row, t: &Table, template: &str, extra: Option<&Extra>, on: &Callback<Msg>) -> Html {
    let id = row.id;
    let selected = t.selected == Some(id);
    let onclick = on.reform(move |_: MouseEvent| Msg::Select(id));
    let cells = t.columns.iter().zip(&row.cells).map(|(c, cell)| {
        let class = classes!("fn-cell", format!("fn-{}", c.id), (c.kind == CellKind::Name).then_some("fn-name"));
        let column = c.id.clone();
        let body = match cell {
            Cell::Empty => html! { <div role="cell" {class} data-column={column}></div> },
            Cell::Name { text, raw, tag } => {
                // The raw name on hover; a tag other than a short marker (a DSO) joins it.
                let badge = tag.as_ref().filter(|t| t.len() <= 3);
                let title = match (raw, tag.as_ref().filter(|t| t.len() > 3)) {
                    (Some(raw), _) => raw.clone(),
                    (None, Some(dso)) => format!("{text} ({dso})"),
                    (None, None) => text.clone(),
                };
                html! {
                    <div role="cell" {class} data-column={column} {title}>
                        {text}
                        if let Some(b) = badge { <span class="badge cs" title="context-sensitive record">{b}</span> }
                    </div>
                }
            }
            Cell::Count(n) => html! { <div role="cell" {class} data-column={column}>{n.to_string()}</div> },
            Cell::Hex(h) => html! { <div role="cell" {class} data-column={column}>{format!("{h:#018x}")}</div> },
            Cell::Ppm(p) => {
                html! { <div role="cell" {class} data-column={column}>{format!("{:.1}%", f64::from(*p) / 10_000.0)}</div> }
            }
            Cell::Text(s) => html! { <div role="cell" {class} data-column={column}>{s}</div> },
        };
        let share = match cell {
            Cell::Count(n) if c.share => {
                Some(html! { <div role="cell" class={format!("fn-cell fn-{}-pct", c.id)}>{percent(*n, t.weight)}</div> })
            }
            _ if c.share => Some(html! { <div role="cell" class="fn-cell"></div> }),
            _ => None,
        };
        html! { <>{body}{share}</> }
    });
    let extra = extra.map(|x| html! { <div role="cell" class="fn-cell">{x.cell.emit(id)}</div> });
    html! {
        <div key={id} role="row" class={classes!("fn-row", selected.then_some("selected"))} style={template.to_string()}
            aria-selected={selected.to_string()} data-id={id.to_string()} {onclick}>
            { for cells }
            {extra}
        </div>
    }
}
