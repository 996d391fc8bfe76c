//! `perf script` text, byte for byte as perf 6.1 prints it, for two field sets.
//!
//! Samples are printed in perf's delivery order ([`PerfData::for_each_in_time_order`]) while
//! a [`Machine`] replays the other records, which gives the thread names and the
//! maps call-chain frames resolve in. The rules, from perf 6.1's
//! `builtin-script.c` (`perf_sample__fprintf_start`, `process_event`,
//! `perf_sample__fprintf_brstack`), `util/evsel_fprintf.c`
//! (`sample__fprintf_callchain`), `util/machine.c`
//! (`thread__resolve_callchain_sample`) and `util/branch.c`:
//!
//! ```text
//! comm          "%16s " — or "%s " when the event records call chains
//! pid/tid       "%5d/%-5d "
//! time          "%12s: " of "<s>.<µs, 6 digits>", nanoseconds truncated
//! period        "%10lu "
//! event         "%*s: ", width = the longest event name in the file
//! ip            " %16lx" (absolute) — or, with a call chain, "\n" and then per
//!               frame "\t%16lx\n", user frames DSO-relative (map_ip), kernel
//!               and unresolved frames absolute; context markers switch the
//!               cpumode; at most 127 frames; an unknown marker empties the chain
//! brstack       per entry " 0x%lx/0x%lx/%c/%c/%c/%d/%s ": M, P or -; X or -;
//!               A or -; cycles; branch type name ("" when unknown)
//! end           "\n"
//! ```
//!
//! `--call-graph dwarf` samples (user registers and a stack copy) get their user
//! frames unwound after the recorded (kernel) chain, as perf 6.1 built with
//! libunwind does (`thread__resolve_callchain_unwind`, `unwind_entry`,
//! `append_inlines`): the sampled ip, then each return address less one, read
//! with the binaries' `.eh_frame`; a frame with a symbol and DWARF becomes its
//! inline functions (GNU addr2line's view of them), innermost first, each marked
//! ` (inlined)` unless its name is the symbol's. Without binaries, the ip alone.
//!
//! In pipe mode perf also turns on symbol names for events with call chains
//! (`process_attr`): [`write_script_with`] takes the binaries and kallsyms that
//! name them; without them every frame's name is `[unknown]`.

pub mod folded;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::attr::sample_type as st;
use super::machine::{Machine, MapKind};
use super::record::{misc, Record};
use super::sample::{BranchEntry, Sample, CONTEXT_HV, CONTEXT_KERNEL, CONTEXT_MAX, CONTEXT_USER};
use super::PerfData;
use crate::error::Error;
use crate::symbolize::unwind::{self, Unwinder};
use crate::symbolize::{Address, Binary, Symbolizer};

/// Which `perf script -F` field set to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptFields {
    /// `-F comm,pid,tid,time,period,event,ip`, with call chains when recorded.
    Samples,
    /// `-F ip,brstack`.
    Brstack,
}

/// Why [`write_script`] stopped: the input, or the sink.
#[derive(Debug)]
pub enum ScriptError<E> {
    Decode(Error),
    Sink(E),
}

impl<E> From<Error> for ScriptError<E> {
    fn from(e: Error) -> Self {
        ScriptError::Decode(e)
    }
}

/// perf's `PERF_MAX_STACK_DEPTH`, the default `--max-stack` of `perf script`.
const MAX_STACK: usize = 127;
/// Output is handed to the sink in pieces of about this size.
const CHUNK: usize = 1 << 16;

/// Prints `perf script` text for `perf`, handing it to `sink` in chunks of
/// about 64 KiB (so that outputs of gigabytes never sit in memory).
pub fn write_script<E>(
    perf: &PerfData<'_>,
    fields: ScriptFields,
    sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), ScriptError<E>> {
    write_script_with(perf, fields, None, sink)
}

