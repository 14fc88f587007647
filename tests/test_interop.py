"""The conversion matrix: source framework x target framework x dtype x layout.

The contract checked everywhere: values survive, and a conversion either shares
the memory (same data pointer, writes seen on both sides) or says it copied (a
CopyWarning with copy=None) -- never a silent copy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from frameworks import ALL_DTYPES, aligned_empty, make, pointer, to_numpy, values
from owners import FRAMEWORKS, needs_cuda

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
    # Zero-copy is the rule, read-only memory to torch included (aliased, as
    # torch.from_dlpack does); the documented exception is memory that is not
    # 64-byte aligned going to jax or tensorflow.
    expected_copy = (dst in ("jax", "tensorflow") and src != dst
                     and pointer(source) % 64 != 0)
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


def test_to_shares_memory_and_owner_changes(x64):
    t = ut.asarray(aligned_empty((8,), np.float64))
    j = t.to("jax")
    assert j.owner == "jax"
    assert isinstance(j, ut.Tensor)
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


@pytest.mark.skipif(not hasattr(np.dtypes, "register_dlpack_dtype"),
                    reason="numpy < 2.5: its own from_dlpack and __dlpack__ refuse "
                    "bfloat16 (no register_dlpack_dtype); unitensor's conversions "
                    "hold it (the matrix above)")
def test_bfloat16_crosses_numpy_torch_jax_zero_copy_through_their_own_dlpack():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    base = aligned_empty((2, 3), ml_dtypes.bfloat16)
    base[...] = np.arange(6).reshape(2, 3)
    t = ut.asarray(base)
    # numpy's own consumer of a bfloat16 Tensor, and of the views unitensor gave
    # torch and jax (numpy 2.5 refused bfloat16 until unitensor registered it)
    for source in (t, ut.asarray(t.torch()), ut.asarray(t.jax())):
        out = np.from_dlpack(source)
        assert out.dtype == base.dtype
        assert pointer(out) == pointer(base)
    # numpy's bfloat16 arrays handed by numpy itself to torch and jax
    assert torch.from_dlpack(base).dtype == torch.bfloat16
    assert pointer(torch.from_dlpack(base)) == pointer(base)
    assert jax.dlpack.from_dlpack(base).dtype == jax.numpy.bfloat16
    assert pointer(jax.dlpack.from_dlpack(base)) == pointer(base)
    # and back: jax's and torch's bfloat16 arrays to numpy, by numpy
    x = jax.numpy.arange(4, dtype=jax.numpy.bfloat16)
    assert pointer(np.from_dlpack(x)) == pointer(x)
    y = torch.arange(4, dtype=torch.bfloat16)
    assert pointer(np.from_dlpack(y)) == pointer(y)
    np.testing.assert_array_equal(np.from_dlpack(y), np.arange(4))



@pytest.mark.skipif(not hasattr(np.dtypes, "register_dlpack_dtype"),
                    reason="numpy < 2.5: its own from_dlpack and __dlpack__ refuse "
                    "the float8 kinds (no register_dlpack_dtype)")
def test_float8_crosses_numpy_torch_jax_zero_copy_through_their_own_dlpack():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    ut.asarray(np.zeros(1))  # loads the numpy backend, which registers the kinds
    for name in ("float8_e4m3fn", "float8_e5m2"):
        base = np.array([0.5, 2.0, 4.0], getattr(ml_dtypes, name))
        t = torch.from_dlpack(base)
        assert t.dtype == getattr(torch, name)
        assert pointer(t) == pointer(base)
        j = jax.dlpack.from_dlpack(base)
        assert j.dtype == getattr(jax.numpy, name)
        back = np.from_dlpack(t)
        assert back.dtype == base.dtype
        assert pointer(back) == pointer(base)
        assert pointer(np.from_dlpack(j)) == pointer(j)

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




@pytest.mark.parametrize("src", [*FRAMEWORKS, "dask"])
def test_numpy_arrays_of_a_tensor_carry_numpys_own_dtypes(src, x64):
    """Every route to a numpy array (``np.asarray``/``__array__``, ``.numpy()``,
    ``np.from_dlpack``, a memoryview of the Buffer) gives numpy's canonical dtype
    object for each width: an int64 whose type is 'q' where numpy's own is 'l'
    compares equal but compiled code checking the type number refuses it
    (``scipy.ndimage.rank_filter``) or misreads it (``value_indices`` gave {}).
    """
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "bool", "float32", "float64", "complex128"):
        t = ut.asarray(np.arange(3).astype(name)).to(src, copy=True)
        own = np.dtype(name)
        made = [np.asarray(t), t.numpy(), np.from_dlpack(t)]
        if src != "dask":  # (a lazy owner's memory is made by computing it)
            made.append(np.asarray(memoryview(ut._convert.buffer_of(t, "test"))))
        for array in made:
            assert (array.dtype.char, array.dtype.num) == (own.char, own.num), name


@pytest.mark.parametrize("framework", [f for f in FRAMEWORKS
                                       if f != "array_api_strict"])
def test_created_memory_is_writable_by_compiled_code_only_where_its_owner_mutates(
        framework, x64):
    """The decision in docs/interop.md: a Tensor unitensor created (``empty``,
    ``zeros``) lends a read-only buffer on the immutable owners (jax,
    tensorflow), whose frameworks may share the memory, and a writable one on
    numpy and torch; compiled code (scipy.ndimage's ``output=``) writes there.
    """
    import scipy.ndimage
    with ut.owner(framework):
        made = [ut.empty((4,)), ut.zeros((4,))]
    immutable = framework in ("jax", "tensorflow")
    for t in made:
        assert np.asarray(t).flags.writeable is not immutable
        assert memoryview(ut._convert.buffer_of(t, "test")).readonly is immutable
    out = made[1]
    if immutable:
        with pytest.raises(ValueError, match="read-only"):
            scipy.ndimage.uniform_filter1d(np.arange(4.0), 1, output=np.asarray(out))
    else:
        scipy.ndimage.uniform_filter1d(np.arange(4.0), 1, output=np.asarray(out))
        assert np.asarray(out).tolist() == [0.0, 1.0, 2.0, 3.0]


# -- a framework's own functions given a Tensor (unitensor/_native.py's rule) ---
# The framework computes on the Tensor's zero-copy view and returns its own array;
# read-only memory is never written through it.

def _float32(src: str):
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    return base, ut.asarray(make(src, base))


@pytest.mark.parametrize("src", [f for f in ("numpy", "torch", "jax")
                                 if f in FRAMEWORKS])
def test_torch_functions_compute_on_the_tensors_memory(src):
    torch = pytest.importorskip("torch")
    base, t = _float32(src)
    out = torch.sin(t)
    assert type(out) is torch.Tensor
    np.testing.assert_allclose(out.numpy(), np.sin(base), rtol=1e-6)
    flat = torch.reshape(t, (-1,))  # a view: the Tensor's own memory
    assert type(flat) is torch.Tensor
    assert flat.data_ptr() == pointer(t.native)
    both = torch.cat([t, torch.zeros(1, 3)])  # Tensors inside a list too
    assert both.shape == (3, 3)
    assert both[:2].tolist() == base.tolist()
    assert torch.nn.functional.relu(t).tolist() == base.tolist()


def test_torch_functions_write_a_writable_tensor_in_place():
    torch = pytest.importorskip("torch")
    memory = np.array([-1.0, 2.0], dtype=np.float32)
    t = ut.asarray(memory)
    torch.relu_(t)
    assert memory.tolist() == [0.0, 2.0]
    torch.add(torch.ones(2), 1, out=t)
    assert memory.tolist() == [2.0, 2.0]


def test_torch_functions_never_write_read_only_memory():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.asarray([-1.0, 2.0])
    t = ut.asarray(x)
    with pytest.raises(ValueError, match=r"relu_\(\): input: .*read-only memory"):
        torch.relu_(t)
    with pytest.raises(ValueError, match=r"add\(\): out: .*read-only memory"):
        torch.add(torch.ones(2), 1, out=t)
    with pytest.raises(ValueError, match=r"relu\(\): input: .*read-only memory"):
        torch.nn.functional.relu(t, inplace=True)
    assert x.tolist() == [-1.0, 2.0]
    assert torch.relu(t).tolist() == [0.0, 2.0]  # reading it is zero-copy, as t.torch()


def test_torch_functions_of_positional_arguments_take_the_c_hook():
    # Tensor.__torch_function__ is ext/_fast.c's torch_function: a reading torch
    # function of positional arguments runs there on the torch views; keywords,
    # lists, in-place functions and a function seen the first time reach the
    # Python hook (_native.torch_function), which set_torch_function names
    torch = pytest.importorskip("torch")
    from unitensor import _fast, _native
    from unitensor._tensor import Tensor
    memory = np.array([-1.0, 2.0], dtype=np.float32)
    t, a = ut.asarray(memory), torch.ones(2)
    calls = []

    def counted(*args):
        calls.append(getattr(args[0], "__name__", args[0]))
        return _native.torch_function(*args)
    for func in (torch.sin, torch.add, torch.maximum, torch.reshape):
        _native._kinds.pop(func, None)  # unseen (other tests may have taught them)
    _fast.set_torch_function(counted, _native._kinds, Tensor.torch)
    try:
        torch.sin(t), torch.add(a, t), torch.maximum(t, a)  # learned, in Python
        assert calls == ["sin", "add", "maximum"]
        out = [torch.sin(t), torch.add(a, t), torch.maximum(t, a), torch.sin(t)]
        assert calls == ["sin", "add", "maximum"]  # all in C
        assert all(type(o) is torch.Tensor for o in out)
        assert [o.tolist() for o in out[1:3]] == [[0.0, 3.0], [1.0, 2.0]]
        np.testing.assert_allclose(out[0].numpy(), np.sin(memory))
        assert torch.reshape(t, (2,)).data_ptr() == memory.ctypes.data
        torch.cat([t, a])  # a list
        torch.add(a, t, alpha=2)  # a keyword
        torch.relu_(t)  # writes
        assert calls[3:] == ["reshape", "cat", "add", "relu_"]  # reshape: new
        assert memory.tolist() == [0.0, 2.0]
    finally:
        _fast.set_torch_function(_native.torch_function, _native._kinds, Tensor.torch)


def test_tensorflow_functions_take_the_tensors_view():
    tf = pytest.importorskip("tensorflow")
    memory = aligned_empty((2, 3), np.float32)  # TF's CPU kernels need 64 bytes
    memory[...] = np.arange(6).reshape(2, 3)
    for t in (ut.asarray(memory), ut.asarray(tf.constant(memory))):
        # the conversion is the Tensor's zero-copy view (cached), not a copy
        assert tf.convert_to_tensor(t) is t.tf()
        assert pointer(tf.convert_to_tensor(t)) == pointer(t.native)
        out = tf.sin(t)
        assert type(out) is type(tf.constant(0.0))
        np.testing.assert_allclose(out.numpy(), np.sin(memory), rtol=1e-6)
        assert tf.concat([t, t], 0).shape == (4, 3)
        with pytest.raises(ValueError, match="int32"):  # TF's own dtype rule
            tf.convert_to_tensor(t, dtype=tf.int32)


@pytest.mark.parametrize("src", [f for f in ("numpy", "torch", "jax", "tensorflow")
                                 if f in FRAMEWORKS])
def test_numpy_functions_compute_on_the_tensors_view(src):
    # numpy's route is __array__: its ufuncs and functions return numpy's arrays,
    # views of the Tensor's memory read-only where that memory is
    base, t = _float32(src)
    out = np.sin(t)
    assert type(out) is np.ndarray
    np.testing.assert_allclose(out, np.sin(base), rtol=1e-6)
    flat = np.reshape(t, -1)
    assert type(flat) is np.ndarray
    assert np.shares_memory(flat, t.numpy())
    assert flat.flags.writeable == (not t.readonly)
    assert t.readonly == (src in ("jax", "tensorflow"))


@pytest.mark.xfail(strict=True, raises=TypeError, reason=(
    "JAX refuses a foreign array inside its jitted functions: __jax_array__ is "
    "no longer triggered while jit abstracts its arguments (JAX >= 0.9); "
    "jnp.sin(t.jax()) is the spelling (docs/interop.md, Native functions)"))
def test_jax_functions_take_a_tensor():
    jnp = pytest.importorskip("jax.numpy")
    assert jnp.sin(ut.asarray(np.ones(2, np.float32))).tolist() == [np.sin(1.0)] * 2


def test_cuda_array_interface_only_on_cuda_memory():
    t = ut.asarray(np.ones(3, np.float32))
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match=r"__cuda_array_interface__\(\): self"):
        t.__cuda_array_interface__  # noqa: B018


@needs_cuda
def test_cuda_array_interface_of_cuda_memory():
    torch = pytest.importorskip("torch")
    x = torch.arange(4.0, device="cuda")
    iface = ut.asarray(x).__cuda_array_interface__
    assert iface["version"] == 3
    assert iface["data"] == (x.data_ptr(), False)
    assert iface["shape"] == (4,)
    assert "stream" in iface
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("jax has no CUDA backend here")
    y = jax.device_put(jax.numpy.arange(4.0), gpu)
    assert ut.asarray(y).__cuda_array_interface__["data"][1] is True  # read-only
