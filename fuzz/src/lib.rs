//! `pgolens-fuzz`: the fuzz targets of pgolens, one `pub fn(&[u8])` per path from
//! bytes to a view, and the corpus seeds of each ([`seeds`]).
//!
//! The functions are plain stable Rust: `fuzz/libfuzzer/` wraps each in a cargo-fuzz
//! target (`scripts/fuzz.sh` runs the campaign), and `tests/smoke.rs` runs each over
//! its seeds and deterministic mutations of them in the normal `cargo test`.
//!
//! A target checks no result but one: the decoders may refuse any input, and the
//! failures are a panic, a hang, an allocation far beyond the input, and a dump
//! tree that does not tile its input (`dump`, `compressed`). Every
//! target is bounded: inputs longer than [`MAX_INPUT`] are ignored, tree walks stop
//! after [`MAX_NODES`] nodes, streamed outputs after [`MAX_OUTPUT`] bytes, and the
//! worker target makes at most [`MAX_REQUESTS`] requests.
//!
//! Where a target needs a second file (a binary to aggregate a perf.data against, a
//! perf.data to symbolize with a fuzzed ELF), that file is a fixed corpus file
//! ([`fixed`]) and the input is the other one.

pub mod alloc;
pub mod seeds;
mod session;

use pgolens::dump::{write_json, write_text};
use pgolens::formats::bolt::{fdata, preagg, yaml};
use pgolens::formats::gcov::{dump_gcov, write_afdo, write_v4};
use pgolens::formats::instrprof::{self, decode_memprof, proftext};
use pgolens::formats::perf::dsos::DsoUse;
use pgolens::formats::perf::perf2bolt::{self, bat_yaml, binary::Binary};
use pgolens::formats::perf::script::{write_script_with, ScriptFields};
use pgolens::formats::perf::{PerfData, PerfStream};
use pgolens::formats::sample::write_text as sample_text;
use pgolens::model::perf::StackReader;
use pgolens::model::{bat as bat_model, fdata_records, instrprof as instrprof_model, memprof, sample_views};
use pgolens::symbolize::Symbolizer;
use pgolens::{Detection, Node};

pub use session::{folder_offer, worker_session};

/// The largest input a target decodes; longer ones return at once.
pub const MAX_INPUT: usize = 1 << 20;
/// The most dump nodes a walk visits (built and expanded).
pub const MAX_NODES: usize = 50_000;
/// The most bytes a streamed export writes before its sink refuses more.
pub const MAX_OUTPUT: usize = 16 << 20;
/// The most requests the worker target makes after opening its file.
pub const MAX_REQUESTS: usize = 64;
/// How many rows, functions or records the model targets look at in detail.
const DETAIL: u32 = 16;

/// The fixed second files of the targets that fuzz one of two inputs (corpus files,
/// compiled in).
pub mod fixed {
    /// The binary `cprog.*.perf.data` and `cprog.preagg-*.txt` were recorded on (no BAT).
    pub const CPROG: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog");
    /// `cprog` with DWARF call chains: the unwinder reads a symbolizing binary's CFI.
    pub const CPROG_DWARF_PERF: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.dwarf.perf.data");
    /// `cprog` in pipe mode, frame-pointer chains with kernel frames: what `perf script`
    /// names from binaries and kallsyms.
    pub const CPROG_PIPE_PERF: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.pipe.perf.data");
    /// `cprog`, frame-pointer chains with kernel frames (file mode).
    pub const CPROG_FP_PERF: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.fp.perf.data");
    /// Branch stacks recorded on the BOLTed `cprog.bolt`: BAT translates them.
    pub const CPROG_BOLT_BRSTACK_PERF: &[u8] =
        include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.bolt.brstack.perf.data");
    /// A pre-aggregated profile of `cprog.bolt`.
    pub const CPROG_BOLT_PREAGG: &[u8] =
        include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.bolt.preagg-traces.txt");
    /// perf2bolt's fdata of `cprog.bolt`, translated through its BAT.
    pub const CPROG_BOLT_BAT_FDATA: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.bolt.bat.fdata");
    /// A merged fdata of `cprog`: merged with a fuzzed fdata, names meet.
    pub const CPROG_MERGED_FDATA: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.merged.fdata");
    /// A raw profile correlated through DWARF (`-profile-correlate=debug-info`).
    pub const DBGCORR_PROFRAW: &[u8] = include_bytes!("../../tests/corpus/llvm/dbgcorr-progB/dbgcorr-progB.profraw");
    /// A raw profile correlated through the binary's sections (`-profile-correlate=binary`).
    pub const BINCORR_PROFRAW: &[u8] = include_bytes!("../../tests/corpus/llvm/bincorr-progB/bincorr-progB.profraw");
    /// A merged YAML profile of `cprog`.
    pub const CPROG_MERGED_YAML: &[u8] = include_bytes!("../../tests/corpus/bolt-perf/cprog/cprog.merged.yaml");
}

