#!/usr/bin/env python3
"""Write the seed corpus of the libFuzzer targets: tests/fuzz/corpus/<target>/<name> (small binary
files), and tests/fuzz/models/many_actuators.xml.

    python tests/fuzz/make_corpus.py [--lib build/libmdvec/libmdvec.so] [--check]

The inputs follow the byte format the targets read (tests/fuzz/fuzz.h, fuzz_*.c): a selector byte
per choice, values as table indices, small numbers or raw little-endian bytes, text as a length and
bytes. Tasks and option names are written as text (not catalogue indices), so the seeds stay valid
when tasks are added. The catalogue (tasks, their options) is read from a built libmdvec through
ctypes: --lib, else $MDVEC_LIB, else the newest build*/libmdvec/libmdvec.so that loads (not a
sanitizer build). The same catalogue gives the same files; --check only reports whether the
committed corpus is up to date.

A seed that makes the library misbehave is a reproducer: it goes into tests/fuzz/findings/<target>/
(see tests/fuzz/README.md) until the library is fixed; the corpus itself passes on the library.
Files named regress-* in corpus/<target>/ (inputs of fixed findings, kept by hand) are left alone.
"""

import argparse
import ctypes
import glob
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# --- the value tables of fuzz_common.c (only the entries the seeds name are used by index) ---------
D_NAN, D_INF, D_NINF, D_DBL_MAX, D_DENORM, D_FLT_MAX, D_FLT_OVER, D_1E300, D_NEG_1E300 = (
    7,
    9,
    10,
    11,
    14,
    16,
    18,
    19,
    20,
)
INT_MAX, INT_MIN = 2**31 - 1, -(2**31)
FZ_INTS = [
    0,
    1,
    -1,
    2,
    3,
    4,
    5,
    7,
    8,
    9,
    10,
    13,
    14,
    15,
    16,
    17,
    24,
    25,
    26,
    100,
    224,
    225,
    226,
    249,
    250,
    251,
    255,
    256,
    1000,
    10000,
    10001,
    65535,
    65536,
    1000000,
    1000001,
    10000000,
    100000000,
    999999999,
    1000000000,
    1000000001,
    INT_MAX,
    INT_MIN,
    INT_MAX - 1,
    INT_MIN + 1,
    -2,
    -3,
    -100,
    -1000000,
    6,
    11,
    12,
    20,
    30,
    32,
    50,
    64,
    127,
    128,
    200,
    300,
    500,
    1024,
    4096,
    1 << 30,
]
FZ_I64 = [
    2**63 - 1,
    -(2**63),
    2**63 - 2,
    -(2**63) + 1,
    2**31,
    -(2**31) - 1,
    2**32 - 1,
    2**53,
    2**53 + 1,
    10**12,
    -(10**12),
    10**15,
    1000000000,
    1000000001,
    999999999,
    2147483647,
]
FZ_SEEDS = [
    1,
    424242,
    2**31 - 1,
    2**31,
    2**32 - 4,
    2**32 - 3,
    2**32 - 2,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**53,
    2**63 - 1,
    2**63,
    2**64 - 3,
    2**64 - 2,
    2**64 - 1,
]
assert len(FZ_INTS) == 64 and len(FZ_I64) == 16 and len(FZ_SEEDS) == 16

# sizes of the config layouts (x86-64 / LP64): the 1.0 struct ends after dr, 1.1 adds task, options, n_options
CONFIG_V1, CONFIG_FULL = 120, 144


class W:
    """An input under construction, written in the order the target reads it."""

    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b.append(v & 0xFF)
        return self

    def u16(self, v):
        self.b += struct.pack("<H", v & 0xFFFF)
        return self

    def u32(self, v):
        self.b += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def u64(self, v):
        self.b += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        return self

    def dbl(self, v):
        """fz_double: table index for NaN / inf, (s - 144) / 8 for small multiples of 1/8, else raw bits."""
        if isinstance(v, str):  # a table entry by name
            return self.u8(
                {
                    "nan": D_NAN,
                    "inf": D_INF,
                    "-inf": D_NINF,
                    "dbl_max": D_DBL_MAX,
                    "denorm": D_DENORM,
                    "flt_max": D_FLT_MAX,
                    "flt_over": D_FLT_OVER,
                    "1e300": D_1E300,
                    "-1e300": D_NEG_1E300,
                }[v]
            )
        if math.isnan(v):
            return self.u8(D_NAN)
        if math.isinf(v):
            return self.u8(D_INF if v > 0 else D_NINF)
        if v == 0 and math.copysign(1, v) < 0:
            return self.u8(1)
        s = v * 8 + 144
        if s == int(s) and 40 <= s <= 254:
            return self.u8(int(s))
        self.u8(255)
        self.b += struct.pack("<d", v)
        return self

    def int(self, v):
        """fz_int: s - 64 for 0..190, a table index, else 4 raw bytes."""
        if 0 <= v <= 190:
            return self.u8(v + 64)
        if v in FZ_INTS:
            return self.u8(FZ_INTS.index(v))
        self.u8(255)
        self.b += struct.pack("<i", v)
        return self

    def i64(self, v):
        """fz_i64: a table index, v + 80 for 0..174, else 8 raw bytes."""
        if v in FZ_I64:
            return self.u8(FZ_I64.index(v))
        if 0 <= v <= 174:
            return self.u8(v + 80)
        self.u8(255)
        self.b += struct.pack("<q", v)
        return self

    def seed(self, v):
        """fz_seed: a table index as 2 * (index + 1), 0 and one byte for 0..255, else 1 and 8 raw bytes."""
        if v in FZ_SEEDS:
            return self.u8(2 * (FZ_SEEDS.index(v) + 1))
        if 0 <= v <= 255:
            return self.u8(0).u8(v)
        return self.u8(1).u64(v)

    def str(self, s):
        b = s.encode() if isinstance(s, str) else bytes(s)
        if len(b) < 255:
            self.u8(len(b))
        else:
            self.u8(255).u16(len(b))
        self.b += b
        return self

    def actions(self, mode, values=()):
        """fz_actions: mode 0 one value for all, 1 one per env, 2 one per element, 3 bytes, 4 zeros, 5 bounds."""
        self.u8(mode)
        for v in values:
            if mode in (0, 1, 2):
                self.dbl(v)
            else:
                self.u8(v)
        return self

    def data(self):
        return bytes(self.b)


# --- the catalogue, from a built library ---------------------------------------------------------


class OptionInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("default", ctypes.c_char_p),
        ("lo", ctypes.c_double),
        ("hi", ctypes.c_double),
        ("choices", ctypes.c_char_p),
        ("help", ctypes.c_char_p),
    ]


def find_lib(arg):
    """The library named, else the newest build*/libmdvec/libmdvec.so that loads (not a sanitizer build)."""
    if arg or os.environ.get("MDVEC_LIB"):
        return ctypes.CDLL(arg or os.environ["MDVEC_LIB"])
    hits = sorted(
        glob.glob(os.path.join(ROOT, "build*", "libmdvec", "libmdvec.so")), key=os.path.getmtime, reverse=True
    )
    for path in hits:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        print("catalogue from", os.path.relpath(path, ROOT))
        return lib
    sys.exit("make_corpus.py: no loadable built libmdvec (give --lib or MDVEC_LIB)")


def catalogue(lib):
    lib.mdvec_task_name.restype = ctypes.c_char_p
    lib.mdvec_task_option.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(OptionInfo)]
    tasks = {}
    for k in range(lib.mdvec_task_count()):
        name = lib.mdvec_task_name(k)
        opts = []
        for j in range(lib.mdvec_task_option_count(name)):
            o = OptionInfo(struct_size=ctypes.sizeof(OptionInfo))
            if lib.mdvec_task_option(name, j, ctypes.byref(o)) == 0:
                opts.append(
                    (
                        o.name.decode(),
                        o.type,
                        o.default.decode() if o.default else None,
                        o.lo,
                        o.hi,
                        o.choices.decode() if o.choices else None,
                    )
                )
        tasks[name.decode()] = opts
    return tasks


# --- fuzz_config ---------------------------------------------------------------------------------

NUM_ENVS = [1, 1, 2, 3, 4, 0, -1, INT_MIN]
THREADS = [0, 1, 2, 3, 4, -1, 9, 16, INT_MAX, INT_MIN, 1025]
VARIANTS = {None: 0, "default": 1, "backlash": 2, "backlash_lower": 3, "": 4, "Default": 5}
PATHS = [
    "NULL",
    "",
    "hopper.xml",
    "~/hopper.xml",
    "/nonexistent/model.xml",
    "./nonexistent.xml",
    "/",
    "/dev/null",
    "duck.xml",
    "duck_backlash.xml",
    "duck_backlash_lower.xml",
    "empty.xml",
    "malformed.xml",
    "no_actuator.xml",
    "one_slide.xml",
    "two_hinge.xml",
    "free_motor.xml",
    "tiny_arena.xml",
    "tiny_stack.xml",
    "many_actuators.xml",
    "unstable.xml",
]  # fz_path's first entries, in order (the Gymnasium assets follow)


def config(
    layout="full",
    k=0,
    at=0,
    tail=1,
    declared=None,
    num_envs=None,
    threads=None,
    overcommit=None,
    autoreset=None,
    seed=None,
    variant=False,
    model_path=None,
    duck_ints=None,
    duck_doubles=None,
    duck_flags=None,
    task=False,
    options=None,
    n_mode=None,
    give_xml=1,
    err=0,
    run=None,
    probe=None,
):
    """An input of fuzz_config. options: list of (name, value) as text (None: NULL), written as raw text, or
    ("path", PATHS entry), or ("suite", k) for a suite_dir (k: fz_pick_suite's entry, None: dm_control's suite);
    n_mode 8: n_options negative, 9: NULL array. run: (dtype_f32, [(mode, values), (mode, values)]).
    A Control Suite task's options get suite_dir appended by the harness unless they name it (give_xml)."""
    w = W()
    if layout == "full":
        w.u8(0)
        declared = CONFIG_FULL
    elif layout == "v1":
        w.u8(1)
        declared = CONFIG_V1
    elif layout in ("long", "tail"):
        w.u8(2 if layout == "long" else 3).u8(k)
        declared = CONFIG_FULL + 8 * (1 + k)
    else:
        w.u8(4).u16(declared)
    valid = declared == CONFIG_V1 or declared >= CONFIG_FULL
    if valid and layout == "tail":
        w.u8(at).u8(tail - 1)
    appended = valid and declared >= CONFIG_FULL
    flags = 0
    for bit, v in (
        (0x1, num_envs),
        (0x2, threads),
        (0x4, overcommit),
        (0x8, autoreset),
        (0x10, seed),
        (0x40, model_path),
        (0x80, duck_ints),
        (0x100, duck_doubles),
        (0x200, duck_flags),
    ):
        if v is not None:
            flags |= bit
    if variant is not False:
        flags |= 0x20
    if task is not False:
        flags |= 0x400
    if options is not None:
        flags |= 0x800
    if run is not None:
        flags |= 0x1000
    if probe is not None:
        flags |= 0x2000
    w.u16(flags)
    if valid:
        if num_envs is not None:
            w.u8(NUM_ENVS.index(num_envs))
        if threads is not None:
            w.u8(THREADS.index(threads))
        if overcommit is not None:
            w.u8(overcommit)
        if autoreset is not None:
            w.int(autoreset)
        if seed is not None:
            w.seed(seed)
        if variant is not False:
            if variant in VARIANTS:
                w.u8(VARIANTS[variant])
            else:
                w.u8(6).str(variant)
        if model_path is not None:
            w.u8(PATHS.index(model_path))
        if duck_ints is not None:
            for v in duck_ints:  # substeps, episode_len, n_pushes, push_window[0], push_window[1], latency
                w.int(v)
        if duck_doubles is not None:
            for v in duck_doubles:  # action_scale, push_speed[0], push_speed[1], init_noise
                w.dbl(v)
        if duck_flags is not None:
            for v in duck_flags:  # sensor_noise, reward, dr
                w.int(v)
    if appended and task is not False:
        if task is None:
            w.u8(0xF0)
        elif task == "":
            w.u8(0xF1)
        else:
            w.u8(0xF2).str(task)
    if appended and options is not None:
        count = len(options)
        w.u8(count if n_mode is None else n_mode)
        if n_mode is not None:
            w.u8(count - 1)  # 1 + pick(MAX_OPTS) entries
        xml_given = suite_given = False
        for name, value in options:
            if name is None:
                w.u8(5)
            else:
                w.u8(6).str(name)
            if value is None:
                w.u8(0)  # the declaration's default (NULL for unknown names)
            elif isinstance(value, tuple) and value[0] == "path":
                w.u8(3).u8(PATHS.index(value[1]))
            elif isinstance(value, tuple) and value[0] == "suite":  # a typed value: fz_pick_suite's byte
                w.u8(4).u8(0 if value[1] is None else 2 * value[1] + 1)
            else:
                w.u8(2).str(value)
            if name == "xml_file" and not xml_given:
                w.u8(0)  # keep the value given (do not replace it with the task's asset)
            xml_given |= name == "xml_file"
            if name == "suite_dir" and not suite_given:
                w.u8(0)  # keep the value given (do not replace it with dm_control's suite)
            suite_given |= name == "suite_dir"
        if n_mode == 8:
            w.u8(0)  # n_options = -1
    if appended:
        w.u8(give_xml)
        # the 1.3 option kinds: a byte whenever the config ends up with options (given, or the file a task
        # needs added by the harness: its Gymnasium asset, dm_control's suite folder); 0: none
        given = options is not None and len(options) > 0 and n_mode is None
        added = options is None and give_xml & 3 and task in FILE_TASKS
        if given or added:
            w.u8(0)
    w.u8(err)
    # what a created handle reads: fz_query (sigs, then 4 x how), then the run
    w.u32(0x3).u8(3)
    for _ in range(4):
        w.u8(0)
    if run is not None:
        f32, steps = run
        w.u8(1 if f32 else 0)
        for mode, values in steps:
            w.actions(mode, values)
    if probe is not None:
        name, k = probe
        w.u8(1).str(name).int(k).u8(1)
    return w.data()


