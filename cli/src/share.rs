//! `pgolens share FILE... -o view.html [--page PAGE.html] [--link FRAGMENT]`: the
//! self-contained page (`dist/pgolens.html`) carrying profiles, that opens on them.
//!
//! The template is `--page`, else the page embedded at build time (cli/build.rs: the
//! `dist/pgolens.html` that existed when the CLI was built). The files and the link
//! are written as `web/pack.js`'s header comment describes: data blocks in base64
//! (not deflated: the CLI has no compressor; the page reads both) replacing what is
//! between the page's carried markers. Without `--link` the fragment names the files
//! as the page's links do (`file=SIZE.ID.NAME`, ID the first 12 hex digits of the
//! fingerprint) and shows the first (`doc=0`).

use std::fmt::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::USAGE;

/// The page embedded at build time (empty when there was none).
const EMBEDDED_PAGE: &str = include_str!(concat!(env!("OUT_DIR"), "/pgolens.html"));

const CARRIED_START: &str = "<!-- pgolens:carried -->";
const CARRIED_END: &str = "<!-- /pgolens:carried -->";

/// Bytes per fingerprint block: 4 MiB.
const BLOCK: usize = 4 << 20;
/// Hex digits of the fingerprint a link keeps (web/src/app/link.rs `ID_DIGITS`).
const ID_DIGITS: usize = 12;

pub fn share(args: &[String]) -> Result<(), String> {
    let mut files = Vec::new();
    let mut output = None;
    let mut page = None;
    let mut link = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-o" => output = Some(rest.next().ok_or("-o needs a file")?),
            "--page" => page = Some(rest.next().ok_or("--page needs a file")?),
            "--link" => link = Some(rest.next().ok_or("--link needs a fragment")?.clone()),
            _ if !arg.starts_with('-') => files.push(arg),
            _ => return Err(USAGE.to_string()),
        }
    }
    let Some(output) = output else { return Err(USAGE.to_string()) };
    if files.is_empty() {
        return Err(USAGE.to_string());
    }
    let template = match page {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?,
        None if EMBEDDED_PAGE.is_empty() => {
            return Err(String::from(
                "this pgolens was built without dist/pgolens.html: pass --page PAGE.html (npm run build writes it)",
            ))
        }
        None => EMBEDDED_PAGE.to_string(),
    };
    let mut carried = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let name = Path::new(path).file_name().map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
        carried.push((name, bytes));
    }
    let link = link.unwrap_or_else(|| default_link(&carried));
    let html =
        insert(&template, &carried, &link).map_err(|e| format!("{}: {e}", page.map_or("the embedded page", |p| p)))?;
    std::fs::write(output, html).map_err(|e| format!("{output}: {e}"))
}

