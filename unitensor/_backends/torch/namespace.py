"""torch's Array API namespace (array-api-compat's) and the fixes of its deviations:
uint16/32/64 (stored, with little arithmetic), unsigned accumulation, fractional
corrections, ``axis=()``, negative-step slices, lazy conjugates, complex special
cases.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import Any

import array_api_compat.numpy as compat_numpy
import array_api_compat.torch as compat_torch
import numpy as np
import torch

# (array-api-compat imports these two itself, with __import__: mypy cannot see them
# as attributes of compat_torch)
from array_api_compat.torch import fft as compat_fft
from array_api_compat.torch import linalg as compat_linalg

from ..._device import CPU, Device
from ..._dtypes import DTYPES, DType, promote
from ..._errors import standard_type
from ..._standard import FUNCTIONS
from .._fixes import (
    COMPLEX_SPECIAL_CASES,
    complex_only,
    complex_special_cases_fixed,
    floor_divide_fixed,
    indices_within_bounds,
    items_copied,
    new_array,
    norm_of_nothing,
    pow_fixed,
    refuse_out_of_bounds,
    remainder_fixed,
    searchsorted_nan_last,
)
from ..numpy.namespace import reference
from .interop import _TO_TORCH, NATIVE_DTYPES, torch_dtype

ARRAY = torch.Tensor
_UNSIGNED = frozenset({torch.uint8, torch.uint16, torch.uint32, torch.uint64})
_LIMITED = {torch.uint16: torch.int32, torch.uint32: torch.int64,
            torch.uint64: torch.int64}  # torch's uint16/32/64: storage, little math


def _unsigned_accumulation(func: Callable[..., Any]) -> Callable[..., Any]:
    """torch sums unsigned integers into int64 and has no uint16/32/64 arithmetic;
    the standard's default is uint64. Computed in int64, returned as uint64 (or
    as the dtype asked for).
    """
    def fixed(x: torch.Tensor, /, **kw: Any) -> torch.Tensor:
        wanted = kw.get("dtype")
        if x.dtype not in _UNSIGNED and wanted not in _LIMITED:
            return func(x, **kw)
        if wanted in _LIMITED:
            kw["dtype"] = torch.int64
        elif x.dtype in _LIMITED:
            x = x.to(_LIMITED[x.dtype])
        result = func(x, **kw)
        target = wanted or (torch.uint64 if result.dtype == torch.int64 else None)
        return result if target is None else result.to(target)
    return fixed


def _plain_sum_first(general: Callable[..., Any]) -> Callable[..., Any]:
    """ut.sum(x) of a signed, floating or bool tensor is torch.sum(x): the
    standard's dtypes are torch's there. One call, instead of two Python wrappers
    (about +0.35 µs on a 16-element tensor); everything else takes ``general``.
    """
    def fixed(x: torch.Tensor, /, **kw: Any) -> torch.Tensor:
        if not kw and x.dtype not in _UNSIGNED:
            return torch.sum(x)
        return general(x, **kw)
    return fixed


def _std_var(name: str) -> Callable[..., Any]:
    """torch takes only whole-number corrections (the standard: any float) and
    reads axis=() as "every axis" (the standard: none).
    """
    native = getattr(compat_torch, name)

    def fixed(x: torch.Tensor, /, *, axis: int | tuple[int, ...] | None = None,
              correction: float = 0.0, keepdims: bool = False) -> torch.Tensor:
        dims = _dims(x, axis)
        if dims and float(correction).is_integer():
            return native(x, axis=axis, correction=int(correction), keepdims=keepdims)
        if not dims:  # torch reads dim=() as "every dimension"
            var = (x - x).abs() ** 2 / (1 - correction)
        else:
            n = math.prod(x.shape[d] for d in dims)
            squares = (x - x.mean(dim=dims, keepdim=True)).abs() ** 2
            var = squares.sum(dim=dims, keepdim=keepdims) / (n - correction)
        return var.sqrt() if name == "std" else var
    return fixed


def _count_nonzero(x: torch.Tensor, /, *, axis: int | tuple[int, ...] | None = None,
                   keepdims: bool = False) -> torch.Tensor:
    """torch reads axis=() as "every axis"; the standard: count each element."""
    if axis == ():
        return (x != 0).to(torch.int64)
    return compat_torch.count_nonzero(x, axis=axis, keepdims=keepdims)


def _resolved(func: Callable[..., Any]) -> Callable[..., Any]:
    """torch returns lazy conjugate views (conj, ihfft) that cannot be exported
    without a copy; the standard's conj is a new array anyway.
    """
    def fixed(x: torch.Tensor, /, **kw: Any) -> torch.Tensor:
        return func(x, **kw).resolve_conj()
    return fixed


def _dims(x: torch.Tensor, axis: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(axis) if isinstance(axis, tuple) else (axis,)


def _unique_all(x: torch.Tensor, /) -> tuple[torch.Tensor, ...]:
    """array-api-compat has no unique_all for torch: the first index of each value
    is the smallest position that maps to it.
    """
    flat = x.reshape(-1)
    values, inverse, counts = torch.unique(flat, return_inverse=True,
                                           return_counts=True)
    positions = torch.arange(flat.numel(), device=x.device)
    indices = torch.full(values.shape, flat.numel(), dtype=torch.int64,
                         device=x.device).scatter_reduce(
        0, inverse, positions, reduce="amin", include_self=True)
    return values, indices, inverse.reshape(x.shape), counts


def _indices(key: Any) -> Any:
    """``key`` with each integer array in it of a dtype torch does not index with
    an int64 one, as numpy reads it (torch read uint8 as a boolean mask:
    ``x[[1, 0, 1] as uint8]`` gave ``[0, 2]``; it refused int8 and int16).
    """
    if isinstance(key, torch.Tensor):
        return key.long() if key.dtype in _CAST_INDICES else key
    if type(key) is tuple and any(isinstance(k, torch.Tensor)
                                  and k.dtype in _CAST_INDICES for k in key):
        return tuple(map(_indices, key))
    return key


_CAST_INDICES = frozenset({torch.uint8, torch.int8, torch.int16, torch.uint16,
                           torch.uint32, torch.uint64})


def _getitem(x: torch.Tensor, key: Any) -> torch.Tensor:
    """torch refuses slices with negative steps: those axes are flipped first.
    A 0-d index array, which torch reads as an int (a view), is numpy's advanced
    indexing (a copy).
    """
    key = _indices(key)
    items = key if isinstance(key, tuple) else (key,)
    result = _flipped_read(x, key, items)
    if any(isinstance(k, torch.Tensor) and k.ndim == 0 and k.dtype != torch.bool
           for k in items):
        return result.clone()
    return result


def _flipped_read(x: torch.Tensor, key: Any, items: tuple[Any, ...]) -> torch.Tensor:
    """``x[key]``, the axes a slice of negative step reads flipped first."""
    if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
        return x[key]
    consumed = sum(1 if k is not None and k is not Ellipsis else 0 for k in items)
    flip, new_key, dim = [], [], 0
    for k in items:
        if k is Ellipsis:
            dim += x.ndim - consumed
        elif k is None:
            pass
        elif type(k) is slice and k.step is not None and k.step < 0:
            n = x.shape[dim]
            start, stop, step = k.indices(n)
            flip.append(dim)
            k = slice(n - 1 - start, n - 1 - stop, -step)
            dim += 1
        else:
            is_mask = isinstance(k, torch.Tensor) and k.dtype == torch.bool
            dim += k.ndim if is_mask else 1
        new_key.append(k)
    if x.dtype in _SAME_BITS:  # torch cannot flip uint16/32/64: flip their bits
        flipped = torch.flip(x.view(_SAME_BITS[x.dtype]), flip).view(x.dtype)
    else:
        flipped = torch.flip(x, flip)
    return flipped[tuple(new_key)]


_SAME_BITS = {torch.uint16: torch.int16, torch.uint32: torch.int32,
              torch.uint64: torch.int64}


# array-api-compat's wrappers that, given x and one more positional argument, call
# torch's own function with the same two: such a call goes to torch's directly.
_PASSED_THROUGH = {"reshape": torch.reshape, "broadcast_to": torch.broadcast_to,
                   "permute_dims": torch.permute}


def adapt(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """Every function taking arrays also works on uint16/32/64 (see _widening)."""
    if name in _NOT_WIDENED:
        return func
    compat = getattr(compat_torch, name, None)
    direct = _PASSED_THROUGH.get(name) if func is compat else None
    return _widening(func, name, direct or func)


# No array arguments, or their own fix for unsigned types (_unsigned_accumulation;
# imag's: zeros of any dtype, and its fast path's dtypes, _imag).
_NOT_WIDENED = {"arange", "empty", "eye", "full", "linspace", "ones", "zeros",
                "fft.fftfreq", "fft.rfftfreq", "sum", "prod", "cumulative_sum",
                "cumulative_prod", "linalg.trace", "imag"}
# Functions whose integer results are indices or counts, never the input's dtype;
# for unique_*, only the first result (the values) keeps the input's dtype.
_INDEX_RESULTS = {"argmax", "argmin", "argsort", "nonzero", "searchsorted",
                  "count_nonzero"}


# isinstance(item, torch.Tensor) of each item, by map() (itertools.repeat)
_TENSOR_TYPES = itertools.repeat(torch.Tensor)


def _widening(func: Callable[..., Any], name: str,
              two: Callable[..., Any]) -> Callable[..., Any]:
    """torch stores uint16/32/64 but has little arithmetic (and no promotion) for
    them: a call involving them is computed in int64 and returns the standard's
    dtype. uint64 values of 2**63 and above do not survive arithmetic this way.
    ``two``: what runs a call of x and one argument that is no array (a shape,
    an axis): ``func``, or torch's own function where ``func`` passes such a
    call on as it is.
    """
    promoting = name.split(".")[-1] in _PROMOTING

    def run(*args: object, **kw: object) -> object:
        if len(args) == 2 and not kw:  # x1, x2 (no tuple or list made), or x
            x1, x2 = args                 # and a shape, an axis: at once
            if type(x1) is torch.Tensor and x1.dtype not in _LIMITED:
                if type(x2) is torch.Tensor:
                    if x2.dtype not in _LIMITED:
                        return func(x1, x2)
                elif x2 is None or type(x2) is int or (type(x2) is tuple and not any(
                        map(isinstance, x2, _TENSOR_TYPES))):  # (in C: no frame)
                    return two(x1, x2)
        arrays = _arrays((*args, *kw.values()))
        if not any(a.dtype in _LIMITED for a in arrays):
            return func(*args, **kw)
        if not promoting:  # moving data (reshape, unique, ...): torch's own, if it can
            try:
                return func(*args, **kw)
            except (RuntimeError, NotImplementedError):
                pass
        # Promoting functions go to int64 up front: some succeed with a wrong
        # dtype (uint16 << uint8 gives uint8) or wrong values (257 != 1 is False).
        target = _result_dtype(name, arrays)
        result = func(*(_widen(a) for a in args),
                      **{k: _widen(v) for k, v in kw.items()})
        if name in _INDEX_RESULTS:
            return result
        if name.startswith("unique_"):
            return (_narrow(result[0], target), *result[1:])
        if isinstance(result, (tuple, list)):
            return type(result)(_narrow(r, target) for r in result)
        return _narrow(result, target)
    return run


def _result_dtype(name: str, arrays: list[torch.Tensor]) -> DType:
    """The standard's result dtype: operands promoted together for the functions
    that promote (elementwise, linear algebra); otherwise the first array's
    (take, repeat, ... whose other arrays are indices or counts).
    """
    dtypes = [NATIVE_DTYPES[a.dtype] for a in arrays if a.dtype != torch.bool]
    if not dtypes:
        return DTYPES["bool"]
    if name.split(".")[-1] not in _PROMOTING:
        return dtypes[0]
    target = dtypes[0]
    for d in dtypes[1:]:
        target = promote(target, d, name)
    return target


_PROMOTING = {row.name for row in FUNCTIONS
              if row.group in ("elementwise", "linear_algebra", "linalg")} | {
    "where", "concat", "stack"}


def _arrays(args: tuple[object, ...]) -> list[torch.Tensor]:
    found = []
    for a in args:
        if isinstance(a, torch.Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(x for x in a if isinstance(x, torch.Tensor))
    return found


def _widen(a: object) -> object:
    if isinstance(a, torch.Tensor):
        return a.to(torch.int64) if not a.dtype.is_floating_point and (
            not a.dtype.is_complex and a.dtype != torch.bool) else a
    if isinstance(a, (list, tuple)):
        return type(a)(_widen(x) for x in a)
    return a


def _narrow(result: object, target: DType) -> object:
    if isinstance(result, torch.Tensor) and result.dtype == torch.int64:
        return result.to(_TO_TORCH[target])
    return result


def _complex_via_numpy(name: str, native: Callable[..., Any]) -> Callable[..., Any]:
    """torch.unique has no complex kernels: complex inputs go through numpy's
    unique (a zero-copy view on the CPU), the results back to torch.
    """
    def fixed(x: torch.Tensor, /) -> object:
        if not x.is_complex():
            return native(x)
        result = getattr(compat_numpy, name)(x.resolve_conj().cpu().numpy())
        if isinstance(result, tuple):
            return tuple(torch.from_numpy(np.asarray(r)).to(x.device) for r in result)
        return torch.from_numpy(np.asarray(result)).to(x.device)
    return fixed


def _concrete(x: torch.Tensor) -> bool:
    """Values known now: not a tensor Dynamo traces (torch.compile) or a
    torch.func transformation wraps (vmap, grad), whose checks are torch's own.
    """
    return not (torch.compiler.is_compiling()
                or torch._C._functorch.is_functorch_wrapped_tensor(x))


def _imag(x: torch.Tensor, /) -> torch.Tensor:
    """The imaginary part of a real array is zeros of its dtype (numpy's and
    jax's answer; torch refused: "imag is not implemented for tensors with
    non-complex dtypes"), which the general path makes read-only, as numpy's
    (_views.ties): the C fast path takes complex arrays only.
    """
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


_imag.complex_dtypes = frozenset({torch.complex64, torch.complex128})  # type: ignore[attr-defined]
_imag.real_path = None  # type: ignore[attr-defined]


def _int64_indices(take: Callable[..., Any]) -> Callable[..., Any]:
    """torch.take_along_dim takes int64 indices only, index_select (take) int32
    and int64 (numpy: any integer dtype).
    """
    def fixed(x: torch.Tensor, indices: torch.Tensor, /, **kw: Any) -> Any:
        if indices.dtype != torch.int64 and not indices.dtype.is_floating_point:
            indices = indices.long()
        return take(x, indices, **kw)
    return fixed


_COMPLEX = frozenset({torch.complex32, torch.complex64, torch.complex128})


def _parts(v: Any) -> tuple[Any, Any]:
    """v's real and imaginary parts (a real tensor's: zeros like it)."""
    if isinstance(v, torch.Tensor):
        return (v.real, v.imag) if v.is_complex() else (v, torch.zeros_like(v))
    v = complex(v)
    return v.real, v.imag


def _componentwise(name: str) -> Callable[..., Any]:
    """torch's complex add and subtract compute ``x1 + 1 * x2``, a complex product
    that makes NaN of a part beside an infinite one (``0j + (0+infj)`` gave
    ``nan+infj``): the parts added one by one, as numpy adds them.
    """
    native = getattr(torch, name)

    def fixed(x1: Any, x2: Any, /) -> Any:
        if not any((isinstance(v, torch.Tensor) and v.is_complex())
                   or type(v) is complex for v in (x1, x2)):
            return native(x1, x2)
        (r1, i1), (r2, i2) = _parts(x1), _parts(x2)
        return complex_of(native(r1, r2), native(i1, i2))
    return complex_only(fixed, native, _COMPLEX)


def _vector_norm(x: torch.Tensor, /, *, axis: Any = None, keepdims: bool = False,
                 ord: Any = 2) -> torch.Tensor:
    """torch refuses the inf norms over no element ("Expected reduction dim to
    be specified"), where numpy's largest of no value is 0 (its smallest, a
    ValueError): numpy's answer, on an array of x's shape. ``ord=None`` is the
    default, as numpy, jax, dask and array_api_strict read it (torch refused it).
    """
    if ord is None:
        ord = 2
    if x.numel() == 0 and ord in (math.inf, -math.inf) and (
            x.is_floating_point() or x.is_complex()):
        shape = norm_of_nothing("vector_norm", tuple(x.shape), axis=axis,
                                keepdims=keepdims, ord=ord).shape
        return torch.zeros(shape, dtype=x.real.dtype if x.is_complex() else x.dtype,
                           device=x.device)
    return compat_linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)


def _matrix_norm(x: torch.Tensor, /, *, keepdims: bool = False,
                 ord: Any = "fro") -> torch.Tensor:
    """``ord=None`` is the default (the standard's Optional; numpy's reading),
    which torch refused.
    """
    # mypy: array-api-compat copies torch.linalg's functions in at runtime
    return compat_linalg.matrix_norm(  # type: ignore[attr-defined]
        x, keepdims=keepdims, ord="fro" if ord is None else ord)


FIXES: dict[str, Callable[..., Any]] = {
    name: _unsigned_accumulation(getattr(compat_torch, name))
    for name in ("sum", "prod", "cumulative_sum", "cumulative_prod")}
FIXES["sum"] = _plain_sum_first(FIXES["sum"])
FIXES["linalg.trace"] = _unsigned_accumulation(compat_linalg.trace)
FIXES.update(searchsorted=searchsorted_nan_last(compat_torch),
             floor_divide=floor_divide_fixed(compat_torch),
             remainder=remainder_fixed(compat_torch), std=_std_var("std"),
             pow=pow_fixed(compat_torch, torch.Tensor.is_complex, _concrete),
             take=refuse_out_of_bounds("take", _int64_indices(compat_torch.take),
                                       _concrete),
             imag=_imag,
             take_along_axis=refuse_out_of_bounds(
                 "take_along_axis", _int64_indices(compat_torch.take_along_axis),
                 _concrete, default_axis=-1),
             count_nonzero=_count_nonzero,
             conj=new_array(_resolved(compat_torch.conj), torch.clone),
             positive=new_array(torch.positive, torch.clone),
             unstack=items_copied(compat_torch.unstack, torch.clone),
             # mypy: array-api-compat copies torch.fft's functions in at runtime
             **{"fft.ihfft": _resolved(compat_fft.ihfft)},  # type: ignore[attr-defined]
             var=_std_var("var"), unique_all=_unique_all, __getitem__=_getitem,
             **{"linalg.vector_norm": _vector_norm, "linalg.matrix_norm": _matrix_norm},
             add=_componentwise("add"), subtract=_componentwise("subtract"))
FIXES.update({name: complex_special_cases_fixed(
    compat_torch, name, _COMPLEX,
    lambda x: x.resolve_conj().cpu().numpy(),
    lambda r: torch.from_numpy(np.asarray(r)), reference(name))
    for name in COMPLEX_SPECIAL_CASES})

# For operands of one dtype, torch's own functions are the standard's (compat's
# wrappers only fix mixed-dtype promotion): the dispatcher's fast path calls these.
SAME_DTYPE: dict[str, Callable[..., Any]] = {
    name: getattr(torch, native) for name, native in {
        "add": "add", "subtract": "subtract", "multiply": "multiply",
        "divide": "divide", "maximum": "maximum", "minimum": "minimum",
        "less": "less", "less_equal": "less_equal", "greater": "greater",
        "greater_equal": "greater_equal", "equal": "eq", "not_equal": "ne",
        "logical_and": "logical_and", "logical_or": "logical_or",
        "logical_xor": "logical_xor", "logical_not": "logical_not",
        "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
        "bitwise_xor": "bitwise_xor", "atan2": "atan2", "hypot": "hypot",
        "logaddexp": "logaddexp", "copysign": "copysign", "nextafter": "nextafter",
        "matmul": "matmul", "negative": "negative", "abs": "abs",
        "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
        "square": "square", "signbit": "signbit",
    }.items()}
# sin, exp, ...: the complex special-case fix alone (they take no integers, so the
# uint16/32/64 fallback has nothing to do on the fast path).
SAME_DTYPE.update({name: FIXES[name] for name in (*COMPLEX_SPECIAL_CASES, "add",
                                                    "subtract")})
FIXES.update({name: _complex_via_numpy(name, FIXES.get(name) or getattr(
    compat_torch, name)) for name in ("unique_all", "unique_counts",
                                       "unique_inverse", "unique_values")})


# -- the default floating dtype: float64 on the CPU, as every other owner's ----------
# torch's own default is float32 (torch.get_default_dtype(), global state that
# unitensor never changes): a library's `m = xp.zeros((2, 2)); m += x64` would be
# refused on torch and work elsewhere. On the CPU, creation functions that make a
# floating array without a dtype make float64 (complex128); on accelerators
# torch's own default stays (docs/namespace.md, the rule per device).
def _on_cpu(device: Any) -> bool:
    return (device is None and torch.get_default_device().type == "cpu") or (
        device is not None and torch.device(device).type == "cpu")


def _wide_default(func: Callable[..., Any],
                  kind: Callable[..., str | None]) -> Callable[..., Any]:
    """``func`` (a creation function) with float64 or complex128 where it would
    make torch's default float dtype: ``kind(*args, **kw)`` says which kind of
    array the call makes ('real', 'complex' or None for another).
    """
    def create(*args: Any, **kw: Any) -> Any:
        if kw.get("dtype") is None and _on_cpu(kw.get("device")):
            made = kind(*args, **kw)
            if made is not None:
                kw["dtype"] = torch.float64 if made == "real" else torch.complex128
        return func(*args, **kw)
    create.__name__ = getattr(func, "__name__", "create")
    return create


def _always_real(*args: Any, **kw: Any) -> str:
    return "real"


def _of_values(*values: Any) -> str | None:
    """The kind of array Python numbers make: complex, real (a float), or None."""
    if any(isinstance(v, complex) for v in values):
        return "complex"
    if any(isinstance(v, float) for v in values):
        return "real"
    return None


def _fill_kind(shape: Any, fill_value: Any, **kw: Any) -> str | None:
    return _of_values(fill_value)


def _arange_kind(start: Any, /, stop: Any = None, step: Any = 1,
                 **kw: Any) -> str | None:
    return _of_values(start, stop, step)


def _linspace_kind(start: Any, stop: Any, /, *args: Any, **kw: Any) -> str:
    return "complex" if _of_values(start, stop) == "complex" else "real"


FIXES.update({name: _wide_default(getattr(compat_torch, name), _always_real)
              for name in ("zeros", "ones", "empty", "eye")})
def _through_signed(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (a creation function without a kernel for uint16/32/64: torch's
    ``linspace``) made in the signed dtype ``_widening`` computes them in, then
    cast: numpy's values (uint64's at or above 2**63 not exact, as there).
    """
    def create(*args: Any, **kw: Any) -> Any:
        dtype = kw.get("dtype")
        if dtype not in _LIMITED:
            return func(*args, **kw)
        return func(*args, **{**kw, "dtype": _LIMITED[dtype]}).to(dtype)
    create.__name__ = getattr(func, "__name__", "create")
    return create


