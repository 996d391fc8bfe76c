//! The stack chart on a canvas: boxes by time (x) and depth (y, callers on top),
//! names where they fit, a time axis from the recording's start, a tooltip, click
//! to select a function (shared with the other stack views), drag to show a time
//! range (the flame graph's range too), Esc or the button to show all of it. The
//! timeline strip above is its minimap: the whole recording, the range shown on it.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use super::ChartData;
use crate::views::flame::flame_canvas::use_size;
use crate::views::flame::render::frame_colour;
use crate::views::flame::timeline::{format_in, tick_step, unit_for, Timeline, TICK_PX};
use crate::views::flame::{FrameLookup, FrameNames, ROW_PX};

const AXIS_PX: f64 = 20.0;
const CHAR_PX: f64 = 6.7;
const FONT: &str = "11px ui-monospace, Menlo, Consolas, \"DejaVu Sans Mono\", monospace";

#[derive(Properties, PartialEq)]
pub struct Props {
    pub chart: Option<Rc<ChartData>>,
    pub names: Option<Rc<FrameNames>>,
    /// The recording's first sample time (the axis counts from it).
    pub origin: u64,
    pub selected_frame: Option<u32>,
    /// The time range shown, if not the whole recording (then Esc shows everything).
    pub range: Option<(u64, u64)>,
    /// The event's samples over the whole recording: the minimap above the chart.
    pub timeline: Option<Rc<pgolens_protocol::Timeline>>,
    /// Samples in the recording (how many bars the minimap draws).
    pub recorded: u64,
    pub on_resize: Callback<u32>,
    pub on_select: Callback<Option<u32>>,
    pub on_range: Callback<Option<(u64, u64)>>,
}

/// `ns` nanoseconds in the unit that suits `span` (as the timeline's axis says it):
/// `12.5 ms`.
fn time_label(ns: u64, span: u64) -> String {
    let unit = unit_for(span as f64);
    format_in(ns as f64, unit, tick_step(span as f64 / unit.ns, 100))
}

/// What to paint besides the chart: the names, the axis' origin, the selected frame.
struct Scene<'a> {
    names: Option<&'a FrameNames>,
    origin: u64,
    selected_frame: Option<u32>,
}

/// The CSS width of the element a mouse event is on (the canvas).
fn width_of(e: &MouseEvent) -> f64 {
    e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map_or(0.0, |el| f64::from(el.client_width()))
}

