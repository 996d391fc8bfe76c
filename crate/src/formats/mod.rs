//! One module per format family. Each offers the same vocabulary: `sniff` (is this
//! input mine, and what does its header say) and `dump` (the tree of its structures).

pub mod bolt;
pub mod elf;
pub mod gcov;
pub mod instrprof;
pub mod perf;
pub mod sample;
pub mod text;
