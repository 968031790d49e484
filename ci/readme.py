"""Check the code of README.md, CONTRIBUTING.md and docs/*.md: every fenced block and command in them.

Usage: python ci/readme.py [--all]   (run it with the interpreter that has mdvec installed; the
current directory is where the Python blocks and the RUN commands run). Exit status 1 on any failure.

Each fenced block must name its language:
- ```python: runs, unless it is an excerpt of a .py file of the repository (then checked against that
  file) or listed in EXEMPT_BLOCKS with its reason. A block that imports an optional extra (gymnasium,
  stable_baselines3, torch, ray, or mdvec's adapters of them) or names a Gymnasium v5 task (whose model
  comes from the installed gymnasium) runs only where that extra is installed: the wheel stage (core
  install) leaves such blocks to the extras stage, which runs this with --all, where every block must run.
- ```c: an excerpt of a .c or .h file of the repository, checked against it.
- ```sh / ```bash: shell commands, one per line (lines ending in a backslash, && or | joined, comments
  dropped). Each
  must be listed in COMMANDS, once: RUN (this script runs it, with `python` this interpreter), ELSEWHERE
  (a CI stage or test runs it; the file named must exist) or EXEMPT (with the reason it is not run).
- ```text: not code (formulas, output).
An excerpt may leave lines out with a line `...` (or `/* ... */`, `// ...`, `# ...`); the pieces between
must occur in one file, in order, whitespace aside. A table entry that matches nothing fails too, so the
tables stay in step with the documents. Every file a document's text names under bench/results/ must exist.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIRS = ("libmdvec", "python", "tests", "examples", "bench", "ci")
LANGUAGES = {"python", "c", "sh", "bash", "text"}

OPTIONAL = ("gymnasium", "stable_baselines3", "torch", "ray", "dm_control")
# The Control Suite's domains: a block naming one of their tasks ("cheetah-run") reads dm_control's XML.
DM_DOMAINS = "acrobot|ball_in_cup|cartpole|cheetah|finger|fish|hopper|humanoid|manipulator|pendulum|point_mass|reacher|swimmer|walker"
ADAPTERS = {"mdvec.gym": "gymnasium", "mdvec.sb3": "stable_baselines3", "mdvec.rllib": "ray"}
EXTRA_MODULES = {"gymnasium": "gymnasium", "sb3": "stable_baselines3"}  # a RUN command's extra -> its module

# Python and C blocks that neither run nor are excerpts: (document, a line of the block) -> why.
EXEMPT_BLOCKS = {
    (
        "docs/duck_task.md",
        "# v1",
    ): "the reward as formulas, names from the surrounding text (mdvec.reference computes it; the contract compares)",
    (
        "docs/rllib.md",
        "from mdvec.rllib import ppo_config",
    ): "100 PPO iterations on 8 EnvRunners (hours, ray); ci/rllib.sh runs tests/py/test_rllib.py",
    (
        "docs/rllib.md",
        "config.environment(mdvec.rllib.RLlibVectorEnv,",
    ): "a fragment of a config (S, N, config from the text); mdvec.rllib.ppo_config builds it, tested by ci/rllib.sh",
}

RUN, ELSEWHERE, EXEMPT = "RUN", "ELSEWHERE", "EXEMPT"
# Every command of the documents, whitespace squashed and comments dropped -> (kind, note). RUN: the
# note names the extra it needs ("" for none). ELSEWHERE: the note starts with the file that runs it.
COMMANDS = {
    # README.md
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && python -m mdvec demo": (
        ELSEWHERE,
        "ci/installs.sh: the README's first command, word for word, in a fresh clone",
    ),
    "pip install -r requirements.txt && meson setup build && ninja -C build test": (
        ELSEWHERE,
        "ci/test.sh: the test stage; ci/installs.sh runs it in a core-only venv too",
    ),
    "bash ci/build_wheel.sh dist && pip install dist/mdvec-*-manylinux_*.whl": (
        ELSEWHERE,
        "ci/wheel.sh: bash ci/build_wheel.sh, then the wheel installed with no compiler on PATH",
    ),
    "cc -O2 -o hold_pose examples/c/hold_pose.c $(mdvec-config --cflags --libs) && ./hold_pose": (
        ELSEWHERE,
        "ci/wheel.sh: hold_pose.c built with mdvec-config against the pip install alone, then run",
    ),
    # CONTRIBUTING.md
    "meson test -C build --suite python": (
        ELSEWHERE,
        "ci/test.sh: ninja -C build test runs the python suite with the others",
    ),
    "PYTHONPATH=python MDVEC_LIB=build/libmdvec/libmdvec.so MDVEC_TESTHOOKS=build/tests/libmdvec_testhooks.so "
    "MDVEC_BENCH=build/bench/mdvec_bench python -m pytest -q tests/py/test_binding.py": (
        ELSEWHERE,
        "tests/meson.build: the python suite runs each file with this environment (ci/test.sh)",
    ),
    "python -m mdvec bench --quick --no-plot": (
        ELSEWHERE,
        "ci/wheel.sh: python -m mdvec bench --quick --no-plot, from the installed wheel",
    ),
    # docs/adding_a_task.md, "Using the task from the README's venv"
    ". .venv/bin/activate && pip install .": (
        EXEMPT,
        "reinstalls mdvec into the README's venv: it would replace the mdvec under test (ci/installs.sh runs "
        "the README's first pip install . in a fresh clone)",
    ),
    "python -c \"import mdvec; print(mdvec.task_summary('cartpole_swingup'))\"": (RUN, ""),
    # docs/python.md
    "python -m mdvec --version": (RUN, ""),
    "python -m mdvec --help": (RUN, ""),
    "python -m mdvec contract -h": (RUN, ""),
    # docs/building.md, docs/gymnasium.md
    "pip install -r requirements.txt": (ELSEWHERE, "ci/venv.sh: the CI venv is made from requirements.txt"),
    "pip install --no-build-isolation -Cbuild-dir=build-editable -e .": (
        EXEMPT,
        "an editable install into the active venv: it would replace the mdvec under test",
    ),
    'pip install ".[gymnasium]"': (
        ELSEWHERE,
        'ci/extras.sh: pip install "mdvec[gymnasium]" in the wheel venv, the same extra',
    ),
    "pip install torch==2.13.0": (ELSEWHERE, "ci/extras.sh: installs torch==2.13.0 before the sb3 extra"),
    'pip install ".[sb3]"': (ELSEWHERE, 'ci/extras.sh: pip install "mdvec[sb3]" in the wheel venv, the same extra'),
    "meson setup build && ninja -C build": (ELSEWHERE, "ci/test.sh: meson setup build && ninja -C build test"),
    "meson test -C build --suite c": (ELSEWHERE, "ci/test.sh: ninja -C build test runs the c suite with the others"),
    "meson setup build-asan -Db_sanitize=address,undefined -Dbuildtype=debugoptimized -Dpython_tests=false": (
        ELSEWHERE,
        "ci/sanitize.sh: the asan stage",
    ),
    "meson test -C build-asan --print-errorlogs": (ELSEWHERE, "ci/sanitize.sh: the asan stage"),
    "meson setup build-tsan -Db_sanitize=thread -Dbuildtype=debugoptimized -Dpython_tests=false": (
        ELSEWHERE,
        "ci/sanitize.sh: the tsan stage",
    ),
    'setarch "$(uname -m)" -R meson test -C build-tsan --print-errorlogs': (
        ELSEWHERE,
        "ci/sanitize.sh: the tsan stage",
    ),
    # docs/c_api.md
    'meson setup build-inst --prefix="$HOME/.local" -Dpython_tests=false && meson install -C build-inst': (
        ELSEWHERE,
        "ci/install.sh: meson install into a scratch prefix",
    ),
    'cd examples/c && PKG_CONFIG_PATH="$(dirname "$(find "$HOME/.local" -name mdvec.pc)")" make && ./hold_pose': (
        ELSEWHERE,
        "ci/install.sh: examples/c/Makefile through pkg-config, then the program",
    ),
    # docs/training.md, "On any other task"
    "python -m mdvec train --env cartpole_swingup --backend mdvec --envs 4 --n-steps 128 --batch-size 128 "
    "--n-epochs 4 --steps 1536 --seed 1 -o max_episode_steps=100 --out runs/cartpole_mdvec": (
        ELSEWHERE,
        "tests/py/test_train.py: test_cartpole_training_is_bit_identical_on_both_backends trains both backends",
    ),
    "python -m mdvec train --env cartpole_swingup --backend processes --envs 4 --n-steps 128 --batch-size 128 "
    "--n-epochs 4 --steps 1536 --seed 1 -o max_episode_steps=100 --out runs/cartpole_processes": (
        ELSEWHERE,
        "tests/py/test_train.py: test_cartpole_training_is_bit_identical_on_both_backends trains both backends",
    ),
    "python -m mdvec evaluate --policy runs/cartpole_mdvec/policy.zip --seeds 1,2 --episodes 5": (
        ELSEWHERE,
        "tests/py/test_train.py: test_train_evaluate_and_render_cartpole evaluates a cart-pole policy",
    ),
    "python -m mdvec render --policy runs/cartpole_mdvec/policy.zip --out cartpole.gif": (
        ELSEWHERE,
        "tests/py/test_train.py: test_train_evaluate_and_render_cartpole renders a cart-pole policy",
    ),
    # docs/install.md
    "bash ci/build_wheel.sh dist": (
        ELSEWHERE,
        "ci/wheel.sh: bash ci/build_wheel.sh build-ci-out/dist, the same script",
    ),
    "python3 -m venv .venv && . .venv/bin/activate": (
        ELSEWHERE,
        "ci/wheel.sh: a fresh venv for the wheel (.venv-ci-wheel)",
    ),
    "pip install dist/mdvec-*-manylinux_*.whl": (
        ELSEWHERE,
        "ci/wheel.sh: pip install --only-binary :all: of the built wheel, no compiler on PATH",
    ),
    'pip install "$(ls dist/mdvec-*-manylinux_*.whl)[gymnasium]"': (
        ELSEWHERE,
        "ci/wheel.sh: the wheel file with its gymnasium extra, then contract --quick",
    ),
    "python -m mdvec demo": (ELSEWHERE, "ci/wheel.sh: python -m mdvec demo from the installed wheel"),
    "cc -O2 -o hold_pose examples/c/hold_pose.c $(mdvec-config --cflags --libs)": (
        ELSEWHERE,
        "ci/wheel.sh: hold_pose.c built with mdvec-config against the pip install alone",
    ),
    "./hold_pose": (ELSEWHERE, "ci/wheel.sh: runs the program it built, without LD_LIBRARY_PATH"),
    "PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir) pkg-config --cflags --libs mdvec": (
        ELSEWHERE,
        "ci/wheel.sh: examples/c/Makefile through PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir)",
    ),
    "PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir) make -C examples/c && examples/c/hold_pose": (
        ELSEWHERE,
        "ci/wheel.sh: examples/c/Makefile through pkg-config, then the program",
    ),
    'pip install "mdvec[gymnasium]"': (ELSEWHERE, 'ci/extras.sh: pip install "mdvec[gymnasium]" in the wheel venv'),
    "mdvec-config --model Hopper-v5": (
        ELSEWHERE,
        "ci/wheel.sh: gym_task.c run on mdvec-config --model Hopper-v5; tests/py/test_config_tool.py",
    ),
    "mdvec-config --gym-assets": (
        ELSEWHERE,
        "tests/py/test_config_tool.py: --gym-assets against gymnasium's assets folder",
    ),
    "cc -O2 -o gym_task examples/c/gym_task.c $(mdvec-config --cflags --libs)": (
        ELSEWHERE,
        "ci/wheel.sh: gym_task.c built against the pip install alone",
    ),
    './gym_task Hopper-v5 "$(mdvec-config --model Hopper-v5)"': (
        ELSEWHERE,
        "ci/wheel.sh: runs gym_task on Gymnasium's hopper.xml",
    ),
    # docs/training.md
    "python -m mdvec train --backend mdvec --envs 16 --threads 2 --steps 3000000 --seed 1 --out runs/duck1": (
        EXEMPT,
        "3M steps: about an hour on 2 cores; tests/py/test_train.py trains the same code briefly",
    ),
    "python -m mdvec evaluate --policy runs/duck1/policy.zip": (
        EXEMPT,
        "needs the hour-long run above; tests/py/test_train.py: test_evaluate_command_on_a_trained_policy",
    ),
    "python -m mdvec render --policy runs/duck1/policy.zip --out duck.gif": (
        EXEMPT,
        "needs the hour-long run above; tests/py/test_train.py: test_render_writes_a_gif_with_the_shoves",
    ),
    "python -m mdvec train --env Hopper-v5 --backend mdvec --envs 4 --n-steps 128 --batch-size 128 "
    "--n-epochs 4 --steps 1536 --seed 1 -o max_episode_steps=100 --out runs/hopper_c": (
        ELSEWHERE,
        (
            "tests/py/test_train.py: test_hopper_training_is_bit_identical_to_gymnasiums_own_env, "
            "both backends at smaller scale"
        ),
    ),
    "python -m mdvec train --env Hopper-v5 --backend processes --envs 4 --n-steps 128 --batch-size 128 "
    "--n-epochs 4 --steps 1536 --seed 1 -o max_episode_steps=100 --out runs/hopper_gym": (
        ELSEWHERE,
        (
            "tests/py/test_train.py: test_hopper_training_is_bit_identical_to_gymnasiums_own_env, "
            "both backends at smaller scale"
        ),
    ),
    "python -m mdvec evaluate --policy runs/hopper_c/policy.zip --seeds 1,2 --episodes 5": (
        ELSEWHERE,
        "tests/py/test_train.py: test_train_command_on_hopper_and_evaluate_it",
    ),
    "python -m mdvec render --policy runs/hopper_c/policy.zip --out hopper.gif": (
        ELSEWHERE,
        (
            "tests/py/test_render_gl.py: test_render_a_gymnasium_task_with_the_zero_action_baseline "
            "(Hopper-v5; a trained policy's render: test_train.py on the duck)"
        ),
    ),
    # docs/benchmarks.md, docs/benchmarks_v5.md
    "PYTHONPATH=python python bench/pixels_sidebyside.py": (
        EXEMPT,
        "a benchmark: about 18 minutes on 2 cores with llvmpipe; EnvPool's cells need .venv-envpool",
    ),
    "PYTHONPATH=python python bench/pixels_sidebyside.py --quick": (
        EXEMPT,
        "the benchmark's smoke run (about a minute of software rendering); tests/py/test_pixels_bench.py covers its summary",
    ),
    "PYTHONPATH=python python bench/envpool_sidebyside.py --quick": (
        EXEMPT,
        "a benchmark's smoke run (PPO and policy-in-the-loop cells, minutes on 2 cores; EnvPool's cells need "
        ".venv-envpool); tests/py/test_ppo_envpool_example.py runs the PPO script it times",
    ),
    "MDVEC_LIB=$PWD/build/libmdvec/libmdvec.so PYTHONPATH=python python bench/envpool_sidebyside.py": (
        EXEMPT,
        "a benchmark: about 10 minutes on 2 cores, EnvPool's cells from .venv-envpool",
    ),
    "PYTHONPATH=python python bench/envpool_sidebyside.py --pool bench/results/envpool_sidebyside_A.json "
    "bench/results/envpool_sidebyside_B.json": (EXEMPT, "A and B are placeholders for two runs' files"),
    # docs/envpool.md, "A training script on it"
    "python examples/ppo_envpool.py --mode sync --num-envs 8 --total-steps 100000": (
        ELSEWHERE,
        "tests/py/test_ppo_envpool_example.py: the same script, both modes at 256 steps, twice each, hashes equal",
    ),
    "python examples/ppo_envpool.py --mode async --num-envs 8 --batch-size 4 --total-steps 100000": (
        ELSEWHERE,
        "tests/py/test_ppo_envpool_example.py: the same script, both modes at 256 steps, twice each, hashes equal",
    ),
    ".venv-envpool/bin/python bench/v5_sidebyside.py": (
        EXEMPT,
        "a benchmark: about 10 minutes, and EnvPool from PyPI in a venv of its own",
    ),
    "python -m venv .venv-envpool": (EXEMPT, "sets up the EnvPool venv of the benchmark (network)"),
    "python3.11 -m venv .venv-envpool": (EXEMPT, "sets up the EnvPool venv of the Control Suite benchmark"),
    'echo "$PWD/.venv-ci/lib/python3.11/site-packages" > .venv-envpool/lib/python3.11/site-packages/_main_venv.pth': (
        EXEMPT,
        "sets up the EnvPool venv of the Control Suite benchmark",
    ),
    ".venv-envpool/bin/pip install envpool==1.2.5": (EXEMPT, "EnvPool from PyPI (network), for the benchmark only"),
    "MDVEC_LIB=$PWD/build-hG/libmdvec/libmdvec.so.1.4.0 PYTHONPATH=python .venv-envpool/bin/python "
    "bench/dm_sidebyside.py --build-dir build-hG/dm_bare": (
        EXEMPT,
        "a benchmark: about 13 minutes for the 28 tasks, needs the EnvPool venv",
    ),
    "... bench/dm_sidebyside.py --quick --tasks cheetah-run,walker-walk": (
        EXEMPT,
        "a benchmark (about 20 s a task, the EnvPool venv); '...' abbreviates the line above",
    ),
    "... bench/dm_sidebyside.py --replot bench/results/dm_sidebyside_<stamp>.json": (
        EXEMPT,
        "rewrites a run's table and plot; <stamp> is a placeholder",
    ),
    'echo "$PWD/.venv/lib/python3.11/site-packages" > .venv-envpool/lib/python3.11/site-packages/_main_venv.pth': (
        EXEMPT,
        "sets up the EnvPool venv of the benchmark",
    ),
    ".venv-envpool/bin/pip install envpool": (EXEMPT, "EnvPool from PyPI (network), for the benchmark only"),
    "pip download --no-deps mujoco==3.6.0 -d /tmp/mj360 && mkdir -p build-bench/mujoco-3.6.0 && "
    "unzip -j /tmp/mj360/mujoco-3.6.0-*.whl 'mujoco/libmujoco.so.3.6.0' -d build-bench/mujoco-3.6.0": (
        EXEMPT,
        "downloads MuJoCo 3.6.0 (network), for the benchmark's optional column",
    ),
    "meson setup build-bench && ninja -C build-bench libmdvec/libmdvec.so.1.1.0": (
        EXEMPT,
        "the benchmark's build, as run on 2026-11-30 (libmdvec 1.1.0)",
    ),
    "MDVEC_LIB=$PWD/build-bench/libmdvec/libmdvec.so PYTHONPATH=python .venv-envpool/bin/python bench/v5_sidebyside.py": (
        EXEMPT,
        "a benchmark: 10-13 minutes, needs the EnvPool venv",
    ),
    "... bench/v5_sidebyside.py --quick": (
        EXEMPT,
        "a benchmark (about 1.5 minutes, the EnvPool venv); '...' abbreviates the line above",
    ),
    "... bench/v5_sidebyside.py --resume bench/results/v5_sidebyside_<stamp>.json": (
        EXEMPT,
        "continues a cut benchmark run; <stamp> is a placeholder",
    ),
    "... bench/v5_sidebyside.py --backends bare,engines --threads 1 --envs 8 --rounds 20 --name v5_engines": (
        EXEMPT,
        "a benchmark (minutes, the EnvPool venv)",
    ),
    '... bench/v5_sidebyside.py --backends "mdvec,EnvPool,bare,bare dyn" --tasks Walker2d-v5': (
        EXEMPT,
        "a benchmark (minutes, the EnvPool venv)",
    ),
    '... bench/v5_sidebyside.py --backends "mdvec,mdvec C,bare" --bare-follows-mdvec --rounds 24': (
        EXEMPT,
        "a benchmark (minutes, the EnvPool venv)",
    ),
    "python bench/v5_sidebyside.py --pool bench/results/v5_sidebyside_A.json ...B.json": (
        EXEMPT,
        "A and B are placeholders for two runs' files",
    ),
    "python bench/v5_sidebyside.py --replot bench/results/v5_sidebyside_A.json": (
        EXEMPT,
        "A is a placeholder for a run's file",
    ),
    # docs/rllib.md
    "python3 -m venv .venv-ray && . .venv-ray/bin/activate": (
        ELSEWHERE,
        "ci/rllib.sh: makes a venv of its own for ray[rllib]",
    ),
    "pip install '.[rllib]'": (
        ELSEWHERE,
        "ci/rllib.sh: installs the rllib extra's requirements (ci/requirements-rllib.txt) with torch",
    ),
}


def squash(code: str) -> str:
    """Return code with its whitespace runs made single spaces (indentation may differ)."""
    return " ".join(code.split())


def fenced_blocks(text: str) -> list[tuple[str, str, int]]:
    """Return (language, body, line number) of every fenced block, in order."""
    found = []
    for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", text, flags=re.S | re.M):
        found.append((m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1))
    return found


ELISION = re.compile(r"^\s*(\.\.\.|/\* \.\.\. \*/|// \.\.\.|# \.\.\.)\s*$")


def excerpt_source(code: str, suffixes: tuple[str, ...], sources: dict[tuple[str, ...], list[Path]]) -> Path | None:
    """Return the first source file (of the suffixes) holding code's pieces in order, or None."""
    pieces: list[str] = []
    piece: list[str] = []
    for line in code.splitlines():
        if ELISION.match(line):
            pieces.append(squash("\n".join(piece)))
            piece = []
        else:
            piece.append(line)
    pieces = [p for p in pieces + [squash("\n".join(piece))] if p]
    if not pieces:
        return None
    for path in sources[suffixes]:
        text, pos = squash(path.read_text(errors="replace")), 0
        for p in pieces:
            pos = text.find(p, pos)
            if pos < 0:
                break
            pos += len(p)
        else:
            return path
    return None


