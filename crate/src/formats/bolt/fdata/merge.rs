//! `merge-fdata` for fdata inputs (its "legacy" merge): records with the same
//! locations are summed; every input must agree on `boltedcollection` and `no_lbr`.
//!
//! merge-fdata treats a line as an opaque key and its last one or two fields as
//! counts; here the key is the decoded locations, so the same record spelled with
//! two spaces or a leading zero merges too (merge-fdata would keep both, or drop
//! the line with a warning). The output, like merge-fdata's, has a bare `no_lbr`
//! line: merge-fdata does not carry the event names over. Records come out in the
//! order they were first seen (merge-fdata's order is its hash table's).

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;

use core::hash::BuildHasher;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use self::follow::{follow, starts_with};
use super::decode::{read_into, Header, Record, Sink};
use super::write::{write_branch, write_header, write_samples_and_memory};
use super::{Branch, Fdata, Location, MemoryAccess, Sample, SymbolKind};
use crate::error::{Error, Result as DecodeResult};

mod follow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// Input `input` has `header` (`boltedcollection` or `no_lbr`) and the first did
    /// not, or the other way round.
    MixedModes { input: usize, header: &'static str },
    /// merge-fdata reads counts as unsigned: a negative one at `line` of input `input`.
    NegativeCount { input: usize, line: u64 },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::MixedModes { input, header } => {
                write!(f, "input {}: cannot mix profile with and without {header}", input.saturating_add(1))
            }
            MergeError::NegativeCount { input, line } => {
                write!(f, "input {}, line {line}: malformed / corrupted count (negative)", input.saturating_add(1))
            }
        }
    }
}

/// Sums `inputs` into one profile.
pub fn merge<'a>(inputs: &[Fdata<'a>]) -> Result<Fdata<'a>, MergeError> {
    let mut merger = Merger::new();
    for (input, fdata) in inputs.iter().enumerate() {
        merger.header(input, fdata.bolted_collection, fdata.no_lbr.is_some());
        merger.previous = None;
        for b in &fdata.branches {
            merger.branch(input, b.clone());
        }
        for s in &fdata.samples {
            merger.sample(input, s.clone());
        }
        for m in &fdata.memory {
            merger.memory(input, m.clone());
        }
    }
    merger.finish()
}

/// `data`, an fdata input, cut at line starts into `n` parts of about equal size
/// (1 to 256 of them), for `n` mergers that each read the same part of every
/// input (`Merger::add_part`). `None` when it cannot be cut so: a header
/// (`no_lbr`, `boltedcollection`: a part would read its lines otherwise), or a
/// cut that falls where no branch line follows (memory events come last, and stay
/// in the last part, in their order), or too few lines. Whether the parts before
/// the last are branch lines to their end is found as they are read.
pub fn merge_parts(data: &[u8], n: usize) -> Option<Vec<&[u8]>> {
    if !(1..=256).contains(&n) || !data.first().is_some_and(|b| b"012".contains(b)) {
        return None;
    }
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        // The first line that starts at or after the share's end (and after the
        // last cut).
        let share = usize::try_from((data.len() as u128).checked_mul(k as u128)?.checked_div(n as u128)?).ok()?;
        let from = share.saturating_sub(1).max(start);
        let cut = memchr::memchr(b'\n', data.get(from..)?)?.checked_add(from)?.checked_add(1)?;
        if !data.get(cut).is_some_and(|b| b"012".contains(b)) {
            return None;
        }
        parts.push(data.get(start..cut)?);
        start = cut;
    }
    parts.push(data.get(start..)?);
    Some(parts)
}

