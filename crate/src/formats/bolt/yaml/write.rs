//! Writes a profile as LLVM 22's `yaml::Output` writes BOLT's mapping (no line
//! wrapping, as BOLT and merge-fdata construct it): keys padded to 16 columns
//! after their `:`, optional keys left out when they hold their default, flow
//! collections as `[ a, b ]` and `{ k: v }` (empty ones `[  ]`, `{  }`), hashes
//! as `0x` and upper-case hex without padding, strings quoted when YAML would
//! otherwise read them as something else (`needsQuotes`).
//!
//! Line wrapping is the one thing the writers differ in: llvm-bolt and perf2bolt
//! construct their `yaml::Output` with wrapping off, merge-fdata with the default
//! column 70, past which a flow collection continues on a new line indented two
//! past its opening bracket (the bracket's column is remembered per kind,
//! sequence or mapping, as LLVM remembers it: an inner `[` moves it for the rest
//! of the outer sequence).

use alloc::vec::Vec;

use crate::digits::{push_hex, push_unsigned, UPPER};

use super::{Block, CallSite, Function, HashFunction, InlineTreeNode, ProbeSet, Profile, ProfileFlags, Successor};

/// Where LLVM's writer wraps flow collections: `None` for llvm-bolt and perf2bolt,
/// [`MERGE_FDATA_WRAP`] for merge-fdata.
pub type WrapColumn = Option<usize>;

/// merge-fdata's `yaml::Output` default.
pub const MERGE_FDATA_WRAP: WrapColumn = Some(70);

pub fn write(p: &Profile<'_>, wrap: WrapColumn) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::with_capacity(p.blocks.len().saturating_mul(120).saturating_add(1024)),
        wrap,
        line_start: 0,
        seq_start: 0,
        map_start: 0,
    };
    w.profile(p);
    w.out
}

struct Writer {
    out: Vec<u8>,
    wrap: WrapColumn,
    /// Where the current line starts in `out`.
    line_start: usize,
    /// LLVM's `ColumnAtFlowStart` and `ColumnAtMapFlowStart`.
    seq_start: usize,
    map_start: usize,
}

impl Writer {
    fn push(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        self.line_start = self.out.len();
    }

    fn column(&self) -> usize {
        self.out.len().saturating_sub(self.line_start)
    }

    /// Before a flow element or key: past the wrap column, a new line indented two
    /// past the collection's start.
    fn maybe_wrap(&mut self, start: usize) {
        if self.wrap.is_some_and(|c| self.column() > c) {
            self.newline();
            self.out.extend(core::iter::repeat_n(b' ', start.saturating_add(2)));
        }
    }

    fn profile(&mut self, p: &Profile<'_>) {
        self.push(b"---");
        self.newline();
        self.push(b"header:");
        self.newline();
        let h = &p.header;
        self.key(2, "profile-version");
        self.number(u64::from(h.version));
        self.key(2, "binary-name");
        self.string(&h.binary_name);
        self.key(2, "binary-build-id");
        self.string(&h.build_id);
        self.key(2, "profile-flags");
        let names: Vec<&str> =
            ProfileFlags::NAMES.iter().filter(|(bit, _)| h.flags.has(*bit)).map(|&(_, name)| name).collect();
        self.list(&names, |w, name| w.push(name.as_bytes()));
        self.newline();
        self.key(2, "profile-origin");
        self.string(&h.origin);
        self.key(2, "profile-events");
        self.string(&h.events);
        self.key(2, "dfs-order");
        self.push(if h.dfs_order { b"true" } else { b"false" });
        self.newline();
        if h.hash_function != HashFunction::StdHash {
            self.key(2, "hash-func");
            self.push(h.hash_function.name().as_bytes());
            self.newline();
        }
        if p.functions.is_empty() {
            self.key(0, "functions");
            self.push(b"[]");
            self.newline();
        } else {
            self.push(b"functions:");
            self.newline();
            for f in &p.functions {
                self.function(p, f);
            }
        }
        let d = &p.probe_desc;
        if !d.is_empty() {
            self.push(b"pseudo_probe_desc:");
            self.newline();
            self.key(2, "gs");
            self.list(&d.guids, |w, &n| w.hex(n));
            self.newline();
            self.key(2, "gh");
            self.list(&d.guid_hash_index, |w, &n| w.decimal(u64::from(n)));
            self.newline();
            self.key(2, "hs");
            self.list(&d.hashes, |w, &n| w.hex(n));
            self.newline();
        }
        self.push(b"...");
        self.newline();
    }

