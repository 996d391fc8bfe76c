//! Messages as JS values (browser only): the one place both sides convert.
//!
//! Integers travel as BigInts where they may exceed 2^53 (counts, hashes, offsets);
//! bulk arrays ([`crate::Bytes`], ...) register their buffers while they serialize,
//! and [`to_js`] returns them as the transfer list for `postMessage`.

use core::cell::RefCell;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

thread_local! {
    static TRANSFER: RefCell<Vec<JsValue>> = const { RefCell::new(Vec::new()) };
}

/// Adds a buffer to the transfer list of the message being serialized.
pub(crate) fn transfer(buffer: JsValue) {
    TRANSFER.with(|t| t.borrow_mut().push(buffer));
}

/// `value` as a JS value, and the buffers to transfer with it.
pub fn to_js<T: Serialize>(value: &T) -> Result<(JsValue, js_sys::Array), JsValue> {
    TRANSFER.with(|t| t.borrow_mut().clear());
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
    let js = value.serialize(&serializer).map_err(JsValue::from);
    let buffers: js_sys::Array = TRANSFER.with(|t| t.borrow_mut().drain(..).collect());
    Ok((js?, buffers))
}

/// A JS value back as `T`; the error says what did not fit.
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}
