#!/usr/bin/env python3
"""A fake implementation of the toolfix driver protocol that misbehaves on purpose.

Usage: fake.py MODE

It declares op `salvage` with dialect `tool_call` only, and answers every salvage
request with {"calls": null}, except the one whose content is "boom", where MODE says
what goes wrong. Modes that misbehave outside a case (the handshake, right after it) do
so regardless of content. The runner's tests (tests/hostile.rs) check that each
misbehaviour ends as the right outcome for the right case, in bounded time and memory.
"""

import json
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
OUT = sys.stdout


def send(obj):
    OUT.write(json.dumps(obj) + "\n")
    OUT.flush()


def hello():
    if MODE == "no-handshake":
        time.sleep(3600)
    if MODE == "bad-handshake":
        send({"protocol": 99})
        return
    send({
        "protocol": 1,
        "implementation": {"name": "fake-" + MODE, "version": "0.0.1", "language": "python"},
        "profile": "strict",
        "ops": ["salvage"],
        "dialects": ["tool_call"],
    })
    if MODE == "exit-after-handshake":
        sys.stderr.write("fake: leaving right after the handshake\n")
        sys.exit(0)


def boom(seq):
    """Misbehave on the case whose content is "boom"."""
    if MODE == "crash":
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: fake crash\n")
        sys.stderr.flush()
        sys.exit(3)
    elif MODE == "hang":
        time.sleep(3600)
    elif MODE == "garbage":
        OUT.write("this is not JSON\n")
        OUT.flush()
    elif MODE == "wrong-seq":
        send({"seq": seq + 1000, "output": {"calls": None}})
    elif MODE == "twice":
        send({"seq": seq, "output": {"calls": None}})
        send({"seq": seq, "output": {"calls": None}})
    elif MODE == "both":
        send({"seq": seq, "output": {"calls": None}, "errored": "and also this"})
    elif MODE == "errored":
        send({"seq": seq, "errored": "ValueError: fake failure"})
    elif MODE == "skipped":
        send({"seq": seq, "skipped": "not supported here"})
    elif MODE == "skipped-without-reason":
        send({"seq": seq, "skipped": ""})
    elif MODE == "flood-stdout":
        chunk = "x" * (1 << 20)
        for _ in range(100):
            OUT.write(chunk)
        OUT.write("\n")
        OUT.flush()
        send({"seq": seq, "output": {"calls": None}})
    elif MODE == "flood-stderr":
        chunk = b"e" * (1 << 20)
        for _ in range(200):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"\nfake: flood done\n")
        sys.stderr.flush()
        send({"seq": seq, "output": {"calls": None}})
    else:
        send({"seq": seq, "output": {"calls": None}})


def main():
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request.get("cmd")
        if cmd == "hello":
            hello()
        elif cmd == "stop":
            return
        elif MODE == "skip-everything":
            send({"seq": request["seq"], "skipped": "not implemented yet"})
        elif request.get("input", {}).get("content") == "boom":
            boom(request["seq"])
        else:
            send({"seq": request["seq"], "output": {"calls": None}})


if __name__ == "__main__":
    main()
