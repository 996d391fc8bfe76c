//! Geometry of the virtual lists (the dump tree and the hex pane): which rows to draw
//! for a scroll position, and where to scroll to show a row.
//!
//! Coordinate spaces: `row` counts list rows; `px` are CSS pixels of the scroll
//! container. A browser cannot scroll an element taller than a few million pixels,
//! so a long list (a 500 MB file has 33 million hex rows) gets a scroll extent of at
//! most [`MAX_EXTENT_PX`], and the scroll position maps to rows proportionally.

/// The tallest scroll extent we ask the browser for.
pub const MAX_EXTENT_PX: f64 = 4_000_000.0;

/// The rows to draw, and how tall the scrolled content is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// The first row drawn, at the top of the viewport.
    pub first: u64,
    /// How many rows to draw (enough to fill the viewport).
    pub count: u64,
    /// Height of the scrolled content.
    pub extent_px: f64,
}

/// Rows that fit in the viewport (at least one, plus one partly shown).
pub fn rows_in(viewport_px: f64, row_px: f64) -> u64 {
    if row_px <= 0.0 || !viewport_px.is_finite() {
        return 1;
    }
    ((viewport_px / row_px).ceil().max(1.0) as u64).saturating_add(1)
}

/// The window of a list of `total` rows of `row_px`, scrolled to `scroll_px`.
pub fn window(total: u64, row_px: f64, viewport_px: f64, scroll_px: f64) -> Window {
    let visible = rows_in(viewport_px, row_px);
    let natural = total as f64 * row_px;
    let extent_px = natural.min(MAX_EXTENT_PX);
    let last_first = total.saturating_sub(visible.saturating_sub(1));
    let first = if natural <= MAX_EXTENT_PX {
        (scroll_px.max(0.0) / row_px).floor() as u64
    } else {
        let span = (extent_px - viewport_px).max(1.0);
        ((scroll_px.max(0.0) / span).min(1.0) * last_first as f64).round() as u64
    };
    let first = first.min(last_first);
    Window { first, count: visible.min(total.saturating_sub(first)), extent_px }
}

/// The scroll position that puts `row` at the top of the viewport.
pub fn scroll_to_row(row: u64, total: u64, row_px: f64, viewport_px: f64) -> f64 {
    let natural = total as f64 * row_px;
    if natural <= MAX_EXTENT_PX {
        return row as f64 * row_px;
    }
    let visible = rows_in(viewport_px, row_px);
    let last_first = total.saturating_sub(visible.saturating_sub(1)).max(1);
    let span = (natural.min(MAX_EXTENT_PX) - viewport_px).max(1.0);
    (row.min(last_first) as f64 / last_first as f64) * span
}

/// Whether `row` is fully inside the window (leaving the partly shown last row out).
pub fn shows(window: &Window, row: u64) -> bool {
    row >= window.first && row.saturating_add(1) < window.first.saturating_add(window.count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_scroll_by_whole_rows() {
        let w = window(100, 20.0, 200.0, 0.0);
        assert_eq!(w, Window { first: 0, count: 11, extent_px: 2000.0 });
        let w = window(100, 20.0, 200.0, 450.0);
        assert_eq!((w.first, w.count), (22, 11));
        // Scrolled past the end (a shrinking list): the window stays full.
        let w = window(100, 20.0, 200.0, 1e9);
        assert_eq!((w.first, w.count), (90, 10));
        assert_eq!(window(0, 20.0, 200.0, 0.0).count, 0);
        assert_eq!(scroll_to_row(22, 100, 20.0, 200.0), 440.0);
    }

    #[test]
    fn long_lists_map_the_capped_extent_onto_all_rows() {
        let total = 33_000_000;
        let top = window(total, 18.0, 540.0, 0.0);
        assert_eq!(top.first, 0);
        assert_eq!(top.extent_px, MAX_EXTENT_PX);
        let bottom = window(total, 18.0, 540.0, MAX_EXTENT_PX - 540.0);
        assert_eq!(bottom.first + bottom.count, total);
        let row = 12_345_678;
        let back = window(total, 18.0, 540.0, scroll_to_row(row, total, 18.0, 540.0));
        assert!(back.first.abs_diff(row) <= 1, "{back:?}");
        assert!(shows(&back, back.first));
    }
}
