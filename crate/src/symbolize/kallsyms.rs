//! `/proc/kallsyms`: the kernel's symbol table as text, one symbol a line.
//!
//! ```text
//! ffffffff81000000 T _stext
//! ffffffff8158c375 t next_uptodate_folio
//! ffffffffc0a01000 t ext4_init_fs\t[ext4]       (a tab before the module)
//! ```
//!
//! The address is hex, the type one `nm` letter, the module (for symbols of loaded
//! modules) in brackets after a tab. Only text symbols (`T t W w`) are kept: samples
//! are code addresses. Sizes are not given; each symbol ends where the next one in
//! the same part (the kernel, or one module) starts.
//!
//! A file read without `CAP_SYSLOG` has every address 0 (`kptr_restrict`); it is
//! rejected, since every address would resolve to nothing useful.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::symbols::{Aliases, Binding, Symbol, Symbols};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{head_lines, Lines};

/// How many non-blank lines detection checks.
const SNIFF_LINES: usize = 64;

/// Text whose first non-blank lines are all `ADDRESS TYPE NAME [module]`. Only the
/// line shape is checked: a file read without permission (every address 0) is still
/// kallsyms, and [`Kallsyms::parse`] says why it cannot be used.
pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut lines = head_lines(data).filter(|l| !l.iter().all(u8::is_ascii_whitespace)).take(SNIFF_LINES);
    let first = lines.next()?;
    let is_symbol = |line: &[u8]| matches!(parse_line(line), Ok(Some(_) | None));
    (is_symbol(first) && lines.all(is_symbol)).then(|| Detection::new(Format::Kallsyms))
}

/// The text symbols of a `/proc/kallsyms` file, borrowing its text.
#[derive(Clone, Debug)]
pub struct Kallsyms<'a> {
    symbols: Symbols<'a>,
    /// The modules named, sorted, each once.
    modules: Vec<&'a str>,
}

/// A kernel symbol that holds an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSymbol<'s> {
    pub name: &'s str,
    /// The address's offset from the symbol's start.
    pub offset: u64,
    /// The module, without brackets; `None` for the kernel image.
    pub module: Option<&'s str>,
}

impl KernelSymbol<'_> {
    /// `name+0x1f`, as `perf script -F +symoff` prints it.
    pub fn label(&self) -> String {
        alloc::format!("{}+{:#x}", self.name, self.offset)
    }
}

impl<'a> Kallsyms<'a> {
    /// Reads every line; a line that is not `ADDRESS TYPE NAME [module]` is an error
    /// at its line and column.
    pub fn parse(text: &'a [u8]) -> Result<Kallsyms<'a>> {
        let mut list = Vec::new();
        let mut any_address = false;
        for line in Lines::new(text) {
            let Some(symbol) =
                parse_line(line.text).map_err(|(column, what)| Error::at_line(line.number, column, what))?
            else {
                continue;
            };
            any_address |= symbol.start != 0;
            list.push(symbol);
        }
        if !list.is_empty() && !any_address {
            return Err(Error::at_line(
                1,
                1,
                "every kallsyms address is 0: the file was read without permission to see kernel addresses",
            ));
        }
        let mut modules: Vec<&'a str> = list.iter().filter_map(|s| s.module).collect();
        modules.sort_unstable();
        modules.dedup();
        Ok(Kallsyms { symbols: Symbols::new(list, Aliases::Last), modules })
    }

    /// The text symbol holding `address`.
    pub fn symbol_for(&self, address: u64) -> Option<KernelSymbol<'_>> {
        let symbol = self.symbols.find(address)?;
        Some(KernelSymbol { name: &symbol.name, offset: address.checked_sub(symbol.start)?, module: symbol.module })
    }

    /// Whether some text symbol belongs to the module `name` (without brackets).
    pub fn has_module(&self, name: &str) -> bool {
        self.modules.binary_search(&name).is_ok()
    }

    /// How many text symbols were kept.
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}

/// One line: `Ok(None)` for a blank line or a symbol that is not text; the error is a
/// 1-based column and what was expected there.
fn parse_line(text: &[u8]) -> core::result::Result<Option<Symbol<'_>>, (u64, &'static str)> {
    let mut fields = Fields { text, at: 0 };
    let Some((address_at, address)) = fields.next() else {
        return Ok(None);
    };
    let address = core::str::from_utf8(address)
        .ok()
        .filter(|a| !a.starts_with('+'))
        .and_then(|a| u64::from_str_radix(a, 16).ok())
        .ok_or((column(address_at), "expected a hexadecimal address of at most 16 digits"))?;
    let kind = match fields.next() {
        Some((_, &[kind])) if kind.is_ascii_alphabetic() || kind == b'?' => kind,
        Some((at, _)) => return Err((column(at), "expected a one-letter symbol type")),
        None => return Err((column(text.len()), "expected a symbol type after the address")),
    };
    let (name_at, name) = fields.next().ok_or((column(text.len()), "expected a symbol name after the type"))?;
    let name = core::str::from_utf8(name).map_err(|_| (column(name_at), "expected a UTF-8 symbol name"))?;
    let module = match fields.next() {
        None => None,
        Some((at, field)) => {
            let inner = field.strip_prefix(b"[").and_then(|f| f.strip_suffix(b"]"));
            let module = inner
                .and_then(|m| core::str::from_utf8(m).ok())
                .filter(|m| !m.is_empty())
                .ok_or((column(at), "expected a [module] after the symbol name"))?;
            Some(module)
        }
    };
    if let Some((at, _)) = fields.next() {
        return Err((column(at), "expected the end of the line after the [module]"));
    }
    if !matches!(kind, b'T' | b't' | b'W' | b'w') {
        return Ok(None);
    }
    let binding = match kind {
        b'T' => Binding::Global,
        b'W' | b'w' => Binding::Weak,
        _ => Binding::Local,
    };
    Ok(Some(Symbol { start: address, end: address, name: Cow::Borrowed(name), binding, module }))
}

