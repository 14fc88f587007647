"""JAX's Array API namespace (``jax.numpy``) and the fixes of its deviations."""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import standard_type
from .._fixes import (
    COMPLEX_SPECIAL_CASES,
    check_repeats,
    complex_only,
    complex_special_cases_fixed,
    floor_divide_fixed,
    indices_within_bounds,
    refuse_failure,
    refuse_negative_powers,
    refuse_out_of_bounds,
    remainder_fixed,
    sign_fixed,
)
from ..numpy.namespace import reference
from .interop import jax_dtype

ARRAY = type(jnp.zeros(()))  # jax.Array is abstract; this is its concrete type


def _searchsorted(x1: jax.Array, x2: jax.Array, /, **kw: Any) -> jax.Array:
    """jnp.searchsorted returns int32 even with x64; the standard: the index dtype."""
    result = jnp.searchsorted(x1, x2, **kw)
    return result.astype(jnp.__array_namespace_info__().default_dtypes()["indexing"])


def _cumulative_prod(x: jax.Array, /, **kw: Any) -> jax.Array:
    """jnp.cumulative_prod keeps small integer dtypes; the standard widens them to
    the default integer of the same signedness (as jnp.cumulative_sum does).
    """
    if kw.get("dtype") is None and jnp.issubdtype(x.dtype, jnp.integer):
        # mypy: jax sets its flags on jax.config at runtime; its types omit them
        x64 = jax.config.jax_enable_x64  # type: ignore[attr-defined]
        kw["dtype"] = jnp.promote_types(
            x.dtype, jnp.uint64 if jnp.issubdtype(x.dtype, jnp.unsignedinteger)
            else jnp.int64) if x64 else None
    return jnp.cumulative_prod(x, **kw)


# jax's complex dtype objects: the inputs the fixes below are for
_COMPLEX = frozenset({np.dtype("complex64"), np.dtype("complex128")})


def _truth(name: str) -> Callable[..., Any]:
    """jnp.all/any read a complex number by its real part (jnp.all(1j) is False)."""
    native = getattr(jnp, name)

    def fixed(x: jax.Array, /, **kw: Any) -> jax.Array:
        return native(x != 0 if jnp.iscomplexobj(x) else x, **kw)
    return complex_only(fixed, native, _COMPLEX)


def _abs(x: jax.Array, /) -> jax.Array:
    """jnp.abs of a complex number with an infinite part and a NaN one is NaN;
    the standard (and numpy, torch, TensorFlow) say +inf.
    """
    found = jnp.abs(x)
    if not jnp.iscomplexobj(x):
        return found
    return jnp.where(jnp.isinf(x.real) | jnp.isinf(x.imag), jnp.inf, found)


def _bool_of_complex(native: Callable[..., Any]) -> Callable[..., Any]:
    """jnp's sum/prod with dtype=bool read a complex number by its real part
    (jnp.prod(1j, dtype=bool) is False): the standard casts the input first.
    """
    def fixed(x: jax.Array, /, **kw: Any) -> jax.Array:
        dtype = kw.get("dtype")
        if dtype is not None and np.dtype(dtype) == np.bool_ and jnp.iscomplexobj(x):
            x = x != 0
        return native(x, **kw)
    return complex_only(fixed, native, _COMPLEX)


def _nan_propagating(name: str) -> Callable[..., Any]:
    """jnp.min/max of a long floating array holding a NaN (10,001 elements, XLA on
    CPU) skip the NaN, and an element with it: jnp.min(x) gave 1e-4 where x[0] is
    -inf. The standard (and numpy): a NaN in the reduced elements gives NaN.
    """
    native = getattr(jnp, name)

    def fixed(x: jax.Array, /, **kw: Any) -> jax.Array:
        result = native(x, **kw)
        if not jnp.issubdtype(x.dtype, jnp.inexact):
            return result
        nan = jnp.any(jnp.isnan(x), axis=kw.get("axis"),
                      keepdims=bool(kw.get("keepdims", False)))
        return jnp.where(nan, jnp.asarray(jnp.nan, dtype=result.dtype), result)
    return fixed


def _lost(arrays: tuple[jax.Array, ...], result: jax.Array) -> bool:
    """Values known now, and finite ``arrays`` made a result that is not."""
    return (_concrete(result) and all(bool(jnp.isfinite(a).all()) for a in arrays)
            and not bool(jnp.isfinite(result).all()))


def _concrete(x: object) -> bool:
    """Values known now: not a tracer of jit, grad or vmap (whose checks are
    the owner's: JAX fills out-of-bounds gathers and truncates integer powers).
    """
    return not isinstance(x, jax.core.Tracer)