/// Calls `each` with the input as the decoders see it ([`pgolens::open`]: gzip and
/// zstd inflated), unless it is too long or does not open.
fn opened(data: &[u8], each: impl FnOnce(&[u8])) {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(input) = pgolens::open(data) {
        each(&input.data);
    }
}

/// A sink for streamed exports that refuses more than [`MAX_OUTPUT`] bytes.
fn bounded_sink(written: &mut usize) -> impl FnMut(&[u8]) -> Result<(), ()> + '_ {
    move |chunk| {
        *written = written.saturating_add(chunk.len());
        if *written > MAX_OUTPUT {
            Err(())
        } else {
            Ok(())
        }
    }
}

/// Detection: [`pgolens::open`] then [`pgolens::Input::detect`], and the detection's text.
pub fn detect(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(input) = pgolens::open(data) {
        if let Ok(detection) = input.detect() {
            let _ = detection.to_string();
        }
    }
}

/// The dump: detection, [`pgolens::dump_with_sample_profile`], then the whole tree
/// walked as `pgolens dump` prints it (each node's text and JSON), every deferred
/// node expanded, at most [`MAX_NODES`] nodes; built trees must tile their input.
pub fn dump(data: &[u8]) {
    opened(data, |data| {
        let Ok(detection) = pgolens::detect(data) else { return };
        let Ok((root, _)) = pgolens::dump_with_sample_profile(data, &detection) else { return };
        assert_eq!(root.check_tiling(), Ok(()), "the dump of a {} does not tile it", detection.format.id());
        walk(data, &detection, root);
    });
}

/// Visits `root` and its descendants depth first, expanding deferred nodes.
fn walk(data: &[u8], detection: &Detection, root: Node) {
    let mut pending = vec![(root, 0usize)];
    let mut visited = 0usize;
    let mut line = String::new();
    while let Some((mut node, depth)) = pending.pop() {
        visited += 1;
        if visited > MAX_NODES {
            return;
        }
        line.clear();
        write_text(&node, depth, &mut line);
        let mut head = Node::new(node.label.clone(), node.start, node.end);
        head.value = node.value.take();
        write_json(&head, &mut line);
        let children = match node.deferred {
            Some(deferred) => match pgolens::expand(data, detection, &deferred) {
                Ok(children) => {
                    let mut parent = Node::new("", deferred.start, deferred.end).with_children(children);
                    assert_eq!(parent.check_tiling(), Ok(()), "expanded children do not tile their parent");
                    core::mem::take(&mut parent.children)
                }
                Err(_) => continue,
            },
            None => node.children,
        };
        pending.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
    }
}

/// Compressed input with valid framing: the input wrapped as a gzip file (stored
/// deflate blocks, right CRC-32 and ISIZE) and as a zstd frame (raw blocks), each
/// through [`dump`] (decompression, detection, the whole dump) — plain mutations of
/// a compressed seed rarely get past its checks into the inflated content.
pub fn compressed(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    dump(&pgolens::compress::gzip_stored(data));
    dump(&zstd_raw(data));
}

