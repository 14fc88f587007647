"""Integer and bool arrays given to a floating-point function: numpy's answer on
every owner.

The standard leaves these inputs unspecified (its floating-point functions take
floating-point arrays); numpy, torch and jax all compute them, each in another
dtype (``exp`` of int32: numpy float64, torch and jax float32; TensorFlow and
array_api_strict refused). The rule, for every owner: the arrays are cast to
the float dtype numpy's own loop computes in, then the function runs --

- the elementwise floating-point functions (``exp``, ``sin``, ``atan2``, ...):
  bool, int8, uint8 -> float16; int16, uint16 -> float32; wider -> float64,
  after the integer promotion of the operands (``atan2(int8_x, int32_y)``: int32,
  so float64);
- true division (``divide``, ``/``, ``reciprocal``), the Fourier transforms
  (``fft.fft``, ``fft.rfft``, ...), a Python float beside the
  arrays (``copysign(int8_x, 1.5)``, as numpy's weak scalars give), a Python
  int beside bool arrays (``copysign(mask, 2)``: the one dtype rule casts the
  bools to the default integer first) and the
  averages (``mean``, ``var``, ``std``): float64 for every integer and bool
  dtype (numpy's reciprocal of integers is an integer division, which ``1 / x``
  is not: unitensor computes ``reciprocal`` as ``1 / x``);

never wider than the owner's default float on the array's device (float64 on the
CPU; float32 for JAX without x64, and for torch on an accelerator), and float32
where the owner has no float16 (array_api_strict). The cast is
the owner's own ``astype``; floating inputs are not looked at.

:func:`rule` wraps an owner's function once, where the dispatcher looks it up
and where the fast paths learn it; the wrapper names the dtypes that need it
(``complex_dtypes``, with ``real_path``, read by ``_fastpath.learn``), so that the
C fast path calls the owner's own function for every other dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._dtypes import DTYPES, DType, bool_, float16, float32, float64, int64, promote

if TYPE_CHECKING:
    from ._backends._adapter import Adapter

# numpy's loop dtype: the smallest float the integer dtype casts to safely.
_LOOP: dict[str, DType] = {
    "bool": float16, "int8": float16, "uint8": float16, "int16": float32,
    "uint16": float32, "int32": float64, "uint32": float64, "int64": float64,
    "uint64": float64}
_INTEGER_AND_BOOL = tuple(DTYPES[name] for name in _LOOP)

LOOP_FUNCTIONS = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
    "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh",
    "atan2", "copysign", "hypot", "logaddexp", "nextafter"})
TRUE_DIVISION = frozenset({"divide", "reciprocal"})
# the transforms, which numpy computes in float64 for integer inputs (torch's
# fft.fft of int64 was complex64)
TRANSFORMS = frozenset(f"fft.{name}" for name in (
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
    "ihfft"))
# statistics whose results are averages: float64, as numpy's (TensorFlow's own
# mean of integers was an integer, 2 for [1, 2, 4]; torch refused)
AVERAGES = frozenset({"mean", "var", "std"})


def rule(backend: Adapter, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (``backend``'s ``name``) computing integer and bool inputs in
    floating point as the module says; ``func`` itself for other names.
    """
    if name not in LOOP_FUNCTIONS and name not in TRUE_DIVISION and (
            name not in AVERAGES and name not in TRANSFORMS):
        return func
    natives = _native_dtypes(backend)
    if not natives:
        return func
    if name in AVERAGES:
        return routed(_average(backend, name, func, natives), func, name,
                      frozenset(natives))
    true_division = name in TRUE_DIVISION or name in TRANSFORMS

    def computed_in_floating(*args: Any, **kwargs: Any) -> Any:
        found = [natives.get(getattr(a, "dtype", None)) for a in args]
        integers = [d for d in found if d is not None]
        if not integers:
            return func(*args, **kwargs)
        dtype = integers[0]
        for other in integers[1:]:
            dtype = promote(dtype, other, name)
        if dtype is bool_ and any(type(a) is int for a in args):
            # a Python int beside bool arrays: they count as the default
            # integer, to which the one dtype rule casts them (copysign(mask, 2):
            # float64, not the bool loop's float16)
            dtype = int64
        # a Python float beside them: the default float, as the one dtype rule
        # (and numpy's weak scalars) make it (copysign(int8_x, 1.5): float64)
        inexact = any(type(a) is float or type(a) is complex for a in args)
        target = _widest(backend, args[found.index(integers[0])],
                         float64 if true_division or inexact else _LOOP[dtype.name])
        return func(*(backend.astype(a, target) if d is not None else a
                      for a, d in zip(args, found, strict=True)), **kwargs)

    return routed(computed_in_floating, func, name, frozenset(natives))


def routed(wrapped: Callable[..., Any], func: Callable[..., Any], name: str,
           dtypes: frozenset[Any]) -> Callable[..., Any]:
    """``wrapped`` (a rule around ``func``) named as ``func``, and telling the C
    fast path (``_fastpath.learn``) to call the owner's function for every dtype
    but ``dtypes``, which need the wrapper (and a fix's own, where ``func`` has
    one: its ``real_path`` and ``complex_dtypes``).
    """
    wrapped.__name__ = getattr(func, "__name__", name)
    wrapped.__doc__ = func.__doc__
    fixed = getattr(func, "complex_dtypes", None)
    wrapped.real_path = (  # type: ignore[attr-defined]
        func if fixed is None else func.real_path)  # type: ignore[attr-defined]
    wrapped.complex_dtypes = dtypes | (fixed or frozenset())  # type: ignore[attr-defined]
    return wrapped


def _average(backend: Adapter, name: str, func: Callable[..., Any],
             natives: dict[Any, DType]) -> Callable[..., Any]:
    """``func`` (mean, var, std) of an integer or bool ``x`` in float64 (its
    other arguments are axes and numbers).
    """
    def averaged_in_floating(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        if natives.get(getattr(x, "dtype", None)) is not None:
            x = backend.astype(x, _widest(backend, x, float64))
        return func(x, *args, **kwargs)

    averaged_in_floating.__name__ = getattr(func, "__name__", name)
    averaged_in_floating.__doc__ = func.__doc__
    return averaged_in_floating


def _native_dtypes(backend: Adapter) -> dict[Any, DType]:
    """``backend``'s own integer and bool dtype objects -> unitensor's dtype."""
    found = {}
    for dtype in _INTEGER_AND_BOOL:
        try:
            native = backend.native_dtype(dtype)
        except (KeyError, TypeError, ValueError):  # a dtype the framework lacks
            continue
        if native is not None:
            found[native] = dtype
    return found


def _widest(backend: Adapter, like: Any, target: DType) -> DType:
    """``target``, or float32 where the owner has no float16 (array_api_strict)
    or its default float on ``like``'s device is float32 (JAX without x64, torch
    on an accelerator).
    """
    if target is float16:
        try:
            backend.native_dtype(float16)
        except (KeyError, TypeError, ValueError):
            return float32
        return target
    if target.itemsize < 8:
        return target
    return float32 if default_dtype(backend, like, "real floating") is float32 else (
        target)


def default_dtype(backend: Adapter, like: Any, kind: str) -> DType | None:
    """``backend``'s default dtype of ``kind`` ('integral', 'real floating') on
    the device of its array ``like``; None where it has no inspection API.
    """
    make_info = backend.FIXES.get("__array_namespace_info__") or getattr(
        backend.namespace(), "__array_namespace_info__", None)
    if make_info is None:
        return None
    device = backend.native_device(backend.device(like))
    return backend.dtype_from_native(make_info().default_dtypes(device=device)[kind])