/// [`write_script`], with the binaries (and kallsyms) that name call-chain frames
/// where perf prints names (pipe mode); without them, or where they have no
/// symbol, a frame is `[unknown]`, as perf prints it.
pub fn write_script_with<E>(
    perf: &PerfData<'_>,
    fields: ScriptFields,
    symbols: Option<&Symbolizer<'_>>,
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), ScriptError<E>> {
    let mut machine = Machine::new(perf);
    let mut printer = Printer::new(perf, fields, symbols);
    let mut out: Vec<u8> = Vec::with_capacity(CHUNK.saturating_add(4096));
    // The sink's error cannot pass through the decoder's callback: keep it here
    // and stop the walk with a placeholder.
    let mut sink_error = None;
    let walked = perf.for_each_in_time_order(|position| {
        // Read where it lies: moved out of its `Result`, a sample (half a kilobyte)
        // would be copied once more.
        let decoded = perf.record_at(position);
        let record = match decoded {
            Ok(ref record) => record,
            Err(e) => return Err(e),
        };
        machine.apply(record);
        if let Record::Sample(sample) = &record.record {
            printer.sample(&machine, sample, &mut out);
            if out.len() >= CHUNK {
                if let Err(e) = sink(&out) {
                    sink_error = Some(e);
                    return Err(Error::malformed(record.offset, "an output that accepts the text"));
                }
                out.clear();
            }
        }
        Ok(())
    });
    if let Some(e) = sink_error {
        return Err(ScriptError::Sink(e));
    }
    walked?;
    if !out.is_empty() {
        sink(&out).map_err(ScriptError::Sink)?;
    }
    Ok(())
}

/// The whole text in memory, for tests and small inputs.
pub fn script_bytes(perf: &PerfData<'_>, fields: ScriptFields) -> Result<Vec<u8>, Error> {
    let mut all = Vec::new();
    write_script(perf, fields, |chunk| {
        all.extend_from_slice(chunk);
        Ok::<(), core::convert::Infallible>(())
    })
    .map_err(|e| match e {
        ScriptError::Decode(e) => e,
        ScriptError::Sink(never) => match never {},
    })?;
    Ok(all)
}

/// What stays the same for every sample of a file, and the unwinding state.
struct Printer<'s, 'b> {
    fields: ScriptFields,
    /// Per event: `"%*s: "` of its name, and whether perf prints its call chains.
    events: Vec<(Vec<u8>, bool)>,
    /// Pipe mode: perf adds the `sym` field to events with call chains.
    sym: bool,
    walk: Walk<'s, 'b>,
    /// The current sample's call chain, reused.
    entries: Vec<Entry>,
}

impl<'s, 'b> Printer<'s, 'b> {
    fn new(perf: &PerfData<'_>, fields: ScriptFields, symbols: Option<&'s Symbolizer<'b>>) -> Self {
        let walk = Walk::new(perf, symbols);
        let width = perf.events.iter().map(|e| e.name.len()).max().unwrap_or(0);
        let events = perf
            .events
            .iter()
            .map(|e| {
                let mut name = Vec::new();
                pad(&mut name, width, e.name.len());
                name.extend_from_slice(e.name.as_bytes());
                name.extend_from_slice(b": ");
                name
            })
            .zip(&walk.chains)
            .map(|(name, &chain)| (name, chain))
            .collect();
        let combined = perf.events.iter().fold(0u64, |acc, e| acc | e.attr.sample_type);
        let sym = perf.pipe
            && (combined & (st::CALLCHAIN | st::BRANCH_STACK) != 0
                || combined & (st::REGS_USER | st::STACK_USER) == st::REGS_USER | st::STACK_USER);
        Printer { fields, events, sym, walk, entries: Vec::new() }
    }