/// `data` as one zstd frame (RFC 8878) of raw blocks, no checksum: a 128 KiB window.
fn zstd_raw(data: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 128 << 10;
    // Frame header descriptor 0 (no content size, checksum or dictionary), then the
    // window descriptor: exponent 7, 2^(10 + 7) bytes.
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0, 7 << 3];
    let mut blocks = data.chunks(BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0]);
    }
    while let Some(block) = blocks.next() {
        // Last_Block, Block_Type 0 (raw), Block_Size, 3 bytes little-endian.
        let header = u32::from(blocks.peek().is_none()) | ((block.len() as u32) << 3);
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(block);
    }
    out
}

/// A perf.data's model: both parses, every record, the time order, and the call
/// stacks (unsymbolized) of [`pgolens::model::perf::stack_profile`]; and the same
/// records streamed in ([`PerfStream`]), which must be those of the whole file when
/// both decode.
pub fn perf(data: &[u8]) {
    opened(data, |data| {
        if let Ok(perf) = PerfData::parse(data) {
            let _ = perf.records().take(1 << 20).filter(Result::is_ok).count();
            let _ = pgolens::model::perf::stack_profile(&perf, &Symbolizer::new(), |_, _| {});
            let mut whole = Vec::new();
            let decoded = perf.for_each_in_time_order(|p| {
                let r = perf.record_at(p)?;
                whole.push((r.offset, r.header.kind));
                Ok(())
            });
            // A damaged pipe recording may announce an event after its first samples:
            // the whole file's decode finds it anyway, the stream (like perf) fails.
            if let (Ok(()), Ok(streamed)) = (decoded, streamed_records(data, 509)) {
                assert_eq!(streamed, whole);
            }
            // Read by two readers at once, cut at a place the input picks: the
            // stacks and DSO counts of one reader.
            let cut = data.len().saturating_mul(usize::from(data.last().copied().unwrap_or(0))) / 256;
            if let (Ok(one), Ok(two)) = (streamed_stacks(data, None), streamed_stacks(data, Some(cut))) {
                assert_eq!(one, two, "cut at {cut}");
            }
        }
        if let Ok(perf) = PerfData::parse_unindexed(data) {
            let _ = perf.sample_count();
        }
    });
}

/// A stream of a perf.data whose other parts are read from `data`, and the bytes
/// of its record stream, to be fed.
fn stream_of(data: &[u8]) -> pgolens::Result<(PerfStream, &[u8])> {
    let mut fetch = |offset: u64, len: u64, expected: &'static str| {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
        data.get(start..end).map(<[u8]>::to_vec).ok_or(pgolens::Error::invalid(0, expected, offset))
    };
    let head = data.get(..data.len().min(104)).unwrap_or_default();
    let (stream, start) = PerfStream::start(head, data.len() as u64, &mut fetch)?;
    Ok((stream, data.get(usize::try_from(start).unwrap_or(usize::MAX)..).unwrap_or_default()))
}

/// The records of a perf.data streamed in chunks of `chunk` bytes: (offset, type).
fn streamed_records(data: &[u8], chunk: usize) -> pgolens::Result<Vec<(u64, u32)>> {
    let (mut stream, records) = stream_of(data)?;
    let mut out = Vec::new();
    let mut visit = |_: &PerfData<'_>, r: &pgolens::formats::perf::RecordAt<'_>| {
        out.push((r.offset, r.header.kind));
        Ok(())
    };
    for piece in records.chunks(chunk) {
        stream.feed(piece, &mut visit)?;
    }
    stream.finish(&mut visit)?;
    Ok(out)
}

