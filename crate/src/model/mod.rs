//! What views consume, whatever format it came from: a function table, a profile
//! summary, one function's detail.
//!
//! Each format adds an adapter module that fills these from its decoded model
//! ([`instrprof`] for raw and indexed instrumentation profiles). Columns a format
//! lacks stay `None`, so sample profiles and perf symbol tables can feed the same
//! [`FunctionTable`]. [`memprof`] lists MemProf allocation sites.

pub mod bat;
pub mod bolt;
pub mod demangle;
pub mod detail;
pub mod disasm;
pub mod fdata_records;
pub mod functions;
pub mod instrprof;
pub mod memprof;
pub mod perf;
pub mod sample;
pub mod sample_views;
pub mod stacks;

pub use crate::summary::{self, Summary, SummaryBuilder, SummaryEntry};
pub use detail::FunctionDetail;
pub use functions::{Column, FunctionTable, Stats};
