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
/// them (a deep recording's every stack node). In the browser a typed array
/// written and read a block at a time, so that neither the worker's wasm memory
/// nor the page's holds them whole beside what they are made from or into (wasm
/// memory never shrinks: a whole copy there stays the tab's for good). It is a
/// `Uint32Array` when the widest rectangle is narrower than `u32::MAX` (counted
/// samples: the root's frame, -1, kept as `u32::MAX`): half the bytes of a
/// `Float64Array`, 54 MB less in flight for a tree of 4.5M nodes; else a
/// `Float64Array`. Natively a `Vec<f64>`.
#[derive(Clone, Debug)]
pub struct Rects {
    #[cfg(not(target_arch = "wasm32"))]
    values: Vec<f64>,
    #[cfg(target_arch = "wasm32")]
    values: JsRects,
}

/// The browser's array of [`Rects`].
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Debug)]
enum JsRects {
    Narrow(js_sys::Uint32Array),
    Wide(js_sys::Float64Array),
}

impl Default for Rects {
    fn default() -> Self {
        Rects::collect(0, 0, [])
    }
}

/// Equal values (in the browser read out of both arrays: for tests, not for
/// layouts of millions).
impl PartialEq for Rects {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

/// A value as a `Uint32Array` keeps it (see [`Rects`]), if it can.
#[cfg_attr(all(not(target_arch = "wasm32"), not(test)), allow(dead_code))]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::float_cmp)] // checked whole and in range
fn narrow(v: f64) -> Option<u32> {
    if v == -1.0 {
        Some(u32::MAX)
    } else if (0.0..f64::from(u32::MAX)).contains(&v) && v.fract() == 0.0 {
        Some(v as u32)
    } else {
        None
    }
}

/// A value a `Uint32Array` kept, back.
#[cfg_attr(all(not(target_arch = "wasm32"), not(test)), allow(dead_code))]
fn widen(v: u32) -> f64 {
    if v == u32::MAX {
        -1.0
    } else {
        f64::from(v)
    }
}

impl Rects {
    /// Values per rectangle.
    pub const WIDTH: usize = 3;
    /// Values per block (64K rectangles: 1.5 MiB), a multiple of [`Rects::WIDTH`].
    const BLOCK: usize = Self::WIDTH << 16;

    /// The rectangles' values, `len` of them (more are dropped, fewer leave zeros):
    /// whole numbers from 0 to `largest` (the widest rectangle's, the root's
    /// total), and -1 for the root's frame. Below `u32::MAX` they are kept in 32
    /// bits; a value that does not fit them then, against that promise, reads back
    /// as -1.
    pub fn collect(len: usize, largest: u64, values: impl IntoIterator<Item = f64>) -> Rects {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let _ = largest;
            let mut out = Vec::with_capacity(len);
            out.extend(values.into_iter().take(len));
            out.resize(len, 0.0);
            Rects { values: out }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let total = u32::try_from(len).unwrap_or(u32::MAX);
            let js = if largest < u64::from(u32::MAX) {
                JsRects::Narrow(js_sys::Uint32Array::new_with_length(total))
            } else {
                JsRects::Wide(js_sys::Float64Array::new_with_length(total))
            };
            let mut block = Vec::with_capacity(Self::BLOCK.min(len));
            let mut narrow_block: Vec<u32> = Vec::new();
            let mut at = 0u32;
            let mut values = values.into_iter().take(len);
            loop {
                block.clear();
                block.extend(values.by_ref().take(Self::BLOCK));
                if block.is_empty() {
                    break;
                }
                let end = at.saturating_add(u32::try_from(block.len()).unwrap_or(u32::MAX));
                match &js {
                    JsRects::Narrow(array) => {
                        narrow_block.clear();
                        narrow_block.extend(block.iter().map(|&v| narrow(v).unwrap_or(u32::MAX)));
                        array.subarray(at, end).copy_from(&narrow_block);
                    }
                    JsRects::Wide(array) => array.subarray(at, end).copy_from(&block),
                }
                at = end;
            }
            Rects { values: js }
        }
    }

