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

use js_sys::{Array, ArrayBuffer, Function, Promise, Reflect};
use pgolens_protocol::{DocId, SymbolsFolder};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DataTransfer, File};
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

/// Two openers are the same when they hand files to the same worker.
impl PartialEq for Opener {
    fn eq(&self, other: &Opener) -> bool {
        Rc::ptr_eq(&self.bridge, &other.bridge)
    }
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

    /// Opens a drop: its files as documents, its folders (a build directory, a
    /// sysroot) offered to the open recordings for their symbols.
    pub fn open_drop(&self, transfer: Option<DataTransfer>) {
        let Some(transfer) = transfer else { return };
        // The entries must be taken while the drop event is being dispatched.
        let folders: Vec<JsValue> = drop_entries(&transfer).into_iter().filter(|e| flag(e, "isDirectory")).collect();
        if folders.is_empty() {
            self.open_list(transfer.files());
            return;
        }
        // A folder is also in the drop's file list (as a file of its own name).
        let names: Vec<String> = folders.iter().map(|f| text(f, "name")).collect();
        if let Some(files) = transfer.files() {
            let files: Vec<File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
            let files: Vec<File> = files.into_iter().filter(|f| !names.contains(&f.name())).collect();
            if !files.is_empty() {
                self.open_files(files, 0);
            }
        }
        let opener = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match folder_files(folders).await {
                Ok(files) => opener.offer_folder(files),
                Err(e) => web_sys::console::warn_2(&"pgolens: the folder could not be read".into(), &e),
            }
        });
    }

    /// The files of a folder picked with a `webkitdirectory` input, offered to the
    /// open recordings.
    pub fn offer_picked_folder(&self, files: Option<web_sys::FileList>) {
        let Some(files) = files else { return };
        let files = (0..files.length())
            .filter_map(|i| files.get(i))
            .map(|file| {
                let path = text(&file, "webkitRelativePath");
                (if path.is_empty() { file.name() } else { path }, file)
            })
            .collect();
        self.offer_folder(files);
    }

    /// Hands a folder's files (by handle, with their paths in it) to the worker,
    /// which reads only the few bytes that say what each is, and whole only the
    /// binaries, debug files and kallsyms the open recordings name.
    pub fn offer_folder(&self, files: Vec<(String, File)>) {
        if files.is_empty() {
            return;
        }
        let paths = files.iter().map(|(path, _)| path.clone()).collect();
        let handles: Array = files.iter().map(|(_, file)| JsValue::from(file)).collect();
        let bridge = self.bridge.borrow();
        let posted = match bridge.as_ref() {
            Some(bridge) => bridge.post_folder(&SymbolsFolder { paths }, &handles),
            None => Err(JsValue::from_str("the decoding worker did not start")),
        };
        if let Err(e) = posted {
            web_sys::console::error_2(&"pgolens: cannot hand the folder to the worker".into(), &e);
        }
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

/// The drop's entries (`DataTransferItem.webkitGetAsEntry()`), files and folders.
fn drop_entries(transfer: &DataTransfer) -> Vec<JsValue> {
    let Ok(items) = Reflect::get(transfer, &"items".into()) else { return Vec::new() };
    let count = Reflect::get(&items, &"length".into()).ok().and_then(|n| n.as_f64()).unwrap_or(0.0) as u32;
    (0..count)
        .filter_map(|i| {
            let item = Reflect::get_u32(&items, i).ok()?;
            let entry = call(&item, "webkitGetAsEntry", &[])?;
            (!entry.is_null() && !entry.is_undefined()).then_some(entry)
        })
        .collect()
}

/// Every file under `folders` (`FileSystemDirectoryEntry`s), with its path from
/// the folder dropped (`sysroot/usr/lib/libc.so.6`).
async fn folder_files(folders: Vec<JsValue>) -> Result<Vec<(String, File)>, JsValue> {
    let mut files = Vec::new();
    let mut todo = folders;
    while let Some(folder) = todo.pop() {
        let reader = call(&folder, "createReader", &[]).ok_or("a folder without a reader")?;
        // readEntries hands out a folder's entries a batch at a time, then none.
        loop {
            let batch: Array = settled(&reader, "readEntries").await?.dyn_into()?;
            if batch.length() == 0 {
                break;
            }
            for entry in batch.iter() {
                if flag(&entry, "isDirectory") {
                    todo.push(entry);
                } else if flag(&entry, "isFile") {
                    let file: File = settled(&entry, "file").await?.dyn_into()?;
                    let path = text(&entry, "fullPath");
                    files.push((path.trim_start_matches('/').to_string(), file));
                }
            }
        }
    }
    Ok(files)
}

/// Calls `target.method(onSuccess, onError)` and waits for either.
async fn settled(target: &JsValue, method: &str) -> Result<JsValue, JsValue> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        if call(target, method, &[resolve.into(), reject.clone().into()]).is_none() {
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(method));
        }
    });
    JsFuture::from(promise).await
}

/// `target.method(...args)`, `None` when it is not a function or throws.
fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
    let function: Function = Reflect::get(target, &method.into()).ok()?.dyn_into().ok()?;
    function.apply(target, &args.iter().collect::<Array>()).ok()
}

fn flag(target: &JsValue, name: &str) -> bool {
    Reflect::get(target, &name.into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

fn text(target: &JsValue, name: &str) -> String {
    Reflect::get(target, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default()
}
