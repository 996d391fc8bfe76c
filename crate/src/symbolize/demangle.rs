//! Function names as `perf report` and `perf script` print them: demangled, without
//! parameter lists or return types (perf demangles without `DMGL_PARAMS` unless it
//! runs verbose), Rust names without their hash.
//!
//! ```text
//! _ZN3geo3Tri4areaEv                       →  geo::Tri::area
//! _Z10quick_sortIN9__gnu_cxx…EvT_S8_T0_    →  quick_sort<__gnu_cxx::__normal_iterator<int*, …>, main::$_0>
//! _ZN5small4main17h0123…E                  →  small::main
//! _ZSt9terminatev@plt                      →  std::terminate@plt
//! main                                     →  main
//! ```
//!
//! The function tables use [`crate::model::demangle`], which keeps the parameters.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt::Write;

use cpp_demangle::DemangleOptions;

/// `name` demangled the way perf shows it; borrowed when nothing changes (C names,
/// names no demangler accepts).
pub fn perf_name(name: &str) -> Cow<'_, str> {
    // A synthesized PLT entry: the target's name, then `@plt`.
    if let Some(target) = name.strip_suffix("@plt") {
        return match demangle(target) {
            Some(mut out) => {
                out.push_str("@plt");
                Cow::Owned(out)
            }
            None => Cow::Borrowed(name),
        };
    }
    match demangle(name) {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(name),
    }
}

fn demangle(name: &str) -> Option<String> {
    if !(name.starts_with("_Z") || name.starts_with("_R") || name.starts_with("__Z")) {
        return None;
    }
    let mut out = String::new();
    if let Ok(rust) = rustc_demangle::try_demangle(name) {
        // A C++ name can read as a legacy Rust path (`_ZN3geo3Tri4areaEv` → `geo::Tri::area`)
        // only when it has no parameters, which perf would not print either.
        write!(out, "{rust:#}").ok()?;
        return Some(out);
    }
    let symbol = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
    symbol.demangle_with_options(&DemangleOptions::new().no_params().no_return_type()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_perf_prints_them() {
        assert_eq!(perf_name("_ZN3geo3Tri4areaEv"), "geo::Tri::area");
        assert_eq!(perf_name("_ZNK3geo6Circle4nameEv"), "geo::Circle::name");
        assert_eq!(perf_name("_ZN5small4main17h0123456789abcdefE"), "small::main");
        assert_eq!(perf_name("_RNvCs1234_5small4main"), "small::main");
        assert_eq!(perf_name("_ZSt9terminatev@plt"), "std::terminate@plt");
        assert_eq!(perf_name("memmove@plt"), "memmove@plt");
        assert!(matches!(perf_name("main"), Cow::Borrowed("main")));
        assert_eq!(perf_name("_Zgarbage"), "_Zgarbage");
    }
}