/// A file's fingerprint: lowercase hex of SHA-256 over the SHA-256 digests of its
/// consecutive 4 MiB blocks (none for an empty file).
pub fn fingerprint(bytes: &[u8]) -> String {
    let mut list = Sha256::new();
    for block in bytes.chunks(BLOCK) {
        list.update(Sha256::digest(block));
    }
    list.finalize().iter().fold(String::with_capacity(64), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

/// The fragment naming `files` (the first shown), as the page writes it.
fn default_link(files: &[(String, Vec<u8>)]) -> String {
    let mut fragment = String::new();
    for (name, bytes) in files {
        let value = format!("{}.{}.{}", bytes.len(), &fingerprint(bytes)[..ID_DIGITS], name);
        fragment.push_str("file=");
        encode_into(&mut fragment, &value);
        fragment.push('&');
    }
    fragment.push_str("doc=0");
    fragment
}

/// Escapes as web/src/app/link.rs does: all but letters, digits and `-._~!$'()*+,;:@/?`.
fn encode_into(out: &mut String, text: &str) {
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$'()*+,;:@/?".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

/// The page with its carried part (between the markers) replaced by `files` and `link`.
pub fn insert(page: &str, files: &[(String, Vec<u8>)], link: &str) -> Result<String, String> {
    let not_a_page = || String::from("not a pgolens page (no carried markers: use dist/pgolens.html)");
    let start = page.find(CARRIED_START).ok_or_else(not_a_page)? + CARRIED_START.len();
    let end = start + page[start..].find(CARRIED_END).ok_or_else(not_a_page)?;
    let mut blocks = String::from("\n");
    for (name, bytes) in files {
        blocks.push_str(r#"<script type="application/octet-stream" data-pgolens="file" data-name=""#);
        escape_html_into(&mut blocks, name);
        blocks.push_str(r#"" data-encoding="base64">"#);
        base64_into(&mut blocks, bytes);
        blocks.push_str("</script>\n");
    }
    let fragment = link.strip_prefix('#').unwrap_or(link);
    if !fragment.is_empty() {
        blocks.push_str(r#"<script type="application/octet-stream" data-pgolens="link">"#);
        blocks.push_str(&fragment.replace('<', "%3C"));
        blocks.push_str("</script>\n");
    }
    Ok([&page[..start], &blocks, &page[end..]].concat())
}

fn escape_html_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// Standard base64 (RFC 4648 section 4), padded.
fn base64_into(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]) } else { '=' });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(path: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(path);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn fingerprints_hash_the_digests_of_4_mib_blocks() {
        // One block:
        //   sha256sum tests/corpus/llvm/irpgo-progA/irpgo-progA.profraw | cut -c1-64 | xxd -r -p | sha256sum
        let small = corpus("llvm/irpgo-progA/irpgo-progA.profraw");
        assert_eq!(small.len(), 9040);
        assert_eq!(fingerprint(&small), "3d9545e11b5f17658814e0c0f6771c4c40c50a063e64a5275d50b8f43c69e6bc");
        // Several blocks, the last one short:
        //   split -b 4194304 --filter='sha256sum | cut -c1-64 | xxd -r -p' \
        //     tests/corpus/bolt-perf/sysroot/proc/kallsyms | sha256sum
        let large = corpus("bolt-perf/sysroot/proc/kallsyms");
        assert_eq!(large.len(), 5_414_749);
        assert_eq!(fingerprint(&large), "b06082cd69091f30aeb64c77e1da47fa0c7a482dea740bb1f12c374ecf04325e");
        // No blocks: SHA-256 of nothing (printf '' | sha256sum).
        assert_eq!(fingerprint(&[]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn files_and_link_replace_what_is_between_the_markers() {
        let page = "<html><body><div id=\"app\"></div>\n<!-- pgolens:carried -->\n<script type=\"application/octet-stream\" data-pgolens=\"file\" data-name=\"old\" data-encoding=\"base64\">AA==</script>\n<!-- /pgolens:carried -->\n<script type=\"module\">boot</script></body></html>";
        let files = vec![(String::from("a \"b\" <&>.prof"), b"hello".to_vec()), (String::from("e"), b"ab".to_vec())];
        let html = insert(page, &files, "#file=5.x.a&doc=0<").unwrap();
        assert_eq!(
            html,
            "<html><body><div id=\"app\"></div>\n<!-- pgolens:carried -->\n\
             <script type=\"application/octet-stream\" data-pgolens=\"file\" data-name=\"a &quot;b&quot; &lt;&amp;&gt;.prof\" data-encoding=\"base64\">aGVsbG8=</script>\n\
             <script type=\"application/octet-stream\" data-pgolens=\"file\" data-name=\"e\" data-encoding=\"base64\">YWI=</script>\n\
             <script type=\"application/octet-stream\" data-pgolens=\"link\">file=5.x.a&doc=0%3C</script>\n\
             <!-- /pgolens:carried -->\n<script type=\"module\">boot</script></body></html>"
        );
        assert!(insert("<html></html>", &files, "").unwrap_err().contains("no carried markers"));
    }

    #[test]
    fn the_default_link_names_each_file_and_shows_the_first() {
        let files = vec![(String::from("a b.profraw"), b"hello".to_vec()), (String::from("c"), Vec::new())];
        // printf hello | sha256sum | cut -c1-64 | xxd -r -p | sha256sum | cut -c1-12
        assert_eq!(default_link(&files), "file=5.9595c9df9007.a%20b.profraw&file=0.e3b0c44298fc.c&doc=0");
    }
}