/// The stacks (as their debug text) and DSO counts of a perf.data streamed in
/// chunks, read by one reader, or by two at once cut where `cut` bytes of the
/// record stream were fed ([`StackReader::join`]).
fn streamed_stacks(data: &[u8], cut: Option<usize>) -> pgolens::Result<(String, Vec<DsoUse>)> {
    let symbolizer = Symbolizer::new();
    let (mut stream, records) = stream_of(data)?;
    let (before, after) = records.split_at(cut.unwrap_or(0).min(records.len()));
    let mut reader = StackReader::new(0);
    reader.count_dsos();
    fn feed<'s>(
        stream: &mut PerfStream,
        bytes: &[u8],
        reader: &mut StackReader<'s>,
        symbolizer: &Symbolizer<'s>,
    ) -> pgolens::Result<()> {
        for piece in bytes.chunks(509) {
            stream.feed(piece, &mut |perf, r| {
                reader.record(perf, r, symbolizer);
                Ok(())
            })?;
        }
        Ok(())
    }
    let mut first = None;
    if cut.is_some() {
        let (mut first_stream, _) = stream_of(data)?;
        let mut part = StackReader::new(0);
        part.count_dsos();
        feed(&mut first_stream, before, &mut part, &symbolizer)?;
        first = Some(part.into_part());
        reader.replay(true);
        stream.skip_samples(true);
    }
    feed(&mut stream, before, &mut reader, &symbolizer)?;
    reader.replay(false);
    stream.skip_samples(false);
    feed(&mut stream, after, &mut reader, &symbolizer)?;
    let perf = stream.finish(&mut |perf, r| {
        reader.record(perf, r, &symbolizer);
        Ok(())
    })?;
    if let Some(first) = first {
        reader.join(first);
    }
    let dsos = reader.dso_uses(&perf).unwrap_or_default();
    Ok((format!("{:?}", reader.finish(&perf)), dsos))
}

/// `export --to perf-script` and `--to perf-script-brstack` of a perf.data (unsymbolized).
pub fn perf_script(data: &[u8]) {
    opened(data, |data| {
        let Ok(perf) = PerfData::parse_unindexed(data) else { return };
        for fields in [ScriptFields::Samples, ScriptFields::Brstack] {
            let mut written = 0;
            let _ = write_script_with(&perf, fields, None, bounded_sink(&mut written));
        }
    });
}

/// `export --to fdata|yaml --binary cprog` of a perf.data: perf2bolt's aggregation
/// (LBR and `--ba`) against the fixed binary, written as fdata.
pub fn perf2bolt(data: &[u8]) {
    opened(data, |data| {
        let Ok(binary) = Binary::parse(fixed::CPROG) else { return };
        let Ok(perf) = PerfData::parse(data) else { return };
        for profile in
            [perf2bolt::aggregate(&perf, &binary, b"cprog"), perf2bolt::aggregate_basic(&perf, &binary, b"cprog")]
                .into_iter()
                .flatten()
        {
            let mut out = Vec::new();
            fdata::write(&profile.to_fdata_model(), &mut out);
        }
    });
}

/// A pre-aggregated profile: its decoder, and `export --to fdata --binary cprog`
/// (perf2bolt `--pa`, with and without `--ba`).
pub fn bolt_preagg(data: &[u8]) {
    opened(data, |data| {
        // Plain lines read directly are the entries the field reader gives.
        assert_eq!(preagg::decode(data), preagg::decode_by_fields(data));
        let Ok(binary) = Binary::parse(fixed::CPROG) else { return };
        for basic in [false, true] {
            if let Ok(profile) = perf2bolt::aggregate_preagg(data, &binary, basic) {
                let mut out = Vec::new();
                fdata::write(&profile.to_fdata_model(), &mut out);
            }
        }
    });
}

