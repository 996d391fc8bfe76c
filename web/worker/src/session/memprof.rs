//! MemProf allocation sites: their table and one site in full.

use alloc::string::String;
use alloc::vec::Vec;

use pgolens::model::memprof::{build_id_hex, Column as MemColumn, Sites};
use pgolens_protocol::{Cell, MemFrame, MemSite, Row, TablePage, TableQuery};

use super::{fail, not_decoded, Failure, MemProfView, Session};
use crate::tables;

impl Session {
    fn memprof_view(&mut self) -> Result<&mut MemProfView, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.memprof.as_mut().ok_or_else(|| fail("this file has no MemProf data"))
    }

    /// A page of the MemProf allocation sites: a name column (the record's
    /// function, or a raw profile's leaf return address), then the metrics the
    /// profile has.
    pub(super) fn memprof_table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column = MemColumn::from_id(&query.column)
            .ok_or_else(|| fail(alloc::format!("no MemProf column {:?}", query.column)))?;
        let view = self.memprof_view()?;
        if !matches!(&view.sorted, Some((c, d, _)) if *c == column && *d == query.descending) {
            view.sorted = Some((column, query.descending, view.sites.sorted(column, query.descending)));
        }
        let sites = &view.sites;
        let order = view.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
        let has = sites.columns();
        let shown: Vec<MemColumn> = tables::MEMPROF_SHOWN.into_iter().filter(|c| has.contains(c)).collect();
        let columns = tables::memprof_columns(&has, sites.raw);
        Ok(tables::page(query, columns, order.len(), None, order, start, count, |&id| {
            let site = sites.site(id)?;
            let name = match site.function {
                Some(guid) => guid_cell(sites, guid),
                None => {
                    let leaf = site.frames.first().and_then(|f| f.address);
                    Cell::Name {
                        text: leaf.map(|pc| alloc::format!("{pc:#x}")).unwrap_or_default(),
                        raw: None,
                        tag: None,
                    }
                }
            };
            let mut cells = alloc::vec![name];
            if !sites.raw {
                cells.push(site.function.map_or(Cell::Empty, Cell::Hex));
            }
            cells.extend(shown.iter().map(|&c| site.metric(c).map_or(Cell::Empty, Cell::Count)));
            Some(Row { id, cells })
        }))
    }

    /// One allocation site in full, frames leaf first.
    pub fn memprof_site(&mut self, id: u32) -> Result<MemSite, Failure> {
        let sites = &self.memprof_view()?.sites;
        let site = sites.site(id).ok_or_else(|| fail(alloc::format!("no allocation site {id}")))?;
        let (name, demangled) = names_of(sites, site.function);
        let frames = site
            .frames
            .iter()
            .map(|f| match f.address {
                Some(pc) => {
                    let segment = f.segment.and_then(|s| sites.segments.get(s as usize));
                    MemFrame {
                        address: Some(pc),
                        build_id: segment.map(build_id_hex),
                        module_offset: segment.and_then(|seg| pc.checked_sub(seg.offset)),
                        ..MemFrame::default()
                    }
                }
                None => {
                    let (name, demangled) = names_of(sites, f.function);
                    MemFrame {
                        guid: f.function,
                        name,
                        demangled,
                        line: f.line_offset,
                        column: f.column,
                        inline: f.is_inline,
                        ..MemFrame::default()
                    }
                }
            })
            .collect();
        let fields = site
            .info
            .fields
            .iter()
            .map(|(meta, value)| (meta.name().map_or_else(|| alloc::format!("field {}", meta.0), String::from), *value))
            .collect();
        Ok(MemSite { id, guid: site.function, name, demangled, frames, fields, histogram: site.info.histogram.clone() })
    }
}

/// A function's raw and demangled names, where the profile names it.
fn names_of(sites: &Sites, guid: Option<u64>) -> (Option<String>, Option<String>) {
    let Some(name) = guid.and_then(|g| sites.name(g)) else { return (None, None) };
    (Some(String::from_utf8_lossy(name).into_owned()), pgolens::model::demangle::demangle(name))
}

/// A MemProf row's function: its demangled name, the raw one on hover, else its GUID.
fn guid_cell(sites: &Sites, guid: u64) -> Cell {
    match names_of(sites, Some(guid)) {
        (Some(raw), demangled) => {
            Cell::Name { text: demangled.unwrap_or_else(|| raw.clone()), raw: Some(raw), tag: None }
        }
        _ => Cell::Name { text: alloc::format!("{guid:#018x}"), raw: None, tag: None },
    }
}
