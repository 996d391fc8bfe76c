//! The BOLT views of a session: the function table of an fdata or YAML profile,
//! and (for YAML, which holds the graphs) each function's control-flow graph,
//! laid out here (blocks sized to their text, layered top to bottom) so the page
//! only draws.

use alloc::string::String;
use alloc::vec::Vec;

use alloc::collections::BTreeMap;

use pgolens::formats::bolt::{fdata, yaml};
use pgolens::layout::layered::{self, Edge, Node, Options};
use pgolens::model::bolt::{cfg_from_yaml, Column, FunctionRows};
use pgolens::model::demangle::demangle;
use pgolens_protocol::{
    Cell, CfgBlock, CfgCall, CfgEdge, CfgGraph, FlowScore, Row, TablePage, TableQuery, CFG_CHAR_PX, CFG_FLAG_GAP,
    CFG_LINE_PX, CFG_PAD_PX,
};

use crate::session::{fail, failure, Failure};
use crate::tables;

/// A BOLT profile's rows and the order last asked for.
pub struct BoltView {
    rows: FunctionRows,
    /// The YAML profile the rows come from (its functions are the rows, in order).
    pub yaml: Option<yaml::Profile<'static>>,
    sorted: Option<(Column, bool, Vec<u32>)>,
    filtered: Option<(Column, bool, String, Vec<u32>)>,
    /// Row ids by raw function name, for calls to link to their callees.
    by_name: Option<BTreeMap<String, u32>>,
}

impl BoltView {
    pub fn fdata(data: &[u8]) -> Result<BoltView, Failure> {
        let profile = fdata::decode(data).map_err(failure)?;
        Ok(BoltView {
            rows: FunctionRows::from_fdata(&profile),
            yaml: None,
            sorted: None,
            filtered: None,
            by_name: None,
        })
    }

