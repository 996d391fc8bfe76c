//! One flame graph on a canvas: painting on every change of data, zoom, search,
//! selection or size; hover tooltip (kept inside the window: it flips above or left
//! of the pointer near the bottom or right edge); click to select a frame,
//! double-click to zoom into it; drag and wheel to pan and zoom; right-click for the
//! frame's sandwich.
//!
//! Each paint writes `data-paints` (a counter), `data-paint-ms`, `data-rects` and
//! `data-inlined` (the rectangles drawn, and those of inlined frames) on the canvas,
//! which the tests and the benchmark read.

use std::rc::Rc;

use pgolens::layout::flame::Visible;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Element, HtmlCanvasElement, HtmlElement, ResizeObserver, WheelEvent};
use yew::prelude::*;

use super::details::percent;
use super::render::{paint, Scene};
use super::{FlameData, Found, FrameLookup, FrameNames, Zoom, ROW_PX};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub data: Rc<FlameData>,
    pub names: Option<Rc<FrameNames>>,
    pub zoom: Zoom,
    pub icicle: bool,
    /// A search's result: its frames are highlighted, the others dimmed.
    #[prop_or_default]
    pub hit: Option<Rc<Found>>,
    #[prop_or_default]
    pub selected: Option<u32>,
    /// The selected function (a frame id): its rectangles are outlined.
    #[prop_or_default]
    pub highlight: Option<u32>,
    /// Where the pointer zooms and pans to; `None` for a fixed graph.
    #[prop_or_default]
    pub on_zoom: Option<Callback<Zoom>>,
    /// A click on a rectangle (its index).
    #[prop_or_default]
    pub on_click: Option<Callback<u32>>,
    /// A double click on a rectangle (its index).
    #[prop_or_default]
    pub on_double_click: Option<Callback<u32>>,
    /// A right click on a rectangle (its frame).
    #[prop_or_default]
    pub on_sandwich: Option<Callback<u32>>,
    pub label: AttrValue,
    /// The frame the pointer is over, for keyboard shortcuts.
    #[prop_or_default]
    pub on_hover: Option<Callback<Option<u32>>>,
}

/// The CSS content box of `node` (width, height), kept current by a ResizeObserver.
#[hook]
pub fn use_size(node: &NodeRef) -> (f64, f64) {
    let size = use_state_eq(|| (0.0f64, 0.0f64));
    {
        let (node, size) = (node.clone(), size.clone());
        use_effect_with((), move |()| {
            let el = node.cast::<Element>();
            let measure = {
                let el = el.clone();
                move || {
                    if let Some(el) = &el {
                        size.set((f64::from(el.client_width()), f64::from(el.client_height())));
                    }
                }
            };
            measure();
            let callback = Closure::<dyn Fn()>::new(measure);
            let observer = ResizeObserver::new(callback.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(el)) = (&observer, &el) {
                o.observe(el);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(callback);
            }
        });
    }
    *size
}

/// Sends the wheel events of `node` to `handler` (when there is one), refreshed
/// when `deps` change. The listener is not passive: a handled wheel must not also
/// scroll the page, which a Yew `onwheel` (passive) cannot prevent.
#[hook]
pub fn use_wheel<D: PartialEq + 'static>(node: &NodeRef, deps: D, handler: Option<Box<dyn Fn(WheelEvent)>>) {
    let node = node.clone();
    use_effect_with(deps, move |_| {
        let target = node.cast::<Element>();
        let listener = handler.map(|handler| {
            Closure::<dyn Fn(WheelEvent)>::new(move |e: WheelEvent| {
                e.prevent_default();
                handler(e);
            })
        });
        if let (Some(t), Some(l)) = (&target, &listener) {
            let options = AddEventListenerOptions::new();
            options.set_passive(false);
            let _ = t.add_event_listener_with_callback_and_add_event_listener_options(
                "wheel",
                l.as_ref().unchecked_ref(),
                &options,
            );
        }
        move || {
            if let (Some(t), Some(l)) = (&target, &listener) {
                let _ = t.remove_event_listener_with_callback("wheel", l.as_ref().unchecked_ref());
            }
        }
    });
}

