//! The call tree: a tree grid (Total, Self, Function) of which only the rows in
//! the viewport are drawn, its keys (the WAI-ARIA tree pattern, `*` to expand all
//! below), and its context menu of transforms. The selected node's frame is the
//! stack views' shared selection, both ways.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

use pgolens_protocol::{FrameNames, Transform};

use super::{CallTreeState, Key, Msg};
use crate::app::Action;
use crate::components::scroll::{scroll_to, use_scroll};
use crate::layout;
use crate::views::flame::{FrameLookup, Msg as FlameMsg};
use crate::views::transforms;

/// Height of one row; `.ct-row` in style.css has the same.
const ROW_PX: f64 = 20.0;
/// Indentation per level, in px.
const INDENT_PX: u32 = 14;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: CallTreeState,
    pub names: Option<Rc<FrameNames>>,
    /// The stack views' shared selection (a frame id).
    pub selected_frame: Option<u32>,
    /// The file's events, and the one aggregated (the flame graph's).
    pub events: Vec<String>,
    pub event: u32,
    pub dispatch: Callback<Action>,
}

/// The open context menu: its node and where (client px).
#[derive(Clone, Copy, PartialEq)]
struct Menu {
    node: u32,
    x: f64,
    y: f64,
}

#[function_component]
pub fn CallTreeView(props: &Props) -> Html {
    let scroll = use_scroll();
    let grid = use_node_ref();
    let menu_ref = use_node_ref();
    let menu = use_state_eq(|| None::<Menu>);
    let state = &props.state;
    let rows = &state.open.rows;
    let total_rows = rows.len() as u64;
    let window = layout::window(total_rows, ROW_PX, scroll.height, scroll.top);
    let page = layout::rows_in(scroll.height, ROW_PX).saturating_sub(2).max(1) as u32;

    // The shared selection made elsewhere (or before this tree came) is revealed.
    {
        let tree = state.tree.as_ref().map(|t| Rc::as_ptr(t) as usize);
        let (dispatch, mine) = (props.dispatch.clone(), state.selected_frame());
        use_effect_with((tree, props.selected_frame), move |(tree, frame)| {
            if let (Some(_), Some(frame)) = (tree, *frame) {
                if mine != Some(frame) {
                    dispatch.emit(Action::CallTree(Msg::Reveal(frame)));
                }
            }
        });
    }
    // A node selected here selects its frame in every stack view (not on mounting:
    // the selection may have moved elsewhere meanwhile).
    {
        let seen = use_mut_ref(|| None::<Option<u32>>);
        let (dispatch, shared) = (props.dispatch.clone(), props.selected_frame);
        use_effect_with(state.selected_frame(), move |frame| {
            let before = seen.borrow_mut().replace(*frame);
            if before.is_some() && frame.is_some() && *frame != shared {
                dispatch.emit(Action::Flame(FlameMsg::SelectFrame(*frame)));
            }
        });
    }
    // Keys and reveals keep the selected row in view.
    {
        let row = state.selected.and_then(|n| state.open.row_of(n)).map(|r| r as u64);
        let (node, height) = (scroll.node.clone(), scroll.height);
        use_effect_with(state.reveal, move |_| {
            let Some(row) = row.filter(|&r| !layout::shows(&window, r)) else { return };
            let whole_rows = ((height / ROW_PX).floor() as u64).max(1);
            let top = if row < window.first {
                row
            } else if row <= window.first.saturating_add(window.count).saturating_add(1) {
                // Just below: the least scroll that shows it, at the bottom.
                row.saturating_add(1).saturating_sub(whole_rows)
            } else {
                row.saturating_sub(whole_rows / 3)
            };
            scroll_to(&node, layout::scroll_to_row(top, total_rows, ROW_PX, height));
        });
    }
    // An opened menu takes the focus.
    {
        let menu_ref = menu_ref.clone();
        use_effect_with(menu.is_some(), move |open| {
            if *open {
                focus_first(&menu_ref);
            }
        });
    }

    let Some(tree) = state.tree.clone() else {
        return html! {
            <div class="call-tree">
                {toolbar(props)}
                <p class="muted ct-loading" role="status">{"Building the call tree…"}</p>
            </div>
        };
    };

    let open_menu = {
        let menu = menu.clone();
        let dispatch = props.dispatch.clone();
        Callback::from(move |m: Menu| {
            dispatch.emit(Action::CallTree(Msg::Select(m.node)));
            menu.set(Some(m));
        })
    };
    let onkeydown = {
        let (dispatch, open_menu, selected) = (props.dispatch.clone(), open_menu.clone(), state.selected);
        let selected_frame = state.selected_frame();
        Callback::from(move |e: KeyboardEvent| {
            let key = match e.key().as_str() {
                "ArrowUp" => Key::Up,
                "ArrowDown" => Key::Down,
                "ArrowLeft" => Key::Left,
                "ArrowRight" => Key::Right,
                "Home" => Key::Home,
                "End" => Key::End,
                "PageUp" => Key::PageUp,
                "PageDown" => Key::PageDown,
                "*" => Key::ExpandAll,
                // As in the flame graph, `i` inverts.
                "i" if !e.ctrl_key() && !e.meta_key() && !e.alt_key() => {
                    e.prevent_default();
                    e.stop_propagation();
                    dispatch.emit(Action::CallTree(Msg::ToggleInverted));
                    return;
                }
                "Enter" => {
                    e.prevent_default();
                    if let Some(frame) = selected_frame {
                        dispatch.emit(Action::Flame(FlameMsg::SelectFrame(Some(frame))));
                    }
                    return;
                }
                "ContextMenu" | "F10" if e.key() == "ContextMenu" || e.shift_key() => {
                    e.prevent_default();
                    if let Some(node) = selected {
                        let (x, y) = row_corner(node);
                        open_menu.emit(Menu { node, x, y });
                    }
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            e.stop_propagation();
            dispatch.emit(Action::CallTree(Msg::Key { key, page }));
        })
    };

    // One listener each for all the rows (a row's node is its `data-node`), so
    // drawing the rows while scrolling attaches none.
    let onclick = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((node, on_twisty)) = row_of_event(&e) {
                let msg = if on_twisty { Msg::Toggle(node) } else { Msg::Select(node) };
                dispatch.emit(Action::CallTree(msg));
            }
        })
    };
    let ondblclick = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((node, false)) = row_of_event(&e) {
                dispatch.emit(Action::CallTree(Msg::Toggle(node)));
            }
        })
    };
    let oncontextmenu = {
        let open_menu = open_menu.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((node, _)) = row_of_event(&e) {
                e.prevent_default();
                open_menu.emit(Menu { node, x: f64::from(e.client_x()), y: f64::from(e.client_y()) });
            }
        })
    };
    let names = props.names.as_deref();
    let whole = tree.total.first().copied().unwrap_or(0);
    let first = usize::try_from(window.first).unwrap_or(usize::MAX);
    let count = usize::try_from(window.count).unwrap_or(0);
    let drawn = rows.iter().enumerate().skip(first).take(count).map(|(at, &node)| {
        let n = node as usize;
        let frame = tree.frame.get(n).copied().unwrap_or(u32::MAX);
        let (name, dso) = match names {
            Some(names) => (names.name(frame).to_string(), names.dso(frame).map(str::to_string)),
            None => (format!("#{frame}"), None),
        };
        let shape = &state.shape;
        let has_children = shape.has_children(node);
        let expanded = state.open.is_expanded(node);
        let selected = state.selected == Some(node);
        let depth = shape.depth.get(n).copied().unwrap_or(1);
        let total = tree.total.get(n).copied().unwrap_or(0);
        let own = tree.self_weight.get(n).copied().unwrap_or(0);
        let twisty = match (has_children, expanded) {
            (false, _) => "",
            (true, true) => "▾",
            (true, false) => "▸",
        };
        // Unkeyed: scrolling patches the drawn rows in place, cheaper than replacing them.
        html! {
            <div id={format!("ct-row-{node}")} role="row" class={classes!("ct-row", selected.then_some("selected"))}
                aria-level={depth.to_string()} aria-setsize={parent_children(state, node).to_string()}
                aria-posinset={shape.position.get(n).copied().unwrap_or(1).to_string()}
                aria-expanded={has_children.then(|| expanded.to_string())} aria-selected={selected.to_string()}
                aria-rowindex={(at + 2).to_string()} data-node={node.to_string()}>
                <div role="gridcell" class="ct-total">
                    <span class="ct-num">{total}</span><span class="ct-pct">{percent(total, whole)}</span>
                </div>
                <div role="gridcell" class="ct-self">
                    <span class="ct-num">{own}</span><span class="ct-pct">{percent(own, whole)}</span>
                </div>
                <div role="gridcell" class="ct-fn" title={name.clone()}
                    style={format!("padding-left:{}px", INDENT_PX.saturating_mul(depth.saturating_sub(1)))}>
                    <span class="ct-twisty" aria-hidden="true">{twisty}</span>
                    <span class="ct-name">{name}</span>
                    if let Some(dso) = dso {
                        <span class="ct-dso">{dso}</span>
                    }
                </div>
            </div>
        }
    });

    let active = state.selected.filter(|&n| state.open.row_of(n).is_some()).map(|n| format!("ct-row-{n}"));
    let focus_grid = {
        let grid = grid.clone();
        move || {
            if let Some(el) = grid.cast::<HtmlElement>() {
                let _ = el.focus();
            }
        }
    };
    let menu_html = menu.as_ref().and_then(|m| {
        let close = {
            let (menu, focus_grid) = (menu.clone(), focus_grid.clone());
            Callback::from(move |_: ()| {
                menu.set(None);
                focus_grid();
            })
        };
        context_menu(*m, state, names, &props.dispatch, close, &menu_ref)
    });
    html! {
        <div class="call-tree">
            {toolbar(props)}
            <div class="ct-grid" role="treegrid" aria-label={if state.inverted { "Call tree, bottom-up" } else { "Call tree" }}
                aria-rowcount={(rows.len() + 1).to_string()} aria-colcount="3" aria-multiselectable="false" tabindex="0"
                aria-activedescendant={active} data-rows={rows.len().to_string()} ref={grid} {onkeydown}>
                <div class="ct-head" role="row" aria-rowindex="1">
                    <div role="columnheader" class="ct-total">{"Total"}</div>
                    <div role="columnheader" class="ct-self">{"Self"}</div>
                    <div role="columnheader" class="ct-fn">{"Function"}</div>
                </div>
                <div class="ct-body" role="rowgroup" ref={scroll.node.clone()} onscroll={scroll.onscroll.clone()}>
                    <div class="extent" role="presentation" style={format!("height:{}px", window.extent_px)}>
                        <div class="window" role="presentation" {onclick} {ondblclick} {oncontextmenu}>{for drawn}</div>
                    </div>
                </div>
            </div>
            // Always there: the menu coming and going must not shift the grid's element.
            <div class="ct-menu-layer">{menu_html}</div>
        </div>
    }
}

