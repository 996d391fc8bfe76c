//! One file: its errors, its progress while it is read and decoded, and its views.

use std::rc::Rc;

use yew::prelude::*;

use super::dump_view::DumpView;
use super::flame_graph::FlameGraph;
use super::functions_view::FunctionsView;
use super::memprof_view::MemProfView;
use super::stack_functions_view::StackFunctionsView;
use super::status::percent;
use super::summary_view::SummaryView;
use super::tabs::Tabs;
use crate::state::{Action, Doc, Phase, Tab};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn DocView(props: &Props) -> Html {
    let doc = &props.doc;
    let notice = doc.notice.as_ref().map(|m| html! { <div class="alert" role="alert">{m}</div> });
    match &doc.phase {
        Phase::Reading { loaded, total } => html! {
            <div class="loading">
                <label>
                    {format!("Reading {} — {}", doc.name, percent(*loaded, *total))}
                    <progress max={total.to_string()} value={loaded.to_string()} aria-label={format!("Reading {}", doc.name)}></progress>
                </label>
            </div>
        },
        Phase::Decoding { done, total } if *total > 0 => html! {
            <div class="loading">
                <label>
                    {format!("Decoding {} — {}", doc.name, percent(*done, *total))}
                    <progress max={total.to_string()} value={done.to_string()} aria-label={format!("Decoding {}", doc.name)}></progress>
                </label>
            </div>
        },
        Phase::Decoding { .. } => html! {
            <div class="loading">
                <label>
                    {format!("Decoding {}…", doc.name)}
                    <progress aria-label={format!("Decoding {}", doc.name)}></progress>
                </label>
            </div>
        },
        Phase::Failed(message) => html! {
            <div class="alert" role="alert">
                <strong>{format!("{}: ", doc.name)}</strong>{message}
            </div>
        },
        Phase::Ready => {
            let tabs = doc.summary.as_ref().map(|s| s.tabs()).unwrap_or_default();
            let on_tab = props.dispatch.reform(Action::SelectTab);
            let panel = match doc.tab {
                Tab::Dump => html! { <DumpView doc={doc.clone()} dispatch={props.dispatch.clone()} /> },
                Tab::FlameGraph => html! { <FlameGraph doc={doc.clone()} dispatch={props.dispatch.clone()} /> },
                Tab::Functions if doc.has_stacks() => {
                    html! { <StackFunctionsView doc={doc.clone()} dispatch={props.dispatch.clone()} /> }
                }
                Tab::Functions => html! { <FunctionsView doc={doc.clone()} dispatch={props.dispatch.clone()} /> },
                Tab::Summary => html! { <SummaryView summary={doc.functions.summary.clone()} /> },
                Tab::MemProf => html! { <MemProfView doc={doc.clone()} dispatch={props.dispatch.clone()} /> },
                // A later layer: the CFG view.
                other => html! { <p class="muted">{format!("{} is not available for this file.", other.title())}</p> },
            };
            html! {
                <>
                    {notice}
                    if let Some(why) = doc.summary.as_ref().and_then(|s| s.views_error.clone()) {
                        <p class="views-note muted" role="note">{format!("Functions and Summary are not available: {why}")}{if doc.summary.as_ref().is_some_and(|s| s.needs_binary()) { " Drop its ELF on the page to decode it." } else { "" }}</p>
                    }
                    <Tabs {tabs} current={doc.tab} {on_tab} />
                    <div class="panel" role="tabpanel" id={format!("panel-{}", doc.tab.id())} aria-labelledby={format!("tab-{}", doc.tab.id())}>
                        {panel}
                    </div>
                </>
            }
        }
    }
}
