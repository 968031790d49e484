#!/usr/bin/env python3
"""Write tests/c/mt19937_fixtures.h: numpy RandomState known answers for test_mt19937.c.

Run from anywhere with the project's Python (numpy 2.x); the header is checked in and CI does
not regenerate it (as tests/c/rng_fixtures.h):

    python tests/c/gen_mt19937_fixtures.py [--out tests/c/mt19937_fixtures.h]

Every value comes from np.random.RandomState(seed) (MT19937 with legacy seeding). Every expected
double is stored as its uint64 bit pattern. Long runs are stored as a checksum (mx_hash below,
mirrored in C) plus their first few values and what follows the run: the next raw 32-bit output
(bit_generator.random_raw(), which for MT19937 is one mt19937_next32) and RandomState's cached
Gaussian (get_state()[3:5]), which pin down exactly how many outputs the run consumed and what it
left in the cache. Runs are drawn with numpy's array calls (size=n); the script asserts on a
prefix that they equal the same number of scalar calls, which is what the C side makes.
"""

import argparse
import math
import os
import random
import struct
import sys

import numpy as np

M64 = (1 << 64) - 1
# The seeds the task names, then three drawn once from a fixed Python generator.
SEEDS = [0, 1, 42, 2**31, 2**32 - 1] + [random.Random(19937).getrandbits(32) for _ in range(3)]
N_FIRST = 8
N_RAW = 1_000_000  # raw 32-bit outputs per seed (1,602 regenerations)
N_RAND = 1_000_000  # random_sample() per seed
N_RANDN = 1_000_001  # randn() per seed: odd, so the run ends with a cached Gaussian
N_UNIF = 125_000  # uniform(lo, hi) per seed and bounds
N_INT = 100_000  # randint(lo, hi) per seed and range
N_CHOICE_P = 50_000  # choice(n, p=p) per seed and p

UNIF_BOUNDS = [
    (0.0, 1.0),
    (-1.0, 1.0),
    (-math.pi, math.pi),
    (-0.034, 0.034),
    (0.15, 1.0),
    (-1e300, 1e300),
    (5.0, -5.0),  # high < low: numpy runs the formula
    (2.5, 2.5),
    (1e-300, 3e-300),
]
INT_RANGES = [
    (0, 1),  # no draw
    (0, 2),
    (0, 7),
    (0, 5),
    (0, 1000),
    (0, 2**31),
    (0, 2**32 - 1),
    (0, 2**32),  # rng = 2^32 - 1: next32 whole
    (0, 2**32 + 1),  # rng = 2^32: 64-bit words, about half rejected
    (0, 2**40),
    (-5, 2),
    (-7, 0),
    (-(2**31), 2**31),
    (-(2**40), 2**40 + 3),
    (10**9, 10**9 + 3),
    (0, 2**62 + 1),
    (-(2**63), 2**63 - 1),  # rng = 2^64 - 2
    (-(2**63), -(2**63) + 2),
]
# (pop_size, k, replace, repetitions on one generator)
CHOICE_CASES = [
    (1, 5, 1, 3),
    (3, 4, 1, 100),
    (10, 100, 1, 100),
    (2**31 + 5, 3, 1, 100),
    (2**33, 3, 1, 100),
    (0, 0, 1, 3),
    (5, 3, 0, 1000),
    (5, 5, 0, 1000),
    (5, 0, 0, 100),
    (1, 1, 0, 10),
    (1, 0, 0, 10),
    (0, 0, 0, 10),
    (2, 1, 0, 1000),
    (100, 10, 0, 100),
    (1000, 1000, 0, 10),
    (70000, 5, 0, 3),
]
_P_IN = 0.1  # dm_control manipulator's _P_IN_HAND and _P_IN_TARGET
_prng = random.Random(7)
_ten = [_prng.random() for _ in range(10)]
P_CASES = [
    [_P_IN, _P_IN, 1 - _P_IN - _P_IN],
    [0.5, 0.5],
    [1.0],
    [0.0, 0.3, 0.0, 0.7, 0.0],
    [1 / 3, 1 / 3, 1 / 3],
    [x / sum(_ten) for x in _ten],
    [0.25, 0.25, 0.25, 0.25 + 1e-9],  # sums to 1 within numpy's atol, not exactly
]
P_MAX = max(len(p) for p in P_CASES)