/// An fdata profile: decode, `export --to fdata` (re-written), the record tables of
/// the page (every order, a filter, some rows), `merge` with itself and with a
/// corpus fdata (the whole merge and merge-fdata's streaming merger).
pub fn bolt_fdata(data: &[u8]) {
    opened(data, |data| {
        let Ok(profile) = fdata::decode(data) else { return };
        let mut out = Vec::new();
        fdata::write(&profile, &mut out);
        for which in [fdata_records::Records::Branches, fdata_records::Records::Memory, fdata_records::Records::Samples]
        {
            let _ = fdata_records::weight(&profile, which);
            for &column in fdata_records::RecordColumn::of(which) {
                for descending in [false, true] {
                    let order = fdata_records::sorted(&profile, which, column, descending);
                    let _ = fdata_records::filter(&profile, which, &order, "main");
                }
            }
            for id in 0..DETAIL {
                if let Some(row) = fdata_records::row(&profile, which, id) {
                    let _ = (fdata_records::location_text(row.from), row.to.map(fdata_records::location_text));
                }
            }
        }
        // The streaming merger, which sums lines by their text where it can, is the
        // whole merge of the decoded records, in either order, its result or its
        // error, on one merger or split between two.
        let written = |merged: fdata::Fdata<'_>| {
            let mut out = Vec::new();
            fdata::write(&merged, &mut out);
            out
        };
        for other in [data, fixed::CPROG_MERGED_FDATA] {
            for inputs in [[data, other], [other, data]] {
                let whole = inputs
                    .iter()
                    .map(|d| fdata::decode(d))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|decoded| fdata::merge(&decoded).map(written));
                let mut merger = fdata::Merger::new();
                let streamed = inputs
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, d)| merger.add(i, d))
                    .map(|()| merger.finish().map(written));
                assert_eq!(streamed, whole);
                let (Ok(head), Some(second)) = (fdata::read_header(inputs[0]), inputs.get(1)) else { continue };
                let mut first = fdata::Merger::new();
                let mut later = fdata::Merger::after_first(head.bolted_collection, head.no_lbr.is_some());
                // Written straight from the sums (`Merger::write`), as `merge` writes.
                let split = first.add(0, inputs[0]).and_then(|()| later.add(1, second)).map(|()| {
                    first.absorb(later);
                    let mut out = Vec::new();
                    first.write(&mut out).map(|()| out)
                });
                assert_eq!(split, whole);
                // Each of two mergers reading the same part of both inputs, as
                // the CLI's threads do when both can be cut: the whole merge, or
                // a failure (then the CLI reads the inputs whole), always where
                // the whole merge is an error.
                let (Some(parts), Some(second_parts)) =
                    (fdata::merge_parts(inputs[0], 2), fdata::merge_parts(second, 2))
                else {
                    continue;
                };
                let mut mergers = [fdata::Merger::new(), fdata::Merger::after_first(false, false)];
                let mut read = Ok(());
                for (part, merger) in mergers.iter_mut().enumerate() {
                    for (i, p) in [&parts, &second_parts].into_iter().enumerate() {
                        let data = p.get(part).copied().unwrap_or_default();
                        read = read.and_then(|()| merger.add_part(i, part, 2, data));
                    }
                }
                let [mut first, later] = mergers;
                first.absorb(later);
                let mut out = Vec::new();
                let parted = read.is_ok() && first.write(&mut out).is_ok();
                match &whole {
                    Ok(Ok(text)) => assert!(!parted || out == *text),
                    _ => assert!(!parted),
                }
            }
        }
    });
}

/// A BOLT YAML profile: decode (whole, and as it streams in), `export --to yaml` (re-written as LLVM writes it),
/// and `merge` with itself and with a corpus YAML profile.
pub fn bolt_yaml(data: &[u8]) {
    opened(data, |data| {
        // Decoded as it streams in, a piece of whole functions at a time (pieces as
        // small as they come, blocks of a few bytes): what it decodes is the whole
        // text's profile. It may fail where the whole text does not, or with another
        // error (see `YamlStream`): the page then reads the file whole. Told the
        // text's length, as the page tells it the file's size.
        let mut stream = yaml::YamlStream::with_len(1, data.len() as u64);
        let streamed = data.chunks(61).try_for_each(|block| stream.feed(block)).and_then(|()| stream.finish());
        if let Ok(streamed) = streamed {
            assert_eq!(Ok(streamed), yaml::decode(data).map(yaml::Profile::into_owned));
        }
        let Ok(profile) = yaml::decode(data) else { return };
        let _ = yaml::write(&profile, profile.wrap_column());
        for other in [data, fixed::CPROG_MERGED_YAML] {
            let (Ok(a), Ok(b)) = (yaml::decode(data), yaml::decode(other)) else { continue };
            if let Ok(merged) = yaml::merge(&[a, b]) {
                let _ = yaml::write(&merged, yaml::MERGE_FDATA_WRAP);
            }
        }
    });
}