fn toolbar(props: &Props) -> Html {
    let onchange = props.dispatch.reform(|_: Event| Action::CallTree(Msg::ToggleInverted));
    let nodes = props.state.tree.as_ref().map(|t| t.len().saturating_sub(1));
    let onevent = props.dispatch.reform(|e: Event| {
        let value = e.target_dyn_into::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
        Action::Flame(FlameMsg::SetEvent(value.parse().unwrap_or(0)))
    });
    let events = props.events.iter().enumerate().map(|(i, name)| {
        html! { <option value={i.to_string()} selected={i as u32 == props.event}>{name}</option> }
    });
    html! {
        <div class="ct-toolbar">
            if props.events.len() > 1 {
                <label>{"Event "}<select class="ct-event" aria-label="Event" onchange={onevent}>{for events}</select></label>
            } else {
                <span class="muted ct-event-name">{props.events.first().cloned().unwrap_or_default()}</span>
            }
            <label class="ct-invert">
                <input type="checkbox" checked={props.state.inverted} {onchange} />
                {"Bottom-up (callers of each function)"}
            </label>
            if let Some(nodes) = nodes {
                <span class="ct-count muted">{crate::views::count(nodes as u64, "node")}</span>
            }
        </div>
    }
}

/// The row a mouse event is on (its node), and whether on its disclosure triangle.
fn row_of_event(e: &MouseEvent) -> Option<(u32, bool)> {
    let target = e.target()?.dyn_into::<Element>().ok()?;
    let row = target.closest("[data-node]").ok()??;
    let node = row.get_attribute("data-node")?.parse().ok()?;
    let on_twisty = target.closest(".ct-twisty").ok().flatten().is_some();
    Some((node, on_twisty))
}

