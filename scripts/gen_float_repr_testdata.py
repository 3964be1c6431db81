#!/usr/bin/env python3
"""Records CPython's `repr` of the floats where shortest round-trip printing goes wrong.

Writes `crates/toolfix/src/py/testdata/float-repr-cpython-3.11.txt`, which the unit tests of
`crates/toolfix/src/py/float_repr.rs` replay against `float_repr`, `json.dumps`, `str()` and the JSON
decoder. Run it with CPython 3.11.7 (the interpreter toolfix reproduces); the seed is
fixed, so the output is the same on every run:

    python3 scripts/gen_float_repr_testdata.py

Line 1 is a header comment. Every other line is one float, `BITS REPR`: the IEEE 754 bit
pattern as 16 hex digits and `repr(x)`. The floats, each once, in this order:

* every power of two, `math.ldexp(1.0, e)` for e in -1074..1023, and its negative: where the
  gap below a float is half the gap above, so the nearest string of the shortest length
  can fall outside the rounding interval;
* the neighbours of each of those powers (one bit pattern below and above);
* the subnormal boundaries: the smallest and largest subnormal, the smallest normal, zero,
  the largest finite float, and their neighbours;
* a seeded sample of arbitrary bit patterns (every exponent equally likely);
* a seeded sample of short decimals (`d.ddd…e±N`), whose exact halves test the tie rule.
"""

import math
import pathlib
import platform
import random
import struct

SEED = 1605
RANDOM_BITS = 12000
SHORT_DECIMALS = 6000
OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/toolfix/src/py/testdata/float-repr-cpython-3.11.txt"


def bits(x):
    """The bit pattern of a float."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    """The float with a bit pattern."""
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def finite(b):
    """Whether a bit pattern is a finite float."""
    return (b >> 52) & 0x7FF != 0x7FF


def floats():
    """Every float of the table, in order (duplicates removed later)."""
    powers = [math.ldexp(1.0, e) for e in range(-1074, 1024)]
    yield from powers
    yield from (-p for p in powers)
    for p in powers:
        yield from (from_bits(bits(p) - 1), from_bits(bits(p) + 1))
    boundaries = [0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0, 0x7FEFFFFFFFFFFFFF]
    for b in boundaries:
        for n in (b - 1, b, b + 1):
            if 0 <= n and finite(n):
                yield from_bits(n)
                yield -from_bits(n)
    rng = random.Random(SEED)
    for _ in range(RANDOM_BITS):
        exponent = rng.randrange(0, 0x7FF)
        b = (rng.getrandbits(1) << 63) | (exponent << 52) | rng.getrandbits(52)
        yield from_bits(b)
    for _ in range(SHORT_DECIMALS):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 18)))
        yield float(f"{digits[0]}.{digits[1:] or '0'}e{rng.randrange(-330, 310)}")


def main():
    seen = set()
    lines = [f"# repr(x) in CPython {platform.python_version()}: BITS REPR; scripts/gen_float_repr_testdata.py"]
    for x in floats():
        b = bits(x)
        if b in seen or not math.isfinite(x):
            continue
        seen.add(b)
        lines.append(f"{b:016x} {x!r}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} floats to {OUT}")


if __name__ == "__main__":
    main()
