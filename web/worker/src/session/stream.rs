//! A file decoded as it streams in, without its bytes in wasm memory: an
//! uncompressed perf.data (file or pipe mode) or a BOLT YAML profile.
//!
//! A recording is not copied into the session: [`Session::stream_start`] reads its
//! header and the sections outside the record stream through a fetch (the glue's
//! synchronous `File` slices), the glue feeds the record stream in blocks
//! ([`Session::feed`]), and [`Session::stream_end`] keeps what the views need: the
//! stacks, where their addresses lie, the DSOs with their samples, and a pipe
//! recording's sample time range (its dump root says it). A YAML profile is decoded
//! a piece of whole functions at a time (`yaml::YamlStream`).
//!
//! The bytes are read whole only when a request needs them ([`Session::needs_bytes`]:
//! the dump and its hex pane, perf2bolt's aggregation, the DWARF unwinding of stack
//! copies with new binaries): the glue then fills [`Session::slot`]s again and calls
//! [`Session::loaded`]. A file the stream rejects is read whole from the start, so
//! that its dump and its error are what they always were.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::OnceCell;

use pgolens::formats::bolt::yaml::{self, YamlStream};
use pgolens::formats::perf::attr::sample_type;
use pgolens::formats::perf::dsos::DsoUse;
use pgolens::formats::perf::{self, Fetch, PerfData, PerfStream, Record};
use pgolens::model::perf::{Addresses, PerfStacks, StackReader, StacksPart};
use pgolens::symbolize::Symbolizer;
use pgolens::{Detection, Format, Node};
use pgolens_protocol::{FileSummary, Opened, Request};

use super::dump::{expand, node_info};
use super::{fail, failure, views_of, Decoded, Failure, Session};
use crate::bolt::BoltView;
use crate::stacks::StacksView;

/// The first bytes read to detect the format: a perf.data header is 104 bytes.
const HEAD: u64 = 4096;

/// Once this many bytes of records (and an eighth of them) were fed, the samples
/// still to come are guessed from those read so far, and room is made for them
/// (wasm memory never shrinks: a sample array doubled as it grows leaves its old
/// half behind). Not sooner: records wait up to two of perf's rounds for their
/// turn, so the samples read lag the bytes fed.
const ESTIMATE_AFTER: u64 = 16 << 20;

/// Where a recording read in two parts is cut: this fraction of its records goes
/// to the worker that reads the first part, as the other also replays them
/// (natively, two threads of a 219 MB high-frequency recording finished together
/// at about three fifths).
const SPLIT_NUMERATOR: u64 = 3;
const SPLIT_DENOMINATOR: u64 = 5;

/// A file being streamed in.
pub(super) enum Streaming {
    Recording(Box<RecordStream>),
    Yaml { detection: Detection, len: u64, stream: Box<YamlStream> },
}

/// What streaming a file gave, for [`Session::finish`].
pub(super) enum Streamed {
    Recording(Box<StreamedRecording>),
    Yaml { detection: Detection, len: u64, profile: Box<yaml::Profile<'static>>, lines: u64 },
}

/// A perf.data being streamed in.
pub(super) struct RecordStream {
    detection: Detection,
    len: u64,
    stream: PerfStream,
    /// Where the record stream starts and ends (a pipe's: the file's end).
    records: (u64, u64),
    fed: u64,
    gathered: Gathered,
    estimated: bool,
    /// Bytes fed when the samples began to be read (the room made for them is
    /// guessed from those read after).
    counted_from: u64,
    /// Read in two parts ([`Session::stream_split`]): the file offset up to which
    /// this stream replays the records (read by another worker), and that part once
    /// handed over ([`Session::stream_join`]).
    cut: Option<u64>,
    first: Option<FirstRead>,
}

/// What the worker that read the first part of a recording hands over
/// ([`FirstPart::end`], [`FirstRead::from_bytes`]).
pub(super) struct FirstRead {
    part: StacksPart,
    times: Option<(u64, u64)>,
}

impl FirstRead {
    /// A part from the bytes [`FirstPart::end`] gave: its samples' time range,
    /// then its stacks ([`StacksPart::from_bytes`]).
    fn from_bytes(bytes: &[u8]) -> Option<FirstRead> {
        let mut words = bytes.chunks_exact(8).filter_map(|w| w.try_into().ok()).map(u64::from_le_bytes);
        let (timed, first, last) = (words.next()?, words.next()?, words.next()?);
        let part = StacksPart::from_bytes(bytes.get(24..)?).ok()?;
        Some(FirstRead { part, times: (timed != 0).then_some((first, last)) })
    }
}

/// The first part of a recording read in two parts: its records up to the cut
/// another worker replays them to ([`Session::stream_split`]), read by a helper
/// worker as they stream in and handed over as bytes.
pub struct FirstPart {
    stream: PerfStream,
    gathered: Gathered,
}

impl FirstPart {
    /// Starts reading the first part of a recording of `len` bytes (`fetch` as for
    /// [`Session::stream_start`]); returns it and the offset to feed it from (up to
    /// the cut), or `None` when the file is no recording the stream reads.
    pub fn start(len: u64, fetch: &mut Fetch<'_>) -> Option<(FirstPart, u64)> {
        let head = fetch(0, len.min(HEAD), "the file's first bytes").ok()?;
        let detection = pgolens::detect(&head).ok()?;
        if !matches!(detection.format, Format::PerfData | Format::PerfDataPipe) {
            return None;
        }
        let (stream, start) = PerfStream::start(&head, len, fetch).ok()?;
        Some((FirstPart { stream, gathered: Gathered::new() }, start))
    }

