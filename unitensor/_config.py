"""Process-wide settings: the default owner of arrays made from Python data."""

from __future__ import annotations

import os

from ._backends import NAMES
from ._errors import arg_error, describe

_ENV = "UNITENSOR_DEFAULT_OWNER"
_default_owner: str | None = None


def default_owner() -> str:
    """The framework that creates arrays from Python scalars and sequences.

    numpy (always installed) unless ``UNITENSOR_DEFAULT_OWNER`` names another.
    """
    global _default_owner
    if _default_owner is None:
        name = os.environ.get(_ENV, "numpy") or "numpy"
        if name not in NAMES:
            raise arg_error(ValueError, "default_owner", _ENV, f"one of {NAMES}",
                            describe(name))
        _default_owner = name
    return _default_owner


def set_default_owner(name: str) -> None:
    """Set the default owner (``name`` already checked by the caller)."""
    global _default_owner
    _default_owner = name
