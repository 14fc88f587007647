"""Fixes of deviations from the standard that several frameworks share.

The rule: a fix is written once against an Array API namespace ``xp`` (a
module, whose arrays the fixes take as Any) and bound by each adapter that needs
it, in its ``namespace.FIXES``; a fix never imports an adapter (numpy's
reference functions are passed in, ``numpy.namespace.reference``). A fix that
only complex inputs need says so (``real_path``, ``complex_dtypes``), so that the
C fast path calls the framework's own function for the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .._errors import arg_error


def reduced_sizes(shape: Any, axis: Any) -> list[Any] | None:
    """The sizes of ``shape`` a reduction along ``axis`` (None: every axis)
    reduces, as the shape gives them (None, NaN: known later); None where an axis
    is out of range (the owner's refusal, diagnosed).
    """
    axes = range(len(shape)) if axis is None else (
        (axis,) if isinstance(axis, int) else axis)
    try:
        return [shape[a] for a in axes]
    except (IndexError, TypeError):
        return None


def norm_of_nothing(name: str, shape: tuple[int, ...], dtype: Any = None,
                    **kwargs: Any) -> Any:
    """numpy's ``linalg.<name>`` (``vector_norm``, ``matrix_norm``) of an array
    of ``shape`` and ``dtype`` (numpy's) with no element: zeros of its result's
    shape and dtype (a norm's largest of no value is 0), or numpy's ValueError
    (its smallest: ord -1, -2, -inf). The owners reduce nothing each their own
    way: TensorFlow to -inf and inf, dask to another shape or a refusal, torch
    to a refusal.
    """
    import numpy as np  # (always installed)

    return getattr(np.linalg, name)(np.zeros(shape, dtype), **kwargs)


def refuse_empty_reduction(func: str, shape: tuple[Any, ...], axis: Any) -> None:
    """max, min, argmax, argmin of nothing: refused, as numpy, torch and jax refuse
    it, by the owners that would answer (TensorFlow: -inf) or answer late (dask:
    once computed). Sizes not known yet (None, NaN) are not empty.
    """
    sizes = reduced_sizes(shape, axis)
    if sizes is not None and 0 in sizes:
        shown = tuple(None if n is None or n != n else n for n in shape)
        raise arg_error(ValueError, func, "x", "elements along the reduced axes "
                        f"({func} of nothing is undefined)",
                        f"shape {shown} reduced along axis {axis}")


def floor_divide_fixed(xp: ModuleType,
                       numpy: ModuleType | None = None) -> Callable[..., Any]:
    """``floor_divide`` with the standard's infinities and signed zeros.

    numpy, torch and jax give NaN for ``inf // finite`` and -1 for ``finite // inf``
    of the other sign; the standard gives what ``floor(x1 / x2)`` gives there, and
    zeros signed like the quotient.
    ``numpy``: for namespaces computing with numpy, whose warnings about the
    cases the standard defines (division by zero, infinities) are silenced.
    """
    floor_divide = xp.floor_divide

    def fixed(x1: Any, x2: Any, /) -> Any:
        if numpy is None:
            return fix(x1, x2)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            return fix(x1, x2)

    def fix(x1: Any, x2: Any, /) -> Any:
        if _integers(xp, x1, x2):
            return by_nonzero(xp, floor_divide, x1, x2)
        result = floor_divide(x1, x2)
        if xp.isdtype(result.dtype, "real floating"):
            a, b = (v if hasattr(v, "dtype") else
                    xp.asarray(v, dtype=result.dtype)
                    for v in (x1, x2))
            quotient = a / b
            special = xp.isinf(a) != xp.isinf(b)
            if xp.any(special):
                result = xp.where(special, xp.floor(quotient), result)
            # a zero result has the sign of the quotient (jax: -0 // 1 gives +0)
            signed = xp.copysign(result, quotient)
            result = xp.where(result == 0, signed, result)
        return result
    return fixed


def remainder_fixed(xp: ModuleType) -> Callable[..., Any]:
    """``remainder`` whose zero results carry the sign of ``x2``, as the standard's
    special cases say (torch and jax return +0 for ``-0 % 1``, -0 for ``0 % -1``).
    """
    remainder = xp.remainder

    def fixed(x1: Any, x2: Any, /) -> Any:
        if _integers(xp, x1, x2):
            return by_nonzero(xp, remainder, x1, x2)
        result = remainder(x1, x2)
        if not xp.isdtype(result.dtype, "real floating"):
            return result
        divisor = x2 if hasattr(x2, "dtype") else xp.asarray(
            x2, dtype=result.dtype)
        signed = xp.copysign(result, divisor)
        return xp.where(result == 0, signed, result)
    return fixed


# (dtype type, dtype object) -> integral? (a dict read: isdtype costs ~0.5 us on
# jax, and these checks sit on every pow, floor_divide and remainder; the type
# first, so that no two frameworks' dtypes are compared: array_api_strict warns)
_INTEGRAL: dict[tuple[type, Any], bool] = {}


def _integers(xp: ModuleType, x1: Any, x2: Any) -> bool:
    """Both operands integers (arrays of an integer dtype, or Python ints)."""
    for v in (x1, x2):
        dtype = getattr(v, "dtype", None)
        if dtype is None:
            if type(v) is not int:
                return False
            continue
        key = (type(dtype), dtype)
        integral = _INTEGRAL.get(key)
        if integral is None:
            integral = _INTEGRAL[key] = bool(xp.isdtype(dtype, "integral"))
        if not integral:
            return False
    return True


def by_nonzero(xp: ModuleType, op: Callable[..., Any], x1: Any, x2: Any) -> Any:
    """``op`` (floor_divide, remainder) of integers, 0 where ``x2`` is 0, as numpy
    answers (the standard leaves it unspecified; torch raised ZeroDivisionError,
    jax gave -1, or the dtype's maximum for unsigned ones). No data-dependent
    branch: it runs under tracing too.
    """
    if not hasattr(x2, "dtype"):  # a Python int divisor
        return xp.zeros_like(op(x1, 1)) if x2 == 0 else op(x1, x2)
    zero = x2 == 0
    return xp.where(zero, 0, op(x1, xp.where(zero, 1, x2)))


def integers_by_nonzero(xp: ModuleType, name: str) -> Callable[..., Any]:
    """``xp``'s ``name`` (floor_divide, remainder) with integer zero divisors giving
    0 (``by_nonzero``) and no warning; other operands as ``xp`` computes them.
    """
    op = getattr(xp, name)

    def fixed(x1: Any, x2: Any, /) -> Any:
        return by_nonzero(xp, op, x1, x2) if _integers(xp, x1, x2) else op(x1, x2)
    return fixed


def check_repeats(ndim: int, negative: bool) -> None:
    """``repeat``'s counts as numpy takes them: an int or a one-dimensional array
    (``ndim``: 0 for an int), none negative (jax and TensorFlow dropped or
    shifted elements for a negative count; where counts are tracers or a graph's,
    ``negative`` is False: the owner's).
    """
    if ndim > 1:
        raise arg_error(ValueError, "repeat", "repeats", "an int or a "
                        "one-dimensional array", f"a {ndim}-d array")
    if negative:
        raise arg_error(ValueError, "repeat", "repeats", "counts >= 0",
                        "a negative count")


def outer_of_vectors(outer: Callable[..., Any]) -> Callable[..., Any]:
    """``linalg.outer`` of one-dimensional arrays only, as the standard and
    numpy's own ``np.linalg.outer`` take them (array-api-compat's dask ``outer``
    flattened others; TensorFlow's broadcast them).
    """
    def fixed(x1: Any, x2: Any, /) -> Any:
        for arg, x in (("x1", x1), ("x2", x2)):
            if x.ndim != 1:
                raise arg_error(ValueError, "linalg.outer", arg,
                                "a one-dimensional array", f"a {x.ndim}-d array")
        return outer(x1, x2)
    return fixed


def new_array(func: Callable[..., Any], copy: Callable[[Any], Any]
              ) -> Callable[..., Any]:
    """``func``'s result a new array, as numpy's is: where the owner's function
    returns its input itself (torch's ``positive`` and ``conj`` of a real array,
    array-api-strict's ``floor`` of integers), a copy of it, so that a write into
    either does not reach the other.
    """
    def fixed(x: Any, /) -> Any:
        result = func(x)
        return copy(x) if result is x else result
    return fixed


def nan_past_correction(func: Callable[..., Any]) -> Callable[..., Any]:
    """``var``/``std`` NaN where the correction leaves no degrees of freedom (N -
    correction <= 0), as the standard says (numpy, torch, TensorFlow and dask
    gave inf; jax NaN).
    """
    def fixed(x: Any, /, **kwargs: Any) -> Any:
        correction = kwargs.get("correction", 0)
        if correction and not isinstance(correction, bool):
            sizes = reduced_sizes(tuple(x.shape), kwargs.get("axis"))
            if sizes is not None and all(type(n) is int for n in sizes) and (
                    math.prod(sizes) - correction <= 0):
                # (computed without the correction, which the owners warn of)
                return func(x, **{**kwargs, "correction": 0}) * float("nan")
        return func(x, **kwargs)
    return fixed


def refuse_failure(func: Callable[..., Any], name: str, expected: str,
                   failed: Callable[[tuple[Any, ...], Any], bool],
                   arg: str = "x") -> Callable[..., Any]:
    """``func`` (``linalg.cholesky``, ``linalg.inv``, ``linalg.solve``) refusing
    the matrices it fails on with a ValueError naming ``arg``, as numpy refuses
    them, where the owner answers NaN or inf instead (jax's cholesky of a matrix
    not positive definite, its inv of a singular one). ``failed(arrays,
    result)`` tells, False where it cannot (a tracer).
    """
    def fixed(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        result = func(x, *args, **kwargs)
        if failed((x, *args), result):
            raise arg_error(ValueError, name, arg, expected, "one that is not")
        return result
    return fixed


def indices_within_bounds(x: Any, key: Any, is_mask: Callable[[Any], bool],
                          concrete: Callable[[Any], bool],
                          func: str = "__setitem__") -> None:
    """Every int and index array of ``key`` within its axis of ``x``, checked
    before anything is read or written, as numpy checks them: an IndexError
    naming ``key`` (torch's index_put_ wrote the indices within bounds, then
    raised; jax clamped reads and dropped writes out of bounds silently). Index
    arrays ``concrete`` says nothing about (jax tracers) are the owner's.
    """
    items = key if type(key) is tuple else (key,)

    def span(k: Any) -> int:  # the axes of x an item takes
        if k is None or k is Ellipsis or type(k) is bool:
            return 0
        return k.ndim if is_mask(k) else 1
    spans = [span(k) for k in items]
    dim = 0
    for k, taken in zip(items, spans, strict=True):
        if k is Ellipsis:
            dim += x.ndim - sum(spans)
            continue
        if taken == 1 and dim < x.ndim and type(k) is not slice and not is_mask(k):
            n = x.shape[dim]
            if type(k) is int:
                low = high = k
            elif concrete(k) and math.prod(k.shape):
                low, high = int(k.min()), int(k.max())
            else:  # no index (an empty array), or none known now (a tracer)
                low, high = -n, n - 1
            if type(n) is int and (low < -n or high >= n):
                raise arg_error(IndexError, func, "key", "indices within "
                                f"[-{n}, {n}) for an axis of {n}",
                                f"{low if low < -n else high}")
        dim += taken


def items_copied(unstack: Callable[..., Any], copy: Callable[[Any], Any]
                 ) -> Callable[..., Any]:
    """``unstack`` of a one-dimensional array: its items new 0-d arrays, as
    numpy's scalars are (torch's and array-api-strict's were views of it, and a
    write into one reached the array); the items of more dimensions stay views,
    as numpy's are.
    """
    def fixed(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
        items = unstack(x, axis=axis)
        return tuple(map(copy, items)) if x.ndim == 1 else items
    return fixed


def read_only_items(broadcast_arrays: Callable[..., Any],
                    memory: Callable[[Any], Any]) -> Callable[..., Any]:
    """``broadcast_arrays`` whose arrays are read-only, as ``broadcast_to``'s
    (numpy 2 made them writable with a FutureWarning on a write, and asking
    whether they are warned too). ``memory(item)``: the numpy array of an item.
    """
    def fixed(*arrays: Any) -> Any:
        items = broadcast_arrays(*arrays)
        for item in items:
            memory(item).flags.writeable = False
        return items
    return fixed


def refuse_negative_powers(xp: ModuleType, pow_: Callable[..., Any],
                           concrete: Callable[[Any], bool] = lambda x: True
                           ) -> Callable[..., Any]:
    """``pow`` of integers refuses negative exponents with numpy's ValueError (the
    standard leaves them unspecified; torch and jax truncated ``2 ** -1`` to 0).
    Exponents ``concrete`` says nothing about (jax tracers) are the owner's.
    """
    def fixed(x1: Any, x2: Any, /) -> Any:
        if _integers(xp, x1, x2) and (
                x2 < 0 if type(x2) is int else concrete(x2) and bool(xp.any(x2 < 0))):
            raise arg_error(ValueError, "pow", "x2", "non-negative exponents for "
                            "integer bases (numpy's rule: cast to a floating dtype "
                            "first)", "a negative integer exponent")
        return pow_(x1, x2)
    return fixed


def refuse_out_of_bounds(func: str, take: Callable[..., Any],
                         concrete: Callable[[Any], bool] = lambda x: True,
                         default_axis: int | None = None) -> Callable[..., Any]:
    """``take``/``take_along_axis`` refusing indices outside ``[-n, n)`` with an
    IndexError, as numpy, TensorFlow and the standard's bounds say (torch's
    take_along_dim read out of bounds; jax filled the dtype's minimum). Indices
    ``concrete`` says nothing about (jax tracers) are the owner's.
    """
    def fixed(x: Any, indices: Any, /, *, axis: int | None = default_axis) -> Any:
        try:
            n = math.prod(x.shape) if axis is None else x.shape[axis]
        except (IndexError, TypeError):  # the owner's refusal of the axis
            n = None
        if n is not None and concrete(indices) and math.prod(indices.shape):
            low, high = int(indices.min()), int(indices.max())
            if low < -n or high >= n:
                raise arg_error(IndexError, func, "indices", f"indices within "
                                f"[-{n}, {n}) for an axis of {n}",
                                f"{low if low < -n else high}")
        return take(x, indices) if axis is None else take(x, indices, axis=axis)
    return fixed


def pow_fixed(xp: ModuleType, is_complex: Callable[[Any], bool],
              concrete: Callable[[Any], bool] = lambda x: True) -> Callable[..., Any]:
    """``x ** 0`` is 1 for every x; torch gives NaN for complex ``0 ** 0``; integer
    bases refuse negative exponents (``refuse_negative_powers``, where
    ``concrete``).
    """
    pow_ = refuse_negative_powers(xp, xp.pow, concrete)

    def fixed(x1: Any, x2: Any, /) -> Any:
        result = pow_(x1, x2)
        if not is_complex(result):
            return result
        if not hasattr(x2, "dtype"):  # a Python scalar exponent
            return xp.ones_like(result) if x2 == 0 else result
        return xp.where(x2 == 0, xp.ones_like(result), result)
    return fixed


def sign_fixed(xp: ModuleType) -> Callable[..., Any]:
    """``sign`` of a zero is an unsigned zero (jax gives -0 for -0, and
    array_api_strict -0 for complex zeros).
    """
    sign = xp.sign

    def fixed(x: Any, /) -> Any:
        result = sign(x)
        return xp.where(x == 0, xp.zeros_like(result), result)
    return fixed


def expm1_fixed(xp: ModuleType,
                complex_dtypes: frozenset[Any] | None = None) -> Callable[..., Any]:
    """Complex ``expm1`` with the standard's special cases: ``exp(x) - 1`` at
    infinities and NaN, and ``expm1(±0 ± 0j)`` is ``+0 ± 0j`` (numpy: ``-0`` for a
    real part of ``-0``). ``complex_dtypes``: the namespace's complex dtype
    objects, for the C fast path, which calls ``expm1`` itself for the others.
    """
    expm1 = xp.expm1

    def fixed(x: Any, /) -> Any:
        result = expm1(x)
        if not xp.isdtype(x.dtype, "complex floating"):
            return result
        finite = xp.isfinite(x)
        if not xp.all(finite):
            result = xp.where(finite, result, xp.exp(x) - 1)
        negative_zero = (x == 0) & xp.signbit(xp.real(result))
        if xp.any(negative_zero):  # -conj flips the real part's sign alone
            result = xp.where(negative_zero, -xp.conj(result), result)
        return result
    return complex_only(fixed, expm1, complex_dtypes)


def tanh_fixed(xp: ModuleType,
               complex_dtypes: frozenset[Any] | None = None) -> Callable[..., Any]:
    """Complex ``tanh`` whose ``tanh(±inf + yj)``, y finite, is ``±1 + 0j`` with
    the sign of ``y`` (the standard's case and its conjugate symmetry; numpy
    follows C99's ``0 * sin(2y)``, whose sign is that of ``sin(2y)``).
    """
    tanh = xp.tanh

    def fixed(x: Any, /) -> Any:
        result = tanh(x)
        if not xp.isdtype(x.dtype, "complex floating"):
            return result
        wrong = (xp.isinf(xp.real(x)) & xp.isfinite(xp.imag(x))
                 & (xp.signbit(xp.imag(result)) != xp.signbit(xp.imag(x))))
        if xp.any(wrong):  # conj flips the imaginary part's sign alone
            result = xp.where(wrong, xp.conj(result), result)
        return result
    return complex_only(fixed, tanh, complex_dtypes)


def complex_only(fixed: Callable[..., Any], native: Callable[..., Any],
                  complex_dtypes: frozenset[Any] | None) -> Callable[..., Any]:
    """Mark ``fixed`` as a fix only complex inputs need, where the dtypes are
    known: the C fast path calls ``native`` for the others (``_fastpath.learn``).
    """
    if complex_dtypes is not None:
        # mypy has no type for a function with attributes.
        fixed.real_path = native  # type: ignore[attr-defined]
        fixed.complex_dtypes = complex_dtypes  # type: ignore[attr-defined]
    return fixed


# Unary functions whose special cases at complex infinities and NaNs numpy gets
# right (measured with the official suite) and jax and torch do not.
COMPLEX_SPECIAL_CASES = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos",
                         "cosh", "exp", "expm1", "log", "log1p", "sin", "sinh",
                         "sqrt", "tan", "tanh")


def complex_special_cases_fixed(xp: ModuleType, name: str,
                                complex_dtypes: frozenset[Any],
                                to_numpy: Callable[[Any], Any],
                                from_numpy: Callable[[Any], Any],
                                reference: Callable[..., Any]) -> Callable[..., Any]:
    """``name`` with the special complex elements computed by ``reference``
    (numpy's function, which gets them right).

    Ordinary inputs (the common case, checked once per call) take the framework's
    own function; infinities, NaNs and signed zeros come from numpy's, through
    zero-copy views where the memory is on the CPU. Inputs of a dtype not in
    ``complex_dtypes`` (the framework's own dtype objects) need no fix: the C fast
    path calls ``fixed.real_path`` for them directly (``fixed.complex_dtypes``).
    """
    native = getattr(xp, name)

    def fixed(x: Any, /) -> Any:
        result = native(x)
        if x.dtype not in complex_dtypes:
            return result
        # Special cases: non-finite parts, and a zero real or imaginary part
        # (whose sign picks the side of a branch cut: sqrt(-1 - 0j) is -1j,
        # asinh(-0 + 2j) is -1.317 + 1.571j).
        ordinary = (xp.isfinite(x) & (xp.imag(x) != 0)
                    & (xp.real(x) != 0))
        if xp.all(ordinary):
            return result
        import numpy as np
        with np.errstate(all="ignore"):
            special = from_numpy(reference(to_numpy(x)))
        return xp.where(ordinary, result, special)
    # Read by _fastpath.learn(). mypy has no type for a function with attributes.
    fixed.real_path = native  # type: ignore[attr-defined]
    fixed.complex_dtypes = complex_dtypes  # type: ignore[attr-defined]
    return fixed


def searchsorted_nan_last(xp: Any, real_floating: Callable[[Any], bool] | None = None
                          ) -> Callable[..., Any]:
    """``searchsorted`` in the order ``sort`` makes (numpy's): NaNs after every
    other element, NaN equal to NaN. torch places a NaN ``x2`` after every
    element (a NaN it meets compares neither way), TensorFlow before: for ``x1 =
    [.1, .5, inf, nan, nan]`` and ``x2 = [nan, inf]`` numpy gives ``[3, 2]``,
    torch ``[5, 2]``, TF ``[0, 2]``. The owner's search runs on ``x1`` with its
    NaNs (sorted last) read as infinities, capped at where they begin; a NaN
    ``x2`` goes where they begin (left) or after them (right).
    ``real_floating``: whether a dtype of ``xp`` is (default: ``xp.isdtype``).
    ``x1`` must be one-dimensional, as numpy and the standard say (torch searched
    each row of an n-d ``x1``, TensorFlow gave other numbers).
    """
    search = xp.searchsorted
    if real_floating is None:
        real_floating = lambda dtype: xp.isdtype(dtype, "real floating")  # noqa: E731

    def fixed(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Any:
        if len(x1.shape) != 1:
            raise arg_error(ValueError, "searchsorted", "x1", "a 1-D array",
                            f"an array of shape {tuple(x1.shape)}")
        if not real_floating(x1.dtype):
            return search(x1, x2, side=side, sorter=sorter)
        if sorter is not None:
            x1 = xp.take(x1, sorter)
        if not hasattr(x2, "dtype"):  # a Python scalar (2025.12): a 0-d array of x1's
            x2 = xp.full((), x2, dtype=x1.dtype, device=x1.device)
        nan = xp.isnan(x1)
        found = search(xp.where(nan, xp.full_like(x1, float("inf")), x1), x2,
                       side=side)
        numbers = xp.astype(xp.sum(xp.astype(~nan, found.dtype)), found.dtype)
        found = xp.minimum(found, numbers)
        after = numbers if side == "left" else xp.full(
            (), x1.shape[0], dtype=found.dtype, device=x1.device)
        return xp.where(xp.isnan(x2), after, found)
    return fixed
