//! The hex pane: offset, sixteen bytes and their ASCII per row, drawn only for the rows
//! in view and fetched from the worker a window at a time. The selected node's bytes
//! are highlighted; clicking a byte reveals the innermost node that holds it.

use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

use super::HexCache;
use crate::components::scroll::{scroll_to, use_scroll};
use crate::layout;

/// Height of one row; `.hex .hex-row` in style.css has the same.
const ROW_PX: f64 = 18.0;
const PER_ROW: u64 = 16;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Bytes in the content.
    pub size: u64,
    pub cache: HexCache,
    /// The selected node's span, `start..end`.
    pub selection: Option<(u64, u64)>,
    /// Changes when the pane should scroll to the selection.
    pub focus: u64,
    pub on_need: Callback<(u64, u64)>,
    pub on_reveal: Callback<u64>,
}

#[function_component]
pub fn HexPane(props: &Props) -> Html {
    let scroll = use_scroll();
    let rows = props.size.div_ceil(PER_ROW);
    let window = layout::window(rows, ROW_PX, scroll.height, scroll.top);

    {
        let on_need = props.on_need.clone();
        let size = props.size;
        use_effect_with((window.first, window.count, size), move |&(first, count, size)| {
            let start = first.saturating_mul(PER_ROW);
            let end = first.saturating_add(count).saturating_mul(PER_ROW).min(size);
            if start < end {
                on_need.emit((start, end));
            }
        });
    }
    {
        let (node, height, selection) = (scroll.node.clone(), scroll.height, props.selection);
        use_effect_with(props.focus, move |_| {
            if let Some((start, _)) = selection {
                let row = start / PER_ROW;
                if !layout::shows(&window, row) {
                    let top = layout::scroll_to_row(row.saturating_sub(2), rows, ROW_PX, height);
                    scroll_to(&node, top);
                }
            }
        });
    }

    let onclick = {
        let on_reveal = props.on_reveal.clone();
        Callback::from(move |e: MouseEvent| {
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            if let Some(offset) = target.and_then(|t| t.get_attribute("data-offset")).and_then(|o| o.parse().ok()) {
                on_reveal.emit(offset);
            }
        })
    };
    let digits = offset_digits(props.size);
    let lines = (window.first..window.first.saturating_add(window.count)).map(|r| line(props, r, digits));
    html! {
        <section class="hex-pane" aria-label="Hex view">
            <div class="hex-head" aria-hidden="true">
                <span class="off">{format!("{:<digits$}", "offset")}</span>
                <span class="bytes">{ for (0..PER_ROW).map(|i| html! { <span class="hex-col">{format!("{i:02x}")}</span> }) }</span>
                <span class="ascii">{"ascii"}</span>
            </div>
            <div class="hex" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                <div class="extent" style={format!("height:{}px", window.extent_px)}>
                    <div class="window" {onclick}>{ for lines }</div>
                </div>
            </div>
        </section>
    }
}

fn line(props: &Props, row: u64, digits: usize) -> Html {
    let start = row.saturating_mul(PER_ROW);
    let end = start.saturating_add(PER_ROW).min(props.size);
    let selected = |offset: u64| props.selection.is_some_and(|(s, e)| s <= offset && offset < e);
    let hex = (start..end).map(|offset| {
        let text = props.cache.byte(offset).map_or_else(|| String::from("··"), |b| format!("{b:02x}"));
        html! { <span class={classes!("hex-byte", selected(offset).then_some("sel"))} data-offset={offset.to_string()}>{text}</span> }
    });
    let ascii = (start..end).map(|offset| {
        let c = props.cache.byte(offset).map_or('·', |b| if (0x20..0x7f).contains(&b) { char::from(b) } else { '.' });
        html! { <span class={classes!("asc", selected(offset).then_some("sel"))} data-offset={offset.to_string()}>{c}</span> }
    });
    html! {
        <div key={row} class="hex-row">
            <span class="off">{format!("{start:0digits$x}")}</span>
            <span class="bytes">{ for hex }</span>
            <span class="ascii">{ for ascii }</span>
        </div>
    }
}

/// Hex digits for offsets: at least 8, more for files past 4 GiB.
fn offset_digits(size: u64) -> usize {
    let bits = 64 - size.leading_zeros() as usize;
    bits.div_ceil(4).max(8)
}
