//! The BOLT commands: fdata from a perf.data, a pre-aggregated profile or an fdata
//! (perf2bolt, perf2bolt --pa), YAML re-written as LLVM writes it, and merges
//! (merge-fdata).

use std::io::{self, Write};

use pgolens::formats::bolt::{fdata, yaml};
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};
use pgolens::formats::perf::PerfData;
use pgolens::Format;

use crate::{map, map_lazily, written};

/// Writes `bytes` to `out` (a file) or to stdout.
pub fn emit(out: Option<&str>, bytes: &[u8]) -> Result<(), String> {
    let mut output = Output { path: out, file: None };
    output.write(bytes)?;
    output.finish()
}

/// Where a command's output goes, written a piece at a time: the file `path`
/// names, created at the first piece (a merge that fails writes none), or stdout.
struct Output<'p> {
    path: Option<&'p str>,
    file: Option<std::fs::File>,
}

impl Output<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self.path {
            Some(path) => {
                let file = match &mut self.file {
                    Some(file) => file,
                    None => self.file.insert(std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?),
                };
                file.write_all(bytes).map_err(|e| format!("{path}: {e}"))
            }
            None => written(io::stdout().lock().write_all(bytes)),
        }
    }

    /// Stdout flushed (a file's bytes are in it already).
    fn finish(self) -> Result<(), String> {
        match self.path {
            Some(_) => Ok(()),
            None => written(io::stdout().lock().flush()),
        }
    }
}

/// `export FILE --to fdata [--binary ELF] [--ba] [-o OUT]`: what perf2bolt writes for a
/// perf.data (`-p FILE`) or a pre-aggregated profile (`--pa -p FILE`), or an fdata
/// re-written as perf2bolt writes fdata.
pub fn export_fdata(path: &str, elf: Option<&str>, basic: bool, output: Option<&str>) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let format = input.detect().map_err(|e| format!("{path}: {e}"))?.format;
    let mut out = Vec::new();
    if format == Format::BoltFdata {
        let profile = fdata::decode(&input.data).map_err(|e| crate::failed(path, &input, e))?;
        fdata::write(&profile, &mut out);
        return emit(output, &out);
    }
    let elf = elf.ok_or("--to fdata needs --binary ELF (the profiled binary)")?;
    let elf_bytes = map(elf)?;
    let binary = Binary::parse(&elf_bytes).map_err(|e| format!("{elf}: {e}"))?;
    let profile = aggregate(path, &input, format, elf, &binary, basic, "fdata")?;
    fdata::write(&profile.to_fdata_model(), &mut out);
    emit(output, &out)
}

/// perf2bolt's aggregation of a perf.data or a pre-aggregated profile against `binary`
/// (the file `elf`).
fn aggregate<'b>(
    path: &str,
    input: &pgolens::Input,
    format: Format,
    elf: &str,
    binary: &'b Binary<'b>,
    basic: bool,
    target: &str,
) -> Result<perf2bolt::Profile<'b>, String> {
    let data = &input.data;
    match format {
        Format::BoltPreagg => perf2bolt::aggregate_preagg(data, binary, basic),
        Format::PerfData => {
            let perf = PerfData::parse(data).map_err(|e| crate::failed(path, input, e))?;
            if basic {
                perf2bolt::aggregate_basic(&perf, binary, base_name(elf))
            } else {
                perf2bolt::aggregate(&perf, binary, base_name(elf))
            }
        }
        other => return Err(format!("{path}: a {other} cannot become {target} (perf.data, pre-aggregated or fdata)")),
    }
    .map_err(|e| crate::failed(path, input, e))
}

/// The file name of a path, as perf2bolt matches it against perf's mappings.
fn base_name(path: &str) -> &[u8] {
    std::path::Path::new(path).file_name().map(|n| n.as_encoded_bytes()).unwrap_or(path.as_bytes())
}

/// `export FILE --to yaml [--binary ELF] [--ba] [-o OUT]`: a BOLT YAML profile as LLVM's
/// writer writes it (wrapped at column 70 when the input was, as merge-fdata's output
/// is); or, for a perf.data or pre-aggregated profile of a BOLTed binary ELF (one with
/// BAT), the YAML `perf2bolt ELF -p FILE -w OUT` writes from the BAT tables.
pub fn export_yaml(path: &str, elf: Option<&str>, basic: bool, output: Option<&str>) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let format = input.detect().map_err(|e| format!("{path}: {e}"))?.format;
    if format == Format::BoltYaml {
        let profile = yaml::decode(&input.data).map_err(|e| crate::failed(path, &input, e))?;
        warn_unknown_keys(path, &profile);
        return emit(output, &yaml::write(&profile, profile.wrap_column()));
    }
    if !matches!(format, Format::PerfData | Format::BoltPreagg) {
        return Err(format!(
            "{path}: a {format} cannot become YAML here (YAML from fdata needs BOLT's block hashes of the binary)"
        ));
    }
    let elf = elf.ok_or("--to yaml from a profile needs --binary ELF (the BOLTed binary, with BAT)")?;
    let elf_bytes = map(elf)?;
    let binary = Binary::parse(&elf_bytes).map_err(|e| format!("{elf}: {e}"))?;
    if binary.translation.is_none() {
        return Err(format!(
            "{elf}: no BAT (.note.bolt_bat): YAML of a binary BOLT did not write needs its CFG (not done)"
        ));
    }
    let profile = aggregate(path, &input, format, elf, &binary, basic, "YAML")?;
    let yaml = perf2bolt::bat_yaml::to_yaml(&profile, &elf_bytes, elf.as_bytes()).map_err(|e| format!("{elf}: {e}"))?;
    emit(output, &yaml::write(&yaml, None))
}

