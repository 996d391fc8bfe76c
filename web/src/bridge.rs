//! The decoding worker as the app sees it: typed messages posted and received.
//!
//! Every request is a `pgolens_protocol::Envelope` and every answer a `FromWorker`,
//! converted by `pgolens_protocol::wire` (bulk arrays transferred, not copied).
//! Files are posted as `File` handles (structured clone does not copy their
//! contents) and the demo's `ArrayBuffer` is transferred, so the page never holds
//! profile bytes beyond the small windows the hex pane shows.

use js_sys::Array;
use pgolens_protocol::{wire, DocId, Envelope, FromWorker, OpenFile};
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

use crate::app::Action;

/// Where the build puts the worker's module, relative to the page.
const WORKER_URL: &str = "./worker/worker.js";

pub struct Bridge {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl Bridge {
    pub fn new(dispatch: Callback<Action>) -> Result<Bridge, JsValue> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(WORKER_URL, &options)?;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            match wire::from_js::<FromWorker>(event.data()) {
                Ok(msg) => dispatch.emit(Action::Worker(msg)),
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
