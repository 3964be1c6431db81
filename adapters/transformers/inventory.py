#!/usr/bin/env python3
"""The inventory of transformers' fallback response templates: every entry of
`transformers/cli/serving/utils.py`'s `_RESPONSE_TEMPLATE_FALLBACKS`, named by driver.py's
run argument for it (or, for an entry the driver has none for, by its first model type),
tried as driver.py calls it (../engines/parser_inventory.py says what is written and why).

    adapters/transformers/run --inventory reports/inventory-transformers.jsonl
"""

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402  (puts ../engines on sys.path and claims stdout first)
import parser_inventory as inventory  # noqa: E402
from driver import _RESPONSE_TEMPLATE_FALLBACKS, TEMPLATES  # noqa: E402


def entries():
    """(name, dialects, load) per fallback entry, in transformers' order."""
    for model_types in _RESPONSE_TEMPLATE_FALLBACKS:
        name = next((run for run, (model_type, _, _) in TEMPLATES.items() if model_type in model_types),
                    None)
        described = {"class": "response_template for " + ", ".join(model_types), "markers": [],
                     "markers_from": "the template's regular expressions"}

        def load(name=name, described=described):
            if name is None:
                # No prefix (the prompt's end its chat template writes) is known for it.
                raise inventory.Failed("start", LookupError("driver.py has no run argument for this fallback"))
            return functools.partial(driver.batch, name), functools.partial(driver.stream, name), described

        yield name or model_types[0], (TEMPLATES[name][2] if name else []), load


def main():
    inventory.write(sys.argv[1], "transformers", driver.transformers.__version__,
                    "_RESPONSE_TEMPLATE_FALLBACKS", entries())


if __name__ == "__main__":
    main()
