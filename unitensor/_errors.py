"""One helper builds every error message, so that none can drift.

Every message reads ``"{func}(): {arg}: expected {accepted}, got {received}"``:
the function that refused, the argument it refused, what it accepts, and what it
was given. ``describe`` names a received object the same way everywhere. The
error carries those four parts as attributes too (``func``, ``arg``, ``accepted``,
``received``; ext/_core.c's ``arg_error`` sets the same): code that recognises
or renames a refusal reads them, never the text, which is for people.
"""

from __future__ import annotations

import sys
import warnings
from types import FrameType
from typing import TypeVar

from . import _core

_E = TypeVar("_E", bound=Exception)

# The exception types the standard (and numpy) raise for bad input; every error
# unitensor lets out is of exactly one of them.
STANDARD_TYPES: tuple[type[Exception], ...] = (
    TypeError, ValueError, IndexError, BufferError, NotImplementedError,
    OverflowError, ZeroDivisionError)
# The names a conversion gives its refusals, made on the way to an owner for
# another function (``renamed``): the frameworks' (an adapter names itself, and
# so do the views ``.jax()``, ``.torch()``, ...) and the views ``.tf()`` and
# ``.to()``. The frameworks' are ``_backends.NAMES``, which imports this module;
# tests/test_messages.py checks that they agree.
CONVERSIONS: frozenset[str] = frozenset({
    "numpy", "torch", "jax", "tensorflow", "cupy", "dask", "array_api_strict",
    "warp", "drjit", "tf", "to"})


class CopyWarning(UserWarning):
    """A conversion could not alias the memory and made a copy (``copy=None``).

    Pass ``copy=True`` to ask for the copy explicitly (silently), or
    ``copy=False`` to get a ``BufferError`` instead.
    """

    __module__ = "unitensor"  # where users import it (tracebacks, repr, pickle)


class AliasWarning(UserWarning):
    """Read-only memory was handed to a framework that cannot mark it read-only.

    torch and cupy arrays are always writable: like their own ``from_dlpack``,
    unitensor aliases read-only memory (a JAX or TensorFlow array, a read-only
    numpy array) instead of copying it. Writing through such a view is undefined
    for the framework that owns the memory. Warned once per process; unitensor
    itself still refuses to write into it (``Tensor.readonly`` stays True).
    """

    __module__ = "unitensor"  # where users import it (tracebacks, repr, pickle)


class TooLateError(RuntimeError):
    """A memory setting can no longer take effect: its framework has started.

    Raised by ``unitensor.memory.configure`` naming the framework and the setting.
    A ``RuntimeError``, not a ``ValueError``: the value is fine, the moment is
    not (the standard has no type for this; Python's convention for "not in the
    process's current state" is ``RuntimeError``, and it is what TensorFlow's own
    ``set_memory_growth`` raises for the same case). Configure before the
    framework's first array, or launch with ``python -m unitensor.memory``.
    """

    __module__ = "unitensor.memory"  # where users import it (tracebacks, repr, pickle)


class TooLateWarning(UserWarning):
    """A memory setting could not take effect (``configure(best_effort=True)``).

    The warning that :class:`TooLateError` becomes when the caller asked for best
    effort: the other settings were applied, this one was not.
    """

    __module__ = "unitensor.memory"  # where users import it (tracebacks, repr, pickle)


# Top-level packages whose frames a warning passes over to reach the user's line:
# unitensor's own, and the frameworks' that call back into it (torch's
# autograd.Function, jax's transformations, TensorFlow's py_function, dask's
# per-chunk work)
_INTERNAL = frozenset({"unitensor", "torch", "jax", "jaxlib", "tensorflow", "keras",
                       "dask", "distributed"})


