//! Glue for browser APIs more than one component uses: a thrown value as text, and
//! the next chunk of a stream.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::ReadableStreamDefaultReader;

/// A thrown or rejected value as text: an `Error`'s message, a string, else its
/// debug form.
pub fn message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The next chunk `reader` gives (Streams Standard, `read()`'s `{done, value}`):
/// `None` once the stream is done; the read's rejection as the error.
pub async fn next_chunk(reader: &ReadableStreamDefaultReader) -> Result<Option<JsValue>, JsValue> {
    let read = JsFuture::from(reader.read()).await?;
    if Reflect::get(&read, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
        return Ok(None);
    }
    Reflect::get(&read, &"value".into()).map(Some)
}