    /// Feeds the next block (the last one ending at the cut); `false` when the
    /// stream rejected the file.
    pub fn feed(&mut self, block: &[u8]) -> bool {
        let FirstPart { stream, gathered } = self;
        stream.feed(block, &mut |perf, record| gathered.record(perf, record)).is_ok()
    }

    /// The part read, as bytes for [`Session::stream_join`].
    pub fn end(self) -> Vec<u8> {
        let Gathered { reader, times, .. } = self.gathered;
        let mut out = Vec::new();
        let (first, last) = times.unwrap_or_default();
        for word in [u64::from(times.is_some()), first, last] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&reader.into_part().to_bytes());
        out
    }
}

/// What a recording's records give as they arrive in time order.
struct Gathered {
    reader: StackReader<'static>,
    /// The stack copies of `--call-graph dwarf` are unwound with no binary yet.
    unwinding: Symbolizer<'static>,
    samples: u64,
    /// The earliest and the latest sample time.
    times: Option<(u64, u64)>,
}

impl Gathered {
    fn new() -> Gathered {
        let mut reader = StackReader::new(0);
        reader.count_dsos();
        Gathered { reader, unwinding: Symbolizer::new(), samples: 0, times: None }
    }

    /// Replays the records (`on`), or reads them; `stream` skips the samples while
    /// they are replayed.
    fn replay(&mut self, stream: &mut PerfStream, on: bool) {
        self.reader.replay(on);
        stream.skip_samples(on);
    }

    /// One record of the stream: its stacks, its samples counted and timed.
    fn record(&mut self, perf: &PerfData<'_>, record: &perf::RecordAt<'_>) -> pgolens::Result<()> {
        self.reader.record(perf, record, &self.unwinding);
        if self.reader.replaying() {
            return Ok(());
        }
        if let Record::Sample(sample) = &record.record {
            self.samples = self.samples.saturating_add(1);
            if let Some(t) = sample.time {
                self.times = Some(self.times.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            }
        }
        Ok(())
    }
}

/// What streaming a recording gave.
pub(super) struct StreamedRecording {
    detection: Detection,
    len: u64,
    perf: PerfData<'static>,
    stacks: PerfStacks,
    dsos: Vec<DsoUse>,
    times: Option<(u64, u64)>,
}

/// What a streamed file opens with, besides its detection and size.
struct Parts {
    /// The dump's root, without its children (read with the file).
    root: Node,
    stacks: Option<StacksView>,
    addresses: Option<Addresses>,
    dsos: Option<Vec<DsoUse>>,
    bolt: Option<BoltView>,
    branch_profile: bool,
}

impl RecordStream {
    /// See [`Session::feed`].
    fn feed(&mut self, block: &[u8]) -> bool {
        // The replay ends at the cut, inside this block or at its start: the bytes
        // of the block before it.
        let at = self.records.0.saturating_add(self.fed);
        let replayed = self
            .cut
            .filter(|_| self.gathered.reader.replaying())
            .and_then(|cut| usize::try_from(cut.checked_sub(at)?).ok())
            .filter(|&k| k < block.len() || k == 0);
        let Some(replayed) = replayed else { return self.feed_read(block) };
        let (before, after) = block.split_at(replayed);
        if !self.feed_read(before) {
            return false;
        }
        self.gathered.replay(&mut self.stream, false);
        self.counted_from = self.fed;
        self.feed_read(after)
    }

