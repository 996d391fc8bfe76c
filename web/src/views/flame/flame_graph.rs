//! The Flame graph tab: the toolbar (event, search with the matched share, sibling
//! order, icicle, reset), the timeline strip, the flame graph with the selected
//! function's details beside it, and the sandwich of one function (its callers
//! above, its callees below) when one is open. A recording without call chains
//! (every stack one frame deep) is drawn as one bar per function, heaviest first.
//!
//! Keys (WAI-ARIA: the graph is one focusable `application` whose selection an
//! `aria-live` line announces). On the graph: arrows move the selection (towards
//! the root to the caller, away from it to the widest callee: down and up in a
//! flame graph, up and down in an icicle; Left/Right along the row), Enter zooms to it,
//! `+`/`-` zoom around the centre, `0` resets the zoom, `a`/`d` pan, `w`/`s` scroll
//! rows (`s` opens the selected function's sandwich instead when one is selected),
//! `n`/`p` go to the next / previous search match, `r` collapses the selected
//! function's recursion (a transform of the stacks). Anywhere on the tab: `f` folds
//! inlined frames into the functions holding their code, or unfolds them (a
//! transform too, offered when the graph has inlined frames); `/` or
//! Ctrl+F search (Enter / Shift+Enter: next / previous match; Esc clears the search
//! and gives the graph the focus back), Esc closes the sandwich or else resets the
//! zoom, `i` flips to the icicle of the inverted tree.
//!
//! A rooted graph (a sample profile's function and its inline tree, beside the
//! function) is the same component without the event picker, the icicle and the
//! timeline; it does not take the focus when it appears.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent, Node};
use yew::prelude::*;

use pgolens_protocol::{Order, StacksInfo, Transform, View};

use super::details::{percent, Details};
use super::flame_canvas::FlameCanvas;
use super::timeline::Timeline;
use super::{FlameData, FrameLookup, FrameNames, Msg, Pane, Stacks, Step, Zoom, ROW_PX};

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
    /// What the note over a graph of one-frame stacks says (a recording's by default).
    #[prop_or(AttrValue::Static(NO_CHAINS))]
    pub flat_note: AttrValue,
    /// Switches the file's tab (the details' Call tree button); none: no button.
    #[prop_or_default]
    pub on_tab: Option<Callback<View>>,
    /// Where a transform of the stacks goes (`r`: collapse the selected function's
    /// recursion); none: no such key.
    #[prop_or_default]
    pub on_transform: Option<Callback<Transform>>,
}

/// What a flat recording's note says.
pub const NO_CHAINS: &str = "This recording has no call chains (record with -g or --call-graph to get them)";
/// What a flat recording's note says when its samples copied the user stack.
pub const UNWOUND_WITH_BINARIES: &str = "This recording copied each sample's user stack (--call-graph dwarf): its call chains are unwound with the binaries' call-frame information. Give its binaries (Symbols…)";
/// What a flat sample profile's note says: its stacks are its inline trees.
pub const NO_INLINED_SAMPLES: &str = "No inlined callee has samples: each function is one frame";
/// The fold button's sample of the inlined frames' colour (the palette's first green).
const INLINED_SWATCH: &str =
    "display:inline-block;width:0.8em;height:0.8em;margin-right:0.3em;border-radius:2px;background:#8fd19e";
/// Bars drawn for a flat recording (the heaviest).
const FLAT_ROWS: usize = 500;

/// How many rows of the graph `node` shows.
fn rows_shown(node: &NodeRef) -> u32 {
    node.cast::<Element>().map_or(1, |g| (f64::from(g.client_height()) / ROW_PX).floor() as u32)
}

fn focus(node: &NodeRef) {
    if let Some(el) = node.cast::<HtmlElement>() {
        let _ = el.focus();
    }
}

