"""MuJoCo's warnings kept out of the working directory.

The mujoco bindings' default warning handler appends every MuJoCo warning to ./MUJOCO_LOG.TXT (loading
Gymnasium's half_cheetah.xml warns about a deprecated attribute, an unstable simulation warns too).
mdvec's own envs count theirs per env in C and write nothing; what the Python side loads or steps through
the bindings runs inside :func:`collected`, which gathers the warnings into a list instead."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def collected() -> Iterator[list[str]]:
    """Within the block, MuJoCo's warnings (process-wide) go into the yielded list, not to a file; the
    previous handler is restored after it."""
    import mujoco

    seen: list[str] = []
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(seen.append)
    try:
        yield seen
    finally:
        mujoco.set_mju_user_warning(previous)
