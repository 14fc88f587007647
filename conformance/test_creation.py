"""Creation functions: made by the owner (the default owner, or the owner of x)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import unitensor as ut

from .harness import OWNER, Case, array, assert_same, dtypes, name_of, run, xps, xs

_SHAPES = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def _with_dtype(kind: str = "numeric"):
    return lambda data: {"dtype": data.draw(dtypes(kind))}


def _shape_only(got, expected, args):
    """``empty``: the values are undefined; type, owner, shape and dtype are not."""
    assert type(got) is ut.Tensor
    assert got.owner == OWNER
    assert got.shape == tuple(expected.shape)
    assert got.dtype.name == name_of(expected.dtype)


def _arange(data):
    start = data.draw(st.integers(-10, 10))
    stop = data.draw(st.none() | st.integers(-10, 10))
    step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
    args = (start,) if stop is None else (start, stop, step)
    kwargs = _with_dtype("real")(data)
    # Elements an integer dtype cannot hold (-1 in uint8) are not the standard's:
    # frameworks wrap them, unitensor refuses them (tests/test_dispatch.py).
    elements = range(*args)
    if elements and xs.isdtype(kwargs["dtype"], "integral"):
        info = xs.iinfo(kwargs["dtype"])
        assume(info.min <= min(elements[0], elements[-1]) and
               max(elements[0], elements[-1]) <= info.max)
    return args, kwargs


def _asarray(data):
    x = array(data, data.draw(dtypes("numeric")), max_dims=2)
    values = [complex(v) if "complex" in name_of(x.dtype) else v
              for v in __import__("numpy").from_dlpack(x).reshape(-1).tolist()]
    return (values,), {"dtype": x.dtype}


def _shape_creation(name: str, fill: bool = False):
    def draw(data):
        shape = data.draw(_SHAPES)
        dtype = data.draw(dtypes("real"))
        args = (shape, data.draw(st.integers(0, 8))) if fill else (shape,)
        return args, {"dtype": dtype}
    return Case(name, draw, _shape_only if name == "empty" else None)


def _like(name: str, fill: bool = False):
    def draw(data):
        x = array(data, data.draw(dtypes("real")))
        kwargs = {}
        if data.draw(st.booleans()):
            kwargs["dtype"] = data.draw(dtypes("real"))
        return ((x, data.draw(st.integers(0, 8))) if fill else (x,)), kwargs
    return Case(name, draw, _shape_only if name == "empty_like" else None)


def _eye(data):
    n_rows = data.draw(st.integers(0, 5))
    n_cols = data.draw(st.none() | st.integers(0, 5))
    return (n_rows, n_cols), {"k": data.draw(st.integers(-3, 3)),
                              "dtype": data.draw(dtypes("real"))}


def _linspace(data):
    start, stop = data.draw(st.integers(-10, 10)), data.draw(st.integers(-10, 10))
    return (start, stop, data.draw(st.integers(0, 6))), {
        "dtype": data.draw(dtypes("real floating")),
        "endpoint": data.draw(st.booleans())}


def _meshgrid(data):
    dtype = data.draw(dtypes("numeric"))
    arrays = [array(data, dtype, (data.draw(st.integers(1, 3)),))
              for _ in range(data.draw(st.integers(1, 3)))]
    return tuple(arrays), {"indexing": data.draw(st.sampled_from(["xy", "ij"]))}


def _triangle(name: str):
    def draw(data):
        return (array(data, data.draw(dtypes("numeric")), min_dims=2),), {
            "k": data.draw(st.integers(-2, 2))}
    return Case(name, draw)


def _from_dlpack(data):
    return (array(data, data.draw(dtypes("numeric"))),), {}


CASES = [
    Case("arange", _arange), Case("asarray", _asarray),
    _shape_creation("empty"), _like("empty_like"), Case("eye", _eye),
    Case("from_dlpack", _from_dlpack), _shape_creation("full", fill=True),
    _like("full_like", fill=True), Case("linspace", _linspace),
    Case("meshgrid", _meshgrid), _shape_creation("ones"), _like("ones_like"),
    _triangle("tril"), _triangle("triu"), _shape_creation("zeros"), _like("zeros_like"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_creation(case, data):
    run(case, data)


def test_default_dtypes_are_the_owners():
    info = ut.__array_namespace_info__()
    defaults = info.default_dtypes()
    assert ut.zeros((2,)).dtype is defaults["real floating"]
    assert ut.arange(3).dtype is defaults["integral"]
    assert ut.asarray(1j).dtype is defaults["complex floating"]
    assert ut.ones((1,)).owner == OWNER
    assert_same(ut.full((2,), True).dtype, ut.bool)