fn paint(canvas: &HtmlCanvasElement, chart: &ChartData, scene: &Scene, size: (f64, f64)) {
    let names = scene.names;
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (w, h) = ((size.0 * dpr).round() as u32, (size.1 * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, size.0, size.1);
    let px = size.0 / f64::from(chart.columns.max(1));
    ctx.set_font(FONT);
    ctx.set_text_baseline("middle");
    // The axis: round steps of the span's unit, counted from the recording's start
    // (a shown range starts later), at most one label per TICK_PX.
    let unit = unit_for(chart.end.saturating_sub(chart.start).max(1) as f64);
    let span = chart.end.saturating_sub(chart.start).max(1) as f64 / unit.ns;
    let offset = chart.start.saturating_sub(scene.origin) as f64 / unit.ns;
    let step = tick_step(span, ((size.0 / TICK_PX).floor() as usize).max(1));
    ctx.set_fill_style_str("#6b7280");
    let mut at = (offset / step).ceil() * step;
    while at <= offset + span + 1e-9 && size.0 > 0.0 {
        let x = (at - offset) / span * size.0;
        ctx.fill_rect(x.min(size.0 - 1.0), AXIS_PX - 5.0, 1.0, 5.0);
        let label = format_in(at * unit.ns, unit, step);
        let lw = label.chars().count() as f64 * CHAR_PX;
        let _ = ctx.fill_text(&label, (x - lw / 2.0).clamp(0.0, (size.0 - lw).max(0.0)), AXIS_PX / 2.0 - 1.0);
        at += step;
    }
    for b in chart.boxes.chunks_exact(4) {
        let (x, w, y) =
            (f64::from(b[0]) * px, f64::from(b[1].saturating_sub(b[0])) * px, AXIS_PX + f64::from(b[2]) * ROW_PX);
        if y > size.1 {
            continue;
        }
        ctx.set_fill_style_str(frame_colour(names, b[3]));
        ctx.fill_rect(x, y + 0.5, if w > 3.0 { w - 0.5 } else { w }, ROW_PX - 1.0);
        if scene.selected_frame == Some(b[3]) {
            ctx.set_stroke_style_str("#1d1f23");
            ctx.set_line_width(1.5);
            ctx.stroke_rect(x + 0.75, y + 1.25, (w - 1.5).max(1.0), ROW_PX - 2.5);
        }
        let fit = ((w - 6.0) / CHAR_PX).floor();
        if let (Some(n), true) = (names, fit >= 3.0) {
            let name = n.name(b[3]);
            let fit = fit as usize;
            let text: String = if name.chars().count() <= fit {
                name.to_string()
            } else {
                name.chars().take(fit.saturating_sub(1)).chain(['…']).collect()
            };
            ctx.set_fill_style_str("#1d1f23");
            let _ = ctx.fill_text(&text, x + 3.0, y + ROW_PX / 2.0 + 0.5);
        }
    }
}

#[function_component]
pub fn StackChartView(props: &Props) -> Html {
    let canvas = use_node_ref();
    // The body's size, not the canvas': the canvas is placed over the body, so what
    // it draws never feeds back into the layout it is sized by.
    let body = use_node_ref();
    let size = use_size(&body);
    // The box under the pointer, where the pointer is, and the canvas' width then.
    let hover = use_state_eq(|| None::<(usize, f64, f64, f64)>);
    let drag = use_mut_ref(|| None::<f64>);
    {
        let on_resize = props.on_resize.clone();
        use_effect_with(size.0 as u32, move |&w| {
            if w > 0 {
                on_resize.emit(w);
            }
        });
    }
    {
        let (canvas, chart, names, sel) =
            (canvas.clone(), props.chart.clone(), props.names.clone(), props.selected_frame);
        // By pointer, as the flame canvas does: comparing the boxes and names by value
        // on every render (each hover) would cost what the chart holds.
        let ptr = |p: Option<*const ()>| p.map_or(0, |p| p as usize);
        let deps = (
            ptr(chart.as_ref().map(|c| Rc::as_ptr(c).cast())),
            ptr(names.as_ref().map(|n| Rc::as_ptr(n).cast())),
            sel,
            props.origin,
            size.0.to_bits(),
            size.1.to_bits(),
        );
        let origin = props.origin;
        use_effect_with(deps, move |_| {
            if let (Some(c), Some(chart)) = (canvas.cast::<HtmlCanvasElement>(), chart.as_deref()) {
                paint(&c, chart, &Scene { names: names.as_deref(), origin, selected_frame: sel }, size);
            }
        });
    }
    // One canvas whether the chart has come or not: the size hook watches it.
    let chart = props.chart.clone().unwrap_or_default();
    let laid_out = props.chart.is_some();
    let at = {
        let chart = chart.clone();
        move |x: f64, y: f64, width: f64| -> Option<usize> {
            if y < AXIS_PX || width <= 0.0 {
                return None;
            }
            let col = (x / width * f64::from(chart.columns)).floor() as u32;
            chart.box_at(col, ((y - AXIS_PX) / ROW_PX).floor() as u32)
        }
    };
    let onmousemove = {
        let (hover, at) = (hover.clone(), at.clone());
        Callback::from(move |e: MouseEvent| {
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            let width = width_of(&e);
            hover.set(at(x, y, width).map(|i| (i, x, y, width)));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let onmousedown = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| *drag.borrow_mut() = Some(f64::from(e.offset_x())))
    };
    let onmouseup = {
        let (drag, chart, on_range, on_select, at) =
            (drag.clone(), chart.clone(), props.on_range.clone(), props.on_select.clone(), at.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(x0) = drag.borrow_mut().take() else { return };
            let x1 = f64::from(e.offset_x());
            let width = width_of(&e);
            let cols = f64::from(chart.columns) / width.max(1.0);
            if (x1 - x0).abs() >= 4.0 {
                let (a, b) = (x0.min(x1) * cols, x0.max(x1) * cols);
                on_range.emit(Some((chart.time_at(a), chart.time_at(b).max(chart.time_at(a).saturating_add(1)))));
            } else {
                let frame = at(x1, f64::from(e.offset_y()), width).and_then(|i| chart.boxes.get(i * 4 + 3).copied());
                on_select.emit(frame);
            }
        })
    };
    let onkeydown = {
        let (on_range, ranged) = (props.on_range.clone(), props.range.is_some());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && ranged {
                e.prevent_default();
                on_range.emit(None);
            }
        })
    };
    let height = AXIS_PX + f64::from(chart.depth()) * ROW_PX;
    let tooltip = (*hover).and_then(|(i, x, y, width)| {
        let b = chart.boxes.get(i * 4..i * 4 + 4)?;
        let name = props.names.as_deref().map_or(String::new(), |n| n.name(b[3]).to_string());
        let (t0, t1) = (chart.time_at(f64::from(b[0])), chart.time_at(f64::from(b[1])));
        let span = chart.end.saturating_sub(chart.start).max(1);
        let when = format!(
            "{} – {} ({})",
            time_label(t0.saturating_sub(props.origin), span),
            time_label(t1.saturating_sub(props.origin), span),
            time_label(t1.saturating_sub(t0), span)
        );
        let left = if x + 320.0 > width { (x - 320.0).max(0.0) } else { x + 12.0 };
        Some(html! {
            <div class="stack-chart-tip" role="tooltip" style={format!("left:{left:.0}px;top:{:.0}px", y + 12.0)}>
                <div class="sc-name">{name}</div>
                <div class="muted">{when}</div>
            </div>
        })
    });
    let reset = props.on_range.reform(|_: MouseEvent| None);
    html! {
        <div class="stack-chart">
            <div class="stack-chart-bar">
                if laid_out {
                    <span class="muted" data-samples={chart.samples.to_string()}>
                        {format!("{} in {}", crate::views::count(chart.samples, "sample"), time_label(chart.end.saturating_sub(chart.start), chart.end.saturating_sub(chart.start).max(1)))}
                    </span>
                } else {
                    <span class="muted">{"Laying out the stack chart…"}</span>
                }
                if props.range.is_some() { <button type="button" onclick={reset}>{"Show the whole recording"}</button> }
                <span class="muted">{"Drag to show a time range; click a box to select its function."}</span>
            </div>
            if let Some(t) = props.timeline.clone() {
                <Timeline data={t} range={props.range} on_range={props.on_range.clone()} samples={props.recorded} />
            }
            <div class="stack-chart-body" ref={body} style={format!("height:{height:.0}px")}>
                <canvas ref={canvas} class="stack-chart-canvas" tabindex="0" role="img"
                    aria-label={format!("Stack chart: {} boxes over {} columns", chart.boxes.len() / 4, chart.columns)}
                    data-boxes={(chart.boxes.len() / 4).to_string()}
                    {onmousemove} {onmouseleave} {onmousedown} {onmouseup} {onkeydown} />
                {tooltip.unwrap_or_default()}
            </div>
        </div>
    }
}
