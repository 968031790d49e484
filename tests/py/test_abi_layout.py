"""_lib.py's ctypes structures against mdvec.h as the C compiler lays it out: every struct's size and
every field's offset (the test hooks library, built from the header by meson, reports them). A field
added to the header and not to _lib.py changes the size; one declared out of order, its offset."""

from __future__ import annotations

import ctypes
import os

import pytest

from mdvec import _lib

STRUCTS = {
    "mdvec_option_t": _lib.Option,
    "mdvec_config_t": _lib.Config,
    "mdvec_dims_t": _lib.Dims,
    "mdvec_params_t": _lib.Params,
    "mdvec_option_info_t": _lib.OptionInfo,
    "mdvec_constant_t": _lib.Constant,
    "mdvec_spec_t": _lib.Spec,
    "mdvec_field_t": _lib.Field,
    "mdvec_pixels_info_t": _lib.PixelsInfo,
}
C_NAME = {"default": "def"}  # _lib.py's names that differ from the header's (``def`` is a Python keyword)


@pytest.fixture(scope="module")
def layout() -> ctypes.CDLL:
    path = os.environ.get("MDVEC_TESTHOOKS")
    if not path:
        pytest.skip("MDVEC_TESTHOOKS not set (run through ninja -C build test)")
    hooks = ctypes.CDLL(path)
    hooks.hook_layout.restype, hooks.hook_layout.argtypes = ctypes.c_long, [ctypes.c_char_p]
    hooks.hook_layout_key.restype, hooks.hook_layout_key.argtypes = ctypes.c_char_p, [ctypes.c_int]
    return hooks


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_struct_layout_matches_the_header(layout: ctypes.CDLL, name: str) -> None:
    cls = STRUCTS[name]
    assert layout.hook_layout(name.encode()) == ctypes.sizeof(cls), f"sizeof({name})"
    declared = [C_NAME.get(f[0], f[0]) for f in cls._fields_]
    for py_name, c_name in zip((f[0] for f in cls._fields_), declared):
        offset = layout.hook_layout(f"{name}.{c_name}".encode())
        assert offset == getattr(cls, py_name).offset, f"offsetof({name}, {c_name})"
    in_header = [
        k.decode().split(".", 1)[1]
        for i in range(1000)
        if (k := layout.hook_layout_key(i)) and k.decode().startswith(name + ".")
    ]
    assert in_header == declared, f"{name}: the hooks' field list and _lib.py's differ"


def test_one_version_everywhere() -> None:
    """mdvec.h's macros are the version: the library compiled from them, the package's __version__ and
    (at configure time, checked by meson.build) the project version all say the same."""
    from pathlib import Path

    import mdvec
    from mdvec._version import header_version

    root = Path(__file__).resolve().parents[2]
    version = header_version(root / "libmdvec" / "include" / "mdvec.h")
    number = mdvec.vecenv.lib().mdvec_version()
    assert mdvec.__version__ == version == f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    assert f"version: '{version}'," in (root / "meson.build").read_text()


def test_version_command(capsys: pytest.CaptureFixture[str]) -> None:
    import mdvec
    from mdvec.tools import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    out = capsys.readouterr().out.strip()
    assert stop.value.code == 0 and out.startswith(f"mdvec {mdvec.__version__}; libmdvec {mdvec.__version__} (")
    assert "MuJoCo 4.0.0" in out and "\n" not in out
