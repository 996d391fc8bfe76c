//! The one table component: draws any [`Table`] from the columns the worker
//! described (sortable headers, a virtual list that asks for the visible rows only,
//! cells by kind), with an optional filter box and an optional extra column a view
//! adds (a button per row).
//!
//! Columns are sized by [`super::columns`] from the header texts as the page draws
//! them and the table's width; a header's edge drags (or its handle takes Left and
//! Right) to resize. Names too long for their column elide in the middle, the full
//! name on hover. Keys follow the WAI-ARIA grid pattern for rows (APG "Data Grid"):
//! the active row alone is in the Tab sequence; Up, Down, PageUp, PageDown, Home and
//! End move it, Enter opens it.

use std::rc::Rc;

use pgolens_protocol::{Cell, CellKind, Row};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement};
use yew::prelude::*;

use super::columns::{self, Track, KEY_STEP_PX};
use super::{Msg, Table};
use crate::components::scroll::{scroll_to, use_paged_rows};
use crate::layout;
use crate::views::flame::flame_canvas::use_size;

/// Height of one table row; `.fn-row` in style.css has the same.
const ROW_PX: f64 = 22.0;
/// What measures a character of the cells' font (monospace): its width is this
/// many characters'.
const MEASURE: &str = "0000000000";

/// A view's extra last column: its header and a cell per row (by row id).
#[derive(Clone, PartialEq)]
pub struct Extra {
    pub title: AttrValue,
    pub cell: Callback<u32, Html>,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub table: Table,
    pub on_msg: Callback<Msg>,
    /// The table's accessible name.
    pub label: AttrValue,
    /// The line beside the filter (counts).
    pub count: AttrValue,
    /// Show a name filter.
    #[prop_or(true)]
    pub filter: bool,
    #[prop_or_default]
    pub extra: Option<Extra>,
}

/// The text as the page draws it: a character of the cells, and each header's title.
#[derive(Clone, Debug, PartialEq)]
struct Metrics {
    char_px: f64,
    header_px: Vec<f64>,
}

/// Measures the drawn header titles (`.fn-column-title`, inline: their boxes are their
/// text) and the character probe of `table`.
fn measure(table: &Element) -> Option<Metrics> {
    let probe = table.query_selector(".fn-measure").ok()??;
    let char_px = probe.get_bounding_client_rect().width() / MEASURE.len() as f64;
    let titles = table.query_selector_all(".fn-head .fn-column-title").ok()?;
    let header_px = (0..titles.length())
        .filter_map(|i| titles.item(i)?.dyn_into::<Element>().ok())
        .map(|e| e.get_bounding_client_rect().width());
    Some(Metrics { char_px, header_px: header_px.collect() }).filter(|m| m.char_px > 0.0)
}

/// The drag of a column's edge under way: the track, where the pointer started and
/// the width then.
#[derive(Clone, Debug)]
struct Drag {
    track: String,
    from_x: i32,
    from_px: f64,
}

