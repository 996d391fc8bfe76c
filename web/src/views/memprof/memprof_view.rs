//! The MemProf tab: the allocation sites as a sortable virtual table (the worker
//! sends the visible rows only) and the selected site's call stack and fields
//! beside it.

use std::rc::Rc;

use yew::prelude::*;

use super::scroll::use_paged_rows;
use crate::state::{Action, Doc, MemColumn, MemProf, MemRow, MemSite};

/// Height of one table row; `.fn-row` in style.css has the same.
const ROW_PX: f64 = 22.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn MemProfView(props: &Props) -> Html {
    let m = &props.doc.memprof;
    let d = &props.dispatch;
    let need = d.reform(|(start, end)| Action::NeedMemProfRows { start, end });
    let (scroll, window) = use_paged_rows(m.total, ROW_PX, (m.column, m.descending), need);
    let total = m.total.unwrap_or(0);
    let columns: Vec<MemColumn> = MemColumn::SHOWN.into_iter().filter(|c| m.columns.contains(c)).collect();
    let template = format!("grid-template-columns: minmax(16ch, 1fr) repeat({}, 10ch)", columns.len());
    let headers = columns.iter().map(|&column| {
        let sort = match (m.column == column, m.descending) {
            (false, _) => "none",
            (true, true) => "descending",
            (true, false) => "ascending",
        };
        let arrow = match sort {
            "descending" => " ▾",
            "ascending" => " ▴",
            _ => "",
        };
        let onclick = d.reform(move |_: MouseEvent| Action::SortMemProf(column));
        html! {
            <div role="columnheader" aria-sort={sort} class="fn-cell" data-column={column.id()} title={column.id()}>
                <button class="fn-sort" {onclick}>{column.title()}{arrow}</button>
            </div>
        }
    });
    let first = window.first;
    let rows = (first..first.saturating_add(window.count)).map(|i| match m.row(i) {
        Some(row) => row_html(row, &columns, &template, m.selected == Some(row.id), d),
        None => html! { <div key={format!("pending-{i}")} role="row" class="fn-row pending" style={template.clone()}><div role="cell" class="fn-cell fn-name">{"…"}</div></div> },
    });
    let count = match m.total {
        Some(t) => {
            format!("{t} allocation sites{}", if m.raw { " (raw profile: addresses, not symbolized)" } else { "" })
        }
        None => String::from("loading…"),
    };
    html! {
        <div class="functions memprof">
            <div class="fn-main">
                <div class="fn-toolbar"><span class="muted mp-count" aria-live="polite">{count}</span></div>
                <div class="fn-table" role="table" aria-label="Allocation sites" aria-rowcount={total.to_string()}>
                    <div role="rowgroup" class="fn-head">
                        <div role="row" class="fn-row head" style={template.clone()}>
                            <div role="columnheader" class="fn-cell fn-name">{if m.raw { "Allocation (return address)" } else { "Function" }}</div>
                            { for headers }
                        </div>
                    </div>
                    <div class="fn-body" role="rowgroup" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                        <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                            <div class="window" role="presentation">{ for rows }</div>
                        </div>
                    </div>
                </div>
            </div>
            {detail(m)}
        </div>
    }
}

fn row_html(row: &MemRow, columns: &[MemColumn], template: &str, selected: bool, d: &Callback<Action>) -> Html {
    let id = row.id;
    let onclick = d.reform(move |_: MouseEvent| Action::SelectMemProfSite(id));
    let shown =
        row.demangled.clone().or_else(|| row.name.clone()).or_else(|| row.guid.clone()).or_else(|| row.leaf.clone());
    let title = row.name.clone().or_else(|| row.guid.clone()).unwrap_or_default();
    html! {
        <div key={id} role="row" class={classes!("fn-row", selected.then_some("selected"))} style={template.to_string()}
            aria-selected={selected.to_string()} data-id={id.to_string()} data-guid={row.guid.clone()} {onclick}>
            <div role="cell" class="fn-cell fn-name" {title}>{shown.unwrap_or_default()}</div>
            { for columns.iter().map(|&c| html! {
                <div role="cell" class="fn-cell" data-column={c.id()}>{row.metric(c).map(|v| v.to_string()).unwrap_or_default()}</div>
            }) }
        </div>
    }
}

fn detail(m: &MemProf) -> Html {
    let site: &MemSite = match (&m.detail, m.selected) {
        (Some(s), Some(id)) if s.id == id => s,
        (_, Some(_)) => {
            return html! { <aside class="fn-detail" aria-label="Allocation site"><p class="muted">{"Loading…"}</p></aside> }
        }
        _ => {
            return html! { <aside class="fn-detail" aria-label="Allocation site"><p class="muted">{"Select an allocation site to see its call stack."}</p></aside> }
        }
    };
    let title = site.demangled.clone().or_else(|| site.name.clone()).or_else(|| site.guid.clone());
    let frames = site.frames.iter().enumerate().map(|(i, f)| {
        let label = f
            .demangled
            .clone()
            .or_else(|| f.name.clone())
            .or_else(|| f.guid.clone())
            .or_else(|| f.address.clone())
            .unwrap_or_default();
        let place = if f.address.is_some() {
            match (&f.build_id, &f.module_offset) {
                (Some(b), Some(o)) => format!("{o} in {b}"),
                _ => String::from("outside the mapped segments"),
            }
        } else {
            format!("line +{}, column {}", f.line, f.column)
        };
        html! {
            <li class={classes!("mp-frame", f.inline.then_some("inline"))} data-index={i.to_string()} data-guid={f.guid.clone()}>
                <span class="mono mp-func" title={f.name.clone().or_else(|| f.guid.clone())}>{label}</span>
                {" "}<span class="muted">{place}</span>
                if f.inline { {" "}<span class="badge inline" title="inlined into the frame below">{"inline"}</span> }
            </li>
        }
    });
    html! {
        <aside class="fn-detail" aria-label="Allocation site">
            <h2 class="fn-title">{title.unwrap_or_else(|| format!("Allocation site {}", site.id))}</h2>
            if let Some(guid) = &site.guid { <div class="muted mono">{format!("record GUID {guid}")}</div> }
            <section aria-label="Call stack">
                <h3>{format!("Call stack ({} frames, allocation first)", site.frames.len())}</h3>
                <ol class="mp-stack" start="0">{ for frames }</ol>
            </section>
            <section aria-label="Metrics">
                <h3>{"Metrics"}</h3>
                <table class="fn-site mp-fields"><tbody>
                    { for site.fields.iter().map(|(name, value)| html! {
                        <tr data-field={name.clone()}><td>{name}</td><td class="num">{value}</td></tr>
                    }) }
                </tbody></table>
                if !site.histogram.is_empty() {
                    <h3>{format!("Access histogram ({})", site.histogram.len())}</h3>
                    <div class="mono bitmap">{site.histogram.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")}</div>
                }
            </section>
        </aside>
    }
}
