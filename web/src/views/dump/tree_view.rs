//! The dump tree: a virtual list of the visible rows (only those in the viewport are
//! drawn, so a node with thousands of children stays smooth). Children are fetched
//! from the worker when a node is first expanded.

use std::rc::Rc;

use web_sys::KeyboardEvent;
use yew::prelude::*;

use super::{Children, Key, NodeId, Tree};
use crate::components::scroll::{scroll_to, use_scroll};
use crate::layout;

/// Height of one row; `.tree .row` in style.css has the same.
const ROW_PX: f64 = 22.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub tree: Rc<Tree>,
    pub selected: Option<NodeId>,
    /// Changes when the selected row should be scrolled into view.
    pub focus: u64,
    pub on_toggle: Callback<NodeId>,
    pub on_select: Callback<NodeId>,
    pub on_key: Callback<Key>,
}

#[function_component]
pub fn TreeView(props: &Props) -> Html {
    let scroll = use_scroll();
    let tree = &props.tree;
    let total = tree.rows.len() as u64;
    let window = layout::window(total, ROW_PX, scroll.height, scroll.top);

    {
        let selected_row = props.selected.and_then(|id| tree.row_of(id)).map(|r| r as u64);
        let (node, height) = (scroll.node.clone(), scroll.height);
        use_effect_with(props.focus, move |_| {
            if let Some(row) = selected_row.filter(|&r| !layout::shows(&window, r)) {
                let context = layout::rows_in(height, ROW_PX) / 3;
                let top = layout::scroll_to_row(row.saturating_sub(context), total, ROW_PX, height);
                scroll_to(&node, top);
            }
        });
    }

    let onkeydown = {
        let (on_key, on_toggle, selected) = (props.on_key.clone(), props.on_toggle.clone(), props.selected);
        Callback::from(move |e: KeyboardEvent| {
            let key = match e.key().as_str() {
                "ArrowUp" => Key::Up,
                "ArrowDown" => Key::Down,
                "ArrowLeft" => Key::Left,
                "ArrowRight" => Key::Right,
                "Home" => Key::Home,
                "End" => Key::End,
                "Enter" | " " => {
                    e.prevent_default();
                    if let Some(id) = selected {
                        on_toggle.emit(id);
                    }
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            on_key.emit(key);
        })
    };

    let first = usize::try_from(window.first).unwrap_or(usize::MAX);
    let count = usize::try_from(window.count).unwrap_or(0);
    let rows = tree.rows.iter().skip(first).take(count).filter_map(|&id| row(props, id));
    html! {
        <div class="tree" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()} role="tree"
            aria-label="Dump tree" tabindex="0" {onkeydown}>
            <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                <div class="window" role="presentation">{ for rows }</div>
            </div>
        </div>
    }
}

fn row(props: &Props, id: NodeId) -> Option<Html> {
    let node = props.tree.node(id)?;
    let selected = props.selected == Some(id);
    let (twisty, expanded) = match (&node.children, node.expanded) {
        (Children::None, _) => ("", None),
        (Children::Loading { .. }, _) => ("◌", Some("false")),
        (Children::Loaded(_), true) => ("▾", Some("true")),
        _ => ("▸", Some("false")),
    };
    let on_select = props.on_select.reform(move |_: MouseEvent| id);
    let on_double = props.on_toggle.reform(move |_: MouseEvent| id);
    let on_twisty = props.on_toggle.reform(move |e: MouseEvent| {
        e.stop_propagation();
        id
    });
    let info = &node.info;
    Some(html! {
        <div key={id} role="treeitem" class={classes!("row", selected.then_some("selected"))}
            aria-level={node.depth.saturating_add(1).to_string()} aria-selected={selected.to_string()}
            aria-expanded={expanded} data-start={info.start.to_string()} data-end={info.end.to_string()}
            style={format!("padding-left:{}px", 6 + 16 * node.depth)} onclick={on_select} ondblclick={on_double}>
            <span class="twisty" onclick={on_twisty} aria-hidden="true">{twisty}</span>
            <span class="label">{&info.label}</span>
            if let Some(value) = &info.value {
                <span class="value" title={value.clone()}>{value}</span>
            }
            <span class="span">{format!("{:#x}..{:#x}", info.start, info.end)}</span>
        </div>
    })
}