# --------------------------------------------------------------------------- helpers


def dbits(v):
    return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


def mx_hash_all(vals, h=None):
    """Checksum, mirrored by mx_hash() in the header: h = (h ^ v) * FNV prime mod 2^64."""
    h = MX_H0 if h is None else h
    for v in vals:
        h = ((h ^ (v & M64)) * 0x100000001B3) & M64
    return h


MX_H0 = 0xCBF29CE484222325


def u64(x):
    return f"0x{x & M64:016X}ULL"


def i64(x):
    if x == -(2**63):
        return "INT64_MIN"
    return f"INT64_C({x})"


class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, s=""):
        self.lines.append(s)

    def arr(self, ctype, name, dims, flat, fmt, per_line=4):
        """Emit a fully braced array initializer, per_line values a line."""
        assert len(flat) == math.prod(dims), name
        dims_s = "".join(f"[{d}]" for d in dims)
        self(f"static const {ctype} {name}{dims_s} = {{")
        self._block(dims, flat, fmt, per_line, 1)
        self("};")

    def _block(self, dims, flat, fmt, per_line, depth):
        pad = "    " * depth
        if len(dims) == 1:
            for i in range(0, len(flat), per_line):
                self(pad + " ".join(fmt(v) + "," for v in flat[i : i + per_line]))
            return
        step = len(flat) // dims[0]
        for i in range(dims[0]):
            sub = flat[i * step : (i + 1) * step]
            if len(dims) == 2 and step <= per_line:
                self(pad + "{" + ", ".join(fmt(v) for v in sub) + "},")
            else:
                self(pad + "{")
                self._block(dims[1:], sub, fmt, per_line, depth + 1)
                self(pad + "},")


def rs_of(seed):
    return np.random.RandomState(seed)


def after(rs):
    """What follows a run: the next raw 32-bit output, has_gauss, the cached Gaussian's bits
    (read before the raw draw; random_raw leaves the cache alone)."""
    st = rs.get_state()
    return [int(rs._bit_generator.random_raw()), int(st[3]), dbits(st[4])]


def fbits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64).tolist()


def same_as_scalar(seed, array_call, scalar_call, n=1500):
    """Assert that one array call of n draws equals n scalar calls, state included."""
    ra, rb = rs_of(seed), rs_of(seed)
    a = np.asarray(array_call(ra, n))
    b = [scalar_call(rb) for _ in range(n)]
    if a.dtype == np.float64:
        assert fbits(a) == fbits(np.array(b, dtype=np.float64)), "array call != scalar calls"
    else:
        assert a.tolist() == [int(x) for x in b], "array call != scalar calls"
    assert after(ra) == after(rb), "array call consumed differently"


# --------------------------------------------------------------------------- blocks


def emit_seeds(out):
    ns = len(SEEDS)
    out(f"#define MX_NSEEDS {ns}")
    out.arr("uint64_t", "mx_seeds", [ns], SEEDS, u64)
    rows = []
    for s in SEEDS:
        _, key, pos, has_gauss, gauss = rs_of(s).get_state()
        key = [int(k) for k in key]
        assert len(key) == 624 and pos == 624 and has_gauss == 0 and gauss == 0.0
        rows += key[:4] + [key[623], mx_hash_all(key)]
    out("/* RandomState(seed).get_state(): key[0..3], key[623], mx_hash of key[0..623] (pos is 624,")
    out("   has_gauss 0, for every seed). */")
    out.arr("uint64_t", "mx_seed_key", [ns, 6], rows, u64, 6)