    fn function(&mut self, p: &Profile<'_>, f: &Function<'_>) {
        self.push(b"  - ");
        self.padded("name");
        self.string(&f.name);
        self.key(4, "fid");
        self.number(u64::from(f.id));
        self.key(4, "hash");
        self.hex(f.hash);
        self.newline();
        self.key(4, "exec");
        self.number(f.exec);
        if f.extern_entries != 0 {
            self.key(4, "extern");
            self.number(f.extern_entries);
        }
        self.key(4, "nblocks");
        self.number(u64::from(f.block_count));
        let blocks = p.blocks_of(f);
        if !blocks.is_empty() {
            self.push(b"    blocks:");
            self.newline();
            for (i, b) in p.indexed_blocks_of(f) {
                self.block(p, b, i);
            }
        }
        let tree = p.inline_tree_of(f);
        if !tree.is_empty() {
            self.key(4, "inline_tree");
            self.list(tree, Writer::inline_node);
            self.newline();
        }
    }

    /// Block `b`, `index` in the profile's blocks.
    fn block(&mut self, p: &Profile<'_>, b: &Block, index: usize) {
        self.push(b"      - ");
        self.padded("bid");
        self.number(u64::from(b.index));
        self.key(8, "insns");
        self.number(u64::from(b.instructions));
        if b.hash != 0 {
            self.key(8, "hash");
            self.hex(b.hash);
            self.newline();
        }
        if b.exec != 0 {
            self.key(8, "exec");
            self.number(b.exec);
        }
        let extra = p.extra_of(index);
        if extra.events != 0 {
            self.key(8, "events");
            self.number(extra.events);
        }
        let calls = p.calls_of(b);
        if !calls.is_empty() {
            self.key(8, "calls");
            self.list(calls, Writer::call);
            self.newline();
        }
        let successors = p.successors_of(b);
        if !successors.is_empty() {
            self.key(8, "succ");
            self.list(successors, Writer::successor);
            self.newline();
        }
        let probes = p.probes_of(&extra);
        if !probes.is_empty() {
            self.key(8, "probes");
            self.list(probes, |w, s| w.probe_set(p, s));
            self.newline();
        }
    }

    fn call(&mut self, c: &CallSite) {
        self.flow_map(|m| {
            m.key("off", |w| w.hex(u64::from(c.offset)));
            m.key("fid", |w| w.decimal(u64::from(c.callee)));
            if c.entry_discriminator != 0 {
                m.key("disc", |w| w.decimal(u64::from(c.entry_discriminator)));
            }
            m.key("cnt", |w| w.decimal(c.count));
            if c.mispredicts != 0 {
                m.key("mis", |w| w.decimal(c.mispredicts));
            }
            if c.probe != 0 {
                m.key("pp", |w| w.decimal(u64::from(c.probe)));
            }
            if c.inline_node != 0 {
                m.key("ppn", |w| w.decimal(u64::from(c.inline_node)));
            }
            if c.indirect {
                m.key("ind", |w| w.push(b"true"));
            }
        });
    }

    fn successor(&mut self, s: &Successor) {
        self.flow_map(|m| {
            m.key("bid", |w| w.decimal(u64::from(s.index)));
            m.key("cnt", |w| w.decimal(s.count));
            if s.mispredicts != 0 {
                m.key("mis", |w| w.decimal(s.mispredicts));
            }
        });
    }

    fn probe_set(&mut self, p: &Profile<'_>, s: &ProbeSet) {
        let ids = p.probe_ids_of(s);
        let nodes = p.probe_nodes_of(s);
        self.flow_map(|m| {
            if ids != [1] {
                m.key("blk", |w| w.list(ids, |w, &n| w.decimal(n)));
            }
            if nodes != [0] {
                m.key("ids", |w| w.list(nodes, |w, &n| w.decimal(u64::from(n))));
            }
        });
    }