/// `merge` as the inputs are read: `add` decodes an fdata file straight into the
/// sums, without a list of its records. Several mergers can take consecutive runs
/// of the inputs (on several threads) and `absorb` the later ones in order: the
/// result (`finish`, or its text by `write`), and the first error, are `merge`'s.
/// Or each merger can take the same part of every input (`merge_parts`, `add_part`), and
/// `absorb` the mergers of the later parts: the same result when none fails.
pub struct Merger<'a> {
    /// `boltedcollection` and `no_lbr` of the first input, once known.
    first: Option<(bool, bool)>,
    merged: Fdata<'a>,
    error: Option<MergeError>,
    /// Names by their spelling, and their numbers in the keys below.
    names: HashMap<Cow<'a, [u8]>, u64>,
    spellings: Vec<Cow<'a, [u8]>>,
    /// The last two names looked up, the latest first: records of one function
    /// come together, and a call names its callee between two lines of the caller.
    last: [Option<u64>; 2],
    /// The merged branches (their indexes in `known`) by their `key`.
    by_key: HashTable<usize>,
    /// Each merged branch, in the order first seen: `merged.branches` is only made
    /// of them at the end (a `Branch` is three times the size: a merge touches
    /// fewer pages without them).
    known: Vec<KnownBranch<'a>>,
    /// Where each merged branch was first seen (`Seen`), by index in `known`.
    seen: Vec<Seen>,
    /// The merged branches in the order first seen, when that is not `known`'s
    /// (after `absorb` of a merger of other parts of the same inputs).
    order: Option<Vec<usize>>,
    /// How many of `known` are in `by_key` and `by_text`: `absorb` leaves the
    /// branches it adds out of them until another input or merger comes.
    indexed: usize,
    /// The part of its input that is being read (`add_part`).
    part: u64,
    /// The first branch in the inputs' order (`NONE` if none).
    first_branch: usize,
    /// The last branch matched in the input being read.
    previous: Option<usize>,
    /// Whether the last line read was a branch seen for the first time: the line
    /// after one most often is too (a first input is all new, and a later one adds
    /// runs of them), and is decoded without being looked up by its text first.
    previous_new: bool,
    /// The merged branches (their indexes) by their `text`, for a line that is not
    /// the guess; hashed by `text_hash`.
    by_text: HashTable<usize>,
    text_hash: DefaultHashBuilder,
    /// The text of the last line not found in `by_text`, and its hash: such a line
    /// is most often a new branch, whose text is then learnt.
    missed: Option<(&'a [u8], u64)>,
    samples: HashMap<[u64; 2], usize, KeyHash>,
    memory: HashMap<[u64; 4], usize, KeyHash>,
}

/// The hash of the numeric keys above: a multiply and rotate per word and
/// splitmix64's finish (foldhash's general path took most of the merge's time).
#[derive(Clone, Copy, Default)]
struct KeyHash;

#[derive(Default)]
struct KeyHasher(u64);

impl core::hash::BuildHasher for KeyHash {
    type Hasher = KeyHasher;
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

impl core::hash::Hasher for KeyHasher {
    /// A key's words arrive here as their bytes (integer arrays hash as one slice
    /// of bytes): taken eight at a time, as the words they are.
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(word.try_into().map_or(0, u64::from_le_bytes));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Default for Merger<'_> {
    fn default() -> Self {
        Merger::new()
    }
}

impl<'a> Merger<'a> {
    pub fn new() -> Self {
        Merger {
            first: None,
            merged: Fdata::default(),
            error: None,
            names: HashMap::new(),
            spellings: Vec::new(),
            last: [None; 2],
            by_key: HashTable::new(),
            known: Vec::new(),
            seen: Vec::new(),
            order: None,
            indexed: 0,
            part: 0,
            first_branch: NONE,
            by_text: HashTable::new(),
            text_hash: DefaultHashBuilder::default(),
            missed: None,
            previous: None,
            previous_new: false,
            samples: HashMap::default(),
            memory: HashMap::default(),
        }
    }

    /// A merger for inputs after the first, whose headers (`boltedcollection`,
    /// `no_lbr`) all inputs must have.
    pub fn after_first(bolted_collection: bool, no_lbr: bool) -> Self {
        let mut merger = Merger::new();
        merger.header(0, bolted_collection, no_lbr);
        merger
    }

    /// Decodes input number `input` (`decode`'s errors) into the sums. A merge error
    /// (mixed modes, a negative count) is kept for `finish`; the inputs after it are
    /// still decoded, since `merge` decodes every input first.
    pub fn add(&mut self, input: usize, data: &'a [u8]) -> DecodeResult<()> {
        self.add_part(input, 0, 1, data)
    }