fn column(at: usize) -> u64 {
    (at as u64).saturating_add(1)
}

/// Fields separated by spaces or tabs, with the byte index each starts at.
struct Fields<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Fields<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        let rest = self.text.get(self.at..)?;
        let skip = rest.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
        let start = self.at.saturating_add(skip);
        let field_and_rest = self.text.get(start..)?;
        let len = field_and_rest.iter().position(|b| matches!(b, b' ' | b'\t')).unwrap_or(field_and_rest.len());
        self.at = start.saturating_add(len);
        Some((start, field_and_rest.get(..len)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_symbols_and_modules() {
        let text = b"0000000000000000 A fixed_percpu_data\n\
ffffffff81000000 T _stext\n\
ffffffff81000c70 T asm_exc_page_fault\n\
ffffffff81000cb0 D some_data\n\
\n\
ffffffffc0a01000 t ext4_init_fs\t[ext4]\n\
ffffffffc0a01100 t ext4_exit_fs\t[ext4]\n";
        let kallsyms = Kallsyms::parse(text).unwrap();
        assert_eq!(kallsyms.len(), 4);
        let hit = kallsyms.symbol_for(0xffff_ffff_8100_0c82).unwrap();
        assert_eq!(hit, KernelSymbol { name: "asm_exc_page_fault", offset: 0x12, module: None });
        assert_eq!(hit.label(), "asm_exc_page_fault+0x12");
        // The last kernel symbol ends a page on, not at the first module symbol.
        assert_eq!(kallsyms.symbol_for(0xffff_ffff_8100_2000), None);
        let module = kallsyms.symbol_for(0xffff_ffff_c0a0_1004).unwrap();
        assert_eq!((module.name, module.module), ("ext4_init_fs", Some("ext4")));
        assert_eq!(kallsyms.symbol_for(0xffff_ffff_80ff_ffff), None);
    }

    #[test]
    fn detection_is_by_line_shape_and_never_takes_a_profile() {
        let id = |text: &[u8]| crate::detect(text).ok().map(|d| d.format);
        assert_eq!(id(b"ffffffff81000000 T _stext\nffffffffc0a01000 t ext4_init_fs\t[ext4]\n"), Some(Format::Kallsyms));
        // Read without permission: still kallsyms, which says why it cannot be used.
        assert_eq!(id(b"0000000000000000 T _stext\n0000000000000000 t x\n"), Some(Format::Kallsyms));
        assert_eq!(id(b"1 main 0 1 main 4 0 1\n"), Some(Format::BoltFdata));
        assert_eq!(id(b"B 401000 401020 5 0\n"), Some(Format::BoltPreagg));
        // A symbol list has no addresses; a line with a fourth field is not kallsyms.
        assert_eq!(id(b"_Z3goov\nmain\n"), None);
        assert_eq!(id(b"ffffffff81000000 T _stext extra\n"), None);
        assert_eq!(id(b"\n\n"), None);
    }

    /// perf 6.1 `perf script` on this kernel named `ffffffff821f64a2` `__pi_memcpy` and
    /// `ffffffff81358d63` `__x64_sys_vfork`: the alias listed last.
    #[test]
    fn the_last_alias_is_kept() {
        let text = b"ffffffff81358d20 T __ia32_sys_vfork\n\
ffffffff81358d20 T __x64_sys_vfork\n\
ffffffff81358d80 T __ia32_sys_execve\n\
ffffffff821f64a0 T memcpy\n\
ffffffff821f64a0 T __pi_memcpy\n\
ffffffff821f64c0 T memmove\n";
        let kallsyms = Kallsyms::parse(text).unwrap();
        assert_eq!(kallsyms.symbol_for(0xffff_ffff_8135_8d63).unwrap().name, "__x64_sys_vfork");
        assert_eq!(kallsyms.symbol_for(0xffff_ffff_821f_64a2).unwrap().name, "__pi_memcpy");
        assert!(!kallsyms.has_module("ext4"));
    }

    #[test]
    fn bad_lines_say_where() {
        let err = |text: &[u8]| Kallsyms::parse(text).unwrap_err().location;
        use crate::error::Location::Line;
        assert_eq!(err(b"ffffffff81000000 T a\nxyz T b\n"), Line { line: 2, column: 1 });
        assert_eq!(err(b"ffffffff81000000"), Line { line: 1, column: 17 });
        assert_eq!(err(b"ffffffff81000000 TT a"), Line { line: 1, column: 18 });
        assert_eq!(err(b"ffffffff81000000 T"), Line { line: 1, column: 19 });
        assert_eq!(err(b"ffffffff81000000 T a ext4"), Line { line: 1, column: 22 });
        assert_eq!(err(b"ffffffff81000000 T a [ext4] more"), Line { line: 1, column: 29 });
        assert_eq!(err(b"1ffffffff81000000 T a"), Line { line: 1, column: 1 });
        assert_eq!(err(b"+1 T a"), Line { line: 1, column: 1 });
        assert_eq!(err(b"ffffffff81000000 T \xff"), Line { line: 1, column: 20 });
        assert_eq!(err(b"0000000000000000 T a\n0000000000000000 t b\n"), Line { line: 1, column: 1 });
        assert!(Kallsyms::parse(b"").unwrap().is_empty());
    }
}
