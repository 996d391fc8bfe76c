//! One file: its errors, its progress while it is read and decoded, and its views.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::View;

use super::status::percent;
use super::tabs::Tabs;
use crate::app::{Action, Doc, Kind, Phase};
use crate::views;
use crate::views::bat::bat_view::BatView;
use crate::views::bolt_cfg::bolt_cfg_view::BoltCfgView;
use crate::views::bolt_functions::bolt_functions_view::BoltFunctionsView;
use crate::views::bolt_records::bolt_records_view::BoltRecordsView;
use crate::views::call_tree::call_tree_view::CallTreeView;
use crate::views::dump::dump_view::DumpView;
use crate::views::flame::flame_graph::{self, FlameGraph};
use crate::views::functions::functions_view::FunctionsView;
use crate::views::memprof::memprof_view::MemProfView;
use crate::views::sample_functions::sample_functions_view::SampleFunctionsView;
use crate::views::sample_symbols::sample_symbols_view::SampleSymbolsView;
use crate::views::stack_chart::stack_chart_view::StackChartView;
use crate::views::stack_functions::stack_functions_view::StackFunctionsView;
use crate::views::summary::summary_view::SummaryView;
use crate::views::transforms::breadcrumbs::Breadcrumbs;
use crate::views::{flame, stack_chart};

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
            let tabs = doc.tabs();
            let on_tab = props.dispatch.reform(Action::SelectTab);
            let d = props.dispatch.clone();
            let panel = match doc.tab {
                View::Dump => html! { <DumpView doc={doc.clone()} dispatch={d} /> },
                View::Flame => {
                    let info = doc.summary.as_ref().and_then(|s| s.stacks.clone()).unwrap_or_default();
                    // A recording's stacks are its call chains; a sample profile's, its inline trees.
                    let recording = doc.summary.as_ref().is_none_or(|s| s.format.starts_with("perf.data"));
                    // A `--call-graph dwarf` recording's chains wait for its binaries.
                    let flat_note = match (recording, info.stack_copies) {
                        (true, true) => flame_graph::UNWOUND_WITH_BINARIES,
                        (true, false) => flame_graph::NO_CHAINS,
                        (false, _) => flame_graph::NO_INLINED_SAMPLES,
                    };
                    html! { <FlameGraph stacks={doc.stacks.clone()} {info} {flat_note} on_msg={d.reform(Action::Flame)} on_tab={Some(d.reform(Action::SelectTab))} on_transform={Some(d.reform(|t| Action::Transform(views::transforms::Msg::Push(t))))} /> }
                }
                View::Functions if doc.has_stacks() => html! { <StackFunctionsView doc={doc.clone()} dispatch={d} /> },
                View::Functions => html! { <FunctionsView doc={doc.clone()} dispatch={d} /> },
                View::Summary => html! { <SummaryView summary={doc.profile_summary.data.clone()} /> },
                View::MemProf => html! { <MemProfView doc={doc.clone()} dispatch={d} /> },
                View::BoltFunctions => html! { <BoltFunctionsView doc={doc.clone()} dispatch={d} /> },
                View::BoltCfg => html! { <BoltCfgView doc={doc.clone()} dispatch={d} /> },
                View::BoltBranches => {
                    html! { <BoltRecordsView doc={doc.clone()} dispatch={d} table={pgolens_protocol::TableId::BoltBranches} /> }
                }
                View::BoltMemory => {
                    html! { <BoltRecordsView doc={doc.clone()} dispatch={d} table={pgolens_protocol::TableId::BoltMemory} /> }
                }
                View::Bat => html! { <BatView doc={doc.clone()} dispatch={d} /> },
                View::BoltSamples => {
                    html! { <BoltRecordsView doc={doc.clone()} dispatch={d} table={pgolens_protocol::TableId::BoltSamples} /> }
                }
                View::SampleFunctions => html! { <SampleFunctionsView doc={doc.clone()} dispatch={d} /> },
                View::SampleSymbols => html! { <SampleSymbolsView doc={doc.clone()} dispatch={d} /> },
                View::CallTree => {
                    html! { <CallTreeView state={doc.call_tree.clone()} names={doc.stacks.names.clone()} selected_frame={doc.stacks.selected_frame} events={doc.summary.as_ref().and_then(|s| s.stacks.as_ref()).map(|s| s.events.clone()).unwrap_or_default()} event={doc.stacks.samples.event} dispatch={d} /> }
                }
                View::StackChart => {
                    let info = doc.summary.as_ref().and_then(|s| s.stacks.as_ref());
                    let (origin, recorded) = info.map_or((0, 0), |s| (s.start, s.samples));
                    let flame = d.clone();
                    html! { <StackChartView chart={doc.stack_chart.chart.clone()} names={doc.stacks.names.clone()} {origin}
                    selected_frame={doc.stacks.selected_frame} range={doc.stacks.samples.range}
                    timeline={doc.stacks.timeline.clone()} {recorded}
                    on_resize={d.reform(|w| Action::StackChart(stack_chart::Msg::Resize(w)))}
                    on_select={flame.reform(|f| Action::Flame(flame::Msg::SelectFrame(f)))}
                    on_range={d.reform(|r| Action::Flame(flame::Msg::SelectTimeRange(r)))} /> }
                }
            };
            html! {
                <>
                    {notice}
                    if let Some(why) = doc.summary.as_ref().and_then(|s| s.views_error.as_ref().map(|e| e.message.clone())) {
                        <p class="views-note muted" role="note">{format!("Functions and Summary are not available: {why}")}{if doc.summary.as_ref().is_some_and(|s| s.needs_binary()) { " Drop its ELF on the page to decode it." } else { "" }}</p>
                    }
                    <Tabs {tabs} current={doc.tab} {on_tab} />
                    if doc.has_stacks() && matches!(doc.tab, View::Flame | View::CallTree | View::StackChart) { <Breadcrumbs transforms={doc.stacks.samples.transforms.clone()} names={doc.stacks.names.clone()} on_msg={props.dispatch.reform(Action::Transform)} /> }
                    <div class="panel" role="tabpanel" id={format!("panel-{}", views::id(doc.tab))} aria-labelledby={format!("tab-{}", views::id(doc.tab))}>
                        {panel}
                    </div>
                </>
            }
        }
    }
}
