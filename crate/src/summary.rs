//! The profile summary `llvm-profdata show --detailed-summary` prints, computed the
//! way LLVM's `ProfileSummaryBuilder` computes it (LLVM 13–22 agree):
//!
//! - every record adds its first counter as an *entry* count (function count,
//!   `Maximum function count`) and the others as *internal* counts (`Maximum
//!   internal block count`); every count goes into the total, the maximum, the
//!   number of counts, and a histogram of count → how many times it occurs;
//! - for each cutoff `c` (parts per million of the total), the *desired* sum is
//!   `total × c / 1_000_000` (exact, 128-bit); counts are taken from the largest
//!   down, one histogram bucket at a time, until their sum reaches it; the entry
//!   is the last count taken (`MinCount`) and how many counts were taken
//!   (`NumCounts`). Later cutoffs continue from where the previous one stopped.
//!
//! Sample profiles (`SampleProfileSummaryBuilder`) count differently: a function's
//! head samples give its function count but are no block count, every body count
//! is a block count, and there is no internal count. LLVM keeps the total and the
//! running sums in `uint64_t`, which wrap; [`SummaryBuilder::finish_wrapping`] does
//! the same, [`SummaryBuilder::finish`] computes them exactly.

use alloc::vec::Vec;

/// `ProfileSummaryBuilder::DefaultCutoffs`, in parts per million.
pub const DEFAULT_CUTOFFS: [u32; 16] = [
    10_000, 100_000, 200_000, 300_000, 400_000, 500_000, 600_000, 700_000, 800_000, 900_000, 950_000, 990_000, 999_000,
    999_900, 999_990, 999_999,
];

/// `ProfileSummary::Scale`: cutoffs are parts of this.
pub const SCALE: u32 = 1_000_000;

/// One line of the detailed summary: the counts at or above `min_count` make up at
/// least `cutoff` (per million) of the total, and there are `num_counts` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SummaryEntry {
    pub cutoff: u32,
    pub min_count: u64,
    pub num_counts: u64,
}

/// A profile's summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub num_functions: u64,
    /// How many counts (blocks, counters) there are, zeros included.
    pub num_counts: u64,
    pub total_count: u128,
    pub max_count: u64,
    /// The largest first (entry) counter.
    pub max_function_count: u64,
    /// The largest counter other than a first one.
    pub max_internal_count: u64,
    /// One entry per [`DEFAULT_CUTOFFS`] value, in that order.
    pub detailed: Vec<SummaryEntry>,
}

/// How [`SummaryBuilder::finish_with`] adds: exactly, or as LLVM's `uint64_t` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sums {
    Exact,
    Wrapping,
}

/// Counts below this are tallied in a dense histogram.
const DENSE: usize = 1 << 12;

/// Collects counts, then computes the [`Summary`].
///
/// The histogram of count → occurrences is a dense array for small counts (most
/// of a profile's) and, for the others, a list sorted once at the end: a map
/// updated per count took seconds on a profile of 17 million counters.
#[derive(Clone, Debug, Default)]
pub struct SummaryBuilder {
    summary: Summary,
    /// `small[c]`: how often count `c` occurs, for `c < DENSE` (allocated on the first).
    small: Vec<u64>,
    /// Every count of at least `DENSE`, in arrival order until `finish` sorts them.
    large: Vec<u64>,
}

