//! The hook behind both virtual lists: the scroll container, its scroll position and
//! its height, kept current on scroll and on window resize.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

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