/// An ELF file as the page reads one: its BAT (the BAT view's rows in every order,
/// each function), perf2bolt's reading of it (symbols, code, BAT), and the
/// instructions of its first functions.
pub fn elf(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(Some(bat)) = pgolens::formats::bolt::bat::from_elf(data) {
        let rows = bat_model::rows(&bat, &|address| Some(format!("f{address:x}")));
        for column in bat_model::BatColumn::ALL {
            let order = bat_model::sorted(&rows, column, true);
            let _ = bat_model::filter(&rows, &order, "main");
        }
        for id in 0..DETAIL {
            let _ = bat_model::function(&bat, id).map(|f| f.blocks().count());
        }
    }
    let _ = pgolens::formats::bolt::bat::info_from_elf(data);
    if let Ok(binary) = Binary::parse(data) {
        for function in binary.functions.iter().take(DETAIL as usize) {
            let _ = pgolens::model::disasm::block(&binary, function.address, 0, function.size);
            let _ = pgolens::formats::perf::perf2bolt::cfg::build(&binary, function);
        }
    }
}

/// Symbolization with a fuzzed ELF: the fixed DWARF-chain perf.data's call stacks
/// (symbols, inline frames, CFI unwinding) and the fixed pipe-mode perf.data's
/// `perf script` text, both with the input as the binary `cprog`.
pub fn symbolize(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut symbolizer = Symbolizer::new();
    if symbolizer.add_binary("cprog", data).is_err() {
        return;
    }
    symbolized(&symbolizer, fixed::CPROG_DWARF_PERF);
}

/// Symbolization with a fuzzed kallsyms file: the fixed frame-pointer perf.data's
/// call stacks and `perf script` text, kernel frames named from the input.
pub fn kallsyms(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut symbolizer = Symbolizer::new();
    if symbolizer.set_kallsyms(data).is_err() {
        return;
    }
    symbolized(&symbolizer, fixed::CPROG_FP_PERF);
}

fn symbolized(symbolizer: &Symbolizer<'_>, stacks_from: &[u8]) {
    if let Ok(perf) = PerfData::parse_unindexed(stacks_from) {
        let _ = pgolens::model::perf::stack_profile(&perf, symbolizer, |_, _| {});
    }
    if let Ok(perf) = PerfData::parse_unindexed(fixed::CPROG_PIPE_PERF) {
        let mut written = 0;
        let _ = write_script_with(&perf, ScriptFields::Samples, Some(symbolizer), bounded_sink(&mut written));
    }
}

/// BAT translation through a fuzzed BOLTed ELF: the fixed branch-stack perf.data and
/// pre-aggregated profile of `cprog.bolt` aggregated against it (`export --to fdata`
/// and `--to yaml`, perf2bolt -w's YAML from BAT), and the BAT view's graph of each
/// function counted by the fixed translated fdata.
pub fn bat_translate(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(binary) = Binary::parse(data) else { return };
    let profiles = [
        PerfData::parse(fixed::CPROG_BOLT_BRSTACK_PERF).and_then(|p| perf2bolt::aggregate(&p, &binary, b"cprog.bolt")),
        perf2bolt::aggregate_preagg(fixed::CPROG_BOLT_PREAGG, &binary, false),
    ];
    for profile in profiles.into_iter().flatten() {
        let mut out = Vec::new();
        fdata::write(&profile.to_fdata_model(), &mut out);
        if binary.translation.is_some() {
            if let Ok(yaml) = bat_yaml::to_yaml(&profile, data, b"cprog.bolt") {
                let _ = yaml::write(&yaml, None);
            }
        }
    }
    if let (Ok(Some(bat)), Ok(fdata)) =
        (pgolens::formats::bolt::bat::from_elf(data), fdata::decode(fixed::CPROG_BOLT_BAT_FDATA))
    {
        for hot in 0..u32::try_from(bat.hot.functions.len()).unwrap_or(u32::MAX).min(DETAIL) {
            let _ = bat_model::profile_cfg(&bat, hot, &fdata, "f");
        }
    }
}

