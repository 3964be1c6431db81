#!/usr/bin/env bash
# Writes the seed corpora fuzz/corpus/<target>/ from corpus/ and spec-cases/ (see
# `toolfix::fuzzing::seeds`). Idempotent: seeds are named after the item or case id.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet -p toolfix-fuzzing --example seed-corpora
