"""The one shim mdvec applies to dm_control (mdvec.reference.dm_control.drop_stale_sizes).

dm_control 1.0.50's generated mjbindings/sizes.py names 9 arrays that MuJoCo 4.0.0 no longer has
(flex_vertedge, ...); dm_control indexes every name of that table when it makes a Physics, so no suite task
loads until they are dropped. The shim drops exactly the names a fresh MjModel/MjData lacks, nothing else,
is idempotent, and then suite.load works. Each test starts from dm_control's own table (sizes.py reloaded)
and leaves the shim applied, as the rest of the process expects.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util

import pytest

if importlib.util.find_spec("dm_control") is None:
    pytest.skip(
        "dm_control is not installed (pip install dm-control): the shim concerns it alone", allow_module_level=True
    )

import mujoco
from dm_control.mujoco.wrapper.mjbindings import sizes

from mdvec.reference.dm_control import drop_stale_sizes

# What dm_control 1.0.50 names and MuJoCo 4.0.0 lacks.
STALE_ON_4_0_0 = {
    "mjmodel.flex_vertedge",
    "mjmodel.flex_vertedgeadr",
    "mjmodel.flex_vertedgenum",
    "mjmodel.flex_vertmetric",
    "mjmodel.flexvert_J_colind",
    "mjmodel.flexvert_J_rowadr",
    "mjmodel.flexvert_J_rownnz",
    "mjdata.flexvert_J",
    "mjdata.flexvert_length",
}


def dm_control_version() -> str:
    from importlib.metadata import version

    return version("dm_control")


@pytest.fixture
def pristine_sizes():
    """dm_control's own table (sizes.py executed again); the shim is applied again afterwards."""
    importlib.reload(sizes)
    try:
        yield sizes.array_sizes
    finally:
        drop_stale_sizes()


def lacking(table: dict) -> set[str]:
    model = mujoco.MjModel.from_xml_string("<mujoco/>")
    data = mujoco.MjData(model)
    objs = {"mjmodel": model, "mjdata": data}
    return {f"{struct}.{name}" for struct, names in table.items() for name in names if not hasattr(objs[struct], name)}


def test_drops_exactly_the_names_mujoco_lacks(pristine_sizes: dict) -> None:
    before = copy.deepcopy(pristine_sizes)
    want = lacking(before)
    dropped = drop_stale_sizes()
    assert len(dropped) == len(set(dropped)) and set(dropped) == want
    if mujoco.__version__ == "4.0.0" and dm_control_version() == "1.0.50":
        assert set(dropped) == STALE_ON_4_0_0
    after = sizes.array_sizes
    assert set(after) == set(before)
    for struct in before:  # every other entry untouched, in its order
        kept = {k: v for k, v in before[struct].items() if f"{struct}.{k}" not in want}
        assert list(after[struct].items()) == list(kept.items()), struct
    assert lacking(after) == set()


def test_idempotent(pristine_sizes: dict) -> None:
    first = drop_stale_sizes()
    table = copy.deepcopy(sizes.array_sizes)
    assert drop_stale_sizes() == ()
    assert sizes.array_sizes == table
    if mujoco.__version__ == "4.0.0" and dm_control_version() == "1.0.50":
        assert first  # this pair needs the shim (else the module's claim is stale); 3.17.0 needs none


def test_suite_loads_only_after_the_shim(pristine_sizes: dict) -> None:
    from dm_control import suite

    if lacking(pristine_sizes):
        with pytest.raises(AttributeError):  # dm_control's own table, unshimmed: 'MjModel' has no flex_vertedge
            suite.load("pendulum", "swingup")
    drop_stale_sizes()
    env = suite.load("pendulum", "swingup", task_kwargs={"random": 0})
    ts = env.reset()
    assert ts.first() and env.step([0.0]).mid()
