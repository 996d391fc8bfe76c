//! `pgolens-worker`: the decoders behind the page's Web Worker.
//!
//! One [`Worker`] holds a [`session::Session`] per open document and speaks the
//! typed protocol (`pgolens-protocol`): it takes each [`Envelope`] the page posts,
//! answers it, and posts the [`FromWorker`] reply itself (bulk arrays transferred,
//! not copied). The JS glue (`web/worker/worker.js`) only does what wasm cannot: it
//! streams a dropped `File` into wasm memory without an intermediate copy
//! ([`Worker::slot`] grows the document and returns the address JS fills), then
//! calls [`Worker::finish`]. Nothing here panics on input.

extern crate alloc;

pub mod bat;
pub mod bolt;
pub mod sample;
pub mod session;
pub mod stacks;
pub mod symbols;
pub mod synthetic;
pub mod tables;

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use pgolens_protocol::{DocId, Envelope, Failure, FromWorker, Reply, ReqId, Request};

use session::Session;

/// The open documents, and how a request about one is answered. Native code (the
/// tests) calls [`Sessions::answer`]; the wasm [`Worker`] wraps it.
#[derive(Default)]
pub struct Sessions {
    open: BTreeMap<DocId, Session>,
    /// The recordings' DSOs, found on the first status or folder asked for.
    symbols: BTreeMap<DocId, symbols::Known>,
    /// A folder whose files are being probed and read.
    folder: Option<symbols::Folder>,
    /// The recordings the last folder was given to (or is being given to): one
    /// opened later is given it too, when the glue offers it again.
    given_folder: BTreeSet<DocId>,
    /// The recordings the folder being read is for (picked in [`Sessions::folder_pick`]).
    folder_docs: Vec<DocId>,
}

impl Sessions {
    pub fn insert(&mut self, doc: DocId, session: Session) {
        self.open.insert(doc, session);
    }

    pub fn get_mut(&mut self, doc: DocId) -> Result<&mut Session, Failure> {
        self.open.get_mut(&doc).ok_or_else(|| Failure::new("this file is no longer open"))
    }

    /// The reply to `request` about `doc` (`None` for [`Request::Close`]).
    pub fn answer(&mut self, doc: DocId, request: Request) -> Option<Reply> {
        if request == Request::Close {
            self.open.remove(&doc);
            self.symbols.remove(&doc);
            self.given_folder.remove(&doc);
            return None;
        }
        Some(self.reply(doc, request).unwrap_or_else(Reply::Failed))
    }