    /// `add` of part `part` of the `parts` of input `input` (`merge_parts(input,
    /// parts)`), whose other parts other mergers read. Its errors are the part's
    /// alone (a line number counts from the part's start), and a part before the
    /// last must be branch lines to its end: where the whole input's records end
    /// before a cut (at a line BOLT stops at, or at memory lines), the parts are not
    /// the input, and reading one fails.
    pub fn add_part(&mut self, input: usize, part: usize, parts: usize, data: &'a [u8]) -> DecodeResult<()> {
        self.index_all();
        self.part = part.min(255) as u64;
        self.previous = None;
        self.previous_new = false;
        if self.known.is_empty() {
            // Every record of a first input is new: its tables are made once, not
            // grown (and rehashed) a record at a time.
            let records = data.len() / SHORT_RECORD;
            self.known.reserve(records);
            let (known, hasher) = (&self.known, &self.text_hash);
            self.by_key.reserve(records, |&at| key_hash(known, at));
            self.by_text.reserve(records, |&at| text_hash(hasher, known, at));
        }
        let mut adding = Adding { merger: self, input, header: None, other_records: None };
        let stopped_at = read_into(data, &mut adding)?;
        // An input without records still has its header checked.
        adding.check_header();
        match stopped_at.or(adding.other_records) {
            Some(line) if part.saturating_add(1) < parts => {
                Err(Error::at_line(line, 1, "a branch line (a part before the last holds branch lines only)"))
            }
            _ => Ok(()),
        }
    }

    /// Adds what `later` summed: the inputs after this merger's, or the later
    /// parts of the same inputs (`add_part`).
    pub fn absorb(&mut self, later: Merger<'a>) {
        if self.error.is_some() {
            return;
        }
        if let Some(e) = later.error {
            self.error = Some(e);
            return;
        }
        self.index_all();
        let before = self.known.len();
        self.known.reserve(later.known.len());
        self.seen.reserve(later.known.len());
        // `later`'s names as numbered here.
        let names: Vec<u64> = later.spellings.iter().map(|name| self.name_number(name)).collect();
        let here = |id: u64| names.get(usize::try_from(id >> 2).ok()?).map(|n| n << 2 | id & 3);
        // The merged branches first seen by `later`, in `later`'s order.
        let mut theirs = Vec::new();
        let mut earlier_there = false;
        self.previous = None;
        let later_order = later.order.unwrap_or_else(|| (0..later.known.len()).collect());
        for i in later_order {
            let (Some(known), Some(&seen)) = (later.known.get(i), later.seen.get(i)) else { continue };
            let [f0, f1, t0, t1] = known.key;
            let (Some(f0), Some(t0)) = (here(f0), here(t0)) else { continue };
            let key = [f0, f1, t0, t1];
            let at = match self.find_key(key) {
                Ok(at) => {
                    if let Some(here) = self.known.get_mut(at) {
                        here.add(known.sums);
                    }
                    self.learn_text(at, known.text);
                    if self.seen.get(at).is_some_and(|s| seen < *s) {
                        if let Some(s) = self.seen.get_mut(at) {
                            *s = seen;
                        }
                        theirs.push(at);
                        earlier_there = true;
                    }
                    at
                }
                Err(_) => {
                    // Left out of the tables: no branch of `later` is another's.
                    let at = self.known.len();
                    self.known.push(KnownBranch { key, text: known.text, follower: NONE, sums: known.sums });
                    self.seen.push(seen);
                    self.insert(at);
                    theirs.push(at);
                    at
                }
            };
            self.previous = Some(at);
        }
        self.reorder(before, theirs, earlier_there);
        for s in later.merged.samples {
            self.sample(0, s);
        }
        for m in later.merged.memory {
            self.memory(0, m);
        }
    }

    /// The order first seen after an `absorb` that took `theirs` (in the absorbed
    /// merger's order) for its own: the branches added (`before` on), and those
    /// first seen earlier there than here (if `earlier_there`). Both this merger's
    /// order and `theirs` go by where each was first seen: the new order is the
    /// two merged.
    fn reorder(&mut self, before: usize, theirs: Vec<usize>, earlier_there: bool) {
        let seen = |at: usize| self.seen.get(at).copied().unwrap_or(Seen::LAST);
        let last_here = match &self.order {
            Some(order) => order.last().copied(),
            None => before.checked_sub(1),
        };
        if self.order.is_none()
            && !earlier_there
            && theirs.first().is_none_or(|&t| last_here.is_none_or(|l| seen(l) < seen(t)))
        {
            // Added after all of this merger's: `known`'s order still.
            return;
        }
        let mut taken = alloc::vec![false; self.known.len()];
        for &t in &theirs {
            if let Some(taken) = taken.get_mut(t) {
                *taken = true;
            }
        }
        let ours = match self.order.take() {
            Some(order) => order,
            None => (0..before).collect(),
        };
        let mut ours = ours.into_iter().filter(|&at| !taken.get(at).copied().unwrap_or(false)).peekable();
        let mut theirs = theirs.into_iter().peekable();
        let mut order = Vec::with_capacity(self.known.len());
        loop {
            let next = match (ours.peek(), theirs.peek()) {
                (Some(&a), Some(&b)) if seen(b) < seen(a) => theirs.next(),
                (Some(_), _) => ours.next(),
                (None, _) => theirs.next(),
            };
            let Some(at) = next else { break };
            order.push(at);
        }
        self.order = Some(order);
    }

