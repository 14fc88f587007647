"""The frameworks, one package each, and the one table that says which is which.

Each framework is a package ``_backends/<name>/``: its ``__init__`` holds the facts
that need no import of the framework (``NAME``, ``MODULES``: the top-level modules
whose types belong to it, ``INSTALL``: what to install), and one module per
concern holds the rest: ``interop`` (recognise, export, alias, convert) and
``namespace`` (its Array API namespace and the fixes of its deviations). The
contract both fulfil is the checked protocol in ``_adapter.py``.

A framework is recognised from ``type(obj).__module__`` alone, so that no
framework is imported until the user hands us one of its arrays (or asks for one).
Its other objects are read by its adapter, asked through this registry: a device
object (``parse_device``), for callers above the backends (``_device`` knows no
framework).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

from .. import _core, _device, _fast
from .._device import Device
from .._errors import arg_error, describe

if TYPE_CHECKING:
    from ._adapter import Adapter

NAMES: Final = ("numpy", "torch", "jax", "tensorflow", "cupy", "dask",
                 "array_api_strict", "warp", "drjit")
_facts: dict[str, ModuleType] = {
    name: importlib.import_module(f"{__name__}.{name}") for name in NAMES}
# top-level module -> framework name: the one table of module prefixes.
_BY_PREFIX: Final = {prefix: name for name, facts in _facts.items()
                     for prefix in facts.MODULES}
_K = TypeVar("_K")
_V = TypeVar("_V")


class Watched(dict[_K, _V]):
    """A dict that tells the C fast paths of every change to it
    (``_fast.adapters_changed``), so that they keep what they read of it between
    calls: the registry below, each adapter's ROUTES, the array types
    ``asarray`` knows (``_fastpath``). A plain dict is read afresh each call.
    """

    __slots__ = ()

    def __setitem__(self, key: _K, value: _V, /) -> None:
        super().__setitem__(key, value)
        _fast.adapters_changed()

    def __delitem__(self, key: _K, /) -> None:
        super().__delitem__(key)
        _fast.adapters_changed()

    def setdefault(self, key: _K, default: _V, /) -> _V:
        value = super().setdefault(key, default)
        _fast.adapters_changed()
        return value

    def update(self, *args: Any, **kwargs: _V) -> None:
        try:
            super().update(*args, **kwargs)
        finally:  # (what was updated before an error is changed too)
            _fast.adapters_changed()

    def pop(self, key: _K, /, *default: Any) -> Any:
        value = super().pop(key, *default)
        _fast.adapters_changed()
        return value

    def popitem(self) -> tuple[_K, _V]:
        item = super().popitem()
        _fast.adapters_changed()
        return item

    def clear(self) -> None:
        super().clear()
        _fast.adapters_changed()

    def __ior__(self, other: Any) -> Self:  # type: ignore[override,misc]
        self.update(other)
        return self


_loaded: Watched[str, Adapter] = Watched()
# type -> adapter (or None): filled on first sight of each type, so the hot path
# of asarray() is one dictionary look-up.
_by_type: dict[type, Adapter | None] = {}


def get(name: object, func: str = "to") -> Adapter:
    """The adapter for framework ``name``, importing the framework on first use."""
    adapter = _loaded.get(name) if isinstance(name, str) else None
    if adapter is not None:
        return adapter
    if not isinstance(name, str):
        raise arg_error(TypeError, func, "framework", f"a str, one of {NAMES}",
                        describe(name))
    if name not in _facts:
        raise arg_error(ValueError, func, "framework", f"one of {NAMES}",
                        describe(name))
    from ._adapter import load
    facts = _facts[name]
    try:
        adapter = load(facts)
    except ImportError as exc:
        raise arg_error(ImportError, func, "framework",
                        f"an installed framework (pip install {facts.INSTALL}, or "
                        f"unitensor[{name}])", f"{name!r}, which is not installed "
                        f"({exc})") from exc
    # one adapter per framework, also where threads loaded it at once
    return _loaded.setdefault(name, adapter)


def exported_by(source: str, x: object) -> _core.Buffer | None:
    """``x``'s memory by its framework's adapter (``export``): what a route from
    ``source`` starts from. None where the framework refuses it (a tracer or a
    symbolic tensor, which has no memory; a deleted array), of whatever type its
    refusal is: the general path, which the route then leaves it to, says why.
    ``source`` is loaded: ``x`` is a Tensor's own array, of that framework.
    """
    try:
        return _loaded[source].export(x)
    except Exception:
        return None


def framework_of(kind: type) -> str | None:
    """The framework whose module defines ``kind``, or None; imports nothing."""
    return _BY_PREFIX.get(kind.__module__.partition(".")[0])


def for_type(kind: type) -> Adapter | None:
    """The adapter owning arrays of type ``kind``, or None for foreign types."""
    try:
        return _by_type[kind]
    except KeyError:
        pass
    name = framework_of(kind)
    adapter = get(name) if name is not None else None
    if adapter is not None and not issubclass(kind, adapter.ARRAY_TYPES):
        adapter = None  # a device, a dtype, ...: not an array
    _by_type[kind] = adapter
    return adapter


def parse_device(device: object, func: str) -> Device:
    """A ``device=`` argument as a Device: a framework's device object (a
    ``torch.device``, a jax Device) as its adapter reads it
    (``device_from_native``); a Device or a str, or a refusal, by ``_device.parse``.
    """
    if not isinstance(device, (Device, str)):
        name = framework_of(type(device))
        if name is not None:
            try:
                return get(name, func).device_from_native(device)
            except (AttributeError, TypeError, ValueError):
                pass  # not one of its devices: refused by _device.parse
    return _device.parse(device, func)
