//! The Flame graph tab: the toolbar (event, search with the matched share, icicle,
//! reset), the timeline strip, the flame graph, and the sandwich of one function
//! (its callers above, its callees below) when one is open.
//!
//! Keys (on the tab): `/` search, `Esc` reset zoom (or leave the search box), `i`
//! icicle of the inverted tree, `s` sandwich of the selected (or hovered) frame,
//! arrows pan (left/right) and scroll rows (up/down), `+`/`-` zoom.
//!
//! A rooted graph (a sample profile's function and its inline tree, beside the
//! function) is the same component without the event picker, the icicle and the
//! timeline; it does not take the focus when it appears.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

use pgolens_protocol::StacksInfo;

use super::flame_canvas::FlameCanvas;
use super::timeline::Timeline;
use super::{FlameData, FrameLookup, Msg, Stacks, Zoom};

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The graph's state, and where its messages go.
    pub stacks: Stacks,
    pub on_msg: Callback<Msg>,
    /// The file's events and time span.
    pub info: StacksInfo,
    /// One function's tree (`SampleFilter::root`).
    #[prop_or_default]
    pub rooted: bool,
    /// The graph's accessible name.
    #[prop_or(AttrValue::Static("Flame graph"))]
    pub label: AttrValue,
}

#[function_component]
pub fn FlameGraph(props: &Props) -> Html {
    let d = &props.on_msg;
    let st = &props.stacks;
    let info = &props.info;
    let rooted = props.rooted;
    let search = use_node_ref();
    let panel = use_node_ref();
    let hovered = use_mut_ref(|| None::<u32>);
    // Focus the tab so its keys work at once.
    {
        let panel = panel.clone();
        use_effect_with((), move |()| {
            if let Some(el) = panel.cast::<HtmlElement>().filter(|_| !rooted) {
                let _ = el.focus();
            }
        });
    }
    let zoom = st.zoom();
    let hit = st.found.clone().filter(|_| st.found().is_some());

    let selected_frame = st.selected.and_then(|r| st.flame.as_ref()?.frame.get(r as usize).copied());
    let onkeydown = {
        let (d, search, hovered) = (d.clone(), search.clone(), hovered.clone());
        Callback::from(move |e: KeyboardEvent| {
            let in_input = e.target_dyn_into::<HtmlInputElement>().is_some();
            let key = e.key();
            if in_input {
                if key == "Escape" {
                    if let Some(i) = search.cast::<HtmlInputElement>() {
                        let _ = i.blur();
                    }
                }
                return;
            }
            let step = (zoom.x1 - zoom.x0) * 0.1;
            let action = match key.as_str() {
                "/" => {
                    if let Some(i) = search.cast::<HtmlInputElement>() {
                        let _ = i.focus();
                    }
                    e.prevent_default();
                    return;
                }
                "Escape" => Msg::ResetZoom,
                "i" if !rooted => Msg::ToggleInverted,
                "s" => match selected_frame.or(*hovered.borrow()).filter(|&f| f != u32::MAX) {
                    Some(f) => Msg::ShowSandwich(Some(f)),
                    None => return,
                },
                "ArrowLeft" => Msg::SetZoom(zoom.panned(-step, 0.0)),
                "ArrowRight" => Msg::SetZoom(zoom.panned(step, 0.0)),
                "ArrowUp" => Msg::SetZoom(zoom.panned(0.0, 1.0)),
                "ArrowDown" => Msg::SetZoom(zoom.panned(0.0, -1.0)),
                "+" | "=" => Msg::SetZoom(zoom.scaled(0.8, 0.5)),
                "-" | "_" => Msg::SetZoom(zoom.scaled(1.25, 0.5)),
                _ => return,
            };
            e.prevent_default();
            d.emit(action);
        })
    };

    let events = info.events.iter().enumerate().map(|(i, name)| {
        html! { <option value={i.to_string()} selected={i as u32 == st.samples.event}>{name}</option> }
    });
    let onevent = d.reform(|e: Event| {
        let v = e.target_dyn_into::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
        Msg::SetEvent(v.parse().unwrap_or(0))
    });
    let onsearch = d.reform(|e: InputEvent| {
        Msg::Search(e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
    });
    let share = st.found().map(|f| {
        let pct = if f.total == 0 { 0.0 } else { f.weight as f64 * 100.0 / f.total as f64 };
        let n = f.hit.iter().filter(|&&h| h).count() as u64;
        format!("{pct:.2}% of samples match ({})", crate::views::count(n, "function"))
    });
    let total = st.flame.as_ref().map(|f| f.total());

    let graph = match &st.flame {
        Some(data) => html! {
            <FlameCanvas data={data.clone()} names={st.names.clone()} {zoom} icicle={st.inverted}
                hit={hit.clone()} selected={st.selected} label={props.label.clone()}
                on_zoom={Some(d.reform(Msg::SetZoom))}
                on_click={Some(d.reform(Msg::ZoomToRect))}
                on_sandwich={Some(d.reform(|f| Msg::ShowSandwich(Some(f))))}
                on_hover={Some({ let hovered = hovered.clone(); Callback::from(move |f| *hovered.borrow_mut() = f) })} />
        },
        None => html! { <p class="muted">{"Aggregating the stacks…"}</p> },
    };
    let sandwich = st.sandwich.as_ref().map(|s| {
        let name = st.names.as_ref().map_or_else(|| format!("frame {}", s.frame), |n| n.name(s.frame).to_string());
        let part = |data: &Option<Rc<FlameData>>, label: &'static str, icicle: bool| match data {
            Some(data) => html! {
                <FlameCanvas data={data.clone()} names={st.names.clone()} zoom={Zoom::all(data.total())} {icicle}
                    hit={hit.clone()} label={label} />
            },
            None => html! { <p class="muted">{"…"}</p> },
        };
        html! {
            <section class="sandwich" aria-label="Sandwich">
                <div class="fn-toolbar">
                    <h3 class="mono">{format!("Callers and callees of {name}{}", if rooted { " in the whole profile" } else { "" })}</h3>
                    <span class="spacer"></span>
                    <button class="sandwich-close" onclick={d.reform(|_: MouseEvent| Msg::ShowSandwich(None))}>{"Close"}</button>
                </div>
                <div class="sandwich-callers">{part(&s.callers, "Callers", false)}</div>
                <div class="sandwich-callees">{part(&s.callees, "Callees", true)}</div>
            </section>
        }
    });

    html! {
        <div class={classes!("flame-tab", rooted.then_some("rooted"))} tabindex="0" ref={panel} {onkeydown}>
            <div class="fn-toolbar flame-toolbar">
                if !rooted {
                    if info.events.len() > 1 {
                        <label>{"Event "}<select class="flame-event" aria-label="Event" onchange={onevent}>{ for events }</select></label>
                    } else {
                        <span class="muted flame-event-name">{info.events.first().cloned().unwrap_or_default()}</span>
                    }
                }
                <input type="search" class="flame-search" placeholder="Search functions ( / )" aria-label="Search functions"
                    ref={search} value={st.search.clone()} oninput={onsearch} />
                <span class="muted flame-share" aria-live="polite">{share.unwrap_or_default()}</span>
                <span class="spacer"></span>
                if !rooted {
                    <label class="flame-invert"><input type="checkbox" checked={st.inverted}
                        onchange={d.reform(|_: Event| Msg::ToggleInverted)} />{" Inverted (icicle) "}<kbd>{"i"}</kbd></label>
                }
                if let Some(f) = selected_frame.filter(|&f| f != u32::MAX) {
                    <button class="flame-sandwich" onclick={d.reform(move |_: MouseEvent| Msg::ShowSandwich(Some(f)))}>{"Sandwich "}<kbd>{"s"}</kbd></button>
                }
                <button class="flame-reset" onclick={d.reform(|_: MouseEvent| Msg::ResetZoom)}>{"Reset zoom "}<kbd>{"Esc"}</kbd></button>
                if !st.symbolized_with.is_empty() {
                    <span class="muted flame-symbols" title="Frames named from these files">{format!("symbols: {}", st.symbolized_with.join(", "))}</span>
                }
                <span class="muted flame-total">{total.map(|t| crate::views::count(t, "sample")).unwrap_or_default()}</span>
            </div>
            if let Some(t) = st.timeline.as_ref().filter(|_| !rooted) {
                <Timeline data={t.clone()} range={st.samples.range} on_range={d.reform(Msg::SelectTimeRange)} />
            }
            <div class="flame-main">{graph}</div>
            {sandwich.unwrap_or_default()}
        </div>
    }
}