    pub fn yaml(data: &[u8]) -> Result<BoltView, Failure> {
        let profile = yaml::decode(data).map_err(failure)?;
        let rows = FunctionRows::from_yaml(&profile);
        Ok(BoltView { rows, yaml: Some(profile.into_owned()), sorted: None, filtered: None, by_name: None })
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

/// Calls listed in a block's text; the rest are summed up in one line.
const CALL_LINES: usize = 6;

impl BoltView {
    /// Whether the profile holds graphs (a YAML profile does; fdata needs the binary).
    pub fn has_graphs(&self) -> bool {
        self.yaml.is_some()
    }

    /// The row of the function named `name` (raw), built once.
    fn row_of(&mut self, name: &str) -> Option<u32> {
        let rows = &self.rows;
        let index = self.by_name.get_or_insert_with(|| {
            rows.rows.iter().enumerate().map(|(i, r)| (r.name.clone(), u32::try_from(i).unwrap_or(u32::MAX))).collect()
        });
        index.get(name).copied()
    }

    /// Function `function` (a row id; `None`: the hottest) as a laid-out graph.
    pub fn cfg(&mut self, function: Option<u32>) -> Result<CfgGraph, Failure> {
        let yaml = self.yaml.as_ref().ok_or_else(|| fail("this profile has no graphs without its binary"))?;
        let id = match function {
            Some(id) => id,
            None => (0..self.rows.rows.len())
                .max_by_key(|&i| (self.rows.rows.get(i).map_or(0, |r| r.numbers.exec_count), core::cmp::Reverse(i)))
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| fail("the profile has no functions"))?,
        };
        let cfg = cfg_from_yaml(yaml, id as usize).ok_or_else(|| fail(alloc::format!("no function {id}")))?;
        let gaps = cfg.flow_gaps();
        let flow = cfg.flow();
        let mut blocks: Vec<CfgBlock> = Vec::with_capacity(cfg.blocks.len());
        for (i, b) in cfg.blocks.iter().enumerate() {
            let calls: Vec<CfgCall> = b
                .calls
                .iter()
                .map(|c| CfgCall {
                    callee: c.callee.clone(),
                    demangled: demangle(c.callee.as_bytes()),
                    count: c.count,
                    mispredicted: c.mispredicted,
                    function: self.row_of(&c.callee),
                })
                .collect();
            let (inflow, outflow) = flow.get(i).copied().unwrap_or_default();
            let gap = gaps.blocks.get(i).copied().flatten();
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let lines = block_lines(index, b.offset, b.exec_count, b.instructions, &calls);
            let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CFG_CHAR_PX;
            let height = lines.len() as f64 * CFG_LINE_PX;
            blocks.push(CfgBlock {
                index,
                offset: b.offset,
                exec_count: b.exec_count,
                instructions: b.instructions,
                entry: b.entry,
                inflow,
                outflow,
                gap,
                flagged: gap.is_some_and(|g| g >= CFG_FLAG_GAP),
                lines,
                x: 0.0,
                y: 0.0,
                w: width + 2.0 * CFG_PAD_PX,
                h: height + 2.0 * CFG_PAD_PX,
                calls,
            });
        }
        let nodes: Vec<Node> = blocks.iter().map(|b| Node { width: b.w as f32, height: b.h as f32 }).collect();
        let edges: Vec<Edge> =
            cfg.edges.iter().map(|e| Edge { from: e.from, to: e.to, weight: e.count.unwrap_or(0) }).collect();
        let entries: Vec<u32> =
            cfg.blocks.iter().enumerate().filter(|(_, b)| b.entry).filter_map(|(i, _)| u32::try_from(i).ok()).collect();
        let entries = if entries.is_empty() { alloc::vec![0] } else { entries };
        let laid = layered::layout(&nodes, &edges, &entries, &Options::default());
        for (b, p) in blocks.iter_mut().zip(&laid.nodes) {
            b.x = f64::from(p.x);
            b.y = f64::from(p.y);
        }
        let edges: Vec<CfgEdge> = cfg
            .edges
            .iter()
            .zip(&laid.edges)
            .map(|(e, route)| CfgEdge {
                from: e.from,
                to: e.to,
                count: e.count,
                mispredicted: e.mispredicted,
                inferred: e.inferred,
                back: route.back,
                points: route.points.iter().flat_map(|&(x, y)| [f64::from(x), f64::from(y)]).collect(),
            })
            .collect();
        let row = self.rows.rows.get(id as usize);
        Ok(CfgGraph {
            function: id,
            name: cfg.name.clone(),
            demangled: row.and_then(|r| r.demangled.clone()),
            exec_count: row.map_or(cfg.exec_count, |r| r.numbers.exec_count),
            max_count: edges.iter().filter_map(|e| e.count).max().unwrap_or(0),
            blocks,
            edges,
            width: f64::from(laid.width),
            height: f64::from(laid.height),
            layers: laid.layers,
            crossings: laid.crossings,
            layout_ms: 0.0,
            flow: FlowScore {
                weighted_gap: gaps.weighted,
                worst_gap: gaps.worst,
                worst_block: gaps.worst_block,
                flagged: u32::try_from(gaps.blocks.iter().flatten().filter(|&&g| g >= CFG_FLAG_GAP).count())
                    .unwrap_or(u32::MAX),
            },
            unmatched: cfg.unmatched.len() as u64,
        })
    }
}

/// A block's text: `#index  @offset  count  (n insns)`, then its calls, hottest first.
fn block_lines(
    index: u32,
    offset: Option<u64>,
    count: u64,
    instructions: Option<u32>,
    calls: &[CfgCall],
) -> Vec<String> {
    let mut head = alloc::format!("#{index}");
    if let Some(offset) = offset {
        head.push_str(&alloc::format!("  @{offset:#x}"));
    }
    head.push_str(&alloc::format!("  ×{}", grouped(count)));
    if let Some(n) = instructions {
        head.push_str(&alloc::format!("  {n} insn{}", if n == 1 { "" } else { "s" }));
    }
    let mut lines = alloc::vec![head];
    for c in calls.iter().take(CALL_LINES) {
        let name = c.demangled.as_deref().unwrap_or(if c.callee.is_empty() { "[unknown]" } else { &c.callee });
        let short: String = name.chars().take(48).collect();
        let cut = if short.len() < name.len() { "…" } else { "" };
        lines.push(alloc::format!("→ {short}{cut}  ×{}", grouped(c.count)));
    }
    if calls.len() > CALL_LINES {
        lines.push(alloc::format!("  + {} more calls", calls.len().saturating_sub(CALL_LINES)));
    }
    lines
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = alloc::format!("{n}");
    let mut out = String::with_capacity(digits.len().saturating_add(digits.len() / 3));
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len().saturating_sub(i)) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
