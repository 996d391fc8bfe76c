//! The decoding worker as the app sees it: typed messages posted and received.
//!
//! Every request is a `pgolens_protocol::Envelope` and every answer a `FromWorker`,
//! converted by `pgolens_protocol::wire` (bulk arrays transferred, not copied).
//! Files are posted as `File` handles (structured clone does not copy their
//! contents) and the demo's `ArrayBuffer` is transferred, so the page never holds
//! profile bytes beyond the small windows the hex pane shows.

use js_sys::Array;
use pgolens_protocol::{wire, DocId, Envelope, FromWorker, OpenFile, SymbolsFolder};
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

use crate::app::Action;

/// Where the build puts the worker's module, relative to the page.
const WORKER_URL: &str = "./worker/worker.js";

/// The page's `split-above` parameter, passed on to the worker: the size of record
/// stream from which a recording is read by two workers (`?split-above=0` reads
/// every one so, as the browser tests do to reach that path with small files).
fn split_above() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    let value = search.trim_start_matches('?').split('&').find_map(|p| p.strip_prefix("split-above="))?;
    value.bytes().all(|b| b.is_ascii_digit()).then(|| value.to_string()).filter(|v| !v.is_empty())
}

/// The worker's script and its type: [`WORKER_URL`], a module, unless the page's boot
/// script set another on `#app`: `data-worker` (a URL) and `data-worker-type`
/// (`classic` or `module`). A self-contained page makes its worker a classic script
/// at a Blob URL (see `web/pack.js`: from file:// a module worker cannot start).
fn worker_script() -> (String, WorkerType) {
    let app = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    let attribute = |name: &str| app.as_ref().and_then(|a| a.get_attribute(name)).filter(|v| !v.is_empty());
    match attribute("data-worker") {
        Some(url) => {
            let classic = attribute("data-worker-type").as_deref() == Some("classic");
            (url, if classic { WorkerType::Classic } else { WorkerType::Module })
        }
        None => match split_above() {
            Some(bytes) => (format!("{WORKER_URL}?split-above={bytes}"), WorkerType::Module),
            None => (WORKER_URL.to_string(), WorkerType::Module),
        },
    }
}

pub struct Bridge {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl Bridge {
    pub fn new(dispatch: Callback<Action>) -> Result<Bridge, JsValue> {
        let (url, kind) = worker_script();
        let options = WorkerOptions::new();
        options.set_type(kind);
        let worker = Worker::new_with_options(&url, &options)?;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            match wire::from_js::<FromWorker>(event.data()) {
                Ok(msg) => dispatch.emit(Action::Worker(Box::new(msg))),
                Err(e) => {
                    web_sys::console::error_2(&"pgolens: a message from the worker does not fit".into(), &e.into())
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(Bridge { worker, _on_message: on_message })
    }

    /// Hands a `File` to the worker (by handle, not by copy).
    pub fn open_file(&self, doc: DocId, file: &web_sys::File) -> Result<(), JsValue> {
        let (open, _) = wire::to_js(&OpenFile { doc, name: file.name() })?;
        self.worker.post_message(&Array::of2(&open, file))
    }

    /// Hands an `ArrayBuffer` to the worker, transferring it: it is detached here.
    pub fn open_buffer(&self, doc: DocId, name: &str, buffer: &js_sys::ArrayBuffer) -> Result<(), JsValue> {
        let (open, _) = wire::to_js(&OpenFile { doc, name: name.into() })?;
        self.worker.post_message_with_transfer(&Array::of2(&open, buffer), &Array::of1(buffer))
    }

    /// Hands a folder's files to the worker (by handle): `[SymbolsFolder, File[]]`.
    pub fn post_folder(&self, folder: &SymbolsFolder, files: &Array) -> Result<(), JsValue> {
        let (header, _) = wire::to_js(folder)?;
        self.worker.post_message(&Array::of2(&header, files))
    }

    pub fn post(&self, envelope: &Envelope) -> Result<(), JsValue> {
        let (msg, transfer) = wire::to_js(envelope)?;
        self.worker.post_message_with_transfer(&msg, &transfer)
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.terminate();
    }
}
