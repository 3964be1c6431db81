//! The implementation's stderr: drained by a thread as fast as it is written, so a flood
//! never blocks the child, and kept as a bounded tail to attach to failures.

use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// How much of the stream is kept.
pub const TAIL_BYTES: usize = 64 * 1024;

/// The most of a case's stderr attached to its result.
pub const EXCERPT_BYTES: usize = 8 * 1024;

/// The kept tail of a stream, shared with the thread that drains it.
#[derive(Clone, Default)]
pub struct StderrTail {
    shared: Arc<(Mutex<Tail>, Condvar)>,
}

#[derive(Default)]
struct Tail {
    bytes: VecDeque<u8>,
    /// Bytes written since the start, kept or not.
    written: u64,
    closed: bool,
}

impl StderrTail {
    /// Drains `stream` into the tail on a new thread until the stream ends.
    pub fn drain(stream: impl Read + Send + 'static) -> StderrTail {
        let tail = StderrTail::default();
        let writer = tail.clone();
        thread::spawn(move || writer.read_all(stream));
        tail
    }

    fn read_all(&self, mut stream: impl Read) {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            match stream.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => self.push(&buffer[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.lock().closed = true;
        self.shared.1.notify_all();
    }

    fn push(&self, chunk: &[u8]) {
        let mut tail = self.lock();
        tail.written += chunk.len() as u64;
        let keep = &chunk[chunk.len().saturating_sub(TAIL_BYTES)..];
        let overflow = (tail.bytes.len() + keep.len()).saturating_sub(TAIL_BYTES);
        tail.bytes.drain(..overflow);
        tail.bytes.extend(keep);
    }

    fn lock(&self) -> MutexGuard<'_, Tail> {
        self.shared
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A position in the stream, to take an excerpt from later.
    pub fn mark(&self) -> u64 {
        self.lock().written
    }

    /// Waits (at most `limit`) for the stream to end, so that what a dying process wrote
    /// last is in the tail.
    pub fn wait_closed(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut tail = self.lock();
        while !tail.closed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            tail = match self.shared.1.wait_timeout(tail, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// What was written since `mark`, as far as it is kept, and at most
    /// [`EXCERPT_BYTES`], as text.
    pub fn since(&self, mark: u64) -> String {
        let tail = self.lock();
        let new = usize::try_from(tail.written.saturating_sub(mark)).unwrap_or(usize::MAX);
        let take = new.min(tail.bytes.len()).min(EXCERPT_BYTES);
        let start = tail.bytes.len() - take;
        let bytes: Vec<u8> = tail.bytes.range(start..).copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_bounded_tail_and_excerpts_since_a_mark() {
        let tail = StderrTail::default();
        tail.push(b"early\n");
        let mark = tail.mark();
        for _ in 0..100 {
            tail.push(&[b'x'; 4096]);
        }
        tail.push(b"last words\n");
        assert!(tail.lock().bytes.len() <= TAIL_BYTES);
        let excerpt = tail.since(mark);
        assert_eq!(excerpt.len(), EXCERPT_BYTES);
        assert!(excerpt.ends_with("last words\n"));
        assert_eq!(tail.since(tail.mark()), "");
    }
}