FIXES.update(full=_wide_default(compat_torch.full, _fill_kind),
             arange=_wide_default(compat_torch.arange, _arange_kind),
             linspace=_through_signed(_wide_default(compat_torch.linspace,
                                                    _linspace_kind)))
FIXES.update({f"fft.{name}": _wide_default(getattr(compat_fft, name), _always_real)
              for name in ("fftfreq", "rfftfreq")})


class _Info:
    """array-api-compat's inspection namespace for torch, with the defaults the
    creation functions above use (float64 and complex128 on the CPU).
    """

    def __init__(self) -> None:
        self._compat = compat_torch.__array_namespace_info__()

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        found = dict(self._compat.default_dtypes(device=device))
        if _on_cpu(device):
            found.update({"real floating": torch.float64,
                          "complex floating": torch.complex128})
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compat, name)


FIXES["__array_namespace_info__"] = _Info


def namespace() -> object:
    return compat_torch


def result(value: object) -> torch.Tensor:
    return torch.asarray(value)


def native_dtype(dtype: DType) -> torch.dtype:
    return torch_dtype(dtype)


def native_device(device: Device) -> torch.device:
    return torch.device(str(device))



def device_from_native(native_device: torch.device) -> Device:
    if native_device.type == "cpu":
        return CPU
    return Device(native_device.type, native_device.index or 0)


