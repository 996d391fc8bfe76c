//! Embedding: another page that frames pgolens (an `<iframe>`) or opened it
//! (`window.open`) hands it files by `postMessage`, with a ready handshake as
//! Perfetto's UI and the Firefox Profiler do it:
//!
//! ```text
//! embedder                                   pgolens
//!    |  <- {type: 'pgolens:ready', version: 1}   |  once it can open files (to parent/opener, origin *)
//!    |  {type: 'pgolens:ping'} ->                |  any time; answered with the same ready message
//!    |  {type: 'pgolens:open', files: [{name, buffer: ArrayBuffer}], select?: name} ->
//!    |  <- {type: 'pgolens:opened', names: [...]}|  to the sender only (event.source, event.origin)
//! ```
//!
//! The files open as a drop of the same files does (`components::app`): the
//! reducer sees the same `Action::Add`s, so binaries sent with profiles are
//! attached to them as when dropped together. Messages from any origin are
//! accepted (they can only open files, as a drop can); malformed ones are logged
//! and ignored, and nothing is posted anywhere but to the embedder and the sender.

/// The protocol version in `pgolens:ready`.
pub const VERSION: u32 = 1;

/// Which of the files sent is shown: the one named `select`, else the first (as a drop).
pub fn selected(names: &[String], select: Option<&str>) -> usize {
    select.and_then(|s| names.iter().position(|n| n == s)).unwrap_or(0)
}

#[cfg(target_arch = "wasm32")]
pub use listener::install;

#[cfg(target_arch = "wasm32")]
mod listener {
    use js_sys::{Array, ArrayBuffer, Object, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{File, MessageEvent, Window};

    use super::{selected, VERSION};

    fn get(value: &JsValue, key: &str) -> Option<JsValue> {
        Reflect::get(value, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
    }

    fn message(kind: &str, key: &str, value: &JsValue) -> JsValue {
        let msg = Object::new();
        let _ = Reflect::set(&msg, &"type".into(), &kind.into());
        let _ = Reflect::set(&msg, &key.into(), value);
        msg.into()
    }

    fn ready() -> JsValue {
        message("pgolens:ready", "version", &VERSION.into())
    }

    /// The files of a `pgolens:open` message, as `File`s, and the index shown.
    fn files(data: &JsValue) -> Result<(Vec<File>, usize), String> {
        let list = get(data, "files").filter(Array::is_array).ok_or("`files` is not an array")?;
        let list: Array = list.unchecked_into();
        let mut files = Vec::new();
        for (i, item) in list.iter().enumerate() {
            let name = get(&item, "name").and_then(|n| n.as_string()).ok_or(format!("files[{i}]: no `name`"))?;
            let buffer = get(&item, "buffer")
                .and_then(|b| b.dyn_into::<ArrayBuffer>().ok())
                .ok_or(format!("files[{i}] ({name}): `buffer` is not an ArrayBuffer"))?;
            let file = File::new_with_buffer_source_sequence(&Array::of1(&buffer), &name)
                .map_err(|_| format!("files[{i}] ({name}): cannot make a File"))?;
            files.push(file);
        }
        if files.is_empty() {
            return Err("`files` is empty".into());
        }
        let names: Vec<String> = files.iter().map(File::name).collect();
        let select = get(data, "select").and_then(|s| s.as_string());
        Ok((files, selected(&names, select.as_deref())))
    }

    /// Posts to the window that sent `event` only. An opaque origin ("null": a
    /// sandboxed or file: page) cannot be named, so that reply goes to the window as such.
    fn reply(event: &MessageEvent, msg: &JsValue) {
        let Some(source) = event.source() else { return };
        let origin = event.origin();
        let target = if origin == "null" || origin.is_empty() { "*" } else { origin.as_str() };
        // A cross-origin window is not `instanceof Window` here; postMessage is still reachable.
        if let Err(e) = source.unchecked_ref::<Window>().post_message(msg, target) {
            web_sys::console::warn_2(&"pgolens: cannot answer the embedder".into(), &e);
        }
    }

    /// The page that framed or opened this one, if any.
    fn embedder(window: &Window) -> Option<Window> {
        let me: &JsValue = window.as_ref();
        let parent = window.parent().ok().flatten().filter(|p| !Object::is(p.as_ref(), me));
        parent.or_else(|| window.opener().ok().filter(|o| o.is_object()).map(JsCast::unchecked_into))
    }

    /// Listens for embedders' messages and tells the embedder, if any, that files
    /// can be sent. `open(files, shown)` opens them as a drop does and returns the
    /// names handed to the worker. Returns the function that stops listening.
    pub fn install(open: impl Fn(Vec<File>, usize) -> Vec<String> + 'static) -> impl FnOnce() {
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            let Some(kind) = get(&data, "type").and_then(|t| t.as_string()) else { return };
            match kind.as_str() {
                "pgolens:ping" => reply(&event, &ready()),
                "pgolens:open" => match files(&data) {
                    Ok((files, shown)) => {
                        let names: Array = open(files, shown).into_iter().map(JsValue::from).collect();
                        reply(&event, &message("pgolens:opened", "names", &names));
                    }
                    Err(e) => web_sys::console::warn_1(&format!("pgolens: ignored a pgolens:open message: {e}").into()),
                },
                // What pgolens posts (to a pgolens that embeds it), and everyone else's messages.
                "pgolens:ready" | "pgolens:opened" => {}
                other if other.starts_with("pgolens:") => {
                    web_sys::console::warn_1(&format!("pgolens: ignored a message of unknown type {other}").into())
                }
                _ => {}
            }
        });
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ = w.add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
            if let Some(embedder) = embedder(w) {
                if let Err(e) = embedder.post_message(&ready(), "*") {
                    web_sys::console::warn_2(&"pgolens: cannot tell the embedder it is ready".into(), &e);
                }
            }
        }
        move || {
            if let Some(w) = &window {
                let _ = w.remove_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::selected;

    #[test]
    fn shows_the_named_file_else_the_first() {
        let names = vec![String::from("a.prof"), String::from("a.out")];
        assert_eq!(selected(&names, None), 0);
        assert_eq!(selected(&names, Some("a.out")), 1);
        // A name not sent: as a drop, the first.
        assert_eq!(selected(&names, Some("b.prof")), 0);
        assert_eq!(selected(&[], Some("a.out")), 0);
    }
}
