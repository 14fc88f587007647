"""The differential harness: draw inputs in the oracle, run both, compare.

The oracle is array-api-strict, the standard's reference namespace. Inputs are
drawn as oracle arrays with ``hypothesis.extra.array_api``, copied into Tensors
owned by the owner under test (``UNITENSOR_DEFAULT_OWNER``), and the same call
runs in both namespaces. Results must agree in type (Tensor, tuple, list, named
tuple, Python scalar), owner, shape, dtype and values.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, NamedTuple

import array_api_strict as xs
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import unitensor as ut

OWNER = os.environ.get("UNITENSOR_DEFAULT_OWNER", "numpy")
xps = make_strategies_namespace(xs, api_version="2025.12")

# The dtypes both sides have (the owner's, from its inspection API).
SUBJECT_DTYPES = set(ut.__array_namespace_info__().dtypes())
KINDS = {
    "bool": ("bool",),
    "signed": ("int8", "int16", "int32", "int64"),
    "unsigned": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
KINDS["integral"] = KINDS["signed"] + KINDS["unsigned"]
KINDS["floating"] = KINDS["real floating"] + KINDS["complex floating"]
KINDS["real"] = KINDS["integral"] + KINDS["real floating"]
KINDS["numeric"] = KINDS["real"] + KINDS["complex floating"]
KINDS["any"] = KINDS["bool"] + KINDS["numeric"]


class Case(NamedTuple):
    """One function (or operator) under test and how to draw its arguments."""

    name: str  # the standard's name: 'add', 'linalg.qr', or an operator '__add__'
    draw: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]
    compare: Callable[[Any, Any, tuple[Any, ...]], None] | None = None

    def __str__(self) -> str:
        return self.name


# -- drawing inputs ---------------------------------------------------------------
def dtype_names(kind: str) -> list[str]:
    return [n for n in KINDS[kind] if n in SUBJECT_DTYPES]


def dtypes(kind: str) -> st.SearchStrategy[Any]:
    names = dtype_names(kind)
    return st.sampled_from([getattr(xs, n) for n in names])


def elements(dtype: Any, small: bool = False) -> Any:
    """Finite, moderate values: the suite compares frameworks, not overflow."""
    name = name_of(dtype)
    if name == "bool":
        return {}
    if name.startswith("complex"):
        # Each part 0 or of magnitude 1e-6 or more: a subnormal part (jax flushes
        # complex64's 1e-45 to 0 in any()) or one within 1e-100 of a branch point
        # (jax's atan(1e-167 + 1j) is inf) tests precision the standard leaves to
        # the implementation, not conformance.
        bound = 8.0 if small else 100.0
        part = st.floats(-bound, bound, allow_nan=False, allow_infinity=False,
                         allow_subnormal=False,
                         width=32 if name == "complex64" else 64).filter(
                             lambda v: v == 0 or abs(v) >= 1e-6)
        return st.builds(complex, part, part)
    if name.startswith(("int", "uint")):
        bits = int(name.lstrip("uint"))
        low = 0 if name.startswith("u") else -(2 ** min(bits - 2, 14))
        return {"min_value": low, "max_value": 2 ** min(bits - 2, 14) if not small
                else 8}
    bound = 8.0 if small else 100.0
    return {"min_value": -bound, "max_value": bound, "allow_nan": False,
            "allow_infinity": False, "allow_subnormal": False}


def array(data: Any, dtype: Any, shape: Any = None, *, small: bool = False,
          min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
          max_side: int = 4) -> Any:
    if shape is None:
        shape = xps.array_shapes(min_dims=min_dims, max_dims=max_dims,
                                 min_side=min_side, max_side=max_side)
    return data.draw(xps.arrays(dtype, shape, elements=elements(dtype, small)))


def name_of(dtype: Any) -> str:
    return str(dtype).rpartition(".")[2]


# -- the two sides ----------------------------------------------------------------
def function(namespace: Any, name: str) -> Callable[..., Any]:
    target = namespace
    for part in name.split("."):
        target = getattr(target, part)
    return target  # type: ignore[no-any-return]


def to_subject(value: Any) -> Any:
    """An oracle argument as the subject takes it.

    For dask, ``.to("dask")`` wraps the copy in dask's 'auto' chunks: one chunk
    for arrays this small, so each matrix is one chunk and every linalg function
    runs (per matrix). A stack of matrices split across chunks, which the
    functions without a chunked algorithm refuse with a ValueError naming dask,
    is tested in tests/test_dask.py, as are dask's chunked algorithms.
    """
    if isinstance(value, xs._array_object.Array):
        return ut.asarray(np.from_dlpack(value)).to(OWNER, copy=True)
    if isinstance(value, xs._dtypes.DType):
        return getattr(ut, name_of(value))
    if isinstance(value, list):
        return [to_subject(v) for v in value]
    if isinstance(value, tuple):
        return tuple(to_subject(v) for v in value)
    return value


def _isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Any:
    found = xs.isin(x1, x2)
    return xs.logical_not(found) if invert else found


# Where the oracle itself deviates: array-api-strict 2.6.1's isin ignores invert.
ORACLE_FIXES: dict[str, Callable[..., Any]] = {"isin": _isin}


def call(case: Case, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """(expected, got): the oracle's result and the subject's, or their errors."""
    try:
        expected = ORACLE_FIXES.get(case.name, function(xs, case.name))(*args, **kwargs)
    except Exception as exc:  # the standard leaves this input undefined
        expected = exc
    sub_args = tuple(to_subject(a) for a in args)
    sub_kwargs = {k: to_subject(v) for k, v in kwargs.items()}
    if isinstance(expected, Exception):
        return expected, None
    return expected, function(ut, case.name)(*sub_args, **sub_kwargs)


# -- comparing ---------------------------------------------------------------------
# The owner whose namespace computes: every owner computes its own data (and
# tensorflow too, since its namespace in unitensor/_backends/tensorflow/).
RESULT_OWNER = OWNER


def as_numpy(value: Any) -> np.ndarray:
    if type(value) is ut.Tensor:  # a copy: results with torch's conj bit need one
        return np.asarray(value.numpy(copy=True))
    return np.asarray(np.from_dlpack(value))


def tolerance(dtype_name: str) -> tuple[float, float]:
    if dtype_name in ("float32", "complex64"):
        return 2e-3, 2e-4
    return 1e-7, 1e-9


def assert_same_array(got: Any, expected: Any, what: str = "result", *,
                      scale: float = 1.0) -> None:
    assert type(got) is ut.Tensor, f"{what}: got {type(got).__name__}, not a Tensor"
    assert got.owner == RESULT_OWNER, f"{what}: owned by {got.owner}"
    # None: a size the owner knows only once computed (dask after a boolean mask,
    # unique_*, nonzero), which the standard allows; checked on the values below
    same = len(got.shape) == len(expected.shape) and all(
        g is None or g == e for g, e in zip(got.shape, expected.shape, strict=True))
    assert same, f"{what}: shape {got.shape} != {tuple(expected.shape)}"
    assert got.dtype.name == name_of(expected.dtype), (
        f"{what}: dtype {got.dtype.name} != {name_of(expected.dtype)}")
    assert_close(as_numpy(got), as_numpy(expected), got.dtype.name, what, scale=scale)


def assert_close(got: np.ndarray, expected: np.ndarray, dtype_name: str,
                 what: str, *, scale: float = 1.0) -> None:
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=what)
        return
    rtol, atol = tolerance(dtype_name)
    magnitude = float(np.max(np.abs(expected[np.isfinite(expected)]), initial=1.0))
    np.testing.assert_allclose(got, expected, rtol=rtol * scale,
                               atol=atol * scale * max(magnitude, 1.0),
                               equal_nan=True, err_msg=what)


def assert_same(got: Any, expected: Any, what: str = "result") -> None:
    """Any result: arrays, (named) tuples and lists of them, or Python values."""
    if isinstance(expected, xs._array_object.Array):
        assert_same_array(got, expected, what)
    elif isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) or (
            hasattr(expected, "_fields") and got._fields == expected._fields), (
            f"{what}: {type(got).__name__} != {type(expected).__name__}")
        assert len(got) == len(expected), f"{what}: {len(got)} != {len(expected)} items"
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_same(g, e, f"{what}[{i}]")
    elif isinstance(expected, xs._dtypes.DType):
        assert isinstance(got, ut.DType), f"{what}: {got} != {expected}"
        assert got.name == name_of(expected), f"{what}: {got} != {expected}"
    elif isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float), what
        assert math.isnan(got), what
    else:
        assert got == expected, f"{what}: {got!r} != {expected!r}"


def run(case: Case, data: Any) -> None:
    args, kwargs = case.draw(data)
    expected, got = call(case, args, kwargs)
    if isinstance(expected, Exception):
        return  # an input the oracle refuses is outside the standard
    if case.compare is not None:
        case.compare(got, expected, args)
    else:
        assert_same(got, expected, case.name)


# -- recipes shared by the group modules ---------------------------------------------
def unary(name: str, kind: str, *, small: bool = False, min_dims: int = 0) -> Case:
    def draw(data: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        x = array(data, data.draw(dtypes(kind)), small=small, min_dims=min_dims)
        return (x,), {}
    return Case(name, draw)


def binary(name: str, kind: str, *, nonzero: bool = False, small: bool = False,
           shift: bool = False) -> Case:
    """Two arrays of one dtype and broadcastable shapes (promotion across dtypes
    is checked by the data type functions and test_array_object's mixed cases)."""
    def draw(data: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        dtype = data.draw(dtypes(kind))
        shapes = data.draw(xps.mutually_broadcastable_shapes(2, max_side=4))
        x1 = array(data, dtype, shapes.input_shapes[0], small=small)
        if shift:  # shifts by a negative or too large amount are undefined
            bits = 8 * {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
                        "int32": 4, "uint32": 4}.get(name_of(dtype), 8)
            x2 = data.draw(xps.arrays(dtype, shapes.input_shapes[1], elements={
                "min_value": 0, "max_value": bits - 1}))
        else:
            x2 = array(data, dtype, shapes.input_shapes[1], small=small)
        if nonzero and name_of(dtype) != "bool":
            x2 = xs.where(x2 == 0, xs.ones_like(x2), x2)
        return (x1, x2), {}
    return Case(name, draw)


def reduction(name: str, kind: str, *, keepdims: bool = True,
              extra: dict[str, st.SearchStrategy[Any]] | None = None,
              min_side: int = 0, max_side: int = 4) -> Case:
    def draw(data: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        x = array(data, data.draw(dtypes(kind)), min_side=min_side,
                  max_side=max_side)
        kwargs: dict[str, Any] = {}
        axis = data.draw(st.none() | xps.valid_tuple_axes(x.ndim) if x.ndim else
                         st.none())
        if axis is not None:
            kwargs["axis"] = axis
        if keepdims and data.draw(st.booleans()):
            kwargs["keepdims"] = True
        for key, strategy in (extra or {}).items():
            value = data.draw(strategy)
            if value is not None:
                kwargs[key] = value
        return (x,), kwargs
    return Case(name, draw)


def covered(modules: list[Any]) -> set[str]:
    """The standard's function names the given test modules' CASES exercise."""
    return {case.name for m in modules for case in m.CASES}
