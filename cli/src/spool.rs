//! Output held back until a command has succeeded, so that a failure writes nothing
//! to stdout (a `dump --json` is a whole document or nothing). When stdout is a
//! regular file, output goes straight to it, and a failure cuts the file back to
//! where it was. Otherwise (a pipe, a terminal) it is kept in memory up to
//! [`IN_MEMORY`], then in a temporary file, and copied to stdout at the end: one
//! pass over the input, at the cost of writing large outputs twice.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;

/// Output held in memory before it goes to a temporary file.
const IN_MEMORY: usize = 64 << 20;

pub struct Spool {
    memory: Vec<u8>,
    /// What may be held in `memory`.
    limit: usize,
    file: Option<(PathBuf, BufWriter<File>)>,
}

impl Spool {
    pub fn new() -> Spool {
        Spool::with_memory(IN_MEMORY)
    }

    fn with_memory(limit: usize) -> Spool {
        Spool { memory: Vec::new(), limit, file: None }
    }

    /// Writes everything held to `out`, and forgets it.
    pub fn finish(mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.memory)?;
        if let Some((_, writer)) = self.file.as_mut() {
            writer.flush()?;
            let file = writer.get_mut();
            file.rewind()?;
            let mut reader = io::BufReader::with_capacity(1 << 20, &*file);
            let mut chunk = vec![0; 1 << 20];
            loop {
                let n = reader.read(&mut chunk)?;
                if n == 0 {
                    break;
                }
                out.write_all(chunk.get(..n).unwrap_or_default())?;
            }
        }
        out.flush()
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.memory.len().saturating_add(buf.len()) > self.limit {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            let path = std::env::temp_dir().join(format!("pgolens-{}-{nanos}.out", std::process::id()));
            let file = File::options().read(true).write(true).create_new(true).open(&path)?;
            let mut writer = BufWriter::with_capacity(1 << 20, file);
            writer.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some((path, writer));
        }
        match self.file.as_mut() {
            Some((_, writer)) => writer.write_all(buf)?,
            None => self.memory.extend_from_slice(buf),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        if let Some((path, _)) = self.file.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Where a command's output goes until it has succeeded.
pub enum Output {
    /// Stdout is a regular file: written in place from `start`, cut back on failure.
    File {
        file: BufWriter<File>,
        start: u64,
    },
    Spooled(Spool),
}

impl Output {
    pub fn stdout() -> Output {
        let file = io::stdout().as_fd().try_clone_to_owned().ok().map(File::from);
        let Some(mut file) = file else { return Output::Spooled(Spool::new()) };
        match (file.metadata(), file.stream_position()) {
            // `>` leaves it empty at 0; `>>` (append) at 0 too, where writes go to the end.
            (Ok(meta), Ok(at)) if meta.is_file() => {
                Output::File { start: at.max(meta.len()), file: BufWriter::with_capacity(1 << 20, file) }
            }
            _ => Output::Spooled(Spool::new()),
        }
    }

    /// The command succeeded: everything reaches stdout.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::File { mut file, .. } => file.flush(),
            Output::Spooled(spool) => spool.finish(&mut io::stdout().lock()),
        }
    }

    /// The command failed: stdout is left as it was.
    pub fn abandon(self) {
        if let Output::File { file, start } = self {
            // What the buffer holds is dropped unwritten; the rest is cut away.
            let (mut file, _) = file.into_parts();
            let _ = file.set_len(start);
            let _ = file.seek(SeekFrom::Start(start));
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::File { file, .. } => file.write(buf),
            Output::Spooled(spool) => spool.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_past_the_memory_limit_goes_through_a_file_that_is_removed() {
        let mut spool = Spool::with_memory(4);
        spool.write_all(b"abc").unwrap();
        assert!(spool.file.is_none());
        spool.write_all(b"defgh").unwrap();
        spool.write_all(b"ij").unwrap();
        let path = spool.file.as_ref().unwrap().0.clone();
        assert!(path.exists());
        let mut out = Vec::new();
        spool.finish(&mut out).unwrap();
        assert_eq!(out, b"abcdefghij");
        assert!(!path.exists(), "the temporary file is gone");
        // Dropped after a failure: nothing written anywhere, the file removed.
        let mut failed = Spool::with_memory(1);
        failed.write_all(b"xyz").unwrap();
        let path = failed.file.as_ref().unwrap().0.clone();
        drop(failed);
        assert!(!path.exists());
    }
}
