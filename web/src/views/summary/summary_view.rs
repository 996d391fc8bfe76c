//! The Summary tab: the profile's totals and its detailed summary (for each cutoff
//! of the total count, the smallest count that is needed to reach it and how many
//! counts that takes), plotted and tabled, as `llvm-profdata show --detailed-summary`
//! computes it.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::ProfileSummary;

const PLOT_W: f64 = 520.0;
const PLOT_H: f64 = 240.0;
const PAD: f64 = 40.0;
/// The plot's left edge: room for the y ticks' labels ("100k") and, left of
/// them, the axis title.
const LEFT: f64 = 58.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub summary: Option<Rc<(ProfileSummary, Option<ProfileSummary>)>>,
}

#[function_component]
pub fn SummaryView(props: &Props) -> Html {
    let Some(both) = &props.summary else {
        return html! { <p class="muted">{"Loading the summary…"}</p> };
    };
    let (summary, cs) = both.as_ref();
    html! {
        <div class="summary-view">
            {block("Profile summary", summary)}
            if let Some(cs) = cs { {block("Context-sensitive records", cs)} }
        </div>
    }
}

fn block(title: &str, s: &ProfileSummary) -> Html {
    html! {
        <section class="summary" aria-label={title.to_string()}>
            <h2>{title}</h2>
            <dl class="totals">
                <dt>{"Total functions"}</dt><dd data-key="functions">{s.functions}</dd>
                <dt>{"Maximum function count"}</dt><dd data-key="max-function">{s.max_function}</dd>
                <dt>{"Maximum internal block count"}</dt><dd data-key="max-internal">{s.max_internal}</dd>
                <dt>{"Maximum count"}</dt><dd data-key="max-count">{s.max_count}</dd>
                <dt>{"Total number of blocks"}</dt><dd data-key="counts">{s.counts}</dd>
                <dt>{"Total count"}</dt><dd data-key="total">{s.total.to_string()}</dd>
            </dl>
            <div class="summary-detail">
                {plot(s)}
                <table class="cutoffs">
                    <thead><tr><th>{"% of total"}</th><th>{"min count"}</th><th>{"counts"}</th></tr></thead>
                    <tbody>
                        { for s.detailed.iter().map(|e| html! {
                            <tr><td>{percent(e.cutoff)}</td><td class="num">{e.min_count}</td><td class="num">{e.num_counts}</td></tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// `10000` → `1%`, `999990` → `99.999%`.
fn percent(cutoff: u32) -> String {
    let p = format!("{:.4}", f64::from(cutoff) / 10_000.0);
    format!("{}%", p.trim_end_matches('0').trim_end_matches('.'))
}

/// Minimum count (log scale, y) against the number of counts taken (x), one point
/// per cutoff: how concentrated the profile is.
fn plot(s: &ProfileSummary) -> Html {
    let max_n = s.detailed.iter().map(|e| e.num_counts).max().unwrap_or(0).max(1) as f64;
    let max_count = s.detailed.iter().map(|e| e.min_count).max().unwrap_or(0);
    let max_c = (max_count as f64).ln_1p().max(1.0);
    let point = |n: u64, c: u64| {
        let x = LEFT + n as f64 / max_n * (PLOT_W - LEFT - PAD);
        let y = PLOT_H - PAD - (c as f64).ln_1p() / max_c * (PLOT_H - 2.0 * PAD);
        (x, y)
    };
    let path: Vec<String> = s
        .detailed
        .iter()
        .map(|e| {
            let (x, y) = point(e.num_counts, e.min_count);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    html! {
        <svg class="summary-plot" viewBox={format!("0 0 {PLOT_W} {PLOT_H}")} role="img"
            aria-label="Detailed summary: minimum count against number of counts">
            <line class="axis" x1={LEFT.to_string()} y1={(PLOT_H - PAD).to_string()} x2={(PLOT_W - PAD).to_string()} y2={(PLOT_H - PAD).to_string()} />
            <line class="axis" x1={LEFT.to_string()} y1={PAD.to_string()} x2={LEFT.to_string()} y2={(PLOT_H - PAD).to_string()} />
            <text x={((PLOT_W + LEFT - PAD) / 2.0).to_string()} y={(PLOT_H - 8.0).to_string()} text-anchor="middle">{"counts taken (hottest first)"}</text>
            <text class="y-title" x="10" y={(PLOT_H / 2.0).to_string()} transform={format!("rotate(-90 10 {})", PLOT_H / 2.0)} text-anchor="middle">{"min count (log)"}</text>
            { for super::ticks(max_n as u64, 5).into_iter().map(|n| {
                let (x, _) = point(n, 0);
                html! { <>
                    <line class="tick" x1={format!("{x:.1}")} y1={(PLOT_H - PAD).to_string()} x2={format!("{x:.1}")} y2={(PLOT_H - PAD + 4.0).to_string()} />
                    <text class="tick x-tick" x={format!("{x:.1}")} y={(PLOT_H - PAD + 15.0).to_string()} text-anchor="middle">{super::short(n)}</text>
                </> }
            }) }
            { for super::decades(max_count).into_iter().map(|c| {
                let (_, y) = point(0, c);
                html! { <>
                    <line class="tick" x1={(LEFT - 4.0).to_string()} y1={format!("{y:.1}")} x2={LEFT.to_string()} y2={format!("{y:.1}")} />
                    <text class="tick y-tick" x={(LEFT - 6.0).to_string()} y={format!("{:.1}", y + 4.0)} text-anchor="end">{super::short(c)}</text>
                </> }
            }) }
            <polyline class="curve" points={path.join(" ")} />
            { for s.detailed.iter().map(|e| {
                let (x, y) = point(e.num_counts, e.min_count);
                html! { <circle cx={format!("{x:.1}")} cy={format!("{y:.1}")} r="3">
                    <title>{format!("{}: {} counts ≥ {}", percent(e.cutoff), e.num_counts, e.min_count)}</title>
                </circle> }
            }) }
        </svg>
    }
}