def source_files(suffixes: tuple[str, ...]) -> list[Path]:
    """Return the repository's source files with these suffixes (build trees and venvs left out)."""
    return sorted(
        p
        for d in SOURCE_DIRS
        for p in (ROOT / d).rglob("*")
        if p.suffix in suffixes and p.is_file() and "__pycache__" not in p.parts
    )


def missing_extras(code: str) -> list[str]:
    """Return the optional modules the block needs (imported directly, through mdvec's adapters, or the
    gymnasium whose models a v5 task reads) that are not installed."""
    imported = re.findall(r"^\s*(?:import|from)\s+([\w.]+)", code, flags=re.M)
    needed = {name.split(".")[0] for name in imported} & set(OPTIONAL)
    needed |= {
        module
        for adapter, module in ADAPTERS.items()
        if any(name == adapter or name.startswith(adapter + ".") for name in imported)
    }
    if re.search(r"[\"'](?:mdvec/)?\w+-v5[\"']", re.sub(r"#.*", "", code)):  # comments aside
        needed.add("gymnasium")
    if re.search(rf"[\"'](?:mdvec/|dm_control/)?(?:{DM_DOMAINS})-\w+(?:-v0)?[\"']", re.sub(r"#.*", "", code)):
        needed.add("dm_control")
    return sorted(m for m in needed if importlib.util.find_spec(m) is None)