    /// Puts the branches `absorb` added into `by_key` and `by_text`.
    fn index_all(&mut self) {
        while let Some(known) = self.known.get(self.indexed) {
            let (at, key, text) = (self.indexed, known.key, known.text);
            self.index_key(at, KeyHash.hash_one(key));
            if !text.is_empty() {
                self.index_text(at, self.text_hash.hash_one(text));
            }
            self.indexed = at.saturating_add(1);
        }
    }

    /// Puts merged branch `at`, whose key hashes to `hash`, in `by_key`.
    fn index_key(&mut self, at: usize, hash: u64) {
        let known = &self.known;
        self.by_key.insert_unique(hash, at, |&i| key_hash(known, i));
    }

    /// Puts merged branch `at`, whose text hashes to `hash`, in `by_text`.
    fn index_text(&mut self, at: usize, hash: u64) {
        let (known, hasher) = (&self.known, &self.text_hash);
        self.by_text.insert_unique(hash, at, |&i| text_hash(hasher, known, i));
    }

    /// The merged branch of `key`: the guess, else looked up; if there is none,
    /// the key's hash, to put a new one in `by_key` with.
    fn find_key(&self, key: [u64; 4]) -> Result<usize, u64> {
        let guess = self.guess();
        if self.known.get(guess).is_some_and(|k| k.key == key) {
            return Ok(guess);
        }
        let hash = KeyHash.hash_one(key);
        let known = &self.known;
        self.by_key.find(hash, |&at| known.get(at).is_some_and(|k| k.key == key)).copied().ok_or(hash)
    }

    pub fn finish(mut self) -> Result<Fdata<'a>, MergeError> {
        match self.error {
            Some(e) => Err(e),
            None => {
                self.settle();
                Ok(self.merged)
            }
        }
    }

    /// `finish`, written as fdata text (`write` of the profile `finish` gives),
    /// without making the profile's list of branches.
    pub fn write(self, out: &mut Vec<u8>) -> Result<(), MergeError> {
        self.write_with(out, &mut |_| true)
    }

    /// `write` in pieces of about `chunk` bytes, each handed to `sink` as soon as it
    /// is written (as `sample::write_text::write_chunks` does): nothing when the
    /// merge failed (the outer error), else the first error of `sink`, after which
    /// nothing more is written. A 256 KiB piece touches 64 new pages where the whole
    /// text (1.9 MB for the bench's merge) touches 470, dear in a fresh process.
    pub fn write_chunks<E>(
        self,
        chunk: usize,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<Result<(), E>, MergeError> {
        let mut out = Vec::with_capacity(chunk.saturating_add(chunk / 2));
        let mut error = None;
        self.write_with(&mut out, &mut |out| {
            if out.len() >= chunk {
                error = sink(out).err();
                out.clear();
            }
            error.is_none()
        })?;
        Ok(match error {
            Some(e) => Err(e),
            None => sink(&out),
        })
    }

    /// `write`, calling `after` with the text after each branch; stops when it
    /// returns false.
    fn write_with(self, out: &mut Vec<u8>, after: &mut dyn FnMut(&mut Vec<u8>) -> bool) -> Result<(), MergeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        write_header(out, self.merged.bolted_collection, self.merged.no_lbr.as_deref());
        for b in self.branches() {
            write_branch(out, &b);
            if !after(out) {
                return Ok(());
            }
        }
        write_samples_and_memory(out, &self.merged);
        Ok(())
    }

    /// The merged branches, in the order first seen.
    fn branches(&self) -> impl Iterator<Item = Branch<'a>> + '_ {
        (0..self.known.len()).filter_map(|i| self.nth_branch(i))
    }

