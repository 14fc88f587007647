"""Dr.Jit as a framework (#34): its tensors and flat JIT arrays cross zero-copy
both ways through DLPack (pointer equality), ``.drjit()`` views, refusals of
what Dr.Jit cannot hold, and Dr.Jit-owned Tensors computing in numpy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from frameworks import pointer

import unitensor as ut

dr = pytest.importorskip("drjit", reason="drjit is not installed (the drjit extra)")
ad = pytest.importorskip("drjit.llvm.ad")
torch = pytest.importorskip("torch")
jnp = pytest.importorskip("jax.numpy")


def evaluated(n=6, shape=(2, 3)):
    """A tensor of Dr.Jit's own memory (its allocator aligns it for JAX)."""
    t = ad.TensorXf(dr.arange(ad.Float, n), shape)
    dr.eval(t)
    return t


@pytest.mark.parametrize("view", ["torch", "jax", "numpy"])
def test_a_drjit_tensor_is_viewed_zero_copy_by_every_framework(view):
    d = evaluated()
    t = ut.asarray(d)
    assert (t.dtype, t.shape, t.device) == (ut.float32, (2, 3), ut.Device("cpu"))
    other = getattr(t, view)()
    assert pointer(other) == pointer(d)
    np.testing.assert_array_equal(np.asarray(other), np.arange(6.0).reshape(2, 3))


def test_drjit_views_torch_memory_zero_copy_and_gives_it_back():
    x = torch.arange(4.0)
    d = ut.asarray(x).drjit()
    assert isinstance(d, ad.TensorXf)
    assert pointer(d) == x.data_ptr()
    assert ut.asarray(d).torch().data_ptr() == x.data_ptr()
    assert ut.asarray(x).drjit() is not None


def test_a_flat_jit_array_crosses_as_one_dimension():
    f = ad.Float(1.0, 2.0, 3.0)
    dr.eval(f)
    t = ut.asarray(f)
    assert t.shape == (3,)
    assert t.torch().data_ptr() == pointer(f)


def test_a_traced_array_is_evaluated_once_it_crosses():
    d = evaluated()
    np.testing.assert_array_equal(ut.asarray(d * 2).numpy(),
                                  2 * np.arange(6.0).reshape(2, 3))


def test_strided_memory_is_copied_and_reported():
    strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    with pytest.warns(ut.CopyWarning, match="compact"):
        d = ut.asarray(strided).drjit()
    np.testing.assert_array_equal(np.asarray(ut.asarray(d).numpy()), strided)
    with pytest.raises(BufferError):
        ut.asarray(strided).drjit(copy=False)


@pytest.mark.parametrize(("make", "kind", "says"), [
    (lambda: ut.asarray(np.zeros(2, np.int16)).drjit(), BufferError, "int16"),
    (lambda: ut.asarray(np.zeros(2, np.complex64)).drjit(), BufferError,
     "complex64"),
    (lambda: ut.asarray(ad.Array3f(1, 2, 3)), TypeError, "Array3f"),
], ids=["int16", "complex", "nested-array"])
def test_what_drjit_cannot_hold_is_refused_naming_it(make, kind, says):
    with pytest.raises(kind, match=says):
        make()


def test_a_drjit_owned_tensor_computes_in_numpy_and_writes_in_place():
    d = evaluated()
    t = ut.asarray(d)
    np.testing.assert_allclose(ut.sin(t).numpy(), np.sin(np.arange(6.0)).reshape(2, 3),
                               rtol=1e-6)
    t[0, 1] = 9.0
    t += 1.0  # (reads the operand's dtype: Dr.Jit arrays have no dtype attribute)
    assert t.drjit() is d
    np.testing.assert_array_equal(d.numpy(), [[1, 10, 3], [4, 5, 6]])


def test_new_arrays_can_be_drjit_s():
    with ut.owner("drjit"):
        made = ut.asarray([1.0, 2.0])
    assert isinstance(made.drjit(), ad.TensorXf64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ut.asarray(ad.TensorXf(np.float32(3))).shape == ()
