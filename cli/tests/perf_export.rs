//! `pgolens export --to perf-script | perf-script-brstack | folded --symfs DIR
//! --binary PROG` against perf 6.1's text (and `inferno-collapse-perf`'s folding
//! of it) for every corpus recording with a reference: the binary run as a user
//! runs it, with the corpus sysroot as perf's `--symfs`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The export's stdout, after checking it succeeded with nothing on stderr.
fn export(data: &Path, to: &str, extra: &[&str]) -> Vec<u8> {
    let bolt_perf = root().join("tests/corpus/bolt-perf");
    let dir = data.parent().unwrap();
    let program = dir.join(dir.file_name().unwrap());
    let output = Command::new(env!("CARGO_BIN_EXE_pgolens"))
        .arg("export")
        .arg(data)
        .args(["--to", to, "--symfs"])
        .arg(bolt_perf.join("sysroot"))
        .arg("--binary")
        .arg(&program)
        .args(extra)
        .output()
        .expect("the pgolens binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && stderr.is_empty(), "{}: {stderr}", data.display());
    output.stdout
}

/// The first line where two texts part.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let (ours, theirs) = (String::from_utf8_lossy(ours), String::from_utf8_lossy(theirs));
    let mut a = ours.lines();
    let mut b = theirs.lines();
    for line in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => return format!("line {line}: ours {x:?}, reference {y:?}"),
        }
    }
    unreachable!()
}

#[test]
fn perf_script_with_symfs_matches_perf() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for prog in ["cprog", "cxxprog"] {
        let dir = root().join("tests/corpus/bolt-perf").join(prog);
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        for name in names {
            let to = if name.ends_with(".perf.data.script-ip.txt") {
                "perf-script"
            } else if name.ends_with(".perf.data.script-brstack.txt") {
                "perf-script-brstack"
            } else {
                continue;
            };
            let data = dir.join(name.rsplit_once(".script-").unwrap().0);
            let expected = std::fs::read(dir.join(&name)).unwrap();
            let ours = export(&data, to, &[]);
            compared += 1;
            if ours != expected {
                failures.push(format!("{name}: {}", first_difference(&ours, &expected)));
            }
        }
    }
    assert_eq!(compared, 26, "every perf script reference of cprog and cxxprog");
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn folded_with_symfs_matches_inferno() {
    let references = root().join("tests/data/perf_folded");
    let mut names: Vec<String> = std::fs::read_dir(&references)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".folded"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 10);
    for name in names {
        let stem = name.strip_suffix(".folded").unwrap();
        let prog = stem.split('.').next().unwrap();
        let data = root().join("tests/corpus/bolt-perf").join(prog).join(format!("{stem}.perf.data"));
        let expected = std::fs::read(references.join(&name)).unwrap();
        let ours = export(&data, "folded", &[]);
        assert!(ours == expected, "{name}: {}", first_difference(&ours, &expected));
    }
}

/// `--kallsyms` wins over the sysroot's: an empty one leaves kernel frames
/// unnamed, as perf leaves them without kallsyms.
#[test]
fn kallsyms_option_overrides_the_sysroot() {
    let data = root().join("tests/corpus/bolt-perf/cprog/cprog.pipe.perf.data");
    let named = String::from_utf8(export(&data, "perf-script", &[])).unwrap();
    assert!(named.contains("ffffffff8225a6c1 do_syscall_64\n"));
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("empty-kallsyms");
    std::fs::write(&empty, b"").unwrap();
    let unnamed = String::from_utf8(export(&data, "perf-script", &["--kallsyms", empty.to_str().unwrap()])).unwrap();
    assert!(unnamed.contains("ffffffff8225a6c1 [unknown]\n"));
    assert_eq!(named.lines().count(), unnamed.lines().count());
}
