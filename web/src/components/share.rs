//! Sharing what is on screen: a link that carries small profiles (`data=`), and a
//! self-contained page; and opening what such a link or page carries.

use web_sys::File;

use super::opener::Opener;
use crate::app::link::Params;

/// The files a self-contained page carries, if this page is one.
pub fn carried_files() -> Vec<File> {
    Vec::new()
}

/// Opens the profiles a link carries (`data=`); returns whether it carries any.
pub fn open_inline(opener: &Opener, link: &Params) -> bool {
    let _ = (opener, link);
    false
}
