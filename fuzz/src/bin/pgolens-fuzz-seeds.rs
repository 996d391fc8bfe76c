//! `pgolens-fuzz-seeds DIR [TARGET...]`: the campaign's seed directories,
//! `DIR/TARGET/`, one symbolic link per corpus file that seeds the target (see
//! `pgolens_fuzz::seeds`), so nothing of the corpus is copied. Prints each target's
//! seed count.

use std::path::PathBuf;
use std::process::ExitCode;

use pgolens_fuzz::{seeds, TARGETS};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, names)) = args.split_first() else {
        eprintln!("usage: pgolens-fuzz-seeds DIR [TARGET...]");
        return ExitCode::FAILURE;
    };
    let index = seeds::index();
    for target in TARGETS.iter().filter(|t| names.is_empty() || names.iter().any(|n| n == t.name)) {
        let out = PathBuf::from(dir).join(target.name);
        if let Err(e) = std::fs::create_dir_all(&out) {
            eprintln!("{}: {e}", out.display());
            return ExitCode::FAILURE;
        }
        let chosen = seeds::of(target, &index);
        for (i, seed) in chosen.iter().enumerate() {
            let Ok(source) = seed.path.canonicalize() else { continue };
            let name = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let link = out.join(format!("{i:04}-{name}"));
            if !link.exists() {
                if let Err(e) = std::os::unix::fs::symlink(&source, &link) {
                    eprintln!("{}: {e}", link.display());
                    return ExitCode::FAILURE;
                }
            }
        }
        println!("{} {}", target.name, chosen.len());
    }
    ExitCode::SUCCESS
}
