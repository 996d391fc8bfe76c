//! The extensible binary format's sections about the profile's functions rather
//! than their samples: the function offset table (checked against the next
//! profile section), the function metadata (checksums, attributes, and the same
//! for inlined callsites) and the profile symbol list.

use alloc::vec::Vec;

use hashbrown::HashMap;

use super::{callee_at, key, Decoder, Held, Key, PendingOffset, ShowFunction, MIN_PAIR, MIN_TRIPLE};
use crate::dump::Text;
use crate::error::{Error, Result};
use crate::formats::sample::binary::{Label, ListKind};
use crate::formats::sample::model::{FunctionSamples, LineLocation, Name, NameId};
use crate::read::Reader;

impl Decoder<'_> {
    /// `readFuncOffsetTable`: checked against the next profile section.
    pub(super) fn offset_table(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        self.pending_offsets.clear();
        let count = self.count64(r, "NumFunctions", MIN_PAIR)?;
        let mut list = self.trace.list(ListKind::OffsetEntries);
        let (first, stop) = self.trace.seek(&list, r)?;
        for i in first..count {
            let start = r.offset();
            if start >= stop {
                break;
            }
            self.trace.item_begin(&mut list, start);
            self.trace.open();
            let (name, context) = self.function_id(r)?;
            let offset_at = r.offset();
            let offset = self.num(r, "Offset")?;
            self.trace.close(
                Label::Nth("entry", i),
                start,
                r.offset(),
                format_args!("{} at {offset}", ShowFunction { name, context: &context, names: &self.profile.names }),
            );
            self.trace.item_end(&mut list);
            // Checked later, outside this section: an offset inside a compressed one
            // is reported at its payload, as errors in it are.
            let at = self.payload_at.unwrap_or(offset_at);
            self.pending_offsets.push(PendingOffset { offset, at });
        }
        self.trace.list_end(list, r.offset());
        Ok(Held(count, "functions"))
    }

    /// Every pending offset must be where a function of the section starts.
    pub(super) fn check_offsets(&mut self, starts: &[u64]) -> Result<()> {
        for pending in core::mem::take(&mut self.pending_offsets) {
            if starts.binary_search(&pending.offset).is_err() {
                return Err(Error::invalid(
                    pending.at,
                    "a function offset where a function of the profile section starts",
                    pending.offset,
                ));
            }
        }
        Ok(())
    }

    /// `readFuncMetadata`: records to the end of the section, each applied to the
    /// function already read with its name or context (none: read and dropped).
    pub(super) fn metadata(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        let mut index: HashMap<Key, usize> = HashMap::with_capacity(self.profile.functions.len());
        for (i, f) in self.profile.functions.iter().enumerate() {
            index.insert(key(f.name, &f.context), i);
        }
        let mut list = self.trace.list(ListKind::MetadataRecords);
        let (mut count, stop) = self.trace.seek(&list, r)?;
        while !r.is_empty() && r.offset() < stop {
            let start = r.offset();
            self.trace.item_begin(&mut list, start);
            self.trace.open();
            let (name, context) = self.function_id(r)?;
            let target = index.get(&key(name, &context)).copied();
            // Taken out while its metadata is read into it, then put back.
            let mut f = target.and_then(|i| self.profile.functions.get_mut(i)).map(core::mem::take);
            let result = self.function_metadata(r, f.as_mut(), 0);
            if let (Some(i), Some(f)) = (target, f) {
                if let Some(slot) = self.profile.functions.get_mut(i) {
                    *slot = f;
                }
            }
            result?;
            self.trace.close(
                Label::Nth("record", count),
                start,
                r.offset(),
                ShowFunction { name, context: &context, names: &self.profile.names },
            );
            self.trace.item_end(&mut list);
            count = count.saturating_add(1);
        }
        self.trace.list_end(list, r.offset());
        Ok(Held(count, "records"))
    }

    /// One function's metadata; nothing when the section ends first (`Data < End`).
    fn function_metadata(
        &mut self,
        r: &mut Reader<'_>,
        mut f: Option<&mut FunctionSamples>,
        depth: usize,
    ) -> Result<()> {
        if r.is_empty() {
            return Ok(());
        }
        if self.checksums {
            let checksum = self.num(r, "Checksum")?;
            if let Some(f) = f.as_deref_mut() {
                f.checksum = Some(checksum);
            }
        }
        if self.attributes {
            let attributes = self.num32(r, "Attributes")?;
            if let Some(f) = f.as_deref_mut() {
                f.attributes = attributes;
            }
        }
        if self.cs {
            return Ok(());
        }
        let callsites = self.count(r, "NumCallsites", MIN_TRIPLE)?;
        for i in 0..callsites {
            let (start, location, name) = self.callsite_head(r, depth)?;
            let callee = match f.as_deref_mut() {
                Some(f) => Some(self.metadata_callee(f, location, name, start)?),
                None => None,
            };
            self.function_metadata(r, callee, depth.saturating_add(1))?;
            self.callsite_end(r, i, start, location, name);
        }
        Ok(())
    }

    /// The callee `name` at `location` of `f` for its metadata. LLVM adds one the
    /// profile lacks without naming it (`functionSamplesAt(Loc)[Name]` but no
    /// `setFunction`), so it prints with an empty name; so does ours.
    fn metadata_callee<'f>(
        &mut self,
        f: &'f mut FunctionSamples,
        location: LineLocation,
        name: NameId,
        at: u64,
    ) -> Result<&'f mut FunctionSamples> {
        let names = &self.profile.names;
        let found =
            f.callsites.binary_search_by(|c| c.location.cmp(&location).then_with(|| names.cmp(c.callee.name, name)));
        let unnamed = match found {
            Ok(_) => name,
            Err(_) => self.intern(Name::Bytes(Vec::new()), at)?,
        };
        callee_at(f, location, unnamed, &self.profile.names)
            .ok_or(Error::malformed(at, "callsite lost while adding it"))
    }

    /// `ProfileSymbolList::read`: NUL-terminated names to the end; a set, so a name
    /// listed again is kept once. Several sections add to one list.
    pub(super) fn symbol_list(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        let mut list = self.profile.symbol_list.take().unwrap_or_default();
        let mut items = self.trace.list(ListKind::Symbols);
        let (mut count, stop) = self.trace.seek(&items, r)?;
        while !r.is_empty() && r.offset() < stop {
            let start = r.offset();
            self.trace.item_begin(&mut items, start);
            let symbol = r.cstr("symbol name and its NUL")?;
            let id = self.intern(Name::Bytes(symbol.to_vec()), start)?;
            self.trace.item("symbol", count, start, r.offset(), Text(symbol));
            self.trace.item_end(&mut items);
            if self.symbols.insert(id) {
                list.push(id);
            }
            count = count.saturating_add(1);
        }
        self.trace.list_end(items, r.offset());
        self.profile.symbol_list = Some(list);
        Ok(Held(count, "symbols"))
    }
}
