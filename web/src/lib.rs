//! `pgolens-web`: the page. A Yew app that shows what the decoding worker reports.
//!
//! Nothing here parses profile bytes: files go to the worker (`web/worker`) as `File`
//! handles, and only decoded summaries, dump nodes, table pages and small byte
//! windows come back, as `pgolens-protocol` types.
//!
//! - [`app`]: the documents and the reducer that routes (plain Rust, tested natively);
//! - [`views`]: one folder per view, its state, messages and components;
//! - [`layout`]: virtual-list geometry (plain Rust, tested natively);
//! - [`embed`]: files sent by a page that frames or opened this one (`postMessage`);
//! - `bridge`: the worker and its messages (browser only);
//! - `components`: the page's frame: app, file list, status, tabs (browser only).

pub mod app;
pub mod embed;
pub mod layout;
pub mod views;

#[cfg(target_arch = "wasm32")]
mod bridge;
#[cfg(target_arch = "wasm32")]
mod components;

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
