"""The TensorFlow adapter (unitensor/_backends/tensorflow.py): 64-byte aligned,
row-major memory only (TF's kernels abort on less), computing in numpy, and its
C++ import and routes with their fallbacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import aligned_empty

import unitensor as ut
from unitensor import _backends
from unitensor._backends import _common
from unitensor._backends.numpy import interop as numpy_interop

pytest.importorskip("tensorflow")

NUMPY = _backends.get("numpy")


def test_unaligned_memory_never_reaches_tensorflow_uncopied():
    """Without the alignment guard, TF's StridedSlice kernel aborts the process
    (``tensor.h: Check failed: IsAligned()``): run it where an abort is a result."""
    pytest.importorskip("tensorflow")
    code = (
        "import sys, warnings, numpy as np, unitensor as ut\n"
        "sys.path.insert(0, 'tests')\n"
        "from conftest import aligned_empty\n"
        "warnings.simplefilter('ignore', ut.CopyWarning)\n"
        "for offset in range(0, 64, 8):\n"
        "    a = aligned_empty((6,), np.float32, offset=offset)\n"
        "    a[...] = np.arange(6)\n"
        "    t = ut.asarray(a).tf()\n"
        "    assert float(t[2]) == 2.0 and t[1:4].shape == (3,)\n"
        "    try:\n"
        "        ut.asarray(a).tf(copy=False)\n"
        "    except BufferError:\n"
        "        assert offset\n"
        "    else:\n"
        "        assert not offset\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


def test_tensorflow_owned_data_computes_in_numpy_zero_copy():
    tf = pytest.importorskip("tensorflow")
    x = ut.asarray(tf.constant([1.0, 2.0, 3.0]))
    result = ut.multiply(x, 2)
    assert result.owner == "numpy"
    assert result.numpy().tolist() == [2.0, 4.0, 6.0]


def test_tensorflow_direct_import_matches_the_public_one(monkeypatch):
    tf_backend = _backends.get("tensorflow")
    from unitensor._backends.tensorflow import interop as tf_interop
    a = np.arange(6.0).reshape(2, 3)
    direct = tf_backend.alias(NUMPY.export(a))
    monkeypatch.setattr(tf_interop, "_from_capsule", None)
    public = tf_backend.alias(NUMPY.export(a))
    assert direct.dtype == public.dtype
    assert direct.shape == public.shape
    np.testing.assert_array_equal(direct.numpy(), public.numpy())


def test_tensorflow_routes_share_memory_and_decline_what_they_cannot():
    import tensorflow as tf
    tf_backend = _backends.get("tensorflow")
    a = aligned_empty((2, 3), np.float64)
    a[...] = np.arange(6.0).reshape(2, 3)
    t = tf_backend.ROUTES["numpy"](a)
    assert _common.buffer_from_dlpack(t).data_ptr == a.ctypes.data
    assert tf_backend.ROUTES["numpy"](a.T) is None  # TF needs row-major
    bf16 = np.zeros(2, numpy_interop._BFLOAT16)  # no buffer-protocol name
    assert tf_backend.ROUTES["numpy"](bf16) is None
    back = NUMPY.ROUTES["tensorflow"](t)
    assert back.ctypes.data == a.ctypes.data
    assert not back.flags.writeable
    assert NUMPY.ROUTES["tensorflow"](tf.constant([1.0], tf.bfloat16)) is None
    x = ut.asarray(tf.constant([1.0, 2.0], tf.bfloat16))  # the general path
    assert x.numpy().dtype.name == "bfloat16"


def test_tensorflow_owned_copy_then_write():
    """Copy, then write: TF tensors are immutable, so the Tensor is rebound to the
    update (basic, boolean-mask and integer-array keys) and the source is unchanged."""
    tf = pytest.importorskip("tensorflow")
    source = tf.constant([0.0, 1.0, 2.0, 3.0])
    c = ut.asarray(source, copy=True)
    c[0] = 5.0
    c[ut.asarray(tf.constant([False, True, False, False]))] = 7.0
    c[ut.asarray(tf.constant([3]))] = 9.0
    assert c.owner == "tensorflow"
    np.testing.assert_array_equal(c.numpy(), [5.0, 7.0, 2.0, 9.0])
    np.testing.assert_array_equal(source.numpy(), [0.0, 1.0, 2.0, 3.0])