    fn sample(&mut self, machine: &Machine, s: &Sample<'_>, out: &mut Vec<u8>) {
        let (name, chain) = match self.events.get(s.event) {
            Some((name, chain)) => (&name[..], *chain),
            None => (&b"[unknown]: "[..], false),
        };
        let pid = s.pid.map_or(-1, |p| p as i32);
        let tid = s.tid.map_or(-1, |t| t as i32);
        let thread = machine.thread(tid);
        if self.fields == ScriptFields::Samples {
            let comm: &[u8] = thread.map_or(b":-1", |t| &t.comm);
            if chain {
                out.extend_from_slice(comm);
            } else {
                right::<16>(out, comm);
            }
            out.push(b' ');
            // "%5d/%-5d "
            let mut buf = [0u8; 24];
            right::<5>(out, format_decimal(&mut buf, i64::from(pid)));
            out.push(b'/');
            let text = format_decimal(&mut buf, i64::from(tid));
            let mut field = [b' '; 6];
            match field.get_mut(..text.len()) {
                Some(head) if text.len() < 6 => {
                    head.copy_from_slice(text);
                    out.extend_from_slice(&field);
                }
                _ => {
                    out.extend_from_slice(text);
                    out.push(b' ');
                }
            }
            time(out, s.time.unwrap_or(0));
            out.extend_from_slice(b": ");
            let mut field = [b' '; 10];
            if fill_decimal(&mut field, s.period.unwrap_or(0)) {
                out.extend_from_slice(&field);
            } else {
                out.extend_from_slice(format_unsigned(&mut buf, s.period.unwrap_or(0)));
            }
            out.push(b' ');
            out.extend_from_slice(name);
        }
        match s.callchain.filter(|_| chain) {
            Some(ips) => {
                out.push(b'\n');
                let maps = thread.map(|t| t.maps);
                let mut entries = core::mem::take(&mut self.entries);
                self.walk.chain(machine, s, maps, ips, &mut entries);
                for entry in &entries {
                    let shown = match (entry.cpumode, maps) {
                        (misc::USER, Some(maps)) => machine.user_map_ip(maps, entry.ip).unwrap_or(entry.ip),
                        _ => entry.ip,
                    };
                    let mut line = [b' '; 18];
                    if let Some((first, rest)) = line.split_first_mut() {
                        *first = b'\t';
                        if let Some(digits) = rest.first_chunk_mut::<16>() {
                            fill_hex(digits, shown);
                        }
                    }
                    out.extend_from_slice(line.get(..17).unwrap_or(&[]));
                    if self.sym {
                        out.push(b' ');
                        match &entry.inline {
                            Some(inline) => out.extend_from_slice(inline.function.as_bytes()),
                            None => self.walk.symbol(machine, maps, entry.cpumode, entry.ip, out),
                        }
                    }
                    if entry.inline.as_ref().is_some_and(|i| i.marked) {
                        out.extend_from_slice(b" (inlined)");
                    }
                    out.push(b'\n');
                }
                self.entries = entries;
            }
            None => {
                let mut field = [b' '; 17];
                if let Some(digits) = field.last_chunk_mut::<16>() {
                    fill_hex(digits, s.ip.unwrap_or(0));
                }
                out.extend_from_slice(&field);
                if self.sym {
                    out.push(b' ');
                    self.walk.symbol(machine, thread.map(|t| t.maps), s.cpumode(), s.ip.unwrap_or(0), out);
                }
            }
        }
        if self.fields == ScriptFields::Brstack {
            if let Some(stack) = &s.branch_stack {
                let mut line = Staging::new();
                for entry in stack.iter() {
                    if line.room() < MAX_BRANCH_TEXT {
                        line.flush(out);
                    }
                    branch(&mut line, &entry);
                }
                line.flush(out);
            }
        }
        out.push(b'\n');
    }
}

/// One line of a call chain as perf prints it.
pub(crate) struct Entry {
    /// The process address: a frame's ip, or an unwound return address less one.
    pub ip: u64,
    pub cpumode: u16,
    /// Set when perf's `append_inlines` put the functions DWARF places at `ip` in
    /// the frame's stead (`--call-graph dwarf` only).
    pub inline: Option<Inline>,
}

/// One of the functions DWARF places at an unwound frame's address.
pub(crate) struct Inline {
    pub function: String,
    /// perf prints `(inlined)` after a function whose name is not the symbol's
    /// (its `new_inline_sym` makes a fake symbol for it).
    pub marked: bool,
}

/// How call chains are walked: the recorded chain, then for `--call-graph dwarf`
/// samples the user stack unwound and inline frames added as perf does.
pub(crate) struct Walk<'s, 'b> {
    symbols: Option<&'s Symbolizer<'b>>,
    /// Per event: whether perf prints its call chains.
    pub chains: Vec<bool>,
    /// Per event: whether it records user registers and a stack copy.
    dwarf: Vec<bool>,
    // The unwinder the stack model uses (model/perf.rs), driven here directly:
    // perf script's walk differs from the model's in what it keeps (see `unwind`).
    unwinder: Unwinder<'b>,
    /// Per DSO (machine index): the binary whose `.eh_frame` holds its CFI.
    cfi: BTreeMap<usize, Option<&'s Binary<'b>>>,
}

impl<'s, 'b> Walk<'s, 'b> {
    pub(crate) fn new(perf: &PerfData<'_>, symbols: Option<&'s Symbolizer<'b>>) -> Self {
        let both = st::REGS_USER | st::STACK_USER;
        let dwarf = perf.events.iter().map(|e| e.attr.sample_type & both == both).collect();
        // perf turns call chains off when no event of a file records them; in
        // pipe mode it cannot know in advance and leaves them on.
        let use_callchain = perf.pipe || perf.events.iter().any(|e| e.attr.has(st::CALLCHAIN));
        let chains = perf.events.iter().map(|e| use_callchain && e.attr.has(st::CALLCHAIN)).collect();
        Walk { symbols, chains, dwarf, unwinder: Unwinder::as_perf_script(), cfi: BTreeMap::new() }
    }

