"""The call discipline of every object that owns C envs (``mdvec.VecEnv``, ``mdvec.make``'s vector env and the
adapters' envs): one call at a time, a ``close()`` that waits for the call in progress, no copies.

* ``CallLock``: a call takes it without waiting (``call``): a call that overlaps another from another thread
  is refused at once with ``MdvecError`` ("concurrent call"), never raced. ``close()`` takes it waiting
  (``closing``), so a call in progress in another thread completes and returns its results first.
  After ``os.fork()`` the lock may have been held by a thread of the parent, which does not exist in the
  child and would never release it: in a process other than its creator's, the lock is replaced before
  anything waits on it or refuses because of it (the check costs nothing on the uncontended path).
* ``NoCopy``: ``copy.copy``, ``copy.deepcopy`` and ``pickle`` raise TypeError saying plainly that the object cannot
  be pickled and what to do instead (``snapshot()``/``restore`` where the object has them): a copy would share the
  C envs and close them when it is closed or collected.

Core module: numpy-free, imports nothing of mdvec but the error type.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ._lib import ERR_STATE, MdvecError

__all__ = ["CallLock", "NoCopy", "close_envs"]


class CallLock:
    """One call at a time on an object owning C envs; ``closing()`` waits for the call in progress.

    Use ``with lock.call("step"): ...`` around each call (raises MdvecError when another thread is in a
    call or closing) and ``with lock.closing(): ...`` around close (waits). A copy or pickle of the lock
    (of an object that may be copied) is a new, free lock.
    """

    __slots__ = ("_lock", "_pid")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _forked(self) -> bool:
        """Whether this process is not the lock's creator (a forked child); if so, take a new lock: the one
        inherited may be held by a parent's thread, which does not exist here to release it."""
        if os.getpid() == self._pid:
            return False
        self._lock, self._pid = threading.Lock(), os.getpid()
        return True

    def call(self, name: str) -> CallLock:
        """Start a call named ``name`` (the lock is held until the ``with`` block ends); raise MdvecError
        (ERR_STATE) at once when another thread is in a call or closing."""
        if not self._lock.acquire(blocking=False):
            if not self._forked():
                raise MdvecError(
                    ERR_STATE,
                    f"{name}: concurrent call: another thread is using or closing this environment; use one "
                    "environment from one thread at a time",
                )
            self._lock.acquire()
        return self

    def closing(self) -> CallLock:
        """Start a close: wait for a call in progress in another thread (the lock is held until the
        ``with`` block ends). In a forked child it never waits for the parent's threads."""
        self._forked()
        self._lock.acquire()
        return self

    def release(self) -> None:
        """End the call or close started by ``call`` or ``closing``."""
        self._lock.release()

    def __enter__(self) -> CallLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (CallLock, ())


class NoCopy:
    """Refuses ``copy.copy``, ``copy.deepcopy`` and ``pickle`` with a TypeError saying what to do instead.

    ``_holds_c_envs()`` says whether the object owns C envs now (True by default; an env whose backend is
    pure Python may return False, and is then copied as any Python object); ``_copy_instead()`` what to use
    instead of a copy.
    """

    def _holds_c_envs(self) -> bool:
        return True

    def _copy_instead(self) -> str:
        return "make another one with the same arguments"

    def __reduce_ex__(self, protocol: Any) -> Any:  # copy, deepcopy and pickle all come here
        if not self._holds_c_envs():
            return super().__reduce_ex__(protocol)
        save = (
            " To save its state or carry it into another env, take snapshot() (bytes, which pickle) and restore(blob) "
            "it into an env made with the same arguments."
            if callable(getattr(self, "snapshot", None)) and callable(getattr(self, "restore", None))
            else ""
        )
        raise TypeError(
            f"{type(self).__name__} cannot be copied or pickled: it owns C envs and worker threads, and a copy "
            f"sharing them would close them when it is closed or collected.{save} Instead, {self._copy_instead()}"
        )


def close_envs(owner: Any) -> None:
    """Close a wrapper's renderer (``_frames``) and C envs (``_env``, whose buffer views ``_buf`` go first, so
    that the memory is freed at once), once a call in progress in another thread (``_calls``) has returned.
    Nothing to do for an object whose ``__init__`` failed before it made its lock."""
    calls = getattr(owner, "_calls", None)
    if calls is None:
        return
    with calls.closing():
        if hasattr(owner, "_frames"):
            owner._frames.close()
        if hasattr(owner, "_env"):
            owner._buf = {}
            owner._env.close()
