//! `pgolens-worker`: the decoders, exported to the page's Web Worker.
//!
//! The worker's JS glue (`web/worker/worker.js`) owns one [`Session`] per open file.
//! It streams the file into wasm memory without an intermediate copy: [`Session::slot`]
//! grows the file and returns the address of the new bytes, which JS fills from the
//! chunk it just read. Every failure comes back as a JS `Error` whose message is the
//! decoder's (with its offset); nothing here panics on input.

extern crate alloc;

pub mod session;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Session(session::Session);

#[wasm_bindgen]
impl Session {
    /// A session for a file of about `size` bytes (reserved up front).
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, size: f64) -> Result<Session, JsError> {
        session::Session::new(name, offset(size)).map(Session).map_err(|e| JsError::new(&e))
    }

    /// Appends `len` bytes to the file and returns their address in wasm memory; the
    /// caller writes them before making any other call.
    pub fn slot(&mut self, len: usize) -> Result<usize, JsError> {
        let slot = self.0.slot(len).map_err(|e| JsError::new(&e))?;
        Ok(slot.as_mut_ptr() as usize)
    }

    /// Decodes the file: JSON with the summary, the root node and its children.
    pub fn finish(&mut self) -> Result<String, JsError> {
        self.0.finish().map_err(|e| JsError::new(&e))
    }

    /// JSON array: the children of the node at `path`.
    pub fn children(&mut self, path: &[u32]) -> Result<String, JsError> {
        self.0.children(path).map_err(|e| JsError::new(&e))
    }

    /// JSON: the path to the innermost node containing `offset`, with every level's children.
    pub fn path_to(&mut self, offset_: f64) -> Result<String, JsError> {
        self.0.path_to(offset(offset_)).map_err(|e| JsError::new(&e))
    }

    /// JSON: a page of the function table (see `session::Session::functions`).
    pub fn functions(
        &mut self,
        column: &str,
        descending: bool,
        filter: &str,
        start: u32,
        count: u32,
    ) -> Result<String, JsError> {
        self.0.functions(column, descending, filter, start, count).map_err(|e| JsError::new(&e))
    }

    /// JSON: the profile summary.
    pub fn summary(&mut self) -> Result<String, JsError> {
        self.0.summary().map_err(|e| JsError::new(&e))
    }

    /// JSON: one function's detail, by table row id.
    pub fn function(&mut self, id: u32) -> Result<String, JsError> {
        self.0.function(id).map_err(|e| JsError::new(&e))
    }

    /// JSON: a page of MemProf allocation sites (see `session::Session::memprof`).
    pub fn memprof(&mut self, column: &str, descending: bool, start: u32, count: u32) -> Result<String, JsError> {
        self.0.memprof(column, descending, start, count).map_err(|e| JsError::new(&e))
    }

    /// JSON: one allocation site with its call stack.
    pub fn memprof_site(&mut self, id: u32) -> Result<String, JsError> {
        self.0.memprof_site(id).map_err(|e| JsError::new(&e))
    }

    /// Decodes this correlated raw profile with `binary`, the session of its ELF,
    /// whose bytes are read in place in wasm memory. JSON: the views and the binary's name.
    pub fn correlate(&mut self, binary: &Session) -> Result<String, JsError> {
        self.0.correlate(&binary.0).map_err(|e| JsError::new(&e))
    }

    /// The decoded bytes in `start..end` (clipped).
    pub fn bytes(&self, start: f64, end: f64) -> Vec<u8> {
        self.0.bytes(offset(start), offset(end))
    }
}

/// JS numbers carry offsets; anything negative or not a number is 0, anything huge saturates.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn offset(n: f64) -> u64 {
    n as u64
}
