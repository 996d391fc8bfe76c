//! Text renderings of a dump tree: indented text for people, JSON for programs.

use alloc::string::String;
use core::fmt::Write;

use super::Node;

/// Appends `node` as JSON: `{"label","start","end","value"?,"deferred"?,"children"?}`,
/// `end` exclusive. Deferred children are not expanded here.
pub fn write_json(node: &Node, out: &mut String) {
    out.push_str("{\"label\":");
    json_string(&node.label, out);
    let _ = write!(out, ",\"start\":{},\"end\":{}", node.start, node.end);
    if let Some(value) = &node.value {
        out.push_str(",\"value\":");
        json_string(value, out);
    }
    if node.deferred.is_some() {
        out.push_str(",\"deferred\":true");
    }
    if !node.children.is_empty() {
        out.push_str(",\"children\":[");
        for (i, child) in node.children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json(child, out);
        }
        out.push(']');
    }
    out.push('}');
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends one line for `node` at `depth`: `  label [start..end) = value`.
pub fn write_text(node: &Node, depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    let _ = write!(out, "{} [{:#x}..{:#x})", node.label, node.start, node.end);
    if let Some(value) = &node.value {
        out.push_str(" = ");
        out.push_str(value);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_and_nests() {
        let node = Node::new("file", 0, 4).with_children(alloc::vec![Node::leaf("name", 0, 4, "a\"b\\\n\u{1}")]);
        let mut out = String::new();
        write_json(&node, &mut out);
        assert_eq!(
            out,
            r#"{"label":"file","start":0,"end":4,"children":[{"label":"name","start":0,"end":4,"value":"a\"b\\\n\u0001"}]}"#
        );
    }
}