# torch raises RuntimeError (or its subclass NotImplementedError) for any argument
# it refuses; those naming a dtype are what numpy and the standard raise TypeError for.
_DTYPE_REFUSAL = re.compile(r"not implemented for '|can't be cast|dtype|scalar type|"
                            r"does not support (complex|bool)|Expected a floating|"
                            r"Expected .* (integral|floating|complex|boolean)")


def error_type(exc: Exception, /) -> type[Exception]:
    if isinstance(exc, RuntimeError) and _DTYPE_REFUSAL.search(str(exc)):
        return TypeError
    if str(exc) == "ZeroDivisionError":  # integer division by zero, as Python's
        return ZeroDivisionError
    return standard_type(exc)


def _positive_steps(x: torch.Tensor, key: Any) -> tuple[Any, tuple[int, ...]]:
    """torch refuses slices with negative steps in writes too: each becomes the
    positive-step slice of the same elements, and the result axes it made (to flip
    the value along) are returned with the key. Keys with arrays are left as they
    are (torch's refusal).
    """
    items = key if isinstance(key, tuple) else (key,)
    if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
        return key, ()
    if not all(k is None or k is Ellipsis or type(k) in (int, slice) for k in items):
        return key, ()
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    new_key, flips, dim, out = [], [], 0, 0
    for k in items:
        if k is Ellipsis:
            dim += x.ndim - consumed
            out += x.ndim - consumed
        elif k is None:
            out += 1
        elif type(k) is int:
            dim += 1
        else:
            if k.step is not None and k.step < 0:
                chosen = range(*k.indices(x.shape[dim]))
                k = (slice(chosen[-1], chosen[0] + 1, -k.step) if chosen
                     else slice(0, 0))
                flips.append(out)
            dim += 1
            out += 1
        new_key.append(k)
    return tuple(new_key), tuple(flips)


