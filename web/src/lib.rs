//! `pgolens-web`: the page. A Yew app that shows what the decoding worker reports.
//!
//! Nothing here parses profile bytes: files go to the worker (`web/worker`) as `File`
//! handles, and only decoded summaries, dump nodes and small byte windows come back.
//!
//! - [`state`]: the UI state and its reducer (plain Rust, tested natively);
//! - [`layout`]: virtual-list geometry (plain Rust, tested natively);
//! - `bridge`: the worker, its messages and their decoding (browser only);
//! - `components`: one Yew component per file (browser only).

pub mod flame_state;
pub mod layout;
pub mod state;

#[cfg(target_arch = "wasm32")]
mod bridge;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(target_arch = "wasm32")]
mod render;

/// Mounts the app on `#app` (or the body).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<components::app::App>::with_root(root).render(),
        None => yew::Renderer::<components::app::App>::new().render(),
    };
}