/// Correlation with a fuzzed ELF: the fixed correlated raw profiles (DWARF and
/// binary correlation) decoded with the input as their instrumented binary
/// (`export --to proftext --binary ELF`, the page's correlate).
pub fn instrprof_correlate(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    for raw in [fixed::DBGCORR_PROFRAW, fixed::BINCORR_PROFRAW] {
        if let Ok(profile) = instrprof::decode(raw, Some(data)) {
            let mut written = 0;
            let _ = proftext::write_chunks(&profile, 1 << 16, &mut bounded_sink(&mut written));
        }
    }
}

/// An instrumentation profile (raw, indexed or text): the model, `export --to
/// proftext`, the function table in every order, the summaries and some functions'
/// details; and a MemProf profile's allocation sites (raw, or an indexed one's).
pub fn instrprof(data: &[u8]) {
    opened(data, |data| {
        if let Ok(profile) = instrprof::decode(data, None) {
            let mut written = 0;
            let _ = proftext::write_chunks(&profile, 1 << 16, &mut bounded_sink(&mut written));
            let mut table = instrprof_model::function_table(&profile);
            for column in pgolens::model::Column::ALL {
                let order = table.sorted(column, true);
                let _ = table.filter(&order, "main");
            }
            for id in 0..DETAIL {
                let _ = table.row(id).map(|r| format!("{r:?}"));
            }
            let _ = instrprof_model::summary(&profile, false);
            let _ = instrprof_model::summary(&profile, true);
            let names = instrprof_model::Names::new(&profile);
            for id in 0..DETAIL {
                let _ = instrprof_model::function_detail(&profile, &names, id);
            }
            if let Some(sites) = memprof::Sites::indexed(&profile) {
                memprof_sites(&sites);
            }
        }
        if let Ok(raw) = decode_memprof::decode_raw(data) {
            memprof_sites(&memprof::Sites::raw(&raw));
        }
    });
}

fn memprof_sites(sites: &memprof::Sites) {
    for column in memprof::Column::ALL {
        let _ = sites.sorted(column, true);
    }
    for id in 0..DETAIL {
        if let Some(site) = sites.site(id) {
            let _ = site.function.map(|g| sites.name(g));
            let _ = site
                .frames
                .iter()
                .filter_map(|f| f.segment)
                .filter_map(|s| sites.segments.get(s as usize))
                .map(memprof::build_id_hex)
                .count();
        }
    }
}

/// A sample profile (LLVM text, binary, extbinary; GCC AutoFDO; GCOV v4 binary,
/// compact, text): the model, every export (`sampletext`, `dump-gcov`, `afdo`,
/// `gcov4`, `gcov4-compact`, `gcov4-text`), and the page's views (the function
/// table in every order, line heat, the stacks and inline trees).
pub fn sample(data: &[u8]) {
    opened(data, |data| {
        let Ok(profile) = pgolens::detect::decode_sample_profile(data) else { return };
        let mut written = 0;
        let _ = sample_text::write_chunks(&profile, 1 << 16, &mut bounded_sink(&mut written));
        let mut out = Vec::new();
        dump_gcov::write(&profile, &mut out);
        out.clear();
        write_afdo::write(&profile, &mut out);
        let summary = pgolens::model::sample::summary(&profile);
        for encoding in [write_v4::Encoding::Binary, write_v4::Encoding::Compact, write_v4::Encoding::Text] {
            out.clear();
            write_v4::write(&profile, &summary, encoding, &mut out);
        }
        let _ = write_v4::losses(&profile);
        let mut table = sample_views::SampleTable::new(&profile);
        for column in sample_views::Column::ALL {
            let order = table.sorted(column, true);
            let _ = table.filter(&order, "main");
        }
        for function in profile.functions.iter().take(DETAIL as usize) {
            let _ = sample_views::line_heat(&profile.names, function);
        }
        let stacks = sample_views::stack_profile(&profile);
        for function in 0..profile.functions.len().min(DETAIL as usize) {
            let _ = sample_views::inline_tree(&profile, function, &stacks.frames, &stacks.stacks);
        }
    });
}