# the tasks fuzz_config gives a file when a seed names no option: an xml_file default that is a bare name (a
# Gymnasium asset) or a suite_dir without a default (dm_control's suite folder); filled from the catalogue
FILE_TASKS: set[str] = set()


def config_seeds(tasks, found):
    """The corpus of fuzz_config; reproducers of open findings go into found."""
    FILE_TASKS.update(
        t
        for t, opts in tasks.items()
        for name, _type, default, *_ in opts
        if (name == "xml_file" and default and "/" not in default) or (name == "suite_dir" and not default)
    )
    seeds = {}
    zero2 = (False, [(4, []), (0, [0.5])])
    seeds["default-run"] = config(run=zero2)
    seeds["v1-default-run"] = config(layout="v1", run=(True, [(0, [1.0]), (0, [-1.0])]))
    seeds["long-zero-tail"] = config(layout="long", k=1, run=zero2)
    seeds["long-nonzero-tail"] = config(layout="tail", k=0, at=3, tail=7)
    for size in (0, 7, 64, CONFIG_V1 + 1, CONFIG_FULL - 1, 1000):
        seeds[f"size-{size}"] = config(layout="size", declared=size)
    seeds["generic-fields"] = config(num_envs=3, threads=2, autoreset=2, seed=2**64 - 1, run=zero2)
    seeds["overcommit"] = config(num_envs=2, threads=16, overcommit=1, run=zero2)
    seeds["threads-over-budget"] = config(threads=9)
    seeds["threads-over-pool"] = config(num_envs=2, threads=1025, overcommit=1)
    seeds["threads-int-max"] = config(threads=INT_MAX, overcommit=1)
    seeds["num-envs-0"] = config(num_envs=0)
    seeds["num-envs-neg"] = config(num_envs=INT_MIN)
    seeds["threads-neg"] = config(threads=-1)
    seeds["autoreset-neg"] = config(autoreset=-1)
    seeds["autoreset-7"] = config(autoreset=7, run=zero2)
    for v in ("backlash", "backlash_lower", None, "", "nonsense"):
        seeds[f"variant-{v}"] = config(layout="v1", variant=v, run=zero2)
    for p in ("duck_backlash.xml", "free_motor.xml", "malformed.xml", "/dev/null", "/", "empty.xml"):
        seeds[f"model-path-{p.strip('/').replace('/', '_') or 'root'}"] = config(layout="v1", model_path=p, run=zero2)
    # the duck's v1 fields: defaults 10, 250, 3, 25, 225, 0 and 0.3, 0.3, 0.9, 0 and 0, 2, 0
    base_i, base_d = [10, 250, 3, 25, 225, 0], [0.3, 0.3, 0.9, 0.0]
    ints = {
        "substeps-0": (0, 0),
        "substeps-10001": (0, 10001),
        "episode-len-0": (1, 0),
        "episode-len-neg": (1, -1),
        "n-pushes-neg": (2, -1),
        "n-pushes-201": (2, 201),
        "window-lo-neg": (3, -1),
        "window-hi-251": (4, 251),
        "window-inverted": (3, 226),
        "latency-250": (5, 250),
        "latency-249": (5, 249),
        "latency-neg": (5, -1),
    }
    for name, (j, v) in ints.items():
        vals = list(base_i)
        vals[j] = v
        seeds[f"v1-{name}"] = config(layout="v1", duck_ints=vals, run=zero2)
    seeds["v1-short-episode"] = config(layout="v1", duck_ints=[1, 2, 1, 0, 2, 1], run=zero2)
    doubles = {
        "action-scale-nan": (0, "nan"),
        "action-scale-0": (0, 0.0),
        "action-scale-inf": (0, "inf"),
        "push-speed-inverted": (1, 2.0),
        "push-speed-huge": (2, "1e300"),
        "init-noise-nan": (3, "nan"),
        "init-noise-neg": (3, -0.5),
        "init-noise-10": (3, 10.0),
        "action-scale-100": (0, 100.0),
    }
    for name, (j, v) in doubles.items():
        vals = list(base_d)
        vals[j] = v
        seeds[f"v1-{name}"] = config(layout="v1", duck_doubles=vals, run=zero2)
    for name, fl in {
        "reward-1": [0, 1, 0],
        "reward-3": [0, 3, 0],
        "reward-0": [0, 0, 0],
        "dr-noise": [5, 2, -1],
    }.items():
        seeds[f"v1-{name}"] = config(layout="v1", duck_flags=fl, run=zero2)
    # tasks by name, with defaults and a run (Gymnasium tasks get their asset: give_xml)
    for name in tasks:
        seeds[f"task-{name}"] = config(task=name, num_envs=2, threads=2, run=zero2)
    seeds["task-null"] = config(task=None, run=zero2)
    seeds["task-empty"] = config(task="")
    seeds["task-unknown"] = config(task="Hopper-v4")
    seeds["task-gym-no-xml"] = config(task="Hopper-v5", give_xml=0)
    # options: each declared option with a few odd values
    odd = {
        1: ["-1", "9223372036854775807", "9223372036854775808", "1e3", ""],  # INT
        2: ["nan", "inf", "-inf", "1e308", "-1", "4.9406564584124654e-324"],  # DOUBLE
        3: ["2", "yes", ""],  # BOOL
        4: [""],  # STRING
        5: ["inf,inf", "1,0", "nan,1", "1,2,3", "1", "-1e308,1e308"],  # RANGE
        6: ["1,0", "-1,5", "0,9223372036854775807", "1", "1,,2"],  # IRANGE
        7: ["", "v3", "v1|v2"],
    }  # CHOICE
    # each option of each task: an odd value of its type (taken in turn), integers also at their upper
    # bound; the odd models as the xml_file of the Gymnasium tasks (all for Hopper-v5) and the duck's model_path
    models = [
        "one_slide.xml",
        "two_hinge.xml",
        "empty.xml",
        "no_actuator.xml",
        "malformed.xml",
        "tiny_stack.xml",
        "tiny_arena.xml",
        "unstable.xml",
        "many_actuators.xml",
        "free_motor.xml",
        "hopper.xml",
        "/",
    ]
    turn = 0
    domains = set()  # the Control Suite tasks of a domain share their options: one task per domain
    for task, opts in tasks.items():
        if any(o[0] == "suite_dir" for o in opts):
            if task.split("-")[0] in domains:
                continue
            domains.add(task.split("-")[0])
        for oname, otype, _odef, _lo, hi, _choices in opts:
            if oname in ("xml_file", "model_path"):
                for p in models if task in ("duck", "Hopper-v5") else models[:3] + models[8:9]:
                    seeds[f"opt-{task}-{oname}-{p.strip('/') or 'root'}"] = config(
                        task=task, options=[(oname, ("path", p))], run=zero2, give_xml=0
                    )
                continue
            pool = odd.get(otype, [""])
            values = [pool[turn % len(pool)]]
            turn += 1
            if otype == 1:  # counts at their upper bound: the library must not allocate or loop for them
                values.append(str(int(min(hi, 2**62))))
            for j, v in enumerate(values):
                seeds[f"opt-{task}-{oname}-{j}"] = config(task=task, options=[(oname, v)], run=zero2)
    # the duck's counts at their upper bounds together (each alone is refused by the others' defaults)
    hi = {o[0]: int(o[4]) for o in tasks.get("duck", []) if o[1] in (1, 6)}
    if {"episode_len", "latency", "n_pushes", "substeps", "push_window"} <= set(hi):
        ep = hi["episode_len"]
        seeds["duck-max-latency"] = config(
            task="duck",
            options=[("episode_len", str(ep)), ("latency", str(hi["latency"]))],
            num_envs=2,
            threads=2,
            run=zero2,
        )
        seeds["duck-max-substeps"] = config(task="duck", options=[("substeps", str(hi["substeps"]))], run=zero2)
        seeds["duck-pushes-3000"] = config(
            task="duck", options=[("episode_len", str(ep)), ("push_window", f"0,{ep}"), ("n_pushes", "3000")], run=zero2
        )
        # finding 1 (tests/fuzz/findings/README.md): a reset at the declared maximum n_pushes sorts the shove
        # steps by insertion, O(n_pushes^2): seconds per env uninstrumented, a fuzzer timeout
        found["duck-max-pushes"] = config(
            task="duck",
            options=[("episode_len", str(ep)), ("push_window", f"0,{ep}"), ("n_pushes", str(hi["n_pushes"]))],
            run=zero2,
        )

    # option arrays that are wrong as a whole
    seeds["opts-negative-count"] = config(task="duck", options=[("substeps", "5")], n_mode=8)
    seeds["opts-null-array"] = config(task="duck", options=[("substeps", "5")], n_mode=9)
    seeds["opts-twice"] = config(task="duck", options=[("substeps", "5"), ("substeps", "6")])
    seeds["opts-unknown"] = config(task="duck", options=[("frame_skip", "5")])
    seeds["opts-null-name"] = config(task="duck", options=[(None, "5")])
    seeds["opts-null-value"] = config(task="duck", options=[("episode_len", None), ("variant", None)])
    seeds["opts-short-episode"] = config(
        task="duck",
        options=[("episode_len", "3"), ("push_window", "0,3"), ("n_pushes", "3"), ("latency", "2")],
        run=zero2,
    )
    seeds["opts-duck-over-v1"] = config(
        task="duck",
        duck_ints=[0, 0, 0, 0, 0, 0],
        options=[
            ("substeps", "2"),
            ("episode_len", "10"),
            ("n_pushes", "1"),
            ("push_window", "0,10"),
            ("latency", "0"),
        ],
        run=zero2,
    )
    seeds["opts-gym-frame-skip-1e6"] = config(task="Hopper-v5", options=[("frame_skip", "1000000")], run=zero2)
    seeds["opts-long-range"] = config(task="duck", options=[("push_speed", "0." + "1" * 300 + ",1")])
    seeds["err-null"] = config(err=1, num_envs=0)
    seeds["err-size-1"] = config(err=2, num_envs=0)
    seeds["err-size-0"] = config(err=3, num_envs=0)
    dm_seeds(tasks, seeds, zero2)
    seeds["probe-catalogue"] = config(num_envs=0, probe=("Hopper-v5", 2))
    seeds["probe-catalogue-unknown"] = config(num_envs=0, probe=("nope", 0))
    return seeds