    fn feed_read(&mut self, block: &[u8]) -> bool {
        let RecordStream { stream, gathered, .. } = self;
        if stream.feed(block, &mut |perf, record| gathered.record(perf, record)).is_err() {
            return false;
        }
        self.fed = self.fed.saturating_add(block.len() as u64);
        if self.gathered.reader.replaying() {
            return true;
        }
        let stream_len = self.records.1.saturating_sub(self.records.0).saturating_sub(self.counted_from);
        let fed = self.fed.saturating_sub(self.counted_from);
        if !self.estimated && fed >= ESTIMATE_AFTER.max(stream_len / 8) {
            self.estimated = true;
            let left = stream_len.saturating_sub(fed);
            // The samples of the bytes left at the rate of those read, and a tenth more.
            let guess = u128::from(self.gathered.samples).saturating_mul(u128::from(left)).saturating_mul(11);
            let guess = guess.checked_div(u128::from(fed).saturating_mul(10)).unwrap_or(0);
            self.gathered.reader.reserve_samples(usize::try_from(guess).unwrap_or(0));
        }
        true
    }

    /// See [`Session::stream_end`].
    fn end(self) -> Option<StreamedRecording> {
        let RecordStream { detection, len, stream, mut gathered, cut, first, .. } = self;
        // A stream read in two parts needs the first, and to have passed the cut.
        if cut.is_some() && (first.is_none() || gathered.reader.replaying()) {
            return None;
        }
        let perf = stream.finish(&mut |perf, record| gathered.record(perf, record)).ok()?;
        let Gathered { mut reader, mut times, .. } = gathered;
        if let Some(FirstRead { part, times: first_times, .. }) = first {
            reader.join(part);
            times = match (first_times, times) {
                (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                (one, other) => one.or(other),
            };
        }
        let dsos = reader.dso_uses(&perf).unwrap_or_default();
        let stacks = reader.finish(&perf);
        Some(StreamedRecording { detection, len, perf, stacks, dsos, times })
    }
}

impl Session {
    /// Starts decoding the file (`len` bytes) as it streams in, when it is an
    /// uncompressed perf.data or a BOLT YAML profile; `fetch(offset, len, expected)`
    /// reads any part of it. Returns the offset to feed it from, or `None`: read it
    /// whole ([`Session::slot`]).
    pub fn stream_start(&mut self, len: u64, fetch: &mut Fetch<'_>) -> Option<u64> {
        if self.decoded.is_some() || !self.raw.is_empty() || self.streaming.is_some() {
            return None;
        }
        let head = fetch(0, len.min(HEAD), "the file's first bytes").ok()?;
        let detection = pgolens::detect(&head).ok()?;
        match detection.format {
            Format::PerfData | Format::PerfDataPipe => {}
            Format::BoltYaml => {
                self.streaming =
                    Some(Streaming::Yaml { detection, len, stream: Box::new(YamlStream::with_len(yaml::PIECE, len)) });
                return Some(0);
            }
            _ => return None,
        }
        // A header the stream cannot start from is read whole: the dump says why.
        let (stream, start) = PerfStream::start(&head, len, fetch).ok()?;
        self.streaming = Some(Streaming::Recording(Box::new(RecordStream {
            detection,
            len,
            stream,
            records: (start, len),
            fed: 0,
            gathered: Gathered::new(),
            estimated: false,
            counted_from: 0,
            cut: None,
            first: None,
        })));
        Some(start)
    }

    /// Reads the recording streaming in in two parts when its records take at least
    /// `min` bytes and none was fed yet: returns the file offset of the cut. Another
    /// worker reads the records up to it ([`FirstPart`]), while this one replays
    /// them (threads and maps only: [`StackReader::replay`]) and reads the rest;
    /// [`Session::stream_join`] hands the first part over before
    /// [`Session::stream_end`].
    pub fn stream_split(&mut self, min: u64) -> Option<u64> {
        let Some(Streaming::Recording(s)) = &mut self.streaming else { return None };
        let (start, end) = s.records;
        let records = end.saturating_sub(start);
        if s.fed > 0 || s.cut.is_some() || records < min.max(1) {
            return None;
        }
        let cut = start.saturating_add((records / SPLIT_DENOMINATOR).saturating_mul(SPLIT_NUMERATOR));
        s.cut = Some(cut);
        s.gathered.replay(&mut s.stream, true);
        Some(cut)
    }

