#!/usr/bin/env python3
"""The inventory of vLLM's tool parsers: every name of `ToolParserManager.list_registered()`,
tried as driver.py calls it, with the stand-in tokenizer (../engines/parser_inventory.py says what
is written and why).

    adapters/vllm/run --inventory reports/inventory-vllm.jsonl
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402  (puts ../engines on sys.path and claims stdout first)
import parser_inventory as inventory  # noqa: E402
from driver import DIALECTS, ToolParserManager, engine_driver  # noqa: E402


def loader(name):
    """How parser `name` loads: its module imported (`get_tool_parser`), then the server's
    `Parser` built around it for a request with no tools, which constructs the tool parser
    with the stand-in tokenizer. Its format is its class and the markers its constructor
    sets (else those written in its source)."""

    def load():
        try:
            parser_class = ToolParserManager.get_tool_parser(name)
        except Exception as error:  # noqa: BLE001
            raise inventory.Failed("import", error) from error
        try:
            loaded = driver.Loaded(name)
            loaded.server_parser(driver.request_for([]))
        except Exception as error:  # noqa: BLE001
            raise inventory.Failed("start", error) from error
        markers = sorted(driver.constructor_markers(parser_class, loaded.tokenizer))
        described = {"class": f"{parser_class.__module__}.{parser_class.__name__}",
                     "markers": markers or driver.source_markers(parser_class),
                     "markers_from": "its constructor" if markers else "its source"}
        return loaded.batch, loaded.stream, described

    return load


def main():
    registered = list(ToolParserManager.list_registered())
    inventory.write(sys.argv[1], "vllm", driver.vllm.__version__,
                    "ToolParserManager.list_registered()",
                    ((name, engine_driver.dialects_of(DIALECTS, name), loader(name)) for name in registered))


if __name__ == "__main__":
    main()
