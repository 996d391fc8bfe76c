//! Paints a flame graph (or icicle) on a canvas: only the rectangles the viewport
//! shows ([`Flame::visible`]), batched into one path per colour, labels where they fit.
//!
//! The canvas's backing store is sized in device pixels (`devicePixelRatio`), and
//! everything is drawn in CSS pixels through the context's transform.

use pgolens::layout::flame::{Viewport, Visible, MERGED};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::{FlameData, FrameLookup, FrameNames, Zoom, ROW_PX};

/// Rectangles narrower than this (CSS px) are drawn merged.
pub const MIN_PX: f64 = 1.0;
/// Width of a label character at the font below (monospace 11px).
const CHAR_PX: f64 = 6.7;
const FONT: &str = "11px ui-monospace, Menlo, Consolas, \"DejaVu Sans Mono\", monospace";

/// Warm colours for user code, blues for the kernel, greens for inlined frames
/// (code of the function below them), then: merged runs, search hits, frames that
/// do not match a search.
const PALETTE: [&str; 19] = [
    "#f2a65a", "#eb8a5e", "#f3c26b", "#e9775b", "#f0b37e", "#e5965f", "#f5d07a", "#ee9f6f", // user
    "#7fb3e6", "#8fc0ec", "#6fa3dc", "#9dc7ee", // kernel
    "#8fd19e", "#a3dba0", "#7cc7a0", "#b5e0a8", // inlined
    "#b8bcc4", // merged
    "#d43ac8", // hit
    "#dde0e5", // dimmed
];
const KERNEL: usize = 8;
const INLINED: usize = 12;
const MERGED_COLOR: usize = 16;
const HIT: usize = 17;
const DIMMED: usize = 18;

/// What one paint drew: rectangles (merged runs included), and how many of them
/// are inlined frames.
#[derive(Clone, Copy, Debug, Default)]
pub struct Painted {
    pub rects: usize,
    pub inlined: usize,
}

/// What to paint.
pub struct Scene<'a> {
    pub data: &'a FlameData,
    pub names: Option<&'a FrameNames>,
    pub zoom: Zoom,
    /// Root at the top (icicle) rather than at the bottom.
    pub icicle: bool,
    /// Frames a search matched, by frame id, when a search is active.
    pub hit: Option<&'a [bool]>,
    pub selected: Option<u32>,
    /// The selected function: every rectangle of it is outlined.
    pub highlight: Option<u32>,
    pub width_px: f64,
    pub height_px: f64,
}

impl Scene<'_> {
    pub fn viewport(&self) -> Viewport {
        let first = self.zoom.top.floor().max(0.0);
        let rows = (self.height_px / ROW_PX).ceil() + 1.0;
        Viewport {
            x0: self.zoom.x0,
            x1: self.zoom.x1,
            width_px: self.width_px,
            depths: first as u32..(first + rows) as u32,
            min_px: MIN_PX,
        }
    }

    /// The top of row `depth`, in CSS px.
    pub fn row_y(&self, depth: u32) -> f64 {
        let d = f64::from(depth) - self.zoom.top;
        if self.icicle {
            d * ROW_PX
        } else {
            self.height_px - (d + 1.0) * ROW_PX
        }
    }

    /// The row under `y` (CSS px).
    pub fn depth_at(&self, y: f64) -> Option<u32> {
        let d = if self.icicle { y / ROW_PX } else { (self.height_px - y) / ROW_PX } + self.zoom.top;
        (d >= 0.0).then_some(d.floor() as u32)
    }

    /// The rectangle under a point (CSS px).
    pub fn rect_at(&self, x: f64, y: f64) -> Option<u32> {
        let depth = self.depth_at(y)?;
        self.data.flame.at(self.viewport().samples_from_px(x), depth)
    }

    fn color(&self, v: &Visible) -> usize {
        if v.rect == MERGED {
            return MERGED_COLOR;
        }
        let frame = self.data.frame.get(v.rect as usize).copied().unwrap_or(u32::MAX);
        if let Some(hit) = self.hit {
            return if hit.get(frame as usize).copied().unwrap_or(false) { HIT } else { DIMMED };
        }
        palette_index(self.names, frame)
    }
}

