//! One implementation process: spawned with its three pipes served by threads, so that
//! nothing it does can block the runner. On Unix it leads a process group of its own and
//! is killed as a group, so that nothing it started outlives it; elsewhere the process
//! itself is killed.
//!
//! Killing the group is the harness's only `unsafe` code: one `kill(2)` call (`libc`).

use std::io::Write;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::Duration;

use super::lines::{self, Event};
use super::stderr::StderrTail;

/// How long to wait, after the process is gone, for the last of its stderr.
const STDERR_SETTLE: Duration = Duration::from_millis(200);

/// A running implementation.
pub struct Process {
    child: Child,
    /// Lines to write to its stdin (written by a thread: a child that stops reading must
    /// not block the runner). `None` once stdin is closed.
    requests: Option<Sender<Vec<u8>>>,
    /// Its stdout, line by line.
    pub lines: Receiver<Event>,
    /// Its stderr tail.
    pub stderr: StderrTail,
    /// The exit status, once reaped.
    status: Option<ExitStatus>,
}

impl Process {
    /// Starts `argv` in a new process group.
    pub fn spawn(argv: &[String], max_line: usize) -> Result<Process, String> {
        let (program, args) = argv
            .split_first()
            .ok_or("the implementation command is empty")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {program:?}: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the implementation's pipes could not be opened".to_owned());
        };
        let (requests, pending) = channel::<Vec<u8>>();
        thread::spawn(move || write_lines(stdin, &pending));
        Ok(Process {
            child,
            requests: Some(requests),
            lines: lines::spawn(stdout, max_line),
            stderr: StderrTail::drain(stderr),
            status: None,
        })
    }

    /// Queues one line (a `\n` is added) for the process's stdin. A process that is gone
    /// shows up as the end of its stdout, so a failed send needs no handling here.
    pub fn send(&self, line: &str) {
        if let Some(requests) = &self.requests {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            let _ = requests.send(bytes);
        }
    }

    /// Closes the process's stdin once the queued lines are written.
    pub fn close_stdin(&mut self) {
        self.requests = None;
    }

    /// Kills the whole process group, reaps the process, and waits briefly for the last of
    /// its stderr. Returns how the process ended.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.requests = None;
            kill_group(&mut self.child);
            self.status = self.child.wait().ok();
            self.stderr.wait_closed(STDERR_SETTLE);
        }
        self.status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends SIGKILL to the process group `child` leads. The leader is not reaped yet when
/// this is called, so the group id cannot have been reused.
#[cfg(unix)]
fn kill_group(child: &mut Child) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    if pgid > 1 {
        // SAFETY: kill(2) has no memory effects; a group that is already gone is ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Kills `child` (no process groups here).
#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

fn write_lines(mut stdin: impl Write, pending: &Receiver<Vec<u8>>) {
    for line in pending {
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// The signal that ended a process, where there are signals.
fn signal(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    return std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    return None;
}

/// How a process ended, for people: `exited with status 3`, `was killed by signal 11`.
pub fn describe_exit(status: Option<ExitStatus>) -> String {
    match status {
        Some(status) => match (status.code(), signal(status)) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            (None, None) => "ended".to_owned(),
        },
        None => "could not be waited for".to_owned(),
    }
}
