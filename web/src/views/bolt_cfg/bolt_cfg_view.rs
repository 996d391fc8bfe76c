//! The CFG tab: a bar (function, flow score, search, fit, back), the graph's canvas
//! with its minimap, and the selected block's details. Drag pans, the wheel zooms
//! around the pointer, a click selects a block (or, on a call's line, opens the
//! callee); keys: arrows or h/j/k/l step along the hottest edges, f fits, + and -
//! zoom, Enter opens the selected block's hottest callee, Backspace goes back, /
//! searches.
//!
//! Each paint writes `data-paints`, `data-paint-ms`, `data-blocks-drawn` and
//! `data-edges-drawn` on the canvas, which the tests and the benchmark read.

use std::rc::Rc;

use pgolens_protocol::{CfgBlock, CfgGraph, CFG_LINE_PX, CFG_PAD_PX};
use web_sys::{HtmlCanvasElement, HtmlInputElement, KeyboardEvent, WheelEvent};
use yew::prelude::*;

use super::render::{paint, paint_minimap, Scene};
use super::{Camera, Msg, Step};
use crate::app::{Action, Doc};
use crate::views::flame::flame_canvas::{tooltip_style, use_size, use_wheel};

/// The minimap's size in CSS pixels (its longer side).
const MINIMAP_PX: f64 = 180.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn pct(f: f64) -> String {
    format!("{:.2}%", f * 100.0)
}

/// The block under layout point (`x`, `y`) and the text line there.
fn block_at(graph: &CfgGraph, x: f64, y: f64) -> Option<(u32, usize)> {
    graph.blocks.iter().find(|b| x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h).map(|b| {
        let line = ((y - b.y - CFG_PAD_PX) / CFG_LINE_PX).floor().max(0.0) as usize;
        (b.index, line)
    })
}

struct Drag {
    x: f64,
    y: f64,
    camera: Camera,
    moved: bool,
}

