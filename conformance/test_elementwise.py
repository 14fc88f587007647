"""Elementwise functions: every one of the standard's 67, by input dtype kind."""

from __future__ import annotations

import array_api_strict as xs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, binary, dtypes, name_of, run, unary

_UNARY = {
    "abs": "numeric", "acos": "floating", "acosh": "floating", "asin": "floating",
    "asinh": "floating", "atan": "floating", "atanh": "floating",
    "bitwise_invert": "integral", "ceil": "real", "conj": "numeric",
    "cos": "floating", "cosh": "floating", "exp": "floating", "expm1": "floating",
    "floor": "real", "imag": "complex floating", "isfinite": "numeric",
    "isinf": "numeric", "isnan": "numeric", "log": "floating", "log1p": "floating",
    "log2": "floating", "log10": "floating", "logical_not": "bool",
    "negative": "numeric", "positive": "numeric", "real": "numeric",
    "reciprocal": "floating", "round": "numeric", "sign": "numeric",
    "signbit": "real floating", "sin": "floating", "sinh": "floating",
    "square": "numeric", "sqrt": "floating", "tan": "floating", "tanh": "floating",
    "trunc": "real",
}
# Kept small: near float32's overflow, frameworks legitimately differ (inf or max).
_SMALL = {"cos", "cosh", "exp", "expm1", "sin", "sinh", "square", "tan", "tanh"}
_BINARY = {
    "add": "numeric", "atan2": "real floating", "bitwise_and": "integral",
    "bitwise_or": "integral", "bitwise_xor": "integral", "copysign": "real floating",
    "divide": "floating", "equal": "any", "greater": "real",
    "greater_equal": "real", "hypot": "real floating", "less": "real",
    "less_equal": "real", "logaddexp": "real floating", "logical_and": "bool",
    "logical_or": "bool", "logical_xor": "bool", "maximum": "real",
    "minimum": "real", "multiply": "numeric", "nextafter": "real floating",
    "not_equal": "any", "subtract": "numeric",
}


def _clip() -> Case:
    """Bounds: Python ints (on every real dtype: 2025.12's scalar promotion, an int
    for a float array included), Python floats for float arrays, or arrays of x's
    dtype; the upper bound not below the lower (unspecified)."""
    def draw(data):
        dtype = data.draw(dtypes("real"))
        x = array(data, dtype)
        least = 0 if name_of(dtype).startswith("uint") else -8  # representable
        bound = st.none() | st.integers(least, 8)
        if name_of(dtype).startswith("float"):
            bound |= st.floats(-8, 8, width=32)
        if data.draw(st.booleans()):  # arrays of x's dtype, broadcasting with x
            low = array(data, dtype, x.shape[data.draw(st.integers(0, x.ndim)):],
                        small=True)
            high = low + xs.asarray(data.draw(st.integers(0, 3)), dtype=dtype)
            return (x,), {"min": low, "max": high}
        low, high = (data.draw(bound) for _ in range(2))
        if low is not None and high is not None and low > high:
            low, high = high, low
        return (x,), {k: v for k, v in (("min", low), ("max", high)) if v is not None}
    return Case("clip", draw)


CASES = [
    *(unary(name, kind, small=name in _SMALL) for name, kind in _UNARY.items()),
    *(binary(name, kind) for name, kind in _BINARY.items()),
    binary("floor_divide", "real", nonzero=True),
    binary("remainder", "real", nonzero=True),
    binary("pow", "floating", small=True),
    binary("bitwise_left_shift", "integral", shift=True, small=True),
    binary("bitwise_right_shift", "integral", shift=True),
    _clip(),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_elementwise(case, data):
    run(case, data)