def _is_mask(k: Any) -> bool:
    return isinstance(k, torch.Tensor) and k.dtype == torch.bool


def complex_of(real: torch.Tensor, imag: torch.Tensor, /) -> torch.Tensor:
    return torch.complex(real, imag)  # (exact: the parts are placed, not added)


def setitem(x: torch.Tensor, key: Any, value: Any, /) -> torch.Tensor:
    key = _indices(key)
    if _concrete(x):  # (index_put_ wrote those in bounds, then raised)
        indices_within_bounds(x, key, _is_mask, _concrete)
    key, flips = _positive_steps(x, key)
    target = x
    if x.dtype in _SAME_BITS:  # no masked_fill/index_put/flip for uint16/32/64:
        bits = torch.iinfo(_SAME_BITS[x.dtype]).bits  # write the same bits as signed
        if isinstance(value, torch.Tensor):
            value = value.to(x.dtype).view(_SAME_BITS[x.dtype])
        elif isinstance(value, int) and value >= 2 ** (bits - 1):
            value -= 2 ** bits
        target = x.view(_SAME_BITS[x.dtype])
    if flips and isinstance(value, torch.Tensor):
        shape = target[key].shape
        while value.ndim > len(shape) and value.shape[0] == 1:
            value = value[0]  # (a value's leading 1s dropped, as numpy's)
        value = torch.flip(value.broadcast_to(shape), flips)
    try:
        target[key] = value
    except RuntimeError as exc:
        if not isinstance(value, torch.Tensor) or _OVERLAP not in str(exc):
            raise
        # the value reads memory the write changes (x[1:] = x[:-1]): numpy copies
        # it first, torch refused it (before writing anything)
        target[key] = value.clone()
    return x


_OVERLAP = "refer to a single memory location"