    /// The `i`th merged branch in the order first seen.
    fn nth_branch(&self, i: usize) -> Option<Branch<'a>> {
        let at = match &self.order {
            Some(order) => *order.get(i)?,
            None => i,
        };
        merged_branch(&self.spellings, self.known.get(at)?)
    }

    /// Makes the merged branches of what is known of them.
    fn settle(&mut self) {
        self.merged.branches = self.branches().collect();
    }

    fn header(&mut self, input: usize, bolted_collection: bool, no_lbr: bool) {
        let Some((first_bolted, first_no_lbr)) = self.first else {
            self.first = Some((bolted_collection, no_lbr));
            self.merged.bolted_collection = bolted_collection;
            self.merged.no_lbr = no_lbr.then(Vec::new);
            return;
        };
        if bolted_collection != first_bolted {
            self.fail(MergeError::MixedModes { input, header: "boltedcollection" });
        } else if no_lbr != first_no_lbr {
            self.fail(MergeError::MixedModes { input, header: "no_lbr" });
        }
    }

    fn fail(&mut self, error: MergeError) {
        self.error.get_or_insert(error);
    }

    /// The key of a location: its name's number and kind, and its offset.
    fn key(&mut self, at: &Location<'a>) -> [u64; 2] {
        let name: &[u8] = &at.name;
        let spelled = |id: Option<u64>| {
            let id = id?;
            let spelling = self.spellings.get(usize::try_from(id).ok()?)?;
            (**spelling == *name).then_some(id)
        };
        let id = if let Some(id) = spelled(self.last[0]) {
            id
        } else if let Some(id) = spelled(self.last[1]) {
            self.last.swap(0, 1);
            id
        } else {
            let id = self.name_number(&at.name);
            self.last = [Some(id), self.last[0]];
            id
        };
        [id << 2 | at.kind as u64, at.offset]
    }

    /// The number of a name in the keys, a new one if not seen before.
    #[allow(clippy::ptr_arg)] // kept as it is: a name borrowed from an input stays borrowed
    fn name_number(&mut self, name: &Cow<'a, [u8]>) -> u64 {
        match self.names.get(&**name) {
            Some(&id) => id,
            None => {
                let id = self.spellings.len() as u64;
                self.spellings.push(name.clone());
                self.names.insert(name.clone(), id);
                id
            }
        }
    }

    /// `at` with the spelling of its name that was seen first.
    fn location(&self, key: [u64; 2], at: Location<'a>) -> Location<'a> {
        key_location(&self.spellings, key).unwrap_or(at)
    }

    /// The merged branch this input's next line most likely is: the one after the
    /// last matched in the inputs' order.
    fn guess(&self) -> usize {
        match self.previous {
            Some(p) => self.known.get(p).map_or(NONE, |k| k.follower),
            None => self.first_branch,
        }
    }

    /// Puts a new merged branch after the last matched in the inputs' order.
    fn insert(&mut self, at: usize) {
        let guess = self.guess();
        if let Some(known) = self.known.get_mut(at) {
            known.follower = guess;
        }
        let link = match self.previous {
            Some(p) => self.known.get_mut(p).map(|k| &mut k.follower),
            None => Some(&mut self.first_branch),
        };
        if let Some(link) = link {
            *link = at;
        }
    }

    /// The branch lines at the start of `rest` whose text up to their counts is a
    /// merged branch's: their length and how many. Their counts are in the plain
    /// spelling, so never negative.
    fn known_lines(&mut self, rest: &'a [u8]) -> (usize, u64) {
        if self.error.is_some() {
            return (0, 0);
        }
        let (mut len, mut lines) = (0usize, 0u64);
        // Most lines follow each other as they did in the inputs before: runs of
        // them, from the guess and then from the branch each line that breaks a
        // run is looked up to be (whose counts must then be plain, too).
        let (mut from, mut looked_up) = (self.guess(), false);
        loop {
            let (end, run, last) = follow(&mut self.known, rest, len, from);
            if run == 0 && looked_up {
                break;
            }
            if run > 0 {
                (len, lines) = (end, lines.saturating_add(run));
                self.previous = Some(last);
                self.previous_new = false;
            } else if self.previous_new {
                break;
            }
            let Some(line) = rest.get(len..) else { break };
            let Some(at) = self.ahead(line).or_else(|| self.known_by_text(line)) else { break };
            (from, looked_up) = (at, true);
        }
        (len, lines)
    }

    /// The merged branch whose text `line` starts with, among the few after the
    /// last matched in the inputs' order (most often the first of them: an input
    /// lists its records in the order the others did, with some left out or added).
    fn ahead(&self, line: &[u8]) -> Option<usize> {
        let mut at = self.guess();
        for _ in 0..LOOK_AHEAD {
            let known = self.known.get(at)?;
            if !known.text.is_empty() && starts_with(line, known.text) {
                return Some(at);
            }
            at = known.follower;
        }
        None
    }

    /// The merged branch whose text `line` starts with, looked up by the line's
    /// text up to its last two fields.
    fn known_by_text(&mut self, line: &'a [u8]) -> Option<usize> {
        let line = line.get(..memchr::memchr(b'\n', line)?)?;
        let count = memchr::memrchr(b' ', line)?;
        let text = line.get(..memchr::memrchr(b' ', line.get(..count)?)?.checked_add(1)?)?;
        let hash = self.text_hash.hash_one(text);
        let found = self.find_text(text, hash);
        if found.is_none() {
            self.missed = Some((text, hash));
        }
        found
    }

    /// The merged branch whose text is `text` (of hash `hash`).
    fn find_text(&self, text: &[u8], hash: u64) -> Option<usize> {
        self.by_text.find(hash, |&at| self.known.get(at).is_some_and(|k| k.text == text)).copied()
    }

    /// `text` is merged branch `at`'s line up to its counts in the plain spelling
    /// (or empty: not known), kept if it has none yet.
    fn learn_text(&mut self, at: usize, text: &'a [u8]) {
        if let Some(known) = self.known.get_mut(at) {
            if known.text.is_empty() && !text.is_empty() {
                known.text = text;
                if at >= self.indexed {
                    // `index_all` puts it in the table.
                    return;
                }
                let hash = match self.missed.take() {
                    Some((missed, hash)) if core::ptr::eq(missed, text) => hash,
                    _ => self.text_hash.hash_one(text),
                };
                self.index_text(at, hash);
            }
        }
    }

    /// Adds a branch to the sums: which merged branch it is (`None` after an error).
    fn branch(&mut self, input: usize, b: Branch<'a>) -> Option<usize> {
        if self.error.is_some() {
            return None;
        }
        if b.count < 0 || b.mispredicted < 0 {
            self.fail(MergeError::NegativeCount { input, line: b.line });
            return None;
        }
        let [f0, f1] = self.key(&b.from);
        let [t0, t1] = self.key(&b.to);
        let key = [f0, f1, t0, t1];
        let found = self.find_key(key);
        self.previous_new = found.is_err();
        let at = match found {
            Ok(at) => at,
            Err(hash) => {
                let at = self.known.len();
                self.known.push(KnownBranch { key, text: &[], follower: NONE, sums: [0, 0] });
                self.seen.push(Seen::new(input, self.part, b.line));
                self.index_key(at, hash);
                self.indexed = self.known.len();
                self.insert(at);
                at
            }
        };
        self.previous = Some(at);
        self.known.get_mut(at)?.add([b.count, b.mispredicted]);
        Some(at)
    }

    fn sample(&mut self, input: usize, s: Sample<'a>) {
        if self.error.is_some() {
            return;
        }
        if s.count < 0 {
            return self.fail(MergeError::NegativeCount { input, line: s.line });
        }
        let key = self.key(&s.at);
        let at = match self.samples.get(&key) {
            Some(&at) => at,
            None => {
                let at = self.location(key, s.at);
                self.merged.samples.push(Sample { at, count: 0, line: 0 });
                let i = self.merged.samples.len().saturating_sub(1);
                self.samples.insert(key, i);
                i
            }
        };
        if let Some(m) = self.merged.samples.get_mut(at) {
            m.count = m.count.saturating_add(s.count);
        }
    }

    fn memory(&mut self, input: usize, a: MemoryAccess<'a>) {
        if self.error.is_some() {
            return;
        }
        if a.count < 0 {
            return self.fail(MergeError::NegativeCount { input, line: a.line });
        }
        let [p0, p1] = self.key(&a.pc);
        let [a0, a1] = self.key(&a.address);
        let at = match self.memory.get(&[p0, p1, a0, a1]) {
            Some(&at) => at,
            None => {
                let pc = self.location([p0, p1], a.pc);
                let address = self.location([a0, a1], a.address);
                self.merged.memory.push(MemoryAccess { pc, address, count: 0, line: 0 });
                let i = self.merged.memory.len().saturating_sub(1);
                self.memory.insert([p0, p1, a0, a1], i);
                i
            }
        };
        if let Some(m) = self.merged.memory.get_mut(at) {
            m.count = m.count.saturating_add(a.count);
        }
    }
}

