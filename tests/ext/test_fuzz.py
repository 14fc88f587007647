"""Fuzzing the importers: forged capsules and array interfaces, driven by hypothesis.

Every example must end in a valid Buffer whose metadata matches what was forged,
or in a precise error (TypeError, ValueError or BufferError in the project's
message format) -- never a crash, a SystemError, or a deleter run twice or never.
UNITENSOR_FUZZ_EXAMPLES sets the number of examples (CI runs the default).
"""

from __future__ import annotations

import gc
import os
import re

import numpy as np
import pytest
from forge import counters, forge
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unitensor as ut
from unitensor import _core

EXAMPLES = int(os.environ.get("UNITENSOR_FUZZ_EXAMPLES", "300"))
# The default run takes seconds; a long run (docs/reliability.md) is a slow test.
pytestmark = [pytest.mark.slow] if EXAMPLES > 300 else []
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
MESSAGE = re.compile(r"^\w+\(\): [\w ]+: expected .+, got .+", re.S)

dims = st.integers(min_value=-2, max_value=5) | st.sampled_from([2**62, 2**63 - 1])
strides = st.integers(min_value=-6, max_value=6) | st.sampled_from(
    [2**62, -(2**63), 999])
dtypes = st.tuples(st.integers(0, 7) | st.just(255), st.sampled_from(
    [0, 1, 7, 8, 16, 32, 64, 128]), st.sampled_from([1, 1, 1, 2, 4]))
devices = st.tuples(st.sampled_from([1, 1, 1, 2, 5, 13, 99]), st.integers(-1, 3))


@pytest.fixture(scope="module", autouse=True)
def _collected_first():
    """No garbage of earlier modules: each example counts forged deleter calls."""
    gc.collect()


def check_error(exc: BaseException) -> None:
    assert type(exc) in (TypeError, ValueError, BufferError), repr(exc)
    assert MESSAGE.match(str(exc)), str(exc)


@FUZZ
@given(shape=st.lists(dims, max_size=5), stride=st.lists(strides, max_size=5),
       dtype=dtypes, device=devices, flags=st.integers(0, 7),
       versioned=st.booleans(), major=st.sampled_from([0, 1, 1, 1, 2]),
       null_data=st.booleans(), null_shape=st.booleans(), null_strides=st.booleans(),
       name=st.sampled_from([None, None, None, b"other"]),
       extra_ndim=st.sampled_from([None, None, 65, -1]))
@pytest.mark.slow  # hypothesis over capsules (~5 s): the whole suite runs it
def test_forged_capsules(shape, stride, dtype, device, flags, versioned, major,
                         null_data, null_shape, null_strides, name, extra_ndim):
    stride = (stride + [1] * len(shape))[:len(shape)]
    backing = np.zeros(64, np.uint8)
    capsule = forge(backing, shape=shape, strides=stride, dtype=dtype, device=device,
                    flags=flags, versioned=versioned, version=(major, 1),
                    null_data=null_data, null_shape=null_shape,
                    null_strides=null_strides, name=name, ndim=extra_ndim)
    before = counters.deleter_calls
    buf = None
    try:
        buf = _core.from_capsule(capsule)
    except (TypeError, ValueError, BufferError) as exc:
        check_error(exc)
    else:
        assert buf.shape == tuple(shape)
        assert buf.dtype == dtype
        assert buf.device == ((1, 0) if device[0] == 1 else device)  # one CPU
        assert buf.readonly == (versioned and bool(flags & 1))
    finally:  # the next example must start with nothing alive
        del buf, capsule
        gc.collect()
    assert counters.deleter_calls == before + 1
    assert counters.live == 0
    assert counters.double_calls == 0


typestrs = st.sampled_from(["<f8", "<f4", "|b1", "<i2", "|u1", "<c16", ">i8", "|V8",
                            "<M8", "<f3", "", "f8", "<U4", 42])
interface_shapes = st.lists(st.integers(-1, 4), max_size=4) | st.just("bad")


@FUZZ
@given(typestr=typestrs, shape=interface_shapes,
       strides=st.none() | st.lists(st.integers(-16, 16), max_size=4),
       readonly=st.booleans(), null=st.booleans(),
       mask=st.sampled_from([None, None, "mask"]), data_is_tuple=st.booleans())
def test_forged_array_interfaces(typestr, shape, strides, readonly, null, mask,
                                 data_is_tuple):
    backing = np.zeros(256, np.uint8)
    pointer = 0 if null else backing.ctypes.data + 64
    iface = {"typestr": typestr, "version": 3, "mask": mask,
             "shape": tuple(shape) if isinstance(shape, list) else shape,
             "strides": None if strides is None else tuple(strides),
             "data": (pointer, readonly) if data_is_tuple else pointer}

    class Exporter:
        __array_interface__ = iface
        keep = backing

    try:
        buf = _core.from_array_interface(Exporter())
    except (TypeError, ValueError, BufferError) as exc:
        check_error(exc)
    else:
        assert buf.shape == iface["shape"]
        assert buf.readonly == readonly
        assert buf.data_ptr == pointer


@FUZZ
@given(obj=st.one_of(st.integers(), st.floats(), st.text(max_size=3), st.binary(
    max_size=3), st.none(), st.lists(st.integers(), max_size=3)))
def test_from_dlpack_of_anything_else_is_a_type_error(obj):
    try:
        ut.from_dlpack(obj)
    except TypeError as exc:
        check_error(exc)
    else:
        raise AssertionError(f"accepted {obj!r}")