/// LLVM's reader warns about keys it does not know and goes on; so do we.
fn warn_unknown_keys(path: &str, profile: &yaml::Profile<'_>) {
    for k in &profile.unknown_keys {
        eprintln!("{path}:{}:{}: warning: unknown key '{}'", k.line, k.column, String::from_utf8_lossy(&k.key));
    }
}

/// `merge A B... [-o OUT] [--threads N]`: merge-fdata. All inputs fdata, or all
/// YAML. An fdata merge runs on N threads (default: the machine's cores, at most
/// 8); its output is the same on any number.
pub fn merge(args: &[String]) -> Result<(), String> {
    let mut inputs = Vec::new();
    let mut output = None;
    let mut threads = cores();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-o" => output = Some(rest.next().ok_or("-o needs a file")?.as_str()),
            "--threads" => {
                threads = rest
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| (1..=256).contains(n))
                    .ok_or("--threads needs a number from 1 to 256")?;
            }
            _ if !arg.starts_with('-') => inputs.push(arg.as_str()),
            _ => return Err(crate::USAGE.to_string()),
        }
    }
    if inputs.is_empty() {
        return Err(crate::USAGE.to_string());
    }
    let files = map_all(&inputs)?;
    // merge-fdata's test: a YAML profile starts with `---`.
    let yaml = files.first().is_some_and(|f| f.starts_with(b"---\n"));
    if let Some(i) = files.iter().position(|f| f.starts_with(b"---\n") != yaml) {
        return Err(format!("{}: cannot mix YAML and fdata profiles", inputs.get(i).unwrap_or(&"")));
    }
    if yaml {
        let profiles = files
            .iter()
            .zip(&inputs)
            .map(|(f, path)| {
                let p = yaml::decode(f).map_err(|e| format!("{path}: {e}"))?;
                warn_unknown_keys(path, &p);
                Ok(p)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let merged = yaml::merge(&profiles).map_err(|e| e.to_string())?;
        eprintln!("pgolens: data for {} unique objects merged", merged.functions.len());
        return emit(output, &yaml::write(&merged, yaml::MERGE_FDATA_WRAP));
    }
    let mut text = Output { path: output, file: None };
    merge_fdata(&files, &inputs, threads, &mut text)?;
    eprintln!("pgolens: profile from {} files merged", inputs.len());
    text.finish()
}

/// The pieces a merge's text is written out in (`fdata::Merger::write_chunks`).
const CHUNK: usize = 256 << 10;

/// The threads a merge runs on by default: as many as the machine has, at most 8.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get()).clamp(1, 8)
}

/// `n` items in `parts` consecutive runs of about equal weight.
fn split(weights: &[usize], parts: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = weights.iter().sum();
    let mut runs = Vec::new();
    let (mut start, mut sum) = (0, 0usize);
    for (i, w) in weights.iter().enumerate() {
        sum = sum.saturating_add(*w);
        let goal = total / parts * (runs.len() + 1);
        if sum >= goal && runs.len() + 1 < parts {
            runs.push(start..i + 1);
            start = i + 1;
        }
    }
    runs.push(start..weights.len());
    runs
}

/// Every input mapped, the first error in input order. The pages are mapped by the
/// threads that read them: populating every map first (on both cores) kept the
/// merge's threads waiting, 7% of a 75-file merge (`bench/interleave.sh`).
fn map_all(inputs: &[&str]) -> Result<Vec<memmap2::Mmap>, String> {
    inputs.iter().map(|p| map_lazily(p)).collect()
}