#[function_component]
pub fn TableView(props: &Props) -> Html {
    let t = &props.table;
    let on = &props.on_msg;
    let need = on.reform(|(start, end)| Msg::NeedRows { start, end });
    let (scroll, window) = use_paged_rows(t.matching, ROW_PX, t.query.clone(), need);
    let matching = t.matching.unwrap_or(0);
    let root = use_node_ref();
    let head = use_node_ref();
    let (body_px, _) = use_size(&scroll.node);
    let metrics = use_state_eq(|| None::<Metrics>);
    // The active row (an index among the matching rows) and whether a key moved it.
    let cursor = use_state_eq(|| None::<u64>);
    let keyed = use_mut_ref(|| false);
    let drag = use_mut_ref(|| None::<Drag>);

    let tracks = columns::tracks(&t.columns, props.extra.as_ref().map(|x| x.title.as_str()));
    let titles: Vec<String> = tracks.iter().map(|t| t.title.clone()).collect();
    {
        let (root, metrics) = (root.clone(), metrics.clone());
        use_effect_with(titles, move |_| {
            if let Some(m) = root.cast::<Element>().and_then(|r| measure(&r)) {
                metrics.set(Some(m));
            }
        });
    }
    // Until measured: a guess for the monospace font of style.css (12.5px).
    let (char_px, header_px) = match &*metrics {
        Some(m) => (m.char_px, m.header_px.clone()),
        None => (7.6, tracks.iter().map(|t| t.title.chars().count() as f64 * 7.6).collect()),
    };
    let widths = columns::widths(&tracks, &header_px, char_px, body_px, |k| t.widths.get(k).copied());
    let row_width = columns::row_px(&widths);
    let template = format!(
        "grid-template-columns: {}; column-gap: {}px; width: {row_width}px",
        widths.iter().map(|w| format!("{w}px")).collect::<Vec<_>>().join(" "),
        columns::GAP_PX
    );
    let name_chars = tracks.iter().zip(&widths).find(|(t, _)| t.name).map(|(_, w)| columns::chars_in(*w, char_px));

    {
        let cursor = cursor.clone();
        use_effect_with(t.query.clone(), move |_| cursor.set(None));
    }
    // A key moved the active row: it takes the focus once drawn.
    {
        let (node, keyed) = (scroll.node.clone(), keyed.clone());
        use_effect_with((*cursor, window.first, t.start, t.rows.len()), move |(at, ..)| {
            if !*keyed.borrow() {
                return;
            }
            let Some(at) = at else { return };
            let row = node
                .cast::<Element>()
                .and_then(|b| b.query_selector(&format!("[data-index=\"{at}\"]")).ok().flatten())
                .and_then(|r| r.dyn_into::<HtmlElement>().ok());
            if let Some(row) = row {
                let _ = row.focus();
                *keyed.borrow_mut() = false;
            }
        });
    }

    // A focused row scrolled out of the drawn window leaves the page, and the focus
    // with it: the rows' tab stop takes it back.
    let focused_row = use_mut_ref(|| None::<Element>);
    {
        let (node, focused_row) = (scroll.node.clone(), focused_row.clone());
        use_effect(move || {
            let gone = focused_row.borrow().as_ref().is_some_and(|r| !r.is_connected());
            let document = web_sys::window().and_then(|w| w.document());
            let lost = document
                .is_some_and(|d| d.active_element().is_none() || d.active_element() == d.body().map(Into::into));
            if gone && lost {
                let stop = node
                    .cast::<Element>()
                    .and_then(|b| b.query_selector("[data-index][tabindex=\"0\"]").ok().flatten());
                if let Some(row) = stop.and_then(|r| r.dyn_into::<HtmlElement>().ok()) {
                    let _ = row.focus();
                }
            }
        });
    }
    let onfocusin = {
        let focused_row = focused_row.clone();
        Callback::from(move |e: FocusEvent| {
            *focused_row.borrow_mut() = e.target_dyn_into::<Element>().filter(|el| el.has_attribute("data-index"));
        })
    };

    let onkeydown = {
        let (cursor, keyed, node, on) = (cursor.clone(), keyed.clone(), scroll.node.clone(), on.clone());
        let (height, first, count) = (scroll.height, window.first, window.count);
        let rows = (t.start, t.rows.clone());
        Callback::from(move |e: KeyboardEvent| {
            // Keys on a row, not on a control inside one (a view's button).
            let on_row = e.target_dyn_into::<Element>().is_some_and(|el| el.has_attribute("data-index"));
            if matching == 0 || !on_row {
                return;
            }
            let page = ((height / ROW_PX).floor() as u64).saturating_sub(1).max(1);
            let at = cursor.unwrap_or(first);
            let last = matching - 1;
            let next = match e.key().as_str() {
                "ArrowDown" => at.saturating_add(1).min(last),
                "ArrowUp" => at.saturating_sub(1),
                "PageDown" => at.saturating_add(page).min(last),
                "PageUp" => at.saturating_sub(page),
                "Home" => 0,
                "End" => last,
                "Enter" | " " => {
                    let (start, held) = &rows;
                    let id = at.checked_sub(*start).and_then(|i| held.get(usize::try_from(i).ok()?)).map(|r| r.id);
                    if let Some(id) = id {
                        e.prevent_default();
                        on.emit(Msg::Select(id));
                    }
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            *keyed.borrow_mut() = true;
            cursor.set(Some(next));
            let shown = layout::Window { first, count, extent_px: 0.0 };
            if !layout::shows(&shown, next) {
                let visible = (height / ROW_PX).floor().max(1.0) as u64;
                let top = if next < first { next } else { next.saturating_add(1).saturating_sub(visible) };
                scroll_to(&node, layout::scroll_to_row(top, matching, ROW_PX, height));
            }
        })
    };
    // The header follows the body's sideways scroll.
    let onscroll = {
        let (measure, head, body) = (scroll.onscroll.clone(), head.clone(), scroll.node.clone());
        Callback::from(move |e: Event| {
            if let (Some(h), Some(b)) = (head.cast::<Element>(), body.cast::<Element>()) {
                h.set_scroll_left(b.scroll_left());
            }
            measure.emit(e);
        })
    };

    let headers = tracks.iter().zip(&widths).map(|(track, &px)| header(track, px, t, on, &drag));
    let first = window.first;
    let drawn = first..first.saturating_add(window.count);
    // The rows' one tab stop: the active row, or the first drawn when it is scrolled away.
    let active = cursor.filter(|c| drawn.contains(c)).unwrap_or(first);
    let rows = drawn.map(|i| {
        let focus = if i == active { "0" } else { "-1" };
        match t.row(i) {
            Some(row) => {
                let select = {
                    let (cursor, on) = (cursor.clone(), on.clone());
                    let id = row.id;
                    Callback::from(move |_: MouseEvent| {
                        cursor.set(Some(i));
                        on.emit(Msg::Select(id));
                    })
                };
                row_html(row, i, focus, t, &template, name_chars, props.extra.as_ref(), select)
            }
            None => html! {
                <div key={format!("pending-{i}")} role="row" class="fn-row pending" style={template.clone()}
                    data-index={i.to_string()} tabindex={focus}>
                    <div role="gridcell" class="fn-cell fn-name">{"…"}</div>
                </div>
            },
        }
    });
    let oninput = on.reform(|e: InputEvent| {
        Msg::Filter(e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
    });
    html! {
        <div class="fn-main" ref={root}>
            <div class="fn-toolbar">
                if props.filter {
                    <input type="search" class="fn-filter" placeholder="Filter by name" aria-label="Filter functions"
                        value={t.query.filter.clone()} {oninput} />
                }
                <span class="muted fn-count" aria-live="polite">{props.count.clone()}</span>
            </div>
            <div class="fn-table" role="grid" aria-label={props.label.clone()} aria-rowcount={matching.to_string()}
                aria-colcount={tracks.len().to_string()} aria-readonly="true">
                <span class="fn-measure" aria-hidden="true">{MEASURE}</span>
                <div role="rowgroup" class="fn-head" ref={head}>
                    <div role="row" class="fn-row head" style={template.clone()}>{ for headers }</div>
                </div>
                <div class="fn-body" role="rowgroup" ref={scroll.node.clone()} {onscroll} {onkeydown} {onfocusin}>
                    <div class="extent" role="presentation"
                        style={format!("height:{}px; width:{row_width}px", window.extent_px)}>
                        <div class="window" role="presentation">{ for rows }</div>
                    </div>
                </div>
            </div>
        </div>
    }
}

/// A column's header: its title (a sort button when the worker sorts by it) and the
/// handle on its right edge that resizes it.
fn header(track: &Track, px: f64, t: &Table, on: &Callback<Msg>, drag: &Rc<std::cell::RefCell<Option<Drag>>>) -> Html {
    let column = t.columns.iter().find(|c| c.id == track.key);
    let class = classes!(
        "fn-cell",
        format!("fn-{}", track.key),
        track.name.then_some("fn-name"),
        track.text.then_some("fn-words"),
        column.is_some_and(|c| c.sortable).then_some("sortable")
    );
    let title = column.and_then(|c| c.help.clone());
    let key = track.key.clone();
    let resize = |delta: f64| Msg::Resize { track: key.clone(), px: (px + delta).max(0.0).round() as u32 };
    let onkeydown = {
        let step = f64::from(KEY_STEP_PX);
        let (less, more, on) = (resize(-step), resize(step), on.clone());
        Callback::from(move |e: KeyboardEvent| {
            let msg = match e.key().as_str() {
                "ArrowLeft" => less.clone(),
                "ArrowRight" => more.clone(),
                _ => return,
            };
            e.prevent_default();
            e.stop_propagation();
            on.emit(msg);
        })
    };
    let onpointerdown = {
        let (drag, key) = (drag.clone(), track.key.clone());
        Callback::from(move |e: PointerEvent| {
            e.prevent_default();
            e.stop_propagation();
            if let Some(handle) = e.target_dyn_into::<Element>() {
                let _ = handle.set_pointer_capture(e.pointer_id());
            }
            *drag.borrow_mut() = Some(Drag { track: key.clone(), from_x: e.client_x(), from_px: px });
        })
    };
    let onpointermove = {
        let (drag, on) = (drag.clone(), on.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(d) = drag.borrow().clone() else { return };
            let width = (d.from_px + f64::from(e.client_x() - d.from_x)).max(0.0).round() as u32;
            on.emit(Msg::Resize { track: d.track, px: width });
        })
    };
    let onpointerup = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| *drag.borrow_mut() = None)
    };
    // Clicks on the handle are not the header's sort.
    let onclick = Callback::from(|e: MouseEvent| e.stop_propagation());
    let handle = html! {
        <div class="fn-resize" role="separator" aria-orientation="vertical" tabindex="0"
            aria-label={format!("Resize {}", if track.title.is_empty() { "the last column" } else { &track.title })}
            aria-valuenow={(px.round() as u32).to_string()}
            {onkeydown} {onpointerdown} {onpointermove} onpointerup={onpointerup.clone()} onpointercancel={onpointerup}
            {onclick}></div>
    };
    let Some(c) = column.filter(|c| c.sortable) else {
        return html! {
            <div role="columnheader" {class} data-column={track.key.clone()} {title}>
                <span class="fn-column-title">{&track.title}</span>{handle}
            </div>
        };
    };
    let sort = match (t.query.column == c.id, t.query.descending) {
        (false, _) => "none",
        (true, true) => "descending",
        (true, false) => "ascending",
    };
    let arrow = match sort {
        "descending" => " ▾",
        "ascending" => " ▴",
        _ => "",
    };
    let id = c.id.clone();
    let onclick = on.reform(move |_: MouseEvent| Msg::Sort(id.clone()));
    html! {
        <div role="columnheader" aria-sort={sort} {class} data-column={track.key.clone()} {title}>
            <button class="fn-sort" {onclick}><span class="fn-column-title">{&track.title}</span>{arrow}</button>
            {handle}
        </div>
    }
}

