//! Pure geometry for the views, testable natively: [`flame`] rectangles with the
//! visible-window query, and the [`layered`] (Sugiyama-style) layout of control-flow
//! graphs.

pub mod flame;
pub mod layered;
