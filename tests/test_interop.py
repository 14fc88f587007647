"""The conversion matrix: source framework x target framework x dtype x layout.

The contract checked everywhere: values survive, and a conversion either shares
the memory (same data pointer, writes seen on both sides) or says it copied (a
CopyWarning with copy=None) -- never a silent copy.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import FRAMEWORKS, aligned_empty
from frameworks import ALL_DTYPES, make, pointer, to_numpy, values

import unitensor as ut

# What each framework cannot hold at all (a dtype it has no type for).
UNSUPPORTED = {
    ("array_api_strict", "bfloat16"),
    ("array_api_strict", "float16"),
}
WIDE = {"int64", "uint64", "float64", "complex128"}


def supported(framework: str, dtype: str) -> bool:
    return (framework, dtype) not in UNSUPPORTED


def convert(t: ut.Tensor, dst: str):
    """Convert, recording whether unitensor reported a copy."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ut.CopyWarning)
        out = t.to(dst).native
    copied = any(issubclass(w.category, ut.CopyWarning) for w in caught)
    return out, copied


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dst", FRAMEWORKS)
@pytest.mark.parametrize("src", FRAMEWORKS)
def test_matrix_values_and_zero_copy(src, dst, dtype, x64):
    if not (supported(src, dtype) and supported(dst, dtype)):
        pytest.skip(f"{src} or {dst} has no {dtype}")
    base = values(dtype)
    source = make(src, base)
    t = ut.asarray(source)
    assert t.owner == src
    assert t.dtype == getattr(ut, dtype if dtype != "bool" else "bool")
    out, copied = convert(t, dst)
    np.testing.assert_array_equal(to_numpy(out), base)
    assert (pointer(out) != pointer(source)) == copied, "a copy must be reported"
    # Zero-copy is the rule; the documented exceptions are read-only data going
    # to torch (jax and tensorflow arrays are immutable) and memory that is not
    # 64-byte aligned going to jax or tensorflow.
    expected_copy = (dst == "torch" and src in ("jax", "tensorflow")) or (
        dst in ("jax", "tensorflow") and src != dst and pointer(source) % 64 != 0)
    assert copied == expected_copy