def emit_run(out, name, what, n, draw, fmt_first=u64):
    """One run per seed: draw(rs, n) -> list of uint64; first values, hash, after()."""
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        rs = rs_of(s)
        vals = draw(rs, n)
        assert len(vals) == n
        first += vals[:N_FIRST]
        hashes.append(mx_hash_all(vals))
        nexts += after(rs)
    ns = len(SEEDS)
    out(f"/* {what}: first {N_FIRST}, mx_hash of all {n}, then next raw, has_gauss, gauss bits. */")
    out(f"#define MX_{name.upper()}_N {n}")
    out.arr("uint64_t", f"mx_{name}_first", [ns, N_FIRST], first, fmt_first)
    out.arr("uint64_t", f"mx_{name}_hash", [ns], hashes, u64)
    out.arr("uint64_t", f"mx_{name}_after", [ns, 3], nexts, u64, 3)
    print(f"{name}: {ns} seeds x {n}")


def emit_uniform(out):
    for lo, hi in UNIF_BOUNDS:
        same_as_scalar(
            SEEDS[2], lambda r, n, lo=lo, hi=hi: r.uniform(lo, hi, n), lambda r, lo=lo, hi=hi: r.uniform(lo, hi)
        )
    ns, nb = len(SEEDS), len(UNIF_BOUNDS)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for lo, hi in UNIF_BOUNDS:
            rs = rs_of(s)
            vals = fbits(rs.uniform(lo, hi, N_UNIF))
            first += vals[:4]
            hashes.append(mx_hash_all(vals))
            nexts += after(rs)
    out(f"/* uniform(lo, hi), {N_UNIF} draws per seed and bounds from a fresh RandomState(seed): first 4,")
    out("   mx_hash, next raw / has_gauss / gauss bits. */")
    out(f"#define MX_UNIF_N {N_UNIF}")
    out(f"#define MX_NUNIF {nb}")
    out.arr("uint64_t", "mx_unif_bounds", [nb, 2], [dbits(v) for b in UNIF_BOUNDS for v in b], u64, 2)
    out.arr("uint64_t", "mx_unif_first", [ns, nb, 4], first, u64)
    out.arr("uint64_t", "mx_unif_hash", [ns, nb], hashes, u64)
    out.arr("uint64_t", "mx_unif_after", [ns, nb, 3], nexts, u64, 3)
    print(f"uniform: {ns} seeds x {nb} bounds x {N_UNIF}")


def emit_randint(out):
    for lo, hi in INT_RANGES:
        same_as_scalar(
            SEEDS[3],
            lambda r, n, lo=lo, hi=hi: r.randint(lo, hi, n, dtype=np.int64),
            lambda r, lo=lo, hi=hi: r.randint(lo, hi),
        )
    ns, nr = len(SEEDS), len(INT_RANGES)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for lo, hi in INT_RANGES:
            rs = rs_of(s)
            a = rs.randint(lo, hi, N_INT)  # dtype int: int64 here
            assert a.dtype == np.int64
            assert a.min() >= lo and a.max() < hi
            vals = a.view(np.uint64).tolist()
            first += vals[:4]
            hashes.append(mx_hash_all(vals))
            nexts += after(rs)
    out(f"/* randint(lo, hi) (int64), {N_INT} draws per seed and range from a fresh RandomState(seed):")
    out("   first 4, mx_hash of the values as uint64, next raw / has_gauss / gauss bits. */")
    out(f"#define MX_INT_N {N_INT}")
    out(f"#define MX_NIRANGE {nr}")
    out.arr("int64_t", "mx_irange", [nr, 2], [v for r in INT_RANGES for v in r], i64, 2)
    out.arr("uint64_t", "mx_int_first", [ns, nr, 4], first, u64)
    out.arr("uint64_t", "mx_int_hash", [ns, nr], hashes, u64)
    out.arr("uint64_t", "mx_int_after", [ns, nr, 3], nexts, u64, 3)
    print(f"randint: {ns} seeds x {nr} ranges x {N_INT}")


