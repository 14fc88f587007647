"""Manipulation functions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import Case, array, dtypes, run, xps


def _x(data, min_dims=0, min_side=0):
    return array(data, data.draw(dtypes("any")), min_dims=min_dims, min_side=min_side)


def _axis(data, ndim, extra=0):
    return data.draw(st.integers(-(ndim + extra), ndim + extra - 1))


def _broadcast_arrays(data):
    dtype = data.draw(dtypes("any"))
    shapes = data.draw(xps.mutually_broadcastable_shapes(
        data.draw(st.integers(1, 3)), max_side=3))
    return tuple(array(data, dtype, s) for s in shapes.input_shapes), {}


def _broadcast_to(data):
    x = _x(data)
    prefix = data.draw(xps.array_shapes(min_dims=0, max_dims=2, max_side=3))
    stretched = tuple(data.draw(st.integers(1, 3)) if n == 1 else n for n in x.shape)
    return (x, (*prefix, *stretched)), {}


def _concat(data):
    dtype = data.draw(dtypes("any"))
    base = list(data.draw(xps.array_shapes(min_dims=1, max_dims=3, max_side=3)))
    axis = data.draw(st.integers(-len(base), len(base) - 1))
    arrays = []
    for _ in range(data.draw(st.integers(1, 3))):
        base[axis] = data.draw(st.integers(0, 3))
        arrays.append(array(data, dtype, tuple(base)))
    return (arrays,), {"axis": data.draw(st.none() | st.just(axis))}


def _expand_dims(data):
    x = _x(data)
    return (x,), {"axis": _axis(data, x.ndim, extra=1)}


def _flip(data):
    x = _x(data)
    axis = data.draw(st.none() | xps.valid_tuple_axes(x.ndim)) if x.ndim else None
    return (x,), ({} if axis is None else {"axis": axis})


def _moveaxis(data):
    x = _x(data, min_dims=1)
    return (x, _axis(data, x.ndim), _axis(data, x.ndim)), {}


def _permute_dims(data):
    x = _x(data)
    return (x, tuple(data.draw(st.permutations(range(x.ndim))))), {}


def _repeat(data):
    x = _x(data, min_dims=1)
    if data.draw(st.booleans()):
        return (x, data.draw(st.integers(0, 3))), {}
    axis = _axis(data, x.ndim)
    return (x, data.draw(st.integers(0, 3))), {"axis": axis}


def _reshape(data):
    x = _x(data)
    size = math.prod(x.shape)
    shape = data.draw(st.sampled_from([(size,), (1, size), (size, 1), (-1,)]))
    return (x, shape), {}


def _roll(data):
    x = _x(data, min_dims=1)
    if data.draw(st.booleans()):
        return (x, data.draw(st.integers(-5, 5))), {}
    return (x, data.draw(st.integers(-5, 5))), {"axis": _axis(data, x.ndim)}


def _squeeze(data):
    x = _x(data)
    ones = [i for i, n in enumerate(x.shape) if n == 1]
    if not ones:
        x = array(data, x.dtype, (*x.shape, 1))
        ones = [x.ndim - 1]
    return (x,), {"axis": data.draw(st.sampled_from(ones))}


def _stack(data):
    dtype = data.draw(dtypes("any"))
    shape = data.draw(xps.array_shapes(min_dims=0, max_dims=2, max_side=3))
    arrays = [array(data, dtype, shape) for _ in range(data.draw(st.integers(1, 3)))]
    return (arrays,), {"axis": _axis(data, len(shape) + 1)}


def _tile(data):
    x = _x(data)
    return (x, tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))), {}


def _unstack(data):
    x = _x(data, min_dims=1)
    return (x,), {"axis": _axis(data, x.ndim)}


CASES = [
    Case("broadcast_arrays", _broadcast_arrays), Case("broadcast_to", _broadcast_to),
    Case("concat", _concat), Case("expand_dims", _expand_dims), Case("flip", _flip),
    Case("moveaxis", _moveaxis), Case("permute_dims", _permute_dims),
    Case("repeat", _repeat), Case("reshape", _reshape), Case("roll", _roll),
    Case("squeeze", _squeeze), Case("stack", _stack), Case("tile", _tile),
    Case("unstack", _unstack),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_manipulation(case, data):
    run(case, data)