    /// The call chain perf prints for a sample, into `out` (emptied first): the
    /// recorded frames (kernel ones for a `dwarf` recording), each marker switching
    /// the cpumode, at most 127; a chain with an unknown marker is dropped whole.
    /// Then the unwound user frames, when the sample has a stack copy.
    pub(crate) fn chain(
        &mut self,
        machine: &Machine,
        s: &Sample<'_>,
        maps: Option<usize>,
        ips: super::sample::U64s<'_>,
        out: &mut Vec<Entry>,
    ) {
        out.clear();
        let mut cpumode = misc::USER;
        for ip in ips.iter() {
            if out.len() >= MAX_STACK {
                break;
            }
            if ip >= CONTEXT_MAX {
                cpumode = match ip {
                    CONTEXT_HV => misc::HYPERVISOR,
                    CONTEXT_KERNEL => misc::KERNEL,
                    CONTEXT_USER => misc::USER,
                    _ => {
                        // perf takes the chain for corrupt and drops it.
                        out.clear();
                        return;
                    }
                };
                continue;
            }
            out.push(Entry { ip, cpumode, inline: None });
        }
        if self.dwarf.get(s.event).copied().unwrap_or(false) {
            self.unwind(machine, s, maps, out);
        }
    }

    /// perf 6.1's `thread__resolve_callchain_unwind` with libunwind (Debian's
    /// build): the sampled ip, then each caller's return address less one
    /// (`--ips[i]` for non-signal frames), at most 127 in all; each frame with a
    /// symbol replaced by the functions DWARF places there (`unwind_entry`).
    fn unwind(&mut self, machine: &Machine, s: &Sample<'_>, maps: Option<usize>, out: &mut Vec<Entry>) {
        let (Some(regs), Some(stack)) = (s.regs_user, s.stack_user) else { return };
        // perf: no registers, or nothing copied (`dyn_size` 0).
        if regs.abi == 0 || stack.dyn_size == 0 {
            return;
        }
        let values = unwind::x86_64_regs(regs.mask, regs.values.iter());
        let Some(ip) = values.get(unwind::IP).copied().flatten() else { return };
        let mut ips = alloc::vec![ip];
        if let Some(symbols) = self.symbols {
            let cfi = &mut self.cfi;
            // perf reads what the kernel filled of the copy (`dyn_size`).
            let filled = usize::try_from(stack.dyn_size).ok().and_then(|n| stack.data.get(..n)).unwrap_or(stack.data);
            let callers = self.unwinder.unwind(values, filled, |pc| {
                let r = machine.resolve_in(maps, misc::USER, pc).filter(|r| r.map.kind == MapKind::File)?;
                let binary = (*cfi
                    .entry(r.map.dso)
                    .or_insert_with(|| symbols.find_call_frames(core::str::from_utf8(r.filename).ok()?, r.build_id)))?;
                Some((binary, binary.vaddr_of_file_offset(r.dso_relative)?))
            });
            ips.extend(callers.into_iter().map(|ra| ra.wrapping_sub(1)));
        }
        ips.truncate(MAX_STACK);
        for ip in ips {
            // perf skips a zero address (a zero return address is listed less one).
            if ip != 0 {
                self.frame(machine, maps, ip, out);
            }
        }
    }

    /// perf's `unwind_entry` and `append_inlines`: a user frame whose address has a
    /// symbol and DWARF functions becomes one line per function, innermost first.
    fn frame(&self, machine: &Machine, maps: Option<usize>, ip: u64, out: &mut Vec<Entry>) {
        let inlines = self.symbols.and_then(|symbols| {
            let r = machine.resolve_in(maps, misc::USER, ip).filter(|r| r.map.kind == MapKind::File)?;
            let path = core::str::from_utf8(r.filename).ok().filter(|p| !p.starts_with('['))?;
            let build_id = r.build_id.or_else(|| symbols.own_build_id(path));
            let binary = symbols.find(path, build_id)?;
            // A separate debug file's segments hold no bytes: its stripped twin places
            // the offset.
            let vaddr = binary.vaddr_of_file_offset(r.dso_relative).or_else(|| {
                let twin = self.cfi.get(&r.map.dso).copied().flatten()?;
                twin.vaddr_of_file_offset(r.dso_relative)
            })?;
            let (symbol, _) = binary.symbol_for(vaddr)?;
            let frames = binary.addr2line_frames(vaddr).ok().filter(|f| !f.is_empty())?;
            Some(
                frames
                    .into_iter()
                    .map(|f| {
                        let marked = f.function != symbol;
                        Inline { function: f.function, marked }
                    })
                    .collect::<Vec<_>>(),
            )
        });
        match inlines {
            Some(inlines) => {
                out.extend(inlines.into_iter().map(|inline| Entry { ip, cpumode: misc::USER, inline: Some(inline) }))
            }
            None => out.push(Entry { ip, cpumode: misc::USER, inline: None }),
        }
    }