fn percent(part: u64, whole: Option<u64>) -> String {
    match whole {
        Some(w) if w > 0 => format!("{:.2}%", part as f64 * 100.0 / w as f64),
        _ => String::new(),
    }
}

/// A name cell: the name, its start cut with an ellipsis where the column ends
/// and its end kept whole (the cell's text stays the whole name, all inline: its
/// `innerText` is the name and the badge, as before); the full name on
/// hover, then the raw name and the DSO, each on its own line. The cell's own
/// `title` is the name as the profile records it (the raw name when there is one).
fn name_html(
    text: &str,
    raw: Option<&String>,
    tag: Option<&String>,
    budget: Option<usize>,
    class: Classes,
    column: String,
) -> Html {
    let badge = tag.filter(|t| t.len() <= 3);
    let dso = tag.filter(|t| t.len() > 3);
    // A badge takes its characters and its margin from the name.
    let budget = budget.map(|b| b.saturating_sub(badge.map_or(0, |b| b.chars().count() + 2)));
    let (start, end) = budget.and_then(|b| columns::split_middle(text, b)).unwrap_or((text, ""));
    let mut hover = text.to_string();
    for extra in [raw.filter(|r| r.as_str() != text), dso].into_iter().flatten() {
        hover.push('\n');
        hover.push_str(extra);
    }
    let recorded = raw.cloned().unwrap_or_else(|| text.to_string());
    // The start gives up the room of the end and the badge (`ch`: a character of
    // the monospace font).
    let kept = end.chars().count() + badge.map_or(0, |b| b.chars().count() + 2);
    let room = format!("max-width: calc(100% - {kept}ch)");
    html! {
        <div role="gridcell" {class} data-column={column} title={recorded}>
            <span class="fn-text" title={hover} data-elided={(!end.is_empty()).then_some("true")}>
                <span class="fn-start" style={room}>{start}</span>
                if !end.is_empty() { <span class="fn-end">{end}</span> }
            </span>
            if let Some(b) = badge { <span class="badge cs" title="context-sensitive record">{b}</span> }
        </div>
    }
}