/// A frame's colour in [`PALETTE`]: warm for user code, blue for the kernel, green
/// for inlined frames, picked by a hash of its name (FNV-1a), so a function keeps
/// its colour across views and files.
fn palette_index(names: Option<&FrameNames>, frame: u32) -> usize {
    let (name, kind) = match names {
        Some(n) => (n.name(frame), n.kind(frame)),
        None => ("", ""),
    };
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    match kind {
        "kernel" => KERNEL + (h % 4) as usize,
        "inlined" => INLINED + (h % 4) as usize,
        _ => (h % 8) as usize,
    }
}

/// A frame's fill colour, as the flame graph paints it (other stack charts use it too).
pub fn frame_colour(names: Option<&FrameNames>, frame: u32) -> &'static str {
    PALETTE.get(palette_index(names, frame)).copied().unwrap_or("#b8bcc4")
}

/// Paints `scene`; `scratch` is reused between frames. Says what was drawn.
pub fn paint(canvas: &HtmlCanvasElement, scene: &Scene, scratch: &mut Vec<Visible>) -> Painted {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (w, h) = ((scene.width_px * dpr).round() as u32, (scene.height_px * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return Painted::default();
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, scene.width_px, scene.height_px);
    scratch.clear();
    scene.data.flame.visible(&scene.viewport(), scratch);

    // One path per colour.
    let mut buckets: [Vec<(f64, f64, f64)>; PALETTE.len()] = Default::default();
    let inlined = scene.names.map_or(0, |names| {
        let frame = |v: &&Visible| scene.data.frame.get(v.rect as usize).copied().unwrap_or(u32::MAX);
        scratch.iter().filter(|v| v.rect != MERGED && names.kind(frame(v)) == "inlined").count()
    });
    for v in scratch.iter() {
        let x = v.px0.max(-1.0);
        let right = v.px1.min(scene.width_px + 1.0);
        let y = scene.row_y(v.depth);
        if right <= x || y <= -ROW_PX || y >= scene.height_px {
            continue;
        }
        buckets[scene.color(v)].push((x, right - x, y));
    }
    for (color, rects) in PALETTE.iter().zip(&buckets) {
        if rects.is_empty() {
            continue;
        }
        ctx.begin_path();
        for &(x, w, y) in rects {
            // A hairline gap between neighbours once they are wide enough to show it.
            let w = if w > 3.0 { w - 0.5 } else { w };
            ctx.rect(x, y + 0.5, w, ROW_PX - 1.0);
        }
        ctx.set_fill_style_str(color);
        ctx.fill();
    }

    let outline = |v: &Visible| {
        ctx.rect(
            v.px0.max(0.0) + 0.75,
            scene.row_y(v.depth) + 1.25,
            (v.px1.min(scene.width_px) - v.px0.max(0.0) - 1.5).max(1.0),
            ROW_PX - 2.5,
        );
    };
    if let Some(frame) = scene.highlight {
        ctx.begin_path();
        for v in scratch.iter().filter(|v| v.rect != MERGED && scene.data.frame_of(v.rect) == Some(frame)) {
            outline(v);
        }
        ctx.set_stroke_style_str("#1f6feb");
        ctx.set_line_width(1.5);
        ctx.stroke();
    }
    if let Some(v) = scene.selected.and_then(|sel| scratch.iter().find(|v| v.rect == sel)) {
        ctx.begin_path();
        outline(v);
        ctx.set_stroke_style_str("#1d1f23");
        ctx.set_line_width(2.0);
        ctx.stroke();
    }

    ctx.set_font(FONT);
    ctx.set_fill_style_str("#1d1f23");
    ctx.set_text_baseline("middle");
    if let Some(names) = scene.names {
        for v in scratch.iter().filter(|v| v.rect != MERGED) {
            let x = v.px0.max(0.0);
            let w = v.px1.min(scene.width_px) - x;
            let fit = ((w - 6.0) / CHAR_PX).floor();
            if fit < 3.0 {
                continue;
            }
            let frame = scene.data.frame.get(v.rect as usize).copied().unwrap_or(u32::MAX);
            let name = names.name(frame);
            let fit = fit as usize;
            let y = scene.row_y(v.depth) + ROW_PX / 2.0 + 0.5;
            if name.chars().count() <= fit {
                let _ = ctx.fill_text(name, x + 3.0, y);
            } else {
                let cut: String = name.chars().take(fit.saturating_sub(1)).chain(['…']).collect();
                let _ = ctx.fill_text(&cut, x + 3.0, y);
            }
        }
    }
    Painted { rects: scratch.len(), inlined }
}
