"""``mdvec.sb3``: the Stable-Baselines3 adapter's public name; the module is ``mdvec.adapters.sb3`` (one object, two names)."""

from .adapters import publish

publish(__name__, "sb3")
