#!/usr/bin/env bash
# Usage: benches/ab/run.sh BASE FAMILY [RUNS]
# Times FAMILY's 1 MiB reply under this checkout and under commit BASE, alternately in one
# process (src/main.rs). BASE is checked out as a worktree under target/ab-base.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: run.sh BASE FAMILY [RUNS]}
family=${2:?usage: run.sh BASE FAMILY [RUNS]}
runs=${3:-300}
dir=target/ab-base
git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
git worktree prune
git worktree add --detach --force "$dir" "$base" >/dev/null
# Cargo tells two path packages apart by name and version only.
sed -i 's/^version.workspace = true/version = "0.0.0-base"/' "$dir/crates/toolfix/Cargo.toml"
cargo run --quiet --release --manifest-path benches/ab/Cargo.toml -- "$family" "$runs"