def commands(code: str) -> list[str]:
    """Return the commands of a shell block: continuations joined, comments dropped, whitespace squashed."""
    out, current = [], ""
    for line in code.splitlines():
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        if re.search(r"(&&|\|\||\|)$", current):
            current += " "
            continue
        cmd = squash(re.sub(r"(^|\s)#\s.*$|^#.*$", "", current))
        current = ""
        if cmd:
            out.append(cmd)
    return out


def run_command(cmd: str) -> int:
    """Run one command with bash, this interpreter's directory first on PATH; return its exit status."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    print(f"readme:   $ {cmd}", flush=True)
    return subprocess.run(["bash", "-c", cmd], env=env, check=False).returncode


def check(docs: list[Path], run_all: bool) -> list[str]:
    """Check every block and command of the documents; return the failures."""
    failures: list[str] = []
    sources = {(".py",): source_files((".py",)), (".c", ".h"): source_files((".c", ".h"))}
    used_blocks: set[tuple[str, str]] = set()
    used_commands: set[str] = set()
    ran = left = 0
    for doc in docs:
        name = doc.relative_to(ROOT).as_posix()
        prose = re.sub(r"^```.*?^```", "", doc.read_text(), flags=re.S | re.M)
        for cited in sorted(set(re.findall(r"bench/results/([\w.*{},<>-]*[\w*}>])", prose))):
            if any(c in cited for c in "*{<"):
                continue  # a pattern, not one file
            results = ROOT / "bench" / "results"
            if not ((results / cited).is_file() or any(results.glob(cited + ".*"))):  # a file, or a stem.*
                failures.append(f"{name}: cites bench/results/{cited}, which does not exist (keep what the docs quote)")
        for lang, body, line in fenced_blocks(doc.read_text()):
            where = f"{name}:{line}"
            if lang not in LANGUAGES:
                failures.append(
                    f"{where}: a fenced block must name its language, one of {sorted(LANGUAGES)} (found {lang!r})"
                )
                continue
            if lang == "text":
                continue
            exempt = [key for key in EXEMPT_BLOCKS if key[0] == name and key[1] in body.splitlines()]
            if exempt and lang in ("python", "c"):
                used_blocks.update(exempt)
                print(f"readme: {where}: {lang} block not checked: {EXEMPT_BLOCKS[exempt[0]]}")
                continue
            if lang == "c":
                src = excerpt_source(body, (".c", ".h"), sources)
                if src is None:
                    failures.append(
                        f"{where}: C block is in no .c/.h file of {', '.join(SOURCE_DIRS)} "
                        "(keep the excerpt in step with its file)"
                    )
                else:
                    print(f"readme: {where}: C excerpt of {src.relative_to(ROOT)}")
                continue
            if lang == "python":
                src = excerpt_source(body, (".py",), sources)
                if src is not None:
                    print(f"readme: {where}: Python excerpt of {src.relative_to(ROOT)}")
                    continue
                missing = missing_extras(body)
                if missing and not run_all:
                    print(f"readme: {where}: Python block needs {missing}: left to the extras stage (ci/extras.sh)")
                    left += 1
                    continue
                if missing:
                    failures.append(f"{where}: Python block needs {missing}, not installed (--all: every block runs)")
                    continue
                print(f"readme: {where}: running Python block ({len(body.splitlines())} lines)", flush=True)
                try:
                    exec(compile(body, where, "exec"), {"__name__": "__readme__"})
                except Exception as exc:  # noqa: BLE001 - any failure of a block is reported, then the next
                    failures.append(f"{where}: Python block raised {type(exc).__name__}: {exc}")
                ran += 1
                continue
            for cmd in commands(body):
                if cmd not in COMMANDS:
                    failures.append(
                        f"{where}: command not in ci/readme.py's COMMANDS (say RUN, ELSEWHERE or EXEMPT and why): {cmd}"
                    )
                    continue
                used_commands.add(cmd)
                kind, note = COMMANDS[cmd]
                if kind != RUN:
                    print(f"readme: {where}: {kind.lower()}: {cmd[:60]}{'...' if len(cmd) > 60 else ''} ({note})")
                    continue
                module = EXTRA_MODULES.get(note)
                if module and importlib.util.find_spec(module) is None:
                    if run_all:
                        failures.append(f"{where}: command needs the {note} extra, not installed: {cmd}")
                    else:
                        print(f"readme: {where}: command needs the {note} extra: left to the extras stage")
                        left += 1
                    continue
                rc = run_command(cmd)
                ran += 1
                if rc != 0:
                    failures.append(f"{where}: command exited {rc}: {cmd}")
    for key in EXEMPT_BLOCKS.keys() - used_blocks:
        failures.append(f"ci/readme.py: EXEMPT_BLOCKS entry matches no block: {key}")
    for cmd in COMMANDS.keys() - used_commands:
        failures.append(f"ci/readme.py: COMMANDS entry matches no command of the documents: {cmd}")
    for cmd, (kind, note) in COMMANDS.items():
        if kind == ELSEWHERE and not (ROOT / note.split(":")[0]).is_file():
            failures.append(f"ci/readme.py: {cmd!r} is said to run in {note.split(':')[0]}, which does not exist")
        if kind == RUN and note and note not in EXTRA_MODULES:
            failures.append(f"ci/readme.py: {cmd!r} needs unknown extra {note!r}")
    print(f"readme: {len(docs)} documents; {ran} blocks and commands ran, {left} left to the extras stage")
    return failures


def main(argv: list[str]) -> int:
    if argv not in ([], ["--all"]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    failures = check(docs, run_all=argv == ["--all"])
    for f in failures:
        print(f"readme: FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
