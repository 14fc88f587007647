"""Warp as a framework (#34): its arrays cross zero-copy through its array
interfaces both ways, ``.warp()`` views, refusals of what Warp cannot hold, and
Warp-owned Tensors computing in numpy (Warp has no Array API namespace).
No kernel is launched here (nothing compiles).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from frameworks import pointer

import unitensor as ut
from unitensor import _backends, _core

wp = pytest.importorskip("warp", reason="warp-lang is not installed (the warp extra)")
torch = pytest.importorskip("torch")
jnp = pytest.importorskip("jax.numpy")


def warp_array(values, dtype=np.float32):
    return wp.array(np.asarray(values, dtype=dtype), device="cpu")


@pytest.mark.parametrize("view", ["torch", "jax", "numpy"])
def test_a_warp_array_is_viewed_zero_copy_by_every_framework(view):
    a = warp_array([[0, 1, 2], [3, 4, 5]])
    t = ut.asarray(a)
    assert (t.dtype, t.shape, t.device) == (ut.float32, (2, 3), ut.Device("cpu"))
    other = getattr(t, view)()
    assert pointer(other) == a.ptr
    np.testing.assert_array_equal(np.asarray(other), a.numpy())


def test_memory_leaves_warp_through_its_array_interface_not_dlpack():
    # __array_interface__ costs 0.15 µs against 11.5 µs for Warp's __dlpack__
    buf = _backends.get("warp").export(warp_array([1, 2]))
    assert buf.source == "array_interface"


def test_a_write_through_a_view_is_seen_by_warp():
    a = warp_array([1, 2, 3])
    ut.asarray(a).torch()[1] = 7.0
    assert a.numpy()[1] == 7.0


@pytest.mark.parametrize("make", [
    lambda: torch.arange(6.0),
    lambda: np.arange(12.0)[::-2],  # negative strides: Warp keeps them
    lambda: np.arange(12, dtype=np.int16).reshape(3, 4)[:, 1::2],
    lambda: np.zeros((2, 0), np.float32),
], ids=["torch", "negative-stride", "strided-int16", "size-0"])
def test_warp_views_other_frameworks_memory_zero_copy(make):
    x = make()
    w = ut.asarray(x).warp()
    assert isinstance(w, wp.array)
    expected = np.asarray(x)
    assert w.shape == expected.shape
    np.testing.assert_array_equal(w.numpy(), expected)
    if expected.size:
        assert w.ptr == pointer(x)
        assert w.strides == expected.strides


def test_a_warp_view_is_cached_and_keeps_the_memory_alive():
    t = ut.asarray(torch.arange(4.0))
    w = t.warp()
    assert t.warp() is w
    del t
    gc.collect()
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.0, 2.0, 3.0])


def test_the_owner_s_own_array_comes_back_as_it_is():
    a = warp_array([1, 2])
    assert ut.asarray(a).warp() is a
    assert ut.asarray(ut.asarray(a).torch()).to("warp").warp().ptr == a.ptr


def test_torch_s_route_from_warp_takes_its_array_interface_into_torch_s_exchange():
    # ut.asarray(w).torch() at a third of wp.to_torch's cost (Warp's __dlpack__):
    # the route makes the tensor, so the Tensor caches no Buffer of its own
    route = _backends.get("torch").ROUTES["warp"]
    a = warp_array([[0, 1, 2], [3, 4, 5]])
    t = ut.asarray(a)
    alive = _core.stats()["exported_alive"]
    view = t.torch()
    assert view.data_ptr() == a.ptr
    assert view.stride() == (3, 1)
    assert t._aliases.buffer is None
    assert t._aliases.views["torch"] is view
    assert _core.stats()["exported_alive"] == alive + 1  # the Export holds a Buffer
    del t, view
    gc.collect()
    assert _core.stats()["exported_alive"] == alive
    # the general path's cases: a negative stride (copied and reported) declined
    backwards = wp.array(ptr=a.ptr + 8, shape=(3,), strides=(-4,), dtype=wp.float32,
                         device="cpu")
    assert route(backwards) is None
    with pytest.warns(ut.CopyWarning):
        assert ut.asarray(backwards).torch().tolist() == [2.0, 1.0, 0.0]


def test_bfloat16_crosses_as_bfloat16():
    t = ut.asarray(wp.zeros(3, dtype=wp.bfloat16))
    assert t.dtype == ut.bfloat16
    assert t.torch().dtype == torch.bfloat16


def test_read_only_memory_is_aliased_as_torch_does():
    x = jnp.arange(3.0)
    w = ut.asarray(x).warp()
    assert w.ptr == x.unsafe_buffer_pointer()
    assert ut.asarray(x).readonly


@pytest.mark.parametrize(("make", "kind", "says"), [
    (lambda: ut.asarray(np.float32(3)).warp(), BufferError, "no 0-d arrays"),
    (lambda: ut.asarray(np.zeros(2, np.complex64)).warp(), BufferError, "complex64"),
    (lambda: ut.asarray(wp.zeros(3, dtype=wp.vec3)), TypeError, "vec3f"),
    (lambda: ut.asarray(np.zeros(2, np.complex64)).warp(copy=True), BufferError,
     "complex64"),
], ids=["0-d", "complex", "vector-dtype", "complex-copy"])
def test_what_warp_cannot_hold_is_refused_naming_it(make, kind, says):
    with pytest.raises(kind, match=says):
        make()


def test_a_warp_owned_tensor_computes_in_numpy_on_its_memory():
    a = warp_array([0.0, 1.0, 2.0])
    t = ut.asarray(a)
    s = ut.sin(t) + 1
    np.testing.assert_allclose(s.numpy(), np.sin([0.0, 1.0, 2.0]) + 1, rtol=1e-6)
    assert ut.sum(t).numpy() == 3.0


def test_writes_into_a_warp_owned_tensor_land_in_warp_s_memory():
    a = warp_array([0.0, 0.0, 0.0])
    t = ut.asarray(a)
    t[1] = 5.0
    t += 1.0
    assert t.warp() is a
    np.testing.assert_array_equal(a.numpy(), [1.0, 6.0, 1.0])


def test_new_arrays_can_be_warp_s():
    t = ut.asarray([1.0, 2.0], device=ut.asarray(warp_array([0.0])).device)
    assert t.dtype == ut.float64
    with ut.owner("warp"):
        made = ut.asarray([1, 2], dtype=ut.int32)
    assert isinstance(made.warp(), wp.array)
    assert made.warp().dtype == wp.int32
    with pytest.raises(ValueError, match="no 0-d"), ut.owner("warp"):
        ut.asarray(3.0)