# fz_pick_suite's entries (tests/fuzz/fuzz_common.c build_suites), by index: the first eight are always there
SUITES = ["NULL", "", "/", "/nonexistent/suite", "suite", "models", "libmdvec-models", "dm_suite"]


def dm_seeds(tasks, seeds, zero2):
    """fuzz_config seeds of the Control Suite tasks (those with a suite_dir option): each task on the odd suite
    folder tests/fuzz/models/dm_suite; for the first of them, every other odd suite_dir, dm_control's rules on
    the timing options, episode ends and the seed edges (seeds past 2**32 - 1 are refused)."""
    dm = [t for t, opts in tasks.items() if any(o[0] == "suite_dir" for o in opts)]
    for task in dm:
        seeds[f"dm-{task}-odd-suite"] = config(
            task=task, options=[("suite_dir", ("suite", SUITES.index("dm_suite")))], run=zero2, give_xml=0
        )
    if not dm:
        return
    t = "cheetah-run" if "cheetah-run" in dm else dm[0]
    for k, name in enumerate(SUITES):
        if name != "dm_suite":
            seeds[f"dm-suite-dir-{k}"] = config(task=t, options=[("suite_dir", ("suite", k))], run=zero2, give_xml=0)
    seeds["dm-suite-dir-real"] = config(task=t, options=[("suite_dir", ("suite", None))], run=zero2, give_xml=0)
    seeds["dm-no-suite-dir"] = config(task=t, run=zero2, give_xml=0)
    timing = {
        "both-steps": [("control_timestep", "0.05"), ("n_sub_steps", "5")],
        "ctrl-not-multiple": [("control_timestep", "0.015")],
        "ctrl-below-timestep": [("control_timestep", "0.001")],
        "ctrl-1e6-steps": [("control_timestep", "10000.01")],
        "ctrl-5-steps": [("control_timestep", "0.05")],
        "n-sub-steps-3": [("n_sub_steps", "3")],
        "n-sub-steps-max": [("n_sub_steps", "1000000")],
        "time-limit-one-step": [("time_limit", "0.01")],
        "time-limit-tiny": [("time_limit", "1e-300")],
        "time-limit-inf": [("time_limit", "inf")],
        "time-limit-nan": [("time_limit", "nan")],
        "legacy-step-false": [("legacy_step", "false")],
        "legacy-step-2": [("legacy_step", "2")],
        "max-episode-steps-1": [("max_episode_steps", "1")],
        "max-episode-steps-over": [("max_episode_steps", "2147483648")],
        "short-everything": [("time_limit", "0.02"), ("max_episode_steps", "1"), ("legacy_step", "false")],
    }
    for tag, opts in timing.items():
        seeds[f"dm-{tag}"] = config(task=t, options=opts, num_envs=2, threads=2, run=zero2)
    for tag, (seed, n) in {
        "seed-max-1-env": (2**32 - 1, 1),
        "seed-max-2-envs": (2**32 - 1, 2),
        "seed-max-minus-1-2-envs": (2**32 - 2, 2),
        "seed-2-32": (2**32, 1),
        "seed-2-64-minus-1": (2**64 - 1, 1),
    }.items():
        seeds[f"dm-{tag}"] = config(task=t, seed=seed, num_envs=n, run=zero2)