def _users_level() -> int:
    """The ``stacklevel`` of the innermost frame outside :data:`_INTERNAL`, for
    a ``warnings.warn`` in the function that calls this one: the user's line,
    where warnings' filters and "once per location" apply (a fixed level named a
    line of unitensor's, the same for every user's call).
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and _package(frame) in _INTERNAL:
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


def _package(frame: FrameType) -> str:
    name = frame.f_globals.get("__name__")  # (any object, in exec'd code)
    return name.partition(".")[0] if isinstance(name, str) else ""


def warn_read_only_alias(func: str, framework: str) -> None:
    """Warn with :class:`AliasWarning`, the first time in the process only
    (the flag is the C extension's: its hand-overs call this while it is not set).
    """
    if _core.alias_warned():
        return
    warnings.warn(f"{func}(): read-only memory handed to {framework}, which cannot "
                  "mark it read-only: the view aliases it (as from_dlpack does), and "
                  "writing through it is undefined (warned once per process; pass "
                  "copy=True for a writable copy)", AliasWarning,
                  stacklevel=_users_level())
    # Marked once given: a warning raised as an error (a filter) is raised again
    # by the next such conversion, also where a fast path's retry repeats this
    # one, and never lost.
    _core.set_alias_warned(True)


def describe(obj: object) -> str:
    """Name a received value: its type, and the value itself when short."""
    kind = type(obj)
    name = kind.__qualname__ if kind.__module__ == "builtins" else (
        f"{kind.__module__}.{kind.__qualname__}")
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        text = repr(obj)
        if len(text) <= 40:
            return f"{text} of type '{name}'"
    return f"an object of type '{name}'"


def arg_error(exc: type[_E], func: str, arg: str, accepted: str,
              received: str) -> _E:
    """Build ``exc`` with the project's one message format, its parts as
    attributes (``func``, ``arg``, ``accepted``, ``received``).
    """
    error = exc(f"{func}(): {arg}: expected {accepted}, got {received}")
    # Exceptions take attributes at run time; mypy has no type for them.
    error.func = func  # type: ignore[attr-defined]
    error.arg = arg  # type: ignore[attr-defined]
    error.accepted = accepted  # type: ignore[attr-defined]
    error.received = received  # type: ignore[attr-defined]
    return error


def restated(exc: BaseException, kind: type[_E], func: str,
             arg: str | None = None) -> _E:
    """Our ``exc`` (``is_ours``) as ``func``'s refusal of ``arg`` (default: the
    same argument), of type ``kind``: what it accepts and received unchanged.
    """
    return arg_error(kind, func, arg if arg is not None else _part(exc, "arg"),
                     _part(exc, "accepted"), _part(exc, "received"))


def _part(exc: BaseException, name: str) -> str:
    return str(getattr(exc, name))


def renamed(func: str, exc: Exception) -> Exception | None:
    """Our ``exc`` naming ``func`` where it names a conversion that ``func`` made
    on the way (to an owner: ``jax()`` for a dtype= JAX does not hold, ``dask()``
    for a device; ``tf()``, ``to()``: ``CONVERSIONS``); None to pass it on (it
    names the user's function already).
    """
    if getattr(exc, "func", None) not in CONVERSIONS:
        return None
    return restated(exc, type(exc), func)


def conversion_refused(func: str, arg: str, exc: Exception) -> BufferError | None:
    """A conversion's refusal (``jax(): x: ...``: memory or a dtype the framework
    cannot hold) as ``func``'s, of its argument ``arg``: a BufferError, whether
    found on the data or, under a compiler, on its dtype; None where ``exc`` names
    no conversion.
    """
    if getattr(exc, "func", None) not in CONVERSIONS:
        return None
    return restated(exc, BufferError, func, arg)


def as_argument(func: str, arg: str, exc: Exception) -> Exception | None:
    """Our refusal to wrap an array (``asarray(): obj: ...``: a dtype no Tensor
    holds) as ``func``'s, of its argument ``arg``, where ``func`` wrapped it on
    the way (the user called ``add``, not ``asarray``); None for any other error.
    """
    if not is_ours(exc) or (getattr(exc, "func", None), getattr(exc, "arg", None)) != (
            "asarray", "obj"):
        return None
    return restated(exc, type(exc), func, arg)


def is_ours(exc: BaseException) -> bool:
    """Whether ``exc`` is an error unitensor made (so it passes on unchanged):
    of a standard type, and carrying the parts ``arg_error`` gives it.
    """
    return (type(exc) in STANDARD_TYPES and isinstance(getattr(exc, "func", None), str)
            and isinstance(getattr(exc, "arg", None), str))


def standard_type(exc: BaseException) -> type[Exception]:
    """The standard's type for a framework's exception: the standard type it is
    (numpy's AxisError is a ValueError), else ValueError -- an argument the
    framework refused (torch's RuntimeError says as much).
    """
    for kind in STANDARD_TYPES:
        if isinstance(exc, kind):
            return kind
    return ValueError


def unknown_size(func: str, arg: str, framework: str, shape: str) -> ValueError:
    """The refusal of a function that needs a size a lazy owner (dask) knows only
    once computed (``shape``: the array's, as the user sees it).
    """
    return arg_error(ValueError, func, arg, f"an array of known shape ({framework} "
                     "knows a size that depends on the data, after a boolean mask, "
                     "unique_* or nonzero, only once computed: ut.asarray(x.numpy()) "
                     "or x.native.compute_chunk_sizes() first)",
                     f"an array of shape {shape}")


# The note on an exception raised while a lazy owner (dask) computed a graph:
# numpy's, the user's function's (ut.dask.map_blocks) or unitensor's own checks
# of computed values. It reaches the user unchanged, whichever read computed the
# graph (docs/dask.md, "Errors while computing"): no conversion or call that
# happened to compute it names itself in it.
COMPUTING_NOTE = "(raised while dask computed a Tensor's graph; passed on unchanged)"


def computing_failed(exc: BaseException) -> None:
    """Note that ``exc`` was raised while computing a graph (see COMPUTING_NOTE)."""
    if COMPUTING_NOTE not in getattr(exc, "__notes__", ()):
        exc.add_note(COMPUTING_NOTE)


def from_computing(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while computing a graph: passed on unchanged."""
    return COMPUTING_NOTE in getattr(exc, "__notes__", ())


def refused(exc: Exception, kind: type[_E], func: str, framework: str) -> _E:
    """A framework's exception in the project's format, of the standard's ``kind``
    (raise it ``from exc``, so the framework's own stays the cause).
    """
    text = str(exc).strip().partition("\n")[0] or type(exc).__name__
    return arg_error(kind, func, "arguments", f"arguments that {framework} "
                     "accepts", f"{framework}'s refusal: {text}")


# copy=False where a copy is needed: the standard's type for each function.
# asarray and reshape say ValueError; from_dlpack and __dlpack__ say BufferError,
# and so do the views (.torch(), to(), ...), which are from_dlpack into the target.
_COPY_REFUSAL: dict[str, type[Exception]] = {"asarray": ValueError,
                                             "reshape": ValueError}


def copy_refused(func: str, arg: str, reason: str) -> Exception:
    """The error for ``copy=False`` where ``reason`` makes a copy necessary."""
    return arg_error(_COPY_REFUSAL.get(func, BufferError), func, arg,
                     f"True or None, since a copy is needed: {reason}", "False")


def copy_or_refuse(func: str, arg: str, copy: bool | None, reason: str,
                   what: str | None = None) -> None:
    """Allow a copy the caller did not forbid, and report it.

    ``copy=False`` raises (:func:`copy_refused`); ``copy=None`` warns with
    :class:`CopyWarning`, naming ``what`` is copied where the call has several
    arrays (``wrap``'s arguments and results); ``copy=True`` copies silently,
    as asked.
    """
    if copy is False:
        raise copy_refused(func, arg, reason)
    if copy is None:
        advice = _COPY_ADVICE.get(func, "pass copy=True to allow it silently or "
                                  "copy=False to refuse it")
        place = f"{what}: " if what else ""
        warnings.warn(f"{func}(): {place}copied because {reason}; {advice}",
                      CopyWarning, stacklevel=_users_level())


# The advice of a CopyWarning from a function that takes no ``copy`` argument.
_COPY_ADVICE: dict[str, str] = {
    "wrap": "wrap() lends arrays as views wherever the other framework can alias "
            "them, and copies the rest (see docs/wrap.md)",
}
