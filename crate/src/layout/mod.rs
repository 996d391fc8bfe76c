//! Pure geometry for the views, testable natively: [`flame`] rectangles with the
//! visible-window query.

pub mod flame;