    fn inline_node(&mut self, n: &InlineTreeNode) {
        self.flow_map(|m| {
            if n.guid_index != u32::MAX {
                m.key("g", |w| w.decimal(u64::from(n.guid_index)));
            }
            if n.parent_delta != 0 {
                m.key("p", |w| w.decimal(u64::from(n.parent_delta)));
            }
            if n.call_site_probe != 0 {
                m.key("cs", |w| w.decimal(u64::from(n.call_site_probe)));
            }
        });
    }

    /// `{ k: v, ... }`, `{  }` when empty.
    fn flow_map(&mut self, body: impl FnOnce(&mut FlowMap<'_>)) {
        self.map_start = self.column();
        self.push(b"{ ");
        let mut m = FlowMap { w: self, first: true };
        body(&mut m);
        self.push(b" }");
    }

    /// `[ a, b ]`, `[  ]` when empty.
    fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Writer, &T)) {
        self.seq_start = self.column();
        self.push(b"[ ");
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.push(b", ");
            }
            self.maybe_wrap(self.seq_start);
            item(self, x);
        }
        self.push(b" ]");
    }

    /// `key:` and the padding LLVM puts before a scalar or flow value (to column 16
    /// past the key's start, or one space).
    fn key(&mut self, indent: usize, key: &str) {
        self.out.extend(core::iter::repeat_n(b' ', indent));
        self.padded(key);
    }

    fn padded(&mut self, key: &str) {
        self.push(key.as_bytes());
        self.out.push(b':');
        let pad = 16usize.checked_sub(key.len()).filter(|&n| n > 0).unwrap_or(1);
        self.out.extend(core::iter::repeat_n(b' ', pad));
    }

    fn number(&mut self, n: u64) {
        self.decimal(n);
        self.newline();
    }

    fn decimal(&mut self, n: u64) {
        push_unsigned(&mut self.out, n);
    }

    /// `0x` and upper-case hex digits, no padding (`format("0x%" PRIX64)`).
    fn hex(&mut self, n: u64) {
        self.push(b"0x");
        push_hex(&mut self.out, n, UPPER);
    }

    /// A string scalar and the end of its line.
    fn string(&mut self, s: &[u8]) {
        string(&mut self.out, s);
        self.newline();
    }
}

/// A flow mapping being written: `, ` between keys, wrapping before a key.
struct FlowMap<'w> {
    w: &'w mut Writer,
    first: bool,
}

impl FlowMap<'_> {
    fn key(&mut self, key: &str, value: impl FnOnce(&mut Writer)) {
        if !self.first {
            self.w.push(b", ");
        }
        self.first = false;
        self.w.maybe_wrap(self.w.map_start);
        self.w.push(key.as_bytes());
        self.w.push(b": ");
        value(self.w);
    }
}

