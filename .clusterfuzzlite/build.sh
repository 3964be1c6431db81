#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script: every cargo-fuzz target of fuzz/ into $OUT,
# each with a seed corpus ($OUT/<target>_seed_corpus.zip) written from corpus/ and
# spec-cases/. The builder sets $SRC, $OUT, $SANITIZER and RUSTFLAGS (--cfg fuzzing …);
# cargo fuzz adds the sanitizer and coverage flags.
cd "$SRC/toolfix"

# Release with debug assertions, as cargo fuzz builds by default.
cargo fuzz build -O --debug-assertions
triple=x86_64-unknown-linux-gnu
targets=$(cargo fuzz list)
for target in $targets; do
    cp "fuzz/target/$triple/release/$target" "$OUT/"
done

# Seed corpora. The generator is an example of the toolfix-fuzzing crate; build it without the
# fuzzing RUSTFLAGS (it is a tool here, not a fuzz target) and into its own target dir.
RUSTFLAGS="" CARGO_TARGET_DIR="$WORK/seed-target" \
    cargo run --quiet -p toolfix-fuzzing --example seed-corpora
for target in $targets; do
    if [ -d "fuzz/corpus/$target" ]; then
        (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