/// GCC AutoFDO and GCOV v4 files: the same paths as [`sample`], its own seeds.
pub fn gcov(data: &[u8]) {
    sample(data);
}

/// Every target: its name (the cargo-fuzz target's), its function, and the
/// corpus formats its seeds are.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
    pub seeds: seeds::Seeds,
}

use pgolens::Format as F;
use seeds::Seeds;

/// The targets, in the order the smoke test and the campaign run them.
pub const TARGETS: &[Target] = &[
    Target { name: "detect", run: detect, seeds: Seeds::Any },
    Target { name: "dump", run: dump, seeds: Seeds::Any },
    Target { name: "compressed", run: compressed, seeds: Seeds::Any },
    Target { name: "perf", run: perf, seeds: Seeds::Formats(&[F::PerfData, F::PerfDataPipe]) },
    Target { name: "perf_script", run: perf_script, seeds: Seeds::Formats(&[F::PerfData, F::PerfDataPipe]) },
    Target { name: "perf2bolt", run: perf2bolt, seeds: Seeds::Formats(&[F::PerfData]) },
    Target { name: "bolt_preagg", run: bolt_preagg, seeds: Seeds::Formats(&[F::BoltPreagg]) },
    Target { name: "bolt_fdata", run: bolt_fdata, seeds: Seeds::Formats(&[F::BoltFdata]) },
    Target { name: "bolt_yaml", run: bolt_yaml, seeds: Seeds::Formats(&[F::BoltYaml]) },
    Target { name: "elf", run: elf, seeds: Seeds::Formats(&[F::Elf, F::ElfWithBat]) },
    Target { name: "symbolize", run: symbolize, seeds: Seeds::Formats(&[F::Elf, F::ElfWithBat]) },
    Target { name: "folder", run: folder_offer, seeds: Seeds::Formats(&[F::Elf, F::ElfWithBat]) },
    Target { name: "kallsyms", run: kallsyms, seeds: Seeds::Formats(&[F::Kallsyms]) },
    Target { name: "bat_translate", run: bat_translate, seeds: Seeds::Formats(&[F::ElfWithBat]) },
    Target {
        name: "instrprof_correlate",
        run: instrprof_correlate,
        seeds: Seeds::Files(&["llvm/dbgcorr-progB/dbgcorr-progB.elf", "llvm/bincorr-progB/bincorr-progB.elf"]),
    },
    Target {
        name: "instrprof",
        run: instrprof,
        seeds: Seeds::Formats(&[F::InstrProfRaw, F::InstrProfIndexed, F::InstrProfText, F::MemProfRaw]),
    },
    Target {
        name: "sample",
        run: sample,
        seeds: Seeds::Formats(&[F::SampleText, F::SampleBinary, F::SampleExtBinary]),
    },
    Target { name: "gcov", run: gcov, seeds: Seeds::Formats(&[F::GcovAfdo, F::GcovV4, F::GcovV4Text]) },
    Target { name: "worker_session", run: worker_session, seeds: Seeds::Any },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_wrappers_inflate_to_their_input() {
        // 256,548 bytes: several stored deflate blocks and two zstd raw blocks.
        let inputs: [&[u8]; 3] = [b"", fixed::CPROG_FP_PERF, fixed::CPROG_BOLT_BRSTACK_PERF];
        for input in inputs {
            let gzip = pgolens::compress::gzip_stored(input);
            let opened = pgolens::open(&gzip).unwrap();
            assert!(opened.gzip && opened.data.as_ref() == input, "gzip of {} bytes", input.len());
            let zstd = zstd_raw(input);
            let opened = pgolens::open(&zstd).unwrap();
            assert!(opened.zstd && opened.data.as_ref() == input, "zstd of {} bytes", input.len());
        }
    }
}