/// A string scalar, quoted as LLVM's `needsQuotes` asks.
fn string(w: &mut Vec<u8>, s: &[u8]) {
    match quoting(s) {
        Quoting::None => w.extend_from_slice(s),
        Quoting::Single => {
            w.push(b'\'');
            for &b in s {
                if b == b'\'' {
                    w.push(b'\'');
                }
                w.push(b);
            }
            w.push(b'\'');
        }
        Quoting::Double => {
            w.push(b'"');
            escape_double(w, s);
            w.push(b'"');
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Quoting {
    None,
    Single,
    Double,
}

/// `llvm::yaml::needsQuotes`.
fn quoting(s: &[u8]) -> Quoting {
    let (Some(&first), Some(&last)) = (s.first(), s.last()) else { return Quoting::Single };
    let mut q = Quoting::None;
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    if space(first) || space(last) || is_null(s) || is_bool(s) || is_numeric(s) {
        q = Quoting::Single;
    }
    if br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&first) {
        q = Quoting::Single;
    }
    for &c in s {
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t') {
            continue;
        }
        if c == b'\n' || c == b'\r' {
            q = Quoting::Single;
            continue;
        }
        if c == 0x7F || c <= 0x1F || c & 0x80 != 0 {
            return Quoting::Double;
        }
        q = Quoting::Single;
    }
    q
}

fn is_null(s: &[u8]) -> bool {
    matches!(s, b"null" | b"Null" | b"NULL" | b"~")
}

fn is_bool(s: &[u8]) -> bool {
    matches!(s, b"true" | b"True" | b"TRUE" | b"false" | b"False" | b"FALSE")
}

/// `llvm::yaml::isNumeric`: YAML 1.2 core schema numbers.
fn is_numeric(s: &[u8]) -> bool {
    let skip_digits = |t: &[u8]| -> usize { t.iter().take_while(|b| b.is_ascii_digit()).count() };
    if s.is_empty() || s == b"+" || s == b"-" {
        return false;
    }
    if matches!(s, b".nan" | b".NaN" | b".NAN") {
        return true;
    }
    let tail = match s.first() {
        Some(b'-' | b'+') => s.get(1..).unwrap_or_default(),
        _ => s,
    };
    if matches!(tail, b".inf" | b".Inf" | b".INF") {
        return true;
    }
    if let Some(rest) = s.strip_prefix(b"0o") {
        return !rest.is_empty() && rest.iter().all(|b| (b'0'..=b'7').contains(b));
    }
    if let Some(rest) = s.strip_prefix(b"0x") {
        return !rest.is_empty() && rest.iter().all(u8::is_ascii_hexdigit);
    }
    let mut t = tail;
    if t.first() == Some(&b'.') && t.get(1).is_none_or(|b| !b.is_ascii_digit()) {
        return false;
    }
    if matches!(t.first(), Some(b'e' | b'E')) {
        return false;
    }
    t = t.get(skip_digits(t)..).unwrap_or_default();
    let Some((&c, rest)) = t.split_first() else { return true };
    t = rest;
    // Past the integer part: `.digits` may come before the exponent.
    if c == b'.' {
        t = t.get(skip_digits(t)..).unwrap_or_default();
        let Some((&c, rest)) = t.split_first() else { return true };
        if !matches!(c, b'e' | b'E') {
            return false;
        }
        t = rest;
    } else if !matches!(c, b'e' | b'E') {
        return false;
    }
    if let Some(rest) = t.strip_prefix(b"+").or_else(|| t.strip_prefix(b"-")) {
        t = rest;
    }
    !t.is_empty() && skip_digits(t) == t.len()
}

/// `llvm::yaml::escape` without escaping printable Unicode.
fn escape_double(w: &mut Vec<u8>, s: &[u8]) {
    for &b in s {
        let esc: Option<&[u8]> = match b {
            b'\\' => Some(b"\\\\"),
            b'"' => Some(b"\\\""),
            0 => Some(b"\\0"),
            7 => Some(b"\\a"),
            8 => Some(b"\\b"),
            9 => Some(b"\\t"),
            10 => Some(b"\\n"),
            11 => Some(b"\\v"),
            12 => Some(b"\\f"),
            13 => Some(b"\\r"),
            27 => Some(b"\\e"),
            _ => None,
        };
        match esc {
            Some(e) => w.extend_from_slice(e),
            None if b < 0x20 => {
                const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
                w.extend_from_slice(b"\\x");
                w.push(DIGITS.get(usize::from(b >> 4)).copied().unwrap_or(b'0'));
                w.push(DIGITS.get(usize::from(b & 0xF)).copied().unwrap_or(b'0'));
            }
            None => w.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_numeric, quoting, Quoting};

    #[test]
    fn strings_are_quoted_as_llvm_quotes_them() {
        assert_eq!(quoting(b"cprog"), Quoting::None);
        assert_eq!(quoting(b"perf data aggregator"), Quoting::None);
        assert_eq!(quoting(b""), Quoting::Single);
        assert_eq!(quoting(b"<unknown>"), Quoting::Single);
        assert_eq!(quoting(b"deregister_tm_clones/1"), Quoting::Single);
        assert_eq!(quoting(b"123"), Quoting::Single);
        assert_eq!(quoting(b"1e5"), Quoting::Single);
        assert_eq!(quoting(b"true"), Quoting::Single);
        assert_eq!(quoting(b"-x"), Quoting::Single);
        assert_eq!(quoting(b"a\x01"), Quoting::Double);
        assert_eq!(quoting("é".as_bytes()), Quoting::Double);
        assert!(is_numeric(b"0x1F") && is_numeric(b"-1.5e3") && is_numeric(b".5") && !is_numeric(b"1.2.3"));
        assert!(!is_numeric(b"ac5e5d2c821278bbb9de3c8d7c090f208a46534e"));
    }
}
