"""Manipulation functions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import unitensor as ut

from .harness import Case, array, dtypes, run, to_subject, xps


def _x(data, min_dims=0, min_side=0):
    return array(data, data.draw(dtypes("any")), min_dims=min_dims, min_side=min_side)


def _axis(data, ndim, extra=0):
    return data.draw(st.integers(-(ndim + extra), ndim + extra - 1))


def _broadcast_arrays(data):
    dtype = data.draw(dtypes("any"))
    shapes = data.draw(xps.mutually_broadcastable_shapes(
        data.draw(st.integers(1, 3)), max_side=3))
    return tuple(array(data, dtype, s) for s in shapes.input_shapes), {}


def _broadcast_shapes(data):
    """One to four shapes that broadcast (a tuple of ints, the result; no shapes,
    and shapes that do not broadcast: test_broadcast_shapes_refuses_...)."""
    shapes = data.draw(xps.mutually_broadcastable_shapes(
        data.draw(st.integers(1, 4)), max_side=4)).input_shapes
    return tuple(shapes), {}


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
    """An axis, or (2025.12) a tuple of distinct positions in the result."""
    x = _x(data)
    if data.draw(st.booleans()):
        return (x,), {"axis": _axis(data, x.ndim, extra=1)}
    count = data.draw(st.integers(0, 3))
    ndim = x.ndim + count
    positions = data.draw(st.lists(st.integers(0, ndim - 1), min_size=count,
                                   max_size=count, unique=True)) if ndim else []
    axis = tuple(p - ndim if data.draw(st.booleans()) else p for p in positions)
    return (x,), {"axis": axis}


def _flip(data):
    x = _x(data)
    axis = data.draw(st.none() | xps.valid_tuple_axes(x.ndim)) if x.ndim else None
    return (x,), ({} if axis is None else {"axis": axis})


def _moveaxis(data):
    x = _x(data, min_dims=1)
    return (x, _axis(data, x.ndim), _axis(data, x.ndim)), {}


def _permute_dims(data):
    """A permutation of the axes, some counted from the end (2025.12)."""
    x = _x(data)
    axes = data.draw(st.permutations(range(x.ndim)))
    return (x, tuple(a - x.ndim if data.draw(st.booleans()) else a for a in axes)), {}


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
    Case("broadcast_arrays", _broadcast_arrays),
    Case("broadcast_shapes", _broadcast_shapes), Case("broadcast_to", _broadcast_to),
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


@given(data=st.data())
def test_expand_dims_refuses_bad_axes_with_index_error(data):
    """The standard's IndexError for an axis outside [-M, M) (M: the result's
    dimensions) or two axes at one position, on every owner (jax and numpy raise
    ValueError, torch IndexError or ValueError)."""
    x = to_subject(_x(data))
    if data.draw(st.booleans()):
        axis = data.draw(st.integers(x.ndim + 1, x.ndim + 4) |
                         st.integers(-x.ndim - 5, -x.ndim - 2))
    else:
        axis = (0, -(x.ndim + 2))  # both at position 0 of x.ndim + 2 dimensions
    with pytest.raises(IndexError, match="expand_dims"):
        ut.expand_dims(x, axis=axis)


def test_broadcast_shapes_refuses_shapes_that_do_not_broadcast():
    assert ut.broadcast_shapes() == ()
    assert ut.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    with pytest.raises(ValueError, match=r"broadcast_shapes\(\): shapes: .* \(2,\) "
                       r"and \(3,\)"):
        ut.broadcast_shapes((2,), (3,))
    with pytest.raises(TypeError, match=r"shapes\[0\]"):
        ut.broadcast_shapes([2, 3])
