//! The orders merge-fdata's YAML output inherits from the C++ containers it is
//! built with (LLVM 22 on libstdc++, as Debian ships it): `StringMap` iteration
//! (the functions, before sorting), `std::sort` (by function id: functions known
//! under several names share an id, and the sort is not stable), and
//! `std::unordered_map<uint32_t, ...>` iteration (call sites only a later input has).

use alloc::vec::Vec;

/// The order an `llvm::StringMap` iterates keys inserted in the given order
/// (distinct keys, no removals): buckets in index order; a key's bucket is its
/// XXH3-64 hash (truncated to 32 bits) masked by the power-of-two table size,
/// quadratic probing on collisions; 16 buckets at first, doubled when more than
/// 3/4 full, entries moved in bucket order by their stored hash.
pub fn string_map_order(keys: &[&[u8]]) -> Vec<usize> {
    let mut table: Vec<Option<(u32, usize)>> = alloc::vec![None; 16];
    let mut items = 0usize;
    for (i, key) in keys.iter().enumerate() {
        // `StringMapImpl::hash` returns the low 32 bits.
        let hash = (xxhash_rust::xxh3::xxh3_64(key) & 0xFFFF_FFFF) as u32;
        place(&mut table, hash, i);
        items = items.saturating_add(1);
        if items.saturating_mul(4) > table.len().saturating_mul(3) {
            let mut grown: Vec<Option<(u32, usize)>> = alloc::vec![None; table.len().saturating_mul(2)];
            for &(hash, index) in table.iter().flatten() {
                place(&mut grown, hash, index);
            }
            table = grown;
        }
    }
    table.into_iter().flatten().map(|(_, index)| index).collect()
}

fn place(table: &mut [Option<(u32, usize)>], hash: u32, index: usize) {
    let mask = table.len().saturating_sub(1);
    let mut bucket = hash as usize & mask;
    let mut probe = 1usize;
    // The table is never full (at most 3/4 after growing), so this ends.
    for _ in 0..table.len() {
        match table.get_mut(bucket) {
            Some(slot @ None) => {
                *slot = Some((hash, index));
                return;
            }
            _ => {
                bucket = bucket.wrapping_add(probe) & mask;
                probe = probe.saturating_add(1);
            }
        }
    }
}

/// libstdc++'s `std::sort`: introsort (median-of-three pivot to the front,
/// unguarded partition, ranges of 16 or fewer left to a final insertion sort).
/// Past its depth limit libstdc++ heap-sorts the range; we sort it stably there
/// instead, which only differs for ties in inputs shaped to defeat the pivots.
pub fn std_sort_by<T>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    const THRESHOLD: usize = 16;
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth = (usize::BITS.saturating_sub(n.leading_zeros()).saturating_sub(1) as usize).saturating_mul(2);
    introsort(v, depth, less, THRESHOLD);
    if n > THRESHOLD {
        let (head, _) = v.split_at_mut(THRESHOLD);
        insertion_sort(head, less);
        for i in THRESHOLD..n {
            linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

fn introsort<T>(v: &mut [T], mut depth: usize, less: &impl Fn(&T, &T) -> bool, threshold: usize) {
    let mut last = v.len();
    while last > threshold {
        let Some(range) = v.get_mut(..last) else { return };
        if depth == 0 {
            range.sort_by(|a, b| {
                if less(a, b) {
                    core::cmp::Ordering::Less
                } else if less(b, a) {
                    core::cmp::Ordering::Greater
                } else {
                    core::cmp::Ordering::Equal
                }
            });
            return;
        }
        depth = depth.saturating_sub(1);
        let cut = partition_pivot(range, less);
        // Depth is bounded by 2 log2(n): the recursion is too.
        if let Some(right) = v.get_mut(cut..last) {
            introsort(right, depth, less, threshold);
        }
        last = cut;
    }
}

fn partition_pivot<T>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) -> usize {
    let n = v.len();
    let mid = n / 2;
    move_median_to_first(v, 1, mid, n.saturating_sub(1), less);
    // `__unguarded_partition(first + 1, last, first)`: the pivot stays at 0.
    let mut first = 1usize;
    let mut last = n;
    loop {
        while first < n && lt(v, first, 0, less) {
            first = first.saturating_add(1);
        }
        last = last.saturating_sub(1);
        while last > 0 && lt(v, 0, last, less) {
            last = last.saturating_sub(1);
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first = first.saturating_add(1);
    }
}

fn lt<T>(v: &[T], a: usize, b: usize, less: &impl Fn(&T, &T) -> bool) -> bool {
    match (v.get(a), v.get(b)) {
        (Some(x), Some(y)) => less(x, y),
        _ => false,
    }
}

fn move_median_to_first<T>(v: &mut [T], a: usize, b: usize, c: usize, less: &impl Fn(&T, &T) -> bool) {
    let pick = if lt(v, a, b, less) {
        if lt(v, b, c, less) {
            b
        } else if lt(v, a, c, less) {
            c
        } else {
            a
        }
    } else if lt(v, a, c, less) {
        a
    } else if lt(v, b, c, less) {
        c
    } else {
        b
    };
    v.swap(0, pick);
}

fn insertion_sort<T>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        if lt(v, i, 0, less) {
            // `move_backward`: the element goes first, the rest shift right.
            if let Some(range) = v.get_mut(..=i) {
                range.rotate_right(1);
            }
        } else {
            linear_insert(v, i, less);
        }
    }
}

