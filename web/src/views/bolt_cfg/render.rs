//! Paints a laid-out control-flow graph on a canvas, and its minimap: blocks tinted
//! by execution count, edges by count (width and colour, on a log scale), back edges
//! dashed, mispredictions as red dots sized by their rate, flow-conservation flags
//! as orange borders. Only what the camera shows is drawn, batched into one path
//! per colour bucket, so a frame costs a few dozen fills and strokes whatever the
//! graph's size; text only once it is large enough to read.
//!
//! The backing store is in device pixels; drawing is in layout units through the
//! context's transform (camera scale × devicePixelRatio).

use pgolens_protocol::{grouped, CfgGraph, CFG_CHAR_PX, CFG_LINE_PX, CFG_PAD_PX};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::Camera;

/// Colour buckets of the heat scale, cold to hot (the BAT view's picture uses them too).
pub(crate) const HEAT: [&str; 8] =
    ["#c9d3de", "#9fc2da", "#7fb8c8", "#9ccf8a", "#e8d36a", "#f2a65a", "#e9775b", "#d6424b"];
/// Block fills: the same scale, lighter, so that text stays readable.
const FILL: [&str; 8] = ["#f4f6f8", "#e3eef6", "#dcefef", "#e5f3dc", "#fbf4cf", "#fde3c8", "#fbd3c9", "#f7c4c6"];
const NO_COUNT: &str = "#d5d9df";
const FONT: &str = "12px ui-monospace, Menlo, Consolas, \"DejaVu Sans Mono\", monospace";
/// Text is drawn when a line is at least this tall on screen (CSS px).
const TEXT_MIN_PX: f64 = 7.0;

/// What to paint.
pub struct Scene<'a> {
    pub graph: &'a CfgGraph,
    pub camera: Camera,
    pub width_px: f64,
    pub height_px: f64,
    pub selected: Option<u32>,
    pub hovered: Option<u32>,
    pub matches: &'a [u32],
}

/// The bucket of `count` on a log scale up to `max`.
pub fn heat(count: u64, max: u64) -> usize {
    if count == 0 || max == 0 {
        return 0;
    }
    let f = ((count as f64).ln_1p() / (max as f64).ln_1p()).clamp(0.0, 1.0);
    1 + ((f * (HEAT.len() - 1) as f64).round() as usize).min(HEAT.len() - 2)
}

