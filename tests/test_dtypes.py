"""Data types (unitensor/_dtypes.py and _data_type_functions.py): the standard's
promotion table, casting rules, ``isdtype``, ``finfo`` and ``iinfo``."""

from __future__ import annotations

import numpy as np
import pytest
from owners import COMPUTING, LAZY

import unitensor as ut


def test_promotion_follows_the_standard_table():
    assert ut.result_type(ut.int8, ut.uint8) is ut.int16
    assert ut.result_type(ut.uint16, ut.int32) is ut.int32
    assert ut.result_type(ut.uint32, ut.int8) is ut.int64
    assert ut.result_type(ut.float32, ut.complex64, ut.float64) is ut.complex128
    assert ut.result_type(ut.asarray(np.ones(2, dtype=np.int8)), 1) is ut.int8
    assert ut.result_type(ut.float32, 1j) is ut.complex64
    with pytest.raises(TypeError, match=r"uint64 and int64|int64 and uint64"):
        ut.result_type(ut.int64, ut.uint64)
    assert not ut.can_cast(ut.int32, ut.float32)  # the standard's table only
    assert ut.can_cast(ut.int8, ut.int16)
    assert not ut.can_cast(ut.int16, ut.int8)
    assert not ut.can_cast(ut.bool, ut.int8)
    assert ut.isdtype(ut.uint8, "integral")
    assert ut.isdtype(ut.float32, ("bool", ut.float32))
    with pytest.raises(ValueError, match="kind"):
        ut.isdtype(ut.int8, "integer")


def test_finfo_iinfo_accept_tensors_and_dtypes():
    x = ut.asarray(np.ones(2, dtype=np.float32))
    assert ut.finfo(x).eps == pytest.approx(1.1920929e-07)
    assert ut.finfo(ut.complex128).dtype is ut.float64
    assert ut.iinfo(ut.uint16).max == 65535
    assert ut.iinfo(ut.int8).min == -128
    with pytest.raises(TypeError, match="finfo"):
        ut.finfo(ut.int32)


def test_python_ints_must_fit_an_integer_dtype():
    assert ut.result_type(ut.int8, 127) is ut.int8
    assert ut.result_type(ut.int8, -128) is ut.int8
    assert ut.result_type(ut.uint64, 2**64 - 1) is ut.uint64
    assert ut.result_type(ut.float16, 2**100) is ut.float16  # float dtypes take any int
    with pytest.raises(OverflowError, match=r"^result_type\(\): arrays_and_dtypes: "
                       r"expected a Python int within int8's range \[-128, 127\], got "
                       r"128 of type 'int'$"):
        ut.result_type(ut.int8, 128)
    with pytest.raises(OverflowError, match=r"uint16's range \[0, 65535\], got -1 "):
        ut.result_type(ut.asarray(np.ones(2, dtype=np.uint16)), -1)
    with pytest.raises(OverflowError, match=r"int64's range \[-9223372036854775808, "
                       r"9223372036854775807\], got 9223372036854775808 "):
        ut.result_type(ut.int64, 2**63)


# -- one rule where the standard is silent, the same on every owner -------------
# (docs/namespace.md, "Where the standard is silent"). Each test runs the same
# program on every owner and compares with the numpy owner's values.
OWNERS = [*COMPUTING, *LAZY]


@pytest.fixture(params=OWNERS)
def owner(request):
    if request.param == "jax":
        request.getfixturevalue("x64")  # the float64 of the rules below
    return request.param


def _on(owner, values, dtype):
    return ut.asarray(np.asarray(values, dtype=dtype)).to(owner, copy=True)


def _values(t):
    return t.numpy(copy=True).tolist()


def test_numpy_float64_and_complex128_scalars_are_weak_python_scalars(owner):
    def program(o):
        x = _on(o, [1.0, 2.0, 3.0], np.float32)
        out = [x + np.float64(1.5), np.float64(2.0) * x, x * np.complex128(1j)]
        x[x > 1.5] = np.float64(0.0)  # scikit-learn's f1/precision/recall write
        x += np.float64(0.25)
        out.append(x)
        return out

    got, want = program(owner), program("numpy")
    assert [t.dtype for t in got] == [ut.float32, ut.float32, ut.complex64,
                                      ut.float32]
    assert [t.owner for t in got] == [owner] * 4
    assert [_values(t) for t in got] == [_values(t) for t in want]


