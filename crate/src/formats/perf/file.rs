//! [`PerfData`]: a whole recording, file or pipe mode, with its events, features
//! and an index of its records in file order.
//!
//! Parsing walks the records once: it unpacks COMPRESSED records (whose inner
//! records may straddle two compressed records), collects the pipe-mode metadata
//! records, and remembers where every record starts. Records are decoded on demand
//! from that index, so a 500 MB recording costs 8 bytes per record until it is read.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::attr::Attr;
use super::features::Features;
use super::record::{self, next_record, parse_body, Record, RecordAt, RecordHeader};
use super::sample::{Sample, SampleId};
use crate::error::{Error, ErrorKind, Result};
use crate::read::{Endian, Reader};

/// The decompressed bytes may grow to this many times the input: real perf data
/// compresses 5–20×, and the cap keeps a zstd bomb from exhausting memory.
pub const MAX_UNPACK_RATIO: usize = 64;

/// Positions at or above this are in the unpacked (decompressed) stream.
const UNPACKED: u64 = 1 << 63;

/// One event: its attr, sample ids and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub attr: Attr,
    pub ids: Vec<u64>,
    pub name: String,
}

/// The file header's sections (file mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileHeader {
    pub header_size: u64,
    pub attr_size: u64,
    pub attrs: (u64, u64),
    pub data: (u64, u64),
    pub event_types: (u64, u64),
    pub feature_bits: [u64; 4],
}

impl FileHeader {
    pub fn features(&self) -> impl Iterator<Item = u32> + '_ {
        (0u32..256).filter(|&bit| self.feature_bits.get((bit / 64) as usize).is_some_and(|w| w >> (bit % 64) & 1 == 1))
    }
}

/// Reads `len` bytes at `offset` of a recording: `expected` names them for the error
/// when they do not lie inside it.
pub type Fetch<'f> = dyn FnMut(u64, u64, &'static str) -> Result<Vec<u8>> + 'f;

/// Feature sections spanning at most this many bytes are fetched in one read.
const FEATURES_AT_ONCE: u64 = 4 << 20;

pub struct PerfData<'data> {
    pub endian: Endian,
    pub pipe: bool,
    /// File mode only.
    pub header: Option<FileHeader>,
    pub events: Vec<Event>,
    pub features: Features,
    /// Where the record stream stopped early: a recording cut off mid-write (file
    /// mode, or a pipe capture), or perf's text appended to a pipe capture.
    pub truncated_at: Option<u64>,
    data: &'data [u8],
    unpacked: Vec<u8>,
    /// (start in `unpacked`, file offset of the compressed record that completed it).
    unpacked_origin: Vec<(u64, u64)>,
    positions: Vec<u64>,
    /// Whether `positions` lists every record. Without the index (see
    /// [`PerfData::parse_unindexed`]) the stream `records` is walked again instead.
    indexed: bool,
    records: (u64, u64),
    pub(super) count: usize,
    pub(super) samples: usize,
    pub(super) ids: BTreeMap<u64, usize>,
}

