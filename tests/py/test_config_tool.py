"""mdvec-config (python/mdvec/tools/config.py): its answers, from a package laid out as the wheel installs
it (built here in a temporary site-packages: the Python package, libmdvec.so.1, include/mdvec.h and
pkgconfig/mdvec.pc rendered from libmdvec/mdvec-wheel.pc.in, next to the mujoco package), and its exit
codes. The wheel itself is built, installed and used from C by the CI's wheel stage (ci/wheel.sh)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mujoco
import pytest

import mdvec
from mdvec.tools import config

ROOT = Path(__file__).resolve().parents[2]


def make_site(site: Path) -> Path:
    """Lay out in site a site-packages holding mdvec as the wheel lays it out, and (a link to) the real
    mujoco package; return site."""
    from mdvec.vecenv import lib

    site.mkdir(parents=True, exist_ok=True)
    pkg = site / "mdvec"
    shutil.copytree(ROOT / "python" / "mdvec", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(lib().path, pkg / "libmdvec.so.1")  # the build's library; its soname is libmdvec.so.1 too
    (pkg / "include").mkdir()
    shutil.copy(ROOT / "libmdvec" / "include" / "mdvec.h", pkg / "include")
    (pkg / "pkgconfig").mkdir()
    template = (ROOT / "libmdvec" / "mdvec-wheel.pc.in").read_text()
    for name, value in (("VERSION", mdvec.__version__), ("ABI_MAJOR", "1"), ("DESCRIPTION", "mdvec")):
        template = template.replace(f"@{name}@", value)
    (pkg / "pkgconfig" / "mdvec.pc").write_text(template)
    (site / "mujoco").symlink_to(Path(mujoco.__file__).resolve().parent)
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site-packages holding mdvec as the wheel lays it out (make_site)."""
    return make_site(tmp_path_factory.mktemp("site"))


def run(site: Path | None, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mdvec config ARGS`` with mdvec imported from site, which finds its own library; or,
    when site is None, from the checkout with the library this suite runs on (MDVEC_LIB: the build folder
    may lie anywhere, e.g. outside the source tree, where the checkout's own search does not look)."""
    from mdvec.vecenv import lib

    env = {k: v for k, v in os.environ.items() if k != "MDVEC_LIB"}
    env["PYTHONPATH"] = str(site if site is not None else ROOT / "python")
    if site is None:
        env["MDVEC_LIB"] = str(lib().path)
    return subprocess.run(
        [sys.executable, "-m", "mdvec", "config", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_flags_and_pkgconfigdir_name_the_installed_files(site: Path) -> None:
    pkg = site / "mdvec"
    r = run(site, "--cflags", "--libs", "--pkgconfigdir")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"-I{pkg}/include {pkg}/libmdvec.so.1 -Wl,-rpath,{pkg} -Wl,-rpath-link,{site}/mujoco",
        f"{pkg}/pkgconfig",
    ]
    assert run(site, "--libs").stdout.split()[0] == f"{pkg}/libmdvec.so.1"
    assert run(site, "--cflags").stdout == f"-I{pkg}/include\n"


def test_pkg_config_reads_the_relocatable_file_to_the_same_paths(site: Path) -> None:
    if shutil.which("pkg-config") is None:
        pytest.skip("pkg-config is not installed")
    pcdir = run(site, "--pkgconfigdir").stdout.strip()
    r = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "mdvec"],
        capture_output=True,
        text=True,
        env={**os.environ, "PKG_CONFIG_PATH": pcdir},
        check=True,
    )

    def normalised(flags: str) -> list[str]:
        out = []
        for flag in flags.split():
            head = next((h for h in ("-I", "-Wl,-rpath,", "-Wl,-rpath-link,") if flag.startswith(h)), "")
            out.append(head + os.path.normpath(flag[len(head) :]))
        return sorted(out)

    assert "/pkgconfig/.." in r.stdout  # pkg-config's own ${pcfiledir} arithmetic, not a copy of ours
    assert normalised(r.stdout) == normalised(run(site, "--cflags", "--libs").stdout)


def test_a_c_program_built_with_the_flags_runs_without_ld_library_path(site: Path, tmp_path: Path) -> None:
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc)")
    flags = run(site, "--cflags", "--libs").stdout.split()
    exe = tmp_path / "hold_pose"
    subprocess.run(
        [cc, "-O2", "-o", str(exe), str(ROOT / "examples" / "c" / "hold_pose.c"), *flags],
        check=True,
        capture_output=True,
        text=True,
    )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "8 envs x 2 threads, 8 episodes" in r.stdout
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, check=True, env=env).stdout
    assert f"libmdvec.so.1 => {site}/mdvec/libmdvec.so.1" in ldd


@pytest.mark.parametrize("args", [["--no-such-flag"], [], ["--cflags", "--bogus"], ["--model"]])
def test_bad_usage_prints_usage_and_exits_2(site: Path, args: list[str]) -> None:
    r = run(site, *args)
    assert r.returncode == 2
    assert r.stderr.startswith("usage: mdvec-config")
    assert r.stdout == ""


def test_unknown_task_exits_2_naming_the_tasks(site: Path) -> None:
    r = run(site, "--model", "Hopper-v4")
    assert r.returncode == 2 and r.stdout == ""
    assert "unknown task 'Hopper-v4'" in r.stderr and "Hopper-v5" in r.stderr and "Pusher-v5" in r.stderr


