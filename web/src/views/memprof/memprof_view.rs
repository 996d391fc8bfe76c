//! The MemProf tab: the allocation sites as a sortable virtual table (the worker
//! sends the visible rows only) and the selected site's call stack and fields
//! beside it.

use std::rc::Rc;

use pgolens_protocol::MemSite;
use yew::prelude::*;

use super::MemProf;
use crate::app::{Action, Doc};
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn MemProfView(props: &Props) -> Html {
    let m = &props.doc.memprof;
    let t = &m.table;
    let raw = props.doc.summary.as_ref().is_some_and(|s| s.format == "memprof-raw");
    let count = match t.total {
        Some(n) => {
            format!("{n} allocation sites{}", if raw { " (raw profile: addresses, not symbolized)" } else { "" })
        }
        None => String::from("loading…"),
    };
    html! {
        <div class="functions memprof">
            <TableView table={t.clone()} on_msg={props.dispatch.reform(Action::MemProf)} label="Allocation sites"
                count={count} filter={false} />
            {detail(m)}
        </div>
    }
}

fn detail(m: &MemProf) -> Html {
    let site: &MemSite = match (&m.detail, m.table.selected) {
        (Some(s), Some(id)) if s.id == id => s,
        (_, Some(_)) => {
            return html! { <aside class="fn-detail" aria-label="Allocation site"><p class="muted">{"Loading…"}</p></aside> }
        }
        _ => {
            return html! { <aside class="fn-detail" aria-label="Allocation site"><p class="muted">{"Select an allocation site to see its call stack."}</p></aside> }
        }
    };
    let hex = |v: u64| format!("{v:#018x}");
    let title = site.demangled.clone().or_else(|| site.name.clone()).or_else(|| site.guid.map(hex));
    let frames = site.frames.iter().enumerate().map(|(i, f)| {
        let label = f
            .demangled
            .clone()
            .or_else(|| f.name.clone())
            .or_else(|| f.guid.map(hex))
            .or_else(|| f.address.map(|a| format!("{a:#x}")))
            .unwrap_or_default();
        let place = if f.address.is_some() {
            match (&f.build_id, &f.module_offset) {
                (Some(b), Some(o)) => format!("{o:#x} in {b}"),
                _ => String::from("outside the mapped segments"),
            }
        } else {
            format!("line +{}, column {}", f.line, f.column)
        };
        html! {
            <li class={classes!("mp-frame", f.inline.then_some("inline"))} data-index={i.to_string()} data-guid={f.guid.map(hex)}>
                <span class="mono mp-func" title={f.name.clone().or_else(|| f.guid.map(hex))}>{label}</span>
                {" "}<span class="muted">{place}</span>
                if f.inline { {" "}<span class="badge inline" title="inlined into the frame below">{"inline"}</span> }
            </li>
        }
    });
    html! {
        <aside class="fn-detail" aria-label="Allocation site">
            <h2 class="fn-title">{title.unwrap_or_else(|| format!("Allocation site {}", site.id))}</h2>
            if let Some(guid) = site.guid { <div class="muted mono">{format!("record GUID {}", hex(guid))}</div> }
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
