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
    // A symbol version (`memcpy@@GLIBC_2.14`) or a synthesized PLT entry
    // (`printf@plt`) follows the demangled name unchanged.
    let (symbol, suffix) = match name.find('@').and_then(|at| name.split_at_checked(at)) {
        Some(split) => split,
        None => (name, ""),
    };
    match demangle(symbol) {
        Some(mut out) => {
            out.push_str(suffix);
            Cow::Owned(out)
        }
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
    let text = symbol.demangle_with_options(&DemangleOptions::new().no_params().no_return_type()).ok()?;
    // Without parameters perf leaves out clone suffixes too: `foo.constprop.0` and
    // `foo.cold` are `foo`.
    let mut text = text.as_str();
    while let Some(start) = text.strip_suffix(']').and_then(|t| t.rfind(" [clone ")) {
        text = text.get(..start)?;
    }
    Some(literal_suffixes(text))
}

/// Integer literals in template arguments as perf (libiberty) writes them: `16u`,
/// `5l`, `-2`, where `cpp_demangle` writes `(unsigned int)16`; other types keep the
/// cast (`(char)97`).
fn literal_suffixes(text: &str) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, from)) = rest.find('(').and_then(|at| rest.split_at_checked(at)) {
        out.push_str(before);
        let literal = SUFFIXES.iter().find_map(|&(cast, suffix)| {
            let after = from.strip_prefix(cast)?;
            let digits = after.strip_prefix('-').unwrap_or(after);
            let count = digits.bytes().take_while(u8::is_ascii_digit).count();
            let number_len = after.len().checked_sub(digits.len())?.checked_add(count)?;
            let (number, rest) = after.split_at_checked(number_len)?;
            (count > 0).then_some((number, suffix, rest))
        });
        match literal {
            Some((number, suffix, after)) => {
                out.push_str(number);
                out.push_str(suffix);
                rest = after;
            }
            None => {
                out.push('(');
                rest = from.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
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
        assert_eq!(perf_name("_Z3fooi@@VER_1"), "foo@@VER_1");
        assert_eq!(perf_name("@"), "@");
    }

    /// `perf script -F ip,sym,dso` (perf 6.1) on a rustc 1.95 -O program, built with
    /// legacy and with v0 mangling: legacy names without their hash, v0 names without
    /// crate disambiguators but with their generic arguments.
    #[test]
    fn rust_names_as_perf_prints_them() {
        assert_eq!(perf_name("_ZN1r1W4fill17he216e31b61d55cfdE"), "r::W::fill");
        assert_eq!(
            perf_name("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha86af84d9cc65291E"),
            "std::rt::lang_start::{{closure}}"
        );
        assert_eq!(
            perf_name(
                "_ZN9hashbrown11rustc_entry62_$LT$impl$u20$hashbrown..map..HashMap$LT$K$C$V$C$S$C$A$GT$$GT$\
                 11rustc_entry17h27e619d60f68e30fE"
            ),
            "hashbrown::rustc_entry::<impl hashbrown::map::HashMap<K,V,S,A>>::rustc_entry"
        );
        assert_eq!(perf_name("_RNvMCs6GmmlP4bgsG_1rNtB2_1W4fill"), "<r::W>::fill");
        assert_eq!(perf_name("_RINvCs6GmmlP4bgsG_1r4spinmEB2_"), "r::spin::<u32>");
        assert_eq!(
            perf_name(
                "_RNvMNtCsgvbsrvnw3yD_9hashbrown11rustc_entryINtNtB4_3map7HashMapyyNtNtNtCsjrHSEGnQ3l9_3std4hash6random\
                 11RandomStateE11rustc_entryCs6GmmlP4bgsG_1r"
            ),
            "<hashbrown::map::HashMap<u64, u64, std::hash::random::RandomState>>::rustc_entry"
        );
    }

    /// `perf report --sort dso,sym` (perf 6.1) on a g++ 12 -O2 program whose hot
    /// functions are clones and templates with integer arguments.
    #[test]
    fn clones_and_literals_as_perf_report_prints_them() {
        assert_eq!(perf_name("_ZN12_GLOBAL__N_18local_fnEmi.constprop.0"), "(anonymous namespace)::local_fn");
        assert_eq!(perf_name("_Z2tpIN1S2InEEmPKT_m.isra.0"), "tp<S::In>");
        assert_eq!(perf_name("_Z4spinILj3ELln2ELc98EEmm"), "spin<3u, -2l, (char)98>");
        assert_eq!(perf_name("_Z4spinILj16ELl5ELc97EEmm"), "spin<16u, 5l, (char)97>");
        // `c++filt -p` (libiberty without DMGL_PARAMS, as perf calls it) for the rest.
        assert_eq!(perf_name("_Z1fILx5EEvv"), "f<5ll>");
        assert_eq!(perf_name("_Z1fILy5EEvv"), "f<5ull>");
        assert_eq!(perf_name("_Z1fILm5EEvv"), "f<5ul>");
        assert_eq!(perf_name("_Z1fILin5EEvv"), "f<-5>");
        assert_eq!(perf_name("_Z1fILs5EEvv"), "f<(short)5>");
        assert_eq!(perf_name("_Z1fILb1EEvv"), "f<true>");
        assert_eq!(perf_name("_Z3fooi.cold"), "foo");
        assert_eq!(literal_suffixes("a<(int)(long)-x, (unsigned int)"), "a<(int)(long)-x, (unsigned int)");
    }
}
