#!/usr/bin/env python3
"""Write tests/c/rng_fixtures.h: numpy known answers for test_rng.c and test_npmath.c.

Run from anywhere with the project's Python (numpy 2.x); the header is checked in and CI does
not regenerate it:

    python tests/c/gen_rng_fixtures.py [--out tests/c/rng_fixtures.h]

Every expected double is stored as its uint64 bit pattern. Long runs are stored as a checksum
(fx_hash below, mirrored in C) plus their first few values and the next raw 64-bit output after
the run, which pins down exactly how many outputs the run consumed. The script also asserts the
facts the C side relies on (array calls equal repeated scalar calls, np.sum's order, pow vs x*x)
and prints what it found.
"""

import argparse
import math
import os
import random
import struct
import sys
import warnings

import numpy as np

M64 = (1 << 64) - 1
SEEDS = [0, 1, 12345, 2**32 + 7, 2**63 + 5]


# --------------------------------------------------------------------------- helpers


def dbits(v):
    return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


def bitsd(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def fx_hash(h, v):
    """Checksum step, mirrored by fx_hash() in the header: h = (h ^ v) * FNV prime mod 2^64."""
    return ((h ^ (v & M64)) * 0x100000001B3) & M64


FX_H0 = 0xCBF29CE484222325


def hash_all(vals):
    h = FX_H0
    for v in vals:
        h = fx_hash(h, v)
    return h


def gen(seed):
    bg = np.random.PCG64(seed)
    return bg, np.random.Generator(bg)


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


# --------------------------------------------------------------------------- RNG blocks

UNIF_BOUNDS = [(0.0, 1.0), (-2.5, 7.25), (0.9, 1.1), (-0.03, 0.03), (0.0, 2 * math.pi), (-1e-300, 1e300), (3.0, 3.0)]
INT_RANGES = [
    (0, 3),
    (-5, 5),
    (7, 8),
    (0, 1000),
    (0, 2**32 - 1),
    (0, 2**32),
    (0, 2**32 + 1),
    (-(10**15), 10**18),
    (0, 10**12),
    (-(2**63), 2**63 - 1),
    (-(2**63), -(2**63) + 3),
]
# (pop_size, k, repetitions): Floyd + shuffle, the tail shuffle (pop > 10000 and k > pop // 50),
# both sides of that cutoff, the full permutation, a hash set past the C stack buffer and the
# j == 2^32 - 1 draw that takes next32 whole.
CHOICE_CASES = [
    (200, 3, 1000),
    (200, 5, 1000),
    (20000, 500, 3),
    (10000, 200, 3),
    (10001, 200, 3),
    (10001, 201, 3),
    (50, 50, 3),
    (20000, 20000, 1),
    (100000, 1500, 2),
    (1, 1, 3),
    (5, 0, 3),
    (2**32 + 1, 2, 3),
    (2**32 + 3, 4, 3),
]
N_FIRST = 8


def next_raw(bg):
    return int(bg.random_raw())


def state_tuple(bg):
    st = bg.state["state"]
    return [st["state"] >> 64, st["state"] & M64, st["inc"] >> 64, st["inc"] & M64]


def normal_paths(seed, n):
    """Draw n standard normals; return (values, counts) where counts classifies each draw by how
    many raw outputs it consumed and the layer index of its first raw output."""
    bg, g = gen(seed)
    clone = np.random.PCG64(seed)
    pos_of = {}
    raws = []
    for p in range(n * 4 + 64):
        pos_of[clone.state["state"]["state"]] = p
        raws.append(next_raw(clone))
    vals, counts = [], {"fast": 0, "slow": 0, "tail": 0, "tail_rejects": 0, "restart": 0}
    tails = []
    p = 0
    for i in range(n):
        vals.append(float(g.standard_normal()))
        q = pos_of[bg.state["state"]["state"]]
        used, idx = q - p, raws[p] & 0xFF
        if used == 1:
            counts["fast"] += 1
        else:
            counts["slow"] += 1
            if idx == 0:
                counts["tail"] += 1
                tails.append(i)
                if used >= 5:
                    counts["tail_rejects"] += 1
            elif used >= 3:
                counts["restart"] += 1
        p = q
    return vals, counts, tails


def emit_rng(out):
    ns = len(SEEDS)
    out("/*================================ RNG (test_rng.c) ================================*/")
    out()
    out(f"#define FX_NSEEDS {ns}")
    out.arr("uint64_t", "fx_seeds", [ns], SEEDS, u64)
    out("/* PCG64(seed).state: state >> 64, state & M, inc >> 64, inc & M. */")
    out.arr("uint64_t", "fx_seed_state", [ns, 4], [v for s in SEEDS for v in state_tuple(gen(s)[0])], u64)

    # raw 64-bit outputs
    first, hashes = [], []
    for s in SEEDS:
        bg, _ = gen(s)
        vals = [next_raw(bg) for _ in range(1000)]
        first += vals[:N_FIRST]
        hashes.append(hash_all(vals))
    out("/* random_raw(): first 8 outputs and fx_hash of the first 1000. */")
    out.arr("uint64_t", "fx_raw_first", [ns, N_FIRST], first, u64)
    out.arr("uint64_t", "fx_raw_hash1000", [ns], hashes, u64)

    # next32 / next64 / next_double interleaved through numpy's own C entry points
    rnd = random.Random(2024)
    ops = [rnd.choice([0, 1, 1, 1, 2]) for _ in range(200)]
    exp = []
    for s in SEEDS:
        bg, _ = gen(s)
        c = bg.ctypes
        for op in ops:
            if op == 0:
                exp.append(c.next_uint64(c.state))
            elif op == 1:
                exp.append(c.next_uint32(c.state))
            else:
                exp.append(dbits(c.next_double(c.state)))
    out("/* Interleaved numpy next_uint64 (0) / next_uint32 (1) / next_double (2, bits),")
    out("   called through PCG64.ctypes on a fresh generator per seed. */")
    out(f"#define FX_IL_N {len(ops)}")
    out.arr("unsigned char", "fx_il_ops", [len(ops)], ops, str, 25)
    out.arr("uint64_t", "fx_il_expect", [ns, len(ops)], exp, u64)

    # uniform
    nb = len(UNIF_BOUNDS)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for lo, hi in UNIF_BOUNDS:
            bg, g = gen(s)
            arr = g.uniform(lo, hi, 1000)
            _, g2 = gen(s)
            one = [g2.uniform(lo, hi) for _ in range(1000)]
            assert [dbits(v) for v in arr] == [dbits(v) for v in one], "uniform(n) != n calls"
            bits = [dbits(v) for v in arr]
            first += bits[:4]
            hashes.append(hash_all(bits))
            nexts.append(next_raw(bg))
    out("/* rng.uniform(low, high, 1000) on a fresh generator per (seed, bounds): first 4,")
    out("   fx_hash of all 1000, and the next random_raw() after them. */")
    out(f"#define FX_NUNIF {nb}")
    out.arr("uint64_t", "fx_unif_bounds", [nb, 2], [dbits(v) for b in UNIF_BOUNDS for v in b], u64)
    out.arr("uint64_t", "fx_unif_first", [ns, nb, 4], first, u64)
    out.arr("uint64_t", "fx_unif_hash", [ns, nb], hashes, u64)
    out.arr("uint64_t", "fx_unif_next", [ns, nb], nexts, u64)

    # standard normal, 1000 per seed
    first, hashes, nexts, cnts = [], [], [], []
    total = {}
    for s in SEEDS:
        vals, counts, _ = normal_paths(s, 1000)
        bg, g = gen(s)
        arr = g.standard_normal(1000)
        assert [dbits(v) for v in arr] == [dbits(v) for v in vals], "standard_normal(n) != n calls"
        bits = [dbits(v) for v in vals]
        first += bits[:N_FIRST]
        hashes.append(hash_all(bits))
        nexts.append(next_raw(bg))
        cnts += [counts["slow"], counts["tail"], counts["restart"]]
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    print(f"standard_normal x1000 x{ns} seeds: {total}")
    out("/* rng.standard_normal() x1000 per seed: first 8, fx_hash, next random_raw(); and, for")
    out("   information, draws that left the fast path / took the idx==0 tail / restarted. */")
    out.arr("uint64_t", "fx_norm_first", [ns, N_FIRST], first, u64)
    out.arr("uint64_t", "fx_norm_hash", [ns], hashes, u64)
    out.arr("uint64_t", "fx_norm_next", [ns], nexts, u64)
    out.arr("int", "fx_norm_paths", [ns, 3], cnts, str, 3)

    # a run long enough to hit every slow path several times
    rare_seed, rare_n = 12345, 40000
    vals, counts, tails = normal_paths(rare_seed, rare_n)
    print(f"standard_normal x{rare_n} seed {rare_seed}: {counts}; tails at {tails[:12]}")
    assert counts["tail"] >= 5 and counts["tail_rejects"] >= 1 and counts["restart"] >= 20
    bg, g = gen(rare_seed)
    g.standard_normal(rare_n)
    tails = tails[:16]
    out(f"/* Slow paths: seed {rare_seed}, {rare_n} draws, {counts['slow']} left the fast path,")
    out(f"   {counts['tail']} took the idx==0 tail ({counts['tail_rejects']} of them rejected in the")
    out(f"   tail loop at least once), {counts['restart']} were rejected in a wedge and redrawn. */")
    out(f"#define FX_RARE_SEED UINT64_C({rare_seed})")
    out(f"#define FX_RARE_N {rare_n}")
    out(f"#define FX_RARE_NTAIL {len(tails)}")
    out(f"static const uint64_t fx_rare_hash = {u64(hash_all(dbits(v) for v in vals))};")
    out(f"static const uint64_t fx_rare_next = {u64(next_raw(bg))};")
    out.arr("int", "fx_rare_tail_at", [len(tails)], tails, str, 8)
    out.arr("uint64_t", "fx_rare_tail_val", [len(tails)], [dbits(vals[i]) for i in tails], u64)

    big_seed, big_n = 0, 1000000
    bg, g = gen(big_seed)
    big = g.standard_normal(big_n)
    out(f"/* Every table entry: seed {big_seed}, {big_n} draws: fx_hash and next random_raw(). */")
    out(f"#define FX_BIG_SEED UINT64_C({big_seed})")
    out(f"#define FX_BIG_N {big_n}")
    out(f"static const uint64_t fx_big_hash = {u64(hash_all(big.view(np.uint64).tolist()))};")
    out(f"static const uint64_t fx_big_next = {u64(next_raw(bg))};")

    # integers
    nr = len(INT_RANGES)
    digits, nexts03 = [], []
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        bg, g = gen(s)
        v = [int(g.integers(0, 3)) for _ in range(1000)]
        digits.append("".join(map(str, v)))
        nexts03.append(next_raw(bg))
        for lo, hi in INT_RANGES:
            bg, g = gen(s)
            v = [int(g.integers(lo, hi)) for _ in range(200)]
            _, g2 = gen(s)
            assert v == g2.integers(lo, hi, size=200).tolist(), "integers(size) != n calls"
            first += v[:4]
            hashes.append(hash_all(x & M64 for x in v))
            nexts.append(next_raw(bg))
    out("/* int(rng.integers(0, 3)) x1000 per seed as digits, and the next random_raw(). */")
    out(f"static const char fx_int03[{ns}][1001] = {{")
    for d in digits:
        out(f'    "{d}",')
    out("};")
    out.arr("uint64_t", "fx_int03_next", [ns], nexts03, u64)
    out("/* rng.integers(low, high) x200 on a fresh generator per (seed, range): first 4, fx_hash")
    out("   (of the values as uint64), next random_raw(). */")
    out(f"#define FX_NIRANGE {nr}")
    out.arr("int64_t", "fx_irange", [nr, 2], [v for r in INT_RANGES for v in r], i64)
    out.arr("int64_t", "fx_irange_first", [ns, nr, 4], first, i64)
    out.arr("uint64_t", "fx_irange_hash", [ns, nr], hashes, u64)
    out.arr("uint64_t", "fx_irange_next", [ns, nr], nexts, u64)

    # choice
    nc = len(CHOICE_CASES)
    first, hashes, nexts = [], [], []
    for s in SEEDS:
        for pop, k, reps in CHOICE_CASES:
            bg, g = gen(s)
            allv = []
            for r in range(reps):
                v = g.choice(pop, size=k, replace=False).tolist()
                allv += v
                if r == 0:
                    first += (v + [-1] * N_FIRST)[:N_FIRST]
            hashes.append(hash_all(x & M64 for x in allv))
            nexts.append(next_raw(bg))
            if pop == 200:  # the array form draws the same stream
                _, g2 = gen(s)
                w = [g2.choice(np.arange(25, 225), size=k, replace=False).tolist() for _ in range(reps)]
                assert [x + 25 for x in allv] == [x for t in w for x in t]
    out("/* rng.choice(pop, size=k, replace=False) repeated reps times on a fresh generator per")
    out("   (seed, case): first call's first 8 values (-1 pads), fx_hash of all values, next")
    out("   random_raw(). rng.choice(np.arange(25, 225), ...) was checked to equal 25 + these. */")
    out(f"#define FX_NCHOICE {nc}")
    out.arr("int64_t", "fx_choice_case", [nc, 3], [v for c in CHOICE_CASES for v in c], i64, 3)
    out.arr("int64_t", "fx_choice_first", [ns, nc, N_FIRST], first, i64)
    out.arr("uint64_t", "fx_choice_hash", [ns, nc], hashes, u64)
    out.arr("uint64_t", "fx_choice_next", [ns, nc], nexts, u64)

    emit_sequence(out)


# Mixed stream: op, a, b; a/b are doubles (bits) for uniform, ints otherwise.
OP_NEXT64, OP_NEXT32, OP_DOUBLE, OP_UNIFORM, OP_NORMAL, OP_INTEGERS, OP_CHOICE = range(7)


def sequence_ops():
    ops = []
    u = lambda lo, hi: (OP_UNIFORM, dbits(lo), dbits(hi))  # noqa: E731
    # The reset-time pattern of the reference env, then a random mix.
    ops += [u(0.9, 1.1)] * 3 + [(OP_CHOICE, 200, 3)] + [u(-0.03, 0.03)] * 3
    ops += [u(-0.03, 0.03)] * 3 + [(OP_INTEGERS, 0, 3), u(0.4, 1.0)]
    ops += [(OP_NORMAL, 0, 0)] * 34
    rnd = random.Random(7)
    kinds = [OP_NEXT64, OP_NEXT32, OP_DOUBLE, OP_UNIFORM, OP_NORMAL, OP_NORMAL, OP_INTEGERS, OP_INTEGERS, OP_CHOICE]
    for _ in range(400):
        k = rnd.choice(kinds)
        if k == OP_UNIFORM:
            lo = rnd.uniform(-5, 5)
            ops.append(u(lo, lo + rnd.choice([0.0, 0.06, 1.0, 100.0])))
        elif k == OP_INTEGERS:
            lo = rnd.choice([0, -3, 10**6])
            ops.append((k, lo, lo + rnd.choice([1, 2, 3, 17, 2**32, 2**40])))
        elif k == OP_CHOICE:
            ops.append((k, *rnd.choice([(200, 3), (200, 5), (20000, 500), (30, 30)])))
        else:
            ops.append((k, 0, 0))
    return ops


SEQ_MAX_LISTED = 8  # longer choice outputs are stored as their fx_hash


def run_sequence(seed, ops):
    bg, g = gen(seed)
    c = bg.ctypes
    res = []
    for op, a, b in ops:
        if op == OP_NEXT64:
            res.append([next_raw(bg)])
        elif op == OP_NEXT32:
            res.append([c.next_uint32(c.state)])
        elif op == OP_DOUBLE:
            res.append([dbits(g.random())])
        elif op == OP_UNIFORM:
            res.append([dbits(g.uniform(bitsd(a), bitsd(b)))])
        elif op == OP_NORMAL:
            res.append([dbits(g.standard_normal())])
        elif op == OP_INTEGERS:
            res.append([int(g.integers(a, b)) & M64])
        else:
            v = [x & M64 for x in g.choice(a, size=b, replace=False).tolist()]
            res.append(v if b <= SEQ_MAX_LISTED else [hash_all(v)])
    return res, next_raw(bg)


def emit_sequence(out):
    ops = sequence_ops()
    ns = len(SEEDS)
    outs, nexts, offs = [], [], []
    for s in SEEDS:
        res, nxt = run_sequence(s, ops)
        flat = [v for r in res for v in r]
        if not offs:
            o = 0
            for r in res:
                offs.append((o, len(r)))
                o += len(r)
        outs += flat
        nexts.append(nxt)
    nout = offs[-1][0] + offs[-1][1]
    out("/* Mixed stream on one generator per seed (ops 0 next64, 1 next32, 2 random(), 3 uniform(a,")
    out("   b as double bits), 4 standard_normal(), 5 integers(a, b), 6 choice(a, size=b,")
    out("   replace=False)); each op's outputs (doubles as bits, ints as uint64) start at off; a")
    out("   choice of more than FX_SEQ_MAX_LISTED values is stored as its fx_hash. */")
    out(f"#define FX_SEQ_MAX_LISTED {SEQ_MAX_LISTED}")
    out("typedef struct { int op; uint64_t a, b; int off, n; } fx_seq_op;")
    out(f"#define FX_SEQ_NOPS {len(ops)}")
    out(f"#define FX_SEQ_NOUT {nout}")
    out(f"static const fx_seq_op fx_seq_ops[{len(ops)}] = {{")
    for (op, a, b), (o, n) in zip(ops, offs):
        out(f"    {{{op}, {u64(a)}, {u64(b)}, {o}, {n}}},")
    out("};")
    out.arr("uint64_t", "fx_seq_out", [ns, nout], outs, u64)
    out.arr("uint64_t", "fx_seq_next", [ns], nexts, u64)


# --------------------------------------------------------------------------- npmath blocks


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def make_array(kind, n):
    """Mirrored by make_array() in test_npmath.c: 2 splitmix64 outputs per element."""
    st = (kind * 1000003 + n) & M64
    xs = []
    for _ in range(n):
        st, r1 = splitmix(st)
        st, r2 = splitmix(st)
        mant = r1 & ((1 << 52) - 1)
        if kind == 0:  # |x| in [2^-20, 2^21), random sign
            xs.append(bitsd((r2 >> 63) << 63 | (1023 + (r2 % 41) - 20) << 52 | mant))
        elif kind == 1:  # [0, 1) as rng.random()
            xs.append((r1 >> 11) * 2.0**-53)
        elif kind == 2:  # |x| in [2^-60, 2^61), random sign: heavy cancellation
            xs.append(bitsd((r2 >> 63) << 63 | (1023 + (r2 % 121) - 60) << 52 | mant))
        else:  # small integers in [-1000, 1000]
            xs.append(float(int(r1 % 2001) - 1000))
    return np.array(xs, dtype=np.float64)


def np_pairwise(a):
    n = len(a)
    if n < 8:
        r = -0.0
        for v in a:
            r += v
        return r
    if n <= 128:
        r = list(a[:8])
        i = 8
        while i < n - (n % 8):
            for k in range(8):
                r[k] += a[i + k]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in a[i:]:
            res += v
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return np_pairwise(a[:n2]) + np_pairwise(a[n2:])


def sum_models(x):
    """The candidate reduction orders, to show which one numpy uses."""
    a = x.tolist()
    seq = 0.0
    for v in a:
        seq += v
    return {
        "identity 0.0 + pairwise(all)": 0.0 + np_pairwise(a),
        "pairwise(all)": np_pairwise(a),
        "x[0] + pairwise(x[1:])": (a[0] + np_pairwise(a[1:])) if a else 0.0,
        "sequential": seq,
    }


def check_sum(x, tally):
    s = np.sum(x)
    m = np.mean(x) if len(x) else None
    for name, v in sum_models(x).items():
        tally[name] = tally.get(name, 0) + (dbits(v) == dbits(s))
    if m is not None:
        assert dbits(m) == dbits(np.float64(s) / np.float64(len(x))), "mean != sum / n"
    return dbits(s), dbits(m) if m is not None else 0


SUM_BIG = [
    (0, 1000),
    (2, 1024),
    (0, 1025),
    (2, 4096),
    (0, 8192),
    (2, 8193),
    (0, 10000),
    (2, 65536),
    (0, 100003),
    (1, 300000),
    (2, 300000),
]


def adversarial():
    nan, inf = float("nan"), float("inf")
    return [
        [1e16] + [1.0] * 7 + [-1e16] + [0.0] * 5,  # 6 by numpy's tree, 0 sequentially
        [-0.0],
        [-0.0] * 3,
        [-0.0] * 8,
        [-0.0] * 9,
        [-0.0] * 200,
        [0.0, -0.0],
        [1e308, 1e308, -1e308],
        [1e308] * 8 + [-1e308] * 8,
        [1.0, nan, 2.0],
        [inf, 1.0],
        [inf, -inf],
        [-inf] * 9,
        [1.0] + [1e-16] * 200,
        [1e-16] * 200 + [1.0],
        [2.0**53] + [1.0] * 300,
        [0.1] * 10,
        [0.1] * 129,
        [0.1] * 257,
        [-1.5, 1.5] * 70,
    ]


def emit_npmath(out):
    out("/*============================ npmath (test_npmath.c) ============================*/")
    out()
    tally = {}
    flat = []
    for kind in range(4):
        for n in range(1, 301):
            flat += check_sum(make_array(kind, n), tally)
    out("/* np.sum / np.mean bits of make_array(kind, n) for kind 0..3, n = 1..300. */")
    out("#define FX_SUM_MAXN 300")
    out.arr("uint64_t", "fx_sum_gen", [4, 300, 2], flat, u64)

    flat = []
    for kind, n in SUM_BIG:
        flat += [kind, n] + list(check_sum(make_array(kind, n), tally))
    out("/* Longer arrays: kind, n, np.sum bits, np.mean bits. */")
    out(f"#define FX_SUM_NBIG {len(SUM_BIG)}")
    out.arr("uint64_t", "fx_sum_big", [len(SUM_BIG), 4], flat, u64)

    cases = adversarial()
    x0 = np.array(cases[0])
    seq = 0.0
    for v in cases[0]:
        seq += v
    assert np.sum(x0) == 6.0 and seq == 0.0, (np.sum(x0), seq)
    vals, rows = [], []
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for c in cases:
            s, m = check_sum(np.array(c, dtype=np.float64), tally)
            rows += [len(vals), len(c), s, m]
            vals += [dbits(v) for v in c]
        empty = np.array([], dtype=np.float64)
        e_sum, e_mean = dbits(np.sum(empty)), dbits(np.mean(empty))
    out("/* Adversarial arrays (values flattened): off, n, np.sum bits, np.mean bits.")
    out("   Case 0 is {1e16, 1 x7, -1e16, 0 x5}: 6 by numpy's tree, 0 summed left to right. */")
    out(f"#define FX_ADV_N {len(cases)}")
    out.arr("uint64_t", "fx_adv_vals", [len(vals)], vals, u64)
    out.arr("uint64_t", "fx_adv_case", [len(cases), 4], rows, u64)
    out(f"static const uint64_t fx_empty_sum = {u64(e_sum)};   /* np.sum(empty) */")
    out(f"static const uint64_t fx_empty_mean = {u64(e_mean)};  /* np.mean(empty) (warns) */")

    ncases = 4 * 300 + len(SUM_BIG) + len(cases)
    print(f"np.sum bit-equal to each model over {ncases} arrays:", tally)
    assert tally["identity 0.0 + pairwise(all)"] == ncases, tally

    emit_pow(out)
    emit_clip(out)


def emit_pow(out):
    # Search pow(x, 2.0) != x * x; np.power with an array exponent calls libm pow per element.
    rs = np.random.default_rng(99)
    searched, found = 0, []
    for _ in range(10):
        n = 1000000
        mant = rs.integers(0, 1 << 52, n, dtype=np.uint64)
        exp = rs.integers(1023 - 500, 1023 + 500, n, dtype=np.uint64)
        sign = rs.integers(0, 2, n, dtype=np.uint64)
        x = ((sign << np.uint64(63)) | (exp << np.uint64(52)) | mant).view(np.float64)
        p = np.power(x, np.full(n, 2.0))
        sq = x * x
        bad = np.nonzero(p.view(np.uint64) != sq.view(np.uint64))[0]
        found += x[bad].tolist()
        searched += n
    print(f"pow(x, 2.0) != x*x: {len(found)} of {searched} random doubles")
    keep = found[:64]
    rows = []
    for v in keep:
        a = np.full(9, v)
        py = v**2.0
        assert dbits(py) == dbits(v**2) == dbits(np.float64(v) ** 2) != dbits(v * v)
        assert (
            dbits((a**2)[0])
            == dbits((a**2.0)[0])
            == dbits(np.power(a, 2.0)[0])
            == dbits(np.square(a)[0])
            == dbits(v * v)
        )
        rows += [dbits(v), dbits(py), dbits(v * v)]
    out(f"/* pow(x, 2.0) != x*x in this libm: {len(found)} of {searched} random doubles")
    out("   (|x| in [2^-500, 2^500)). Rows: x, Python x ** 2.0 (= x ** 2 = np.float64(x) ** 2 =")
    out("   libm pow), numpy array ** 2 (= ** 2.0 = np.power(arr, 2.0) = np.square = x*x). */")
    out(f"#define FX_POW2_SEARCHED {searched}")
    out(f"#define FX_POW2_FOUND {len(found)}")
    out(f"#define FX_POW2_N {len(keep)}")
    out.arr("uint64_t", "fx_pow2", [len(keep), 3], rows, u64, 3)

    nan, inf = float("nan"), float("inf")
    special = [
        (2.0, 0.5),
        (0.0, 3.0),
        (-0.0, 3.0),
        (-0.0, 2.0),
        (-0.0, 0.5),
        (0.0, 0.0),
        (nan, 0.0),
        (nan, -0.0),
        (1.0, nan),
        (nan, 2.0),
        (2.0, nan),
        (-1.0, nan),
        (inf, 3.0),
        (-inf, 3.0),
        (-inf, 2.0),
        (-inf, -3.0),
        (-inf, -2.0),
        (inf, -0.5),
        (0.5, inf),
        (0.5, -inf),
        (-1.0, inf),
        (-1.0, -inf),
        (2.0, -inf),
        (-3.0, inf),
        (-1.0, 1e300),
        (-1.0, 3.0),
        (-2.0, 3.0),
        (-2.0, -3.0),
        (-2.0, 2.0),
        (10.0, -400.0),
        (-10.0, -401.0),
        (1.0, 1e308),
        (1.0, -inf),
        (4.0, 0.5),
        (2.0, -1074.0),
        (2.0, 1023.0),
        (-2.0, 1023.0),
        (1.0000001, 1e9),
        (0.1, 2.0),
        (3.0, 2.0),
        (1e154, 2.0),
        (7.0, -1.0),
        (-7.0, -1.0),
        (0.0, 1.5),
        (-0.0, 1.5),
        (0.0, -1.0),
        (-8.0, 1.0 / 3.0),
        (10.0, 400.0),
    ]  # the last 3: Python raises/complex
    rnd = random.Random(11)
    for _ in range(300):
        special.append((math.ldexp(rnd.random() + 0.5, rnd.randint(-30, 30)), rnd.uniform(-20, 20)))
    for _ in range(100):
        special.append((-math.ldexp(rnd.random() + 0.5, rnd.randint(-8, 8)), float(rnd.randint(-40, 40))))
    for _ in range(100):
        special.append(
            (math.ldexp(rnd.random() + 0.5, rnd.randint(-8, 8)), float(rnd.choice([2, 3, -2, 0.5, -0.5, 1.5])))
        )
    rows, skipped = [], []
    for x, y in special:
        try:
            r = x**y
        except (OverflowError, ZeroDivisionError) as e:
            skipped.append((x, y, type(e).__name__))
            continue
        if isinstance(r, complex):
            skipped.append((x, y, "complex"))
            continue
        rows += [dbits(x), dbits(y), dbits(r)]
    print(f"pow cases: {len(rows) // 3} kept, {len(skipped)} skipped (Python raises/complex)")
    out("/* Python float ** float: x, y, result (cases where Python raises or returns complex")
    out("   are left out). */")
    out(f"#define FX_POW_N {len(rows) // 3}")
    out.arr("uint64_t", "fx_pow", [len(rows) // 3, 3], rows, u64, 3)


def emit_clip(out):
    nx, nl, nh = bitsd(0x7FF8000000000001), bitsd(0xFFF8000000000002), bitsd(0x7FF8000000000003)
    base = [-math.inf, -2.0, -0.0, 0.0, 1.0, 3.0, math.inf]
    rows = []
    for x in base + [nx]:
        for lo in base + [nl]:
            for hi in base + [nh]:
                r = clip_both(x, lo, hi)
                rows += [dbits(x), dbits(lo), dbits(hi), r[0], r[1]]
    rnd = random.Random(5)
    for _ in range(200):
        x, a, b = (rnd.uniform(-3, 3) for _ in range(3))
        r = clip_both(x, a, b)
        rows += [dbits(x), dbits(a), dbits(b), r[0], r[1]]
    out("/* np.clip: x, lo, hi, result with scalar bounds, result with array bounds (NaN payloads")
    out("   distinct). */")
    out(f"#define FX_CLIP_N {len(rows) // 5}")
    out.arr("uint64_t", "fx_clip", [len(rows) // 5, 5], rows, u64, 5)


def clip_both(x, lo, hi):
    """np.clip(x, lo, hi) bits with scalar bounds and with array bounds, each checked to be the
    same at every position of a 17-element array and (scalar bounds) for a scalar x."""
    res = []
    for b_lo, b_hi in ((lo, hi), (np.full(17, lo), np.full(17, hi))):
        r = np.clip(np.full(17, x), b_lo, b_hi).view(np.uint64).tolist()
        assert len(set(r)) == 1
        res.append(r[0])
    assert dbits(np.clip(x, lo, hi)) == res[0]
    for b_lo, b_hi in ((np.full(17, lo), hi), (lo, np.full(17, hi))):  # one array bound
        assert np.clip(np.full(17, x), b_lo, b_hi).view(np.uint64).tolist() == [res[1]] * 17
    return res


# --------------------------------------------------------------------------- main


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "rng_fixtures.h"))
    args = ap.parse_args()

    out = Out()
    out("/* rng_fixtures.h: GENERATED by tests/c/gen_rng_fixtures.py; do not edit.")
    out(f" * numpy {np.__version__}, Python {sys.version.split()[0]}. Doubles are uint64 bit patterns. */")
    out("#ifndef MDV_RNG_FIXTURES_H")
    out("#define MDV_RNG_FIXTURES_H")
    out()
    out("#include <stdint.h>")
    out()
    out("/* Checksum step used for every fx_*_hash: h = (h ^ v) * 0x100000001B3, from FX_H0. */")
    out(f"#define FX_H0 {u64(FX_H0)}")
    out("static inline uint64_t fx_hash(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ULL; }")
    out()
    emit_rng(out)
    out()
    emit_npmath(out)
    out()
    out("#endif /* MDV_RNG_FIXTURES_H */")
    with open(args.out, "w") as f:
        f.write("\n".join(out.lines) + "\n")
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
