//! Shadow mode: the proxy changes nothing, and writes each reply where the server's
//! calls and toolfix's disagree as one JSON line, so a user measures their own server on
//! their own traffic before letting the proxy repair it.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value as Json, json};

use crate::offer::Offer;

/// Where the lines go: one file, appended to by every request.
#[derive(Clone, Debug)]
pub(crate) struct Shadow {
    file: Arc<Mutex<File>>,
}

/// One choice where toolfix's answer differs from the server's.
#[derive(Debug)]
pub(crate) struct Disagreement {
    /// The content as the server sent it (for a stream, all its pieces joined).
    pub content: Option<String>,
    /// The server's `tool_calls`.
    pub server: Json,
    /// The `tool_calls` toolfix would send.
    pub toolfix: Json,
    /// How many calls toolfix recovered from the content.
    pub recovered: usize,
    /// Whether a server call to an unoffered tool was dropped.
    pub dropped: bool,
}

impl Disagreement {
    /// The rules involved, by their ids in `docs/guarantees.md` and by what happened:
    /// `G7` `text_call` (a call written in content the server did not parse) and `G2`
    /// `unoffered_name` (a server call to a tool the request did not offer).
    fn rules(&self) -> (Vec<&'static str>, Vec<&'static str>) {
        let (mut ids, mut kinds) = (Vec::new(), Vec::new());
        if self.recovered > 0 {
            ids.push("G7");
            kinds.push("text_call");
        }
        if self.dropped {
            ids.push("G2");
            kinds.push("unoffered_name");
        }
        (ids, kinds)
    }
}

impl Shadow {
    /// Opens `path` for appending, creating it.
    pub fn open(path: &Path) -> io::Result<Shadow> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Shadow {
            file: Arc::new(Mutex::new(file)),
        })
    }

    /// Appends one line per disagreement of a reply to a request with `offer`.
    pub fn write(&self, offer: &Offer, model: &Json, stream: bool, disagreements: &[Disagreement]) {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let mut lines = String::new();
        for disagreement in disagreements {
            let (rules, kinds) = disagreement.rules();
            let line = json!({
                "time": time,
                "model": model,
                "stream": stream,
                "tools": offer.entries,
                "content": disagreement.content,
                "server": disagreement.server,
                "toolfix": disagreement.toolfix,
                "rules": rules,
                "kinds": kinds,
            });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
        // One write per reply under the lock, so concurrent replies never interleave.
        let written = match self.file.lock() {
            Ok(mut file) => file.write_all(lines.as_bytes()),
            Err(poisoned) => poisoned.into_inner().write_all(lines.as_bytes()),
        };
        if let Err(error) = written {
            eprintln!("toolfix proxy: cannot write the shadow file: {error}");
        }
    }
}