fn context(canvas: &HtmlCanvasElement, width_px: f64, height_px: f64) -> Option<(CanvasRenderingContext2d, f64)> {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (w, h) = ((width_px * dpr).round() as u32, (height_px * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, width_px, height_px);
    Some((ctx, dpr))
}

/// Paints `scene`; returns how many blocks and edges were drawn.
pub fn paint(canvas: &HtmlCanvasElement, scene: &Scene) -> (usize, usize) {
    let Some((ctx, dpr)) = context(canvas, scene.width_px, scene.height_px) else { return (0, 0) };
    let Camera { x: cx, y: cy, scale } = scene.camera;
    let _ = ctx.set_transform(dpr * scale, 0.0, 0.0, dpr * scale, -cx * scale * dpr, -cy * scale * dpr);
    let (x1, y1) = scene.camera.to_layout(scene.width_px, scene.height_px);
    let visible = |x: f64, y: f64, w: f64, h: f64| x + w >= cx && y + h >= cy && x <= x1 && y <= y1;
    let g = scene.graph;
    let block_max = g.blocks.iter().map(|b| b.exec_count).max().unwrap_or(0);
    // One screen pixel in layout units.
    let px = 1.0 / scale;

    // Edges, by bucket: colour and width grow with the count.
    let mut edges_drawn = 0;
    let mut by_bucket: [Vec<usize>; HEAT.len() * 2] = Default::default();
    let mut unknown: Vec<usize> = Vec::new();
    let mut mispredicts: Vec<(f64, f64, f64)> = Vec::new();
    for (i, e) in g.edges.iter().enumerate() {
        let (mut ex0, mut ey0, mut ex1, mut ey1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in e.points.chunks_exact(2) {
            ex0 = ex0.min(p[0]);
            ey0 = ey0.min(p[1]);
            ex1 = ex1.max(p[0]);
            ey1 = ey1.max(p[1]);
        }
        if e.points.len() < 4 || !visible(ex0, ey0, ex1 - ex0, ey1 - ey0) {
            continue;
        }
        edges_drawn += 1;
        match e.count {
            None => unknown.push(i),
            Some(c) => {
                let bucket = heat(c, g.max_count) + if e.back { HEAT.len() } else { 0 };
                by_bucket[bucket].push(i);
                if e.mispredicted > 0 && c > 0 {
                    let mid = e.points.len() / 4 * 2;
                    let rate = (e.mispredicted as f64 / c as f64).min(1.0);
                    mispredicts.push((e.points[mid], e.points[mid + 1], rate));
                }
            }
        }
    }
    let trace = |ctx: &CanvasRenderingContext2d, i: usize| {
        let Some(e) = g.edges.get(i) else { return };
        let mut pts = e.points.chunks_exact(2);
        if let Some(p) = pts.next() {
            ctx.move_to(p[0], p[1]);
        }
        for p in pts {
            ctx.line_to(p[0], p[1]);
        }
    };
    let dashes = |ctx: &CanvasRenderingContext2d, on: bool| {
        let pattern = js_sys::Array::new();
        if on {
            pattern.push(&(6.0 * px).into());
            pattern.push(&(4.0 * px).into());
        }
        let _ = ctx.set_line_dash(&pattern);
    };
    ctx.set_line_join("round");
    if !unknown.is_empty() {
        ctx.begin_path();
        for &i in &unknown {
            trace(&ctx, i);
        }
        ctx.set_stroke_style_str(NO_COUNT);
        ctx.set_line_width(px);
        dashes(&ctx, true);
        ctx.stroke();
    }
    for (bucket, edges) in by_bucket.iter().enumerate() {
        if edges.is_empty() {
            continue;
        }
        let heat_index = bucket % HEAT.len();
        ctx.begin_path();
        for &i in edges {
            trace(&ctx, i);
        }
        ctx.set_stroke_style_str(HEAT[heat_index]);
        ctx.set_line_width((1.0 + heat_index as f64 * 0.75) * px);
        dashes(&ctx, bucket >= HEAT.len());
        ctx.stroke();
    }
    dashes(&ctx, false);
    // Arrowheads, where they are large enough to see.
    if scale > 0.25 {
        ctx.begin_path();
        for e in &g.edges {
            let n = e.points.len();
            if n < 4 {
                continue;
            }
            let (tx, ty, fx, fy) = (e.points[n - 2], e.points[n - 1], e.points[n - 4], e.points[n - 3]);
            if !visible(tx - 6.0, ty - 6.0, 12.0, 12.0) {
                continue;
            }
            let (dx, dy) = (tx - fx, ty - fy);
            let len = (dx * dx + dy * dy).sqrt().max(1e-6);
            let (ux, uy) = (dx / len * 7.0, dy / len * 7.0);
            ctx.move_to(tx, ty);
            ctx.line_to(tx - ux - uy * 0.5, ty - uy + ux * 0.5);
            ctx.line_to(tx - ux + uy * 0.5, ty - uy - ux * 0.5);
            ctx.close_path();
        }
        ctx.set_fill_style_str("#5b6470");
        ctx.fill();
    }
    if !mispredicts.is_empty() {
        ctx.begin_path();
        for &(x, y, rate) in &mispredicts {
            let r = (2.0 + 5.0 * rate.sqrt()) * px.max(0.5);
            ctx.move_to(x + r, y);
            let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
        }
        ctx.set_fill_style_str("#d1242f");
        ctx.fill();
    }

    // Blocks, by fill bucket, then their borders.
    let mut blocks_drawn = 0;
    let mut fills: [Vec<usize>; FILL.len()] = Default::default();
    for (i, b) in g.blocks.iter().enumerate() {
        if visible(b.x, b.y, b.w, b.h) {
            fills[heat(b.exec_count, block_max)].push(i);
            blocks_drawn += 1;
        }
    }
    for (bucket, blocks) in fills.iter().enumerate() {
        if blocks.is_empty() {
            continue;
        }
        ctx.begin_path();
        for &i in blocks {
            let b = &g.blocks[i];
            ctx.rect(b.x, b.y, b.w, b.h);
        }
        ctx.set_fill_style_str(FILL[bucket]);
        ctx.fill();
        ctx.set_stroke_style_str(HEAT[bucket.max(1)]);
        ctx.set_line_width(px);
        ctx.stroke();
    }
    let outline = |ctx: &CanvasRenderingContext2d,
                   which: &mut dyn Iterator<Item = usize>,
                   color: &str,
                   width: f64,
                   dash: bool| {
        ctx.begin_path();
        let mut any = false;
        for i in which {
            if let Some(b) = g.blocks.get(i) {
                if visible(b.x, b.y, b.w, b.h) {
                    ctx.rect(b.x - width / 2.0, b.y - width / 2.0, b.w + width, b.h + width);
                    any = true;
                }
            }
        }
        if any {
            ctx.set_stroke_style_str(color);
            ctx.set_line_width(width);
            dashes(ctx, dash);
            ctx.stroke();
        }
    };
    let entries = &mut g.blocks.iter().enumerate().filter(|(_, b)| b.entry).map(|(i, _)| i);
    outline(&ctx, entries, "#2f8f5b", 2.0 * px, false);
    let flagged = &mut g.blocks.iter().enumerate().filter(|(_, b)| b.flagged).map(|(i, _)| i);
    outline(&ctx, flagged, "#e07b00", 3.0 * px, true);
    outline(&ctx, &mut scene.matches.iter().map(|&m| m as usize), "#d43ac8", 3.0 * px, false);
    outline(&ctx, &mut scene.hovered.into_iter().map(|h| h as usize), "#5b6470", 2.0 * px, false);
    outline(&ctx, &mut scene.selected.into_iter().map(|s| s as usize), "#1f6feb", 3.0 * px, false);
    dashes(&ctx, false);

    if CFG_LINE_PX * scale >= TEXT_MIN_PX {
        ctx.set_font(FONT);
        ctx.set_fill_style_str("#1d1f23");
        ctx.set_text_baseline("middle");
        for b in g.blocks.iter().filter(|b| visible(b.x, b.y, b.w, b.h)) {
            for (row, line) in b.lines.iter().enumerate() {
                let y = b.y + CFG_PAD_PX + (row as f64 + 0.5) * CFG_LINE_PX;
                if y < cy - CFG_LINE_PX || y > y1 + CFG_LINE_PX {
                    continue;
                }
                let _ = ctx.fill_text_with_max_width(line, b.x + CFG_PAD_PX, y, b.w - CFG_PAD_PX);
            }
        }
        // Counts on the hot edges, beside their middle point.
        ctx.set_fill_style_str("#5b6470");
        for e in &g.edges {
            let (Some(c), n) = (e.count, e.points.len()) else { continue };
            if c == 0 || n < 4 {
                continue;
            }
            let mid = n / 4 * 2;
            let (x, y) = (e.points[mid], e.points[mid + 1]);
            if visible(x, y, 1.0, 1.0) {
                let _ = ctx.fill_text(&grouped(c), x + 4.0, y - 6.0);
            }
        }
        let _ = CFG_CHAR_PX;
    }
    (blocks_drawn, edges_drawn)
}

/// Paints the whole graph small, and the camera's view as a rectangle; returns the
/// scale used (minimap px per layout unit).
pub fn paint_minimap(
    canvas: &HtmlCanvasElement,
    graph: &CfgGraph,
    camera: Camera,
    view: (f64, f64),
    size: (f64, f64),
) -> f64 {
    let Some((ctx, dpr)) = context(canvas, size.0, size.1) else { return 1.0 };
    let scale = (size.0 / graph.width.max(1.0)).min(size.1 / graph.height.max(1.0));
    let _ = ctx.set_transform(dpr * scale, 0.0, 0.0, dpr * scale, 0.0, 0.0);
    let block_max = graph.blocks.iter().map(|b| b.exec_count).max().unwrap_or(0);
    let mut fills: [Vec<usize>; HEAT.len()] = Default::default();
    for (i, b) in graph.blocks.iter().enumerate() {
        fills[heat(b.exec_count, block_max)].push(i);
    }
    for (bucket, blocks) in fills.iter().enumerate() {
        if blocks.is_empty() {
            continue;
        }
        ctx.begin_path();
        for &i in blocks {
            let b = &graph.blocks[i];
            ctx.rect(b.x, b.y, b.w.max(2.0 / scale), b.h.max(2.0 / scale));
        }
        ctx.set_fill_style_str(HEAT[bucket]);
        ctx.fill();
    }
    let (x1, y1) = camera.to_layout(view.0, view.1);
    ctx.set_stroke_style_str("#1f6feb");
    ctx.set_line_width(1.5 / scale);
    ctx.stroke_rect(camera.x, camera.y, x1 - camera.x, y1 - camera.y);
    scale
}