#[function_component]
pub fn BoltCfgView(props: &Props) -> Html {
    let state = &props.doc.bolt_cfg;
    let send = props.dispatch.reform(Action::BoltCfg);
    let canvas = use_node_ref();
    let minimap = use_node_ref();
    let search = use_node_ref();
    // The block under the pointer, and where the pointer is (CSS px in the canvas).
    let hovered = use_state_eq(|| None::<(u32, f64, f64)>);
    let drag = use_mut_ref(|| None::<Drag>);
    let paints = use_mut_ref(|| 0u64);
    let size = use_size(&canvas);

    // The canvas's size reaches the state (fitting needs it).
    {
        let send = send.clone();
        use_effect_with(size, move |&(w, h)| {
            if w > 0.0 && h > 0.0 {
                send.emit(Msg::Resize(w, h));
            }
        });
    }

    // Paint whenever what is shown changes.
    {
        let (canvas, minimap, paints) = (canvas.clone(), minimap.clone(), paints.clone());
        let graph = state.graph.clone();
        let matches = state.matches.clone();
        let deps = (
            graph.as_ref().map(|g| Rc::as_ptr(g) as usize),
            state.camera.map(|c| (c.x.to_bits(), c.y.to_bits(), c.scale.to_bits())),
            size.0.to_bits(),
            size.1.to_bits(),
            state.selected,
            hovered.map(|h| h.0),
            Rc::as_ptr(&matches) as usize,
        );
        let (camera, selected, hover) = (state.camera, state.selected, hovered.map(|h| h.0));
        let view = state.view;
        use_effect_with(deps, move |_| {
            if let (Some(el), Some(g), Some(camera)) = (canvas.cast::<HtmlCanvasElement>(), graph.as_deref(), camera) {
                let start = now();
                let scene = Scene {
                    graph: g,
                    camera,
                    width_px: size.0,
                    height_px: size.1,
                    selected,
                    hovered: hover,
                    matches: &matches,
                };
                let (blocks, edges) = paint(&el, &scene);
                let ms = now() - start;
                let mut n = paints.borrow_mut();
                *n += 1;
                let _ = el.set_attribute("data-paints", &n.to_string());
                let _ = el.set_attribute("data-paint-ms", &format!("{ms:.3}"));
                let _ = el.set_attribute("data-blocks-drawn", &blocks.to_string());
                let _ = el.set_attribute("data-edges-drawn", &edges.to_string());
                if let Some(mm) = minimap.cast::<HtmlCanvasElement>() {
                    let k = MINIMAP_PX / g.width.max(g.height).max(1.0);
                    paint_minimap(&mm, g, camera, view, ((g.width * k).max(24.0), (g.height * k).max(24.0)));
                }
            }
        });
    }

    // Wheel: zoom around the pointer (pan with shift, or a horizontal wheel).
    {
        let send = send.clone();
        let camera = state.camera;
        let handler = camera.map(|camera| -> Box<dyn Fn(WheelEvent)> {
            Box::new(move |e: WheelEvent| {
                let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
                let next = if e.shift_key() {
                    camera.panned(e.delta_y(), 0.0)
                } else if e.ctrl_key() || e.delta_x().abs() < 1.0 {
                    camera.zoomed((-e.delta_y() * 0.002).exp(), x, y)
                } else {
                    camera.panned(e.delta_x(), e.delta_y())
                };
                send.emit(Msg::Camera(next));
            })
        });
        use_wheel(&canvas, camera.map(|c| (c.x.to_bits(), c.y.to_bits(), c.scale.to_bits())), handler);
    }

    let graph = state.graph.clone();
    let camera = state.camera;
    let onmousedown = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            if let (0, Some(camera)) = (e.button(), camera) {
                *drag.borrow_mut() =
                    Some(Drag { x: f64::from(e.offset_x()), y: f64::from(e.offset_y()), camera, moved: false });
            }
        })
    };
    let onmousemove = {
        let (drag, hovered, send, graph) = (drag.clone(), hovered.clone(), send.clone(), graph.clone());
        Callback::from(move |e: MouseEvent| {
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            if let Some(d) = drag.borrow_mut().as_mut() {
                let (dx, dy) = (x - d.x, y - d.y);
                if dx.abs() + dy.abs() > 3.0 {
                    d.moved = true;
                }
                if d.moved {
                    send.emit(Msg::Camera(d.camera.panned(-dx, -dy)));
                    return;
                }
            }
            let (Some(g), Some(camera)) = (graph.as_deref(), camera) else { return };
            let (lx, ly) = camera.to_layout(x, y);
            hovered.set(block_at(g, lx, ly).map(|(b, _)| (b, x, y)));
        })
    };
    let onmouseup = {
        let (drag, send, graph) = (drag.clone(), send.clone(), graph.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(d) = drag.borrow_mut().take() else { return };
            if d.moved {
                return;
            }
            let (Some(g), Some(camera)) = (graph.as_deref(), camera) else { return };
            let (lx, ly) = camera.to_layout(f64::from(e.offset_x()), f64::from(e.offset_y()));
            match block_at(g, lx, ly) {
                Some((b, line)) => {
                    // A call's line opens the callee.
                    let call = line.checked_sub(1).and_then(|c| g.blocks.get(b as usize)?.calls.get(c));
                    match call.and_then(|c| c.function) {
                        Some(row) if line > 0 => send.emit(Msg::Open(row)),
                        _ => send.emit(Msg::Select(Some(b))),
                    }
                }
                None => send.emit(Msg::Select(None)),
            }
        })
    };
    let onmouseleave = {
        let (drag, hovered) = (drag.clone(), hovered.clone());
        Callback::from(move |_: MouseEvent| {
            *drag.borrow_mut() = None;
            hovered.set(None);
        })
    };
    let onkeydown = {
        let (send, search, graph) = (send.clone(), search.clone(), graph.clone());
        let selected = state.selected;
        let view = state.view;
        Callback::from(move |e: KeyboardEvent| {
            let msg = match e.key().as_str() {
                "ArrowDown" | "j" => Some(Msg::Step(Step::Down)),
                "ArrowUp" | "k" => Some(Msg::Step(Step::Up)),
                "ArrowRight" | "l" => Some(Msg::Step(Step::Right)),
                "ArrowLeft" | "h" => Some(Msg::Step(Step::Left)),
                "f" => Some(Msg::Fit),
                "+" | "=" => camera.map(|c| Msg::Camera(c.zoomed(1.25, view.0 / 2.0, view.1 / 2.0))),
                "-" => camera.map(|c| Msg::Camera(c.zoomed(0.8, view.0 / 2.0, view.1 / 2.0))),
                "Backspace" => Some(Msg::Back),
                "Escape" => Some(Msg::Select(None)),
                "Enter" => graph
                    .as_deref()
                    .and_then(|g| g.blocks.get(selected? as usize))
                    .and_then(|b| b.calls.iter().filter(|c| c.function.is_some()).max_by_key(|c| c.count))
                    .and_then(|c| c.function)
                    .map(Msg::Open),
                "/" => {
                    if let Some(input) = search.cast::<HtmlInputElement>() {
                        let _ = input.focus();
                    }
                    e.prevent_default();
                    None
                }
                _ => None,
            };
            if let Some(msg) = msg {
                e.prevent_default();
                send.emit(msg);
            }
        })
    };
    let on_minimap = {
        let (send, graph) = (send.clone(), graph.clone());
        let view = state.view;
        Callback::from(move |e: MouseEvent| {
            let (Some(g), Some(camera)) = (graph.as_deref(), camera) else { return };
            let k = MINIMAP_PX / g.width.max(g.height).max(1.0);
            let (x, y) = (f64::from(e.offset_x()) / k, f64::from(e.offset_y()) / k);
            send.emit(Msg::Camera(camera.centred_on(x, y, view)));
        })
    };
    let oninput = {
        let send = send.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                send.emit(Msg::Search(input.value()));
            }
        })
    };
    let onsearchkey = {
        let send = send.clone();
        Callback::from(move |e: KeyboardEvent| {
            e.stop_propagation();
            if e.key() == "Enter" {
                send.emit(Msg::NextMatch);
            }
        })
    };

    let bar = match (&state.graph, &state.error) {
        (_, Some(error)) => html! { <div class="alert" role="alert">{error.clone()}</div> },
        (None, None) => html! { <p class="muted">{"Laying out the graph…"}</p> },
        (Some(g), None) => {
            let name = g.demangled.clone().unwrap_or_else(|| g.name.clone());
            html! {
                <div class="cfg-bar">
                    <button disabled={state.history.is_empty()} onclick={send.reform(|_| Msg::Back)} title="Back (Backspace)">{"←"}</button>
                    <strong class="mono cfg-name" title={g.name.clone()}>{name}</strong>
                    <span class="muted cfg-stats">
                        {format!("{} runs · {} blocks · {} edges · {} layers · {} crossings", g.exec_count, g.blocks.len(), g.edges.len(), g.layers, g.crossings)}
                    </span>
                    <span class="cfg-flow" title="llvm-bolt's profile quality stats: per block, 1 − min(in, out) / max(in, out); weighted by ln(count × instructions); worst over blocks run more than 500 times">
                        {format!("flow gap {} weighted, {} worst · {} flagged", pct(g.flow.weighted_gap), pct(g.flow.worst_gap), g.flow.flagged)}
                        if g.unmatched > 0 { {format!(" · {} branches fit no edge", g.unmatched)} }
                    </span>
                    <input ref={search.clone()} type="search" class="cfg-search" placeholder="Block #, @offset or callee" aria-label="Search blocks"
                        value={state.search.clone()} {oninput} onkeydown={onsearchkey} />
                    if let Some(note) = g.code_note.clone() { <span class="muted cfg-code-note">{note}</span> }
                    if let Some(binary) = g.binary.clone() { <span class="muted cfg-binary">{format!("code from {binary}")}</span> }
                    if !state.search.is_empty() { <span class="muted cfg-matches">{format!("{} found", state.matches.len())}</span> }
                    <button onclick={send.reform(|_| Msg::Fit)} title="Fit (f)">{"Fit"}</button>
                </div>
            }
        }
    };
    let tooltip = match (state.graph.as_deref(), *hovered) {
        (Some(g), Some((b, x, y))) => g.blocks.get(b as usize).map(|b| block_tooltip(b, x, y, state.view.0)),
        _ => None,
    };
    let detail = state
        .graph
        .as_deref()
        .and_then(|g| Some((g, g.blocks.get(state.selected? as usize)?)))
        .map(|(g, b)| block_detail(g, b, &send));
    let (layout_ms, blocks) = state
        .graph
        .as_deref()
        .map_or((String::new(), String::new()), |g| (format!("{:.1}", g.layout_ms), g.blocks.len().to_string()));
    html! {
        <div class="bolt-cfg" data-function={state.function.map(|f| f.to_string())} data-layout-ms={layout_ms} data-blocks={blocks}
            data-selected={state.selected.map(|s| s.to_string())}>
            {bar}
            <div class="cfg-main">
                <div class="cfg-canvas" tabindex="0" {onkeydown} aria-label="Control-flow graph: arrows follow the hottest edges">
                    <canvas ref={canvas} role="img" aria-label="Control-flow graph"
                        {onmousedown} {onmousemove} {onmouseup} {onmouseleave}></canvas>
                    // Always there, in the same place: conditional siblings of the canvases
                    // made Yew hand the minimap's ref the graph's canvas.
                    // Hidden while the whole graph is in view.
                    <canvas ref={minimap} class="cfg-minimap" aria-label="Minimap" onclick={on_minimap}
                        hidden={state.graph.is_none() || state.shows_all()}></canvas>
                    <div class="cfg-tooltip-slot">{tooltip}</div>
                </div>
                if let Some(detail) = detail { {detail} }
            </div>
        </div>
    }
}

