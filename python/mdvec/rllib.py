"""``mdvec.rllib``: the RLlib adapter's public name; the module is ``mdvec.adapters.rllib`` (one object, two names)."""

from .adapters import publish

publish(__name__, "rllib")
