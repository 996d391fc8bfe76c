//! A recording decoded as it streams in, without its bytes in wasm memory.
//!
//! An uncompressed perf.data (file or pipe mode) is not copied into the session:
//! [`Session::stream_start`] reads its header and the sections outside the record
//! stream through a fetch (the glue's synchronous `File` slices), the glue feeds
//! the record stream in blocks ([`Session::feed`]), and [`Session::stream_end`]
//! keeps what the views need: the stacks, where their addresses lie, the DSOs with
//! their samples, and a pipe recording's sample time range (its dump root says it).
//!
//! The bytes are read whole only when a request needs them ([`Session::needs_bytes`]:
//! the dump and its hex pane, perf2bolt's aggregation, the DWARF unwinding of stack
//! copies with new binaries): the glue then fills [`Session::slot`]s again and calls
//! [`Session::loaded`]. A recording the stream rejects is read whole from the start,
//! so that its dump and its error are what they always were.

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::OnceCell;

use pgolens::formats::perf::attr::sample_type;
use pgolens::formats::perf::dsos::DsoUse;
use pgolens::formats::perf::{self, Fetch, PerfData, PerfStream, Record};
use pgolens::model::perf::{PerfStacks, StackReader};
use pgolens::symbolize::Symbolizer;
use pgolens::{Detection, Format};
use pgolens_protocol::{FileSummary, Opened, Request};

use super::dump::{expand, node_info};
use super::{fail, failure, views_of, Decoded, Failure, Session};
use crate::stacks::StacksView;

/// The first bytes read to detect the format: a perf.data header is 104 bytes.
const HEAD: u64 = 4096;

/// Once this many bytes of records (and an eighth of them) were fed, the samples
/// still to come are guessed from those read so far, and room is made for them
/// (wasm memory never shrinks: a sample array doubled as it grows leaves its old
/// half behind). Not sooner: records wait up to two of perf's rounds for their
/// turn, so the samples read lag the bytes fed.
const ESTIMATE_AFTER: u64 = 16 << 20;

/// A perf.data being streamed in.
pub(super) struct Streaming {
    detection: Detection,
    len: u64,
    stream: PerfStream,
    /// Where the record stream starts and ends (a pipe's: the file's end).
    records: (u64, u64),
    fed: u64,
    reader: StackReader<'static>,
    /// The stack copies of `--call-graph dwarf` are unwound with no binary yet.
    unwinding: Symbolizer<'static>,
    samples: u64,
    /// The earliest and the latest sample time.
    times: Option<(u64, u64)>,
    estimated: bool,
}

/// What streaming a recording gave, for [`Session::finish`].
pub(super) struct Streamed {
    detection: Detection,
    len: u64,
    perf: PerfData<'static>,
    stacks: PerfStacks,
    dsos: Vec<DsoUse>,
    times: Option<(u64, u64)>,
}

impl Session {
    /// Starts decoding the file (`len` bytes) as it streams in, when it is an
    /// uncompressed perf.data; `fetch(offset, len, expected)` reads any part of it.
    /// Returns the offset to feed it from, or `None`: read it whole ([`Session::slot`]).
    pub fn stream_start(&mut self, len: u64, fetch: &mut Fetch<'_>) -> Option<u64> {
        if self.decoded.is_some() || !self.raw.is_empty() || self.streaming.is_some() {
            return None;
        }
        let head = fetch(0, len.min(HEAD), "the file's first bytes").ok()?;
        let detection = pgolens::detect(&head).ok()?;
        if !matches!(detection.format, Format::PerfData | Format::PerfDataPipe) {
            return None;
        }
        // A header the stream cannot start from is read whole: the dump says why.
        let (stream, start) = PerfStream::start(&head, len, fetch).ok()?;
        self.streaming = Some(alloc::boxed::Box::new(Streaming {
            detection,
            len,
            stream,
            records: (start, len),
            fed: 0,
            reader: StackReader::new(0),
            unwinding: Symbolizer::new(),
            samples: 0,
            times: None,
            estimated: false,
        }));
        if let Some(s) = &mut self.streaming {
            s.reader.count_dsos();
        }
        Some(start)
    }

    /// Feeds the next block of the file (the first at the offset
    /// [`Session::stream_start`] gave). `false`: the stream rejected the file,
    /// which is then read whole from its start.
    pub fn feed(&mut self, block: &[u8]) -> bool {
        let Some(s) = &mut self.streaming else { return false };
        let Streaming { stream, reader, unwinding, samples, times, .. } = &mut **s;
        let fed = stream.feed(block, &mut |perf, record| {
            visit(reader, unwinding, samples, times, perf, record);
            Ok(())
        });
        if fed.is_err() {
            self.streaming = None;
            return false;
        }
        s.fed = s.fed.saturating_add(block.len() as u64);
        let stream_len = s.records.1.saturating_sub(s.records.0);
        if !s.estimated && s.fed >= ESTIMATE_AFTER.max(stream_len / 8) {
            s.estimated = true;
            let left = stream_len.saturating_sub(s.fed);
            // The samples of the bytes left at the rate of those read, and a tenth more.
            let guess = u128::from(s.samples).saturating_mul(u128::from(left)).saturating_mul(11);
            let guess = guess.checked_div(u128::from(s.fed).saturating_mul(10)).unwrap_or(0);
            s.reader.reserve_samples(usize::try_from(guess).unwrap_or(0));
        }
        true
    }