def choice_call(rs, pop, k, replace):
    return [int(v) for v in np.asarray(rs.choice(pop, k, replace=bool(replace))).ravel().tolist()]


def emit_choice(out):
    ns, nc = len(SEEDS), len(CHOICE_CASES)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for pop, k, replace, reps in CHOICE_CASES:
            rs = rs_of(s)
            allv = []
            for r in range(reps):
                v = choice_call(rs, pop, k, replace)
                assert len(v) == k
                if not replace:
                    assert len(set(v)) == k
                    if r == 0 and pop <= 1000:  # equals permutation(pop)[:k] on a twin generator
                        twin = rs_of(s)
                        for _ in range(r):
                            twin.permutation(pop)
                        assert twin.permutation(pop)[:k].tolist() == v
                allv += v
            first += (allv + [0] * N_FIRST)[:N_FIRST]
            hashes.append(mx_hash_all(allv))
            nexts += after(rs)
    out("/* choice(pop, k, replace) (int population, no p): pop, k, replace, repetitions on one")
    out("   RandomState(seed); per seed and case: the first 8 values over all repetitions (0-padded),")
    out("   mx_hash of them all, next raw / has_gauss / gauss bits. */")
    out(f"#define MX_NCHOICE {nc}")
    out.arr("int64_t", "mx_choice_case", [nc, 4], [v for c in CHOICE_CASES for v in c], i64, 4)
    out.arr("uint64_t", "mx_choice_first", [ns, nc, N_FIRST], first, u64)
    out.arr("uint64_t", "mx_choice_hash", [ns, nc], hashes, u64)
    out.arr("uint64_t", "mx_choice_after", [ns, nc, 3], nexts, u64, 3)
    print(f"choice: {ns} seeds x {nc} cases")


