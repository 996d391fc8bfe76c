//! Saving bytes the worker wrote (a profile in another format) as a file.

use wasm_bindgen::JsCast;

/// Hands `bytes` to the browser as a download named `name`.
pub fn save(name: &str, bytes: &[u8]) -> Option<()> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    // Text and binary profiles alike: the bytes are saved as they are.
    options.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let document = web_sys::window()?.document()?;
    let a = document.create_element("a").ok()?.dyn_into::<web_sys::HtmlAnchorElement>().ok()?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url).ok()
}