def _repeat(x: jax.Array, repeats: Any, /, *, axis: int | None = None) -> jax.Array:
    """numpy's refusals of repeats it cannot take (jnp.repeat dropped elements for
    a negative count: [0, 1, 2] repeated [1, -1, 2] gave [1, 2]), where they
    are known (not tracers).
    """
    if isinstance(repeats, int):
        check_repeats(0, repeats < 0)
    elif _concrete(repeats) and hasattr(repeats, "ndim"):
        check_repeats(repeats.ndim, repeats.size > 0 and bool(jnp.any(repeats < 0)))
    return jnp.repeat(x, repeats, axis=axis)


# XLA divides by a divisor broadcast along any axis (a Python scalar, a 0-d array,
# a row) as a product with its reciprocal: x / 3.0 was 1 ulp off for a third of
# float32s and float64s, and so was a mean (its sum / count), where the standard
# asks division correctly rounded and numpy's answer is. An optimization barrier
# around the broadcast divisor keeps the division; XLA still fuses the broadcast
# into the loop, so no array of the divisor is made.
def _unbroadcast_divisor(divisor: Any, shape: tuple[int, ...]) -> jax.Array:
    return jax.lax.optimization_barrier(jnp.broadcast_to(divisor, shape))


@jax.jit
def _divide(x1: Any, x2: Any, /) -> jax.Array:
    shape = jnp.broadcast_shapes(jnp.shape(x1), jnp.shape(x2))
    return jnp.divide(x1, _unbroadcast_divisor(x2, shape))


@functools.partial(jax.jit, static_argnames=("axis", "keepdims"))
def _mean(x: jax.Array, /, *, axis: int | tuple[int, ...] | None = None,
          keepdims: bool = False) -> jax.Array:
    dtype = jax.eval_shape(functools.partial(jnp.mean, axis=axis, keepdims=keepdims),
                           x).dtype  # jnp.mean's: ints averaged in the default float
    axes = (range(x.ndim) if axis is None
            else [a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,))])
    count = math.prod(x.shape[a] for a in axes)
    summed = jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype  # (as jnp)
    total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=summed)

    def divided(part: jax.Array) -> jax.Array:
        return jax.lax.div(part, _unbroadcast_divisor(
            jnp.asarray(count, part.dtype), part.shape))
    if total.dtype == jnp.complex128:  # numpy multiplies by 1/n there (Smith's
        return jnp.mean(x, axis=axis, keepdims=keepdims)  # division), as jnp does
    if total.dtype == jnp.complex64:  # numpy divides each part, in double
        return jax.lax.complex(divided(total.real), divided(total.imag))
    return divided(total).astype(dtype)


def _permute_dims(x: jax.Array, /, axes: tuple[int, ...]) -> jax.Array:
    """jnp.permute_dims refuses negative axes, which the standard allows (an
    axis out of range is refused, not wrapped: -3 of a 2-d array is no axis).
    """
    ndim = max(x.ndim, 1)
    if any(not -ndim <= a < ndim for a in axes):
        raise ValueError(f"axes {tuple(axes)} are out of range for {x.ndim} dimensions")
    return jnp.permute_dims(x, tuple(a % x.ndim if x.ndim else a for a in axes))


def _matrix_rank(x: jax.Array, /, *, rtol: Any = None) -> jax.Array:
    """jnp.linalg.matrix_rank compares the singular values with ``rtol`` itself,
    not with ``rtol`` times the largest one, as its docstring, numpy and the
    standard say (rtol=0.6 of singular values 5.0 and 2.7: rank 2, numpy's 1).
    """
    if rtol is None:  # (jax's own default: numpy's)
        return jnp.linalg.matrix_rank(x)
    s = jnp.linalg.svdvals(x)
    tolerance = jnp.max(s, axis=-1, keepdims=True) * jnp.expand_dims(
        jnp.asarray(rtol, dtype=s.dtype), -1)
    return jnp.count_nonzero(s > tolerance, axis=-1)


_inverse_power = refuse_failure(
    jnp.linalg.matrix_power, "linalg.matrix_power", "an invertible matrix for a "
    "negative power (numpy's refusal; jax answered inf or NaN)", _lost)


def _matrix_power(x: jax.Array, n: int, /) -> jax.Array:
    """A negative power of a singular matrix refused, as jax's inv is (jax
    answered inf or NaN); other powers as jax computes them.
    """
    return (_inverse_power if type(n) is int and n < 0
            else jnp.linalg.matrix_power)(x, n)


def _getitem(x: jax.Array, key: Any) -> jax.Array:
    """jax clamps an index out of bounds (x[6] of 6 elements read x[5]): an
    IndexError, as numpy's, where the index is known (not a tracer).
    """
    indices_within_bounds(x, key, _is_mask, _concrete, "__getitem__")
    return x[key]


