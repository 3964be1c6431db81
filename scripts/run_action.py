#!/usr/bin/env python3
"""Run the composite action in action.yml outside GitHub, as a runner would.

    python scripts/run_action.py --input driver='toolfix serve' [--input version=0.3.0] ...

Each step's `run` script is executed with bash, with its `env` block, the
`${{ inputs.* }}` and `${{ github.action_path }}` expressions substituted, and the
runner's files (`GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`) in
a scratch folder; a path a step adds to `GITHUB_PATH` reaches the later steps. Prints
the job summary the run wrote and exits with the status of the first step that fails
(0 when all pass), so CI checks the action exactly as users run it. Needs PyYAML.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXPRESSION = re.compile(r"\$\{\{\s*([a-z_.-]+)\s*\}\}")


def substitute(text, inputs):
    """`text` with the action's expressions replaced by their values."""
    def value(match):
        name = match.group(1)
        if name == "github.action_path":
            return str(ROOT)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        if name.startswith("steps."):
            return ""
        raise SystemExit(f"action.yml: unsupported expression {name}")
    return EXPRESSION.sub(value, text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    for pair in args.input:
        name, _, value = pair.partition("=")
        if name not in inputs:
            raise SystemExit(f"action.yml has no input {name!r}")
        inputs[name] = value
    missing = [n for n, spec in action["inputs"].items() if spec.get("required") and not inputs[n]]
    if missing:
        raise SystemExit(f"required inputs missing: {missing}")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        files = {name: scratch / name for name in ("path", "output", "summary")}
        for file in files.values():
            file.touch()
        extra_path = []
        for step in action["runs"]["steps"]:
            env = {**os.environ, "RUNNER_TEMP": str(scratch), "GITHUB_PATH": str(files["path"]),
                   "GITHUB_OUTPUT": str(files["output"]),
                   "GITHUB_STEP_SUMMARY": str(files["summary"])}
            env.update({k: substitute(str(v), inputs) for k, v in step.get("env", {}).items()})
            env["PATH"] = os.pathsep.join([*extra_path, env["PATH"]])
            print(f"==> action step: {step['name']}", flush=True)
            status = subprocess.run(["bash", "-c", substitute(step["run"], inputs)], env=env,
                                    cwd=os.getcwd()).returncode
            extra_path = [line for line in files["path"].read_text().splitlines() if line]
            if status != 0:
                print(f"action step {step['name']!r} failed with status {status}")
                print(files["summary"].read_text())
                return status
        print(files["summary"].read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