    /// Ends the stream once every block was fed. `false`: the stream rejected the
    /// file, which is then read whole from its start.
    pub fn stream_end(&mut self) -> bool {
        let Some(s) = self.streaming.take() else { return false };
        let Streaming { detection, len, stream, mut reader, unwinding, mut samples, mut times, .. } = *s;
        let ended = stream.finish(&mut |perf, record| {
            visit(&mut reader, &unwinding, &mut samples, &mut times, perf, record);
            Ok(())
        });
        let Ok(perf) = ended else { return false };
        let dsos = reader.dso_uses(&perf).unwrap_or_default();
        let stacks = reader.finish(&perf);
        self.streamed = Some(alloc::boxed::Box::new(Streamed { detection, len, perf, stacks, dsos, times }));
        true
    }

    /// [`Session::finish`] of a streamed recording: its views, and a dump whose
    /// levels are read when first asked for.
    pub(super) fn finish_streamed(&mut self, streamed: Streamed) -> Opened {
        let Streamed { detection, len, perf, stacks, dsos, times } = streamed;
        let PerfStacks { profile, addresses } = stacks;
        let stacks = StacksView::new(profile);
        let root = perf::dump_root(detection.format, len, times);
        // The glue reads the file when the page first asks for the root's children.
        let mut info = node_info(&root);
        info.has_children = true;
        let (views, open_on) = views_of(false, false, Some(&stacks), None);
        let branch_profile = detection.format == Format::PerfData
            && perf.events.iter().any(|e| e.attr.sample_type & sample_type::BRANCH_STACK != 0);
        let summary = FileSummary {
            name: self.name.clone(),
            format: alloc::string::ToString::to_string(&detection.format.id()),
            detection: alloc::string::ToString::to_string(&detection),
            version: detection.version,
            size: len,
            file_size: len,
            gzip: false,
            views,
            open_on,
            views_error: None,
            stacks: Some(stacks.info()),
            branch_profile,
        };
        self.decoded = Some(Decoded {
            data: Rc::new(Vec::new()),
            unread: true,
            dsos: Some(dsos),
            file_size: len,
            compression: None,
            binary_index: OnceCell::new(),
            detection,
            root,
            views: None,
            memprof: None,
            stacks: Some(stacks),
            sample: None,
            bolt: None,
            bat: None,
            branch_profile,
            symbols: Vec::new(),
            addresses: Some(addresses),
            unsymbolized: None,
        });
        Opened { summary, root: info, children: Vec::new() }
    }

    /// Whether `request` needs the bytes of a file decoded as it streamed in and not
    /// read since: the glue then reads it ([`Session::slot`], [`Session::loaded`]) first.
    pub fn needs_bytes(&self, request: &Request) -> bool {
        let Some(decoded) = self.decoded.as_ref().filter(|d| d.unread) else { return false };
        match request {
            Request::Children { .. } | Request::Bytes { .. } | Request::PathTo { .. } | Request::Reveal { .. } => true,
            // perf2bolt aggregates the branch stacks from the records.
            Request::Correlate { .. } => decoded.bolt.is_none() && decoded.branch_profile,
            // Stack copies are unwound again with the binaries' call-frame information.
            Request::Symbolize { .. } => decoded.addresses.as_ref().is_some_and(|a| a.unwinds()),
            _ => false,
        }
    }

    /// Whether the file was decoded as it streamed in and its bytes are not read.
    pub fn unread(&self) -> bool {
        self.decoded.as_ref().is_some_and(|d| d.unread)
    }

    /// The bytes of a streamed file were read again into [`Session::slot`]s: its
    /// dump is built now, and the requests that need the bytes can be answered.
    pub fn loaded(&mut self) -> Result<(), Failure> {
        let raw = core::mem::take(&mut self.raw);
        let decoded = self.decoded.as_mut().filter(|d| d.unread).ok_or_else(|| fail("the file was not streamed"))?;
        if raw.len() as u64 != decoded.file_size {
            return Err(fail(alloc::format!(
                "the file changed since it was opened: {} bytes read, {} before",
                raw.len(),
                decoded.file_size
            )));
        }
        let mut root = pgolens::dump(&raw, &decoded.detection).map_err(failure)?;
        expand(&raw, &decoded.detection, None, &mut root)?;
        decoded.root = root;
        decoded.data = Rc::new(raw);
        decoded.unread = false;
        Ok(())
    }
}

/// One record of the stream: its stacks, its samples counted and timed.
fn visit(
    reader: &mut StackReader<'static>,
    unwinding: &Symbolizer<'static>,
    samples: &mut u64,
    times: &mut Option<(u64, u64)>,
    perf: &PerfData<'_>,
    record: &perf::RecordAt<'_>,
) {
    reader.record(perf, record, unwinding);
    if let Record::Sample(sample) = &record.record {
        *samples = samples.saturating_add(1);
        if let Some(t) = sample.time {
            *times = Some(times.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
    }
}
