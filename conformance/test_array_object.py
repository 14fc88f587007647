"""The array object: operators (plain, reflected, in-place), indexing, conversions,
attributes and methods, against array-api-strict's Array."""

from __future__ import annotations

import operator

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import unitensor as ut

from .harness import (
    OWNER,
    RESULT_OWNER,
    array,
    assert_same,
    dtype_names,
    dtypes,
    name_of,
    to_subject,
    xps,
)

# operator -> the dtype kind it takes (and whether its right operand may be 0)
_OPERATORS = {
    "add": "numeric", "sub": "numeric", "mul": "numeric", "truediv": "floating",
    "floordiv": "real", "mod": "real", "pow": "floating", "and": "integral",
    "or": "integral", "xor": "integral", "lshift": "integral",
    "rshift": "integral", "lt": "real", "le": "real", "gt": "real",
    "ge": "real", "eq": "any", "ne": "any",
}
_NO_ZERO = {"floordiv", "mod"}
_NO_INPLACE = {"lt", "le", "gt", "ge", "eq", "ne"}


def _operands(data, op):
    dtype = data.draw(dtypes(_OPERATORS[op]))
    shapes = data.draw(xps.mutually_broadcastable_shapes(2, max_side=3)).input_shapes
    x1 = array(data, dtype, shapes[0], small=True)
    x2 = array(data, dtype, shapes[1], small=True)
    if op in ("lshift", "rshift"):
        x2 = xs.abs(x2) % xs.asarray(4, dtype=dtype)
    if op in _NO_ZERO:
        x2 = xs.where(x2 == 0, xs.ones_like(x2), x2)
    return x1, x2


@pytest.mark.parametrize("op", list(_OPERATORS))
@given(data=st.data())
def test_operator(op, data):
    x1, x2 = _operands(data, op)
    func = getattr(operator, op if op not in ("and", "or") else f"{op}_")
    assert_same(func(to_subject(x1), to_subject(x2)), func(x1, x2), f"__{op}__")


@pytest.mark.parametrize("op", list(_OPERATORS))
@given(data=st.data())
def test_operator_with_python_scalar(op, data):
    x1, _x2 = _operands(data, op)
    kind = name_of(x1.dtype)
    scalar = data.draw(st.booleans() if kind == "bool" else
                       st.integers(1, 3) if "int" in kind else
                       st.floats(0.5, 3.0))
    func = getattr(operator, op if op not in ("and", "or") else f"{op}_")
    subject = to_subject(x1)
    assert_same(func(subject, scalar), func(x1, scalar), f"__{op}__(x, s)")
    if op not in _NO_INPLACE and not (op in ("lshift", "rshift", "pow") or
                                      op in _NO_ZERO):
        assert_same(func(scalar, subject), func(scalar, x1), f"__r{op}__")


@pytest.mark.parametrize("op", [o for o in _OPERATORS if o not in _NO_INPLACE])
@given(data=st.data())
def test_inplace_operator(op, data):
    x1, x2 = _operands(data, op)
    if tuple(np.broadcast_shapes(x1.shape, x2.shape)) != x1.shape:
        x2 = x2[(0,) * x2.ndim] if x2.ndim else x2  # the result must keep x1's shape
    name = f"__i{op}__"
    subject = to_subject(x1)
    expected = getattr(x1, name)(x2)
    got = getattr(operator, f"i{op}")(subject, to_subject(x2))
    assert got is subject
    assert_same(got, expected, name)


@pytest.mark.parametrize("op", ["neg", "pos", "abs", "invert"])
@given(data=st.data())
def test_unary_operator(op, data):
    x = array(data, data.draw(dtypes("integral" if op == "invert" else "numeric")),
              small=True)
    assert_same(getattr(operator, op)(to_subject(x)), getattr(operator, op)(x),
                f"__{op}__")


def _basic_index(data, shape, newaxis=True):
    key = [data.draw(
        st.integers(-n, n - 1) if n else st.just(slice(None))
        | st.builds(slice, st.none() | st.integers(-n, n),
                    st.none() | st.integers(-n, n),
                    st.none() | st.sampled_from([1, 2, -1, -2])))
        for n in shape]
    if newaxis and key and data.draw(st.booleans()):
        key.insert(data.draw(st.integers(0, len(key))), None)
    return tuple(key)


