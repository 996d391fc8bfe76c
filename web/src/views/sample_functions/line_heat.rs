//! The selected function of a sample profile: its names and numbers, its line heat
//! (each line offset and discriminator with its samples, tinted by them, and its
//! call targets; each inlined callsite with its callee's total, opened in place to
//! show the callee's lines and callsites, recursively) and its inline tree in the
//! flame graph component.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::{HeatRow, SampleFnDetail, SampleName};

use super::Msg;
use crate::app::{Action, Doc};
use crate::views::flame::flame_graph::{FlameGraph, NO_INLINED_SAMPLES};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

fn shown(name: &SampleName) -> String {
    name.demangled.clone().unwrap_or_else(|| name.raw.clone())
}

fn location(row: &HeatRow) -> String {
    if row.discriminator == 0 {
        row.line.to_string()
    } else {
        format!("{}.{}", row.line, row.discriminator)
    }
}

#[function_component]
pub fn SampleDetail(props: &Props) -> Html {
    let doc = &props.doc;
    let s = &doc.sample_functions;
    let aside =
        |body: Html| html! { <aside class="fn-detail sample-detail" aria-label="Function detail">{body}</aside> };
    let detail = match (&s.detail, s.table.selected) {
        (Some(d), Some(id)) if d.id == id => d,
        (_, Some(_)) => return aside(html! { <p class="muted">{"Loading…"}</p> }),
        _ => {
            return aside(
                html! { <p class="muted">{"Select a function to see its line heat and its inline tree."}</p> },
            )
        }
    };
    let d = &props.dispatch;
    let info = doc.summary.as_ref().and_then(|s| s.stacks.clone()).unwrap_or_default();
    let inlines = detail.rows.iter().filter(|r| r.callee.is_some()).count();
    aside(html! {
        <>
            <div class="sample-head">
                <h2 class="fn-title" title={detail.name.raw.clone()}>{shown(&detail.name)}</h2>
                <span class="muted mono">{detail.name.raw.clone()}</span>
                if let Some(context) = &detail.context { <span class="mono sample-context" title="calling context">{context}</span> }
                if let Some(md5) = detail.md5 { <span class="muted mono">{format!("MD5 {md5:#018x}")}</span> }
                <dl class="sample-numbers">
                    <dt>{"Total samples"}</dt><dd data-key="total">{detail.total}</dd>
                    <dt>{"Head samples"}</dt><dd data-key="head">{detail.head}</dd>
                    if let Some(c) = detail.checksum { <dt>{"CFG checksum"}</dt><dd data-key="checksum">{c}</dd> }
                </dl>
            </div>
            <section aria-label="Line heat">
                <h3>{"Line heat"}
                    if inlines > 0 {
                        <button class="heat-all" onclick={d.reform(|_: MouseEvent| Action::SampleFunctions(Msg::ExpandAll(true)))}>{"Open all inlined"}</button>
                        <button class="heat-all" onclick={d.reform(|_: MouseEvent| Action::SampleFunctions(Msg::ExpandAll(false)))}>{"Close all"}</button>
                    }
                </h3>
                {heat_table(detail, &s.shown_rows(), &s.expanded, d)}
            </section>
            <section class="sample-inline" aria-label="Inline tree">
                <h3>{"Inline tree"}</h3>
                <FlameGraph stacks={s.inline.clone()} info={info} rooted={true} label="Inline tree" flat_note={NO_INLINED_SAMPLES}
                    on_msg={d.reform(|m| Action::SampleFunctions(Msg::Flame(m)))} />
            </section>
        </>
    })
}

fn heat_table(
    detail: &Rc<SampleFnDetail>,
    shown_rows: &[u32],
    expanded: &std::collections::BTreeSet<u32>,
    d: &Callback<Action>,
) -> Html {
    // The hottest body line, at any depth, is the top of the colour scale.
    let hottest = detail.rows.iter().filter(|r| r.callee.is_none()).map(|r| r.samples).max().unwrap_or(0).max(1);
    let rows = shown_rows.iter().filter_map(|&i| {
        let r = detail.rows.get(i as usize)?;
        let indent = format!("padding-left:{:.1}em", 0.3 + f64::from(r.depth.min(64)) * 1.2);
        Some(match &r.callee {
            None => {
                let heat = r.samples as f64 / hottest as f64;
                let calls = r.calls.iter().map(|c| {
                    html! { <span class="heat-call" title={c.name.raw.clone()}>{shown(&c.name)}{" "}<span class="num">{c.count}</span></span> }
                });
                html! {
                    <tr key={i} class="heat-line" data-row={i.to_string()} data-depth={r.depth.to_string()}
                        data-line={location(r)} style={format!("--heat:{heat:.3}")}>
                        <td class="heat-loc" style={indent}>{location(r)}</td>
                        <td class="num heat-samples">{r.samples}</td>
                        <td class="heat-calls">{ for calls }</td>
                    </tr>
                }
            }
            Some(callee) => {
                let open = expanded.contains(&i);
                let onclick = d.reform(move |_: MouseEvent| Action::SampleFunctions(Msg::ToggleInline(i)));
                html! {
                    <tr key={i} class="heat-inline" data-row={i.to_string()} data-depth={r.depth.to_string()}
                        data-line={location(r)}>
                        <td class="heat-loc" style={indent}>
                            <button class="heat-toggle" aria-expanded={open.to_string()} {onclick}
                                title={format!("{} rows inlined here", r.descendants)}>
                                {if open { "▾ " } else { "▸ " }}{location(r)}
                            </button>
                        </td>
                        <td class="num heat-samples">{r.samples}</td>
                        <td class="heat-callee" title={callee.raw.clone()}><span class="muted">{"inlined "}</span>{shown(callee)}</td>
                    </tr>
                }
            }
        })
    });
    html! {
        <table class="heat" aria-label="Line heat">
            <thead><tr><th>{"Line"}</th><th class="num">{"Samples"}</th><th>{"Calls, or the callee inlined"}</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}
