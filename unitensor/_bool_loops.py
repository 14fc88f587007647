"""Bool arrays given to an arithmetic function: numpy's answer on every owner.

The standard's arithmetic functions take numeric arrays; numpy computes most of
them on bools too, and the owners disagreed: ``mask + mask`` was a bool on numpy,
torch and jax and refused on TensorFlow and array_api_strict; ``abs(mask)``
refused on torch; ``square(mask)`` int8 on numpy, int64 on torch, int32 on jax;
``sign(mask)`` computed on torch only. The rule, for every owner, when every
array operand is bool (Python bools beside them are the ints they are):

- ``add``, ``multiply``, ``maximum``, ``minimum`` and ``abs`` are bool (``or``,
  ``and``, ``or``, ``and``, the array itself), ``max``/``min`` reductions too,
  and so are ``floor``, ``ceil`` and ``trunc`` (the array itself, numpy 2's);
- ``square``, ``pow``, ``floor_divide`` and ``remainder`` are int8;
- ``sum``, ``prod``, ``cumulative_sum`` and ``cumulative_prod`` count in the
  owner's default integer (int64 on the CPU; int32 for JAX without x64) unless
  ``dtype`` says otherwise;
- ``sign``, ``positive``, ``subtract``, ``negative``, ``round`` and ``conj``,
  which numpy has no bool loop for, are a TypeError on every owner (torch's
  refusal was a RuntimeError, its ``sign`` computed; numpy's round cast to
  float16 and its conj to int8, jax refused round, TensorFlow gave bools).

A bool array with a Python int, float or complex (``mask * 1.5``, ``mask // 0``)
is cast to the owner's default dtype of the number's kind first, as the one dtype
rule casts it (jax's own ``mask * nan`` gave 0 for False, its ``mask ** 200``
int32).

Each computes in int8 (the integer dtype numpy's loops take bools to) or the
counting dtype, by the owner's own function, and casts to the result dtype.
:func:`rule` wraps an owner's function once, where the dispatcher looks it up and
where the fast paths learn it; the wrapper names the bool dtype as the one that
needs it (``complex_dtypes``, beside ``real_path``), so that the C fast path
calls the owner's function directly for every other dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._dtypes import DType, bool_, complex128, float64, int8, int32, int64
from ._errors import arg_error
from ._float_loops import default_dtype, routed

if TYPE_CHECKING:
    from ._backends._adapter import Adapter

# name -> the dtype its result has (computed in int8, numpy's bool loop)
_ELEMENTWISE: dict[str, DType] = {
    "add": bool_, "multiply": bool_, "maximum": bool_, "minimum": bool_,
    "abs": bool_, "square": int8, "pow": int8, "floor_divide": int8,
    "remainder": int8, "floor": bool_, "ceil": bool_, "trunc": bool_}
_EXTREMES = frozenset({"max", "min"})
_COUNTS = frozenset({"sum", "prod", "cumulative_sum", "cumulative_prod"})
_REFUSED = frozenset({"sign", "positive", "subtract", "negative", "round", "conj"})
_BINARY = frozenset({"add", "multiply", "maximum", "minimum", "pow", "floor_divide",
                     "remainder", "subtract"})
NAMES = frozenset(_ELEMENTWISE) | _EXTREMES | _COUNTS | _REFUSED


def elementwise_dtype(name: str) -> DType | None:
    """The dtype of ``name`` of bool arrays (bool, or int8), None where the
    function has no such rule here.
    """
    return _ELEMENTWISE.get(name)


def rule(backend: Adapter, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (``backend``'s ``name``) computing bool inputs as the module says;
    ``func`` itself for other names.
    """
    if name not in NAMES:
        return func
    try:
        native = backend.native_dtype(bool_)
    except (KeyError, TypeError, ValueError):
        return func
    if name in _COUNTS:
        wrapped = _counted(backend, func, native)
    else:
        wrapped = _elementwise(backend, name, func, native)
    return routed(wrapped, func, name, frozenset({native}))  # bool: the wrapper


def _elementwise(backend: Adapter, name: str, func: Callable[..., Any],
                 native: Any) -> Callable[..., Any]:
    result = _ELEMENTWISE.get(name, bool_)
    arrays = 2 if name in _BINARY else 1

    def computed_as_numpy(*args: Any, **kwargs: Any) -> Any:
        first = args[0] if args else None  # (its dtype alone answers most calls)
        if getattr(first, "dtype", None) != native and type(first) is not bool:
            return func(*args, **kwargs)
        operands = args[:arrays]
        kind = _NUMBER_KINDS.get(type(operands[-1])) if arrays == 2 else None
        if kind is not None:  # a bool array with a Python int, float or complex:
            # the array in the owner's default dtype of that kind first (the one
            # dtype rule's cast, numpy's answer: jax's own bool * nan gave 0)
            cast_to = default_dtype(backend, first, kind) or _FALLBACK[kind]
            return func(backend.astype(first, cast_to), *args[1:], **kwargs)
        if not all(getattr(a, "dtype", None) == native
                   or type(a) is bool for a in operands) or all(
                       type(a) is bool for a in operands):
            return func(*args, **kwargs)
        if name in _REFUSED:
            raise arg_error(TypeError, name, "x" if arrays == 1 else "x1, x2",
                            f"numeric arrays (numpy has no bool loop for {name}; "
                            "logical_xor and logical_not are the bool ones)",
                            "bool arrays")
        cast = [backend.astype(a, int8) if type(a) is not bool else int(a)
                for a in operands]
        found = func(*cast, *args[arrays:], **kwargs)
        return found if result is int8 else backend.astype(found, result)

    return computed_as_numpy


_NUMBER_KINDS = {int: "integral", float: "real floating", complex: "complex floating"}
_FALLBACK = {"integral": int64, "real floating": float64,
             "complex floating": complex128}


def _counted(backend: Adapter, func: Callable[..., Any],
             native: Any) -> Callable[..., Any]:
    def counted_as_numpy(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        if getattr(x, "dtype", None) == native and kwargs.get("dtype") is None:
            x = backend.astype(x, _default_integer(backend, x))
        return func(x, *args, **kwargs)

    return counted_as_numpy


def _default_integer(backend: Adapter, like: Any) -> DType:
    """The owner's default integer on ``like``'s device: int64, or int32 (JAX
    without x64).
    """
    return int32 if default_dtype(backend, like, "integral") is int32 else int64
