//! Frames ranked by name, the order of siblings in the stack index's pre-order.

use alloc::vec;
use alloc::vec::Vec;

use super::Frame;

/// Each frame's position when frames are sorted by name, then dso, then kind.
pub(super) fn frame_ranks(frames: &[Frame]) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..u32::try_from(frames.len()).unwrap_or(u32::MAX)).collect();
    sort_by_name(&mut ids, frames);
    let mut rank = vec![0u32; frames.len()];
    for (r, id) in (0u32..).zip(ids) {
        if let Some(slot) = rank.get_mut(id as usize) {
            *slot = r;
        }
    }
    rank
}

/// Frame ids in the order of (name, dso, kind, id). Names are compared 8 bytes at
/// a time, as big-endian words: a pass sorts (word, id) pairs, which reads each
/// name once, and only runs of equal words go on to the next 8 bytes. (Address
/// frames' names share long prefixes, `libLLVM.so.22.1+0x…`; compared whole, each
/// comparison read two names.) Runs of a few, and runs whose names all end
/// within the word, are sorted by the whole key.
pub(super) fn sort_by_name(ids: &mut [u32], frames: &[Frame]) {
    const FEW: usize = 16;
    let name = |id: u32| frames.get(id as usize).map_or(&b""[..], |f| f.name.as_bytes());
    let whole = |a: &u32, b: &u32| match (frames.get(*a as usize), frames.get(*b as usize)) {
        (Some(x), Some(y)) => (&x.name, x.dso, x.kind, a).cmp(&(&y.name, y.dso, y.kind, b)),
        _ => a.cmp(b),
    };
    let word = |id: u32, at: usize| {
        let mut w = [0u8; 8];
        let bytes = name(id).get(at..).unwrap_or_default();
        for (to, &b) in w.iter_mut().zip(bytes) {
            *to = b;
        }
        u64::from_be_bytes(w)
    };
    let mut keyed: Vec<(u64, u32)> = Vec::new();
    // Runs still to sort: where they lie in `ids`, and the byte their words start at.
    let mut runs = vec![(0usize, ids.len(), 0usize)];
    while let Some((start, end, at)) = runs.pop() {
        let Some(run) = ids.get_mut(start..end) else { continue };
        if run.len() <= FEW {
            run.sort_unstable_by(whole);
            continue;
        }
        keyed.clear();
        keyed.extend(run.iter().map(|&id| (word(id, at), id)));
        keyed.sort_unstable();
        for (slot, &(_, id)) in run.iter_mut().zip(&keyed) {
            *slot = id;
        }
        let next = at.saturating_add(8);
        let mut i = 0;
        while let Some(&(w, _)) = keyed.get(i) {
            let same = keyed.get(i..).unwrap_or_default().iter().take_while(|k| k.0 == w).count();
            let j = i.saturating_add(same);
            if same > 1 {
                let tied = keyed.get(i..j).unwrap_or_default();
                if tied.iter().any(|&(_, id)| name(id).len() > next) {
                    runs.push((start.saturating_add(i), start.saturating_add(j), next));
                } else if let Some(part) = run.get_mut(i..j) {
                    part.sort_unstable_by(whole);
                }
            }
            i = j;
        }
    }
}