struct Drag {
    x: f64,
    y: f64,
    zoom: Zoom,
    moved: bool,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

#[function_component]
pub fn FlameCanvas(props: &Props) -> Html {
    let canvas = use_node_ref();
    // The rectangle under the pointer, and the pointer in the canvas and in the window.
    let hover = use_state_eq(|| None::<(u32, f64, f64, (i32, i32))>);
    let tip = use_node_ref();
    let drag = use_mut_ref(|| None::<Drag>);
    let scratch = use_mut_ref(Vec::<Visible>::new);
    let paints = use_mut_ref(|| 0u64);

    let size = use_size(&canvas);

    let scene = |width_px: f64, height_px: f64| Scene {
        data: &props.data,
        names: props.names.as_deref(),
        zoom: props.zoom,
        icicle: props.icicle,
        hit: props.hit.as_deref().map(|f| f.hit.as_slice()),
        selected: props.selected,
        highlight: props.highlight,
        width_px,
        height_px,
    };

    // Paint whenever what is shown changes.
    {
        let canvas = canvas.clone();
        let (data, names, hit) = (props.data.clone(), props.names.clone(), props.hit.clone());
        let (zoom, icicle, selected, highlight) = (props.zoom, props.icicle, props.selected, props.highlight);
        let (scratch, paints) = (scratch.clone(), paints.clone());
        let deps = (
            Rc::as_ptr(&props.data) as usize,
            props.names.as_ref().map(|n| Rc::as_ptr(n) as usize),
            props.hit.as_ref().map(|h| Rc::as_ptr(h) as usize),
            zoom,
            icicle,
            (selected, highlight),
            size,
        );
        use_effect_with(deps, move |&(.., (w, h))| {
            if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                let start = now();
                let scene = Scene {
                    data: &data,
                    names: names.as_deref(),
                    zoom,
                    icicle,
                    hit: hit.as_deref().map(|f| f.hit.as_slice()),
                    selected,
                    highlight,
                    width_px: w,
                    height_px: h,
                };
                let drawn = paint(&el, &scene, &mut scratch.borrow_mut());
                let ms = now() - start;
                let mut n = paints.borrow_mut();
                *n += 1;
                let _ = el.set_attribute("data-paints", &n.to_string());
                let _ = el.set_attribute("data-paint-ms", &format!("{ms:.3}"));
                let _ = el.set_attribute("data-rects", &drawn.rects.to_string());
                let _ = el.set_attribute("data-inlined", &drawn.inlined.to_string());
            }
        });
    }

    // Wheel: zoom around the pointer (pan with shift or a horizontal wheel).
    {
        let on_zoom = props.on_zoom.clone();
        let zoom = props.zoom;
        let (w, _) = size;
        let handler = on_zoom.clone().map(|on_zoom| -> Box<dyn Fn(WheelEvent)> {
            Box::new(move |e: WheelEvent| {
                let spp = (zoom.x1 - zoom.x0) / w.max(1.0);
                let (dx, dy) = (e.delta_x(), e.delta_y());
                let next = if e.shift_key() || dx.abs() > dy.abs() {
                    zoom.panned((if dx.abs() > dy.abs() { dx } else { dy }) * spp, 0.0)
                } else {
                    zoom.scaled((dy * 0.002).exp(), f64::from(e.offset_x()) / w.max(1.0))
                };
                on_zoom.emit(next);
            })
        });
        use_wheel(&canvas, (zoom, w, on_zoom.is_some()), handler);
    }

    let (w, h) = size;
    let onmousedown = {
        let drag = drag.clone();
        let zoom = props.zoom;
        Callback::from(move |e: MouseEvent| {
            if e.button() == 0 {
                *drag.borrow_mut() =
                    Some(Drag { x: f64::from(e.offset_x()), y: f64::from(e.offset_y()), zoom, moved: false });
            }
        })
    };
    let onmousemove = {
        let (drag, hover) = (drag.clone(), hover.clone());
        let on_zoom = props.on_zoom.clone();
        let on_hover = props.on_hover.clone();
        let data = props.data.clone();
        let s = scene(w, h);
        let (zoom, icicle) = (s.zoom, s.icicle);
        Callback::from(move |e: MouseEvent| {
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            if let Some(d) = drag.borrow_mut().as_mut() {
                let (dx, dy) = (x - d.x, y - d.y);
                if dx.abs() + dy.abs() > 3.0 {
                    d.moved = true;
                }
                if d.moved {
                    if let Some(on_zoom) = &on_zoom {
                        let spp = (d.zoom.x1 - d.zoom.x0) / w.max(1.0);
                        let rows = dy / ROW_PX;
                        on_zoom.emit(d.zoom.panned(-dx * spp, if icicle { -rows } else { rows }));
                    }
                    return;
                }
            }
            let s = Scene {
                data: &data,
                names: None,
                zoom,
                icicle,
                hit: None,
                selected: None,
                highlight: None,
                width_px: w,
                height_px: h,
            };
            let rect = s.rect_at(x, y);
            hover.set(rect.map(|r| (r, x, y, (e.client_x(), e.client_y()))));
            if let Some(cb) = &on_hover {
                cb.emit(rect.and_then(|r| data.frame.get(r as usize).copied()));
            }
        })
    };
    let onmouseup = {
        let drag = drag.clone();
        let on_click = props.on_click.clone();
        let hovered = *hover;
        Callback::from(move |_: MouseEvent| {
            let d = drag.borrow_mut().take();
            if let (Some(d), Some(cb), Some((rect, ..))) = (d, &on_click, hovered) {
                if !d.moved {
                    cb.emit(rect);
                }
            }
        })
    };
    let onmouseleave = {
        let (drag, hover) = (drag.clone(), hover.clone());
        let on_hover = props.on_hover.clone();
        Callback::from(move |_: MouseEvent| {
            *drag.borrow_mut() = None;
            hover.set(None);
            if let Some(cb) = &on_hover {
                cb.emit(None);
            }
        })
    };
    let oncontextmenu = {
        let on_sandwich = props.on_sandwich.clone();
        let data = props.data.clone();
        let hovered = *hover;
        Callback::from(move |e: MouseEvent| {
            let frame = hovered.and_then(|(r, ..)| data.frame.get(r as usize).copied()).filter(|&f| f != u32::MAX);
            if let (Some(cb), Some(frame)) = (&on_sandwich, frame) {
                e.prevent_default();
                cb.emit(frame);
            }
        })
    };

