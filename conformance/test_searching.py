"""Searching functions."""

from __future__ import annotations

import array_api_strict as xs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, name_of, reduction, run, xps


def _arg(name: str):
    def draw(data):
        x = array(data, data.draw(dtypes("real")), min_dims=1, min_side=1)
        kwargs = {}
        if data.draw(st.booleans()):
            kwargs["axis"] = data.draw(st.integers(-x.ndim, x.ndim - 1))
            kwargs["keepdims"] = data.draw(st.booleans())
        return (x,), kwargs
    return Case(name, draw)


def _nonzero(data):
    return (array(data, data.draw(dtypes("any")), min_dims=1),), {}


def _searchsorted(data):
    """x2 an array, or (2025.12) a Python scalar: an int for any real x1, a float
    for a floating one."""
    dtype = data.draw(dtypes("real"))
    x1 = xs.sort(array(data, dtype, (data.draw(st.integers(0, 5)),)))
    kwargs = {"side": data.draw(st.sampled_from(["left", "right"]))}
    scalars = st.integers(0, 8)
    if "float" in name_of(dtype):
        scalars |= st.floats(-8, 8, width=32)
    x2 = data.draw(st.just(None) | scalars)
    return (x1, array(data, dtype) if x2 is None else x2), kwargs


def _where(data):
    dtype = data.draw(dtypes("any"))
    shapes = data.draw(xps.mutually_broadcastable_shapes(3, max_side=3)).input_shapes
    return (array(data, xs.bool, shapes[0]), array(data, dtype, shapes[1]),
            array(data, dtype, shapes[2])), {}


CASES = [_arg("argmax"), _arg("argmin"), reduction("count_nonzero", "any"),
         Case("nonzero", _nonzero), Case("searchsorted", _searchsorted),
         Case("where", _where)]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_searching(case, data):
    run(case, data)
