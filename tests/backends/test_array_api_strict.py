"""The array-api-strict adapter (unitensor/_backends/array_api_strict.py): numpy
memory on the CPU and nowhere else, no float16 or bfloat16, and a fix of ``sign``
(the fixes it shares with other owners are in tests/backends/test_fixes.py)."""

from __future__ import annotations

import numpy as np
import pytest
from forge import forge
from frameworks import pointer

import unitensor as ut

xs = pytest.importorskip("array_api_strict")


def test_arrays_are_writable_cpu_memory_shared_with_numpy():
    source = xs.asarray([1.0, 2.0, 3.0])
    t = ut.asarray(source)
    assert t.owner == "array_api_strict"
    assert not t.readonly
    assert str(t.device) == "cpu"
    view = t.numpy()
    assert pointer(view) == pointer(source)
    view[0] = 5.0
    assert float(source[0]) == 5.0


def test_arrays_of_read_only_memory_are_read_only_before_any_export():
    # array_api_strict keeps a read-only numpy array as it is (np.asarray of a
    # jax array is one): unitensor must know before a view is handed out
    memory = np.arange(3.0)
    memory.flags.writeable = False
    t = ut.asarray(xs.asarray(memory))
    assert t.readonly
    assert not t.numpy().flags.writeable
    assert t.readonly


@pytest.mark.parametrize("make", [
    lambda: ut.asarray(np.zeros(2, np.float16)),
    lambda: ut.from_dlpack(forge(np.zeros(2, np.uint16), dtype=(4, 16, 1))),
], ids=["float16", "bfloat16"])
def test_dtypes_it_has_no_type_for_are_refused_naming_the_dtype(make):
    # neither float16 nor bfloat16 is in the standard; no copy can hold them
    t = make()
    message = f"to(): x: expected a dtype array_api_strict has, got {t.dtype.name}"
    for copy in (None, True, False):
        with pytest.raises(BufferError) as info:
            t.to("array_api_strict", copy=copy)
        assert str(info.value) == message
    with ut.owner("array_api_strict"), pytest.raises(BufferError) as info:
        ut.add(t, t)
    assert str(info.value) == message.replace("to()", "add()")  # the user's call


def test_devices_other_than_the_cpu_are_refused():
    x = ut.asarray(xs.asarray([1.0]))
    assert x.to_device("cpu") is x
    with pytest.raises(ValueError, match=r"to_device\(\): device: expected cpu for "
                                         r"array_api_strict arrays, got 'cuda:0'"):
        x.to_device("cuda:0")
    with ut.owner("array_api_strict"):
        with pytest.raises(ValueError, match=r"expected cpu, got 'cuda:0'"):
            ut.zeros((2,), device=ut.Device("cuda", 0))


def test_sign_of_a_complex_zero_is_an_unsigned_zero():
    # array-api-strict alone gives -0 parts here (numpy's sign of a complex zero)
    source = xs.asarray([complex(0.0, -0.0), complex(-0.0, -0.0), complex(3.0, 4.0)])
    out = ut.sign(ut.asarray(source)).numpy()
    assert not np.signbit(out[:2].real).any()
    assert not np.signbit(out[:2].imag).any()
    assert out[2] == pytest.approx(complex(0.6, 0.8))