def test_gymnasium_model_file_and_assets(site: Path) -> None:
    if importlib.util.find_spec("gymnasium") is None:
        pytest.skip("gymnasium is not installed")
    import gymnasium

    assets = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
    r = run(site, "--gym-assets", "--model", "Walker2d-v5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str(assets), str(assets / "walker2d_v5.xml")]
    assert (assets / "walker2d_v5.xml").is_file()


def test_without_gymnasium_model_and_assets_exit_2_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gymnasium" else real(name, *a))
    for args in (["--model", "Hopper-v5"], ["--gym-assets"]):
        assert config.main(args) == 2
        out, err = capsys.readouterr()
        assert out == "" and "gymnasium is not installed" in err and "pip install" in err


def test_a_source_checkout_is_not_a_pip_install(capsys: pytest.CaptureFixture[str]) -> None:
    r = run(None, "--cflags")
    assert r.returncode == 2 and r.stdout == ""
    assert "not a pip install" in r.stderr and "mdvec.pc" in r.stderr
    assert config.main(["--libs"]) == 2  # the tool itself, wherever the build folder is
    out, err = capsys.readouterr()
    assert out == "" and "not a pip install" in err


def test_config_needs_no_loadable_library(tmp_path: Path) -> None:
    """``python -m mdvec config`` answers from a checkout whose library cannot be found (no build folder
    inside it, no MDVEC_LIB: an out-of-tree build), with "not a pip install" and exit status 2: the
    command line's parser must not load libmdvec (it did, to list the contract's task names, and the
    command died with "libmdvec not found", exit status 1)."""
    shutil.copytree(ROOT / "python" / "mdvec", tmp_path / "python" / "mdvec")
    shutil.copytree(ROOT / "libmdvec" / "include", tmp_path / "libmdvec" / "include")  # the version's source
    env = {k: v for k, v in os.environ.items() if k != "MDVEC_LIB"}
    env["PYTHONPATH"] = str(tmp_path / "python")
    r = subprocess.run(
        [sys.executable, "-m", "mdvec", "config", "--libs"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert "not a pip install" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "path", ["/plain/path-1.2_x", "/a b/c d", "/q'u\"o`t$HOME${x}*?[a]\\;&|<>(){}~#!", "/tab\tnew\nline"]
)
def test_shell_escape_reads_back_as_one_word(path: str) -> None:
    escaped = config.shell_escape(path)
    assert (escaped == path) == (path == "/plain/path-1.2_x")  # a plain path prints as it is
    r = subprocess.run(
        ["sh", "-c", 'eval "set -- $1"; printf "%s|" "$#" "$@"', "sh", escaped + " -Ix"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout == f"2|{path}|-Ix|"


def test_a_path_with_a_space_is_escaped_as_pkg_config_does_and_builds_with_eval(tmp_path: Path) -> None:
    """The README's C build line, with the venv in a folder whose name has a space: the flags are shell
    words (a backslash before the space), which eval reads back whole; cc builds a program that runs."""
    site = make_site(tmp_path / "my venv" / "site-packages")
    pkg = site / "mdvec"
    r = run(site, "--cflags", "--libs", "--pkgconfigdir")
    assert r.returncode == 0, r.stderr
    flags, pcdir = r.stdout.splitlines()
    assert pcdir == f"{pkg}/pkgconfig"  # a path on its own line prints as it is
    esc_pkg, esc_site = (str(p).replace(" ", "\\ ") for p in (pkg, site))  # only the space needs it here
    assert (
        flags == f"-I{esc_pkg}/include {esc_pkg}/libmdvec.so.1 -Wl,-rpath,{esc_pkg} -Wl,-rpath-link,{esc_site}/mujoco"
    )
    words = subprocess.run(
        ["sh", "-c", 'eval "set -- $1"; printf "%s\\n" "$@"', "sh", flags], capture_output=True, text=True, check=True
    )
    assert words.stdout.splitlines() == [
        f"-I{pkg}/include",
        f"{pkg}/libmdvec.so.1",
        f"-Wl,-rpath,{pkg}",
        f"-Wl,-rpath-link,{site}/mujoco",
    ]
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc)")
    exe = tmp_path / "my venv" / "hold pose"
    env = {k: v for k, v in os.environ.items() if k not in ("MDVEC_LIB", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(site)
    build = subprocess.run(
        ["sh", "-c", 'eval "cc -O2 -o \\"\\$1\\" \\"\\$2\\" $("$3" -m mdvec config --cflags --libs)"', "sh"]
        + [str(exe), str(ROOT / "examples" / "c" / "hold_pose.c"), sys.executable],
        capture_output=True,
        text=True,
        env=env,
    )
    assert build.returncode == 0, build.stderr
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "8 envs x 2 threads, 8 episodes" in r.stdout
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, check=True, env=env).stdout
    assert f"libmdvec.so.1 => {pkg}/libmdvec.so.1" in ldd


def test_read_pc_refuses_an_undefined_variable(tmp_path: Path) -> None:
    pc = tmp_path / "x.pc"
    pc.write_text("prefix=${pcfiledir}/..\nCflags: -I${includedir}\n")
    with pytest.raises(config.ConfigError, match="undefined variable"):
        config.read_pc(pc)
    pc.write_text("# comment\nprefix=${pcfiledir}/..\nincludedir=${prefix}/include\nCflags: -I${includedir}\n")
    assert config.read_pc(pc) == {"Cflags": f"-I{tmp_path.parent}/include"}
