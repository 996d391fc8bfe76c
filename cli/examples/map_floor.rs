//! What reading `pgolens merge`'s inputs costs before any merging: the files mapped
//! as `merge` maps them (lazily), split between two threads in the same runs of
//! equal size, every byte read (summed eight at a time), and unmapped at the end.
//! Run beside `pgolens merge` and `merge-fdata` on the same files, its time is
//! the part of the merge no parsing can remove on this machine.
//!
//! `cargo build --release -p pgolens-cli --example map_floor`, then
//! `bench/interleave.sh 21 'map_floor FILE...' 'pgolens merge FILE... -o OUT' 'merge-fdata-22 FILE... -o REF'`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // a bench binary

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<memmap2::Mmap> = paths
        .iter()
        .map(|p| {
            let file = std::fs::File::open(p).expect("readable input");
            // SAFETY: read only; a file changed under the map only changes the sum.
            unsafe { memmap2::Mmap::map(&file) }.expect("mappable input")
        })
        .collect();
    let total: usize = files.iter().map(|f| f.len()).sum();
    // The first run ends at the file that takes it to half the bytes, as `merge`
    // splits its inputs between two threads.
    let mut sum = 0;
    let half = files.iter().position(|f| {
        sum += f.len();
        sum >= total / 2
    });
    let (first, second) = files.split_at(half.map_or(files.len(), |i| i + 1));
    let sums: Vec<u64> = std::thread::scope(|scope| {
        let threads: Vec<_> = [first, second]
            .into_iter()
            .map(|run| {
                scope.spawn(move || {
                    let mut sum = 0u64;
                    for file in run {
                        for word in file.chunks_exact(8) {
                            sum = sum.wrapping_add(u64::from_le_bytes(word.try_into().unwrap()));
                        }
                    }
                    sum
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    println!("{} files, {total} bytes, sums {sums:x?}", files.len());
}
