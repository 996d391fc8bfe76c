//! A recording read as it streams in: its records in perf's time order, from
//! chunks fed one after another, without the whole file in memory.
//!
//! What lies outside the record stream (file mode: the header, attrs and feature
//! sections) is read first, through a [`Fetch`]; then the record stream is fed in
//! chunks of any size. A record cut by a chunk's end waits for the next chunk;
//! records waiting for their turn in time order stay where they lie in the chunk
//! while it is walked, and only those still waiting when the walk ends are copied
//! (perf's rounds bound them to about two rounds' worth); compressed records are
//! unpacked as they come.
//! The records reach the visitor in the order [`PerfData::for_each_in_time_order`]
//! gives, each as [`PerfData::record_at`] decodes it.
//!
//! A pipe recording announces its events and features in the stream: the visitor
//! is given the recording as known so far, and a sample that comes before any
//! event is announced is an error, as perf reads it (the whole file's decode
//! finds events anywhere in the stream). Build ids, which perf writes into a pipe
//! recording after the records that need them (or at its end), are only sure to be
//! known to the recording [`PerfStream::finish`] returns.

use alloc::vec::Vec;

use super::file::{collect_metadata, relocate, Arrival, Fetch, TimeOrder};
use super::record::{self, next_record, parse_body, RecordHeader};
use super::{PerfData, Record, RecordAt, MAX_UNPACK_RATIO};
use crate::error::{Error, ErrorKind, Result};
use crate::read::Reader;

/// A record waiting for its turn.
#[derive(Clone, Copy)]
struct Waiting {
    /// Where its bytes are: in the arena, or (`in_walk`) at this index of the bytes
    /// being walked.
    start: usize,
    len: usize,
    /// Where it lies in the file (for an unpacked record: the compressed record).
    offset: u64,
    unpacked: bool,
    /// Still in the fed bytes being walked, not copied (a record released in the
    /// walk that read it, the most of them, is never copied: copying each was a
    /// twentieth of a high-frequency recording's decode).
    in_walk: bool,
}

/// A perf.data (file or pipe mode) read chunk by chunk.
pub struct PerfStream {
    /// The recording as known so far: no records are kept in it.
    perf: PerfData<'static>,
    /// The file offset of `pending[0]`.
    pending_at: u64,
    /// Bytes fed and not yet whole records.
    pending: Vec<u8>,
    /// Where the record stream ends.
    end: u64,
    /// Whether the data size was written (file mode): a record cut at `end` is an
    /// error, not a recording cut off.
    complete: bool,
    /// The records waiting for their turn (`None`: one delivered at once).
    order: TimeOrder<Option<Waiting>>,
    arena: Vec<u8>,
    /// The arena's spare twin, which the waiting records move to after a round.
    spare: Vec<u8>,
    unpacker: Option<super::zstd::Unpacker>,
    /// Unpacked bytes not yet whole records.
    unpacked: Vec<u8>,
    /// Unpacked bytes already taken as records (for the unpacking limit).
    unpacked_done: usize,
    last_compressed: u64,
    /// The most bytes the compressed records may unpack to.
    limit: usize,
    /// The recording's events were named (before its first sample).
    named: bool,
    /// How many events were known when the last sample or record with a sample_id
    /// trailer came (0: none came yet).
    read_by_events: usize,
    /// Samples released are not decoded nor visited ([`PerfStream::skip_samples`]).
    skip: Skip,
}

/// Whether samples are skipped, and whether one was visited yet.
#[derive(Clone, Copy, Default)]
struct Skip {
    samples: bool,
    visited_one: bool,
}

impl Skip {
    /// Whether a record of `kind` is skipped (the recording's first sample never is:
    /// its reader takes the events' names at it).
    fn skips(&mut self, kind: u32) -> bool {
        if kind != record::PERF_RECORD_SAMPLE {
            return false;
        }
        let skipped = self.samples && self.visited_one;
        self.visited_one = true;
        skipped
    }
}

/// The first step by which a record cut off between two chunks is completed.
const COMPLETE_STEP: usize = 4096;

impl PerfStream {
    /// Reads what lies outside the record stream of a recording of `len` bytes that
    /// begins with `head` (at least its header: 16 bytes for a pipe, 104 for a
    /// file; the whole file if shorter), the sections elsewhere read by `fetch`.
    /// Returns the stream and the offset of the first byte to feed it.
    pub fn start(head: &[u8], len: u64, fetch: &mut Fetch<'_>) -> Result<(PerfStream, u64)> {
        let (mut perf, (start, end), complete) = PerfData::head(head, len, fetch)?;
        if !perf.pipe {
            perf.name_events();
        }
        let limit = usize::try_from(len).unwrap_or(usize::MAX).saturating_mul(MAX_UNPACK_RATIO);
        let stream = PerfStream {
            named: !perf.pipe,
            perf,
            pending_at: start,
            pending: Vec::new(),
            end,
            complete,
            order: TimeOrder::default(),
            arena: Vec::new(),
            spare: Vec::new(),
            unpacker: None,
            unpacked: Vec::new(),
            unpacked_done: 0,
            last_compressed: start,
            limit,
            read_by_events: 0,
            skip: Skip::default(),
        };
        Ok((stream, start))
    }

