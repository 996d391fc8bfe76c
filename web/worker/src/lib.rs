//! `pgolens-worker`: the decoders, exported to the page's Web Worker.
//!
//! The worker's JS glue (`web/worker/worker.js`) owns one [`Session`] per open file.
//! It streams the file into wasm memory without an intermediate copy: [`Session::slot`]
//! grows the file and returns the address of the new bytes, which JS fills from the
//! chunk it just read. Every failure comes back as a JS `Error` whose message is the
//! decoder's (with its offset); nothing here panics on input.

extern crate alloc;

pub mod session;
pub mod stacks;
pub mod synthetic;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `self.pgolensProgress(done, total)`, set by worker.js: posts decode progress.
    #[wasm_bindgen(js_namespace = self, js_name = pgolensProgress)]
    fn decode_progress(done: f64, total: f64);
}

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
        // JS numbers: exact for any count of records a file can hold.
        #[allow(clippy::cast_precision_loss)]
        let mut progress = |done: u64, total: u64| decode_progress(done as f64, total as f64);
        self.0.finish_with(&mut progress).map_err(|e| JsError::new(&e))
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

    /// Adds an open ELF binary or kallsyms file to those this perf.data's frames
    /// are named from (its bytes are shared in wasm memory, not copied).
    pub fn symbolize_add(&mut self, binary: &Session) -> Result<(), JsError> {
        self.0.symbolize_add(&binary.0).map_err(|e| JsError::new(&e))
    }

    /// Rebuilds this perf.data's call stacks with the files added. JSON:
    /// `{"stacks":{...},"symbolizedWith":[names]}`.
    pub fn symbolize(&mut self) -> Result<String, JsError> {
        self.0.symbolize().map_err(|e| JsError::new(&e))
    }

    /// Lays out the flame graph (`inverted`: icicle) of `event`'s samples in `t0..t1`
    /// (all when not `t0 < t1`); returns the number of rectangles.
    pub fn flame(&mut self, event: u32, t0: f64, t1: f64, inverted: bool) -> Result<u32, JsError> {
        let n = self.0.flame(event, t0, t1, inverted).map_err(|e| JsError::new(&e))?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Lays out the callers (slot 1) and callees (slot 2) of `frame`.
    pub fn sandwich(&mut self, event: u32, t0: f64, t1: f64, frame: u32) -> Result<(), JsError> {
        self.0.sandwich(event, t0, t1, frame).map_err(|e| JsError::new(&e))
    }

    /// Float64Array: `[x0, width, self, frame]` per rectangle of slot `slot`, by depth then x.
    pub fn flame_rects(&mut self, slot: u32) -> Result<Vec<f64>, JsError> {
        self.0.flame_rects(slot as usize).map_err(|e| JsError::new(&e))
    }

    /// Uint32Array: where each depth's rectangles start, and the end.
    pub fn flame_rows(&mut self, slot: u32) -> Result<Vec<u32>, JsError> {
        self.0.flame_rows(slot as usize).map_err(|e| JsError::new(&e))
    }

    /// JSON: one rectangle with its stack.
    pub fn flame_node(&mut self, slot: u32, rect: u32) -> Result<String, JsError> {
        self.0.flame_node(slot as usize, rect).map_err(|e| JsError::new(&e))
    }

    /// JSON: every frame's name, dso and kind.
    pub fn frame_names(&mut self) -> Result<String, JsError> {
        self.0.frame_names().map_err(|e| JsError::new(&e))
    }

    /// JSON: a page of the stack functions table.
    #[allow(clippy::too_many_arguments)]
    pub fn stack_functions(
        &mut self,
        event: u32,
        t0: f64,
        t1: f64,
        column: &str,
        descending: bool,
        filter: &str,
        start: u32,
        count: u32,
    ) -> Result<String, JsError> {
        self.0.stack_functions(event, t0, t1, column, descending, filter, start, count).map_err(|e| JsError::new(&e))
    }

    /// JSON: the frames matching `pattern`, and the weight of the stacks holding one.
    pub fn search(&mut self, event: u32, t0: f64, t1: f64, pattern: &str) -> Result<String, JsError> {
        self.0.search(event, t0, t1, pattern).map_err(|e| JsError::new(&e))
    }

    /// JSON: `event`'s weight in `bins` time buckets.
    pub fn timeline(&mut self, event: u32, bins: u32) -> Result<String, JsError> {
        self.0.timeline(event, bins).map_err(|e| JsError::new(&e))
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
