//! Embeds the self-contained page (`dist/pgolens.html`, written by scripts/build.sh;
//! `$PGOLENS_DIST/pgolens.html` when the site is built elsewhere)
//! as the default template of `pgolens share`, when it exists at build time; else
//! the template is empty and `share` asks for `--page`. A rebuilt page rebuilds the
//! CLI (cargo reruns this script when the file changes).

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-env-changed=PGOLENS_DIST");
    let dist = std::env::var_os("PGOLENS_DIST").map_or_else(|| Path::new("..").join("dist"), Into::into);
    let page = Path::new(&dist).join("pgolens.html");
    println!("cargo::rerun-if-changed={}", page.display());
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("pgolens.html");
    let text = std::fs::read(&page).unwrap_or_default();
    std::fs::write(&out, text).expect("OUT_DIR is writable");
}