/// No merged branch.
const NONE: usize = usize::MAX;

/// Where a merged branch was first seen: its input, the part of it (`add_part`),
/// and its line in that part, in that order of significance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Seen(u64, u64);

impl Seen {
    /// After every other.
    const LAST: Seen = Seen(u64::MAX, u64::MAX);

    /// A line counts from 1 and a file has fewer than 2^56 of them; a part is one
    /// of at most 256 (`merge_parts`).
    fn new(input: usize, part: u64, line: u64) -> Seen {
        Seen(input as u64, part << 56 | line & ((1 << 56) - 1))
    }
}

/// A first input's tables are sized for a branch per this many bytes (the lines
/// of the SQLite profiles in `bench/bolt-gen.sh` average 55): an input of shorter
/// lines grows them past that, as before.
const SHORT_RECORD: usize = 32;

/// How many merged branches after the last matched a line is compared with before
/// its text is looked up.
const LOOK_AHEAD: usize = 8;

/// A merged branch.
struct KnownBranch<'a> {
    /// Its locations' keys (`Merger::key`), source then target.
    key: [u64; 4],
    /// Its line up to its counts, as first seen in the plain spelling (empty if
    /// not yet): a line that starts with it is this branch.
    text: &'a [u8],
    /// The merged branch after it in the order of the inputs: each new branch is
    /// put after the one matched before it. Profiles of one binary list their
    /// records in much the same order, so the next line is most often the
    /// follower of the last, found by its text before anything is decoded or
    /// hashed.
    follower: usize,
    /// The count and mispredictions summed so far.
    sums: [i64; 2],
}

