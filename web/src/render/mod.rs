//! Canvas painters: plain functions from a scene to a 2D context, no state.

pub mod flame;
