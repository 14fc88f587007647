"""Indexing functions: take and take_along_axis."""

from __future__ import annotations

import array_api_strict as xs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, run, xps


def _take(data):
    x = array(data, data.draw(dtypes("numeric")), min_dims=1, min_side=1)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    size = x.shape[axis]
    indices = xs.asarray(data.draw(st.lists(st.integers(0, size - 1), max_size=5)),
                         dtype=xs.int64)
    kwargs = {"axis": axis} if x.ndim > 1 or data.draw(st.booleans()) else {}
    return (x, indices), kwargs


def _take_along_axis(data):
    x = array(data, data.draw(dtypes("numeric")), min_dims=1, min_side=1)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    shape = list(x.shape)
    shape[axis] = data.draw(st.integers(0, 4))
    indices = data.draw(xps.arrays(
        xs.int64, tuple(shape), elements={"min_value": 0,
                                          "max_value": x.shape[axis] - 1}))
    return (x, indices), {"axis": axis}


CASES = [Case("take", _take), Case("take_along_axis", _take_along_axis)]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_indexing(case, data):
    run(case, data)
