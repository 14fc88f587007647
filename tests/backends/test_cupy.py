"""CUDA paths: cupy and CUDA torch. They run on a GPU machine, skip elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from owners import needs_cuda

import unitensor as ut

pytestmark = needs_cuda


@pytest.fixture
def cupy():
    import cupy
    return cupy


def test_cupy_arrays_are_wrapped_on_their_device(cupy):
    x = cupy.arange(6, dtype=cupy.float32)
    t = ut.asarray(x)
    assert t.owner == "cupy"
    assert str(t.device) == "cuda:0"
    assert t.__dlpack_device__() == (2, 0)


def test_cupy_to_torch_is_zero_copy_and_writes_through(cupy):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    x = cupy.zeros(4, dtype=cupy.float32)
    tt = ut.asarray(x).torch()
    assert tt.is_cuda
    assert tt.data_ptr() == x.data.ptr
    tt[1] = 3.0  # on torch's current stream, which cupy's waits for (no blanket sync)
    assert float(x[1]) == 3.0
    back = ut.asarray(tt).cupy()
    assert back.data.ptr == x.data.ptr


def test_cuda_to_numpy_is_a_reported_copy(cupy):
    t = ut.asarray(cupy.arange(3.0))
    with pytest.raises(BufferError, match="CPU"):
        t.numpy(copy=False)
    with pytest.warns(ut.CopyWarning, match="CPU"):
        a = t.numpy()
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_cuda_array_interface_and_capsules(cupy):
    x = cupy.arange(5, dtype=cupy.int32)

    class CAI:
        __cuda_array_interface__ = x.__cuda_array_interface__

    t = ut.asarray(CAI())
    assert t.owner == "cupy"
    assert t.cupy().data.ptr == x.data.ptr
    from_capsule = ut.from_dlpack(x.__dlpack__(max_version=(1, 0)))
    assert from_capsule.cupy().data.ptr == x.data.ptr
    assert "cuda:0" == str(from_capsule.device)


def test_cuda_buffer_exports_cuda_array_interface(cupy):
    from unitensor._convert import buffer_of
    x = cupy.arange(4.0)
    buf = buffer_of(ut.asarray(x))
    iface = buf.__cuda_array_interface__
    assert iface["data"][0] == x.data.ptr
    assert iface["version"] == 3
    assert not hasattr(buf, "__array_interface__")
    with pytest.raises(ValueError, match="stream"):
        ut.asarray(np.arange(2.0)).__dlpack__(stream=1)


def test_operations_run_on_the_device_and_mixing_devices_is_an_error(cupy):
    import numpy as np
    import pytest

    import unitensor as ut
    x = ut.asarray(cupy.arange(4.0))
    result = ut.sin(x) + 1
    assert result.owner == "cupy"
    assert result.device == ut.Device("cuda", 0)
    with pytest.raises(ValueError, match=r"cuda:0 and cpu|cpu and cuda:0"):
        ut.add(x, ut.asarray(np.ones(4)))
