//! Readable function names: Itanium C++ (`_Z…`, through `cpp_demangle`) and Rust
//! (v0 `_R…` and legacy `_ZN…17h<hash>E`, through `rustc-demangle`), with the
//! PGO name's local-linkage prefix (`file;name`, `file:name` before LLVM 13) moved
//! behind the name.
//!
//! ```text
//! progA/main.cpp;_ZL3mixi      →  mix(int) [progA/main.cpp]
//! _ZN5small4main17h0123…E      →  small::main
//! _RNvCs1234_5small4main       →  small::main
//! main                         →  (unchanged: None)
//! ```

use alloc::string::String;
use core::fmt::Write;

/// The demangled form of a PGO name, or `None` when it reads the same as the raw
/// name (a C name, or one no demangler accepts).
pub fn demangle(name: &[u8]) -> Option<String> {
    let (file, symbol) = split_local(name);
    let symbol_text = core::str::from_utf8(symbol).ok()?;
    let mut out = String::new();
    if let Ok(rust) = rustc_demangle::try_demangle(symbol_text) {
        // `{:#}` leaves out the legacy hash suffix.
        write!(out, "{rust:#}").ok()?;
    } else if symbol.starts_with(b"_Z") {
        match cpp_demangle::Symbol::new(symbol).ok().and_then(|s| s.demangle().ok()) {
            Some(cpp) => out.push_str(&cpp),
            None => out.push_str(symbol_text),
        }
    } else {
        out.push_str(symbol_text);
    }
    if let Some(file) = file {
        out.push_str(" [");
        out.push_str(&String::from_utf8_lossy(file));
        out.push(']');
    }
    (out.as_bytes() != name).then_some(out)
}

/// Splits `file;name` (or the older `file:name`) into the file and the symbol.
/// Mangled names never hold `;` or `:`, so the last one is the separator.
fn split_local(name: &[u8]) -> (Option<&[u8]>, &[u8]) {
    let at = name.iter().rposition(|&b| b == b';').or_else(|| name.iter().rposition(|&b| b == b':'));
    match at {
        Some(at) => match (name.get(..at), name.get(at.saturating_add(1)..)) {
            (Some(file), Some(symbol)) if !file.is_empty() && !symbol.is_empty() => (Some(file), symbol),
            _ => (None, name),
        },
        None => (None, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_rust_and_local_names() {
        assert_eq!(demangle(b"_ZNK3geo6Circle4nameEv").as_deref(), Some("geo::Circle::name() const"));
        assert_eq!(demangle(b"progA/main.cpp;_ZL3mixi").as_deref(), Some("mix(int) [progA/main.cpp]"));
        assert_eq!(demangle(b"progB/vm.c:helper").as_deref(), Some("helper [progB/vm.c]"));
        assert_eq!(demangle(b"_ZN5small4main17h0123456789abcdefE").as_deref(), Some("small::main"));
        assert_eq!(demangle(b"_RNvCs1234_5small4main").as_deref(), Some("small::main"));
        assert_eq!(demangle(b"main"), None);
        assert_eq!(demangle(b"_Zgarbage"), None);
        assert_eq!(demangle(b"\xff\xfe"), None);
        assert_eq!(demangle(b";"), None);
    }
}