# the C path's read of a base's view (ext/_fast.c take_view), which leaves a key
# with an int out of bounds to the general path first
_getitem.real_path = operator.getitem  # type: ignore[attr-defined]


FIXES: dict[str, Callable[..., Any]] = {
    "searchsorted": _searchsorted, "permute_dims": _permute_dims,
    "divide": _divide, "mean": _mean,
    "all": _truth("all"), "any": _truth("any"),
    "abs": complex_only(_abs, jnp.abs, _COMPLEX),
    "cumulative_prod": _bool_of_complex(_cumulative_prod),
    "cumulative_sum": _bool_of_complex(jnp.cumulative_sum),
    "sum": _bool_of_complex(jnp.sum), "prod": _bool_of_complex(jnp.prod),
    "floor_divide": floor_divide_fixed(jnp), "remainder": remainder_fixed(jnp),
    "sign": sign_fixed(jnp), "min": _nan_propagating("min"),
    "max": _nan_propagating("max"),
    "pow": refuse_negative_powers(jnp, jnp.pow, _concrete), "repeat": _repeat,
    "take": refuse_out_of_bounds("take", jnp.take, _concrete),
    "take_along_axis": refuse_out_of_bounds("take_along_axis", jnp.take_along_axis,
                                            _concrete, default_axis=-1),
    "linalg.cholesky": refuse_failure(jnp.linalg.cholesky, "linalg.cholesky",
                                      "a positive-definite matrix (numpy's refusal; "
                                      "jax answered NaN)", _lost),
    "__getitem__": _getitem,
    "linalg.solve": refuse_failure(jnp.linalg.solve, "linalg.solve", "an "
                                   "invertible matrix (numpy's refusal; jax answered "
                                   "inf)", _lost, "x1"),
    "linalg.inv": refuse_failure(jnp.linalg.inv, "linalg.inv", "an invertible "
                                 "matrix (numpy's refusal; jax answered inf)",
                                 _lost),
    "linalg.matrix_rank": _matrix_rank,
    "linalg.matrix_power": _matrix_power}
FIXES.update({name: complex_special_cases_fixed(
    jnp, name, _COMPLEX, np.asarray, jnp.asarray, reference(name))
    for name in COMPLEX_SPECIAL_CASES})


def namespace() -> object:
    return jnp


def result(value: object) -> jax.Array:
    return jnp.asarray(value)


def native_dtype(dtype: DType) -> object:
    return jax_dtype(dtype)


def native_device(device: Device) -> object:
    platform = "cpu" if device.kind == "cpu" else "gpu"
    return jax.devices(platform)[device.index]



def device_from_native(native_device: jax.Device | None) -> Device:
    if native_device is None:  # jax's info: "no default", meaning jax.devices()[0]
        native_device = jax.devices()[0]
    platform = native_device.platform
    if platform == "cpu":
        return CPU
    return Device("cuda" if platform in ("gpu", "cuda") else platform,
                  native_device.local_hardware_id or 0)


def setitem(x: jax.Array, key: object, value: object, /) -> jax.Array:
    """JAX arrays are immutable: the Tensor is rebound to the updated copy. An
    index out of bounds is an IndexError, as numpy's (jax drops such writes).
    """
    indices_within_bounds(x, key, _is_mask, _concrete)
    return x.at[key].set(value)


def complex_of(real: jax.Array, imag: jax.Array, /) -> jax.Array:
    return jax.lax.complex(real, imag)  # (exact: the parts are placed, not added)


def _is_mask(k: object) -> bool:
    return getattr(k, "dtype", None) == jnp.bool_


# jax checks shapes as part of an array's abstract type: its refusals of shapes
# that do not fit together are TypeErrors, where numpy, torch and TensorFlow raise
# ValueError, the standard's type for a value a function cannot take
_SHAPE_REFUSAL = re.compile("|".join((
    r"requires contracting dimensions to have the same shape",  # dot_general
    r"^Cannot concatenate arrays with shapes",
    r"^cannot reshape array of shape",
    r"can only specify one unknown axis size",  # reshape's -1
    r"got incompatible shapes for broadcasting",  # clip, cholesky's checks
    r"must have rank at least",  # qr, svd of a vector
    r"isn't a permutation of operand dimensions",  # permute_dims
    r"dimensions of the array must be square",  # matrix_power
    r"shape must have every element be nonnegative",  # full((-1,))
)))


def error_type(exc: Exception, /) -> type[Exception]:
    if type(exc) is TypeError and _SHAPE_REFUSAL.search(str(exc)):
        return ValueError
    return standard_type(exc)