    /// Hands over the first part of a recording read in two parts ([`FirstPart::end`]'s
    /// bytes). `false` when they cannot be read: the stream then fails at its end,
    /// and the file is read whole.
    pub fn stream_join(&mut self, bytes: &[u8]) -> bool {
        let Some(Streaming::Recording(s)) = &mut self.streaming else { return false };
        if s.cut.is_none() {
            return false;
        }
        s.first = FirstRead::from_bytes(bytes);
        s.first.is_some()
    }

    /// Feeds the next block of the file (the first at the offset
    /// [`Session::stream_start`] gave). `false`: the stream rejected the file,
    /// which is then read whole from its start.
    pub fn feed(&mut self, block: &[u8]) -> bool {
        let fed = match &mut self.streaming {
            Some(Streaming::Recording(s)) => s.feed(block),
            Some(Streaming::Yaml { stream, .. }) => stream.feed(block).is_ok(),
            None => false,
        };
        if !fed {
            self.streaming = None;
        }
        fed
    }

    /// Ends the stream once every block was fed. `false`: the stream rejected the
    /// file, which is then read whole from its start.
    pub fn stream_end(&mut self) -> bool {
        self.streamed = match self.streaming.take() {
            Some(Streaming::Recording(s)) => s.end().map(|s| Streamed::Recording(Box::new(s))),
            Some(Streaming::Yaml { detection, len, stream }) => {
                let lines = stream.lines();
                stream.finish().ok().map(|profile| Streamed::Yaml { detection, len, profile: Box::new(profile), lines })
            }
            None => None,
        };
        self.streamed.is_some()
    }

    /// [`Session::finish`] of a streamed file: its views, and a dump whose levels
    /// are read when first asked for.
    pub(super) fn finish_streamed(&mut self, streamed: Streamed) -> Opened {
        match streamed {
            Streamed::Recording(recording) => self.finish_recording(*recording),
            Streamed::Yaml { detection, len, profile, lines } => {
                let root = pgolens::formats::text::dump_root(detection.format, len, lines);
                let bolt = Some(BoltView::from_yaml(*profile));
                let parts = Parts { root, stacks: None, addresses: None, dsos: None, bolt, branch_profile: false };
                self.open_streamed(detection, len, parts)
            }
        }
    }

    fn finish_recording(&mut self, recording: StreamedRecording) -> Opened {
        let StreamedRecording { detection, len, perf, stacks, dsos, times } = recording;
        let PerfStacks { profile, addresses } = stacks;
        let mut stacks = StacksView::new(profile);
        stacks.stack_copies = addresses.unwinds();
        let branch_profile = detection.format == Format::PerfData
            && perf.events.iter().any(|e| e.attr.sample_type & sample_type::BRANCH_STACK != 0);
        let root = perf::dump_root(detection.format, len, times);
        let parts = Parts {
            root,
            stacks: Some(stacks),
            addresses: Some(addresses),
            dsos: Some(dsos),
            bolt: None,
            branch_profile,
        };
        self.open_streamed(detection, len, parts)
    }

    /// Opens a streamed file with what its stream gave, its bytes unread.
    fn open_streamed(&mut self, detection: Detection, len: u64, parts: Parts) -> Opened {
        let Parts { root, stacks, addresses, dsos, bolt, branch_profile } = parts;
        // The glue reads the file when the page first asks for the root's children.
        let mut info = node_info(&root);
        info.has_children = true;
        let (views, open_on) = views_of(false, false, stacks.as_ref(), bolt.as_ref());
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
            stacks: stacks.as_ref().map(StacksView::info),
            branch_profile,
            remark: bolt.as_ref().and_then(BoltView::remark),
        };
        self.decoded = Some(Decoded {
            data: Rc::new(Vec::new()),
            unread: true,
            dsos,
            file_size: len,
            compression: None,
            binary_index: OnceCell::new(),
            detection,
            root,
            views: None,
            memprof: None,
            stacks,
            sample: None,
            bolt,
            bat: None,
            branch_profile,
            symbols: Vec::new(),
            addresses,
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