    /// The name perf prints for a frame (`sym`): the function in the binary the
    /// address maps to, the kernel symbol for kernel frames, else `[unknown]`.
    pub(crate) fn symbol(&self, machine: &Machine, maps: Option<usize>, cpumode: u16, ip: u64, out: &mut Vec<u8>) {
        match self.name(machine, maps, cpumode, ip) {
            Some(name) => out.extend_from_slice(name.as_bytes()),
            None => out.extend_from_slice(b"[unknown]"),
        }
    }

    /// The function perf names a frame by, `None` where it prints `[unknown]`.
    pub(crate) fn name(&self, machine: &Machine, maps: Option<usize>, cpumode: u16, ip: u64) -> Option<String> {
        self.symbols.and_then(|symbols| match cpumode {
            misc::KERNEL => symbols.kallsyms()?.symbol_for(ip).map(|s| String::from(s.name)),
            misc::USER => {
                let r = machine.resolve_in(maps, cpumode, ip).filter(|r| r.map.kind == MapKind::File)?;
                let path = core::str::from_utf8(r.filename).ok()?;
                // Without a build id in the recording, perf reads the file's own and
                // finds its separate debug file by it.
                let build_id = r.build_id.or_else(|| symbols.own_build_id(path));
                let name = symbols.function_name(path, build_id, Address::FileOffset(r.dso_relative));
                (name != "[unknown]").then_some(name)
            }
            _ => None,
        })
    }
}

/// The longest text of one `brstack` entry: two 16-digit addresses, 5 digits of
/// cycles, the longest type name, and the separators.
const MAX_BRANCH_TEXT: usize = 3 + 16 + 3 + 16 + 7 + 5 + 1 + 10 + 1;

/// A stack buffer that collects a sample's branch entries, so that the output
/// vector grows once per sample, not a dozen times per entry.
struct Staging {
    buf: [u8; 2048],
    len: usize,
}

impl Staging {
    fn new() -> Self {
        Staging { buf: [0; 2048], len: 0 }
    }

    fn room(&self) -> usize {
        self.buf.len().saturating_sub(self.len)
    }

    fn push(&mut self, byte: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = byte;
            self.len = self.len.saturating_add(1);
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    /// `n` in lowercase hex without leading zeros.
    fn hex(&mut self, n: u64) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let digits = ((67u32.saturating_sub((n | 1).leading_zeros())) / 4) as usize;
        let end = self.len.saturating_add(digits);
        if let Some(slots) = self.buf.get_mut(self.len..end) {
            let mut n = n;
            for slot in slots.iter_mut().rev() {
                *slot = DIGITS.get((n & 15) as usize).copied().unwrap_or(b'0');
                n >>= 4;
            }
            self.len = end;
        }
    }

    fn flush(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.buf.get(..self.len).unwrap_or(&[]));
        self.len = 0;
    }
}

/// One `brstack` entry: `" 0x%lx/0x%lx/%c/%c/%c/%d/%s "`.
fn branch(out: &mut Staging, e: &BranchEntry) {
    let f = e.flags;
    out.bytes(b" 0x");
    out.hex(e.from);
    out.bytes(b"/0x");
    out.hex(e.to);
    let predicted = if f.predicted() {
        b'P'
    } else if f.mispredicted() {
        b'M'
    } else {
        b'-'
    };
    let in_tx = if f.in_tx() { b'X' } else { b'-' };
    let abort = if f.abort() { b'A' } else { b'-' };
    out.bytes(&[b'/', predicted, b'/', in_tx, b'/', abort, b'/']);
    let mut buf = [0u8; 24];
    out.bytes(format_unsigned(&mut buf, u64::from(f.cycles())));
    out.push(b'/');
    out.bytes(branch_type_name(f.branch_type(), f.new_type()));
    out.push(b' ');
}

