//! The CI smoke run of every fuzz target, on stable and without libFuzzer: each
//! target over a spread of its corpus seeds and deterministic mutations of each
//! (truncations, bit flips, 4- and 8-byte fields overwritten with 0, all ones and
//! huge values, splices of two seeds). Any panic fails the test, naming the
//! target, the seed and the mutation, and the input is saved under the test's
//! temporary directory (make it a file of `fuzz/regressions/`); so does a run that
//! takes longer than [`HANG`] or allocates more than [`ALLOCATION_LIMIT`].
//!
//! One test, run serially: the allocation counter below is process-wide.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pgolens_fuzz::alloc::{self, Counting};
use pgolens_fuzz::seeds::{self, Seed};
use pgolens_fuzz::TARGETS;

/// Seeds per format and target (spread over sizes), and the largest seed used
/// (a larger one is cut).
const SEEDS_PER_FORMAT: usize = 3;
const MAX_SEED_LEN: usize = 256 << 10;
/// Allocation ratios are taken over inputs of at least this many bytes.
const RATIO_FLOOR: usize = 64 << 10;
/// A run that takes longer than this (in a debug build) is reported as a hang.
const HANG: Duration = Duration::from_secs(10);
/// A run that allocates more than this at once is reported.
const ALLOCATION_LIMIT: usize = 256 << 20;

#[global_allocator]
static ALLOCATOR: Counting = Counting::new();

/// splitmix64: the mutations' positions, the same on every run.
struct Positions(u64);

impl Positions {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An offset below `len`, in the first 256 bytes (where headers are) three times in four.
    fn offset(&mut self, len: usize) -> usize {
        let r = self.next();
        let within = if r % 4 == 0 { len } else { len.min(256) };
        ((r >> 2) % within.max(1) as u64) as usize
    }
}

fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The seed itself and its mutations, each with a name saying what was done.
fn mutations(seed: &[u8], other: &[u8], key: &str) -> Vec<(String, Vec<u8>)> {
    let len = seed.len();
    let mut out = vec![(String::from("as is"), seed.to_vec())];
    let mut cuts = vec![0, 1, 7, 16, 64, len / 4, len / 2, len * 3 / 4, len.saturating_sub(1)];
    cuts.sort_unstable();
    cuts.dedup();
    for cut in cuts.into_iter().filter(|&c| c < len) {
        out.push((format!("truncated to {cut}"), seed[..cut].to_vec()));
    }
    if len == 0 {
        return out;
    }
    let mut at = Positions(hash(key));
    for _ in 0..4 {
        let (offset, bit) = (at.offset(len), at.next() % 8);
        let mut m = seed.to_vec();
        m[offset] ^= 1 << bit;
        out.push((format!("bit {bit} of byte {offset} flipped"), m));
    }
    let fields: [(usize, &[u64]); 2] = [
        (4, &[0, 0xffff_ffff, 0x7fff_ffff, 0x8000_0000, 0x0100_0000]),
        (8, &[0, u64::MAX, 0x7fff_ffff_ffff_ffff, 0x0000_0001_0000_0000, 0x0100_0000]),
    ];
    for (width, values) in fields {
        for &value in values {
            for _ in 0..2 {
                // Aligned, as most binary formats' fields are.
                let offset = at.offset(len) / width * width;
                if offset + width > len {
                    continue;
                }
                let mut m = seed.to_vec();
                m[offset..offset + width].copy_from_slice(&value.to_le_bytes()[..width]);
                out.push((format!("{width} bytes at {offset} set to {value:#x}"), m));
            }
        }
    }
    if !other.is_empty() {
        let mut m = seed[..len / 2].to_vec();
        m.extend_from_slice(&other[other.len() / 2..]);
        out.push((String::from("first half, then the second half of the next seed"), m));
        let mut m = seed[..len / 3].to_vec();
        m.extend_from_slice(other);
        m.extend_from_slice(&seed[len / 3..]);
        out.push((String::from("the next seed inserted at a third"), m));
    }
    out
}