# --- fuzz_reset_params ---------------------------------------------------------------------------

RP_CONFIGS = ["plain", "dr", "noise_lat", "v1_nopush", "short", "dr_noise", "backlash", "hopper"]
RP_NPUSHES = {
    "plain": 3,
    "dr": 3,
    "noise_lat": 3,
    "v1_nopush": 0,
    "short": 1,
    "dr_noise": 3,
    "backlash": 5,
    "hopper": 0,
}
NU = 14


def reset_params(cfg, n=1, t=1, ar=1, base=0, ops=()):
    """An input of fuzz_reset_params. ops: ('rwp', fields) | ('step', f32, mode, values) | ('mask', a, b)."""
    w = W()
    w.u8(RP_CONFIGS.index(cfg) | (n - 1) << 3 | (t - 1) << 4 | ar << 5)
    w.u8(base)
    for op in ops:
        if op[0] == "rwp":
            fields = op[1]
            w.u8(0)
            w.u8(fields.get("size", 0))
            bits = {
                "init_noise": 0x1,
                "qpos": 0x2,
                "qvel": 0x4,
                "n_pushes": 0x8,
                "push_steps": 0x10,
                "push_vel": 0x20,
                "latency": 0x40,
                "noise_scale": 0x80,
                "has_dr": 0x100,
                "servo": 0x200,
                "mass_scale": 0x400,
                "floor_friction": 0x800,
                "env": 0x1000,
            }
            w.u16(sum(b for k, b in bits.items() if k in fields))
            np_ = RP_NPUSHES[cfg]
            if "init_noise" in fields:
                w.dbl(fields["init_noise"])
            for arr in ("qpos", "qvel"):
                if arr in fields:
                    v = fields[arr]
                    if v is None:
                        w.u8(0)  # NULL
                    else:
                        w.u8(1).u8(1).dbl(v)  # one value for all
            if "n_pushes" in fields:
                w.int(fields["n_pushes"])
                np_ = fields["n_pushes"] if 0 <= fields["n_pushes"] <= 4096 else 0
            if "push_steps" in fields:
                v = fields["push_steps"]
                if v is None:
                    w.u8(0)
                else:
                    w.u8(1)
                    for s in v[:np_] + [v[-1]] * max(0, np_ - len(v)):
                        w.i64(s)
            if "push_vel" in fields:
                v = fields["push_vel"]
                if v is None:
                    w.u8(0)
                else:
                    w.u8(1).u8(1).dbl(v)
            if "latency" in fields:
                w.int(fields["latency"])
            if "noise_scale" in fields:
                w.dbl(fields["noise_scale"])
            if "has_dr" in fields:
                w.int(fields["has_dr"])
            if "servo" in fields:
                for v in fields["servo"]:
                    w.dbl(v)
            if "mass_scale" in fields:
                v = fields["mass_scale"]
                if v is None:
                    w.u8(0)
                else:
                    w.u8(1).u8(1).dbl(v)
            if "floor_friction" in fields:
                w.dbl(fields["floor_friction"])
            if "env" in fields:
                w.int(fields["env"])
            else:
                w.u8(fields.get("pick", 0))
        elif op[0] == "step":
            _, f32, mode, values = op
            w.u8(2).u8(1 if f32 else 0).actions(mode, values)
        else:
            w.u8(3).u8(op[1]).u8(op[2])
    return w.data()