impl KnownBranch<'_> {
    /// Adds a count and mispredictions to the sums.
    fn add(&mut self, [count, mispredicted]: [i64; 2]) {
        self.sums[0] = self.sums[0].saturating_add(count);
        self.sums[1] = self.sums[1].saturating_add(mispredicted);
    }
}

/// A merger reading one input.
struct Adding<'m, 'a> {
    merger: &'m mut Merger<'a>,
    input: usize,
    /// The input's header, until its first record (or its end).
    header: Option<(bool, bool)>,
    /// The line of the first record that is not a branch.
    other_records: Option<u64>,
}

impl<'a> Sink<'a> for Adding<'_, 'a> {
    fn header(&mut self, h: Header<'a>) {
        self.header = Some((h.bolted_collection, h.no_lbr.is_some()));
    }

    fn known_lines(&mut self, rest: &'a [u8]) -> (usize, u64) {
        self.check_header();
        self.merger.known_lines(rest)
    }

    fn plain_branch(&mut self, branch: Branch<'a>, text: &'a [u8]) {
        self.check_header();
        if let Some(at) = self.merger.branch(self.input, branch) {
            self.merger.learn_text(at, text);
        }
    }

    fn record(&mut self, record: Record<'a>) {
        self.check_header();
        match record {
            Record::Branch(b) => {
                self.merger.branch(self.input, b);
            }
            Record::Sample(s) => {
                self.other_records.get_or_insert(s.line);
                self.merger.sample(self.input, s);
            }
            Record::Memory(m) => {
                self.other_records.get_or_insert(m.line);
                self.merger.memory(self.input, m);
            }
        }
    }
}

impl Adding<'_, '_> {
    /// The header is checked before the input's first record, as `merge` does.
    fn check_header(&mut self) {
        if let Some((bolted, no_lbr)) = self.header.take() {
            self.merger.header(self.input, bolted, no_lbr);
        }
    }
}