    /// How many values (three a rectangle).
    pub fn len(&self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        return self.values.len();
        #[cfg(target_arch = "wasm32")]
        return match &self.values {
            JsRects::Narrow(a) => a.length() as usize,
            JsRects::Wide(a) => a.length() as usize,
        };
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
            let len = u32::try_from(self.len()).unwrap_or(u32::MAX);
            let step = u32::try_from(Self::BLOCK).unwrap_or(u32::MAX);
            let mut block = vec![0.0; Self::BLOCK.min(len as usize)];
            let mut narrow_block = match &self.values {
                JsRects::Narrow(_) => vec![0u32; Self::BLOCK.min(len as usize)],
                JsRects::Wide(_) => Vec::new(),
            };
            let mut at = 0u32;
            while at < len {
                let end = at.saturating_add(step).min(len);
                let n = end.saturating_sub(at) as usize;
                let Some(part) = block.get_mut(..n) else { break };
                match &self.values {
                    JsRects::Wide(a) => a.subarray(at, end).copy_to(part),
                    JsRects::Narrow(a) => {
                        let Some(narrow) = narrow_block.get_mut(..n) else { break };
                        a.subarray(at, end).copy_to(narrow);
                        for (to, &v) in part.iter_mut().zip(narrow.iter()) {
                            *to = widen(v);
                        }
                    }
                }
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
        let largest = values.iter().copied().fold(0.0, f64::max);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // saturating: a bound
        Rects::collect(values.len(), largest as u64, values)
    }
}

impl Serialize for Rects {
    #[cfg(target_arch = "wasm32")]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let array: &wasm_bindgen::JsValue = match &self.values {
            JsRects::Narrow(a) => {
                crate::wire::transfer(a.buffer().into());
                a
            }
            JsRects::Wide(a) => {
                crate::wire::transfer(a.buffer().into());
                a
            }
        };
        serde_wasm_bindgen::preserve::serialize(array, s)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.values.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Rects {
    #[cfg(target_arch = "wasm32")]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use wasm_bindgen::JsCast;
        let value: wasm_bindgen::JsValue = serde_wasm_bindgen::preserve::deserialize(d)?;
        let values = match value.dyn_into::<js_sys::Uint32Array>() {
            Ok(a) => JsRects::Narrow(a),
            Err(value) => JsRects::Wide(
                value
                    .dyn_into()
                    .map_err(|_| serde::de::Error::custom("rectangles: neither a Uint32Array nor a Float64Array"))?,
            ),
        };
        Ok(Rects { values })
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
        let rects = Rects::collect(n, n as u64, values);
        assert_eq!(rects.len(), n);
        let mut blocks = Vec::new();
        rects.for_each_block(|b| blocks.push((b.len(), b.first().copied().unwrap_or(-1.0))));
        assert_eq!(blocks, [(Rects::BLOCK, 0.0), (Rects::BLOCK, Rects::BLOCK as f64), (8, (2 * Rects::BLOCK) as f64)]);
        assert_eq!(rects.to_vec(), (0..n).map(|i| i as f64).collect::<Vec<_>>());
        // Told a length, it keeps that many values.
        assert_eq!(Rects::collect(3, 1, [1.0; 5]).to_vec(), [1.0; 3]);
        assert_eq!(Rects::collect(3, 1, [1.0]).to_vec(), [1.0, 0.0, 0.0]);
        assert!(Rects::default().is_empty());
    }

    #[test]
    fn values_kept_in_32_bits_come_back_as_they_were() {
        for v in [0.0, 1.0, -1.0, 4_294_967_294.0, 123_456.0] {
            assert_eq!(narrow(v).map(widen), Some(v), "{v}");
        }
        // The root's frame is the one value kept as u32::MAX.
        assert_eq!(narrow(-1.0), Some(u32::MAX));
        for v in [4_294_967_295.0, 5e9, 0.5, -2.0, -0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(narrow(v), None, "{v}");
        }
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