#[function_component]
pub fn FlameGraph(props: &Props) -> Html {
    let d = &props.on_msg;
    let st = &props.stacks;
    let info = &props.info;
    let rooted = props.rooted;
    let search = use_node_ref();
    let graph = use_node_ref();
    let hovered = use_mut_ref(|| None::<u32>);
    let inlined_frames = {
        let names = st.names.clone();
        use_memo(names.as_ref().map(|n| Rc::as_ptr(n) as usize), move |_| {
            names.as_ref().is_some_and(|n| n.kinds.iter().any(|k| k == "inlined"))
        })
    };
    // Focus the graph so its keys work at once, unless the keys are walking the tab
    // list; the details panel is shown while the graph is.
    {
        let (graph, d) = (graph.clone(), d.clone());
        use_effect_with((), move |()| {
            let on_tabs = web_sys::window()
                .and_then(|w| w.document()?.active_element())
                .is_some_and(|a| a.closest("[role=tablist]").ok().flatten().is_some());
            if !rooted && !on_tabs {
                focus(&graph);
            }
            d.emit(Msg::ShowDetails(true));
            move || d.emit(Msg::ShowDetails(false))
        });
    }
    let zoom = st.zoom();
    let hit = st.found.clone().filter(|_| st.found().is_some());
    let flat = st.flame.as_ref().is_some_and(|f| f.is_flat());
    let selected_frame = st.selected_frame;

    // Inlined frames: drawn in their own colours, and foldable into their functions.
    let folded = st.samples.transforms.contains(&Transform::FoldInlined);
    let has_inlined = *inlined_frames;
    let fold_button = props.on_transform.clone().filter(|_| folded || has_inlined).map(|cb| {
        let onclick = cb.reform(|_: MouseEvent| Transform::FoldInlined);
        let title = "Fold each inlined frame into the function whose code holds it (as perf report --no-inline)";
        html! {
            <button class="flame-fold-inlined" aria-pressed={folded.to_string()} {title} {onclick}>
                <span class="swatch-inlined" aria-hidden="true" style={INLINED_SWATCH}></span>{"Fold inlined "}<kbd>{"f"}</kbd>
            </button>
        }
    });
    let onkeydown = {
        let (d, search, graph, hovered) = (d.clone(), search.clone(), graph.clone(), hovered.clone());
        let flame = st.flame.clone();
        let sandwich_open = st.sandwich.is_some();
        let cursor = st.cursor();
        let has_matches = st.found().is_some();
        let icicle = st.inverted;
        let on_transform = props.on_transform.clone();
        Callback::from(move |e: KeyboardEvent| {
            let can_fold = folded || has_inlined;
            let target = e.target();
            let in_field = target.as_ref().is_some_and(|t| {
                t.dyn_ref::<HtmlInputElement>().is_some() || t.dyn_ref::<HtmlSelectElement>().is_some()
            });
            if in_field {
                return; // the search box has its own keys
            }
            let key = e.key();
            let ctrl = e.ctrl_key() || e.meta_key();
            if key == "/" || (ctrl && key.eq_ignore_ascii_case("f")) {
                focus(&search);
                e.prevent_default();
                return;
            }
            if ctrl || e.alt_key() {
                return;
            }
            let on_graph = match (graph.cast::<Node>(), target.and_then(|t| t.dyn_into::<Node>().ok())) {
                (Some(g), Some(t)) => g.contains(Some(&t)),
                _ => false,
            };
            let rows = rows_shown(&graph);
            let nav = |step| Msg::Navigate { step, rows };
            let step = (zoom.x1 - zoom.x0) * 0.1;
            let sandwich_of = selected_frame.or(*hovered.borrow()).filter(|&f| f != u32::MAX);
            let action = match key.as_str() {
                "Escape" if sandwich_open => {
                    focus(&graph);
                    Msg::ShowSandwich(None)
                }
                "Escape" => Msg::ResetZoom,
                "i" if !rooted => Msg::ToggleInverted,
                "f" => {
                    if let (Some(cb), true) = (&on_transform, can_fold) {
                        e.prevent_default();
                        cb.emit(Transform::FoldInlined);
                    }
                    return;
                }
                "s" if sandwich_of.is_some() && (selected_frame.is_some() || !on_graph) => {
                    Msg::ShowSandwich(sandwich_of)
                }
                _ if !on_graph => return,
                "ArrowUp" | "ArrowDown" if flat => {
                    let Some(flame) = &flame else { return };
                    let order = flame.heaviest_first();
                    let at = cursor.and_then(|c| order.iter().position(|&r| r == c));
                    let next = match (at, key.as_str()) {
                        (None, _) => order.first(),
                        (Some(i), "ArrowUp") => order.get(i.saturating_sub(1)),
                        (Some(i), _) => order.get(i + 1),
                    };
                    let Some(&rect) = next else { return };
                    Msg::SelectRect(rect)
                }
                // Towards the root is down in a flame graph, up in an icicle.
                "ArrowUp" => nav(if icicle { Step::Parent } else { Step::Child }),
                "ArrowDown" => nav(if icicle { Step::Child } else { Step::Parent }),
                "ArrowLeft" => nav(Step::Prev),
                "ArrowRight" => nav(Step::Next),
                "r" => {
                    if let (Some(cb), Some(frame)) = (&on_transform, selected_frame) {
                        e.prevent_default();
                        cb.emit(Transform::CollapseRecursion { frame });
                    }
                    return;
                }
                "n" if has_matches => nav(Step::NextMatch),
                "p" if has_matches => nav(Step::PrevMatch),
                "Enter" if !flat => match cursor {
                    Some(rect) => Msg::ZoomToRect(rect),
                    None => return,
                },
                "+" | "=" => Msg::SetZoom(zoom.scaled(0.8, 0.5)),
                "-" | "_" => Msg::SetZoom(zoom.scaled(1.25, 0.5)),
                "0" => Msg::ResetZoom,
                "a" | "A" => Msg::SetZoom(zoom.panned(-step, 0.0)),
                "d" | "D" => Msg::SetZoom(zoom.panned(step, 0.0)),
                "w" | "W" => Msg::SetZoom(zoom.panned(0.0, 1.0)),
                "s" | "S" => Msg::SetZoom(zoom.panned(0.0, -1.0)),
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
    let onsearchkey = {
        let (d, graph) = (d.clone(), graph.clone());
        Callback::from(move |e: KeyboardEvent| {
            let rows = rows_shown(&graph);
            match e.key().as_str() {
                "Enter" => {
                    let step = if e.shift_key() { Step::PrevMatch } else { Step::NextMatch };
                    d.emit(Msg::Navigate { step, rows });
                }
                "Escape" => {
                    d.emit(Msg::Search(String::new()));
                    focus(&graph);
                }
                _ => return,
            }
            e.prevent_default();
            e.stop_propagation();
        })
    };
    let share = st.found().map(|f| {
        let pct = if f.total == 0 { 0.0 } else { f.weight as f64 * 100.0 / f.total as f64 };
        let n = f.hit.iter().filter(|&&h| h).count() as u64;
        format!("{pct:.2}% of samples match ({})", crate::views::count(n, "function"))
    });
    let total = st.flame.as_ref().map(|f| f.total());
    let names = st.names.as_deref();
    let announce = selected_frame.map(|f| match names {
        Some(n) => format!("Selected {}{}", n.name(f), n.dso(f).map(|d| format!(" in {d}")).unwrap_or_default()),
        None => format!("Selected frame {f}"),
    });

    let body = match &st.flame {
        Some(data) if flat => flat_chart(data, names, st.selected, selected_frame, &props.flat_note, d),
        Some(data) => html! {
            <FlameCanvas data={data.clone()} names={st.names.clone()} {zoom} icicle={st.inverted}
                hit={hit.clone()} selected={st.selected} highlight={selected_frame} label={props.label.clone()}
                on_zoom={Some(d.reform(Msg::SetZoom))}
                on_click={Some(d.reform(Msg::SelectRect))}
                on_double_click={Some(d.reform(Msg::ZoomToRect))}
                on_sandwich={Some(d.reform(|f| Msg::ShowSandwich(Some(f))))}
                on_hover={Some({ let hovered = hovered.clone(); Callback::from(move |f| *hovered.borrow_mut() = f) })} />
        },
        None => html! { <p class="muted">{"Aggregating the stacks…"}</p> },
    };
    let details = match (selected_frame, &st.flame) {
        (Some(frame), Some(flame)) => html! {
            <Details {frame} flame={flame.clone()} names={st.names.clone()} inverted={st.inverted}
                sandwich={st.details.clone()} on_msg={d.clone()} on_tab={props.on_tab.clone()} />
        },
        _ if rooted => html! {},
        _ => html! {
            <aside class="flame-details empty" aria-label="Selected function">
                <p class="muted">{"Click a frame, or focus the graph and use the arrow keys, to see its details. Double-click or Enter zooms."}</p>
            </aside>
        },
    };
    let sandwich = st.sandwich.as_ref().map(|s| {
        let name = names.map_or_else(|| format!("frame {}", s.frame), |n| n.name(s.frame).to_string());
        let part = |data: &Option<Rc<FlameData>>, pane: Pane, label: &'static str, icicle: bool| match data {
            Some(data) => {
                let frames = data.clone();
                let whole = data.clone();
                html! {
                    <FlameCanvas data={data.clone()} names={st.names.clone()} zoom={s.zoom(pane)} {icicle}
                        hit={hit.clone()} highlight={selected_frame} label={label}
                        on_zoom={Some(d.reform(move |z| Msg::ZoomSandwich(pane, Some(z))))}
                        on_click={Some(d.reform(move |r| Msg::SelectFrame(frames.frame_of(r).filter(|&f| f != u32::MAX))))}
                        on_double_click={Some(d.reform(move |r: u32| {
                            let x0 = whole.flame.x0.get(r as usize).copied().unwrap_or(0) as f64;
                            let w = whole.flame.width.get(r as usize).copied().unwrap_or(0) as f64;
                            Msg::ZoomSandwich(pane, Some(Zoom { x0, x1: x0 + w, top: 0.0 }))
                        }))}
                        on_sandwich={Some(d.reform(|f| Msg::ShowSandwich(Some(f))))} />
                }
            }
            None => html! { <p class="muted">{"…"}</p> },
        };
        let close = {
            let (d, graph) = (d.clone(), graph.clone());
            Callback::from(move |_: MouseEvent| {
                d.emit(Msg::ShowSandwich(None));
                focus(&graph);
            })
        };
        html! {
            <section class="sandwich" aria-label="Sandwich">
                <div class="fn-toolbar">
                    <h3 class="mono">{format!("Callers and callees of {name}{}", if rooted { " in the whole profile" } else { "" })}</h3>
                    <span class="spacer"></span>
                    <span class="muted">{"click: select · double-click: zoom"}</span>
                    <button class="sandwich-close" onclick={close}>{"Close "}<kbd>{"Esc"}</kbd></button>
                </div>
                <div class="sandwich-callers">{part(&s.callers, Pane::Callers, "Callers", false)}</div>
                <div class="sandwich-callees">{part(&s.callees, Pane::Callees, "Callees", true)}</div>
            </section>
        }
    });
    let order = |o: Order, text: &'static str, class: &'static str| {
        let pressed = st.order == o;
        html! {
            <button {class} aria-pressed={pressed.to_string()} onclick={d.reform(move |_: MouseEvent| Msg::SetOrder(o))}>{text}</button>
        }
    };

    html! {
        // Focusable by a click (not by Tab): a click anywhere in the tab keeps its keys.
        <div class={classes!("flame-tab", rooted.then_some("rooted"))} tabindex="-1" {onkeydown}>
            <div class="fn-toolbar flame-toolbar">
                if !rooted {
                    if info.events.len() > 1 {
                        <label>{"Event "}<select class="flame-event" aria-label="Event" onchange={onevent}>{ for events }</select></label>
                    } else {
                        <span class="muted flame-event-name">{info.events.first().cloned().unwrap_or_default()}</span>
                    }
                }
                <input type="search" class="flame-search" placeholder="Search functions ( / )" aria-label="Search functions"
                    ref={search.clone()} value={st.search.clone()} oninput={onsearch} onkeydown={onsearchkey} />
                <span class="muted flame-share" aria-live="polite">{share.unwrap_or_default()}</span>
                <span class="spacer"></span>
                <span class="flame-order" role="group" aria-label="Order">
                    <span class="muted">{"Order: "}</span>
                    {order(Order::Alphabetical, "A–Z", "order-alpha")}
                    {order(Order::Heaviest, "Heaviest first", "order-heavy")}
                </span>
                if !rooted {
                    <label class="flame-invert"><input type="checkbox" checked={st.inverted}
                        onchange={d.reform(|_: Event| Msg::ToggleInverted)} />{" Inverted (icicle) "}<kbd>{"i"}</kbd></label>
                }
                if let Some(f) = selected_frame {
                    <button class="flame-sandwich" onclick={d.reform(move |_: MouseEvent| Msg::ShowSandwich(Some(f)))}>{"Sandwich "}<kbd>{"s"}</kbd></button>
                }
                {fold_button.unwrap_or_default()}
                <button class="flame-reset" onclick={d.reform(|_: MouseEvent| Msg::ResetZoom)}>{"Reset zoom "}<kbd>{"0"}</kbd></button>
                if !st.symbolized_with.is_empty() {
                    <span class="muted flame-symbols" title="Frames named from these files">{format!("symbols: {}", st.symbolized_with.join(", "))}</span>
                }
                <span class="muted flame-total">{total.map(|t| crate::views::count(t, "sample")).unwrap_or_default()}</span>
            </div>
            if let Some(t) = st.timeline.as_ref().filter(|_| !rooted) {
                <Timeline data={t.clone()} range={st.samples.range} on_range={d.reform(Msg::SelectTimeRange)} samples={info.samples} />
            }
            <div class="flame-body">
                <div class={classes!("flame-main", flat.then_some("flat"))} ref={graph} tabindex="0" role="application"
                    aria-label={props.label.clone()} aria-roledescription="flame graph">
                    {body}
                </div>
                {details}
            </div>
            <span class="sr-only flame-announce" aria-live="polite">{announce.unwrap_or_default()}</span>
            {sandwich.unwrap_or_default()}
        </div>
    }
}

/// A graph of one-frame stacks as one bar per function, heaviest first, with the
/// note that call chains were not recorded.
fn flat_chart(
    data: &FlameData,
    names: Option<&FrameNames>,
    selected: Option<u32>,
    frame: Option<u32>,
    note: &AttrValue,
    d: &Callback<Msg>,
) -> Html {
    let order = data.heaviest_first();
    let all = data.total();
    let widest = order.first().and_then(|&r| data.flame.width.get(r as usize)).copied().unwrap_or(1).max(1);
    let more = order.len().saturating_sub(FLAT_ROWS);
    let rows = order.iter().take(FLAT_ROWS).filter_map(|&rect| {
        let f = data.frame_of(rect)?;
        let w = data.flame.width.get(rect as usize).copied()?;
        let name = names.map_or_else(|| format!("frame {f}"), |n| n.name(f).to_string());
        let dso = names.and_then(|n| n.dso(f)).map(String::from);
        let is_selected = selected == Some(rect) || (selected.is_none() && frame == Some(f));
        let bar = format!("width:{:.2}%", w as f64 * 100.0 / widest as f64);
        let title = match &dso {
            Some(dso) => format!("{name} ({dso})"),
            None => name.clone(),
        };
        Some(html! {
            <div class={classes!("flat-row", is_selected.then_some("selected"))} data-frame={f.to_string()} {title}
                onclick={d.reform(move |_: MouseEvent| Msg::SelectRect(rect))}>
                <span class="flat-name mono">{name}</span>
                <span class="flat-track"><span class="flat-bar" style={bar}></span></span>
                <span class="flat-weight num">{w.to_string()}</span>
                <span class="flat-pct num">{percent(w, all)}</span>
            </div>
        })
    });
    html! {
        <div class="flame-flat">
            <p class="flat-note" role="note">{note.clone()}</p>
            <div class="flat-rows">{ for rows }</div>
            if more > 0 { <p class="muted">{format!("and {} more", crate::views::count(more as u64, "function"))}</p> }
        </div>
    }
}
