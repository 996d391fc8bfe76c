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