/// The hash of merged branch `at`'s key, as `Merger::by_key` hashes it.
fn key_hash(known: &[KnownBranch<'_>], at: usize) -> u64 {
    KeyHash.hash_one(known.get(at).map_or([0; 4], |k| k.key))
}

/// The hash of merged branch `at`'s text, as `Merger::by_text` hashes it.
fn text_hash(hasher: &DefaultHashBuilder, known: &[KnownBranch<'_>], at: usize) -> u64 {
    hasher.hash_one(known.get(at).map_or(&[][..], |k| k.text))
}

/// The merged branch `known` is, its names spelled from `spellings` (its merger's).
fn merged_branch<'a>(spellings: &[Cow<'a, [u8]>], known: &KnownBranch<'a>) -> Option<Branch<'a>> {
    let [count, mispredicted] = known.sums;
    let from = key_location(spellings, [known.key[0], known.key[1]])?;
    let to = key_location(spellings, [known.key[2], known.key[3]])?;
    Some(Branch { from, to, mispredicted, count, line: 0 })
}

/// The location of `key` (`Merger::key`), its name spelled as seen first.
fn key_location<'a>(spellings: &[Cow<'a, [u8]>], [name, offset]: [u64; 2]) -> Option<Location<'a>> {
    let kind = SymbolKind::from_digit(b'0'.wrapping_add((name & 3) as u8))?;
    let name = spellings.get(usize::try_from(name >> 2).ok()?)?.clone();
    Some(Location { kind, name, offset })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bolt::fdata::{decode, write};

    fn text(f: &Fdata<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        write(f, &mut out);
        out
    }

    #[test]
    fn streamed_and_split_merges_equal_merge() {
        let a: &[u8] = b"1 f 10 1 f 20 0 5\n1 f 10 1 g 0 0 2\n1 f\\ x 1 1 h 0 0 1\n";
        // Other spellings of the same records (two spaces, a leading zero, upper
        // case hex) and records a, b and c do not share.
        let b: &[u8] = b"1 f  10 1 f 20 0 5\n1 f 010 1 g 0 1 3\n2 s 1 1 f 1A 0 7\n";
        let c: &[u8] = b"1 f 10 1 f 20 0 1\n2 s 1 1 f 1a 0 1\n1 h 0 1 h 4 0 9\n";
        let inputs = [a, b, c];
        let decoded: Vec<_> = inputs.iter().map(|d| decode(d).unwrap()).collect();
        let expected = text(&merge(&decoded).unwrap());
        assert_eq!(
            expected,
            b"1 f 10 1 f 20 0 11\n1 f 10 1 g 0 1 5\n1 f\\ x 1 1 h 0 0 1\n2 s 1 1 f 1a 0 8\n1 h 0 1 h 4 0 9\n"
        );
        for split in 0..=inputs.len() {
            let mut first = Merger::new();
            for (i, d) in inputs.iter().enumerate().take(split) {
                first.add(i, d).unwrap();
            }
            let mut later = Merger::after_first(false, false);
            for (i, d) in inputs.iter().enumerate().skip(split) {
                later.add(i, d).unwrap();
            }
            if split == 0 {
                first = later;
            } else {
                first.absorb(later);
            }
            assert_eq!(text(&first.finish().unwrap()), expected, "split at {split}");
        }
    }

    #[test]
    fn a_merger_that_absorbed_another_reads_on() {
        // Ten records, more than a line is compared with before it is looked up.
        let a: Vec<u8> = (0..10).flat_map(|i| alloc::format!("1 f {i:x} 1 f {:x} 0 1\n", i + 1).into_bytes()).collect();
        // a's last, then a new one: put last in the inputs' order.
        let b: &[u8] = b"1 f 9 1 f a 0 2\n1 h 0 1 h 4 0 9\n";
        // The new one again, spelled otherwise too, and a's first.
        let c: &[u8] = b"1 h 0 1 h 4 0 1\n1 h 00 1 h 4 0 1\n1 f 0 1 f 1 0 5\n";
        let decoded: Vec<_> = [&a[..], b, c].iter().map(|d| decode(d).unwrap()).collect();
        let expected = text(&merge(&decoded).unwrap());
        assert!(expected.starts_with(b"1 f 0 1 f 1 0 6\n"));
        assert!(expected.ends_with(b"1 f 9 1 f a 0 3\n1 h 0 1 h 4 0 11\n"));
        let mut first = Merger::new();
        first.add(0, &a).unwrap();
        let mut later = Merger::after_first(false, false);
        later.add(1, b).unwrap();
        first.absorb(later);
        first.add(2, c).unwrap();
        assert_eq!(text(&first.finish().unwrap()), expected);
    }

    #[test]
    fn streamed_merge_keeps_the_first_error() {
        let lbr: &[u8] = b"1 f 0 1 f 4 0 1\n";
        let negative: &[u8] = b"1 f 0 1 f 4 0 1\n1 f 0 1 f 8 0 -1\n";
        let no_lbr: &[u8] = b"no_lbr cycles\n1 f 0 3\n";
        let mut m = Merger::new();
        m.add(0, lbr).unwrap();
        m.add(1, negative).unwrap();
        m.add(2, no_lbr).unwrap();
        assert_eq!(m.finish().unwrap_err(), MergeError::NegativeCount { input: 1, line: 2 });
        let mut m = Merger::new();
        m.add(0, lbr).unwrap();
        let mut later = Merger::after_first(false, false);
        later.add(1, no_lbr).unwrap();
        later.add(2, negative).unwrap();
        m.absorb(later);
        assert_eq!(m.finish().unwrap_err(), MergeError::MixedModes { input: 1, header: "no_lbr" });
        // Decoding errors are decode's, line and column.
        let bad: &[u8] = b"1 f 0 1 f 4 0 1\n1 f 0 1 f 4 x 1\n";
        assert_eq!(Merger::new().add(0, bad).unwrap_err(), decode(bad).unwrap_err());
    }
}
