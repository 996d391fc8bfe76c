//! The CLI's error discipline: every failure is one line `pgolens: FILE: what was
//! expected (at offset 0x…)`, with the offset in the file given (or, in a
//! compressed file, named as one in its decompressed content), and a failed dump
//! writes nothing to stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(path)
}

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgolens")).args(args).output().expect("the pgolens binary runs")
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes).lines().map(String::from).collect()
}

/// A scratch file under the target dir, named for the test.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-errors");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// irpgo-progA.profdata with its 645th and 646th bytes set to 0xff: the dump's
/// first levels decode, and a function record deep in the file claims more bitmap
/// bytes than it has (found by mutating the corpus: before, `dump --json` printed
/// 5,445 bytes of a document it could not finish, and its error named no file).
fn damaged_profdata() -> Vec<u8> {
    let mut bytes = std::fs::read(corpus("llvm/irpgo-progA/irpgo-progA.profdata")).unwrap();
    bytes[645] = 0xff;
    bytes[646] = 0xff;
    bytes
}

const DAMAGE: &str = "expected NumBitmapBytes that fit in the record, found 0xffff000000";

#[test]
fn detect_says_one_line_per_file_and_nothing_more() {
    let good = corpus("llvm/irpgo-progA/irpgo-progA.profraw");
    let unknown = scratch("hello.txt", b"hello");
    let empty = scratch("empty", b"");
    let out = run(&[Path::new("detect"), &unknown, &good, &empty]);
    assert!(!out.status.success());
    assert_eq!(
        lines(&out.stdout),
        [format!("{}: instrprof-raw [version 10, 64-bit, little-endian, IR_PROF]", good.display())]
    );
    assert_eq!(
        lines(&out.stderr),
        [
            format!("pgolens: {}: not a known profile format (at offset 0x0)", unknown.display()),
            format!(
                "pgolens: {}: expected a profile (the file is empty), found end of input (at offset 0x0)",
                empty.display()
            ),
        ]
    );
}

#[test]
fn a_dump_that_fails_deep_in_the_file_prints_nothing_but_its_one_line_error() {
    let damaged = scratch("damaged.profdata", &damaged_profdata());
    for flag in ["--json", ""] {
        let args: Vec<&Path> =
            [Path::new("dump"), Path::new(flag), &damaged].into_iter().filter(|a| !a.as_os_str().is_empty()).collect();
        let out = run(&args);
        assert!(!out.status.success());
        assert_eq!(out.stdout, b"", "dump {flag}: no partial output");
        assert_eq!(lines(&out.stderr), [format!("pgolens: {}: {DAMAGE} (at offset 0x282)", damaged.display())]);
    }
    // The intact file: one whole JSON document.
    let out = run(&[Path::new("dump"), Path::new("--json"), &corpus("llvm/irpgo-progA/irpgo-progA.profdata")]);
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"{\"label\":") && out.stdout.ends_with(b"}\n"));
}

#[test]
fn errors_in_a_compressed_file_name_their_offset_as_one_in_its_decompressed_content() {
    let gz = scratch("damaged.profdata.gz", &pgolens::compress::gzip_stored(&damaged_profdata()));
    let out = run(&[Path::new("dump"), Path::new("--json"), &gz]);
    assert_eq!(out.stdout, b"");
    assert_eq!(
        lines(&out.stderr),
        [format!("pgolens: {}: {DAMAGE} (at offset 0x282 of the decompressed gzip content)", gz.display())]
    );
    let out = run(&[Path::new("export"), &gz, Path::new("--to"), Path::new("proftext")]);
    assert_eq!(
        lines(&out.stderr),
        [format!("pgolens: {}: {DAMAGE} (at offset 0x282 of the decompressed gzip content)", gz.display())]
    );
    // The same file uncompressed decodes whole, so the offset is the same content's.
    let plain = scratch(
        "plain.profdata.gz",
        &pgolens::compress::gzip_stored(&std::fs::read(corpus("llvm/irpgo-progA/irpgo-progA.profdata")).unwrap()),
    );
    assert!(run(&[Path::new("export"), &plain, Path::new("--to"), Path::new("proftext")]).status.success());
}

#[test]
fn a_dump_into_a_file_leaves_the_file_as_it_was_when_it_fails() {
    let damaged = scratch("damaged-to-file.profdata", &damaged_profdata());
    let good = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
    let target = scratch("dump-target.json", b"before\n");
    let append = || std::fs::OpenOptions::new().append(true).open(&target).unwrap();
    let run_into = |file: &Path, out: std::fs::File| {
        Command::new(env!("CARGO_BIN_EXE_pgolens")).args(["dump", "--json"]).arg(file).stdout(out).status().unwrap()
    };
    assert!(!run_into(&damaged, append()).success());
    assert_eq!(std::fs::read(&target).unwrap(), b"before\n");
    assert!(run_into(&good, append()).success());
    let text = std::fs::read(&target).unwrap();
    assert!(text.starts_with(b"before\n{\"label\":") && text.ends_with(b"}\n"));
    // `>`: truncated, then nothing written.
    let truncated = std::fs::File::create(&target).unwrap();
    assert!(!run_into(&damaged, truncated).success());
    assert_eq!(std::fs::read(&target).unwrap(), b"");
}
