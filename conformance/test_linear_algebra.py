"""Linear algebra functions of the main namespace."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, run, unary


def _matmul(data):
    dtype = data.draw(dtypes("numeric"))
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    batch = data.draw(st.sampled_from([(), (2,)]))
    left = (k,) if data.draw(st.booleans()) and not batch else (*batch, n, k)
    return (array(data, dtype, left, small=True),
            array(data, dtype, (*batch, k, m), small=True)), {}


def _tensordot(data):
    dtype = data.draw(dtypes("numeric"))
    a, b, c = (data.draw(st.integers(1, 3)) for _ in range(3))
    x1 = array(data, dtype, (a, b, c), small=True)
    if data.draw(st.booleans()):
        return (x1, array(data, dtype, (b, c, 2), small=True)), {}
    return (x1, array(data, dtype, (c, a), small=True)), {"axes": ((2, 0), (0, 1))}


def _vecdot(data):
    dtype = data.draw(dtypes("numeric"))
    shape = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4)))
    axis = data.draw(st.sampled_from([-1, -2, 0, 1]))
    return (array(data, dtype, shape, small=True),
            array(data, dtype, shape, small=True)), {"axis": axis}


CASES = [Case("matmul", _matmul), unary("matrix_transpose", "any", min_dims=2),
         Case("tensordot", _tensordot), Case("vecdot", _vecdot)]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_linear_algebra(case, data):
    run(case, data)