@given(data=st.data())
def test_getitem_basic(data):
    x = array(data, data.draw(dtypes("any")))
    key = _basic_index(data, x.shape)
    assert_same(to_subject(x)[key], x[key], f"x[{key}]")
    if x.ndim and x.shape[-1]:
        assert_same(to_subject(x)[..., 0:1], x[..., 0:1], "x[..., 0:1]")


@given(data=st.data())
def test_getitem_boolean_mask(data):
    x = array(data, data.draw(dtypes("any")), min_dims=1)
    mask = array(data, xs.bool, x.shape)
    assert_same(to_subject(x)[to_subject(mask)], x[mask], "x[mask]")


@given(data=st.data())
def test_getitem_integer_arrays(data):
    x = array(data, data.draw(dtypes("any")), min_dims=1, min_side=1)
    indices = tuple(
        data.draw(xps.arrays(xs.int64, (3,), elements={"min_value": -n,
                                                      "max_value": n - 1}))
        for n in x.shape)
    assert_same(to_subject(x)[to_subject(indices)], x[indices], "x[int arrays]")


@given(data=st.data())
def test_setitem(data):
    x = array(data, data.draw(dtypes("real")), min_dims=1, min_side=1, small=True)
    subject = to_subject(x)
    key = _basic_index(data, x.shape, newaxis=False)
    mask = array(data, xs.bool, x.shape)
    value = data.draw(st.integers(0, 5))
    x[key] = value
    subject[key] = value
    if bool(xs.any(mask)):  # a 0-d array value, through a boolean mask
        fill = x[mask][0]
        x[mask] = fill
        subject[to_subject(mask)] = to_subject(fill)
    assert_same(subject, x, "x after x[key] = v")
    assert subject.owner == OWNER


@given(data=st.data())
def test_setitem_promotes_array_values(data):
    """x[key] = value with an array value of another dtype (2025.12): promoted to
    x's dtype where the standard's table promotes it there (int8 into int32,
    float32 into complex128), through basic keys and boolean masks."""
    x = array(data, data.draw(dtypes("numeric")), min_dims=1, min_side=1, small=True)
    lower = [n for n in dtype_names("numeric") if n != name_of(x.dtype)
             and _promotes_to(getattr(xs, n), x.dtype)]
    assume(lower)
    dtype = getattr(xs, data.draw(st.sampled_from(lower)))
    subject = to_subject(x)
    key = _basic_index(data, x.shape, newaxis=False)
    value = array(data, dtype, x[key].shape, small=True)
    x[key] = value
    subject[key] = to_subject(value)
    mask = array(data, xs.bool, x.shape)
    fill = array(data, dtype, (), small=True)
    x[mask] = fill
    subject[to_subject(mask)] = to_subject(fill)
    assert_same(subject, x, "x after x[key] = value of another dtype")
    assert subject.owner == OWNER


def _promotes_to(dtype, target):
    try:
        return bool(xs.result_type(dtype, target) == target)
    except TypeError:
        return False


def test_setitem_refuses_values_that_do_not_promote_to_its_dtype():
    """A value the table does not promote to x's dtype (unspecified): a TypeError
    naming it on every owner, as the in-place operators refuse it."""
    x = ut.asarray([1, 2, 3], dtype=ut.int8)
    for value in (ut.asarray([1.5]), ut.asarray([300], dtype=ut.int16)):
        with pytest.raises(TypeError, match=r"__setitem__\(\): value: .* int8"):
            x[:1] = value
    assert x.owner == OWNER
    assert [int(v) for v in x] == [1, 2, 3]


@given(data=st.data())
def test_python_conversions_and_attributes(data):
    x = array(data, data.draw(dtypes("real")), small=True)
    subject = to_subject(x)
    if x.ndim == 0:
        assert bool(subject) == bool(x)
        assert float(subject) == float(x)
        assert complex(subject) == complex(x)
        if "int" in name_of(x.dtype):
            assert int(subject) == int(x)
            assert operator.index(subject) == int(x)
    assert subject.ndim == x.ndim
    assert subject.shape == x.shape
    assert subject.size == x.size
    assert subject.dtype.name == name_of(x.dtype)
    assert subject.device == ut.Device("cpu")
    if x.ndim >= 2:
        assert_same(subject.mT, x.mT, "mT")
    if x.ndim == 2:
        assert_same(subject.T, x.T, "T")
    assert subject.__array_namespace__() is ut
    assert subject.to_device(subject.device).owner in (OWNER, RESULT_OWNER)
    np.testing.assert_array_equal(np.from_dlpack(subject), np.from_dlpack(x))
