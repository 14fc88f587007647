"""Data types (unitensor/_dtypes.py and _data_type_functions.py): the standard's
promotion table, casting rules, ``isdtype``, ``finfo`` and ``iinfo``."""

from __future__ import annotations

import numpy as np
import pytest

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