def reset_params_seeds():
    seeds = {}
    step = ("step", False, 0, [0.25])
    for cfg in RP_CONFIGS:
        dr = 1 if "dr" in cfg else 0
        valid = {"has_dr": dr} if dr else {}
        for n, t, ar in ((1, 1, 1), (2, 2, 2), (2, 1, 0)):
            seeds[f"{cfg}-n{n}-t{t}-ar{ar}"] = reset_params(
                cfg, n, t, ar, ops=[("rwp", valid), step, step, ("rwp", dict(valid, pick=n - 1)), step]
            )
    bad = {
        "init-noise-nan": {"init_noise": "nan"},
        "init-noise-neg": {"init_noise": -1.0},
        "init-noise-inf": {"init_noise": "inf"},
        "init-noise-pos": {"init_noise": 0.5, "qpos": 0.25, "qvel": -2.0},
        "qpos-null": {"qpos": None},
        "qvel-null": {"qvel": None},
        "qpos-nan": {"qpos": "nan", "init_noise": 1.0},
        "qpos-huge": {"qpos": "1e300", "init_noise": 1.0},
        "qvel-huge": {"qvel": "1e300", "init_noise": 1.0},
        "n-pushes-mismatch": {"n_pushes": 2},
        "n-pushes-neg": {"n_pushes": -1},
        "n-pushes-huge": {"n_pushes": INT_MAX},
        "push-steps-null": {"push_steps": None},
        "push-steps-neg": {"push_steps": [-1]},
        "push-steps-end": {"push_steps": [250]},
        "push-steps-last": {"push_steps": [249]},
        "push-steps-huge": {"push_steps": [2**63 - 1]},
        "push-steps-zero": {"push_steps": [0, 0, 0]},
        "push-vel-null": {"push_vel": None},
        "push-vel-nan": {"push_vel": "nan"},
        "push-vel-huge": {"push_vel": "1e300"},
        "latency-neg": {"latency": -1},
        "latency-max": {"latency": 2},
        "latency-over": {"latency": 3},
        "latency-huge": {"latency": INT_MAX},
        "noise-scale-nan": {"noise_scale": "nan"},
        "noise-scale-neg": {"noise_scale": -1.0},
        "noise-scale-huge": {"noise_scale": "1e300"},
        "env-neg": {"env": -1},
        "env-out": {"env": 1},
        "env-huge": {"env": INT_MAX},
        "size-short": {"size": 5},
        "size-long": {"size": 6},
        "size-0": {"size": 7},
    }
    for name, fields in bad.items():
        seeds[f"plain-{name}"] = reset_params("plain", ops=[("rwp", fields), step])
    dr_bad = {
        "has-dr-0": {"has_dr": 0},
        "servo-nan": {"has_dr": 1, "servo": [1.0, "nan", 1.0, 1.0, 1.0]},
        "servo-neg": {"has_dr": 1, "servo": [-1.0, -1.0, -1.0, -1.0, -1.0]},
        "servo-huge": {"has_dr": 1, "servo": ["1e300", 1.0, 1.0, 1.0, "1e300"]},
        "servo-zero": {"has_dr": 1, "servo": [0.0, 0.0, 0.0, 0.0, 0.0]},
        "mass-null": {"has_dr": 1, "mass_scale": None},
        "mass-zero": {"has_dr": 1, "mass_scale": 0.0},
        "mass-neg": {"has_dr": 1, "mass_scale": -1.0},
        "mass-huge": {"has_dr": 1, "mass_scale": "1e300"},
        "mass-nan": {"has_dr": 1, "mass_scale": "nan"},
        "mass-denorm": {"has_dr": 1, "mass_scale": "denorm"},
        "floor-neg": {"has_dr": 1, "floor_friction": -1.0},
        "floor-nan": {"has_dr": 1, "floor_friction": "nan"},
        "floor-huge": {"has_dr": 1, "floor_friction": "1e300"},
        "floor-zero": {"has_dr": 1, "floor_friction": 0.0},
    }
    for name, fields in dr_bad.items():
        seeds[f"dr-{name}"] = reset_params("dr", ops=[("rwp", fields), step, step])
    seeds["noise-lat-latency-5"] = reset_params("noise_lat", ops=[("rwp", {"latency": 5}), step, step, step])
    seeds["noise-lat-latency-6"] = reset_params("noise_lat", ops=[("rwp", {"latency": 6}), step])
    seeds["short-then-steps"] = reset_params("short", 2, 2, 2, ops=[("rwp", {"push_steps": [4]})] + [step] * 6)
    seeds["hopper-refused"] = reset_params("hopper", ops=[("rwp", {}), step])
    seeds["mask-then-rwp"] = reset_params("plain", 2, 2, 1, ops=[("mask", 1, 0), ("rwp", {"env": 1}), step])
    seeds["extreme-actions"] = reset_params(
        "dr",
        ops=[
            ("rwp", {"has_dr": 1}),
            ("step", True, 0, ["flt_over"]),
            ("step", False, 0, ["nan"]),
            ("step", False, 0, ["1e300"]),
        ],
    )
    return seeds


# --- fuzz_step -----------------------------------------------------------------------------------


def step_input(task, n=1, ar=1, short=0, base=0, ops=()):
    """An input of fuzz_step. ops: ('step', ds, mode, values) | ('reset_envs', how, per_env_bytes) |
    ('reset',) | ('seed', v) | ('query',)."""
    w = W()
    w.u8(255).str(task)
    w.u8((n - 1) | ar << 2 | short << 4)
    w.u8(base)
    for op in ops:
        if op[0] == "step":
            _, ds, mode, values = op
            w.u8(0).u8(ds).actions(mode, values)
        elif op[0] == "step_bad_dtype":
            w.u8(0).u8(14).int(op[1])
        elif op[0] == "reset_envs":
            _, how, rest = op
            w.u8(10).u8(how)
            w.b += bytes(rest)
        elif op[0] == "reset":
            w.u8(13)
        elif op[0] == "seed":
            w.u8(14).seed(op[1])
        else:
            w.u8(15).u32(0x3).u8(3)
            for _ in range(4):
                w.u8(0)
    return w.data()


