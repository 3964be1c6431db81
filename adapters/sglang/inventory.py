#!/usr/bin/env python3
"""The inventory of SGLang's detectors: every name of `FunctionCallParser.ToolCallParserEnum`,
tried as driver.py calls it (../engines/parser_inventory.py says what is written and why).

    adapters/sglang/run --inventory reports/inventory-sglang.jsonl
"""

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402  (puts ../engines on sys.path and claims stdout first)
import parser_inventory as inventory  # noqa: E402
from driver import DIALECTS, FunctionCallParser, engine_driver  # noqa: E402


def loader(name):
    """How detector `name` loads: the server's `FunctionCallParser([], name)`, which
    constructs the detector; its format is its class and its start and end markers (those
    it sets, else the markers written in its module)."""

    def load():
        try:
            parser = FunctionCallParser([], name)
        except Exception as error:  # noqa: BLE001
            raise inventory.Failed("start", error) from error
        detector = parser.detector
        cls = type(detector)
        markers = [m for m in (getattr(detector, "bot_token", ""), getattr(detector, "eot_token", "")) if m]
        described = {"class": f"{cls.__module__}.{cls.__name__}",
                     "markers": markers or inventory.source_markers([cls.__module__]),
                     "markers_from": "start and end tokens" if markers else "its module's source"}
        return functools.partial(driver.batch, name), functools.partial(driver.stream, name), described

    return load


def main():
    registered = list(FunctionCallParser.ToolCallParserEnum)
    inventory.write(sys.argv[1], "sglang", driver.sglang.__version__,
                    "FunctionCallParser.ToolCallParserEnum",
                    ((name, engine_driver.dialects_of(DIALECTS, name), loader(name)) for name in registered))


if __name__ == "__main__":
    main()
