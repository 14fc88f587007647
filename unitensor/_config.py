"""Who makes new arrays: the framework an open ``owner()`` block names, else the
framework the ``device`` argument names, else the process-wide default owner.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import TYPE_CHECKING

from . import _backends
from ._backends import NAMES
from ._device import Device
from ._errors import arg_error, describe

if TYPE_CHECKING:
    from ._backends._adapter import Adapter

_ENV = "UNITENSOR_DEFAULT_OWNER"
_default_owner: str | None = None
# The framework the innermost open ``with unitensor.owner(name):`` block names
# (set by _dispatch.owner), local to the thread and the asyncio task.
forced: ContextVar[Adapter | None] = ContextVar("unitensor_owner", default=None)


def new_array_owner(device: object = None) -> Adapter:
    """The framework that makes arrays from no array: creation functions (which
    run by the owner, _dispatch._compute) and Python data.

    An open ``owner()`` block's; else ``device``'s: a Tensor's device knows its
    owner (``device=x.device`` creates where ``x`` lives) and a framework's own
    device object (``torch.device('cpu')``) names its framework; else the default.
    """
    owner = forced.get()
    if owner is not None:
        return owner
    if type(device) is Device:
        name = device.owner
    elif device is None or type(device) is str:
        name = None
    else:
        name = _backends.framework_of(type(device))
    return _backends.get(name or default_owner())


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
