"""The framework adapters, and the one table that says which is which.

A backend is recognised from ``type(obj).__module__`` alone, so that no framework
is imported until the user hands us one of its arrays (or asks for one). Each
adapter module (``numpy.py``, ``torch.py``, ...) has the same functions:

``native(obj)``
    the framework's array for ``obj`` (``TypeError`` if ``obj`` is not one);
``wraps_as_is(kind)``, ``NATIVE_DTYPES``
    whether ``native(obj) is obj`` for every ``obj`` of type ``kind``, and the
    framework's dtype objects that ``dtype()`` accepts: such arrays are wrapped
    by asarray's C fast path;
``dtype(x)``, ``device(x)``, ``readonly(x)``
    its metadata as unitensor sees it;
``export(x)``
    a ``_core.Buffer`` over ``x``'s memory, zero-copy;
``copy_reason(buf, reading=False)``
    why the framework cannot alias ``buf`` (a copy is needed), or None; raises
    ``BufferError`` when not even a copy would be right. ``reading``: the array
    is an operand that unitensor only reads, never hands out;
``wrap(buf)``
    the framework's array over ``buf``'s memory, zero-copy;
``ROUTES``
    fast paths: source framework name -> ``route(x)``, the framework's own
    zero-copy route from that framework's array ``x`` (e.g. ``torch.from_numpy``),
    returning None where it does not apply (the general path then decides);
``copy(x)``, ``astype(x, dtype)``, ``to_device(x, device)``, ``from_python(obj, dtype)``
    the framework's own operations, used where the user asked for a copy.

and, for the Array API namespace (see ``_dispatch.py``):

``namespace()``
    the framework's Array API namespace, or None where it has none (tensorflow:
    its arrays compute in numpy); ``FIXES`` maps a function name to the adapter's
    replacement where the namespace deviates from the standard;
``ARRAY``, ``result(value)``
    the type of the framework's arrays, and an array from any other result
    (numpy returns scalars from 0-d operations);
``native_dtype(dtype)``, ``native_device(device)``, ``dtype_from_native(d)``,
``device_from_native(d)``
    dtypes and devices both ways;
``setitem(x, key, value)``
    ``x[key] = value``, returning the array to rebind (a new one for JAX).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

from .._errors import arg_error, describe

# backend name -> top-level modules whose types belong to it: the one table.
MODULE_PREFIXES: Final[dict[str, tuple[str, ...]]] = {
    "numpy": ("numpy",),
    "torch": ("torch",),
    "jax": ("jax", "jaxlib"),
    "tensorflow": ("tensorflow",),
    "cupy": ("cupy",),
    "array_api_strict": ("array_api_strict",),
}
NAMES: Final = tuple(MODULE_PREFIXES)
# The distribution to install for each backend, for ImportError hints.
_INSTALL: Final = {"numpy": "numpy", "torch": "torch", "jax": "jax",
                   "tensorflow": "tensorflow-cpu", "cupy": "cupy-cuda12x",
                   "array_api_strict": "array-api-strict"}
_BY_PREFIX: Final = {p: name for name, prefixes in MODULE_PREFIXES.items()
                     for p in prefixes}
_loaded: dict[str, ModuleType] = {}
# type -> adapter (or None): filled on first sight of each type, so the hot path
# of asarray() is one dictionary look-up.
_by_type: dict[type, ModuleType | None] = {}


def get(name: object, func: str = "to") -> ModuleType:
    """The adapter for backend ``name``, importing its framework on first use."""
    adapter = _loaded.get(name) if isinstance(name, str) else None
    if adapter is not None:
        return adapter
    if not isinstance(name, str):
        raise arg_error(TypeError, func, "framework", f"a str, one of {NAMES}",
                        describe(name))
    if name not in MODULE_PREFIXES:
        raise arg_error(ValueError, func, "framework", f"one of {NAMES}",
                        describe(name))
    try:
        adapter = importlib.import_module(f"{__name__}.{name}")
    except ImportError as exc:
        raise arg_error(ImportError, func, "framework",
                        f"an installed framework (pip install {_INSTALL[name]}, or "
                        f"unitensor[{name}])", f"{name!r}, which is not installed "
                        f"({exc})") from exc
    _loaded[name] = adapter
    return adapter


def for_type(kind: type) -> ModuleType | None:
    """The adapter owning arrays of type ``kind``, or None for foreign types."""
    try:
        return _by_type[kind]
    except KeyError:
        pass
    name = _BY_PREFIX.get(kind.__module__.partition(".")[0])
    adapter = get(name) if name is not None else None
    _by_type[kind] = adapter
    return adapter
