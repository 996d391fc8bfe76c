//! The timeline strip above the flame graph: the event's weight over time as bars
//! (as many as the samples make readable), under a time axis counted from the
//! recording's start in the unit its span calls for (ns, µs, ms, s). Dragging
//! selects a time range, which filters the flame graph and the functions table; a
//! click without dragging clears it. Focused, Left/Right move the range by a bar
//! (Shift: its end only), Home/End to the ends, Esc clears it.
//!
//! The geometry (units, ticks, bars) is plain Rust, tested natively; the component
//! is the browser's.
//!
//! Coordinate spaces: `ns` since the recording's start (the sample clock's unit),
//! `px` CSS pixels of the strip, bars counted from the left.

// The component is browser-only; its geometry is compiled natively for its tests.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

/// Bars for the fewest samples (fewer would not show a shape), and the most (the
/// worker's buckets, [`super::TIMELINE_BINS`]).
pub const MIN_BARS: usize = 20;
/// Samples per bar that make its height mean something.
pub const SAMPLES_PER_BAR: u64 = 8;
/// Room for one axis label, in px.
pub const TICK_PX: f64 = 90.0;
/// A label's character, and its left padding and border (`.timeline-tick`, 10.5px):
/// a label that would not fit before the strip's end is left out, not cut.
const LABEL_CHAR_PX: f64 = 6.5;
const LABEL_PAD_PX: f64 = 4.0;

/// A unit of time: its symbol and its length in ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub symbol: &'static str,
    pub ns: f64,
}

const UNITS: [Unit; 4] = [
    Unit { symbol: "s", ns: 1e9 },
    Unit { symbol: "ms", ns: 1e6 },
    Unit { symbol: "µs", ns: 1e3 },
    Unit { symbol: "ns", ns: 1.0 },
];

/// The largest unit of which `span_ns` holds at least one.
pub fn unit_for(span_ns: f64) -> Unit {
    UNITS.into_iter().find(|u| span_ns >= u.ns).unwrap_or(Unit { symbol: "ns", ns: 1.0 })
}

/// The round step (1, 2 or 5 times a power of ten) that cuts `span` into at most
/// `most` steps.
pub fn tick_step(span: f64, most: usize) -> f64 {
    // Also a NaN span.
    if span.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || most == 0 {
        return 1.0;
    }
    let rough = span / most as f64;
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= rough * (1.0 - 1e-9)).unwrap_or(10.0 * power)
}

/// Decimals that show multiples of `step` exactly.
fn decimals(step: f64) -> usize {
    if step.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return 0;
    }
    (-(step.log10() + 1e-9).floor()).max(0.0) as usize
}

/// `ns` in `unit`, with the decimals multiples of `step` (in the unit) need.
pub fn format_in(ns: f64, unit: Unit, step: f64) -> String {
    format!("{:.*} {}", decimals(step), ns / unit.ns, unit.symbol)
}

/// The axis of a strip `width_px` wide over `span_ns`: each tick's place in px and
/// its label, from 0, every round step, at most one label per [`TICK_PX`], each
/// with room for its label before the strip's end.
pub fn ticks(span_ns: f64, width_px: f64) -> Vec<(f64, String)> {
    let positive = |v: f64| v.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater);
    if !positive(span_ns) || !positive(width_px) {
        return Vec::new();
    }
    let unit = unit_for(span_ns);
    let span = span_ns / unit.ns;
    let step = tick_step(span, ((width_px / TICK_PX).floor() as usize).max(1));
    let count = (span / step + 1e-9).floor() as usize;
    (0..=count)
        .map(|i| {
            let at = i as f64 * step;
            (at / span * width_px, format_in(at * unit.ns, unit, step))
        })
        .filter(|(px, label)| px + label.chars().count() as f64 * LABEL_CHAR_PX + LABEL_PAD_PX <= width_px)
        .collect()
}

/// Bars to draw for `samples` samples: one per [`SAMPLES_PER_BAR`], within
/// [`MIN_BARS`]..=`most`.
pub fn bars_for(samples: u64, most: usize) -> usize {
    let wanted = usize::try_from(samples / SAMPLES_PER_BAR).unwrap_or(usize::MAX);
    wanted.clamp(MIN_BARS.min(most), most)
}