    let ondblclick = {
        let on_double_click = props.on_double_click.clone();
        let hovered = *hover;
        Callback::from(move |e: MouseEvent| {
            if let (Some(cb), Some((rect, ..))) = (&on_double_click, hovered) {
                e.prevent_default();
                cb.emit(rect);
            }
        })
    };

    // Keep the tooltip inside the window, once its size is known.
    {
        let tip = tip.clone();
        use_effect_with(*hover, move |hover| {
            if let (Some(el), Some((.., (cx, cy)))) = (tip.cast::<HtmlElement>(), hover) {
                // Measured at the window's corner, where nothing squeezes it.
                let _ = el.set_attribute("style", "left:0px;top:0px");
                let r = el.get_bounding_client_rect();
                let window = web_sys::window();
                let size = |v: Option<JsValue>| v.and_then(|v| v.as_f64()).unwrap_or(f64::MAX);
                let vw = size(window.as_ref().and_then(|w| w.inner_width().ok()));
                let vh = size(window.as_ref().and_then(|w| w.inner_height().ok()));
                let (left, top) = tooltip_place(f64::from(*cx), f64::from(*cy), r.width(), r.height(), vw, vh);
                let _ = el.set_attribute("style", &format!("left:{left:.0}px;top:{top:.0}px"));
            }
        });
    }

    let tooltip = hover.and_then(|(rect, .., (cx, cy))| tooltip(props, rect, cx, cy, &tip));
    html! {
        <div class="flame-canvas">
            <canvas ref={canvas} aria-label={props.label.clone()} role="img"
                data-zoom={format!("{}-{}", props.zoom.x0, props.zoom.x1)}
                {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {oncontextmenu} {ondblclick}></canvas>
            {tooltip.unwrap_or_default()}
        </div>
    }
}

/// A tooltip's place beside the pointer (`x`, `y` in a box `width` wide), on the
/// side with room.
pub fn tooltip_style(x: f64, y: f64, width: f64) -> String {
    if x > width * 0.6 {
        format!("right:{:.0}px;top:{:.0}px", width - x + 12.0, y + 14.0)
    } else {
        format!("left:{:.0}px;top:{:.0}px", x + 12.0, y + 14.0)
    }
}

/// Where a tooltip `w`×`h` goes for the pointer at `x`, `y` (window coordinates) in
/// a window `vw`×`vh`: below and right of it, or above or left where that overflows.
fn tooltip_place(x: f64, y: f64, w: f64, h: f64, vw: f64, vh: f64) -> (f64, f64) {
    const MARGIN: f64 = 4.0;
    let left = if x + 12.0 + w > vw - MARGIN { x - 12.0 - w } else { x + 12.0 };
    let top = if y + 14.0 + h > vh - MARGIN { y - 8.0 - h } else { y + 14.0 };
    (left.min(vw - MARGIN - w).max(MARGIN), top.min(vh - MARGIN - h).max(MARGIN))
}

fn tooltip(props: &Props, rect: u32, cx: i32, cy: i32, tip: &NodeRef) -> Option<Html> {
    let d = &props.data;
    let frame = *d.frame.get(rect as usize)?;
    let total = *d.flame.width.get(rect as usize)?;
    let self_w = d.self_weight(rect);
    let all = d.total();
    let names = props.names.as_deref();
    let name = names.map_or("…", |n| n.name(frame));
    let dso = names.and_then(|n| n.dso(frame));
    let kind = names.map(|n| n.kind(frame)).filter(|k| !k.is_empty() && *k != "user");
    let style = format!("left:{}px;top:{}px", cx.saturating_add(12), cy.saturating_add(14));
    let can_sandwich = props.on_sandwich.is_some() && frame != u32::MAX;
    Some(html! {
        <div class="flame-tooltip" role="tooltip" ref={tip.clone()} {style} data-frame={frame.to_string()}>
            <div class="ft-name mono">{name}</div>
            if let Some(dso) = dso { <div class="muted ft-dso">{dso}</div> }
            if let Some(kind) = kind { <div class="muted ft-kind">{kind}</div> }
            <table><tbody>
                <tr class="ft-total"><td>{"Total"}</td><td class="num">{total.to_string()}</td><td class="num">{percent(total, all)}</td></tr>
                <tr class="ft-self"><td>{"Self"}</td><td class="num">{self_w.to_string()}</td><td class="num">{percent(self_w, all)}</td></tr>
            </tbody></table>
            if can_sandwich { <div class="muted ft-hint">{"click: select · double-click: zoom · right-click or s: callers and callees"}</div> }
        </div>
    })
}
