//! The status line: which file is shown, its format id and version. A live region, so
//! screen readers hear when a file is decoded.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::{Action, Doc, Kind, Phase};
use crate::components::opener::Opener;
use crate::views::symbols::{self, symbols_view::SymbolsPanel};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Option<Rc<Doc>>,
    pub dispatch: Callback<Action>,
    pub opener: Opener,
}

#[function_component]
pub fn Status(props: &Props) -> Html {
    let body = match props.doc.as_deref() {
        None => html! { <span class="muted">{"No file open"}</span> },
        Some(doc) => {
            let demo = doc.demo.then(
                || html! { <span class="badge demo" title="An example profile shipped with the page">{"Demo"}</span> },
            );
            let what = match (&doc.phase, &doc.summary) {
                (Phase::Ready, Some(s)) => html! {
                    <>
                        <span class="badge format" data-format={s.format.clone()}>{&s.format}</span>
                        if let Some(v) = s.version {
                            <span class="version">{format!("version {v}")}</span>
                        }
                        <span class="detection muted" title="detection">{&s.detection}</span>
                        <span class="size muted">{size_text(s.size, s.file_size)}</span>
                        if let Some(binary) = &doc.correlated_with {
                            <span class="correlated">{format!("correlated with {binary}")}</span>
                        } else if s.needs_binary() {
                            <span class="correlated missing">{"needs its binary: drop the instrumented ELF"}</span>
                        } else if s.branch_profile {
                            // perf2bolt's aggregation needs the binary the branches ran in.
                            <span class="correlated missing">{"drop its binary to see its branches as BOLT's profile (functions, CFG)"}</span>
                        }
                        if let Some(remark) = &s.remark {
                            <span class="remark">{remark}</span>
                        }
                        if s.is_perf() && s.stacks.is_some() {
                            {symbols_toggle(doc, &props.dispatch)}
                        }
                    </>
                },
                (Phase::Reading { loaded, total }, _) => {
                    html! { <span class="muted">{format!("reading… {}", percent(*loaded, *total))}</span> }
                }
                (Phase::Decoding { done, total }, _) if *total > 0 => {
                    html! { <span class="muted">{format!("decoding… {}", percent(*done, *total))}</span> }
                }
                (Phase::Decoding { .. }, _) => html! { <span class="muted">{"decoding…"}</span> },
                (Phase::Failed(_), _) => html! { <span class="badge error">{"could not be decoded"}</span> },
                (Phase::Ready, None) => html! {},
            };
            html! {
                <>
                    {demo}
                    <span class="name">{&doc.name}</span>
                    {what}
                </>
            }
        }
    };
    let panel = props.doc.as_deref().filter(|d| d.symbols.open && d.phase == Phase::Ready).map(|d| {
        html! { <SymbolsPanel status={d.symbols.status.clone()} opener={props.opener.clone()} /> }
    });
    html! {
        <>
            <div class="status" role="status" aria-live="polite" aria-label="File status">{body}</div>
            {panel}
        </>
    }
}

/// A recording's symbols button: how many of the DSOs with samples are named.
fn symbols_toggle(doc: &Doc, dispatch: &Callback<Action>) -> Html {
    let text = match doc.symbols.status.as_deref() {
        Some(status) => {
            let (named, of) = symbols::named_count(status);
            format!("Symbols: {named} of {of} DSOs")
        }
        None => String::from("Symbols…"),
    };
    let toggle = dispatch.reform(|_: MouseEvent| Action::Symbols(symbols::Msg::Toggle));
    html! {
        <button class="symbols-toggle" aria-expanded={if doc.symbols.open { "true" } else { "false" }}
            title="Which files name this recording's frames, per DSO" onclick={toggle}>{text}</button>
    }
}

pub fn percent(loaded: u64, total: u64) -> String {
    if total == 0 {
        return String::from("0%");
    }
    format!("{}%", loaded.saturating_mul(100) / total)
}

fn size_text(size: u64, file_size: u64) -> String {
    if size == file_size {
        bytes(size)
    } else {
        format!("{} ({} compressed)", bytes(size), bytes(file_size))
    }
}

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
