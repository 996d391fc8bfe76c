//! Opening files: whatever brings them (a drop, the file picker, an embedding page,
//! a link's `url=` or `data=`, a self-contained page), each becomes a document of
//! the reducer and is handed to the worker by handle.
//!
//! The opener keeps each open file's `Blob` handle (not its bytes: a `File` is a
//! reference to the disk, a fetched `Blob` lives in the browser's blob store), so
//! that Share can compress it and a self-contained page can carry it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer};
use pgolens_protocol::DocId;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, File};
use yew::UseReducerDispatcher;

use crate::app::{Action, State};
use crate::bridge::Bridge;

/// Everything the app needs to open a file: the worker, the next document number
/// and the open files' handles.
#[derive(Clone)]
pub struct Opener {
    pub bridge: Rc<RefCell<Option<Bridge>>>,
    pub next_id: Rc<RefCell<DocId>>,
    /// Each open document's bytes, by handle.
    pub blobs: Rc<RefCell<BTreeMap<DocId, Blob>>>,
    /// The documents the reducer has listed as open, ever.
    pub listed: Rc<RefCell<BTreeSet<DocId>>>,
    pub dispatch: UseReducerDispatcher<State>,
}

impl Opener {
    pub fn next_id(&self) -> DocId {
        let mut next = self.next_id.borrow_mut();
        *next = next.wrapping_add(1);
        *next
    }

    /// Opens files as a drop of them does: each handed to the worker, and shown
    /// is `files[shown]`. Returns the documents and names handed over.
    pub fn open_files(&self, files: Vec<File>, shown: usize) -> Vec<(DocId, String)> {
        let mut opened = Vec::new();
        for (i, file) in files.iter().enumerate() {
            let id = self.next_id();
            let name = file.name();
            let size = file.size() as u64;
            self.dispatch.dispatch(Action::Add { id, name: name.clone(), size, demo: false, select: i == shown });
            if self.hand(id, file) {
                opened.push((id, name));
            }
        }
        opened
    }

    /// Hands document `id`'s bytes (added already, as read or fetched) to the
    /// worker; says why in the document when it cannot.
    pub fn hand(&self, id: DocId, file: &File) -> bool {
        let bridge = self.bridge.borrow();
        let handed = match bridge.as_ref() {
            Some(bridge) => bridge.open_file(id, file),
            None => Err(JsValue::from_str("the decoding worker did not start")),
        };
        match handed {
            Ok(()) => {
                self.blobs.borrow_mut().insert(id, file.clone().into());
                true
            }
            Err(e) => {
                let message = e.as_string().unwrap_or_else(|| String::from("could not hand the file to the worker"));
                self.dispatch.dispatch(Action::OpenFailed { doc: id, message });
                false
            }
        }
    }

    /// The files of a drop or of the file picker, shown from the first.
    pub fn open_list(&self, files: Option<web_sys::FileList>) {
        let Some(files) = files else { return };
        self.open_files((0..files.length()).filter_map(|i| files.get(i)).collect(), 0);
    }

    /// Fetches the demo profile shipped with the page and transfers it to the worker.
    pub async fn open_demo(self, url: String) -> Result<(), JsValue> {
        let window = web_sys::window().ok_or("no window")?;
        let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&url)).await?.dyn_into()?;
        if !response.ok() {
            return Err(format!("{url}: HTTP {}", response.status()).into());
        }
        let buffer: ArrayBuffer = JsFuture::from(response.array_buffer()?).await?.dyn_into()?;
        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
        let id = self.next_id();
        let size = u64::from(buffer.byte_length());
        // Kept as a Blob before the buffer is transferred (a copy of a few KB).
        let blob = Blob::new_with_buffer_source_sequence(&Array::of1(&buffer))?;
        self.bridge.borrow().as_ref().ok_or("no worker")?.open_buffer(id, &name, &buffer)?;
        self.blobs.borrow_mut().insert(id, blob);
        self.dispatch.dispatch(Action::Add { id, name, size, demo: true, select: false });
        Ok(())
    }

    /// Forgets the handles of documents closed, and aborts their downloads: those
    /// listed open once, and no longer (a document just added is not listed until
    /// the reducer's next render).
    pub fn forget_closed(&self, open: &[DocId]) {
        let mut listed = self.listed.borrow_mut();
        listed.extend(open);
        let closed: Vec<DocId> = listed.iter().filter(|id| !open.contains(id)).copied().collect();
        self.blobs.borrow_mut().retain(|id, _| !closed.contains(id));
        super::remote::abort(&closed);
    }
}