/// perf 6.1's `get_branch_type`: nothing for an unknown type, the extended
/// type's name for `PERF_BR_EXTEND_ABI` (glibc prints a missing one as
/// `(null)`).
pub fn branch_type_name(kind: u8, new_type: u8) -> &'static [u8] {
    const NAMES: [&[u8]; 15] = [
        b"",
        b"COND",
        b"UNCOND",
        b"IND",
        b"CALL",
        b"IND_CALL",
        b"RET",
        b"SYSCALL",
        b"SYSRET",
        b"COND_CALL",
        b"COND_RET",
        b"ERET",
        b"IRQ",
        b"SERROR",
        b"NO_TX",
    ];
    const NEW_NAMES: [&[u8]; 8] =
        [b"FAULT_ALGN", b"FAULT_DATA", b"FAULT_INST", b"ARCH_1", b"ARCH_2", b"ARCH_3", b"ARCH_4", b"ARCH_5"];
    match NAMES.get(usize::from(kind)) {
        Some(name) => name,
        None => NEW_NAMES.get(usize::from(new_type)).copied().unwrap_or(b"(null)"),
    }
}

/// `"%12s"` of perf's `timestamp__scnprintf_usec`: seconds, a dot, six digits of
/// microseconds (the nanoseconds truncated).
fn time(out: &mut Vec<u8>, nanos: u64) {
    let secs = nanos / 1_000_000_000;
    let micros = nanos % 1_000_000_000 / 1_000;
    let mut field = [b' '; 12];
    let (head, tail) = field.split_at_mut(5);
    if let Some((dot, digits)) = tail.split_first_mut() {
        *dot = b'.';
        let mut m = micros;
        for d in digits.iter_mut().rev() {
            *d = b'0'.wrapping_add((m % 10) as u8);
            m /= 10;
        }
    }
    if fill_decimal(head, secs) {
        out.extend_from_slice(&field);
    } else {
        let mut buf = [0u8; 24];
        out.extend_from_slice(format_unsigned(&mut buf, secs));
        out.extend_from_slice(field.get(5..).unwrap_or(&[]));
    }
}

/// `text` right-aligned in `W` columns (`"%Ws"`); longer text is not cut.
fn right<const W: usize>(out: &mut Vec<u8>, text: &[u8]) {
    let mut field = [b' '; W];
    match W.checked_sub(text.len()).and_then(|at| field.get_mut(at..)) {
        Some(tail) => {
            tail.copy_from_slice(text);
            out.extend_from_slice(&field);
        }
        None => out.extend_from_slice(text),
    }
}

/// Spaces that right-align a `len`-byte field in `width`.
fn pad(out: &mut Vec<u8>, width: usize, len: usize) {
    out.resize(out.len().saturating_add(width.saturating_sub(len)), b' ');
}

/// `"%16lx"` into a 16-byte field of spaces.
fn fill_hex(field: &mut [u8; 16], mut n: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for d in field.iter_mut().rev() {
        *d = DIGITS.get((n & 15) as usize).copied().unwrap_or(b'0');
        n >>= 4;
        if n == 0 {
            break;
        }
    }
}

/// `n` right-aligned in decimal into a field of spaces; false when it does not fit.
fn fill_decimal(field: &mut [u8], mut n: u64) -> bool {
    for d in field.iter_mut().rev() {
        *d = b'0'.wrapping_add((n % 10) as u8);
        n /= 10;
        if n == 0 {
            return true;
        }
    }
    false
}

/// `n` in decimal at the end of `buf`.
pub fn format_unsigned(buf: &mut [u8; 24], mut n: u64) -> &[u8] {
    let mut at = buf.len();
    loop {
        at = at.saturating_sub(1);
        if let Some(b) = buf.get_mut(at) {
            *b = b'0'.wrapping_add((n % 10) as u8);
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    buf.get(at..).unwrap_or(&[])
}

/// `n` in decimal, with a minus sign when negative, at the end of `buf`.
pub fn format_decimal(buf: &mut [u8; 24], n: i64) -> &[u8] {
    let len = format_unsigned(buf, n.unsigned_abs()).len();
    let mut at = buf.len().saturating_sub(len);
    if n < 0 {
        at = at.saturating_sub(1);
        if let Some(b) = buf.get_mut(at) {
            *b = b'-';
        }
    }
    buf.get(at..).unwrap_or(&[])
}