/// merge-fdata's fdata merge on `threads` threads, written to `text` a piece at a
/// time as it is made (nothing when the merge fails). Each thread
/// reads the same part of every input (`fdata::merge_parts`) when they can be cut
/// so: a thread that takes whole inputs reads its first one all on the slow path
/// (every record new), a sixth of a 100 MB merge. Otherwise, or if that fails,
/// each thread reads a consecutive run of whole inputs. Either way the mergers are
/// then absorbed in order. Errors are those of decoding every input, then merging
/// them, in order: the first input that fails to decode, else the first merge
/// error, else the first error writing the text. Each thread, once it has handed
/// its merger over, drops the pages it read (`release`) while the merge is
/// absorbed and written.
fn merge_fdata<'f>(
    files: &'f [memmap2::Mmap],
    inputs: &[&str],
    threads: usize,
    text: &mut Output<'_>,
) -> Result<(), String> {
    let mut sink = |bytes: &[u8]| text.write(bytes);
    let first =
        files.first().and_then(|f| fdata::read_header(f).ok()).map(|h| (h.bolted_collection, h.no_lbr.is_some()));
    let parts: Option<Vec<Vec<&[u8]>>> = files.iter().map(|f| fdata::merge_parts(f, threads)).collect();
    if let (Some(parts), 2..) = (parts, threads) {
        let units = (0..threads)
            .map(|part| {
                let unit = |(input, cut): (usize, &Vec<&'f [u8]>)| {
                    Some(Unit { input, part, parts: threads, data: cut.get(part)? })
                };
                parts.iter().enumerate().filter_map(unit).collect()
            })
            .collect();
        // A failure is reported as the whole inputs read in runs report it (its
        // line counted from the input's start).
        let written = std::thread::scope(|scope| {
            let merged = merge_units(scope, files, units, first, inputs);
            merged.ok()?.write_chunks(CHUNK, &mut sink).ok()
        });
        if let Some(written) = written {
            return written;
        }
    }
    let sizes: Vec<usize> = files.iter().map(|f| f.len()).collect();
    let runs = split(&sizes, threads.min(files.len()).max(1));
    let whole = |input: usize| Some(Unit { input, part: 0, parts: 1, data: files.get(input)? });
    let units = runs.into_iter().map(|run| run.filter_map(whole).collect()).collect();
    std::thread::scope(|scope| {
        let merged = merge_units(scope, files, units, first, inputs)?;
        merged.write_chunks(CHUNK, &mut sink).map_err(|e| match e {
            fdata::MergeError::MixedModes { input, .. } | fdata::MergeError::NegativeCount { input, .. } => {
                format!("{}: {e}", inputs.get(input).unwrap_or(&""))
            }
        })
    })?
}

/// What a merger reads: an input, or one of its parts (`fdata::merge_parts`).
struct Unit<'a> {
    input: usize,
    part: usize,
    parts: usize,
    data: &'a [u8],
}

/// Drops the pages of `units` from the process's page tables (`MADV_DONTNEED`),
/// the maps kept: the unmapping at the end then has nothing to tear down (about
/// 8 ms of one core for 100 MB on the development VM). Each merge thread drops
/// its own units once it has handed its merger over, beside the absorbing and
/// writing, and the first thread done while the other still reads; its units' texts
/// and names that the merge still reads (few: most are the first input's) fault
/// back in from the page cache. Last unit first: the first inputs hold most of those.
fn release(files: &[memmap2::Mmap], units: &[Unit<'_>]) {
    for unit in units.iter().rev() {
        let Some(file) = files.get(unit.input) else { continue };
        let offset = (unit.data.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
        if offset.checked_add(unit.data.len()).is_none_or(|end| end > file.len()) {
            continue;
        }
        // SAFETY: the maps are read-only maps of files (`MAP_SHARED`): a page
        // dropped here is the file's bytes again when next read (memmap2 widens
        // the range to whole pages; a page shared with another thread's part is
        // read back in). Best effort: a failure only leaves the pages mapped.
        #[cfg(unix)]
        let _ = unsafe { file.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, unit.data.len()) };
    }
}

/// Each list of units read by a merger on its own thread of `scope`, the mergers
/// then absorbed in order: the merge, or the first input that failed to decode (on
/// the first thread that failed), named from `inputs`. A thread hands its merger
/// over and then drops the pages it read (`release`), which `scope`'s end waits for.
fn merge_units<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    files: &'env [memmap2::Mmap],
    units: Vec<Vec<Unit<'env>>>,
    first: Option<(bool, bool)>,
    inputs: &[&str],
) -> Result<fdata::Merger<'env>, String> {
    let handed: Vec<_> = units
        .into_iter()
        .map(|units| {
            let (hand, results) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move || {
                // The inputs' header is only at the start of the first.
                let mut merger = match (units.first(), first) {
                    (Some(u), Some((bolted, no_lbr))) if u.input > 0 || u.part > 0 => {
                        fdata::Merger::after_first(bolted, no_lbr)
                    }
                    _ => fdata::Merger::new(),
                };
                // A panic (a bug: the core returns its errors) hands nothing over
                // and is caught here, not where `scope` ends.
                let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    units
                        .iter()
                        .try_for_each(|u| merger.add_part(u.input, u.part, u.parts, u.data).map_err(|e| (u.input, e)))
                }));
                let Ok(read) = read else { return };
                let ok = read.is_ok();
                let _ = hand.send(read.map(|()| merger));
                if ok {
                    release(files, &units);
                }
            });
            results
        })
        .collect();
    // A thread that panicked hands nothing over.
    let results = handed.into_iter().map(|results| results.recv());
    let mut merged: Option<fdata::Merger<'_>> = None;
    for result in results {
        let later = result
            .map_err(|_| "a thread failed".to_string())?
            .map_err(|(i, e)| format!("{}: {e}", inputs.get(i).unwrap_or(&"")))?;
        match &mut merged {
            Some(m) => m.absorb(later),
            None => merged = Some(later),
        }
    }
    Ok(merged.unwrap_or_default())
}