def step_seeds(tasks):
    seeds = {}
    gym = [t for t in tasks if t != "duck"]
    names = ["duck", "duck_short", "duck_dr"] + gym
    F32, F64 = 0, 7

    def walk(n, steps):  # one action value per env (fz_actions mode 1), float32 and float64 in turn
        return [("step", F32 if k % 2 else F64, 1, [0.3 * (-1) ** k, -0.7, 0.9][:n]) for k in range(steps)]

    dm = [t for t, opts in tasks.items() if any(o[0] == "suite_dir" for o in opts)]
    for name in names:
        if name in dm:  # a Control Suite task: one configuration each (28 tasks; their handles are large)
            k = dm.index(name)
            n, short = ((1, 0), (3, 1))[k % 2]
            seeds[f"{name}-ar{k % 3}-n{n}-s{short}"] = step_input(name, n, k % 3, short, ops=walk(n, 10))
            continue
        for ar in (0, 1, 2):
            for n, short in ((1, 0), (3, 1)):
                seeds[f"{name}-ar{ar}-n{n}-s{short}"] = step_input(name, n, ar, short, ops=walk(n, 10))
    extreme = {
        "nan-f64": ("step", F64, 1, [0.5, "nan", 0.5]),
        "nan-f32": ("step", F32, 1, ["nan", 0.5, 0.5]),
        "inf": ("step", F64, 0, ["inf"]),
        "neg-inf-f32": ("step", F32, 1, [0.0, 0.0, "-inf"]),
        "huge-f64": ("step", F64, 0, ["1e300"]),
        "dbl-max": ("step", F64, 0, ["dbl_max"]),
        "flt-overflow-f32": ("step", F32, 0, ["flt_over"]),
        "flt-max-f32": ("step", F32, 0, ["flt_max"]),
        "denorm": ("step", F64, 0, ["denorm"]),
        "neg-zero": ("step", F32, 0, [-0.0]),
        "bounds": ("step", F64, 5, []),
        "bounds-f32": ("step", F32, 5, []),
    }
    act_dim = {"duck": 14, "duck_short": 14, "Hopper-v5": 3, "Humanoid-v5": 17, "Reacher-v5": 2}
    for name in act_dim:
        if name not in names:
            continue
        for tag, op in extreme.items():
            ops = [("step", F64, 4, []), op, ("step", F64, 0, [0.1])]
            if op[2] == 5:  # bounds: one selector byte per element (low, high, below, above, middle)
                ops[1] = ("step", op[1], 5, [k % 5 for k in range(3 * act_dim[name])])
            seeds[f"extreme-{name}-{tag}"] = step_input(name, 3, 2, 1, ops=ops)
    seeds["null-actions"] = step_input("duck", 2, 1, 0, ops=[("step", 15, 4, []), ("step", F64, 4, [])])
    seeds["bad-dtype-3"] = step_input("duck", 1, 1, 0, ops=[("step_bad_dtype", 3), ("step", F64, 4, [])])
    seeds["bad-dtype-0"] = step_input("duck", 1, 1, 0, ops=[("step_bad_dtype", 0)])
    seeds["bad-dtype-neg"] = step_input("duck", 1, 1, 0, ops=[("step_bad_dtype", -1)])
    # masked / seeded resets between steps: how bits 1 mask, 2 seeds, 4 has_seed, 8 the same seed twice
    short_walk = walk(3, 3)
    resets = {
        "mask": (1, [1, 7, 0, 1, 200]),  # env0: u8 1 -> 7, env1: u8 0 -> 0, env2: u8 1 -> 200
        "seeds": (2, [0, 5, 1] + [0xFF] * 8 + [0, 9]),
        "seeds-has": (6, [0, 5, 0, 6, 0, 7, 1, 0, 1]),
        "mask-seeds-has": (7, [1, 1, 0, 1, 1, 0, 3, 0, 4, 0, 5, 0, 1, 1]),
        "same-seed-twice": (10, [0, 1, 0, 2, 0, 3, 1] + [0x2A] * 8),
        "nothing": (1, [0, 0, 0]),
    }
    for name in ("duck", "duck_short", "Hopper-v5", "Ant-v5"):
        if name not in names:
            continue
        for tag, (how, rest) in resets.items():
            seeds[f"reset-{name}-{tag}"] = step_input(
                name, 3, 2, 1, ops=short_walk + [("reset_envs", how, rest)] + short_walk
            )
    seeds["v1-reset-seed"] = step_input("duck", 2, 1, 0, ops=walk(2, 3) + [("seed", 7), ("reset",)] + walk(2, 3))
    # seeds at the edges of a task with a RandomState (seed_max 2**32 - 1; env i gets seed + i): mdvec_seed and
    # seeded resets, taken or refused (how 2: seeds for all, each a fz_seed; how 10: then one env twice)
    for name in ["duck"] + dm[:1]:
        edge = [("seed", 2**32 - 3), ("seed", 2**32 - 2), ("seed", 2**32 - 1), ("seed", 2**64 - 1), ("reset",)]
        seeds[f"seed-edges-{name}"] = step_input(name, 3, 2, 1, ops=walk(3, 2) + edge + walk(3, 2))
        over, top = 2 * (FZ_SEEDS.index(2**32) + 1), 2 * (FZ_SEEDS.index(2**32 - 1) + 1)  # fz_seed table selectors
        resets = [
            ("reset_envs", 2, [0, 0, over, top]),  # seeds 0, 2**32, 2**32 - 1 for envs 0..2
            ("reset_envs", 10, [0, 9, 0, 9, 0, 9, 1, over]),  # seeds 9, then env 1 twice with 2**32
            ("reset_envs", 10, [0, 9, 0, 9, 0, 9, 2, top]),  # seeds 9, then env 2 twice with 2**32 - 1
        ]
        seeds[f"reset-seed-edges-{name}"] = step_input(name, 3, 2, 1, ops=walk(3, 2) + resets + walk(3, 2))
    seeds["query"] = step_input("duck", 2, 1, 0, ops=[("query",)] + walk(2, 3) + [("query",)])
    seeds["query-gym"] = step_input("Swimmer-v5", 2, 0, 1, ops=[("query",)] + walk(2, 3))
    return seeds


# --- models --------------------------------------------------------------------------------------


# --- fuzz_restore --------------------------------------------------------------------------------

RESTORE_NU = {0: 14, 1: 1, 2: 3, 3: 6}  # act_dim of fuzz_restore's configurations: duck, cart, hopper, cheetah


def restore_input(cfg, n=1, t=1, ar=1, first=0, steps=2, ops=()):
    """An input of fuzz_restore: the configuration byte, the seed byte, steps (one byte per action), then ops,
    each a W of the bytes the operation reads (its selector first)."""
    w = W().u8(cfg | (n - 1) << 2 | (t - 1) << 4 | ar << 5).u8(first).u8(steps)
    for k in range(steps):
        for _ in range(RESTORE_NU[cfg] * n):
            w.u8(128 + 37 * (k + 1) % 100)
    for op in ops:
        w.b += op.b
    return w.data()


def damaged(kind, sealed=False, at=0, extra=()):
    """A restore of a damaged base: fuzz_restore's damage() bytes (how, the kind's reads, where)."""
    w = W().u8(0).u8(kind | (0x80 if sealed else 0))
    if kind == 3:  # cut at byte `at` (a u32)
        w.u8(0).u32(at)
    if kind == 4:  # extended by 1 + extra[0] bytes
        w.u8(extra[0] if extra else 0)
        for _ in range(1 + (extra[0] if extra else 0)):
            w.u8(0xAB)
    w.u32(at)
    for v in extra[1:] if kind == 4 else extra:
        w.u8(v) if isinstance(v, int) and v < 256 else w.u32(v)
    return w


