//! The geometry of a table's columns: each column's width (never narrower than
//! its header, the name column taking what the others leave), the widths a user
//! dragged, and names elided in the middle to fit their column.
//!
//! Coordinate space: CSS pixels of the table's rows; text is measured by the page
//! (a canvas 2d context in the table's font) and passed in as pixels.

use pgolens_protocol::{CellKind, Column};

/// Horizontal padding of a row (`.fn-row` in style.css: 8px each side).
pub const ROW_PAD_PX: f64 = 16.0;
/// The gap between two cells (`.fn-row`'s `gap`).
pub const GAP_PX: f64 = 8.0;
/// Room beside a header's title for its sort arrow (" ▾", two characters) and a
/// margin.
pub const HEADER_EXTRA_PX: f64 = 20.0;
/// The narrowest name column: about 20 characters of the table's font.
pub const NAME_MIN_PX: f64 = 160.0;
/// A keyboard step of the resize handle.
pub const KEY_STEP_PX: u32 = 16;
/// The extra column a view adds (a button per row).
pub const EXTRA_KEY: &str = "extra";

/// One grid track of a table: a column, the share beside a count (`<id>-pct`), or
/// the view's extra column.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    /// What the track's width is kept by in [`super::Table::widths`].
    pub key: String,
    pub title: String,
    /// The name column takes the room the others leave.
    pub name: bool,
    /// A text column shares that room when the table has no name column (an
    /// fdata's branch lines: from and to).
    pub text: bool,
    /// The least its values need, in characters of the table's font.
    pub min_chars: f64,
}

/// The tracks of `columns` in the order they are drawn, and the extra column's.
pub fn tracks(columns: &[Column], extra: Option<&str>) -> Vec<Track> {
    let mut out = Vec::new();
    for c in columns {
        let min_chars = match c.kind {
            CellKind::Name => 0.0,
            // `0x` and 16 digits.
            CellKind::Hex => 18.0,
            CellKind::Ppm => 6.0,
            CellKind::Count | CellKind::Text => 8.0,
        };
        out.push(Track {
            key: c.id.clone(),
            title: c.title.clone(),
            name: c.kind == CellKind::Name,
            text: c.kind == CellKind::Text,
            min_chars,
        });
        if c.share {
            // "100.00%"
            out.push(Track {
                key: format!("{}-pct", c.id),
                title: format!("{} %", c.title),
                name: false,
                text: false,
                min_chars: 7.0,
            });
        }
    }
    if let Some(title) = extra {
        out.push(Track {
            key: EXTRA_KEY.to_string(),
            title: title.to_string(),
            name: false,
            text: false,
            // Room for a small button: the stack functions' Sandwich, with its
            // padding and border.
            min_chars: 10.0,
        });
    }
    out
}

/// Each track's width in px. `header_px[i]` is track `i`'s title as drawn,
/// `char_px` a character of the cells' font, `available_px` the table's inner
/// width; `dragged` holds widths a user chose. A column is never narrower than its
/// header, nor (until dragged) than its values; the (first) name column gets what the others leave,
/// at least [`NAME_MIN_PX`] — when that overflows, the table scrolls sideways.
/// Without a name column, the text columns share it.
pub fn widths(
    tracks: &[Track],
    header_px: &[f64],
    char_px: f64,
    available_px: f64,
    dragged: impl Fn(&str) -> Option<u32>,
) -> Vec<f64> {
    let header = |i: usize| (header_px.get(i).copied().unwrap_or(0.0) + HEADER_EXTRA_PX).ceil();
    let least = |i: usize, t: &Track| header(i).max((t.min_chars * char_px).ceil());
    let mut out: Vec<f64> = tracks
        .iter()
        .enumerate()
        .map(|(i, t)| match dragged(&t.key) {
            // A drag narrows a column down to its header, not further.
            Some(px) => f64::from(px).max(header(i)),
            None if t.name => 0.0,
            None => least(i, t),
        })
        .collect();
    let gaps = GAP_PX * tracks.len().saturating_sub(1) as f64 + ROW_PAD_PX;
    let others: f64 = out.iter().sum();
    let rest = (available_px - others - gaps).floor();
    if let Some(i) = tracks.iter().position(|t| t.name && dragged(&t.key).is_none()) {
        if let Some(w) = out.get_mut(i) {
            *w = rest.max(NAME_MIN_PX).max(header(i));
        }
    } else if !tracks.iter().any(|t| t.name) {
        let texts: Vec<usize> =
            (0..tracks.len()).filter(|&i| tracks.get(i).is_some_and(|t| t.text && dragged(&t.key).is_none())).collect();
        let share = (rest / texts.len().max(1) as f64).floor();
        if share > 0.0 {
            for i in texts {
                if let Some(w) = out.get_mut(i) {
                    *w += share;
                }
            }
        }
    }
    out
}