/// What the pointer is over: the block's numbers, beside the pointer.
fn block_tooltip(b: &CfgBlock, x: f64, y: f64, width: f64) -> Html {
    let style = tooltip_style(x, y, width);
    let place = b.offset.map(|o| format!(" @{o:#x}")).unwrap_or_default();
    html! {
        <div class="flame-tooltip cfg-tooltip" role="tooltip" {style}>
            <div class="ft-name mono">{format!("#{}{place}", b.index)}</div>
            <table><tbody>
                <tr><td>{"Count"}</td><td class="num">{b.exec_count.to_string()}</td></tr>
                <tr><td>{"In / out"}</td><td class="num">{format!("{} / {}", b.inflow, b.outflow)}</td></tr>
                if let Some(gap) = b.gap {
                    <tr class={classes!(b.flagged.then_some("flagged"))}><td>{"Flow gap"}</td><td class="num">{pct(gap)}</td></tr>
                }
                if !b.calls.is_empty() { <tr><td>{"Calls"}</td><td class="num">{b.calls.len().to_string()}</td></tr> }
            </tbody></table>
            <div class="muted ft-hint">{"click: details · a call's line: open the callee"}</div>
        </div>
    }
}

/// The selected block: its numbers, edges and calls (callees are links).
fn block_detail(g: &CfgGraph, b: &CfgBlock, send: &Callback<Msg>) -> Html {
    let outs = g.edges.iter().filter(|e| e.from == b.index);
    let ins = g.edges.iter().filter(|e| e.to == b.index);
    let count = |c: Option<u64>| c.map_or(String::from("—"), |c| c.to_string());
    let edge_row = |other: u32, e: &pgolens_protocol::CfgEdge| {
        let select = send.reform(move |_| Msg::Select(Some(other)));
        let rate = match e.count {
            Some(c) if c > 0 && e.mispredicted > 0 => {
                format!(" ({:.1}% mispredicted)", e.mispredicted as f64 * 100.0 / c as f64)
            }
            _ => String::new(),
        };
        let mut tags = Vec::new();
        if e.back {
            tags.push("back edge");
        }
        if e.inferred {
            tags.push("inferred");
        }
        html! {
            <li><button class="link" onclick={select}>{format!("#{other}")}</button>
                {format!(" ×{}{rate}", count(e.count))}
                if !tags.is_empty() { <span class="muted">{format!(" · {}", tags.join(", "))}</span> }
            </li>
        }
    };
    html! {
        <aside class="cfg-detail" aria-label="Block details">
            <h3 class="mono">{format!("#{}", b.index)}{b.offset.map(|o| format!(" @{o:#x}")).unwrap_or_default()}</h3>
            <table><tbody>
                <tr><td>{"Count"}</td><td class="num">{b.exec_count.to_string()}</td></tr>
                if let Some(n) = b.instructions { <tr><td>{"Instructions"}</td><td class="num">{n.to_string()}</td></tr> }
                <tr><td>{"In-flow"}</td><td class="num">{b.inflow.to_string()}</td></tr>
                <tr><td>{"Out-flow"}</td><td class="num">{b.outflow.to_string()}</td></tr>
                <tr class={classes!(b.flagged.then_some("flagged"))}><td>{"Flow gap"}</td><td class="num">{b.gap.map_or(String::from("not counted"), pct)}</td></tr>
            </tbody></table>
            if b.entry { <p class="muted">{"Entered from outside the function (entry point or landing pad)."}</p> }
            if let Some(why) = &b.not_counted { <p class="muted">{format!("Flow gap not counted, as llvm-bolt leaves it out: {why}.")}</p> }
            <h4>{"Successors"}</h4>
            <ul class="cfg-edges">{for outs.map(|e| edge_row(e.to, e))}</ul>
            <h4>{"Predecessors"}</h4>
            <ul class="cfg-edges">{for ins.map(|e| edge_row(e.from, e))}</ul>
            if b.code.is_empty() {
                if let Some(note) = g.code_note.clone() { <p class="muted cfg-detail-note">{note}</p> }
            } else {
                <h4>{"Instructions"}</h4>
                <table class="cfg-code mono"><tbody>{for b.code.iter().map(|i| html! {
                    <tr><td class="num">{format!("{:x}", i.offset)}</td><td>{i.text.clone()}</td>
                        <td class="note">{i.note.clone().unwrap_or_default()}</td></tr>
                })}</tbody></table>
            }
            if !b.calls.is_empty() {
                <h4>{"Calls"}</h4>
                <ul class="cfg-calls">{for b.calls.iter().map(|c| {
                    let name = c.demangled.clone().unwrap_or_else(|| c.callee.clone());
                    let text = format!(" ×{}{}", c.count, if c.mispredicted > 0 { format!(", {} mispredicted", c.mispredicted) } else { String::new() });
                    match c.function {
                        Some(row) => html! { <li><button class="link mono" title={c.callee.clone()} onclick={send.reform(move |_| Msg::Open(row))}>{name}</button>{text}</li> },
                        None => html! { <li><span class="mono" title={c.callee.clone()}>{name}</span>{text}</li> },
                    }
                })}</ul>
            }
        </aside>
    }
}