def test_mixed_kinds_promote_to_the_higher_kind_on_every_owner(owner):
    assert ut.result_type(ut.int32, ut.float32) is ut.float32
    assert ut.result_type(ut.int64, ut.float16) is ut.float16
    assert ut.result_type(ut.uint8, ut.complex64) is ut.complex64
    assert ut.result_type(ut.bool, ut.int8) is ut.int8

    def program(o):
        i = _on(o, [[1, 2], [3, 4]], np.int32)
        f = _on(o, [[0.5, 1.5], [2.5, 16777217.0]], np.float32)
        b = _on(o, [[True, False], [False, True]], np.bool_)
        out = [i * f, f - i, ut.matmul(i, f), ut.where(b, i, f),
               ut.concat([i, f]), ut.add(b, _on(o, [[1, 2], [3, 4]], np.int8)),
               i < f, ut.tensordot(f, i, axes=1)]
        g = ut.asarray(f, copy=True)
        g += i  # float32 += int32: keeps float32
        out.append(g)
        return out

    got, want = program(owner), program("numpy")
    assert [t.dtype for t in got] == [ut.float32] * 5 + [ut.int8, ut.bool] + [
        ut.float32] * 2
    assert [t.owner for t in got] == [owner] * len(got)
    assert [_values(t) for t in got] == [_values(t) for t in want]
    i = _on(owner, [1, 2], np.int32)
    with pytest.raises(TypeError):  # int32 += float32 would change the dtype
        i += _on(owner, [0.5, 0.5], np.float32)


def test_a_python_scalar_of_a_higher_kind_is_the_default_dtype_of_its_kind(owner):
    # int32_x * 0.5: numpy float64, torch its float32, TF and array_api_strict
    # refused; one rule: the scalar is a 0-D array of the default dtype of its
    # kind (float64 on the CPU), then mixed kinds promote (docs/namespace.md)
    def program(o):
        i = _on(o, [1, 2, 3], np.int32)
        u = _on(o, [1, 2, 200], np.uint8)
        b = _on(o, [True, False, True], np.bool_)
        return [i * 0.5, 1.5 + i, ut.multiply(i, 0.25), i ** 0.5, u - 1.5,
                i * 0.5j, b * 0.5, b + 1, 2 - b, ut.where(b, i, 0.5),
                i < 1.5, 2.0 == i, ut.maximum(i, 2.5)]

    got, want = program(owner), program("numpy")
    assert [t.dtype for t in got] == [ut.float64] * 5 + [ut.complex128, ut.float64,
                                      ut.int64, ut.int64, ut.float64, ut.bool,
                                      ut.bool, ut.float64]
    assert [t.owner for t in got] == [owner] * len(got)
    assert [_values(t) for t in got] == [_values(t) for t in want]
    i = _on(owner, [1, 2, 3], np.int32)
    assert ut.result_type(i, 0.5) is ut.float64
    assert ut.result_type(ut.int8, 1j) is ut.complex128
    assert ut.result_type(ut.bool, 1) is ut.int64
    assert ut.result_type(ut.float32, 1.5, 1j) is ut.complex64  # the standard's
    with pytest.raises(TypeError):  # in place, the dtype is kept: refused
        i += 0.5


def test_a_python_bool_beside_a_numeric_array_is_the_int_it_equals(owner):
    # float32_x + True: numpy, torch, jax and dask gave float32 x + 1;
    # TensorFlow and array_api_strict refused the bool (the standard leaves it
    # open); one rule, numpy's: a weak 1 or 0 (docs/namespace.md)
    def program(o):
        f = _on(o, [0.5, 1.0, 2.5], np.float32)
        i = _on(o, [1, 2, 3], np.int8)
        c = _on(o, [1 + 1j, 2, 0], np.complex64)
        b = _on(o, [True, False, True], np.bool_)
        out = [f + True, True + f, i * False, c - True, ut.maximum(i, True),
               f == True, i > False, ut.where(b, f, True),  # noqa: E712
               ut.bitwise_and(i, True), ut.add(b, True), ut.pow(i, True)]
        g = ut.asarray(f, copy=True)
        g += True  # keeps float32
        j = ut.asarray(i, copy=True)
        j -= False
        return [*out, g, j]

    want = program("numpy")
    for _ in range(2):  # the second time by the fast paths learned the first
        got = program(owner)
        assert [t.dtype for t in got] == [t.dtype for t in want] == [
            ut.float32, ut.float32, ut.int8, ut.complex64, ut.int8, ut.bool, ut.bool,
            ut.float32, ut.int8, ut.bool, ut.int8, ut.float32, ut.int8]
        assert [t.owner for t in got] == [owner] * len(got)
        assert [_values(t) for t in got] == [_values(t) for t in want]
    assert ut.result_type(ut.float32, True) is ut.float32
    assert ut.result_type(_on(owner, [1], np.int16), False) is ut.int16