    /// While `on`, the samples released (but the recording's first) are neither
    /// decoded nor visited: what a reader replaying the threads and maps of a part
    /// of the recording ([`crate::model::perf::StackReader::replay`]) reads. They
    /// are still read far enough to be put in time order, and counted.
    pub fn skip_samples(&mut self, on: bool) {
        self.skip.samples = on;
    }

    /// Feeds the next bytes of the file (the first at the offset [`PerfStream::start`]
    /// returned, each chunk right after the last); `visit` gets the records whose
    /// turn has come. Bytes past the record stream are ignored.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> Result<()> {
        if self.perf.truncated_at.is_some() {
            return Ok(());
        }
        let fed_end = self.pending_at.saturating_add(self.pending.len() as u64);
        let room = usize::try_from(self.end.saturating_sub(fed_end)).unwrap_or(usize::MAX);
        let chunk = chunk.get(..room).unwrap_or(chunk);
        // A record the last chunk cut off is completed with as much of this one as
        // it needs, copied in growing steps; the rest is walked where it lies (a
        // copy of every chunk was a tenth of a recording's decode).
        let mut copied = 0usize;
        while !self.pending.is_empty() && copied < chunk.len() && self.perf.truncated_at.is_none() {
            let step = self.pending.len().max(COMPLETE_STEP).min(chunk.len().saturating_sub(copied));
            let end = copied.saturating_add(step);
            self.pending.extend_from_slice(chunk.get(copied..end).unwrap_or_default());
            copied = end;
            let pending = core::mem::take(&mut self.pending);
            let (walked, taken) = self.walk_fed(&pending, visit);
            self.pending = pending;
            self.pending.drain(..taken.min(self.pending.len()));
            walked?;
            if self.pending_at >= fed_end {
                // Completed: what is left of the copy is walked in the chunk again.
                self.pending.clear();
            }
        }
        if !self.pending.is_empty() || self.perf.truncated_at.is_some() {
            return Ok(());
        }
        let from = usize::try_from(self.pending_at.saturating_sub(fed_end)).unwrap_or(usize::MAX);
        let rest = chunk.get(from..).unwrap_or_default();
        let (walked, taken) = self.walk_fed(rest, visit);
        // A record cut off by the chunk's end waits for the next.
        self.pending.extend_from_slice(rest.get(taken..).unwrap_or_default());
        walked
    }

    /// Walks the whole records of `bytes`, the fed bytes from `pending_at` on, and
    /// moves `pending_at` past them; returns how many bytes they took.
    fn walk_fed(
        &mut self,
        bytes: &[u8],
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> (Result<()>, usize) {
        let mut r = Reader::at_base(bytes, self.perf.endian, self.pending_at);
        let walked = self.whole_records(&mut r, None, bytes, visit);
        // The records still waiting move out of the walked bytes, which go.
        self.copy_walked(bytes);
        let taken = usize::try_from(r.offset().saturating_sub(self.pending_at)).unwrap_or(usize::MAX);
        self.pending_at = r.offset();
        (walked, taken)
    }

    /// Copies the waiting records that lie in `walked` to the arena.
    fn copy_walked(&mut self, walked: &[u8]) {
        let PerfStream { order, arena, .. } = self;
        copy_waiting(order, true, walked, arena);
    }

    /// Ends the stream once every byte was fed: releases the records still waiting
    /// and returns the recording (its metadata complete, without records).
    pub fn finish(
        mut self,
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> Result<PerfData<'static>> {
        if self.perf.truncated_at.is_none() && !self.pending.is_empty() {
            if self.complete {
                // The record runs past the data section: its own error.
                let mut r = Reader::at_base(&self.pending, self.perf.endian, self.pending_at);
                next_record(&mut r)?;
            }
            // perf reads every complete record of a recording that was cut off.
            self.perf.truncated_at = Some(self.pending_at);
        }
        if let Some(mut unpacker) = self.unpacker.take() {
            let limit = self.limit.saturating_sub(self.unpacked_done);
            unpacker.finish(&mut self.unpacked, limit, self.last_compressed)?;
            self.unpacked_records(self.last_compressed, visit)?;
        }
        if !self.unpacked.is_empty() {
            return Err(Error::malformed(self.last_compressed, "compressed records that end on a record boundary"));
        }
        let PerfStream { order, arena, perf, named, skip, .. } = &mut self;
        order.finish(&mut |w| w.map_or(Ok(()), |w| release(perf, (named, skip), arena, &[], w, visit)))?;
        self.perf.name_events();
        Ok(self.perf)
    }

    /// One record of the stream, in file order: its header, body and bytes
    /// (`unpacked`: from the compressed record at `at`). `walked`: the fed bytes
    /// being walked, which hold the record at `in_walk` unless it was unpacked.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        header: RecordHeader,
        mut body: Reader<'_>,
        raw: &[u8],
        at: u64,
        unpacked: bool,
        (walked, in_walk): (&[u8], usize),
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> Result<()> {
        if !unpacked && (header.kind == record::COMPRESSED || header.kind == record::COMPRESSED2) {
            let Record::Compressed { zstd } = parse_body(header, &mut body)? else {
                return Err(Error::malformed(at, "compressed record"));
            };
            // The unpacked records' rounds release from other bytes than these.
            self.copy_walked(walked);
            let limit = self.limit.saturating_sub(self.unpacked_done);
            let unpacker = self.unpacker.get_or_insert_with(super::zstd::Unpacker::new);
            unpacker.unpack(zstd, &mut self.unpacked, limit, at)?;
            self.last_compressed = at;
            return self.unpacked_records(at, visit);
        }
        self.perf.count = self.perf.count.saturating_add(1);
        self.perf.samples = self.perf.samples.saturating_add(usize::from(header.kind == record::PERF_RECORD_SAMPLE));
        let ids_before = self.perf.ids.len();
        collect_metadata(&mut self.perf.events, &mut self.perf.features, header, body)
            .map_err(|e| relocate(e, unpacked, at))?;
        if header.kind == record::HEADER_ATTR {
            self.perf.index_ids();
            // Records read while one event was known were taken for that event, and
            // those whose id the new event lists again for an earlier one: read
            // whole, the file's later events would decide them (and their times)
            // otherwise. perf writes every event before the records it decides.
            let listed = self.perf.events.last().map_or(0, |e| e.ids.len());
            let reused = self.perf.ids.len() < ids_before.saturating_add(listed);
            if self.perf.pipe && (self.read_by_events == 1 || self.read_by_events > 1 && reused) {
                return Err(Error::malformed(at, "every event (HEADER_ATTR) before the records it decides"));
            }
        }
        if header.kind == record::PERF_RECORD_SAMPLE || record::has_sample_id(header.kind) {
            self.read_by_events = self.perf.events.len();
        }
        // A kernel record's time lies in its sample_id trailer, read by the first
        // event's attr: in a pipe recording that announces no event before it, perf
        // (ordering records by time) cannot place it, and neither can the stream.
        // (Read whole, the file's later events would time it: the two would differ.)
        if self.perf.pipe && self.perf.events.is_empty() && record::has_sample_id(header.kind) {
            return Err(Error::malformed(at, "an event (HEADER_ATTR) before the first kernel record"));
        }
        let time = self.perf.time_of(header, &body).map_err(|e| relocate(e, unpacked, at))?;
        let waiting = TimeOrder::<Option<Waiting>>::waits(header.kind, time).then(|| {
            let (start, in_walk) = if unpacked {
                let start = self.arena.len();
                self.arena.extend_from_slice(raw);
                (start, false)
            } else {
                (in_walk, true)
            };
            Waiting { start, len: raw.len(), offset: at, unpacked, in_walk }
        });
        let PerfStream { order, arena, spare, perf, named, skip, .. } = self;
        match order.arrive(header.kind, time, waiting) {
            Arrival::Round => {
                order.round(&mut |w| w.map_or(Ok(()), |w| release(perf, (named, skip), arena, walked, w, visit)))?;
                // The records still waiting in the arena move to the front of the
                // spare one.
                spare.clear();
                copy_waiting(order, false, arena, spare);
                core::mem::swap(arena, spare);
                Ok(())
            }
            Arrival::Queued => Ok(()),
            Arrival::Now(_) => {
                name_before_samples(perf, named, header.kind);
                if skip.skips(header.kind) {
                    return Ok(());
                }
                match perf.decode(header, body, at) {
                    // Visited where it lies (see `release`).
                    Ok(ref record) => visit(perf, record),
                    Err(e) => Err(relocate(e, unpacked, at)),
                }
            }
        }
    }

    /// The whole records `r` holds, each given to [`PerfStream::record`]; `r` stops
    /// at the first that is not whole yet (its rest comes later). `compressed_at`:
    /// `r` holds what the compressed records up to the one at that offset unpacked.
    /// `walked`: all the bytes `r` reads, from its start.
    fn whole_records(
        &mut self,
        r: &mut Reader<'_>,
        compressed_at: Option<u64>,
        walked: &[u8],
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> Result<()> {
        let base = r.offset();
        while !r.is_empty() {
            let at = r.offset();
            let mut probe = *r;
            match next_record(&mut probe) {
                Ok((header, body)) => {
                    let raw = record_bytes(r, &probe);
                    let in_walk = usize::try_from(at.saturating_sub(base)).unwrap_or(usize::MAX);
                    let unpacked = compressed_at.is_some();
                    self.record(header, body, raw, compressed_at.unwrap_or(at), unpacked, (walked, in_walk), visit)?;
                    *r = probe;
                }
                Err(e) if matches!(e.kind, ErrorKind::UnexpectedEof { .. }) => break,
                Err(_)
                    if compressed_at.is_none() && self.perf.pipe && super::records::is_trailing_text(r.rest(), 0) =>
                {
                    self.perf.truncated_at = Some(at);
                    break;
                }
                Err(e) => return Err(relocate(e, compressed_at.is_some(), compressed_at.unwrap_or(at))),
            }
        }
        Ok(())
    }

    /// The whole records unpacked so far from compressed records (the last at `at`).
    fn unpacked_records(
        &mut self,
        at: u64,
        visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
    ) -> Result<()> {
        let unpacked = core::mem::take(&mut self.unpacked);
        let mut r = Reader::new(&unpacked, self.perf.endian);
        let walked = self.whole_records(&mut r, Some(at), &unpacked, visit);
        let taken = usize::try_from(r.offset()).unwrap_or(usize::MAX).min(unpacked.len());
        self.unpacked = unpacked;
        self.unpacked.drain(..taken);
        self.unpacked_done = self.unpacked_done.saturating_add(taken);
        walked
    }
}

/// Appends the waiting records that lie in the walked bytes (`in_walk`) or in the
/// arena (not) to `to`, from `from`, where they then lie.
fn copy_waiting(order: &mut TimeOrder<Option<Waiting>>, in_walk: bool, from: &[u8], to: &mut Vec<u8>) {
    for w in order.queued_mut().flatten().filter(|w| w.in_walk == in_walk) {
        let bytes = from.get(w.start..w.start.saturating_add(w.len)).unwrap_or_default();
        w.start = to.len();
        w.in_walk = false;
        to.extend_from_slice(bytes);
    }
}

/// A waiting record's turn: decoded from its copy, or where it lies in the bytes
/// being walked, and visited.
fn release(
    perf: &mut PerfData<'static>,
    (named, skip): (&mut bool, &mut Skip),
    arena: &[u8],
    walked: &[u8],
    w: Waiting,
    visit: &mut impl FnMut(&PerfData<'_>, &RecordAt<'_>) -> Result<()>,
) -> Result<()> {
    let from = if w.in_walk { walked } else { arena };
    let bytes = from.get(w.start..w.start.saturating_add(w.len)).unwrap_or_default();
    let mut r = Reader::at_base(bytes, perf.endian, if w.unpacked { 0 } else { w.offset });
    let (header, body) = next_record(&mut r).map_err(|e| relocate(e, w.unpacked, w.offset))?;
    name_before_samples(perf, named, header.kind);
    if skip.skips(header.kind) {
        return Ok(());
    }
    // Visited where it lies: moved out of its `Result`, a sample (half a kilobyte)
    // would be copied once more.
    match perf.decode(header, body, w.offset) {
        Ok(ref record) => visit(perf, record),
        Err(e) => Err(relocate(e, w.unpacked, w.offset)),
    }
}

/// A pipe recording's events are named once its first sample comes: the records
/// that announce them come before it. A HEADER_ATTR record adds an event (in a
/// file recording too, whose events were named from its header): the events are
/// named again before the next sample, as a recording read whole names them all.
fn name_before_samples(perf: &mut PerfData<'static>, named: &mut bool, kind: u32) {
    if kind == record::HEADER_ATTR {
        *named = false;
    }
    if !*named && kind == record::PERF_RECORD_SAMPLE {
        perf.name_events();
        *named = true;
    }
}

/// The bytes of the record `before` was at and `after` is past.
fn record_bytes<'a>(before: &Reader<'a>, after: &Reader<'a>) -> &'a [u8] {
    let len = usize::try_from(after.offset().saturating_sub(before.offset())).unwrap_or(usize::MAX);
    before.rest().get(..len).unwrap_or_default()
}
