//! Server-sent events as the upstream sends them: cut into whole events, however the
//! bytes are chunked, each kept raw so an event the proxy does not change is relayed
//! byte for byte.

/// Bytes received and not yet a whole event.
#[derive(Debug)]
pub(crate) struct Events {
    buf: Vec<u8>,
    /// Where the line being read starts, and how far `buf` was searched for its end:
    /// each byte is searched once.
    line_start: usize,
    /// The most bytes one event may have.
    max: usize,
}

/// An event longer than the limit.
#[derive(Debug)]
pub(crate) struct TooLong(pub usize);

impl Events {
    /// Events of at most `max` bytes.
    pub fn new(max: usize) -> Events {
        Events {
            buf: Vec::new(),
            line_start: 0,
            max,
        }
    }

    /// Takes the next bytes; `out` receives each event completed, with the blank line
    /// that ends it.
    pub fn push(&mut self, data: &[u8], out: &mut Vec<Vec<u8>>) -> Result<(), TooLong> {
        let mut searched = self.buf.len();
        self.buf.extend_from_slice(data);
        let mut consumed = 0;
        while let Some(offset) = self.buf[searched..].iter().position(|&b| b == b'\n') {
            let end = searched + offset;
            let line = &self.buf[self.line_start..end];
            let blank = line.is_empty() || line == b"\r";
            searched = end + 1;
            self.line_start = searched;
            if blank {
                out.push(self.buf[consumed..searched].to_vec());
                consumed = searched;
            }
        }
        self.buf.drain(..consumed);
        self.line_start -= consumed;
        match self.buf.len() > self.max {
            true => Err(TooLong(self.max)),
            false => Ok(()),
        }
    }

    /// What is left at the end of the stream: an event without its closing blank line.
    pub fn rest(&mut self) -> Vec<u8> {
        self.line_start = 0;
        std::mem::take(&mut self.buf)
    }
}

/// The data of an event: its `data:` lines joined by newlines, `None` when it has none
/// (a comment, a keep-alive).
pub(crate) fn data_of(event: &[u8]) -> Option<String> {
    let mut data: Option<String> = None;
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        let value = String::from_utf8_lossy(value);
        match data.as_mut() {
            Some(data) => {
                data.push('\n');
                data.push_str(&value);
            }
            None => data = Some(value.into_owned()),
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_whole_at_every_cut() {
        let stream = b"data: {\"a\": 1}\n\n: keep-alive\r\n\r\ndata: [DONE]\n\n";
        for cut in 0..=stream.len() {
            let mut events = Events::new(1 << 10);
            let mut out = Vec::new();
            events.push(&stream[..cut], &mut out).unwrap();
            events.push(&stream[cut..], &mut out).unwrap();
            assert_eq!(out.concat(), stream.to_vec(), "cut at {cut}");
            assert_eq!(out.len(), 3);
            assert_eq!(data_of(&out[0]).as_deref(), Some("{\"a\": 1}"));
            assert_eq!(data_of(&out[1]), None);
            assert_eq!(data_of(&out[2]).as_deref(), Some("[DONE]"));
        }
    }

    #[test]
    fn an_event_past_the_limit_is_refused() {
        let mut events = Events::new(8);
        assert!(events.push(b"data: 0123456789", &mut Vec::new()).is_err());
    }
}
