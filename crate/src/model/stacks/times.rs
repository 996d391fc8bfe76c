//! The samples' times, 4 bytes each instead of 8.
//!
//! A time's low 32 bits are kept per sample; its high bits once per run of samples
//! that share them. Times in nanoseconds cross a multiple of 2^32 every 4.3 s, so
//! a recording has one run per 4.3 s of its length, and one more wherever records
//! out of time order straddle a crossing. Only iteration in order is needed.

use alloc::vec::Vec;

#[derive(Clone, Debug, Default)]
pub(super) struct Times {
    low: Vec<u32>,
    /// (first sample, high bits) of each run, by first sample.
    runs: Vec<(usize, u32)>,
}

impl Times {
    pub(super) fn push(&mut self, time: u64) {
        let high = (time >> 32) as u32;
        if self.runs.last().is_none_or(|&(_, h)| h != high) {
            self.runs.push((self.low.len(), high));
        }
        self.low.push((time & 0xffff_ffff) as u32);
    }

    /// Every time, in the order pushed.
    pub(super) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs.iter().enumerate().flat_map(move |(i, &(start, high))| {
            let end = self.runs.get(i.saturating_add(1)).map_or(self.low.len(), |&(next, _)| next);
            let high = u64::from(high) << 32;
            self.low.get(start..end).unwrap_or_default().iter().map(move |&low| high | u64::from(low))
        })
    }

    pub(super) fn reserve_exact(&mut self, additional: usize) {
        self.low.reserve_exact(additional);
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.low.shrink_to_fit();
        self.runs.shrink_to_fit();
    }

    /// Room for this many times without growing.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.low.capacity()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn times_come_back_as_pushed_across_and_back_over_their_high_bits() {
        let t = |high: u64, low: u64| (high << 32) | low;
        // In order, out of order across a crossing, the extremes, a repeat.
        let pushed =
            [0, 5, t(1, 0), t(0, u32::MAX as u64), t(1, 7), t(1, 7), t(9, 1), u64::MAX, t(u32::MAX as u64, 0), 3];
        let mut times = Times::default();
        for &p in &pushed {
            times.push(p);
        }
        assert_eq!(times.iter().collect::<Vec<_>>(), pushed);
        assert_eq!(times.low.len(), pushed.len());
        // A run per change of the high bits: 0, 1, 0, 1, 9, MAX (two), 0.
        assert_eq!(times.runs.len(), 7);
        assert_eq!(Times::default().iter().count(), 0);
    }

    #[test]
    fn a_recording_in_order_costs_four_bytes_a_sample_and_a_run_per_crossing() {
        // Ten seconds of samples every 50 µs from a boot time of an hour.
        let start = 3_600_000_000_000u64;
        let mut times = Times::default();
        let every = (0..200_000u64).map(|i| start + i * 50_000);
        every.clone().for_each(|t| times.push(t));
        assert!(times.iter().eq(every));
        // 10 s crosses 2^32 ns (4.29 s) two or three times.
        let crossings = ((start + 10_000_000_000) >> 32) - (start >> 32);
        assert_eq!(times.runs.len() as u64, crossings + 1);
        assert_eq!(times.low.len(), 200_000);
    }
}
