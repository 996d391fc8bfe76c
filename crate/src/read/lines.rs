//! Line-by-line reading of text formats, with 1-based line numbers and byte spans.

/// One line of text input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// Absolute offset of the first byte of the line.
    pub start: u64,
    /// Absolute offset one past the line terminator (or end of input).
    pub end: u64,
    /// The line without its `\n` (and without a `\r` before it).
    pub text: &'a [u8],
}

/// Iterates over the lines of a text input; a final line without `\n` is still a line.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    rest: &'a [u8],
    offset: u64,
    number: u64,
}

impl<'a> Lines<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Lines { rest: data, offset: 0, number: 0 }
    }

    /// The absolute offset of the next line.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let (with_newline, text) = match self.rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let (line, rest) = self.rest.split_at(i.saturating_add(1));
                self.rest = rest;
                let text = line.strip_suffix(b"\n").unwrap_or(line);
                (line.len(), text.strip_suffix(b"\r").unwrap_or(text))
            }
            None => {
                let line = core::mem::take(&mut self.rest);
                (line.len(), line)
            }
        };
        self.number = self.number.saturating_add(1);
        let start = self.offset;
        self.offset = self.offset.saturating_add(with_newline as u64);
        Some(Line { number: self.number, start, end: self.offset, text })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn spans_cover_the_input() {
        let lines: Vec<_> = Lines::new(b"a:1:0\r\n 1: 5\n\nlast").collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], Line { number: 1, start: 0, end: 7, text: b"a:1:0" });
        assert_eq!(lines[1].text, b" 1: 5");
        assert_eq!((lines[2].start, lines[2].end, lines[2].text), (13, 14, &b""[..]));
        assert_eq!((lines[3].start, lines[3].end, lines[3].text), (14, 18, &b"last"[..]));
    }
}