def test_numpy_scalars_in_scalar_parameters_are_the_python_scalars_they_hold(owner):
    # where's operands as the operators read them (np.float64 is a Python float);
    # clip's bounds, full's fill_value, arange's and linspace's bounds take any
    # numpy number as its Python scalar (jax made clip(float32, np.float64) a
    # float64, full_like(b, np.bool_(True)) was refused, array_api_strict refused
    # numpy scalars in full)
    def program(o):
        i = _on(o, [1, 2, 3], np.int32)
        f = _on(o, [1.0, 2.0, 3.0], np.float32)
        b = _on(o, [True, False, True], np.bool_)
        out = [ut.where(b, f, np.float64(0.5)), ut.where(b, np.float64(0.5), f),
               ut.where(b, f, np.complex128(1j)),
               ut.clip(f, np.float64(0.0), np.float64(2.0)),
               ut.clip(i, min=np.int64(0), max=np.int64(2)),
               ut.clip(f, max=np.float32(1.5)),
               ut.full_like(b, np.bool_(False)), ut.full_like(f, np.float64(2.5)),
               ut.full_like(i, np.int64(7))]
        with ut.owner(o):
            out += [ut.full(2, np.bool_(True)), ut.full(2, np.float32(1.5)),
                    ut.full(2, np.int64(3)), ut.full(2, np.float64(0.25),
                                                    dtype=ut.float32),
                    ut.arange(np.int64(3)), ut.linspace(np.float64(0.0), 1, 3)]
        return out

    got, want = program(owner), program("numpy")
    assert [t.dtype for t in got] == [
        ut.float32, ut.float32, ut.complex64, ut.float32, ut.int32, ut.float32,
        ut.bool, ut.float32, ut.int32,
        ut.bool, ut.float64, ut.int64, ut.float32, ut.int64, ut.float64]
    assert [t.owner for t in got] == [owner] * len(got)
    assert [_values(t) for t in got] == [_values(t) for t in want]
    i = _on(owner, [1, 2, 3], np.int32)
    with pytest.raises(OverflowError, match=r"^clip\(\): max: expected a Python "
                       r"int within int32's range"):
        ut.clip(i, max=np.int64(2**40))  # torch and TF wrapped it to 0
    with pytest.raises(OverflowError, match=r"^full_like\(\): fill_value: "):
        ut.full_like(i, np.int64(2**40))


def test_python_data_is_cast_as_numpy_casts_it_on_every_owner(owner):
    def program():
        with ut.owner(owner):
            return [ut.asarray([1, 0, 2], dtype=ut.bool),
                    ut.asarray([1000.0, -2.7, 2.7], dtype=ut.int32),
                    ut.asarray([True, False], dtype=ut.float32),
                    ut.asarray(3.9, dtype=ut.int16),
                    ut.asarray([[0.0, 2.5]], dtype=ut.bool)]

    got = program()
    assert [t.owner for t in got] == [owner] * len(got)
    assert [_values(t) for t in got] == [[True, False, True], [1000, -2, 2],
                                         [1.0, 0.0], 3, [[False, True]]]


def test_python_scalars_written_follow_the_in_place_rule_on_every_owner(owner):
    n = _on(owner, [1, 2, 3], np.int32)
    with pytest.raises(TypeError, match=r"^__setitem__\(\): value: expected a "
                       r"Python scalar of a kind int32 holds"):
        n[0] = 1.1  # numpy and torch truncate, jax warns, TF refused: one rule
    f = _on(owner, [1.0, 2.0], np.float64)
    with pytest.raises(TypeError, match="kind float64 holds"):
        f[0] = 1j
    b = _on(owner, [False, False], np.bool_)
    b[0] = 1  # an int into bool: nonzero is True, as numpy, torch and jax
    n[1] = True
    f[1] = 3  # an int into float
    assert (_values(b), _values(n), _values(f)) == ([True, False], [1, 1, 3],
                                                     [1.0, 3.0])


def test_default_floating_dtype_is_float64_on_the_cpu_on_every_owner(owner):
    with ut.owner(owner):
        made = [ut.zeros((2, 2)), ut.ones(2), ut.eye(2), ut.full(2, 1.5),
                ut.linspace(0, 1, 3), ut.arange(0.0, 1.0, 0.5), ut.asarray([1.5]),
                ut.fft.fftfreq(4)]
        info = ut.__array_namespace_info__().default_dtypes()
        assert [t.dtype for t in made] == [ut.float64] * len(made)
        assert info["real floating"] is ut.float64
        assert info["complex floating"] is ut.complex128
        assert ut.asarray([1j]).dtype is ut.complex128
        assert ut.full(2, 1).dtype is info["integral"]
        m = ut.zeros((2, 2))  # scikit-learn's CalibratedClassifierCV
        m += _on(owner, [[0.5, 1.0], [1.5, 2.0]], np.float64)
    assert _values(m) == [[0.5, 1.0], [1.5, 2.0]]
