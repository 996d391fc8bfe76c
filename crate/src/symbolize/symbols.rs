//! A symbol table sorted by address, with the sizes and aliases settled the way
//! `perf` settles them, so that an address finds the name `perf report` shows.
//!
//! The rules (observed in perf 6.1's output and its documented behaviour):
//! - several symbols at one address are aliases; one is kept. In a binary it is chosen
//!   in this order: a non-zero size, not weak, global, fewer leading underscores, the
//!   longer name. In kallsyms the last one listed is kept (perf 6.1 names
//!   `ffffffff821f64a0 T memcpy` / `T __pi_memcpy` `__pi_memcpy`);
//! - a symbol of size 0 ends where the next symbol starts; the last one, and the last
//!   one before a change of kernel module, ends one page past its start's page.
//!
//! Addresses are whatever space the symbols were read in: ELF virtual addresses for
//! a binary, kernel addresses for `/proc/kallsyms`.

use alloc::borrow::Cow;
use alloc::vec::Vec;

/// How a symbol binds (`STB_*`), which decides between aliases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    Local,
    Global,
    Weak,
}

/// One function (or code label) and the addresses it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol<'a> {
    pub start: u64,
    /// One past the last address. Equal to `start` for a zero-sized symbol until
    /// [`Symbols::new`] extends it.
    pub end: u64,
    /// The raw (mangled) name.
    pub name: Cow<'a, str>,
    pub binding: Binding,
    /// The kernel module of a kallsyms symbol (`[ext4]` → `ext4`).
    pub module: Option<&'a str>,
}

impl Symbol<'_> {
    fn size(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// Which of several symbols at one address is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aliases {
    /// By size, binding, underscores and length (ELF symbol tables).
    Best,
    /// The last one listed (kallsyms).
    Last,
}

/// Symbols sorted by start address, one per address, none of size 0.
#[derive(Clone, Debug, Default)]
pub struct Symbols<'a> {
    list: Vec<Symbol<'a>>,
}

const PAGE: u64 = 4096;

impl<'a> Symbols<'a> {
    /// Sorts `list`, keeps the best alias at each address and gives every zero-sized
    /// symbol an end.
    pub fn new(mut list: Vec<Symbol<'a>>, aliases: Aliases) -> Self {
        // Stable: among equally good aliases the one read first stays.
        list.sort_by_key(|s| s.start);
        let mut kept: Vec<Symbol<'a>> = Vec::with_capacity(list.len());
        for symbol in list {
            match kept.last_mut() {
                Some(last) if last.start == symbol.start => {
                    if aliases == Aliases::Last || better_alias(&symbol, last) {
                        *last = symbol;
                    }
                }
                _ => kept.push(symbol),
            }
        }
        // Back to front, so each symbol knows where the next one starts.
        let mut next: Option<(u64, Option<&'a str>)> = None;
        for symbol in kept.iter_mut().rev() {
            if symbol.end <= symbol.start {
                symbol.end = match next {
                    Some((start, module)) if module == symbol.module => start,
                    _ => page_after(symbol.start),
                };
            }
            next = Some((symbol.start, symbol.module));
        }
        Symbols { list: kept }
    }

    /// The symbol whose range holds `address`.
    pub fn find(&self, address: u64) -> Option<&Symbol<'a>> {
        self.find_index(address).and_then(|index| self.list.get(index))
    }

    /// The index (in address order) of the symbol whose range holds `address`.
    pub fn find_index(&self, address: u64) -> Option<usize> {
        let index = self.list.partition_point(|s| s.start <= address).checked_sub(1)?;
        (address < self.list.get(index)?.end).then_some(index)
    }

    pub fn get(&self, index: usize) -> Option<&Symbol<'a>> {
        self.list.get(index)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn iter(&self) -> core::slice::Iter<'_, Symbol<'a>> {
        self.list.iter()
    }
}

/// The end given to a zero-sized symbol that nothing follows: the end of the page
/// after the one it starts in.
fn page_after(start: u64) -> u64 {
    start.checked_next_multiple_of(PAGE).map_or(u64::MAX, |page| page.saturating_add(PAGE))
}

/// Whether `new` should replace `old`, an alias at the same address.
fn better_alias(new: &Symbol<'_>, old: &Symbol<'_>) -> bool {
    if (new.size() == 0) != (old.size() == 0) {
        return new.size() != 0;
    }
    let weak = |s: &Symbol<'_>| s.binding == Binding::Weak;
    if weak(new) != weak(old) {
        return !weak(new);
    }
    let global = |s: &Symbol<'_>| s.binding == Binding::Global;
    if global(new) != global(old) {
        return global(new);
    }
    let underscores = |s: &Symbol<'_>| s.name.bytes().take_while(|&b| b == b'_').count();
    if underscores(new) != underscores(old) {
        return underscores(new) < underscores(old);
    }
    new.name.len() > old.name.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(start: u64, size: u64, name: &'static str, binding: Binding) -> Symbol<'static> {
        Symbol { start, end: start + size, name: Cow::Borrowed(name), binding, module: None }
    }

    #[test]
    fn aliases_and_zero_sizes() {
        let list = alloc::vec![
            sym(0x1030, 0, "label", Binding::Local),
            sym(0x1000, 0x10, "__weak_alias", Binding::Weak),
            sym(0x1000, 0x10, "strong", Binding::Global),
            sym(0x1000, 0, "zero", Binding::Global),
            sym(0x1010, 0x8, "_local", Binding::Local),
            sym(0x1010, 0x8, "local", Binding::Local),
        ];
        let symbols = Symbols::new(list.clone(), Aliases::Best);
        let names: Vec<_> = symbols.iter().map(|s| (s.start, s.end, &*s.name)).collect();
        assert_eq!(names, [(0x1000, 0x1010, "strong"), (0x1010, 0x1018, "local"), (0x1030, 0x3000, "label")]);
        assert_eq!(symbols.find(0x100f).map(|s| &*s.name), Some("strong"));
        assert_eq!(symbols.find(0x1018), None, "a gap between a sized symbol and the next");
        assert_eq!(symbols.find(0x2fff).map(|s| &*s.name), Some("label"));
        assert_eq!(symbols.find(0xfff), None);
        assert_eq!(symbols.find(u64::MAX), None);

        let last = Symbols::new(list, Aliases::Last);
        let names: Vec<_> = last.iter().map(|s| &*s.name).collect();
        assert_eq!(names, ["zero", "local", "label"]);
    }

    #[test]
    fn a_module_change_ends_the_last_symbol_of_the_kernel() {
        let mut core_symbol = sym(0xffff_ffff_8100_0000, 0, "_stext", Binding::Global);
        let mut module_symbol = sym(0xffff_ffff_c000_0010, 0, "ext4_init", Binding::Global);
        core_symbol.module = None;
        module_symbol.module = Some("ext4");
        let symbols = Symbols::new(alloc::vec![module_symbol, core_symbol], Aliases::Best);
        assert_eq!(symbols.find(0xffff_ffff_8100_0fff).map(|s| &*s.name), Some("_stext"));
        assert_eq!(symbols.find(0xffff_ffff_8100_1000), None);
        assert_eq!(page_after(u64::MAX - 1), u64::MAX);
    }
}