impl<'data> PerfData<'data> {
    /// Parses the recording and indexes its records for [`PerfData::record_at`]
    /// (8 bytes a record).
    pub fn parse(data: &'data [u8]) -> Result<PerfData<'data>> {
        Self::parse_with(data, true)
    }

    /// Parses the recording for one pass over its records in time order
    /// ([`PerfData::for_each_in_time_order`]) without keeping their index: 27 MB less
    /// for a 600 MB recording, which matters in the browser, where memory never
    /// shrinks. [`PerfData::positions`] is then empty, except for recordings with
    /// compressed records, which are always indexed.
    pub fn parse_unindexed(data: &'data [u8]) -> Result<PerfData<'data>> {
        Self::parse_with(data, false)
    }

    fn parse_with(data: &'data [u8], indexed: bool) -> Result<PerfData<'data>> {
        let whole = Reader::new(data, Endian::Little);
        let mut fetch = |offset, len, expected| Ok(whole.sub_at(offset, len, expected)?.rest().to_vec());
        let (mut perf, (start, end), complete) = PerfData::head(data, data.len() as u64, &mut fetch)?;
        perf.data = data;
        perf.indexed = indexed;
        perf.index_records(start, end, complete)?;
        perf.name_events();
        Ok(perf)
    }

    /// What lies outside the record stream: the header and, in file mode, the attrs
    /// and feature sections (read through `fetch`) of a recording of `len` bytes
    /// that begins with `head` (at least its header). Returns the recording without
    /// records, the record stream's extent, and whether the data size was written.
    pub(super) fn head(head: &[u8], len: u64, fetch: &mut Fetch<'_>) -> Result<(PerfData<'data>, (u64, u64), bool)> {
        let endian = match head.get(..8) {
            Some(m) if m == super::MAGIC_LE => Endian::Little,
            Some(m) if m == super::MAGIC_BE => Endian::Big,
            _ => return Err(Error::malformed(0, "PERFILE2 magic")),
        };
        let mut r = Reader::new(head, endian);
        r.skip(8, "magic")?;
        let size = r.u64("perf header size")?;
        let mut perf = PerfData {
            endian,
            pipe: size == super::PIPE_HEADER_SIZE,
            header: None,
            events: Vec::new(),
            features: Features::default(),
            truncated_at: None,
            data: &[],
            unpacked: Vec::new(),
            unpacked_origin: Vec::new(),
            positions: Vec::new(),
            indexed: false,
            records: (0, 0),
            count: 0,
            samples: 0,
            ids: BTreeMap::new(),
        };
        let (start, end, complete) = if perf.pipe {
            (super::PIPE_HEADER_SIZE, len, false)
        } else if size >= super::FILE_HEADER_SIZE {
            perf.read_file_header(&mut r, size, len, fetch)?
        } else {
            return Err(Error::invalid(8, "perf header size 16 (pipe) or at least 104 (file)", size));
        };
        Ok((perf, (start, end), complete))
    }

    /// Reads the header, attrs and feature sections (of a file of `len` bytes, the
    /// sections' bytes got by `fetch(offset, len, expected)`); returns the record
    /// stream's extent and whether the data size was written.
    fn read_file_header(
        &mut self,
        r: &mut Reader<'_>,
        header_size: u64,
        len: u64,
        fetch: &mut Fetch<'_>,
    ) -> Result<(u64, u64, bool)> {
        let endian = self.endian;
        let attr_size = r.u64("attr_size")?;
        let section = |r: &mut Reader<'_>| -> Result<(u64, u64)> { Ok((r.u64("offset")?, r.u64("size")?)) };
        let attrs = section(r)?;
        let data_section = section(r)?;
        let event_types = section(r)?;
        let mut feature_bits = [0u64; 4];
        for word in &mut feature_bits {
            *word = r.u64("feature bitmap")?;
        }
        let header = FileHeader { header_size, attr_size, attrs, data: data_section, event_types, feature_bits };
        self.header = Some(header);

        if attrs.1 > 0 {
            if attr_size < 64 + 16 || attrs.1.checked_rem(attr_size) != Some(0) {
                return Err(Error::invalid(16, "attr_size that divides attrs.size and holds an attr", attr_size));
            }
            let attr_bytes = fetch(attrs.0, attrs.1, "attrs section inside the file")?;
            let mut ar = Reader::at_base(&attr_bytes, endian, attrs.0);
            while !ar.is_empty() {
                let mut entry = ar.sub(attr_size, "attrs entry")?;
                let attr = Attr::parse(&mut entry, attr_size.saturating_sub(16))?;
                entry.skip(attr_size.saturating_sub(16).saturating_sub(u64::from(attr.size)), "attr padding")?;
                let ids_at = entry.offset();
                let (offset, size) = section(&mut entry)?;
                let mut ids = Vec::new();
                if size > 0 {
                    let id_bytes = fetch(offset, size, "attr ids inside the file")
                        .map_err(|_| Error::invalid(ids_at, "attr ids section inside the file", offset))?;
                    let mut ir = Reader::at_base(&id_bytes, endian, offset);
                    while ir.remaining() >= 8 {
                        ids.push(ir.u64("sample id")?);
                    }
                }
                self.events.push(Event { attr, ids, name: String::new() });
            }
        }

        // A recording cut off mid-write has data.size 0: its records run to the end.
        let complete = !(data_section.1 == 0 && data_section.0 > 0);
        let data_end = if complete {
            match data_section.0.checked_add(data_section.1) {
                Some(end) if end <= len => end,
                _ => return Err(Error::invalid(48, "data section inside the file", data_section.1)),
            }
        } else {
            len
        };
        if complete {
            let features: Vec<u32> = header.features().collect();
            let table_len = (features.len() as u64).saturating_mul(16);
            let table_bytes = fetch(data_end, table_len, "feature section table")?;
            let mut table = Reader::at_base(&table_bytes, endian, data_end);
            let mut sections = Vec::new();
            for feature in features {
                let at = table.offset();
                let (offset, size) = section(&mut table)?;
                if size != 0 {
                    sections.push((feature, at, offset, size));
                }
            }
            // The sections lie together after the data, a few KB in all: fetched
            // in one read where they span at most FEATURES_AT_ONCE (each fetch is a
            // synchronous read of the dropped file in the page: ~2.7 ms apiece).
            let lo = sections.iter().map(|&(_, _, offset, _)| offset).min().unwrap_or(0);
            let hi = sections.iter().map(|&(_, _, offset, size)| offset.saturating_add(size)).max().unwrap_or(0);
            let together = (sections.len() > 1 && hi.saturating_sub(lo) <= FEATURES_AT_ONCE)
                .then(|| fetch(lo, hi.saturating_sub(lo), "feature sections inside the file").ok())
                .flatten()
                .filter(|bytes| bytes.len() as u64 == hi.saturating_sub(lo));
            for (feature, at, offset, size) in sections {
                let own;
                let feature_bytes = match together.as_deref().and_then(|b| {
                    let from = usize::try_from(offset.saturating_sub(lo)).ok()?;
                    b.get(from..from.checked_add(usize::try_from(size).ok()?)?)
                }) {
                    Some(bytes) => bytes,
                    None => {
                        own = fetch(offset, size, "feature section inside the file")
                            .map_err(|_| Error::invalid(at, "feature section inside the file", offset))?;
                        &own[..]
                    }
                };
                let mut fr = Reader::at_base(feature_bytes, endian, offset);
                self.features.add(feature, &mut fr)?;
            }
        }
        Ok((data_section.0, data_end, complete))
    }

    /// Walks the record stream once: positions, unpacking, pipe metadata.
    fn index_records(&mut self, start: u64, end: u64, complete: bool) -> Result<()> {
        let mut r = Reader::new(self.data, self.endian).sub_at(start, end.saturating_sub(start), "record stream")?;
        // Counting the records first (headers only) sizes the index exactly: in wasm,
        // memory never shrinks, and a doubling index would leave its old halves behind.
        // Unindexed reading skips that pass (a tenth of the decode of a 1 GB file).
        if self.indexed {
            let mut count = 0usize;
            let mut probe = r;
            while next_record(&mut probe).is_ok() {
                count = count.saturating_add(1);
            }
            self.positions.reserve_exact(count);
        }
        let limit = self.data.len().saturating_mul(MAX_UNPACK_RATIO);
        let mut unpacker: Option<super::zstd::Unpacker> = None;
        let mut unpacked_read = 0u64;
        let mut last_compressed = start;
        while !r.is_empty() {
            let at = r.offset();
            let (header, mut body) = match next_record(&mut r) {
                Ok(record) => record,
                // perf reads every complete record of a recording that was cut off.
                Err(e) if !complete && matches!(e.kind, ErrorKind::UnexpectedEof { .. }) => {
                    self.truncated_at = Some(at);
                    break;
                }
                Err(_) if self.pipe && super::records::is_trailing_text(self.data, at) => {
                    self.truncated_at = Some(at);
                    break;
                }
                Err(e) => return Err(e),
            };
            if header.kind == record::COMPRESSED || header.kind == record::COMPRESSED2 {
                // Where compressed records complete inner records is only in the
                // index: the records before the first one are indexed now.
                if !self.indexed {
                    self.indexed = true;
                    let mut before =
                        Reader::new(self.data, self.endian).sub_at(start, at.saturating_sub(start), "records")?;
                    while !before.is_empty() {
                        self.positions.push(before.offset());
                        next_record(&mut before)?;
                    }
                }
                let Record::Compressed { zstd } = parse_body(header, &mut body)? else {
                    return Err(Error::malformed(at, "compressed record"));
                };
                unpacker.get_or_insert_with(super::zstd::Unpacker::new).unpack(zstd, &mut self.unpacked, limit, at)?;
                last_compressed = at;
                unpacked_read = self.index_unpacked(unpacked_read, at)?;
                continue;
            }
            if self.indexed {
                self.positions.push(at);
            }
            self.count = self.count.saturating_add(1);
            self.samples = self.samples.saturating_add(usize::from(header.kind == record::PERF_RECORD_SAMPLE));
            collect_metadata(&mut self.events, &mut self.features, header, body)?;
        }
        if let Some(mut unpacker) = unpacker {
            unpacker.finish(&mut self.unpacked, limit, last_compressed)?;
            unpacked_read = self.index_unpacked(unpacked_read, last_compressed)?;
        }
        if unpacked_read < self.unpacked.len() as u64 {
            return Err(Error::malformed(last_compressed, "compressed records that end on a record boundary"));
        }
        self.records = (start, self.truncated_at.unwrap_or(r.offset()));
        Ok(())
    }

    /// Indexes the unpacked records completed since `from`; a partial one waits for
    /// the next compressed record. Returns where indexing stopped.
    fn index_unpacked(&mut self, from: u64, origin: u64) -> Result<u64> {
        let mut inner = Reader::new(&self.unpacked, self.endian);
        inner.skip(from, "unpacked records")?;
        while !inner.is_empty() {
            let inner_at = inner.offset();
            let mut probe = inner;
            match next_record(&mut probe) {
                Ok((header, body)) => {
                    self.unpacked_origin.push((inner_at, origin));
                    self.positions.push(UNPACKED | inner_at);
                    self.count = self.count.saturating_add(1);
                    self.samples = self.samples.saturating_add(usize::from(header.kind == record::PERF_RECORD_SAMPLE));
                    collect_metadata(&mut self.events, &mut self.features, header, body)?;
                    inner = probe;
                }
                Err(e) if matches!(e.kind, ErrorKind::UnexpectedEof { .. }) => break,
                Err(e) => return Err(Error { location: crate::error::Location::Offset(origin), ..e }),
            }
        }
        Ok(inner.offset())
    }

    /// The map from sample ids to events.
    pub(super) fn index_ids(&mut self) {
        for (index, event) in self.events.iter().enumerate() {
            for &id in &event.ids {
                self.ids.insert(id, index);
            }
        }
    }

    /// Event names (EVENT_DESC matched by ids, else by position, else perf's name
    /// for the attr) and the map from sample ids to events.
    pub(super) fn name_events(&mut self) {
        if self.events.is_empty() {
            // Files without attrs but with EVENT_DESC (rare): take the descriptions.
            for desc in &self.features.event_desc {
                self.events.push(Event { attr: desc.attr.clone(), ids: desc.ids.clone(), name: String::new() });
            }
        }
        self.index_ids();
        for (index, event) in self.events.iter_mut().enumerate() {
            let by_id = self.features.event_desc.iter().find(|d| d.ids.iter().any(|id| event.ids.contains(id)));
            let desc = by_id.or_else(|| self.features.event_desc.get(index));
            if event.name.is_empty() {
                event.name = match desc {
                    Some(d) => d.name.clone(),
                    None => event.attr.default_name(),
                };
            }
        }
    }

    /// How many records the stream holds (compressed records counted by what they hold).
    pub fn record_count(&self) -> usize {
        self.count
    }

    /// How many SAMPLE records the stream holds.
    pub fn sample_count(&self) -> usize {
        self.samples
    }

    /// Record positions in file order, for [`PerfData::record_at`] (empty when
    /// parsed without the index).
    pub fn positions(&self) -> &[u64] {
        &self.positions
    }

    /// Decodes the record at a position from [`PerfData::positions`].
    pub fn record_at(&self, position: u64) -> Result<RecordAt<'_>> {
        let (bytes, offset, origin) = if position & UNPACKED != 0 {
            let offset = position & !UNPACKED;
            (&self.unpacked[..], offset, self.origin_of(offset))
        } else {
            (self.data, position, position)
        };
        let mut r = Reader::new(bytes, self.endian).seek_clone(offset, "record")?;
        let unpacked = position & UNPACKED != 0;
        let (header, body) = next_record(&mut r).map_err(|e| relocate(e, unpacked, origin))?;
        self.decode(header, body, origin).map_err(|e| relocate(e, unpacked, origin))
    }

    fn origin_of(&self, unpacked_offset: u64) -> u64 {
        match self.unpacked_origin.binary_search_by(|&(s, _)| s.cmp(&unpacked_offset)) {
            Ok(i) => self.unpacked_origin.get(i).map_or(0, |&(_, o)| o),
            Err(i) => i.checked_sub(1).and_then(|i| self.unpacked_origin.get(i)).map_or(0, |&(_, o)| o),
        }
    }

    /// All records in file order (of the index: none when parsed without it).
    pub fn records(&self) -> impl Iterator<Item = Result<RecordAt<'_>>> + '_ {
        self.positions.iter().map(move |&p| self.record_at(p))
    }

    /// Record positions in the order perf delivers them to its tools (`perf
    /// script`, `perf report`): kernel records with a time are queued and
    /// released sorted by time, each FINISHED_ROUND releasing those up to the
    /// latest time seen before the previous round ended (perf's guarantee is
    /// that no record arrives later than that); records without a time, and
    /// perf's own records, pass straight through.
    pub fn time_order(&self) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(self.positions.len());
        self.for_each_in_time_order(|position| {
            out.push(position);
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `visit` with each record position in [`PerfData::time_order`],
    /// without building the whole order: only the records of the last two rounds
    /// are queued at any time.
    pub fn for_each_in_time_order(&self, mut visit: impl FnMut(u64) -> Result<()>) -> Result<()> {
        let mut order = TimeOrder::default();
        self.for_each_position(|position| {
            let (kind, time) = self.kind_and_time(position)?;
            match order.arrive(kind, time, position) {
                Arrival::Round => order.round(&mut visit),
                Arrival::Queued => Ok(()),
                Arrival::Now(position) => visit(position),
            }
        })?;
        order.finish(&mut visit)
    }

    /// Calls `visit` with each record position in file order: from the index, or
    /// (parsed without it) walking the record stream again.
    pub fn for_each_position(&self, mut visit: impl FnMut(u64) -> Result<()>) -> Result<()> {
        if self.indexed {
            return self.positions.iter().try_for_each(|&p| visit(p));
        }
        let (start, end) = self.records;
        let mut walk = Reader::new(self.data, self.endian).sub_at(start, end.saturating_sub(start), "records")?;
        while !walk.is_empty() {
            let at = walk.offset();
            next_record(&mut walk)?;
            visit(at)?;
        }
        Ok(())
    }

    /// A record's type and time, read without decoding the record: the time of a
    /// sample sits after its identifier, ip and pid/tid; that of another kernel
    /// record in its `sample_id` trailer.
    pub fn kind_and_time(&self, position: u64) -> Result<(u32, Option<u64>)> {
        let (bytes, offset) =
            if position & UNPACKED != 0 { (&self.unpacked[..], position & !UNPACKED) } else { (self.data, position) };
        let mut r = Reader::new(bytes, self.endian).seek_clone(offset, "record")?;
        let (header, body) = next_record(&mut r)?;
        Ok((header.kind, self.time_of(header, &body)?))
    }

    /// A record's time (see [`PerfData::kind_and_time`]), from its header and body.
    pub(super) fn time_of(&self, header: RecordHeader, body: &Reader<'_>) -> Result<Option<u64>> {
        use super::attr::sample_type as st;
        if header.kind == record::PERF_RECORD_SAMPLE {
            let event = self.sample_event(body)?;
            let start = body.offset().saturating_sub(8);
            let attr = &self.events.get(event).ok_or(Error::malformed(start, "an event for the sample"))?.attr;
            if !attr.has(st::TIME) {
                return Ok(None);
            }
            let skip: u64 = [st::IDENTIFIER, st::IP, st::TID].iter().filter(|&&b| attr.has(b)).map(|_| 8u64).sum();
            Ok(Some(body.seek_clone(body.offset().saturating_add(skip), "sample time")?.u64("sample time")?))
        } else if record::has_sample_id(header.kind) {
            match self.events.first().map(|e| &e.attr).filter(|a| a.sample_id_all() && a.has(st::TIME)) {
                Some(attr) => {
                    let size = attr.sample_id_size();
                    let skip = if attr.has(st::TID) { 8 } else { 0 };
                    let at = body.end_offset().checked_sub(size).filter(|&at| at >= body.offset());
                    let at =
                        at.ok_or(Error::malformed(body.offset(), "a record long enough for its sample_id trailer"))?;
                    Ok(Some(body.seek_clone(at.saturating_add(skip), "sample_id time")?.u64("sample_id time")?))
                }
                None => Ok(None),
            }
        } else {
            Ok(None)
        }
    }

    /// The event a sample or trailer id belongs to (the only event when there is one).
    pub fn event_of(&self, id: Option<u64>) -> Option<usize> {
        if self.events.len() == 1 {
            return Some(0);
        }
        id.and_then(|id| self.ids.get(&id).copied())
    }

    /// Decodes a record from its header and body; `offset` is where it lies.
    pub(super) fn decode<'s>(&self, header: RecordHeader, mut body: Reader<'s>, offset: u64) -> Result<RecordAt<'s>> {
        let first = self.events.first();
        if header.kind == record::PERF_RECORD_SAMPLE {
            let event = self.sample_event(&body)?;
            let attr = &self.events.get(event).ok_or(Error::malformed(offset, "an event for the sample"))?.attr;
            let sample = Sample { event, misc: header.misc, ..Sample::default() };
            let mut at = RecordAt { offset, header, sample_id: SampleId::default(), record: Record::Sample(sample) };
            if let Record::Sample(sample) = &mut at.record {
                sample.read_fields(&mut body, attr)?;
            }
            return Ok(at);
        }
        let mut sample_id = SampleId::default();
        if record::has_sample_id(header.kind) {
            if let Some(first) = first.filter(|a| a.attr.sample_id_all()) {
                // The trailer's layout is the same for every event; its id picks the event.
                let size = first.attr.sample_id_size();
                let body_len = body.remaining() as u64;
                if size <= body_len {
                    let mut trailer =
                        body.seek_clone(body.offset().saturating_add(body_len.saturating_sub(size)), "sample_id")?;
                    let attr = self.trailer_attr(&trailer, size).unwrap_or(&first.attr);
                    sample_id = SampleId::parse(&mut trailer, attr)?;
                    body = body.sub(body_len.saturating_sub(size), "record body")?;
                } else {
                    return Err(Error::malformed(body.offset(), "a record long enough for its sample_id trailer"));
                }
            }
        }
        let record = parse_body(header, &mut body)?;
        Ok(RecordAt { offset, header, sample_id, record })
    }

    fn sample_event(&self, body: &Reader<'_>) -> Result<usize> {
        let Some(first) = self.events.first() else {
            return Err(Error::malformed(body.offset(), "an attr before the first sample"));
        };
        if self.events.len() == 1 {
            return Ok(0);
        }
        let Some(id) = first.attr.sample_id_in(body)? else {
            return Ok(0);
        };
        self.ids.get(&id).copied().ok_or(Error::invalid(body.offset(), "a sample id listed for an event", id))
    }

    fn trailer_attr(&self, trailer: &Reader<'_>, size: u64) -> Option<&Attr> {
        if self.events.len() < 2 {
            return None;
        }
        let id = self.events.first()?.attr.trailer_id_in(trailer, trailer.offset().checked_add(size)?)?;
        self.ids.get(&id).and_then(|&i| self.events.get(i)).map(|e| &e.attr)
    }
}

/// perf's delivery order (see [`PerfData::time_order`]) of records given in file
/// order: kernel records with a time wait in a queue until a FINISHED_ROUND releases
/// those up to the latest time seen before the previous round ended.
pub(super) struct TimeOrder<T> {
    /// In arrival order, so that a stable sort keeps ties in file order.
    queue: Vec<(u64, T)>,
    max_time: u64,
    next_flush: u64,
}

impl<T> Default for TimeOrder<T> {
    fn default() -> Self {
        TimeOrder { queue: Vec::new(), max_time: 0, next_flush: 0 }
    }
}

/// What becomes of a record given to [`TimeOrder::arrive`].
pub(super) enum Arrival<T> {
    /// A FINISHED_ROUND: call [`TimeOrder::round`].
    Round,
    /// Kept, to be released in time order.
    Queued,
    /// Without a time, or perf's own record: delivered now.
    Now(T),
}

impl<T> TimeOrder<T> {
    /// Whether a record of this type and time waits in the queue.
    pub(super) fn waits(kind: u32, time: Option<u64>) -> bool {
        kind != record::FINISHED_ROUND && kind < record::HEADER_ATTR && time.is_some()
    }

    pub(super) fn arrive(&mut self, kind: u32, time: Option<u64>, item: T) -> Arrival<T> {
        if kind == record::FINISHED_ROUND {
            return Arrival::Round;
        }
        match time.filter(|_| Self::waits(kind, time)) {
            Some(time) => {
                self.max_time = self.max_time.max(time);
                self.queue.push((time, item));
                Arrival::Queued
            }
            None => Arrival::Now(item),
        }
    }

    /// A round ended: releases what it may.
    pub(super) fn round(&mut self, visit: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
        self.flush(Some(self.next_flush), visit)?;
        self.next_flush = self.max_time;
        Ok(())
    }

    /// The records ended: releases all.
    pub(super) fn finish(&mut self, visit: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
        self.flush(None, visit)
    }

    /// The records still queued, in arrival order.
    pub(super) fn queued_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.queue.iter_mut().map(|(_, item)| item)
    }

    /// Moves the queued records with a time up to `limit` (all, without one) to
    /// `visit`, in time order; ties keep their file order.
    fn flush(&mut self, limit: Option<u64>, visit: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
        self.queue.sort_by_key(|&(time, _)| time);
        let cut = match limit {
            Some(limit) => self.queue.partition_point(|&(time, _)| time <= limit),
            None => self.queue.len(),
        };
        for (_, item) in self.queue.drain(..cut) {
            visit(item)?;
        }
        Ok(())
    }
}

/// Pipe mode (and any stream): events and features announced by records.
pub(super) fn collect_metadata(
    events: &mut Vec<Event>,
    features: &mut Features,
    header: RecordHeader,
    mut body: Reader<'_>,
) -> Result<()> {
    match header.kind {
        record::HEADER_ATTR => {
            if let Record::HeaderAttr { attr, ids } = parse_body(header, &mut body)? {
                events.push(Event { attr, ids: ids.iter().collect(), name: String::new() });
            }
        }
        record::HEADER_FEATURE => {
            if let Record::HeaderFeature { feature, mut body } = parse_body(header, &mut body)? {
                let feature = u32::try_from(feature).unwrap_or(u32::MAX);
                features.add(feature, &mut body)?;
            }
        }
        record::HEADER_BUILD_ID => {
            if let Record::HeaderBuildId(entry) = parse_body(header, &mut body)? {
                features.build_ids.push(entry);
            }
        }
        record::EVENT_UPDATE => {
            // `type u64, id u64`, then the data: 0 unit, 1 scale, 2 name, 3 cpus.
            let kind = body.u64("event_update type")?;
            let id = body.u64("event_update id")?;
            if kind == 2 {
                let name = String::from_utf8_lossy(record::c_string(body.rest())).into_owned();
                if let Some(event) = events.iter_mut().find(|e| e.ids.contains(&id)) {
                    event.name = name;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Errors inside unpacked data point at the compressed record that held them.
pub(super) fn relocate(e: Error, unpacked: bool, origin: u64) -> Error {
    if unpacked {
        Error { location: crate::error::Location::Offset(origin), ..e }
    } else {
        e
    }
}