/// `bins` (equal buckets) summed into `bars` equal bars; a bucket across a bar's
/// edge is shared in proportion.
pub fn merge(bins: &[u64], bars: usize) -> Vec<f64> {
    if bars == 0 || bars >= bins.len() {
        return bins.iter().map(|&b| b as f64).collect();
    }
    let per_bar = bins.len() as f64 / bars as f64;
    let mut out = vec![0.0; bars];
    for (i, &b) in bins.iter().enumerate() {
        // Bucket i spans i..i+1 in buckets; bar j spans j*per_bar..(j+1)*per_bar.
        let (from, to) = (i as f64, i as f64 + 1.0);
        let first = (from / per_bar).floor() as usize;
        let last = ((to / per_bar).ceil() as usize).min(bars);
        for (j, bar) in out.iter_mut().enumerate().take(last).skip(first) {
            let (a, z) = (j as f64 * per_bar, (j + 1) as f64 * per_bar);
            let overlap = to.min(z) - from.max(a);
            if overlap > 0.0 {
                *bar += b as f64 * overlap;
            }
        }
    }
    out
}

/// The range moved by a key: `range` (ns since the start) within `0..span`, a bar
/// `bar_ns` wide. Without a range, Right selects the first bar and Left the last.
pub fn keyed_range(key: &str, shift: bool, range: Option<(f64, f64)>, span: f64, bar_ns: f64) -> Option<(f64, f64)> {
    let (a, b) = match range {
        Some(r) => r,
        None => {
            return match key {
                "ArrowRight" | "Home" => Some((0.0, bar_ns.min(span))),
                "ArrowLeft" | "End" => Some(((span - bar_ns).max(0.0), span)),
                _ => None,
            }
        }
    };
    let width = b - a;
    let (a, b) = match (key, shift) {
        ("ArrowRight", false) => (a + bar_ns, b + bar_ns),
        ("ArrowLeft", false) => (a - bar_ns, b - bar_ns),
        ("ArrowRight", true) => (a, b + bar_ns),
        ("ArrowLeft", true) => (a, (b - bar_ns).max(a + bar_ns)),
        ("Home", _) => (0.0, width),
        ("End", _) => (span - width, span),
        _ => return None,
    };
    // A moved range stops at the ends whole.
    let (a, b) = if a < 0.0 {
        (0.0, b - a)
    } else if b > span {
        (a - (b - span), span)
    } else {
        (a, b)
    };
    Some((a.max(0.0), b.min(span)))
}

#[cfg(target_arch = "wasm32")]
pub use component::Timeline;

#[cfg(target_arch = "wasm32")]
mod component {
    use std::rc::Rc;

    use wasm_bindgen::JsCast;
    use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
    use yew::prelude::*;

    use super::super::flame_canvas::use_size;
    use super::{bars_for, format_in, keyed_range, merge, tick_step, ticks, unit_for};
    use pgolens_protocol::Timeline as TimelineData;

    #[derive(Properties, PartialEq)]
    pub struct Props {
        pub data: Rc<TimelineData>,
        pub range: Option<(u64, u64)>,
        pub on_range: Callback<Option<(u64, u64)>>,
        /// Samples in the recording (`StacksInfo::samples`): how many bars are readable.
        /// Unknown (0): one bar per bucket.
        #[prop_or_default]
        pub samples: u64,
    }

    const HEIGHT_PX: f64 = 44.0;