    fn reply(&mut self, doc: DocId, request: Request) -> Result<Reply, Failure> {
        if self.needs_bytes(doc, &request) {
            return Err(Failure::new(
                "the file's bytes were not kept (it was decoded as it streamed in): read it again",
            ));
        }
        // Requests naming other documents borrow them while `doc` is out of the map.
        if let Request::Correlate { binary } = request {
            let mut session = self.open.remove(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
            let result = match self.open.get(&binary) {
                Some(elf) => session.correlate(binary, elf).map(|views| Reply::Correlated {
                    binary,
                    binary_name: elf.name().into(),
                    views,
                }),
                None => Err(Failure::new("the binary is no longer open")),
            };
            self.open.insert(doc, session);
            return result;
        }
        if let Request::BoltCfg { function } = request {
            let start = now_ms();
            let (binary, bolted) =
                self.open.get(&doc).map_or((None, None), |s| (s.bolt_binary(), s.bolt_translated_with()));
            // The BOLTed binary's code is not the translated profile's: its BAT gives the blocks.
            let binary = binary.filter(|&b| b != doc && Some(b) != bolted);
            let mut session = self.open.remove(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
            let (binary, bolted) = (binary.and_then(|b| self.open.get(&b)), bolted.and_then(|b| self.open.get(&b)));
            let result = session.bolt_cfg(function, binary, bolted);
            self.open.insert(doc, session);
            let mut graph = result?;
            graph.layout_ms = now_ms() - start;
            return Ok(Reply::BoltCfg(alloc::boxed::Box::new(graph)));
        }
        if let Request::Symbolize { binaries } = &request {
            let mut session = self.open.remove(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
            let added = binaries.iter().try_for_each(|b| match self.open.get(b) {
                Some(file) => session.symbolize_add(file),
                None => Err(Failure::new("a binary is no longer open")),
            });
            let result = added.and_then(|()| session.symbolize());
            self.open.insert(doc, session);
            let (stacks, with) = result?;
            return Ok(Reply::Symbolized { stacks, with });
        }
        if request == Request::Symbols {
            return self.symbol_status(doc).map(|status| Reply::Symbols(Box::new(status)));
        }
        if let Request::BatFunction { row } = request {
            // The newest profile translated through this binary's BAT counts its blocks.
            let profile =
                self.open.iter().rev().find(|(&id, p)| id != doc && p.translated_profile(doc)).map(|(_, p)| p);
            let s = self.open.get(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
            return Ok(Reply::BatFunction(alloc::boxed::Box::new(s.bat_function(row, profile)?)));
        }
        let s = self.get_mut(doc)?;
        Ok(match request {
            Request::Children { path } => Reply::Children { nodes: s.children(&path)?, path },
            Request::Bytes { start, end } => Reply::Bytes { start, bytes: s.bytes(start, end).into() },
            Request::PathTo { offset } => {
                let (path, levels) = s.path_to(offset)?;
                Reply::Path { offset, path, levels }
            }
            Request::Reveal { path } => {
                let (offset, (path, levels)) = s.reveal(&path)?;
                Reply::Path { offset, path, levels }
            }
            Request::Table { query, start, count } => Reply::Table(s.table(&query, start, count)?),
            Request::Summary => {
                let (summary, cs_summary) = s.summary()?;
                Reply::Summary { summary, cs_summary }
            }
            Request::Function { row } => Reply::Function(alloc::boxed::Box::new(s.function(row)?)),
            Request::MemProfSite { site } => Reply::MemProfSite(alloc::boxed::Box::new(s.memprof_site(site)?)),
            Request::Flame { samples, inverted, order } => {
                let layout = s.flame(&samples, inverted, order)?;
                Reply::Flame { samples, inverted, order, layout }
            }
            Request::StackChart { samples, columns } => {
                let chart = s.stack_chart(&samples, columns)?;
                Reply::StackChart { samples, columns, chart }
            }
            Request::CallTree { samples, inverted } => {
                let tree = s.call_tree(&samples, inverted)?;
                Reply::CallTree { samples, inverted, tree }
            }
            Request::Sandwich { samples, frame } => {
                let (callers, callees) = s.sandwich(&samples, frame)?;
                Reply::Sandwich { samples, frame, callers, callees }
            }
            Request::FrameNames => Reply::FrameNames(Box::new(s.frame_names()?)),
            Request::Search { samples, pattern } => {
                let found = s.search(&samples, &pattern)?;
                Reply::Search { samples, pattern, found }
            }
            Request::Timeline { event, bins } => Reply::Timeline(s.timeline(event, bins)?),
            Request::ExportBolt { yaml } => {
                let (name, bytes) = s.export_bolt(yaml)?;
                Reply::Exported { name, bytes: bytes.into() }
            }
            Request::SampleFunction { row } => Reply::SampleFunction(alloc::boxed::Box::new(s.sample_function(row)?)),
            Request::ExportSample { to } => {
                let (name, bytes) = s.export_sample(to)?;
                Reply::Exported { name, bytes: bytes.into() }
            }
            Request::Correlate { .. }
            | Request::Symbolize { .. }
            | Request::Symbols
            | Request::BoltCfg { .. }
            | Request::BatFunction { .. }
            | Request::Close => {
                return Err(Failure::new("request handled above"));
            }
        })
    }

    /// What names `doc`'s frames (see [`symbols::status`]).
    pub fn symbol_status(&mut self, doc: DocId) -> Result<pgolens_protocol::SymbolStatus, Failure> {
        self.known(doc)?;
        let session = self.open.get(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
        let known = self.symbols.get(&doc).ok_or_else(|| Failure::new("this file has no call stacks"))?;
        Ok(symbols::status(known, &session.symbol_files()))
    }

    /// The DSOs of recording `doc`, found once.
    fn known(&mut self, doc: DocId) -> Result<&mut symbols::Known, Failure> {
        if !self.symbols.contains_key(&doc) {
            let session = self.open.get(&doc).ok_or_else(|| Failure::new("this file is no longer open"))?;
            let dsos = session.recording_dsos()?;
            self.symbols.insert(doc, symbols::Known { dsos, scan: None });
        }
        self.symbols.get_mut(&doc).ok_or_else(|| Failure::new("this file has no call stacks"))
    }

    /// Whether `doc`'s bytes must be read again before `request` is answered (see
    /// [`Session::needs_bytes`]): the glue reads them into [`Session::slot`]s, calls
    /// [`Session::loaded`], and asks again.
    pub fn needs_bytes(&self, doc: DocId, request: &Request) -> bool {
        self.open.get(&doc).is_some_and(|s| s.needs_bytes(request))
    }

    /// The recordings the folder being read names frames of that must be read
    /// again before [`Sessions::folder_finish`]: their stack copies are unwound anew.
    pub fn folder_needs_bytes(&self) -> Vec<DocId> {
        let Some(folder) = &self.folder else { return Vec::new() };
        let unwinding = Request::Symbolize { binaries: Vec::new() };
        let wanted = |doc: &&DocId| {
            let (Some(session), Some(known)) = (self.open.get(doc), self.symbols.get(doc)) else { return false };
            session.needs_bytes(&unwinding) && !folder.files_for(&known.dsos).is_empty()
        };
        self.folder_docs.iter().filter(wanted).copied().collect()
    }

    /// Starts probing a folder's files (`paths` in it, and their sizes). `again`:
    /// the last folder, offered again for the recordings opened since it was given.
    pub fn folder_start(&mut self, paths: Vec<String>, sizes: Vec<u64>, again: bool) {
        if !again {
            self.given_folder.clear();
        }
        self.folder = Some(symbols::Folder::new(paths, sizes));
    }

    /// The recordings open now that the last folder was not given to.
    fn without_folder(&self) -> Vec<DocId> {
        self.open
            .iter()
            .filter(|(id, s)| s.is_recording() && !self.given_folder.contains(id))
            .map(|(&id, _)| id)
            .collect()
    }

    /// Whether a recording opened since the last folder was given wants it.
    pub fn folder_wanted(&self) -> bool {
        !self.without_folder().is_empty()
    }

    /// See [`symbols::Folder::probe`].
    pub fn folder_probe(&mut self, index: usize, offset: u64, bytes: Vec<u8>) -> Option<(u64, u64)> {
        self.folder.as_mut()?.probe(index, offset, bytes)
    }

    /// The folder's files to read in full for the open recordings (their DSOs found
    /// now if not yet).
    pub fn folder_pick(&mut self) -> Vec<usize> {
        let recordings = self.without_folder();
        // A recording that cannot be read has no DSOs to match: its own view says why.
        let found: Vec<DocId> = recordings.into_iter().filter(|&doc| self.known(doc).is_ok()).collect();
        self.folder_docs.clone_from(&found);
        let Some(folder) = &mut self.folder else { return Vec::new() };
        let dsos = found.iter().filter_map(|doc| self.symbols.get(doc)).map(|k| k.dsos.as_slice());
        folder.picked = folder.pick(dsos);
        folder.picked.clone()
    }

    /// A buffer for file `index` of the folder, `len` bytes, for the caller to fill.
    pub fn folder_slot(&mut self, index: usize, len: usize) -> Result<&mut [u8], Failure> {
        self.folder.as_mut().ok_or_else(|| Failure::new("no folder is being read"))?.slot(index, len)
    }

    /// File `index` of the folder was read whole into its slot.
    pub fn folder_filled(&mut self, index: usize) {
        if let Some(folder) = &mut self.folder {
            folder.filled(index);
        }
    }

    /// Symbolizes every open recording with the folder's files read in full: for
    /// each, its new stacks ([`Reply::Symbolized`]) and its status ([`Reply::Symbols`]).
    /// A picked file whose read failed is left out and named in the status; the
    /// recordings then still want the folder (offered again, it is read again).
    pub fn folder_finish(&mut self) -> Vec<FromWorker> {
        let Some(folder) = self.folder.take() else { return Vec::new() };
        let scan = folder.scan();
        let unread = folder.unread();
        let docs = core::mem::take(&mut self.folder_docs);
        if unread.is_empty() {
            self.given_folder.extend(docs.iter().copied());
        }
        let unread = (!unread.is_empty()).then(|| alloc::format!("could not be read: {}", unread.join(", ")));
        let mut messages = Vec::new();
        for doc in docs {
            let (Some(session), Some(known)) = (self.open.get_mut(&doc), self.symbols.get_mut(&doc)) else { continue };
            known.scan = Some(scan);
            let files = folder.files_for(&known.dsos);
            let added = files.iter().try_for_each(|(name, data, kallsyms)| {
                session.symbolize_add_file(name, alloc::rc::Rc::clone(data), *kallsyms)
            });
            // Not a `Reply::Failed`: without a `req` that would say the open failed.
            let mut error = None;
            if !files.is_empty() {
                match added.and_then(|()| session.symbolize()) {
                    Ok((stacks, with)) => messages.push(message(doc, None, Reply::Symbolized { stacks, with })),
                    Err(e) => error = Some(e.message),
                }
            }
            let mut status = symbols::status(known, &session.symbol_files());
            if let Some(unread) = &unread {
                error = Some(error.map_or_else(|| unread.clone(), |e| alloc::format!("{e}; {unread}")));
            }
            status.error = error;
            messages.push(message(doc, None, Reply::Symbols(Box::new(status))));
        }
        messages
    }

    /// Answers one envelope: the message to post, if any.
    pub fn handle(&mut self, envelope: Envelope) -> Option<FromWorker> {
        let Envelope { doc, req, request } = envelope;
        self.answer(doc, request).map(|reply| FromWorker { doc, req: Some(req), reply })
    }
}

/// A reply to post for `req` (`None`: the open) of `doc`.
pub fn message(doc: DocId, req: Option<ReqId>, reply: Reply) -> FromWorker {
    FromWorker { doc, req, reply }
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use alloc::string::String;

    use alloc::vec::Vec;

    use pgolens_protocol::{wire, DocId, Envelope, Failure, FromWorker, OpenFile, Phase, Reply, SymbolsFolder};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::session::{FirstPart, Session};
    use crate::{message, Sessions};

    /// Reads `len` bytes of the file at `at` through the glue's `fetch(offset, len)`
    /// (a `Uint8Array`, read synchronously).
    fn fetched(fetch: &js_sys::Function, at: u64, len: u64, expected: &'static str) -> pgolens::Result<Vec<u8>> {
        let bytes = fetch.call2(&JsValue::NULL, &JsValue::from(at as f64), &JsValue::from(len as f64));
        let bytes = bytes.ok().and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok());
        match bytes.map(|b| b.to_vec()) {
            Some(bytes) if bytes.len() as u64 == len => Ok(bytes),
            _ => Err(pgolens::Error::eof(at, expected)),
        }
    }

    /// The first part of a recording read by two workers, in the helper worker
    /// ([`FirstPart`]): its records up to the cut the other worker picked
    /// ([`Worker::stream_split`]), handed over as bytes ([`Worker::stream_join`]).
    #[wasm_bindgen]
    pub struct FirstPartReader {
        part: Option<FirstPart>,
        start: Option<f64>,
    }

    #[wasm_bindgen]
    impl FirstPartReader {
        /// Starts reading a recording of `size` bytes; `fetch` as for [`Worker::stream_start`].
        #[wasm_bindgen(constructor)]
        pub fn new(size: f64, fetch: &js_sys::Function) -> FirstPartReader {
            let mut read = |at: u64, len: u64, expected: &'static str| fetched(fetch, at, len, expected);
            match FirstPart::start(offset(size), &mut read) {
                Some((part, start)) => FirstPartReader { part: Some(part), start: Some(start as f64) },
                None => FirstPartReader { part: None, start: None },
            }
        }

        /// The offset to feed the records from (up to the cut), or nothing when the
        /// file is no recording the stream reads.
        pub fn start(&self) -> Option<f64> {
            self.start
        }

        /// Feeds the next block; `false` when the stream rejected the file.
        pub fn feed(&mut self, block: &[u8]) -> bool {
            self.part.as_mut().is_some_and(|p| p.feed(block))
        }

        /// The part read, once every block up to the cut was fed.
        pub fn end(&mut self) -> Option<Vec<u8>> {
            self.part.take().map(FirstPart::end)
        }
    }

    /// Posts `msg` to the page, its bulk arrays transferred.
    fn post(msg: &FromWorker) {
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        match wire::to_js(msg) {
            Ok((value, transfer)) => {
                let _ = scope.post_message_with_transfer(&value, &transfer);
            }
            Err(e) => {
                let fallback = message(msg.doc, msg.req, Reply::Failed(Failure::new(alloc::format!("{e:?}"))));
                if let Ok((value, _)) = wire::to_js(&fallback) {
                    let _ = scope.post_message(&value);
                }
            }
        }
    }

    fn fail_open(doc: DocId, failure: Failure) {
        post(&message(doc, None, Reply::Failed(failure)));
    }

    #[wasm_bindgen]
    #[derive(Default)]
    pub struct Worker(Sessions);

    #[wasm_bindgen]
    impl Worker {
        #[wasm_bindgen(constructor)]
        pub fn new() -> Worker {
            Worker::default()
        }

        /// Starts document `open.doc` of about `size` bytes (reserved up front);
        /// returns its id, or `None` after posting why it cannot be opened.
        pub fn open(&mut self, open: JsValue, size: f64) -> Option<DocId> {
            let OpenFile { doc, name } = match wire::from_js::<OpenFile>(open) {
                Ok(o) => o,
                Err(e) => {
                    fail_open(DocId::MAX, Failure::new(alloc::format!("not an open message: {e}")));
                    return None;
                }
            };
            match Session::new(name, offset(size)) {
                Ok(session) => {
                    self.0.insert(doc, session);
                    Some(doc)
                }
                Err(e) => {
                    fail_open(doc, e);
                    None
                }
            }
        }

        /// Appends `len` bytes to `doc` and returns their address in wasm memory; the
        /// caller writes them before making any other call. 0 after posting a failure.
        pub fn slot(&mut self, doc: DocId, len: usize) -> usize {
            match self.0.get_mut(doc).and_then(|s| s.slot(len).map(|slot| slot.as_mut_ptr() as usize)) {
                Ok(address) => address,
                Err(e) => {
                    self.0.answer(doc, pgolens_protocol::Request::Close);
                    fail_open(doc, e);
                    0
                }
            }
        }

        /// Starts decoding `doc` (`size` bytes) as it streams in, when it is a
        /// recording that can be (see [`Session::stream_start`]): `fetch(offset, len)`
        /// returns those bytes of the file (a `Uint8Array`, read synchronously).
        /// Returns the offset to feed it from ([`Worker::feed`]), or nothing: read it
        /// whole into [`Worker::slot`]s.
        pub fn stream_start(&mut self, doc: DocId, size: f64, fetch: &js_sys::Function) -> Option<f64> {
            let mut read = |at: u64, len: u64, expected: &'static str| fetched(fetch, at, len, expected);
            let session = self.0.get_mut(doc).ok()?;
            session.stream_start(offset(size), &mut read).map(|start| start as f64)
        }

        /// Reads `doc`, a recording whose records take at least `min` bytes, in two
        /// parts ([`Session::stream_split`]): returns the offset of the cut, up to
        /// which a helper worker's [`FirstPartReader`] reads it. Nothing: read alone.
        pub fn stream_split(&mut self, doc: DocId, min: f64) -> Option<f64> {
            let session = self.0.get_mut(doc).ok()?;
            session.stream_split(offset(min)).map(|cut| cut as f64)
        }

        /// Hands over the first part of `doc` ([`FirstPartReader::end`]'s bytes);
        /// `false` when they cannot be read (the stream then fails at its end).
        pub fn stream_join(&mut self, doc: DocId, part: &[u8]) -> bool {
            self.0.get_mut(doc).is_ok_and(|session| session.stream_join(part))
        }

        /// Feeds `doc`'s next block: 1 to go on, 2 when the stream rejected the file
        /// (read it whole from its start instead), 0 when it is no longer open.
        pub fn feed(&mut self, doc: DocId, block: &[u8]) -> u32 {
            match self.0.get_mut(doc).map(|session| session.feed(block)) {
                Ok(true) => 1,
                Ok(false) => 2,
                Err(_) => 0,
            }
        }

        /// Ends `doc`'s stream: `false` when it rejected the file (read it whole instead).
        pub fn stream_end(&mut self, doc: DocId) -> bool {
            self.0.get_mut(doc).is_ok_and(Session::stream_end)
        }

        /// Appends `len` bytes to `doc`, a file decoded as it streamed in and read
        /// again for a request that needs its bytes; returns their address (filled
        /// by the caller before any other call). Throws when they do not fit.
        pub fn read_slot(&mut self, doc: DocId, len: usize) -> Result<usize, JsValue> {
            let session = self.0.get_mut(doc).map_err(|e| JsValue::from_str(&e.message))?;
            let slot = session.slot(len).map_err(|e| JsValue::from_str(&e.message))?;
            Ok(slot.as_mut_ptr() as usize)
        }

        /// `doc` was read again into [`Worker::read_slot`]s (or its read failed):
        /// throws why the bytes cannot be used.
        pub fn loaded(&mut self, doc: DocId) -> Result<(), JsValue> {
            let session = self.0.get_mut(doc).map_err(|e| JsValue::from_str(&e.message))?;
            session.loaded().map_err(|e| JsValue::from_str(&e.message))
        }

        /// Whether `doc` is open (the glue forgets a closed recording's file).
        pub fn is_open(&self, doc: DocId) -> bool {
            self.0.open.contains_key(&doc)
        }

        /// The recordings to read again before [`Worker::folder_finish`].
        pub fn folder_needs_bytes(&self) -> Vec<DocId> {
            self.0.folder_needs_bytes()
        }

        /// Posts how much of `doc` has been read.
        pub fn progress(&self, doc: DocId, loaded: f64, total: f64) {
            post(&message(
                doc,
                None,
                Reply::Progress { loaded: offset(loaded), total: offset(total), phase: Phase::Read },
            ));
        }

        /// Decodes `doc` and posts what it opened as (or why it could not), with the
        /// decoders' progress on the way (at most every 1% of their steps).
        pub fn finish(&mut self, doc: DocId) {
            post(&message(doc, None, Reply::Progress { loaded: 0, total: 0, phase: Phase::Decode }));
            let mut reported = u64::MAX;
            let mut progress = |done: u64, total: u64| {
                let percent = done.saturating_mul(100).checked_div(total.max(1)).unwrap_or(0);
                if percent != reported {
                    reported = percent;
                    post(&message(doc, None, Reply::Progress { loaded: done, total, phase: Phase::Decode }));
                }
            };
            let opened = self.0.get_mut(doc).and_then(|s| s.finish_with(&mut progress));
            match opened {
                Ok(opened) => post(&message(doc, None, Reply::Opened(alloc::boxed::Box::new(opened)))),
                Err(e) => {
                    self.0.answer(doc, pgolens_protocol::Request::Close);
                    fail_open(doc, e);
                }
            }
        }

        /// Starts reading a dropped folder: `header` is its [`SymbolsFolder`], `sizes`
        /// its files' sizes. The glue then probes each file ([`Worker::folder_probe`]),
        /// reads those [`Worker::folder_pick`] names into [`Worker::folder_slot`]s and
        /// calls [`Worker::folder_finish`].
        /// `again`: the last folder, offered again to the recordings opened since
        /// (when [`Worker::folder_wanted`] says one wants it).
        pub fn folder_start(&mut self, header: JsValue, sizes: Vec<f64>, again: bool) -> bool {
            match wire::from_js::<SymbolsFolder>(header) {
                Ok(folder) => {
                    self.0.folder_start(folder.paths, sizes.into_iter().map(offset).collect(), again);
                    true
                }
                Err(_) => false,
            }
        }

        /// Takes `bytes` read at `at` of the folder's file `index` (none at first) and
        /// returns the next slice to read, `[offset, len]`, or nothing once it is known.
        pub fn folder_probe(&mut self, index: u32, at: f64, bytes: Vec<u8>) -> Vec<f64> {
            match self.0.folder_probe(index as usize, offset(at), bytes) {
                Some((start, len)) => alloc::vec![start as f64, len as f64],
                None => Vec::new(),
            }
        }

        /// The folder's files to read in full.
        pub fn folder_pick(&mut self) -> Vec<u32> {
            self.0.folder_pick().into_iter().filter_map(|i| u32::try_from(i).ok()).collect()
        }

        /// The address of a `len`-byte buffer for file `index`, which the caller fills
        /// before any other call; 0 when it does not fit.
        pub fn folder_slot(&mut self, index: u32, len: usize) -> usize {
            self.0.folder_slot(index as usize, len).map_or(0, |slot| slot.as_mut_ptr() as usize)
        }

        /// Whether a recording opened since the last folder was given wants it.
        pub fn folder_wanted(&self) -> bool {
            self.0.folder_wanted()
        }

        /// File `index` of the folder was read whole into its slot.
        pub fn folder_filled(&mut self, index: u32) {
            self.0.folder_filled(index as usize);
        }

        /// Symbolizes the open recordings with the folder and posts their stacks and status.
        pub fn folder_finish(&mut self) {
            for msg in self.0.folder_finish() {
                post(&msg);
            }
        }

        /// Posts `doc`'s fingerprint, hashed by the JS glue as it read the file.
        pub fn fingerprint(&self, doc: DocId, hex: String, size: f64) {
            post(&message(doc, None, Reply::Fingerprint { hex, size: offset(size) }));
        }

        /// Forgets `doc` (a read cancelled because the page closed it).
        pub fn close(&mut self, doc: DocId) {
            self.0.answer(doc, pgolens_protocol::Request::Close);
        }

        /// Answers one posted [`Envelope`], or returns the document whose bytes must
        /// be read again first ([`Worker::read_slot`], [`Worker::loaded`]); the glue
        /// then hands the envelope over again.
        pub fn handle(&mut self, msg: JsValue) -> Option<DocId> {
            match wire::from_js::<Envelope>(msg) {
                Ok(envelope) if self.0.needs_bytes(envelope.doc, &envelope.request) => return Some(envelope.doc),
                Ok(envelope) => {
                    if let Some(reply) = self.0.handle(envelope) {
                        post(&reply);
                    }
                }
                Err(e) => {
                    post(&message(DocId::MAX, None, Reply::Failed(Failure::new(alloc::format!("bad request: {e}")))))
                }
            }
            None
        }

        /// Posts that a request (or, without `req`, the open) of `doc` failed outside
        /// the decoders: a trap (a bug, said plainly) or a read error in JS.
        pub fn fail(&mut self, doc: DocId, req: Option<f64>, message_: String) {
            if req.is_none() {
                self.0.answer(doc, pgolens_protocol::Request::Close);
            }
            post(&message(doc, req.map(offset), Reply::Failed(Failure::new(message_))));
        }
    }

    /// JS numbers carry offsets; anything negative or not a number is 0, anything huge saturates.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn offset(n: f64) -> u64 {
        n as u64
    }
}

/// The worker's clock in milliseconds (`performance.now()`); 0 natively, where
/// the benches time things themselves.
fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
        let now = performance.as_ref().and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok());
        let now = now.and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok());
        if let (Some(now), Some(performance)) = (now, performance) {
            return now.call0(&performance).ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        }
    }
    0.0
}
