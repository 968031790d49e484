"""``mdvec.gym``: the Gymnasium adapter's public name; the module is ``mdvec.adapters.gym`` (one object, two names)."""

from .adapters import publish

publish(__name__, "gym")