#[allow(clippy::too_many_arguments)]
fn row_html(
    row: &Row,
    index: u64,
    focus: &'static str,
    t: &Table,
    template: &str,
    name_chars: Option<usize>,
    extra: Option<&Extra>,
    onclick: Callback<MouseEvent>,
) -> Html {
    let id = row.id;
    let selected = t.selected == Some(id);
    let cells = t.columns.iter().zip(&row.cells).map(|(c, cell)| {
        let class = classes!(
            "fn-cell",
            format!("fn-{}", c.id),
            (c.kind == CellKind::Name).then_some("fn-name"),
            (c.kind == CellKind::Text).then_some("fn-words")
        );
        let column = c.id.clone();
        let body = match cell {
            Cell::Empty => html! { <div role="gridcell" {class} data-column={column}></div> },
            Cell::Name { text, raw, tag } => name_html(text, raw.as_ref(), tag.as_ref(), name_chars, class, column),
            Cell::Count(n) => html! { <div role="gridcell" {class} data-column={column}>{n.to_string()}</div> },
            Cell::Hex(h) => html! { <div role="gridcell" {class} data-column={column}>{format!("{h:#018x}")}</div> },
            Cell::Ppm(p) => {
                html! { <div role="gridcell" {class} data-column={column}>{format!("{:.1}%", f64::from(*p) / 10_000.0)}</div> }
            }
            // The whole text on hover, for a column too narrow for it.
            Cell::Text(s) => html! { <div role="gridcell" {class} data-column={column} title={s.clone()}>{s}</div> },
        };
        let share = match cell {
            Cell::Count(n) if c.share => Some(
                html! { <div role="gridcell" class={format!("fn-cell fn-{}-pct", c.id)}>{percent(*n, t.weight)}</div> },
            ),
            _ if c.share => Some(html! { <div role="gridcell" class="fn-cell"></div> }),
            _ => None,
        };
        html! { <>{body}{share}</> }
    });
    let extra = extra.map(|x| html! { <div role="gridcell" class="fn-cell fn-extra">{x.cell.emit(id)}</div> });
    html! {
        <div key={id} role="row" class={classes!("fn-row", selected.then_some("selected"))} style={template.to_string()}
            aria-selected={selected.to_string()} aria-rowindex={(index + 2).to_string()} data-id={id.to_string()}
            data-index={index.to_string()} tabindex={focus} {onclick}>
            { for cells }
            {extra}
        </div>
    }
}