impl SummaryBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    fn add_count(&mut self, count: u64) {
        let s = &mut self.summary;
        s.total_count = s.total_count.saturating_add(u128::from(count));
        s.max_count = s.max_count.max(count);
        s.num_counts = s.num_counts.saturating_add(1);
        match usize::try_from(count) {
            Ok(c) if c < DENSE => {
                if self.small.is_empty() {
                    self.small = alloc::vec![0; DENSE];
                }
                if let Some(seen) = self.small.get_mut(c) {
                    *seen = seen.saturating_add(1);
                }
            }
            _ => self.large.push(count),
        }
    }

    /// A function's entry count: it counts as a function.
    pub fn add_entry_count(&mut self, count: u64) {
        self.add_count(count);
        self.summary.num_functions = self.summary.num_functions.saturating_add(1);
        self.summary.max_function_count = self.summary.max_function_count.max(count);
    }

    pub fn add_internal_count(&mut self, count: u64) {
        self.add_count(count);
        self.summary.max_internal_count = self.summary.max_internal_count.max(count);
    }

    /// An instrumentation record: the first counter is the entry count.
    pub fn add_counters(&mut self, counters: &[u64]) {
        let mut it = counters.iter();
        if let Some(&entry) = it.next() {
            self.add_entry_count(entry);
        }
        for &c in it {
            self.add_internal_count(c);
        }
    }

    /// A sample profile's top-level function: it counts as a function, and its head
    /// samples give the maximum function count; they are no block count.
    pub fn add_function_head(&mut self, head: u64) {
        self.summary.num_functions = self.summary.num_functions.saturating_add(1);
        self.summary.max_function_count = self.summary.max_function_count.max(head);
    }

    /// A sample profile's body count (a block).
    pub fn add_block_count(&mut self, count: u64) {
        self.add_count(count);
    }

    /// The summary, with the detailed summary for [`DEFAULT_CUTOFFS`].
    pub fn finish(self) -> Summary {
        self.finish_with(Sums::Exact)
    }

    /// [`SummaryBuilder::finish`] with LLVM's `uint64_t` arithmetic: the total and
    /// the running sum wrap at 2^64, as they do in `llvm-profdata show --sample`.
    pub fn finish_wrapping(self) -> Summary {
        self.finish_with(Sums::Wrapping)
    }

    fn finish_with(self, sums: Sums) -> Summary {
        let SummaryBuilder { mut summary, small, mut large } = self;
        if sums == Sums::Wrapping {
            // The low 64 bits of the exact total are the wrapped sum.
            summary.total_count &= u128::from(u64::MAX);
        }
        large.sort_unstable();
        // (count, occurrences), largest count first.
        let large =
            large.chunk_by(|a, b| a == b).rev().map(|run| (run.first().copied().unwrap_or(0), run.len() as u64));
        let small = small.iter().enumerate().rev().filter(|&(_, &n)| n > 0).map(|(c, &n)| (c as u64, n));
        let mut buckets = large.chain(small);
        let mut taken: u128 = 0;
        let mut counts_seen: u64 = 0;
        let mut count: u64 = 0;
        for cutoff in DEFAULT_CUTOFFS {
            // total < 2^128 / 2^20 unless the file is absurd; saturate rather than wrap.
            let desired = summary.total_count.saturating_mul(u128::from(cutoff)).checked_div(u128::from(SCALE));
            let desired = desired.unwrap_or(0);
            while taken < desired {
                let Some((c, freq)) = buckets.next() else { break };
                count = c;
                taken = match sums {
                    Sums::Exact => taken.saturating_add(u128::from(c).saturating_mul(u128::from(freq))),
                    // In this mode `taken` only ever holds a u64 sum.
                    Sums::Wrapping => u128::from(u64::try_from(taken).unwrap_or(0).wrapping_add(c.wrapping_mul(freq))),
                };
                counts_seen = counts_seen.saturating_add(freq);
            }
            summary.detailed.push(SummaryEntry { cutoff, min_count: count, num_counts: counts_seen });
        }
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detailed_summary_takes_whole_buckets_from_the_top() {
        let mut b = SummaryBuilder::new();
        b.add_counters(&[100, 50, 50, 0]);
        b.add_counters(&[10]);
        let s = b.finish();
        assert_eq!(
            (s.num_functions, s.num_counts, s.total_count, s.max_count, s.max_function_count, s.max_internal_count),
            (2, 5, 210, 100, 100, 50)
        );
        // 1%..40% need at most 84: 100 alone.
        assert_eq!(s.detailed[0], SummaryEntry { cutoff: 10_000, min_count: 100, num_counts: 1 });
        assert_eq!(s.detailed[4], SummaryEntry { cutoff: 400_000, min_count: 100, num_counts: 1 });
        // 50% (105) takes both 50s at once.
        assert_eq!(s.detailed[5], SummaryEntry { cutoff: 500_000, min_count: 50, num_counts: 3 });
        // 99.9999% of 210 is 209 (rounded down): reached with the 10.
        assert_eq!(s.detailed[15], SummaryEntry { cutoff: 999_999, min_count: 10, num_counts: 4 });
    }

    #[test]
    fn sample_counts_wrap_as_in_llvm() {
        let mut b = SummaryBuilder::new();
        b.add_function_head(1000);
        for count in [u64::MAX, u64::MAX, 500, 500] {
            b.add_block_count(count);
        }
        let s = b.finish_wrapping();
        // 2 × (2^64 - 1) + 1000 wraps to 998, as llvm-profdata prints it.
        assert_eq!((s.num_functions, s.num_counts, s.total_count, s.max_function_count), (1, 4, 998, 1000));
        assert_eq!((s.max_count, s.max_internal_count), (u64::MAX, 0));
        // The wrapped running sum of the two largest already exceeds 998.
        assert_eq!(s.detailed[15], SummaryEntry { cutoff: 999_999, min_count: u64::MAX, num_counts: 2 });
    }

    #[test]
    fn empty_profile() {
        let s = SummaryBuilder::new().finish();
        assert_eq!(s.detailed.len(), 16);
        assert!(s.detailed.iter().all(|e| e.min_count == 0 && e.num_counts == 0));
    }

    #[test]
    fn large_and_small_counts_make_one_histogram() {
        let mut b = SummaryBuilder::new();
        b.add_counters(&[5000, 4095, 5000, 4096, 1, 0]);
        let s = b.finish();
        assert_eq!((s.total_count, s.num_counts), (18192, 6));
        // 1% (181): the two 5000s, taken as one bucket.
        assert_eq!(s.detailed[0], SummaryEntry { cutoff: 10_000, min_count: 5000, num_counts: 2 });
        // 99.9999% (18191): down to the 4095 of the dense histogram.
        assert_eq!(s.detailed[15], SummaryEntry { cutoff: 999_999, min_count: 4095, num_counts: 4 });
    }
}