    #[function_component]
    pub fn Timeline(props: &Props) -> Html {
        let canvas = use_node_ref();
        // The drag under way: where it started and where the pointer is (CSS px).
        let drag = use_state_eq(|| None::<(i32, i32)>);
        let t = &props.data;
        let span_ns = t.end.saturating_sub(t.start).max(1) as f64;
        let bars = if props.samples == 0 { t.bins.len() } else { bars_for(props.samples, t.bins.len()) };
        let heights = use_memo((props.data.clone(), bars), |(data, bars)| merge(&data.bins, *bars));
        let bar_count = heights.len().max(1);
        let (w, _) = use_size(&canvas);
        let shown: Option<(f64, f64)> = match *drag {
            Some((a, b)) if a != b => Some((f64::from(a.min(b)), f64::from(a.max(b)))),
            _ => props.range.map(|(a, b)| {
                (((a.saturating_sub(t.start)) as f64 / span_ns) * w, ((b.saturating_sub(t.start)) as f64 / span_ns) * w)
            }),
        };
        {
            let canvas = canvas.clone();
            let heights = heights.clone();
            use_effect_with((Rc::as_ptr(&heights) as usize, w, shown.map(|(a, b)| (a as i64, b as i64))), move |_| {
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
                let max = heights.iter().copied().fold(0.0, f64::max).max(1.0);
                let bar = w / heights.len().max(1) as f64;
                // A gap between bars once they are wide enough to show one.
                let gap = if bar >= 4.0 { 1.0 } else { 0.0 };
                ctx.begin_path();
                for (i, &b) in heights.iter().enumerate() {
                    let h = (b / max) * (HEIGHT_PX - 4.0);
                    ctx.rect(i as f64 * bar, HEIGHT_PX - h, (bar - gap).max(1.0), h);
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
                let at = |px: i32| start as f64 + (f64::from(px) / w.max(1.0)).clamp(0.0, 1.0) * span_ns;
                on_range.emit(Some((at(a.min(b)).floor() as u64, at(a.max(b)).ceil() as u64)));
            })
        };
        let onmouseleave = {
            let drag = drag.clone();
            Callback::from(move |_: MouseEvent| drag.set(None))
        };
        let onkeydown = {
            let (on_range, range, start) = (props.on_range.clone(), props.range, t.start);
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    // Esc clears a range; without one it is the flame graph's (reset zoom).
                    if range.is_some() {
                        e.prevent_default();
                        e.stop_propagation();
                        on_range.emit(None);
                    }
                    return;
                }
                let since = range.map(|(a, b)| (a.saturating_sub(start) as f64, b.saturating_sub(start) as f64));
                let bar_ns = span_ns / bar_count as f64;
                let Some((a, b)) = keyed_range(&e.key(), e.shift_key(), since, span_ns, bar_ns) else { return };
                e.prevent_default();
                e.stop_propagation();
                on_range.emit(Some((start + a.floor() as u64, start + b.ceil() as u64)));
            })
        };
        let unit = unit_for(span_ns);
        // The range to a tenth of the step that cuts the whole span in ten.
        let step = tick_step(span_ns / unit.ns, 10) / 100.0;
        let at = |ns: u64| format_in(ns.saturating_sub(t.start) as f64, unit, step);
        let whole = format!("{}–{}", format_in(0.0, unit, step), at(t.end));
        let label = match props.range {
            Some((a, b)) => format!(
                "Selected {}–{} ({}) of {whole}",
                at(a),
                at(b),
                format_in(b.saturating_sub(a) as f64, unit, step)
            ),
            None => format!("{whole}: drag or use the arrow keys to select a range"),
        };
        let axis = ticks(span_ns, w).into_iter().map(|(px, text)| {
            html! { <span class="timeline-tick" style={format!("left:{px:.1}px")}>{text}</span> }
        });
        html! {
            <div class="timeline">
                <div class="timeline-strip" tabindex="0" role="group"
                    aria-label={format!("Samples over time, {whole}: Left and Right move the selected range, Shift+Left and Shift+Right change its end, Esc clears it")}
                    aria-describedby="timeline-label" {onkeydown}>
                    <canvas ref={canvas} class="timeline-canvas" aria-hidden="true"
                        data-range={props.range.map(|(a, b)| format!("{a}-{b}"))} data-bars={heights.len().to_string()}
                        {onmousedown} {onmousemove} {onmouseup} {onmouseleave}></canvas>
                    <div class="timeline-axis" aria-hidden="true">{ for axis }</div>
                </div>
                <div class="muted timeline-label" id="timeline-label" aria-live="polite">{label}</div>
            </div>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_is_the_largest_the_span_holds() {
        assert_eq!(unit_for(2.5e9).symbol, "s");
        assert_eq!(unit_for(1e9).symbol, "s");
        assert_eq!(unit_for(999_999_999.0).symbol, "ms");
        assert_eq!(unit_for(120_000.0).symbol, "µs");
        assert_eq!(unit_for(300.0).symbol, "ns");
        assert_eq!(unit_for(0.0).symbol, "ns");
    }

    #[test]
    fn ticks_fall_on_round_steps_from_the_start() {
        assert_eq!(tick_step(10.0, 10), 1.0);
        assert_eq!(tick_step(10.0, 4), 5.0);
        assert_eq!(tick_step(730.0, 8), 100.0);
        assert_eq!(tick_step(2.3, 10), 0.5);
        assert!((tick_step(0.012, 6) - 0.002).abs() < 1e-12);
        // 2.3 s over 900 px: ten labels at most, every 0.5 s.
        let t = ticks(2.3e9, 900.0);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s"]);
        assert_eq!(t[0].0, 0.0);
        assert!((t[2].0 - 900.0 / 2.3).abs() < 1e-9);
        // 48 ms over 400 px: four labels at most, every 20 ms.
        let labels: Vec<String> = ticks(48e6, 400.0).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["0 ms", "20 ms", "40 ms"]);
        assert!(ticks(0.0, 400.0).is_empty());
        // 142 s over 1007 px: every 20 s, but 140 s (at 993 px) has no room for its
        // label before the end.
        let labels: Vec<String> = ticks(142e9, 1007.0).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels.last().map(String::as_str), Some("120 s"));
        assert_eq!(labels.len(), 7);
        assert_eq!(format_in(1_234_567.0, unit_for(5e6), 0.01), "1.23 ms");
    }

    #[test]
    fn bars_follow_the_sample_count() {
        assert_eq!(bars_for(1_000, 400), 125);
        assert_eq!(bars_for(40, 400), 20);
        assert_eq!(bars_for(1_000_000, 400), 400);
        // Fewer buckets than the least bars: each bucket a bar.
        assert_eq!(bars_for(40, 10), 10);
    }

    #[test]
    fn buckets_merge_into_bars_in_proportion() {
        // 400 buckets into 100 bars: four each.
        let bins: Vec<u64> = (0..400).map(|i| i % 4).collect();
        let bars = merge(&bins, 100);
        assert_eq!(bars.len(), 100);
        assert!(bars.iter().all(|&b| b == 6.0));
        // 400 into 125: 3.2 buckets a bar; nothing is lost.
        let ones = vec![1u64; 400];
        let bars = merge(&ones, 125);
        assert_eq!(bars.len(), 125);
        assert!(bars.iter().all(|b| (b - 3.2).abs() < 1e-9), "{bars:?}");
        // 3 buckets into 2 bars: the middle bucket is shared.
        assert_eq!(merge(&[2, 4, 6], 2), [4.0, 8.0]);
        assert_eq!(merge(&[1, 2], 5), [1.0, 2.0]);
    }

    #[test]
    fn keys_move_and_clear_the_range_within_the_recording() {
        let bar = 10.0;
        assert_eq!(keyed_range("ArrowRight", false, None, 100.0, bar), Some((0.0, 10.0)));
        assert_eq!(keyed_range("ArrowLeft", false, None, 100.0, bar), Some((90.0, 100.0)));
        assert_eq!(keyed_range("ArrowRight", false, Some((20.0, 40.0)), 100.0, bar), Some((30.0, 50.0)));
        assert_eq!(keyed_range("ArrowRight", true, Some((20.0, 40.0)), 100.0, bar), Some((20.0, 50.0)));
        assert_eq!(keyed_range("ArrowLeft", true, Some((20.0, 30.0)), 100.0, bar), Some((20.0, 30.0)));
        // At an end the range stays whole.
        assert_eq!(keyed_range("ArrowRight", false, Some((85.0, 100.0)), 100.0, bar), Some((85.0, 100.0)));
        assert_eq!(keyed_range("ArrowLeft", false, Some((5.0, 25.0)), 100.0, bar), Some((0.0, 20.0)));
        assert_eq!(keyed_range("End", false, Some((5.0, 25.0)), 100.0, bar), Some((80.0, 100.0)));
        assert_eq!(keyed_range("x", false, Some((5.0, 25.0)), 100.0, bar), None);
    }
}
