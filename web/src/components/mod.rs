//! One component per file. Components get plain data and callbacks as props
//! (`PartialEq`, so unchanged parts do not re-render); only [`app::App`] holds state.

pub mod app;
mod doc_view;
mod dump_view;
mod file_list;
mod flame_canvas;
mod flame_graph;
mod function_detail;
mod functions_view;
mod hex_pane;
mod memprof_view;
mod scroll;
mod stack_functions_view;
mod status;
mod summary_view;
mod tabs;
mod timeline;
mod tree_view;
