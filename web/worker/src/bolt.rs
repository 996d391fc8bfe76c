//! The BOLT views of a session: the function table of an fdata or YAML profile,
//! and (for YAML, which holds the graphs) each function's control-flow graph.

use alloc::string::String;
use alloc::vec::Vec;

use pgolens::formats::bolt::{fdata, yaml};
use pgolens::model::bolt::{Column, FunctionRows};
use pgolens_protocol::{Cell, Row, TablePage, TableQuery};

use crate::session::{fail, failure, Failure};
use crate::tables;

/// A BOLT profile's rows and the order last asked for.
pub struct BoltView {
    rows: FunctionRows,
    /// The YAML profile the rows come from (its functions are the rows, in order).
    pub yaml: Option<yaml::Profile<'static>>,
    sorted: Option<(Column, bool, Vec<u32>)>,
    filtered: Option<(Column, bool, String, Vec<u32>)>,
}

impl BoltView {
    pub fn fdata(data: &[u8]) -> Result<BoltView, Failure> {
        let profile = fdata::decode(data).map_err(failure)?;
        Ok(BoltView { rows: FunctionRows::from_fdata(&profile), yaml: None, sorted: None, filtered: None })
    }

    pub fn yaml(data: &[u8]) -> Result<BoltView, Failure> {
        let profile = yaml::decode(data).map_err(failure)?;
        let rows = FunctionRows::from_yaml(&profile);
        Ok(BoltView { rows, yaml: Some(profile.into_owned()), sorted: None, filtered: None })
    }

    fn order(&mut self, column: Column, descending: bool, filter: &str) -> &[u32] {
        let fresh = |f: &Option<(Column, bool, String, Vec<u32>)>| matches!(f, Some((c, d, text, _)) if *c == column && *d == descending && text == filter);
        if !fresh(&self.filtered) {
            if !matches!(&self.sorted, Some((c, d, _)) if *c == column && *d == descending) {
                self.sorted = Some((column, descending, self.rows.sorted(column, descending)));
            }
            let sorted = self.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
            let order = self.rows.filter(sorted, filter);
            self.filtered = Some((column, descending, String::from(filter), order));
        }
        self.filtered.as_ref().map(|(_, _, _, o)| o.as_slice()).unwrap_or_default()
    }

    /// A page of the function table.
    pub fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column =
            Column::from_id(&query.column).ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let order = self.order(column, query.descending, &query.filter).to_vec();
        let rows = &self.rows;
        let has_blocks = rows.rows.iter().any(|r| r.numbers.blocks.is_some());
        let shown: Vec<Column> =
            Column::ALL.into_iter().filter(|&c| c != Column::Name && (has_blocks || c != Column::Blocks)).collect();
        Ok(tables::page(
            query,
            tables::bolt_columns(has_blocks),
            rows.rows.len(),
            Some(rows.weight),
            &order,
            start,
            count,
            |&id| {
                let row = rows.rows.get(id as usize)?;
                let mut cells = alloc::vec![Cell::Name {
                    text: row.demangled.clone().unwrap_or_else(|| row.name.clone()),
                    raw: Some(row.name.clone()),
                    tag: None,
                }];
                cells.extend(shown.iter().map(|&c| match (c, rows.value(id, c)) {
                    (Column::Mispredicted, Some(ppm)) => Cell::Ppm(u32::try_from(ppm).unwrap_or(u32::MAX)),
                    (_, Some(v)) => Cell::Count(v),
                    (_, None) => Cell::Empty,
                }));
                Some(Row { id, cells })
            },
        ))
    }
}
