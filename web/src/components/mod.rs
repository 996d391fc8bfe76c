//! The page's frame: the app (state, worker, drops), the file list, the status line,
//! the tabs and the document around the views. Components get plain data and
//! callbacks as props (`PartialEq`, so unchanged parts do not re-render); only
//! [`app::App`] holds state. Each view's components live in its folder under
//! `crate::views`.

pub mod app;
mod doc_view;
pub mod download;
mod file_list;
mod js;
pub mod opener;
mod remote;
pub mod scroll;
mod share;
mod shortcuts;
pub mod status;
mod tabs;
