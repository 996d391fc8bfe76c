//! The view as a link: what is on screen, written into the URL fragment and read
//! back from it (a reload, back and forward, a shared link).
//!
//! A fragment is `key=value` parameters joined by `&`, values percent-encoded (so
//! a name or a search may hold any character). The page's own keys:
//!
//! - `file` (repeatable): an open file as `SIZE.ID.NAME`, ID being the first
//!   [`ID_DIGITS`] hex digits of its [`fingerprint`](crate::app::Doc::fingerprint)
//!   (empty until known); NAME is the rest, dots included.
//! - `url` (repeatable): a file to fetch (a profile and its binaries).
//! - `data` (repeatable): the k-th one is the k-th `file`'s bytes, raw-deflated and
//!   base64url-encoded (a Share link of a small profile).
//! - `doc`: the shown file, as its index among the `file`s; `tab`: its view
//!   ([`crate::views::id`]).
//!
//! Every other key belongs to the shown view, which writes and reads its own part
//! ([`Params::get`], [`Params::push`]). Fragments are never trusted: an unknown key,
//! a malformed value or an absent file is ignored (and said), never an error.

use std::fmt::Write as _;

/// Hex digits of a file's fingerprint kept in a link: 48 bits, so a different file
/// of the same size passing for the linked one is a one-in-10^14 accident.
pub const ID_DIGITS: usize = 12;

/// A link's parameters, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Reads a fragment (with or without its leading `#`); pieces without `=` are
    /// keys with an empty value, and bad percent escapes are kept as written.
    pub fn parse(fragment: &str) -> Params {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let params = fragment
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (key, value) = p.split_once('=').unwrap_or((p, ""));
                (decode(key), decode(value))
            })
            .collect();
        Params(params)
    }

    /// The fragment, without its `#`.
    pub fn fragment(&self) -> String {
        let mut out = String::new();
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            encode_into(&mut out, key);
            out.push('=');
            encode_into(&mut out, value);
        }
        out
    }

    pub fn push(&mut self, key: &str, value: impl Into<String>) {
        self.0.push((key.to_string(), value.into()));
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0.iter().filter(move |(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// `key`'s first value as a number.
    pub fn number<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.get(key)?.parse().ok()
    }

    /// `key`'s first value as comma-separated numbers (`None` if any is not one).
    pub fn numbers<T: std::str::FromStr>(&self, key: &str) -> Option<Vec<T>> {
        self.get(key)?.split(',').map(|n| n.parse().ok()).collect()
    }

    /// A flag: present with value `1`.
    pub fn flag(&self, key: &str) -> bool {
        self.get(key) == Some("1")
    }
}

/// Keys whose change is a step of its own in the browser's history (back returns
/// before it); changes of the others (what is typed, zooms, files hashed or added)
/// replace the current entry.
const STEPS: [&str; 14] = [
    "doc",
    "tab",
    "node",
    "row",
    "sort",
    "sandwich",
    "inverted",
    "event",
    "function",
    "block",
    "frame",
    "transforms",
    "order",
    "bottom-up",
];

/// Whether going from `old` to `new` is a step back and forward should stop at.
pub fn is_step(old: &Params, new: &Params) -> bool {
    STEPS.iter().any(|&key| {
        // A table's first page names its default order: that is not a step.
        let resolved = key == "sort" && old.get(key).is_none();
        !resolved && old.all(key).ne(new.all(key))
    })
}

/// An open file as a link names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub name: String,
    pub size: u64,
    /// Hex digits of the fingerprint (lowercase; empty: not known when linked).
    pub id: String,
}

impl FileRef {
    pub fn parse(value: &str) -> Option<FileRef> {
        let (size, rest) = value.split_once('.')?;
        let (id, name) = rest.split_once('.')?;
        let id_ok = id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit());
        let size = size.parse().ok()?;
        (id_ok && !name.is_empty()).then(|| FileRef { name: name.to_string(), size, id: id.to_ascii_lowercase() })
    }

    pub fn value(&self) -> String {
        format!("{}.{}.{}", self.size, self.id, self.name)
    }

    /// Whether a file of this size and fingerprint is this one: the sizes are equal,
    /// and the fingerprints are when both are known.
    pub fn matches(&self, size: u64, fingerprint: Option<&str>) -> bool {
        self.size == size
            && match fingerprint {
                Some(f) if !self.id.is_empty() => {
                    f.get(..self.id.len()).is_some_and(|p| p.eq_ignore_ascii_case(&self.id))
                }
                _ => true,
            }
    }
}

