//! Bulk numeric arrays. In the browser each is one typed array whose buffer joins the
//! message's transfer list ([`crate::wire`]), so a flame graph's rectangles or a hex
//! window cross between the worker and the page without a structured-clone copy.
//! Natively they serialize as plain sequences.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! bulk {
    ($(#[$doc:meta])* $name:ident, $elem:ty, $js:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name(pub Vec<$elem>);

        impl From<Vec<$elem>> for $name {
            fn from(v: Vec<$elem>) -> Self {
                $name(v)
            }
        }

        impl Serialize for $name {
            #[cfg(target_arch = "wasm32")]
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let array = js_sys::$js::from(self.0.as_slice());
                crate::wire::transfer(array.buffer().into());
                serde_wasm_bindgen::preserve::serialize(&array, s)
            }

            #[cfg(not(target_arch = "wasm32"))]
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(s)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            #[cfg(target_arch = "wasm32")]
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let array: js_sys::$js = serde_wasm_bindgen::preserve::deserialize(d)?;
                Ok($name(array.to_vec()))
            }

            #[cfg(not(target_arch = "wasm32"))]
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Vec::deserialize(d).map($name)
            }
        }
    };
}

bulk!(
    /// `f64`s: a `Float64Array` in the browser.
    F64Array, f64, Float64Array
);
bulk!(
    /// `u32`s: a `Uint32Array` in the browser.
    U32Array, u32, Uint32Array
);
bulk!(
    /// Bytes: a `Uint8Array` in the browser.
    Bytes, u8, Uint8Array
);

impl Eq for U32Array {}
impl Eq for Bytes {}

/// Strings packed end to end: string `i` is `text[ends[i - 1]..ends[i]]`. In the
/// browser the text is one transferred `Uint8Array` and the ends a `Uint32Array`, where
/// a `Vec<String>` would be one JS string per entry, each decoded to UTF-16 by the
/// sender and encoded back by the receiver: for a recording's tens of thousands of
/// frame names, most of the time a reply took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strings {
    text: String,
    ends: Vec<u32>,
}

impl Strings {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i`; `None` past the end.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)? as usize,
            None => 0,
        };
        // Ends are checked on arrival (in order, on character boundaries).
        self.text.get(start..end)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// Appends `s`. A text past 4 GiB cannot be indexed by `u32` ends: the string is
    /// then stored empty (no message comes near it).
    pub fn push(&mut self, s: &str) {
        if u32::try_from(self.text.len().saturating_add(s.len())).is_ok() {
            self.text.push_str(s);
        }
        self.ends.push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    /// Packs `text` and `ends` if every end is a character boundary of `text` no
    /// smaller than the one before.
    fn from_parts(text: String, ends: Vec<u32>) -> Option<Strings> {
        let mut last = 0usize;
        for &end in &ends {
            let end = end as usize;
            if end < last || !text.is_char_boundary(end) {
                return None;
            }
            last = end;
        }
        Some(Strings { text, ends })
    }
}

impl<S: AsRef<str>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut out = Strings::default();
        for s in iter {
            out.push(s.as_ref());
        }
        out
    }
}

/// The wire form of [`Strings`].
#[derive(Serialize, Deserialize)]
struct PackedStrings {
    text: Bytes,
    ends: U32Array,
}

impl Serialize for Strings {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        PackedStrings { text: Bytes(self.text.as_bytes().to_vec()), ends: U32Array(self.ends.clone()) }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let packed = PackedStrings::deserialize(d)?;
        let text = String::from_utf8(packed.text.0).map_err(serde::de::Error::custom)?;
        Strings::from_parts(text, packed.ends.0)
            .ok_or_else(|| serde::de::Error::custom("string ends out of order or inside a character"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_keep_each_entry_empty_ones_included() {
        let s: Strings = ["main", "", "é→x", ""].into_iter().collect();
        assert_eq!(s.len(), 4);
        assert_eq!(s.iter().collect::<Vec<_>>(), ["main", "", "é→x", ""]);
        assert_eq!(s.get(2), Some("é→x"));
        assert_eq!(s.get(4), None);
        assert!(Strings::default().is_empty());
    }

    #[test]
    fn strings_refuse_ends_out_of_order_or_inside_a_character() {
        let text = String::from("aé");
        assert!(Strings::from_parts(text.clone(), vec![1, 3]).is_some());
        assert!(Strings::from_parts(text.clone(), vec![2]).is_none(), "inside é");
        assert!(Strings::from_parts(text.clone(), vec![3, 1]).is_none(), "out of order");
        assert!(Strings::from_parts(text, vec![4]).is_none(), "past the end");
    }
}
