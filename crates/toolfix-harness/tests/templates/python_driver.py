"""A driver on templates/python/toolfix_driver.py whose salvage raises what its content
says, and whose stream gives a call out at the chunk that closes it: what
tests/templates.rs checks the template's answers against."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "templates" / "python"))
import toolfix_driver  # noqa: E402


def salvage(content, tools, adapter):
    if content == "unsupported":
        raise NotImplementedError("the package has no has_tool_call")
    if content == "declined":
        raise toolfix_driver.Declined("the driver does not read this")
    return [("f", "{}")] if content == "<call>" else []


class Stream:
    def __init__(self, tools, adapter):
        self.text = ""

    def feed(self, chunk):
        self.text += chunk
        if self.text.endswith("<call>"):
            return "", [("f", "{}")]
        return ("", []) if "<" in self.text else (chunk, [])

    def finish(self):
        return "", []


toolfix_driver.serve({"name": "t", "version": "0", "language": "python"},
                     {"profile": "portable", "ops": ["salvage", "salvage_stream"]},
                     salvage, stream=Stream)