/// The width of a whole row of `widths`.
pub fn row_px(widths: &[f64]) -> f64 {
    widths.iter().sum::<f64>() + GAP_PX * widths.len().saturating_sub(1) as f64 + ROW_PAD_PX
}

/// The characters of a monospace font that fit `px`.
pub fn chars_in(px: f64, char_px: f64) -> usize {
    if char_px <= 0.0 || !px.is_finite() {
        return usize::MAX;
    }
    (px / char_px).floor().max(0.0) as usize
}

/// Where `text` splits to elide in the middle within `budget` characters: its
/// start (cut by the page with an ellipsis where the column ends) and the end kept
/// whole, half the budget, so that `std::vector<int>::push…emplace_back` shows both
/// ends; `None` when it fits. The two parts make the whole name again, as the page
/// keeps it in the cell's text.
pub fn split_middle(text: &str, budget: usize) -> Option<(&str, &str)> {
    let count = text.chars().count();
    if count <= budget {
        return None;
    }
    let tail = budget.saturating_sub(1) / 2;
    let at = text.char_indices().nth(count - tail).map_or(text.len(), |(i, _)| i);
    Some(text.split_at(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(id: &str, title: &str, kind: CellKind, share: bool) -> Column {
        Column { id: id.into(), title: title.into(), kind, descending_first: true, share, sortable: true, help: None }
    }

    #[test]
    fn names_elide_in_the_middle_keeping_both_ends() {
        let name = "std::vector<int, std::allocator<int>>::emplace_back";
        assert_eq!(split_middle(name, 100), None);
        assert_eq!(split_middle(name, name.len()), None);
        // 21 characters: 10 of the start, the ellipsis, the last 10 whole.
        assert_eq!(split_middle(name, 21), Some(("std::vector<int, std::allocator<int>>::em", "place_back")));
        // An even budget: the start gets the odd character.
        assert_eq!(split_middle("abcdefghij", 6), Some(("abcdefgh", "ij")));
        assert_eq!(split_middle("abcdefghij", 1), Some(("abcdefghij", "")));
        assert_eq!(split_middle("abcdefghij", 0), Some(("abcdefghij", "")));
        // Characters, not bytes.
        assert_eq!(split_middle("µµµµµµµµ", 5), Some(("µµµµµµ", "µµ")));
    }

    #[test]
    fn a_budget_counts_whole_characters() {
        assert_eq!(chars_in(160.0, 7.5), 21);
        assert_eq!(chars_in(7.4, 7.5), 0);
        assert_eq!(chars_in(-3.0, 7.5), 0);
        assert_eq!(chars_in(100.0, 0.0), usize::MAX);
    }

    #[test]
    fn columns_fit_their_headers_and_the_name_takes_the_rest() {
        // The instrprof Functions table's columns.
        let columns = [
            column("name", "Function", CellKind::Name, false),
            column("hash", "Hash", CellKind::Hex, false),
            column("counters", "Counters", CellKind::Count, false),
            column("total", "Total", CellKind::Count, true),
        ];
        let t = tracks(&columns, None);
        let keys: Vec<&str> = t.iter().map(|t| t.key.as_str()).collect();
        assert_eq!(keys, ["name", "hash", "counters", "total", "total-pct"]);
        assert_eq!(t[4].title, "Total %");
        // Headers measured at 7.5px a character, bold.
        let header_px: Vec<f64> = t.iter().map(|t| t.title.len() as f64 * 7.5).collect();
        let w = widths(&t, &header_px, 7.5, 800.0, |_| None);
        // Hex needs its 18 digits (135px) more than its header (30 + 20).
        assert_eq!(w[1], 135.0);
        // "Counters" (60px) and its arrow beat 8 digits (60px).
        assert_eq!(w[2], 80.0);
        // 8 digits (60px) beat "Total" (37.5px) and its arrow.
        assert_eq!(w[3], 60.0);
        assert_eq!(w[4], 73.0);
        // The name takes the rest of 800px: the row fills the table exactly.
        assert_eq!(w[0], 800.0 - (135.0 + 80.0 + 60.0 + 73.0) - 4.0 * GAP_PX - ROW_PAD_PX);
        assert_eq!(row_px(&w), 800.0);
        for (i, track) in t.iter().enumerate() {
            assert!(w[i] >= header_px[i], "{} narrower than its header", track.key);
        }
        // A narrow table keeps a readable name column and overflows (it scrolls).
        let narrow = widths(&t, &header_px, 7.5, 300.0, |_| None);
        assert_eq!(narrow[0], NAME_MIN_PX);
        assert!(row_px(&narrow) > 300.0);
    }

    #[test]
    fn without_a_name_column_the_text_columns_share_the_rest() {
        // An fdata's branch lines.
        let columns = [
            column("from", "From", CellKind::Text, false),
            column("to", "To", CellKind::Text, false),
            column("count", "Count", CellKind::Count, true),
        ];
        let t = tracks(&columns, None);
        let header_px: Vec<f64> = t.iter().map(|t| t.title.len() as f64 * 7.5).collect();
        let w = widths(&t, &header_px, 7.5, 800.0, |_| None);
        // Count 60, its share 73 ("Count %" and the arrow): the rest of 800 less
        // the gaps, in halves.
        let rest = 800.0 - 2.0 * 60.0 - 60.0 - 73.0 - 3.0 * GAP_PX - ROW_PAD_PX;
        assert_eq!((w[0], w[1], w[2], w[3]), (60.0 + (rest / 2.0).floor(), 60.0 + (rest / 2.0).floor(), 60.0, 73.0));
        assert!(row_px(&w) <= 800.0 && row_px(&w) >= 799.0);
        // A dragged one keeps its width; the other takes the rest.
        let dragged = widths(&t, &header_px, 7.5, 800.0, |k| (k == "from").then_some(100));
        assert_eq!((dragged[0], dragged[1]), (100.0, 60.0 + rest - 40.0));
        // Too narrow a table: no column below its least width.
        assert_eq!(widths(&t, &header_px, 7.5, 100.0, |_| None)[..2], [60.0, 60.0]);
    }

    #[test]
    fn dragged_widths_are_kept_and_the_name_adapts() {
        let columns =
            [column("name", "Function", CellKind::Name, false), column("self", "Self", CellKind::Count, true)];
        let t = tracks(&columns, Some(""));
        assert_eq!(t.last().map(|t| t.key.as_str()), Some(EXTRA_KEY));
        let header_px = [60.0, 30.0, 52.5, 0.0];
        let free = widths(&t, &header_px, 7.5, 700.0, |_| None);
        let dragged = widths(&t, &header_px, 7.5, 700.0, |k| (k == "self").then_some(200));
        assert_eq!(dragged[1], 200.0);
        assert_eq!(dragged[0], free[0] - (200.0 - free[1]));
        // A dragged name column keeps its width; too narrow a drag stops at the header.
        let name = widths(&t, &header_px, 7.5, 700.0, |k| (k == "name").then_some(5));
        assert_eq!(name[0], 60.0 + HEADER_EXTRA_PX);
        assert_eq!(widths(&t, &header_px, 7.5, 700.0, |k| (k == "self").then_some(40))[1], 30.0 + HEADER_EXTRA_PX);
    }
}