LAYOUTS = {
    "0-d": lambda a: a[1:2, 2:3].reshape(()),
    "size-0": lambda a: a[:0],
    "size-1 dims": lambda a: a[:1, :, None][:, :1],
    "negative strides": lambda a: a[::-1, ::-2],
    "non-contiguous": lambda a: a[::2, 1::3],
    "transposed": lambda a: a.T,
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dst", FRAMEWORKS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "complex128"])
def test_layouts_from_numpy(layout, dst, dtype, x64):
    base = aligned_empty((4, 6), values(dtype).dtype)
    base[...] = values(dtype, (4, 6))
    source = LAYOUTS[layout](base)
    t = ut.asarray(source)
    assert t.shape == source.shape
    out, copied = convert(t, dst)
    np.testing.assert_array_equal(to_numpy(out), source)
    assert tuple(out.shape) == source.shape
    if source.size:
        assert (pointer(out) != pointer(source)) == copied
    needs_copy = {
        "torch": layout == "negative strides",
        "jax": not source.flags.c_contiguous or pointer(source) % 64 != 0,
        "tensorflow": not source.flags.c_contiguous or pointer(source) % 64 != 0,
    }.get(dst, False)
    if source.size and layout != "size-1 dims":
        assert copied == needs_copy


@pytest.mark.parametrize("dst", FRAMEWORKS)
@pytest.mark.parametrize("offset", range(8, 64, 8))
def test_misaligned_sources_reach_every_target(dst, offset, x64):
    """numpy aligns small arrays to 16 bytes; JAX and TensorFlow kernels assume 64
    (TF aborts the process on less): such memory is copied there, and reported."""
    source = aligned_empty((3, 5), np.float64, offset=offset)
    source[...] = np.arange(15.0).reshape(3, 5)
    out, copied = convert(ut.asarray(source), dst)
    assert copied == (dst in ("jax", "tensorflow"))
    assert (pointer(out) != pointer(source)) == copied
    if copied:
        assert pointer(out) % 64 == 0
    np.testing.assert_array_equal(to_numpy(out), source)
    # Index, slice and reduce in the target framework itself.
    assert float(out[2, 3]) == 13.0
    np.testing.assert_array_equal(to_numpy(out[1:, ::2]), source[1:, ::2])
    assert float(ut.asarray(out[:, 1:4]).numpy().sum()) == source[:, 1:4].sum()
    if dst == "tensorflow":
        import tensorflow as tf
        assert float(tf.reduce_sum(out[1:])) == source[1:].sum()
    elif dst == "jax":
        assert float(out[1:].sum()) == source[1:].sum()


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
                         cwd=Path(__file__).parent.parent, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


def test_size_one_dims_with_odd_strides_stay_zero_copy(x64):
    raw = aligned_empty((50,), np.float64)
    raw[...] = np.arange(50)
    odd = np.lib.stride_tricks.as_strided(raw, shape=(10, 5, 1), strides=(8, 80, 4))
    t = ut.asarray(odd)
    assert t.shape == (10, 5, 1)
    for dst in FRAMEWORKS:
        if dst in ("jax", "tensorflow"):
            continue  # they need compact row-major memory: covered above
        out, copied = convert(t, dst)
        np.testing.assert_array_equal(to_numpy(out), odd)
        assert not copied


@pytest.mark.parametrize(
    "dst", [f for f in FRAMEWORKS if f in ("torch", "array_api_strict")])
def test_writes_through_a_view_are_seen_by_the_source(dst):
    source = np.zeros((3, 4), np.float32)
    view = ut.asarray(source).to(dst).native
    if dst == "torch":
        view[1, 2] = 7.0
    else:
        import array_api_strict as xs
        view[1, 2] = xs.asarray(7.0, dtype=xs.float32)
    assert source[1, 2] == 7.0
    back = ut.asarray(view).numpy()
    back[0, 0] = 5.0
    assert source[0, 0] == 5.0


def test_torch_to_numpy_write_through():
    torch = pytest.importorskip("torch")
    source = torch.zeros(5)
    a = ut.asarray(source).numpy()
    a[3] = 2.5
    assert source[3].item() == 2.5


def test_views_are_cached():
    pytest.importorskip("torch")
    t = ut.asarray(np.arange(4.0))
    first = t.torch()
    assert t.torch() is first
    assert t.to("torch").torch() is first
    assert t.numpy() is t.native


def test_to_shares_memory_and_owner_changes(x64):
    t = ut.asarray(aligned_empty((8,), np.float64))
    j = t.to("jax")
    assert j.owner == "jax" and isinstance(j, ut.Tensor)
    assert pointer(j.native) == pointer(t.native)
    assert t.to("numpy") is t


@pytest.mark.parametrize("dst", FRAMEWORKS)
def test_any_dlpack_consumer_reads_a_tensor(dst, x64):
    base = aligned_empty((2, 3), np.float32)
    base[...] = np.arange(6).reshape(2, 3)
    t = ut.asarray(base)
    if dst == "numpy":
        out = np.from_dlpack(t)
    elif dst == "torch":
        import torch
        out = torch.from_dlpack(t)
    elif dst == "jax":
        import jax
        out = jax.dlpack.from_dlpack(t)
    elif dst == "tensorflow":
        import tensorflow as tf
        out = tf.experimental.dlpack.from_dlpack(t.__dlpack__())
    else:
        import array_api_strict as xs
        out = xs.from_dlpack(t)
    np.testing.assert_array_equal(to_numpy(out), base)
    assert pointer(out) == pointer(base)


def test_readonly_numpy_stays_readonly_everywhere():
    pytest.importorskip("torch")
    x = np.arange(5.0)
    x.flags.writeable = False
    t = ut.asarray(x)
    assert t.readonly
    assert not t.numpy().flags.writeable
    assert not np.from_dlpack(t).flags.writeable
    with pytest.warns(ut.CopyWarning, match="read-only"):
        tt = t.torch()
    tt[0] = 100.0
    assert x[0] == 0.0 and tt.data_ptr() != x.ctypes.data
    with pytest.raises(BufferError, match="read-only"):
        t.torch(copy=False)


@pytest.mark.parametrize("src", [f for f in FRAMEWORKS if f in ("jax", "tensorflow")])
def test_immutable_sources_come_back_read_only(src):
    t = ut.asarray(make(src, np.arange(4.0, dtype=np.float32)))
    assert t.readonly
    view = t.numpy()
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 1.0
    np.testing.assert_array_equal(to_numpy(t.native), [0, 1, 2, 3])


def test_jax_float64_without_x64_is_refused_not_narrowed():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", False)
    t = ut.asarray(aligned_empty((4,), np.float64))
    with pytest.raises(BufferError, match="jax_enable_x64"):
        t.jax()


def test_jax_unaligned_memory_is_copied_only_when_allowed(x64):
    base = aligned_empty((4,), np.float32, offset=16)
    base[...] = [1, 2, 3, 4]
    t = ut.asarray(base)
    with pytest.raises(BufferError, match="64-byte"):
        t.jax(copy=False)
    with pytest.warns(ut.CopyWarning, match="64-byte aligned"):
        j = t.jax()
    assert j.unsafe_buffer_pointer() % 64 == 0
    np.testing.assert_array_equal(np.asarray(j), base)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pointer(t.jax(copy=True)) != pointer(base)  # asked for: no warning


def test_copy_true_always_gives_fresh_memory():
    torch = pytest.importorskip("torch")
    base = np.arange(6.0)
    t = ut.asarray(base)
    c = t.torch(copy=True)
    assert c.data_ptr() != base.ctypes.data
    c[0] = 9
    assert base[0] == 0
    assert t.numpy(copy=True) is not base
    assert not np.shares_memory(t.numpy(copy=True), base)
    assert isinstance(torch.zeros(1), torch.Tensor)


def test_source_can_be_deleted_first(x64):
    import gc
    base = aligned_empty((1000,), np.float64)
    base[...] = np.arange(1000)
    t = ut.asarray(base)
    views = [t.to(f).native for f in FRAMEWORKS]
    del base
    gc.collect()
    for v in views:
        assert to_numpy(v).sum() == 499500
    del t
    gc.collect()
    for v in views:
        assert to_numpy(v)[999] == 999


def test_torch_tensors_that_require_grad_are_shared_detached():
    torch = pytest.importorskip("torch")
    w = torch.ones(3, requires_grad=True)
    a = ut.asarray(w).numpy()
    assert a.__array_interface__["data"][0] == w.data_ptr()
    assert w.requires_grad  # the user's tensor keeps its graph


def test_torch_lazy_conjugates_are_resolved_by_a_reported_copy():
    torch = pytest.importorskip("torch")
    z = torch.tensor([1 + 2j, 3 - 1j]).conj()
    assert z.is_conj()
    with pytest.warns(ut.CopyWarning, match="conjugate"):
        a = ut.asarray(z).numpy()
    np.testing.assert_array_equal(a, [1 - 2j, 3 + 1j])