/// `__unguarded_linear_insert`: moves `v[i]` left past every element it is less than.
fn linear_insert<T>(v: &mut [T], i: usize, less: &impl Fn(&T, &T) -> bool) {
    let mut j = i;
    while j > 0 && lt(v, j, j.saturating_sub(1), less) {
        v.swap(j, j.saturating_sub(1));
        j = j.saturating_sub(1);
    }
}

/// The iteration order of a libstdc++ `std::unordered_map<uint32_t, V>` (identity
/// hash, prime bucket counts, one singly linked list of nodes where a node goes to
/// the front of its bucket, or to the front of the list when its bucket is empty).
#[derive(Default)]
pub struct StdUnorderedOrder {
    /// (key, value) in list order.
    nodes: Vec<(u32, usize)>,
    buckets: usize,
    next_resize: usize,
}

impl StdUnorderedOrder {
    pub fn find(&self, key: u32) -> Option<usize> {
        self.nodes.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }

    pub fn erase(&mut self, key: u32) {
        self.nodes.retain(|(k, _)| *k != key);
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().map(|&(_, v)| v)
    }

    fn bucket(&self, key: u32) -> usize {
        (key as usize).checked_rem(self.buckets).unwrap_or(0)
    }

    pub fn emplace(&mut self, key: u32, value: usize) {
        if self.find(key).is_some() {
            return;
        }
        let elements = self.nodes.len();
        if self.buckets == 0 {
            self.buckets = 1;
        }
        // `_Prime_rehash_policy::_M_need_rehash` (max load factor 1): the first
        // insert asks for at least 11 buckets.
        if elements.saturating_add(1) > self.next_resize {
            let floor = if self.next_resize == 0 { 11 } else { 0 };
            let min_buckets = elements.saturating_add(1).max(floor);
            if min_buckets >= self.buckets {
                let buckets = next_bucket_count(min_buckets.saturating_add(1).max(self.buckets.saturating_mul(2)));
                self.next_resize = buckets;
                self.rehash(buckets);
            } else {
                self.next_resize = self.buckets;
            }
        }
        self.insert_bucket_begin(key, value);
    }

    /// `_M_rehash_aux` for unique keys: nodes are moved in list order, each to the
    /// front of the list if its new bucket is empty, else after its bucket's first.
    fn rehash(&mut self, buckets: usize) {
        let old = core::mem::take(&mut self.nodes);
        self.buckets = buckets;
        for (key, value) in old {
            self.insert_bucket_begin(key, value);
        }
    }

    /// `_M_insert_bucket_begin`.
    fn insert_bucket_begin(&mut self, key: u32, value: usize) {
        let bucket = self.bucket(key);
        match self.nodes.iter().position(|&(k, _)| self.bucket(k) == bucket) {
            // The bucket's run starts at `at`: the new node goes first in it.
            Some(at) => self.nodes.insert(at, (key, value)),
            None => self.nodes.insert(0, (key, value)),
        }
    }
}

/// `_Prime_rehash_policy::_M_next_bkt`: the small table, then the next prime (libstdc++'s
/// prime list holds every prime up to 127; blocks never have that many call sites).
fn next_bucket_count(n: usize) -> usize {
    const FAST: [usize; 14] = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13];
    if let Some(&b) = FAST.get(n) {
        return b;
    }
    let mut candidate = n;
    loop {
        if is_prime(candidate) {
            return candidate;
        }
        candidate = candidate.saturating_add(1);
    }
}

fn is_prime(n: usize) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2usize;
    while d.saturating_mul(d) <= n {
        if n.checked_rem(d) == Some(0) {
            return false;
        }
        d = d.saturating_add(1);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{std_sort_by, StdUnorderedOrder};

    #[test]
    fn unordered_map_order_follows_libstdcxx() {
        // 13 buckets from the first insert: 4 and 17 share bucket 4, 5 has its own.
        let mut m = StdUnorderedOrder::default();
        m.emplace(4, 0);
        m.emplace(17, 1);
        m.emplace(5, 2);
        m.emplace(4, 3);
        let order: alloc::vec::Vec<usize> = m.iter().collect();
        assert_eq!(order, [2, 1, 0]);
    }

    #[test]
    fn std_sort_sorts() {
        let mut v: alloc::vec::Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(7919) % 101).collect();
        std_sort_by(&mut v, &|a, b| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}
