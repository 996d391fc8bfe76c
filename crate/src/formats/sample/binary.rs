//! Raw binary and extensible binary sample profiles.

use crate::detect::Detection;
use crate::dump::Node;
use crate::error::{Error, Result};

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "sample profile dump not implemented"))
}