/// How many children the node's parent has (its siblings and itself).
fn parent_children(state: &CallTreeState, node: u32) -> u32 {
    let parent = state.tree.as_ref().and_then(|t| t.parent.get(node as usize).copied()).unwrap_or(0);
    state.shape.children.get(parent as usize).copied().unwrap_or(1)
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return String::from("0%");
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

/// Where a menu opened by key on a row goes: below the start of its name.
fn row_corner(node: u32) -> (f64, f64) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(&format!("#ct-row-{node} .ct-name")).ok().flatten());
    el.map_or((0.0, 0.0), |el| {
        let r = el.get_bounding_client_rect();
        (r.left(), r.bottom())
    })
}

fn focus_first(menu: &NodeRef) {
    let first = menu.cast::<Element>().and_then(|m| m.first_element_child());
    if let Some(item) = first.and_then(|i| i.dyn_into::<HtmlElement>().ok()) {
        let _ = item.focus();
    }
}

/// The transforms offered for `node`'s function, as a menu.
fn context_menu(
    m: Menu,
    state: &CallTreeState,
    names: Option<&FrameNames>,
    dispatch: &Callback<Action>,
    close: Callback<()>,
    menu_ref: &NodeRef,
) -> Option<Html> {
    let tree = state.tree.as_ref()?;
    let frame = *tree.frame.get(m.node as usize).filter(|&&f| f != u32::MAX)?;
    // The node's frames from the top of the tree down to it.
    let mut path = Vec::new();
    let mut at = m.node;
    while at != 0 {
        path.push(tree.frame.get(at as usize).copied().unwrap_or(u32::MAX));
        match tree.parent.get(at as usize) {
            Some(&p) if p < at => at = p,
            _ => break,
        }
    }
    path.reverse();
    let dso = names.and_then(|n| n.dso_index(frame));
    let dso_name = names.and_then(|n| n.dso(frame)).map(str::to_string);
    let name = names.map_or_else(|| format!("#{frame}"), |n| n.name(frame).to_string());
    let mut items = vec![
        ("merge", format!("Merge function {name}"), Transform::Merge { frame }),
        ("focus-function", format!("Focus on function {name}"), Transform::FocusFunction { frame }),
        ("focus-subtree", String::from("Focus on subtree"), Transform::FocusSubtree { path, inverted: state.inverted }),
    ];
    if let (Some(dso), Some(dso_name)) = (dso, dso_name) {
        items.push(("collapse-dso", format!("Collapse {dso_name}"), Transform::CollapseDso { dso }));
    }
    items.push(("collapse-recursion", String::from("Collapse recursion"), Transform::CollapseRecursion { frame }));
    items.push((
        "collapse-direct-recursion",
        String::from("Collapse direct recursion only"),
        Transform::CollapseDirectRecursion { frame },
    ));
    items.push(("drop", format!("Drop samples with {name}"), Transform::DropFunction { frame }));
    let buttons = items.into_iter().map(|(id, text, t)| {
        let (dispatch, close) = (dispatch.clone(), close.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            dispatch.emit(Action::Transform(transforms::Msg::Push(t.clone())));
            close.emit(());
        });
        html! { <button role="menuitem" class="ct-item" tabindex="-1" data-item={id} {onclick}>{text}</button> }
    });
    let onkeydown = {
        let close = close.clone();
        Callback::from(move |e: KeyboardEvent| {
            let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            let next = match e.key().as_str() {
                "ArrowDown" => active.and_then(|a| a.next_element_sibling()),
                "ArrowUp" => active.and_then(|a| a.previous_element_sibling()),
                "Escape" | "Tab" => {
                    e.prevent_default();
                    e.stop_propagation();
                    close.emit(());
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            e.stop_propagation();
            if let Some(item) = next.and_then(|i| i.dyn_into::<HtmlElement>().ok()) {
                let _ = item.focus();
            }
        })
    };
    // The menu stays inside the window.
    let (width, height) = web_sys::window()
        .map(|w| {
            let px = |v: Result<wasm_bindgen::JsValue, _>| v.ok().and_then(|v| v.as_f64()).unwrap_or(800.0);
            (px(w.inner_width()), px(w.inner_height()))
        })
        .unwrap_or((800.0, 600.0));
    let x = m.x.min(width - 280.0).max(0.0);
    let y = m.y.min(height - 240.0).max(0.0);
    let dismiss = close.reform(|e: MouseEvent| e.prevent_default());
    Some(html! {
        <>
            <div class="ct-backdrop" onclick={dismiss.clone()} oncontextmenu={dismiss}></div>
            <div class="ct-menu" role="menu" aria-label={format!("Transforms of {name}")} ref={menu_ref.clone()}
                style={format!("left:{x}px;top:{y}px")} {onkeydown}>
                {for buttons}
            </div>
        </>
    })
}