/// Unescapes `%XX` (and leaves anything else, a stray `%` included, as it is).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match hex.filter(|_| b == b'%').and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Escapes all but what a fragment keeps readable and unambiguous: letters, digits
/// and `-._~!$'()*+,;:@/?` (RFC 3986's fragment characters, less `&` and `=`).
fn encode_into(out: &mut String, text: &str) {
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$'()*+,;:@/?".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_round_trip_any_text() {
        let mut params = Params::default();
        params.push("file", FileRef { name: "perf data&x=1#%.txt".into(), size: 42, id: "ab12".into() }.value());
        params.push("search", "std::vector<int>::push_back é");
        params.push("empty", "");
        let fragment = params.fragment();
        assert!(!fragment.contains('#') && !fragment.contains(' '), "{fragment}");
        assert_eq!(fragment.matches('&').count(), 2, "{fragment}");
        assert_eq!(Params::parse(&format!("#{fragment}")), params);
        let file = FileRef::parse(params.get("file").unwrap()).unwrap();
        assert_eq!((file.name.as_str(), file.size, file.id.as_str()), ("perf data&x=1#%.txt", 42, "ab12"));
    }

    #[test]
    fn malformed_fragments_are_read_as_far_as_they_make_sense() {
        let params = Params::parse("#a&b=%zz&=c&&d=%4");
        assert_eq!(params.get("a"), Some(""));
        assert_eq!(params.get("b"), Some("%zz"));
        assert_eq!(params.get(""), Some("c"));
        assert_eq!(params.get("d"), Some("%4"));
        // A byte escape that is not UTF-8 does not fail the fragment.
        assert_eq!(Params::parse("x=%ff").get("x"), Some("\u{fffd}"));
        assert_eq!(FileRef::parse("12.zz.name"), None);
        assert_eq!(FileRef::parse("x.ab.name"), None);
        assert_eq!(FileRef::parse("12.ab."), None);
        assert_eq!(FileRef::parse("12.ab.a.b.c").map(|f| f.name), Some("a.b.c".into()));
        assert_eq!(Params::parse("z=1,2,x").numbers::<u32>("z"), None);
        assert_eq!(Params::parse("z=1,2,3").numbers::<u32>("z"), Some(vec![1, 2, 3]));
    }

    #[test]
    fn selections_are_history_steps_and_typing_is_not() {
        let old = Params::parse("file=1.ab.a&doc=0&tab=flame&search=ma&zoom=0,10,0");
        assert!(!is_step(&old, &Params::parse("file=1.abcd.a&file=2..b&doc=0&tab=flame&search=main&zoom=0,5,1")));
        assert!(is_step(&old, &Params::parse("file=1.ab.a&doc=0&tab=functions")));
        assert!(is_step(&old, &Params::parse("file=1.ab.a&doc=0&tab=flame&search=ma&zoom=0,10,0&frame=3")));
        assert!(is_step(&old, &Params::parse("file=1.ab.a&doc=1&tab=flame&search=ma&zoom=0,10,0")));
        let table = Params::parse("doc=0&tab=functions");
        assert!(!is_step(&table, &Params::parse("doc=0&tab=functions&sort=-total")), "the default order came");
        let sorted = Params::parse("doc=0&tab=functions&sort=-total");
        assert!(is_step(&sorted, &Params::parse("doc=0&tab=functions&sort=name")));
        // A transform, an order, a direction: back undoes them.
        let stacks = Params::parse("doc=0&tab=call-tree");
        assert!(is_step(&stacks, &Params::parse("doc=0&tab=call-tree&transforms=mf-3")));
        assert!(is_step(&stacks, &Params::parse("doc=0&tab=call-tree&bottom-up=1")));
        assert!(is_step(&stacks, &Params::parse("doc=0&tab=call-tree&order=heaviest")));
    }

    #[test]
    fn a_file_matches_by_size_and_fingerprint_prefix() {
        let file = FileRef { name: "a".into(), size: 10, id: "AB12".to_ascii_lowercase() };
        assert!(file.matches(10, Some("ab12ffff")));
        assert!(file.matches(10, Some("AB12ffff")));
        assert!(!file.matches(10, Some("ab13ffff")));
        assert!(!file.matches(11, Some("ab12ffff")));
        // Not hashed yet (or not linked with an id): the size decides.
        assert!(file.matches(10, None));
        assert!(FileRef { id: String::new(), ..file }.matches(10, Some("99")));
    }
}
