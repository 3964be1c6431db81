"""A minimal protocol-v1 client, shared by this adapter's self-tests.

It starts a driver command, writes one request line at a time and reads the
answer line.  The driver's stderr (the package logs every tool error there)
goes to a temporary file so test output stays readable; ``stderr_tail()``
shows it when something fails.
"""

import json
import subprocess
import sys
import tempfile

# Test requests nest deeper than the package tolerates (that is the point of
# the recursion cases); encoding and decoding them must not fail here first.
PROTOCOL_RECURSION_LIMIT = 20000


class DriverProcess:
    """One running driver, spoken to over its stdin/stdout."""

    def __init__(self, argv):
        sys.setrecursionlimit(max(sys.getrecursionlimit(), PROTOCOL_RECURSION_LIMIT))
        sys.set_int_max_str_digits(0)
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr)
        self._seq = 0

    def send_raw(self, line):
        """Write one raw line (bytes, without newline); return the decoded answer."""
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"driver closed stdout; stderr:\n{self.stderr_tail()}")
        return json.loads(answer)

    def request(self, obj):
        return self.send_raw(json.dumps(obj).encode("utf-8"))

    def hello(self):
        return self.request({"cmd": "hello", "protocol": 1})

    def run(self, op, inp):
        """Send one case; return its answer (``output``/``errored``/``skipped`` object)."""
        self._seq += 1
        answer = self.request({"cmd": "run", "seq": self._seq, "op": op, "input": inp})
        if answer.get("seq") != self._seq:
            raise RuntimeError(f"answer for seq {answer.get('seq')}, expected {self._seq}")
        return answer

    def output(self, op, inp):
        """The ``output`` of one case; raises if the driver did not give one."""
        answer = self.run(op, inp)
        if "output" not in answer:
            raise RuntimeError(f"{op}: no output: {answer}")
        return answer["output"]

    def stop(self, timeout=10):
        """Send ``stop``; return (exit status, any bytes written after it)."""
        self.proc.stdin.write(b'{"cmd": "stop"}\n')
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        return self.proc.wait(timeout=timeout), rest

    def stderr_tail(self, limit=4000):
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-limit:]

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()
