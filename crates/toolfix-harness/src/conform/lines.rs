//! The implementation's stdout as a stream of length-bounded lines, read by a thread.
//!
//! A line longer than the bound is reported as soon as it crosses it, and the rest of it is
//! read and thrown away without being kept, so a 100 MB line costs no more memory than the
//! bound. The channel to the runner holds few lines, so a child flooding stdout is held
//! back by the pipe rather than by the runner's memory.

use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

/// The longest answer line read (16 MiB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How many read lines may wait for the runner.
const QUEUED_LINES: usize = 2;

/// What the reader saw.
#[derive(Debug, PartialEq)]
pub enum Event {
    /// One line, without its `\n`.
    Line(Vec<u8>),
    /// A line longer than the bound; the rest of it is being discarded.
    TooLong,
    /// End of stream (the message, when reading failed).
    Closed(Option<String>),
}

/// Reads `stream` on a new thread. The thread ends at the end of the stream or when the
/// receiver is dropped.
pub fn spawn(stream: impl Read + Send + 'static, max_line: usize) -> Receiver<Event> {
    let (sender, receiver) = sync_channel(QUEUED_LINES);
    thread::spawn(move || read(stream, max_line, &sender));
    receiver
}

fn read(stream: impl Read, max_line: usize, sender: &SyncSender<Event>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut line = Vec::new();
    let mut discarding = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = sender.send(Event::Closed(Some(e.to_string())));
                return;
            }
        };
        if chunk.is_empty() {
            if !line.is_empty() && !discarding && sender.send(Event::Line(line)).is_err() {
                return;
            }
            let _ = sender.send(Event::Closed(None));
            return;
        }
        let (part, ends) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        let used = ends.unwrap_or(chunk.len());
        if !discarding && line.len() + part.len() > max_line {
            discarding = true;
            line = Vec::new();
            if sender.send(Event::TooLong).is_err() {
                return;
            }
        }
        if !discarding {
            line.extend_from_slice(part);
        }
        reader.consume(used);
        if ends.is_some() {
            if !discarding && sender.send(Event::Line(std::mem::take(&mut line))).is_err() {
                return;
            }
            discarding = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &'static [u8], max: usize) -> Vec<Event> {
        spawn(input, max).into_iter().collect()
    }

    #[test]
    fn splits_lines_and_reports_the_end() {
        assert_eq!(
            events(b"a\n\nbc\nlast", 10),
            [
                Event::Line(b"a".to_vec()),
                Event::Line(Vec::new()),
                Event::Line(b"bc".to_vec()),
                Event::Line(b"last".to_vec()),
                Event::Closed(None),
            ]
        );
    }

    #[test]
    fn an_overlong_line_is_reported_once_and_skipped() {
        assert_eq!(
            events(b"ok\n0123456789abcdef\nnext\n0123456789abcdef", 8),
            [
                Event::Line(b"ok".to_vec()),
                Event::TooLong,
                Event::Line(b"next".to_vec()),
                Event::TooLong,
                Event::Closed(None),
            ]
        );
    }
}
