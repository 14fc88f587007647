"""The numpy adapter (unitensor/_backends/numpy.py): its export through the buffer
protocol, 0-d results that stay arrays, and in-place writes into shared memory."""

from __future__ import annotations

import numpy as np

import unitensor as ut
from unitensor import _backends
from unitensor._backends import _dlpack

NUMPY = _backends.get("numpy")


def layout(buf):
    return (buf.shape, buf.strides, buf.dtype, buf.device, buf.data_ptr, buf.readonly)


def test_numpy_zero_d_results_stay_arrays():
    x = ut.asarray(np.float64(2.0))
    for result in (x + 1, ut.sum(ut.asarray(np.ones(3))), ut.sin(x)):
        assert type(result.native) is np.ndarray
        assert result.shape == ()


def test_inplace_on_numpy_writes_the_shared_memory():
    base = np.arange(3.0)
    x = ut.asarray(base)
    x += 1
    assert base.tolist() == [1.0, 2.0, 3.0]


def test_numpy_export_through_the_buffer_protocol_matches_dlpack():
    for a in (np.arange(12.0).reshape(3, 4)[:, 1::2], np.arange(3, dtype=np.int8),
              np.array(2.5), np.zeros((0, 2))):
        assert layout(NUMPY.export(a)) == layout(_dlpack.buffer_from_dlpack(a))
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    assert NUMPY.export(readonly).readonly


def test_numpy_export_of_float64_without_ml_dtypes(monkeypatch):
    """Without ml_dtypes numpy's bfloat16 is None, and ``dtype == None`` is True
    for float64 in numpy: the export must not take the bfloat16 route then."""
    numpy_backend = ut._backends.get("numpy")
    from unitensor._backends.numpy import interop as numpy_interop
    monkeypatch.setattr(numpy_interop, "_BFLOAT16", None)
    buf = numpy_backend.export(np.arange(3.0))
    assert buf.dtype == (2, 64, 1)
    assert buf.shape == (3,)
