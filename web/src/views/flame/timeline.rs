//! The timeline strip above the flame graph: the event's weight per time bucket as
//! bars; dragging selects a time range, which filters the flame graph and the
//! functions table; a click without dragging clears it.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::flame_canvas::use_size;
use yew::prelude::*;

use pgolens_protocol::Timeline as TimelineData;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub data: Rc<TimelineData>,
    pub range: Option<(u64, u64)>,
    pub on_range: Callback<Option<(u64, u64)>>,
}

const HEIGHT_PX: f64 = 44.0;

#[function_component]
pub fn Timeline(props: &Props) -> Html {
    let canvas = use_node_ref();
    // The drag under way: where it started and where the pointer is (CSS px).
    let drag = use_state_eq(|| None::<(i32, i32)>);
    let t = &props.data;
    let span = t.end.saturating_sub(t.start).max(1) as f64;
    let (w, _) = use_size(&canvas);
    let shown: Option<(f64, f64)> = match *drag {
        Some((a, b)) if a != b => Some((f64::from(a.min(b)), f64::from(a.max(b)))),
        _ => props.range.map(|(a, b)| {
            (((a.saturating_sub(t.start)) as f64 / span) * w, ((b.saturating_sub(t.start)) as f64 / span) * w)
        }),
    };
    {
        let canvas = canvas.clone();
        let data = props.data.clone();
        use_effect_with((Rc::as_ptr(&props.data) as usize, w, shown.map(|(a, b)| (a as i64, b as i64))), move |_| {
            let Some(el) = canvas.cast::<HtmlCanvasElement>() else { return };
            let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
            el.set_width((w * dpr).round() as u32);
            el.set_height((HEIGHT_PX * dpr).round() as u32);
            let Some(ctx) =
                el.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
            else {
                return;
            };
            let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
            let max = data.bins.iter().copied().max().unwrap_or(0).max(1) as f64;
            let bar = w / data.bins.len().max(1) as f64;
            ctx.begin_path();
            for (i, &b) in data.bins.iter().enumerate() {
                let h = (b as f64 / max) * (HEIGHT_PX - 4.0);
                ctx.rect(i as f64 * bar, HEIGHT_PX - h, bar.max(1.0), h);
            }
            ctx.set_fill_style_str("#7f9cc9");
            ctx.fill();
            if let Some((a, b)) = shown {
                ctx.set_fill_style_str("rgba(47, 111, 223, 0.22)");
                ctx.fill_rect(a, 0.0, (b - a).max(1.0), HEIGHT_PX);
                ctx.set_fill_style_str("rgba(0, 0, 0, 0.06)");
                ctx.fill_rect(0.0, 0.0, a, HEIGHT_PX);
                ctx.fill_rect(b, 0.0, w - b, HEIGHT_PX);
            }
        });
    }
    let onmousedown = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| drag.set(Some((e.offset_x(), e.offset_x()))))
    };
    let onmousemove = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((a, _)) = *drag {
                drag.set(Some((a, e.offset_x())));
            }
        })
    };
    let onmouseup = {
        let drag = drag.clone();
        let on_range = props.on_range.clone();
        let (start, w) = (t.start, w);
        Callback::from(move |e: MouseEvent| {
            let Some((a, _)) = *drag else { return };
            drag.set(None);
            let b = e.offset_x();
            if (a - b).abs() < 3 {
                on_range.emit(None);
                return;
            }
            let at = |px: i32| start as f64 + (f64::from(px) / w.max(1.0)).clamp(0.0, 1.0) * span;
            on_range.emit(Some((at(a.min(b)).floor() as u64, at(a.max(b)).ceil() as u64)));
        })
    };
    let onmouseleave = {
        let drag = drag.clone();
        Callback::from(move |_: MouseEvent| drag.set(None))
    };
    let label = match props.range {
        Some((a, b)) => format!(
            "Selected {}–{} of {}–{} (drag to change, click to clear)",
            a.saturating_sub(t.start),
            b.saturating_sub(t.start),
            0,
            t.end.saturating_sub(t.start)
        ),
        None => String::from("Samples over time: drag to select a range"),
    };
    html! {
        <div class="timeline">
            <canvas ref={canvas} class="timeline-canvas" aria-label="Samples over time" role="img"
                data-range={props.range.map(|(a, b)| format!("{a}-{b}"))}
                {onmousedown} {onmousemove} {onmouseup} {onmouseleave}></canvas>
            <div class="muted timeline-label">{label}</div>
        </div>
    }
}
