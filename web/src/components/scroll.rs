//! The hook behind both virtual lists: the scroll container, its scroll position and
//! its height, kept current on scroll and on window resize; and the hook of the
//! paged tables built on it.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

use crate::layout::{self, Window};

pub struct Scroll {
    pub node: NodeRef,
    /// `scrollTop` of the container, in px.
    pub top: f64,
    /// `clientHeight` of the container, in px.
    pub height: f64,
    pub onscroll: Callback<Event>,
}

/// Scrolls the container to `top_px`; the scroll event then updates the hook's state.
pub fn scroll_to(node: &NodeRef, top_px: f64) {
    if let Some(el) = node.cast::<Element>() {
        el.set_scroll_top(top_px.round() as i32);
    }
}

#[hook]
pub fn use_scroll() -> Scroll {
    let node = use_node_ref();
    let top = use_state_eq(|| 0.0f64);
    let height = use_state_eq(|| 480.0f64);
    let measure = {
        let (node, top, height) = (node.clone(), top.clone(), height.clone());
        Callback::from(move |_: ()| {
            if let Some(el) = node.cast::<Element>() {
                top.set(f64::from(el.scroll_top()));
                height.set(f64::from(el.client_height()));
            }
        })
    };
    {
        let measure = measure.clone();
        use_effect_with((), move |()| {
            measure.emit(());
            let on_resize = Closure::<dyn Fn()>::new(move || measure.emit(()));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
                }
            }
        });
    }
    Scroll { node, top: *top, height: *height, onscroll: measure.reform(|_: Event| ()) }
}

/// A paged table's scroll state and its visible window of `total` rows (unknown
/// yet: `None`). Asks for the window's rows through `need(start, end)` whenever the
/// window moves, the query changes or the row count becomes known (the reducer skips
/// what it holds or has asked for), and scrolls back to the top when the query
/// (sort, filter) changes.
#[hook]
pub fn use_paged_rows<Q>(total: Option<u64>, row_px: f64, query: Q, need: Callback<(u64, u64)>) -> (Scroll, Window)
where
    Q: PartialEq + Clone + 'static,
{
    let scroll = use_scroll();
    let window = layout::window(total.unwrap_or(0), row_px, scroll.height, scroll.top);
    let known = total.is_some();
    use_effect_with((window.first, window.count, query.clone(), known), move |(first, count, _, _)| {
        need.emit((*first, first.saturating_add(*count)));
    });
    {
        let node = scroll.node.clone();
        use_effect_with(query, move |_| scroll_to(&node, 0.0));
    }
    (scroll, window)
}
