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

/// A flame graph's rectangles: [`Rects::WIDTH`] `f64`s each, up to millions of
/// them (a deep recording's every stack node). In the browser a `Float64Array`
/// written and read a block at a time, so that neither the worker's wasm memory
/// nor the page's holds them whole beside what they are made from or into (wasm
/// memory never shrinks: a whole copy there stays the tab's for good). Natively
/// a `Vec<f64>`.
#[derive(Clone, Debug)]
pub struct Rects {
    #[cfg(not(target_arch = "wasm32"))]
    values: Vec<f64>,
    #[cfg(target_arch = "wasm32")]
    values: js_sys::Float64Array,
}

impl Default for Rects {
    fn default() -> Self {
        Rects::collect(0, [])
    }
}

/// Equal values (in the browser read out of both arrays: for tests, not for
/// layouts of millions).
impl PartialEq for Rects {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

impl Rects {
    /// Values per rectangle.
    pub const WIDTH: usize = 3;
    /// Values per block (64K rectangles: 1.5 MiB), a multiple of [`Rects::WIDTH`].
    const BLOCK: usize = Self::WIDTH << 16;

    /// The rectangles' values, `len` of them (more are dropped, fewer leave zeros).
    pub fn collect(len: usize, values: impl IntoIterator<Item = f64>) -> Rects {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut out = Vec::with_capacity(len);
            out.extend(values.into_iter().take(len));
            out.resize(len, 0.0);
            Rects { values: out }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let js = js_sys::Float64Array::new_with_length(u32::try_from(len).unwrap_or(u32::MAX));
            let mut block = Vec::with_capacity(Self::BLOCK.min(len));
            let mut at = 0u32;
            let mut values = values.into_iter().take(len);
            loop {
                block.clear();
                block.extend(values.by_ref().take(Self::BLOCK));
                if block.is_empty() {
                    break;
                }
                let end = at.saturating_add(u32::try_from(block.len()).unwrap_or(u32::MAX));
                js.subarray(at, end).copy_from(&block);
                at = end;
            }
            Rects { values: js }
        }
    }

    /// How many values (four a rectangle).
    pub fn len(&self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        return self.values.len();
        #[cfg(target_arch = "wasm32")]
        return self.values.length() as usize;
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `each` with the values in order, a block at a time; each block holds
    /// whole rectangles.
    pub fn for_each_block(&self, mut each: impl FnMut(&[f64])) {
        #[cfg(not(target_arch = "wasm32"))]
        for block in self.values.chunks(Self::BLOCK) {
            each(block);
        }
        #[cfg(target_arch = "wasm32")]
        {
            let len = self.values.length();
            let step = u32::try_from(Self::BLOCK).unwrap_or(u32::MAX);
            let mut block = vec![0.0; Self::BLOCK.min(len as usize)];
            let mut at = 0u32;
            while at < len {
                let end = at.saturating_add(step).min(len);
                let Some(part) = block.get_mut(..end.saturating_sub(at) as usize) else { break };
                self.values.subarray(at, end).copy_to(part);
                each(part);
                at = end;
            }
        }
    }

    /// Every value (tests, small layouts).
    pub fn to_vec(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each_block(|b| out.extend_from_slice(b));
        out
    }
}

impl From<Vec<f64>> for Rects {
    fn from(values: Vec<f64>) -> Self {
        Rects::collect(values.len(), values)
    }
}

impl Serialize for Rects {
    #[cfg(target_arch = "wasm32")]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::wire::transfer(self.values.buffer().into());
        serde_wasm_bindgen::preserve::serialize(&self.values, s)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.values.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Rects {
    #[cfg(target_arch = "wasm32")]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Rects { values: serde_wasm_bindgen::preserve::deserialize(d)? })
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Rects { values: Vec::deserialize(d)? })
    }
}

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
    fn rects_keep_their_values_in_blocks_of_whole_rectangles() {
        let n = Rects::BLOCK * 2 + 8;
        let values = (0..n).map(|i| i as f64);
        let rects = Rects::collect(n, values);
        assert_eq!(rects.len(), n);
        let mut blocks = Vec::new();
        rects.for_each_block(|b| blocks.push((b.len(), b.first().copied().unwrap_or(-1.0))));
        assert_eq!(blocks, [(Rects::BLOCK, 0.0), (Rects::BLOCK, Rects::BLOCK as f64), (8, (2 * Rects::BLOCK) as f64)]);
        assert_eq!(rects.to_vec(), (0..n).map(|i| i as f64).collect::<Vec<_>>());
        // Told a length, it keeps that many values.
        assert_eq!(Rects::collect(3, [1.0; 5]).to_vec(), [1.0; 3]);
        assert_eq!(Rects::collect(3, [1.0]).to_vec(), [1.0, 0.0, 0.0]);
        assert!(Rects::default().is_empty());
    }

    #[test]
    fn a_layout_keeps_only_the_self_weights_that_are_not_0() {
        #[rustfmt::skip]
        let quads = [
            0.0, 10.0, 0.0, -1.0,
            0.0, 6.0, 1.0, 4.0,   6.0, 4.0, 0.0, 2.0,
            0.0, 5.0, 5.0, 7.0,   6.0, 4.0, 4.0, 9.0,
        ];
        let layout = crate::FlameLayout::from_quads(&quads, vec![0, 1, 3, 5]);
        assert_eq!((layout.len(), layout.rects.len()), (5, 5 * Rects::WIDTH));
        assert_eq!(layout.rects.to_vec().get(3..6), Some(&[0.0, 6.0, 4.0][..]));
        assert_eq!(
            (layout.self_rects.0.as_slice(), layout.self_weights.0.as_slice()),
            (&[1, 3, 4][..], &[1.0, 5.0, 4.0][..])
        );
        assert_eq!(layout.to_quads(), quads);
        assert!(crate::FlameLayout::default().is_empty());
    }

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
