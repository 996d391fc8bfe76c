//! The BAT tab: the table of hot functions and cold fragments, and the selected
//! one's translation entries beside it.

use std::rc::Rc;

use yew::prelude::*;

use super::BatState;
use crate::app::{Action, Doc};
use crate::views::bolt_cfg::render::{heat, HEAT};
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
            {moved_picture(d)}
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

/// How BOLT moved the function's blocks: the input blocks in offset order on the
/// left, the output on the right (the hot part, then each cold fragment), a line
/// from each block to where it went. Crossing lines are reordered blocks. With a
/// translated profile, each block's mark on both sides takes its count's colour on
/// the CFG view's heat scale, its count in the tooltip (and beside the input mark
/// when there is room), with a legend.
fn moved_picture(d: &pgolens_protocol::BatDetail) -> Html {
    let n = d.moved.len();
    if n == 0 {
        return Html::default();
    }
    let fragments = d.moved.iter().map(|m| m.fragment).max().unwrap_or(0) as usize + 1;
    let (width, pad, gap) = (300.0, 14.0, 10.0);
    let step = (360.0 / n as f64).clamp(2.0, 10.0);
    let height = pad * 2.0 + step * n as f64 + gap * (fragments - 1) as f64;
    // Ranks: input by offset, output by (fragment, output offset).
    let mut by_input: Vec<usize> = (0..n).collect();
    by_input.sort_by_key(|&i| (d.moved[i].input_offset, i));
    let mut input_rank = vec![0usize; n];
    for (rank, &i) in by_input.iter().enumerate() {
        input_rank[i] = rank;
    }
    let mut by_output: Vec<usize> = (0..n).collect();
    by_output.sort_by_key(|&i| (d.moved[i].fragment, d.moved[i].output_offset, i));
    let mut output_y = vec![0.0f64; n];
    for (rank, &i) in by_output.iter().enumerate() {
        output_y[i] = pad + step * rank as f64 + gap * f64::from(d.moved[i].fragment) + step / 2.0;
    }
    let (left, right) = (70.0, width - 70.0);
    let input_y = |i: usize| pad + step * input_rank[i] as f64 + step / 2.0;
    let place = |m: &pgolens_protocol::MovedBlock| {
        if m.fragment == 0 {
            format!("hot {:#x}", m.output_offset)
        } else {
            format!("cold fragment {} {:#x}", m.fragment, m.output_offset)
        }
    };
    let lines = (0..n).map(|i| {
        let m = &d.moved[i];
        let class = if m.fragment == 0 { "hot" } else { "cold" };
        let title = format!("input {:#x} → {}", m.input_offset, place(m));
        html! {
            <line class={class} x1={format!("{left:.1}")} y1={format!("{:.1}", input_y(i))} x2={format!("{right:.1}")} y2={format!("{:.1}", output_y[i])}>
                <title>{title}</title>
            </line>
        }
    });
    let max = d.moved.iter().filter_map(|m| m.count).max().unwrap_or(0);
    let (mark, labelled) = ((step - 1.0).max(1.0), step >= 8.0);
    let marks = d.profile.is_some().then(|| {
        (0..n).map(|i| {
            let m = &d.moved[i];
            let count = m.count.unwrap_or(0);
            let fill = HEAT[heat(count, max)];
            let title = format!("input {:#x} → {}: count {count}", m.input_offset, place(m));
            let rect = |x: f64, y: f64, side: &'static str| {
                html! {
                    <rect class={classes!("block", side)} x={format!("{x:.1}")} y={format!("{:.1}", y - mark / 2.0)} width="8" height={format!("{mark:.1}")}
                        fill={fill} data-input={format!("{:#x}", m.input_offset)} data-count={count.to_string()}>
                        <title>{title.clone()}</title>
                    </rect>
                }
            };
            html! {
                <>
                    {rect(left - 8.0, input_y(i), "input")}
                    {rect(right, output_y[i], "output")}
                    if labelled {
                        <text class="count" x={format!("{:.1}", left - 11.0)} y={format!("{:.1}", input_y(i) + 3.0)} text-anchor="end">{count.to_string()}</text>
                    }
                </>
            }
        })
        .collect::<Vec<Html>>()
    });
    let counted = d.profile.as_ref().map(|p| format!("; coloured by their counts in {p}")).unwrap_or_default();
    html! {
        <figure class="bat-moved" aria-label="How BOLT moved the blocks">
            <svg viewBox={format!("0 0 {width} {height:.0}")} width={format!("{width}")} height={format!("{height:.0}")} role="img">
                <text x="4" y="10" class="label">{"input"}</text>
                <text x={format!("{:.0}", width - 4.0)} y="10" class="label" text-anchor="end">{"output"}</text>
                <line class="axis" x1={format!("{left}")} y1={format!("{pad}")} x2={format!("{left}")} y2={format!("{:.0}", height - pad)} />
                <line class="axis" x1={format!("{right}")} y1={format!("{pad}")} x2={format!("{right}")} y2={format!("{:.0}", height - pad)} />
                {for lines}
                {for marks.into_iter().flatten()}
            </svg>
            <figcaption class="muted">{format!("{n} blocks: input order on the left, output on the right (hot, then {} cold fragment{}){counted}", fragments - 1, if fragments == 2 { "" } else { "s" })}</figcaption>
            if d.profile.is_some() {
                <div class="bat-legend" aria-label="Block count scale">
                    <span>{"0"}</span>
                    {for HEAT.iter().map(|c| html! { <span class="swatch" style={format!("background: {c}")}></span> })}
                    <span class="num">{max.to_string()}</span>
                    <span class="muted">{" executions (log scale)"}</span>
                </div>
            }
        </figure>
    }
}