def emit_choice_p(out):
    for p in P_CASES:
        same_as_scalar(SEEDS[4], lambda r, n, p=p: r.choice(len(p), n, p=p), lambda r, p=p: r.choice(len(p), p=p))
        assert (
            rs_of(5).choice(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"][: len(p)], p=p)
            == "abcdefghij"[rs_of(5).choice(len(p), p=p)]
        )
    ns, nps = len(SEEDS), len(P_CASES)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for p in P_CASES:
            rs = rs_of(s)
            vals = rs.choice(len(p), N_CHOICE_P, p=p).astype(np.int64).tolist()
            first += vals[:4]
            hashes.append(mx_hash_all(vals))
            nexts += after(rs)
    out(f"/* choice(n, p=p), {N_CHOICE_P} draws per seed and p from a fresh RandomState(seed): n, p (bits,")
    out("   0-padded), first 4, mx_hash, next raw / has_gauss / gauss bits. */")
    out(f"#define MX_CHOICE_P_N {N_CHOICE_P}")
    out(f"#define MX_NP {nps}")
    out(f"#define MX_P_MAX {P_MAX}")
    out.arr("int", "mx_p_len", [nps], [len(p) for p in P_CASES], str)
    out.arr("uint64_t", "mx_p", [nps, P_MAX], [dbits(v) for p in P_CASES for v in p + [0.0] * (P_MAX - len(p))], u64)
    out.arr("uint64_t", "mx_choice_p_first", [ns, nps, 4], first, u64)
    out.arr("uint64_t", "mx_choice_p_hash", [ns, nps], hashes, u64)
    out.arr("uint64_t", "mx_choice_p_after", [ns, nps, 3], nexts, u64, 3)
    print(f"choice p: {ns} seeds x {nps} p x {N_CHOICE_P}")


# --------------------------------------------------------------------------- mixed sequence

SEQ_N = 1500
SEQ_LOOPS = 40  # then the same ops 40 times more on the same generator, checked by one hash
SEQ_CHOICE = [(5, 3, 0), (7, 7, 0), (10, 4, 1), (2**33, 2, 1), (40, 40, 0)]


def sequence_ops():
    """A fixed random mix of every call: op, a, b (a, b are double bits or ints by op)."""
    rnd = random.Random(624)
    ops = []
    for _ in range(SEQ_N):
        op = rnd.choices(range(8), weights=[2, 3, 3, 5, 3, 2, 1, 1])[0]
        if op == 2:  # uniform
            lo, hi = UNIF_BOUNDS[rnd.randrange(len(UNIF_BOUNDS))]
            ops.append((op, dbits(lo), dbits(hi)))
        elif op == 4:  # randint
            lo, hi = INT_RANGES[rnd.randrange(len(INT_RANGES))]
            ops.append((op, lo & M64, hi & M64))
        elif op == 5:  # normal
            ops.append((op, dbits(rnd.uniform(-3, 3)), dbits(rnd.choice([0.0, 0.01, 1.0, 2.5]))))
        elif op == 6:  # choice
            ops.append((op, rnd.randrange(len(SEQ_CHOICE)), 0))
        elif op == 7:  # choice with p
            ops.append((op, rnd.randrange(len(P_CASES)), 0))
        else:  # 0 next32, 1 rand, 3 randn
            ops.append((op, 0, 0))
    return ops


def signed(x):
    return x - (1 << 64) if x >> 63 else x


def bitsd(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def run_sequence(seed, ops):
    rs = rs_of(seed)
    outv = seq_pass(rs, ops)
    first_after = after(rs)
    h = MX_H0
    for _ in range(SEQ_LOOPS):
        h = mx_hash_all(seq_pass(rs, ops), h)
    return outv, first_after, h, after(rs)


def seq_pass(rs, ops):
    outv = []
    for op, a, b in ops:
        if op == 0:
            v = int(rs._bit_generator.random_raw())
        elif op == 1:
            v = dbits(rs.rand())
        elif op == 2:
            v = dbits(rs.uniform(bitsd(a), bitsd(b)))
        elif op == 3:
            v = dbits(rs.randn())
        elif op == 4:
            v = rs.randint(signed(a), signed(b)) & M64
        elif op == 5:
            v = dbits(rs.normal(bitsd(a), bitsd(b)))
        elif op == 6:
            pop, k, replace = SEQ_CHOICE[a]
            v = mx_hash_all(choice_call(rs, pop, k, replace))
        else:
            p = P_CASES[a]
            v = int(rs.choice(len(p), p=p))
        outv.append(v)
    return outv


def emit_sequence(out):
    ops = sequence_ops()
    ns = len(SEEDS)
    expect, nexts, loop_hash, loop_nexts = [], [], [], []
    for s in SEEDS:
        v, nx, h, lnx = run_sequence(s, ops)
        expect += v
        nexts += nx
        loop_hash.append(h)
        loop_nexts += lnx
    out("/* The mixed sequence: one RandomState(seed) through every kind of call (op 0 next32 =")
    out("   random_raw(), 1 rand(), 2 uniform(a, b), 3 randn(), 4 randint(a, b), 5 normal(a, b),")
    out("   6 choice(mx_seq_choice[a]) (its mx_hash), 7 choice(n, p=mx_p[a])); a and b are double bits")
    out("   or int64 as uint64. Expected values per seed and op, then next raw / has_gauss / gauss bits. */")
    out(f"#define MX_SEQ_N {len(ops)}")
    out(f"#define MX_NSEQ_CHOICE {len(SEQ_CHOICE)}")
    out.arr("int64_t", "mx_seq_choice", [len(SEQ_CHOICE), 3], [v for c in SEQ_CHOICE for v in c], i64, 3)
    out("typedef struct { int op; uint64_t a, b; } mx_seq_op;")
    out(f"static const mx_seq_op mx_seq_ops[{len(ops)}] = {{")
    for i in range(0, len(ops), 3):
        out("    " + " ".join(f"{{{o}, {u64(a)}, {u64(b)}}}," for o, a, b in ops[i : i + 3]))
    out("};")
    out.arr("uint64_t", "mx_seq_expect", [ns, len(ops)], expect, u64)
    out.arr("uint64_t", "mx_seq_after", [ns, 3], nexts, u64, 3)
    out(f"/* Then (after next raw / has_gauss / gauss were read, the raw draw included) the same ops {SEQ_LOOPS}")
    out("   times more on the same generator: mx_hash of all their values, next raw / has_gauss / gauss bits. */")
    out(f"#define MX_SEQ_LOOPS {SEQ_LOOPS}")
    out.arr("uint64_t", "mx_seq_loop_hash", [ns], loop_hash, u64)
    out.arr("uint64_t", "mx_seq_loop_after", [ns, 3], loop_nexts, u64, 3)
    counts = [sum(1 for o in ops if o[0] == k) for k in range(8)]
    print(f"sequence: {ns} seeds x {len(ops)} ops (then x {SEQ_LOOPS} hashed), per kind {counts}")


# --------------------------------------------------------------------------- main


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "mt19937_fixtures.h"))
    args = ap.parse_args()

    # The facts the C side relies on.
    same_as_scalar(0, lambda r, n: r._bit_generator.random_raw(n), lambda r: r._bit_generator.random_raw())
    same_as_scalar(0, lambda r, n: r.rand(n), lambda r: r.rand())
    same_as_scalar(0, lambda r, n: r.random_sample(n), lambda r: r.rand())
    same_as_scalar(0, lambda r, n: r.randn(n), lambda r: r.randn())
    same_as_scalar(0, lambda r, n: r.standard_normal(n), lambda r: r.randn())
    same_as_scalar(0, lambda r, n: r.normal(0.5, 2.0, n), lambda r: r.normal(0.5, 2.0))
    same_as_scalar(1, lambda r, n: r.randn(n), lambda r: r.randn(), n=1501)
    raw = rs_of(0)._bit_generator.random_raw(2)
    assert rs_of(0).randint(0, 2**40) == ((int(raw[0]) << 32 | int(raw[1])) & (2**40 - 1)), "next64 order"
    assert rs_of(5489)._bit_generator.random_raw() == 3499211612  # MT19937 reference first output

    out = Out()
    out("/* mt19937_fixtures.h: GENERATED by tests/c/gen_mt19937_fixtures.py; do not edit.")
    out(f" * numpy {np.__version__}, Python {sys.version.split()[0]}. Doubles are uint64 bit patterns. */")
    out("#ifndef MDV_MT19937_FIXTURES_H")
    out("#define MDV_MT19937_FIXTURES_H")
    out()
    out("#include <stdint.h>")
    out()
    out("/* Checksum step used for every mx_*_hash: h = (h ^ v) * 0x100000001B3, from MX_H0. */")
    out(f"#define MX_H0 {u64(MX_H0)}")
    out("static inline uint64_t mx_hash(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ULL; }")
    out()
    emit_seeds(out)
    out()
    emit_run(
        out,
        "raw",
        "bit_generator.random_raw() (mt19937_next32)",
        N_RAW,
        lambda rs, n: rs._bit_generator.random_raw(n).tolist(),
    )
    out()
    emit_run(out, "rand", "rand() (random_sample)", N_RAND, lambda rs, n: fbits(rs.rand(n)))
    out()
    emit_run(out, "randn", "randn() (legacy_gauss)", N_RANDN, lambda rs, n: fbits(rs.randn(n)))
    out()
    emit_uniform(out)
    out()
    emit_randint(out)
    out()
    emit_choice(out)
    out()
    emit_choice_p(out)
    out()
    emit_sequence(out)
    out()
    out("#endif /* MDV_MT19937_FIXTURES_H */")
    with open(args.out, "w") as f:
        f.write("\n".join(out.lines) + "\n")
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