def restore_seeds():
    seeds = {}
    base, step = W().u8(6), W().u8(7)  # restore the base; a step (its actions past the input's end: zeros)
    for cfg in range(4):
        for n, t, ar in ((1, 1, 1), (2, 2, 2), (3, 1, 0)):
            name = ["duck", "cart", "hopper", "cheetah"][cfg]
            seeds[f"{name}-n{n}-t{t}-ar{ar}-base"] = restore_input(cfg, n, t, ar, steps=3, ops=[base, step])
    seeds["flip-unsealed"] = restore_input(0, ops=[damaged(0, at=5000, extra=[2, 7, 0x10, 123456, 0x40]), base])
    seeds["flip-sealed"] = restore_input(1, 2, 2, 2, ops=[damaged(1, True, at=300, extra=[0, 9, 0x01]), base])
    seeds["overwrite-sealed"] = restore_input(0, 2, ops=[damaged(2, True, at=400, extra=[8] + [0xFF] * 9)])
    seeds["cut-short"] = restore_input(1, ops=[damaged(3, at=191), damaged(3, at=1000)])
    seeds["extended"] = restore_input(1, 2, ops=[damaged(4, extra=[3])])
    for field, v in ((1, 2), (2, 200), (3, 10300), (4, 3017000), (5, 1), (14, 0), (15, 9), (17, 5)):
        seeds[f"header-{field}"] = restore_input(1, ops=[W().u8(0).u8(0x80 | 5).u32(0).u8(field).i64(v), base])
    for at, v in ((8, 2**63 - 1), (40, 2), (200, 10**12), (1000, -(2**63))):
        seeds[f"body-{at}"] = restore_input(0, ops=[W().u8(0).u8(0x80 | 7).u32(0).u32(at).i64(v), base])
    seeds["other-config"] = restore_input(1, 2, ops=[W().u8(4).u8(0).u8(1).u8(1), W().u8(4).u8(1).u8(1).u8(1)])
    seeds["set-state-own"] = restore_input(1, ops=[W().u8(5).u8(0).u8(3).u8(1).u8(1).u8(0).u8(1).u8(1).u8(1), step])
    seeds["set-state-nan"] = restore_input(
        0, 2, ops=[W().u8(5).u8(0).u8(3).u8(1).u8(1).u8(0).u8(0).dbl(math.nan).dbl(1e300).u8(1)]
    )
    seeds["set-state-huge"] = restore_input(
        1, ops=[W().u8(5).u8(0).u8(3).u8(1).u8(1).u8(0).u8(0).dbl("1e300").dbl("-1e300").dbl(0.5).dbl(-2.0).u8(1)]
    )
    return seeds


def many_actuators_xml(n=70):
    """n slide joints, one motor each: an action longer than 64 (gm_sum_square's stack buffer)."""
    bodies = "\n".join(
        f'    <body name="b{k}" pos="{0.3 * k:.1f} 0 0">\n'
        f'      <joint name="j{k}" type="slide" axis="0 0 1" range="-1 1" limited="true"/>\n'
        f'      <geom type="sphere" size="0.1"/>\n    </body>'
        for k in range(n)
    )
    motors = "\n".join(f'    <motor joint="j{k}" ctrlrange="-1 1" ctrllimited="true"/>' for k in range(n))
    return (
        f"<!-- Written by tests/fuzz/make_corpus.py: {n} slide joints with one motor each (nq = nv = nu = {n}). -->\n"
        f'<mujoco model="many_actuators">\n  <worldbody>\n{bodies}\n  </worldbody>\n'
        f"  <actuator>\n{motors}\n  </actuator>\n</mujoco>\n"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", help="a built libmdvec.so (default: $MDVEC_LIB or build*/libmdvec/libmdvec.so)")
    ap.add_argument("--check", action="store_true", help="only report whether the committed corpus is up to date")
    ap.add_argument("--out", default=HERE, help="where corpus/ and models/ go (default: tests/fuzz)")
    args = ap.parse_args()
    tasks = catalogue(find_lib(args.lib))
    found = {"config": {}}
    sets = {
        "config": config_seeds(tasks, found["config"]),
        "reset_params": reset_params_seeds(),
        "step": step_seeds(tasks),
        "restore": restore_seeds(),
    }
    files = {
        os.path.join("corpus", target, name): data for target, seeds in sets.items() for name, data in seeds.items()
    }
    files.update(
        {
            os.path.join("findings", target, name): data
            for target, seeds in found.items()
            for name, data in seeds.items()
        }
    )
    files[os.path.join("models", "many_actuators.xml")] = many_actuators_xml().encode()
    if args.check:
        stale = [
            p
            for p, d in files.items()
            if not os.path.exists(os.path.join(args.out, p)) or open(os.path.join(args.out, p), "rb").read() != d
        ]
        extra = [
            os.path.join("corpus", t, n)
            for t in sets
            if os.path.isdir(os.path.join(args.out, "corpus", t))
            for n in os.listdir(os.path.join(args.out, "corpus", t))
            if os.path.join("corpus", t, n) not in files and not n.startswith("regress-")
        ]
        for p in stale + extra:
            print("out of date:", p)
        print(f"{len(files)} files, {len(stale) + len(extra)} out of date")
        return 1 if stale or extra else 0
    for target in sets:  # the corpus is rewritten, except regress-* (fixed findings' inputs, kept by hand)
        d = os.path.join(args.out, "corpus", target)
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(d):
            if not name.startswith("regress-"):
                os.remove(os.path.join(d, name))
        os.makedirs(os.path.join(args.out, "findings", target), exist_ok=True)
    os.makedirs(os.path.join(args.out, "models"), exist_ok=True)
    total = 0
    for p, data in sorted(files.items()):
        with open(os.path.join(args.out, p), "wb") as fh:
            fh.write(data)
        total += len(data)
    for target, seeds in sets.items():
        print(
            f"{target}: {len(seeds)} seeds, {sum(map(len, seeds.values()))} bytes; "
            f"{len(found.get(target, {}))} reproducers in findings/{target}"
        )
    print(f"models/many_actuators.xml; {total} bytes in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
