//! The search box's patterns: a substring, or a regex-lite between slashes.

/// Whether `name` matches `pattern`, ASCII case ignored. A pattern between slashes
/// (`/^std::.*push$/`) is a regex-lite: alternatives split by `|`, each with optional
/// `^` and `$` anchors, `.` for any byte and `*` for any number of the byte before
/// it. Any other pattern is a plain substring.
pub fn matches(pattern: &str, name: &str) -> bool {
    let name = name.as_bytes();
    match pattern.strip_prefix('/').and_then(|p| p.strip_suffix('/')) {
        Some(re) => re.split('|').any(|alt| regex_lite(alt.as_bytes(), name)),
        None => {
            let p = pattern.as_bytes();
            p.is_empty() || name.windows(p.len()).any(|w| w.eq_ignore_ascii_case(p))
        }
    }
}

// Rob Pike's matcher (The Practice of Programming, ch. 9), on bytes.
fn regex_lite(re: &[u8], text: &[u8]) -> bool {
    if let Some(rest) = re.strip_prefix(b"^") {
        return match_here(rest, text);
    }
    (0..=text.len()).any(|i| match_here(re, text.get(i..).unwrap_or_default()))
}

fn match_here(re: &[u8], text: &[u8]) -> bool {
    match re {
        [] => true,
        [b'$'] => text.is_empty(),
        [c, b'*', rest @ ..] => {
            let mut t = text;
            loop {
                if match_here(rest, t) {
                    return true;
                }
                match t.split_first() {
                    Some((&x, tail)) if byte_eq(*c, x) => t = tail,
                    _ => return false,
                }
            }
        }
        [c, rest @ ..] => match text.split_first() {
            Some((&x, tail)) if byte_eq(*c, x) => match_here(rest, tail),
            _ => false,
        },
    }
}

fn byte_eq(re: u8, x: u8) -> bool {
    re == b'.' || re.eq_ignore_ascii_case(&x)
}
