//! The selected function: its counters as a bar chart (linear or log scale) and as
//! numbers, its MC/DC bitmap bytes, its value-profile sites with their targets, and
//! where it sits in each temporal trace.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::FnDetail;

/// The chart's drawing size in its own units (the SVG scales to its box).
const CHART_W: f64 = 600.0;
const CHART_H: f64 = 140.0;
/// Counters listed as numbers; the chart shows them all.
const MAX_LISTED: usize = 2000;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub detail: Option<Rc<FnDetail>>,
    pub selected: Option<u32>,
    pub log_scale: bool,
    pub on_log: Callback<()>,
}

#[function_component]
pub fn FunctionDetail(props: &Props) -> Html {
    let detail = match (&props.detail, props.selected) {
        (Some(d), Some(id)) if d.id == id => d,
        (_, Some(_)) => {
            return html! { <aside class="fn-detail" aria-label="Function detail"><p class="muted">{"Loading…"}</p></aside> }
        }
        _ => {
            return html! { <aside class="fn-detail" aria-label="Function detail"><p class="muted">{"Select a function to see its counters and value sites."}</p></aside> }
        }
    };
    let on_log = props.on_log.reform(|_: Event| ());
    let listed = detail.counters.iter().take(MAX_LISTED).enumerate().map(|(i, c)| {
        html! { <li data-index={i.to_string()}><span class="counter-index">{i}</span><span class="counter-value">{c}</span></li> }
    });
    html! {
        <aside class="fn-detail" aria-label="Function detail">
            <h2 class="fn-title" title={detail.name.clone()}>{detail.demangled.clone().unwrap_or_else(|| detail.name.clone())}</h2>
            <div class="muted mono">{detail.name.clone()}</div>
            if let Some(hash) = detail.hash { <div class="muted mono">{format!("hash {hash:#018x}")}</div> }
            <section aria-label="Counters">
                <h3>{format!("Counters ({})", detail.counters.len())}
                    <label class="fn-log"><input type="checkbox" checked={props.log_scale} onchange={on_log} />{"log scale"}</label>
                </h3>
                {chart(&detail.counters, props.log_scale)}
                <ol class="counter-values" start="0">{ for listed }</ol>
                if detail.counters.len() > MAX_LISTED {
                    <p class="muted">{format!("… and {} more", detail.counters.len() - MAX_LISTED)}</p>
                }
            </section>
            if !detail.bitmap.is_empty() {
                <section aria-label="Bitmap bytes">
                    <h3>{format!("Bitmap bytes ({})", detail.bitmap.len())}</h3>
                    <div class="mono bitmap">{detail.bitmap.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")}</div>
                </section>
            }
            if !detail.sites.is_empty() {
                <section aria-label="Value sites">
                    <h3>{format!("Value sites ({})", detail.sites.len())}</h3>
                    { for detail.sites.iter().map(|site| {
                        // Each target's share of the site, as llvm-profdata show prints it.
                        let sum: u64 = site.targets.iter().map(|t| t.count).sum();
                        html! {
                        <table class="fn-site">
                            <caption>{format!("{} site {}", site.kind, site.index)}</caption>
                            <tbody>
                                { for site.targets.iter().map(|t| html! {
                                    <tr><td class="mono target" title={t.name.clone()}>{t.demangled.clone().or_else(|| t.name.clone()).unwrap_or_else(|| t.value.to_string())}</td><td class="num count">{t.count}</td><td class="num share">{share(t.count, sum)}</td></tr>
                                }) }
                                if site.targets.is_empty() { <tr><td class="muted">{"no values"}</td></tr> }
                            </tbody>
                        </table>
                    } }) }
                </section>
            }
            if !detail.traces.is_empty() {
                <section aria-label="Temporal traces">
                    <h3>{"Temporal traces"}</h3>
                    <ul class="fn-traces">
                        { for detail.traces.iter().map(|t| html! {
                            <li>{format!("trace {} (weight {}): position {} of {}", t.trace, t.weight, t.position.saturating_add(1), t.length)}</li>
                        }) }
                    </ul>
                </section>
            }
        </aside>
    }
}

/// `count` as a percentage of `sum` with two decimals: `38.00%`.
fn share(count: u64, sum: u64) -> String {
    if sum == 0 {
        return String::from("–");
    }
    format!("{:.2}%", count as f64 * 100.0 / sum as f64)
}

/// One bar per counter; heights linear in the count or in log(1 + count).
fn chart(counters: &[u64], log: bool) -> Html {
    let scale = |c: u64| if log { (c as f64).ln_1p() } else { c as f64 };
    let top = counters.iter().map(|&c| scale(c)).fold(0.0f64, f64::max);
    let n = counters.len().max(1) as f64;
    let w = CHART_W / n;
    let bars = counters.iter().enumerate().map(|(i, &c)| {
        let h = if top > 0.0 { scale(c) / top * CHART_H } else { 0.0 };
        let x = i as f64 * w;
        html! {
            <rect x={format!("{x:.2}")} y={format!("{:.2}", CHART_H - h)} width={format!("{:.2}", (w * 0.85).max(0.5))}
                height={format!("{h:.2}")}><title>{format!("counter {i}: {c}")}</title></rect>
        }
    });
    html! {
        <svg class="fn-chart" viewBox={format!("0 0 {CHART_W} {CHART_H}")} preserveAspectRatio="none" role="img"
            aria-label={format!("{} counters{}", counters.len(), if log { ", log scale" } else { "" })}>
            { for bars }
        </svg>
    }
}