static PANIC: Mutex<Option<String>> = Mutex::new(None);

struct Totals {
    runs: usize,
    time: Duration,
    slowest: (Duration, String),
    peak: (usize, String),
    ratio: (f64, String),
}

#[test]
fn every_target_survives_its_seeds_and_their_mutations() {
    let started = Instant::now();
    let index = seeds::index();
    let indexed = started.elapsed();
    assert!(index.len() > 1000, "the corpus has {} detected files", index.len());
    let findings_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("smoke-findings");
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{message}{at}"));
    }));
    let mut findings = Vec::new();
    let mut report = Vec::new();
    for target in TARGETS {
        let all = seeds::of(target, &index);
        let chosen: Vec<&Seed> = seeds::spread_per_format(&all, SEEDS_PER_FORMAT, MAX_SEED_LEN);
        if chosen.is_empty() {
            findings.push(format!("{}: no seeds in the corpus", target.name));
        }
        let data: Vec<Vec<u8>> = chosen
            .iter()
            .map(|s| {
                let mut bytes = seeds::read(&s.path).unwrap();
                bytes.truncate(MAX_SEED_LEN);
                bytes
            })
            .collect();
        let mut totals = Totals {
            runs: 0,
            time: Duration::ZERO,
            slowest: (Duration::ZERO, String::new()),
            peak: (0, String::new()),
            ratio: (0.0, String::new()),
        };
        for (i, (seed, bytes)) in chosen.iter().zip(&data).enumerate() {
            let other = &data[(i + 1) % data.len()];
            let name = seed.path.strip_prefix(seeds::repo_root()).unwrap_or(&seed.path).display().to_string();
            for (mutation, input) in mutations(bytes, other, &format!("{}/{name}", target.name)) {
                let what = format!("{} / {name} / {mutation}", target.name);
                let base = alloc::mark();
                let start = Instant::now();
                let result = catch_unwind(AssertUnwindSafe(|| (target.run)(&input)));
                let took = start.elapsed();
                let peak = alloc::peak_since(base);
                totals.runs += 1;
                totals.time += took;
                if took > totals.slowest.0 {
                    totals.slowest = (took, what.clone());
                }
                if peak > totals.peak.0 {
                    totals.peak = (peak, what.clone());
                }
                // Below 64 KiB the fixed second files and the views' tables dominate.
                let ratio = peak as f64 / input.len().max(RATIO_FLOOR) as f64;
                if ratio > totals.ratio.0 {
                    totals.ratio = (ratio, what.clone());
                }
                let problem = match result {
                    Err(_) => PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().map(|m| format!("panicked: {m}")),
                    Ok(()) if took > HANG => Some(format!("took {took:?}")),
                    Ok(()) if peak > ALLOCATION_LIMIT => Some(format!("allocated {peak} bytes at once")),
                    Ok(()) => None,
                };
                if let Some(problem) = problem {
                    let dir = findings_dir.join(target.name);
                    std::fs::create_dir_all(&dir).unwrap();
                    let file = dir.join(format!("finding-{}", findings.len()));
                    std::fs::write(&file, &input).unwrap();
                    findings.push(format!("{what}: {problem} (input: {})", file.display()));
                }
            }
        }
        report.push(format!(
            "{:>15}: {:>3} seeds, {:>5} runs in {:>6.2?}; slowest {:.2?} ({}); peak allocation {} KiB ({}); worst ratio {:.0}x ({})",
            target.name,
            chosen.len(),
            totals.runs,
            totals.time,
            totals.slowest.0,
            totals.slowest.1,
            totals.peak.0 >> 10,
            totals.peak.1,
            totals.ratio.0,
            totals.ratio.1,
        ));
    }
    let _ = std::panic::take_hook();
    eprintln!("corpus indexed in {indexed:.2?} ({} files); whole smoke run {:.2?}", index.len(), started.elapsed());
    for line in &report {
        eprintln!("{line}");
    }
    assert!(findings.is_empty(), "{} findings:\n{}", findings.len(), findings.join("\n"));
}
