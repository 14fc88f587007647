"""The TensorFlow adapter (unitensor/_backends/tensorflow/): 64-byte aligned,
row-major memory only (TF's kernels abort on less), its C++ import and routes
with their fallbacks, and its namespace: TF-owned data computes in TF, with the
standard's promotion, and TF's global state untouched."""

from __future__ import annotations

import gc
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from frameworks import aligned_empty

import unitensor as ut
from unitensor import _backends, _core
from unitensor._backends import _dlpack
from unitensor._backends.numpy import interop as numpy_interop

pytest.importorskip("tensorflow")

NUMPY = _backends.get("numpy")


def _fresh_interpreter(code: str) -> str:
    """What ``code`` prints, run by a fresh interpreter in the repository root
    (where an abort or a reset of TF's state is a result, not this process's)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()

@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_unaligned_memory_never_reaches_tensorflow_uncopied():
    """Without the alignment guard, TF's StridedSlice kernel aborts the process
    (``tensor.h: Check failed: IsAligned()``): run it where an abort is a result."""
    pytest.importorskip("tensorflow")
    code = (
        "import sys, warnings, numpy as np, unitensor as ut\n"
        "sys.path.insert(0, 'tests/helpers')\n"
        "from frameworks import aligned_empty\n"
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
    assert _fresh_interpreter(code) == "ok"


def test_tensorflow_owned_data_computes_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = ut.asarray(tf.constant([1.0, 2.0, 3.0]))
    for result in (ut.multiply(x, 2), x * 2, 2 * x, ut.sum(x), x[1:], ut.sort(x),
                   ut.matmul(x, x), ut.where(x > 1, x, 0.0), ut.cumulative_sum(x)):
        assert result.owner == "tensorflow"
        assert isinstance(result.tf(copy=False), tf.Tensor)
    assert (x * 2).numpy().tolist() == [2.0, 4.0, 6.0]


def test_every_function_computes_in_tensorflow_and_missing_kernels_in_numpy():
    """No function of the standard is left to numpy (NOT_YET is empty); a dtype
    without a TF kernel (matmul of int8) still computes in numpy, on zero-copy
    views, and its result is a TF tensor: no change of owner."""
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.tensorflow import namespace as tf_namespace
    assert tf_namespace.NOT_YET == []
    x = ut.asarray(tf.constant([[2, 0], [0, 4]], tf.int8))
    product = ut.matmul(x, x)
    assert product.owner == "tensorflow"
    assert product.dtype == ut.int8
    np.testing.assert_array_equal(product.numpy(), [[4, 0], [0, 16]])
    values = ut.unique_values(ut.asarray(tf.constant([3, 1, 3])))
    assert values.owner == "tensorflow"
    assert values.numpy().tolist() == [1, 3]


def test_isin_sort_based_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    nan = math.nan
    cases = [(np.array([[1.0, nan, 3.0], [2.0, -0.0, 5.0]]), np.array([3.0, 0.0, nan])),
             (np.array([2**64 - 1, 2**63, 1], np.uint64), np.array([2**63], np.uint64)),
             (np.array([1 + 1j, 2j, complex(nan, 1)]),
              np.array([1 + 1j, complex(nan, 1)])),
             (np.ones((2, 2)), np.zeros(0))]
    for a, b in cases:
        for invert in (False, True):
            got = ut.isin(ut.asarray(tf.constant(a)), ut.asarray(tf.constant(b)),
                          invert=invert)
            assert got.owner == "tensorflow"
            np.testing.assert_array_equal(got.numpy(), np.isin(a, b, invert=invert))
    x = ut.asarray(tf.constant([1, 2, 3], tf.int8))
    assert ut.isin(x, 2).numpy().tolist() == [False, True, False]
    assert ut.broadcast_shapes((2, 1), (3,)) == (2, 3)


def test_promotion_is_the_standards_operators_included():
    tf = pytest.importorskip("tensorflow")
    i8 = ut.asarray(tf.constant([1, 2], tf.int8))
    i32 = ut.asarray(tf.constant([3, 4], tf.int32))
    f32 = ut.asarray(tf.constant([1.0, 2.0], tf.float32))
    f64 = ut.asarray(tf.constant([1.0, 2.0], tf.float64))
    u8 = ut.asarray(tf.constant([1, 2], tf.uint8))
    assert (i8 + i32).dtype == ut.int32
    assert (u8 + i8).dtype == ut.int16
    assert (f32 + f64).dtype == ut.float64
    assert (f32 / f64).dtype == ut.float64
    assert (f64 / f32).dtype == ut.float64  # reflected order
    assert (2.5 * f32).dtype == ut.float32  # a Python float takes the array's
    assert (1j * f32).dtype == ut.complex64
    assert (i8 + 1).dtype == ut.int8
    assert ut.divide(i32, i32).dtype == ut.float64
    # mixed kinds, which the standard leaves open: unitensor's one rule
    assert (i32 + f32).dtype == ut.float32
    assert ut.matmul(i32, f32).dtype == ut.float32
    y = ut.asarray(tf.constant([1.0, 2.0], tf.float64))
    y += f32  # in place: keeps float64, rebinds
    assert y.dtype == ut.float64
    assert y.owner == "tensorflow"
    assert y.numpy().tolist() == [2.0, 4.0]


def test_unsigned_and_small_integers_exact_where_tf_has_no_kernel():
    tf = pytest.importorskip("tensorflow")
    big = ut.asarray(tf.constant([2**64 - 1, 3], tf.uint64))
    assert ut.abs(big).numpy().tolist() == [2**64 - 1, 3]
    assert ut.sign(big).numpy().tolist() == [1, 1]
    assert (big ** 1).numpy().tolist() == [2**64 - 1, 3]
    assert ut.max(big).numpy() == 2**64 - 1
    m = ut.asarray(tf.constant([[1, 2], [3, 4]], tf.uint8))
    product = m @ m
    assert product.owner == "tensorflow"
    assert product.dtype == ut.uint8
    assert product.numpy().tolist() == [[7, 10], [15, 22]]


def test_indexing_with_integer_arrays_and_masks():
    tf = pytest.importorskip("tensorflow")
    x = ut.asarray(tf.reshape(tf.range(12.0), (3, 4)))
    rows = ut.asarray(tf.constant([2, 0, -1]))
    assert x[rows].numpy()[:, 0].tolist() == [8.0, 0.0, 8.0]
    cols = ut.asarray(tf.constant([1, 3, 0]))
    assert x[rows, cols].numpy().tolist() == [9.0, 3.0, 8.0]
    assert x[x > 9.0].numpy().tolist() == [10.0, 11.0]
    assert ut.take(x, ut.asarray(tf.constant([1])), axis=1).shape == (3, 1)
    assert all(r.owner == "tensorflow" for r in (x[rows], x[rows, cols], x[x > 9.0]))


def test_tensorflow_owned_copy_then_write():
    """Copy, then write: TF tensors are immutable, so the Tensor is rebound to the
    update (int, slice, boolean-mask and integer-array keys), made by TF, and the
    source is unchanged."""
    tf = pytest.importorskip("tensorflow")
    source = tf.constant([0.0, 1.0, 2.0, 3.0, 4.0])
    c = ut.asarray(source, copy=True)
    c[0] = 5.0
    c[ut.asarray(tf.constant([False, True, False, False, False]))] = 7.0
    c[ut.asarray(tf.constant([3]))] = 9.0
    c[-1:] = ut.asarray(tf.constant([8.0]))
    assert c.owner == "tensorflow"
    np.testing.assert_array_equal(c.numpy(), [5.0, 7.0, 2.0, 9.0, 8.0])
    np.testing.assert_array_equal(source.numpy(), [0.0, 1.0, 2.0, 3.0, 4.0])
    m = ut.asarray(tf.zeros((2, 3)))
    original = m.tf()
    m[:, 1] = 1.0
    m[1] = ut.asarray(tf.constant([4.0, 5.0, 6.0]))
    assert m.numpy().tolist() == [[0.0, 1.0, 0.0], [4.0, 5.0, 6.0]]
    assert original.numpy().tolist() == [[0.0] * 3] * 2


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_tensorflow_global_state_is_untouched():
    """unitensor never calls experimental_enable_numpy_behavior: after it ran TF
    operations, TF still refuses what plain TF refuses (a fresh interpreter)."""
    code = (
        "import tensorflow as tf, unitensor as ut\n"
        "x = ut.asarray(tf.constant([1, 2], tf.int32))\n"
        "y = ut.asarray(tf.constant([1.0, 2.0], tf.float64))\n"
        "r = (x + 1, ut.sum(y), y / 2, ut.sort(y), x[ut.asarray(tf.constant([1]))],\n"
        "     ut.astype(x, ut.float64) * y, ut.linalg.inv(ut.eye(2, dtype=ut.float64,\n"
        "     device=y.device)))\n"
        "assert all(t.owner == 'tensorflow' for t in r)\n"
        "try:\n"
        "    tf.constant(1, tf.int32) + tf.constant(1.0)\n"
        "except (TypeError, tf.errors.InvalidArgumentError):\n"
        "    print('raises')\n"
        "else:\n"
        "    print('numpy behaviour was enabled')\n")
    assert _fresh_interpreter(code) == "raises"


@pytest.mark.slow  # a fresh interpreter: TF's context is reset there
def test_numpy_to_tensorflow_follows_a_new_eager_context():
    pytest.importorskip("tensorflow")
    # the route reads TF's eager context from its module: a new one (TF's own
    # reset) is taken up, its tensors computed in it
    code = (
        "import sys, numpy as np, tensorflow as tf, unitensor as ut\n"
        "from tensorflow.python.eager import context\n"
        "from unitensor._backends.tensorflow import interop\n"
        "sys.path.insert(0, 'tests/helpers')\n"
        "from frameworks import aligned_empty\n"
        "a = aligned_empty((4,), np.float64)\n"
        "a[:] = [1.0, 2.0, 3.0, 4.0]\n"
        "assert float(tf.reduce_sum(ut.asarray(a).tf())) == 10.0\n"
        "first = interop._context\n"
        "context._reset_context()\n"
        "t = ut.asarray(a).tf()\n"
        "assert interop._context is context.context() is not first\n"
        "assert float(tf.reduce_sum(t * 2)) == 20.0\n"
        "print('ok')\n")
    assert _fresh_interpreter(code) == "ok"


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


def test_tensorflow_s_route_from_numpy_holds_the_array_itself_until_tf_lets_go():
    """The route's capsule is made in C over the numpy array (_core.ndarray_capsule):
    no Buffer, an Export holding the array, freed with TF's tensor; what TF cannot
    alias as it is (not row-major compact, unaligned, a dtype DLPack's capsule
    does not name here) is declined for the general path."""
    route = _backends.get("tensorflow").ROUTES["numpy"]
    gc.collect()
    before = _core.stats()
    a = aligned_empty((4, 1, 2), np.float16)
    a[...] = 1.5
    refs = sys.getrefcount(a)
    t = route(a)
    assert _dlpack.buffer_from_dlpack(t).data_ptr == a.ctypes.data
    assert t.shape == (4, 1, 2)
    assert t.dtype.name == "float16"
    np.testing.assert_array_equal(t.numpy(), a)
    assert _core.stats()["buffers_alive"] == before["buffers_alive"]
    assert _core.stats()["exported_alive"] == before["exported_alive"] + 1
    assert sys.getrefcount(a) == refs + 1
    del t
    gc.collect()
    assert _core.stats()["exported_alive"] == before["exported_alive"]
    assert sys.getrefcount(a) == refs
    read_only = aligned_empty((3,), np.int32)
    read_only.flags.writeable = False  # TF never writes: lent as it is
    assert route(read_only) is not None
    assert route(aligned_empty((8,), np.float32)[1:]) is None  # not 64-byte aligned
    assert route(np.zeros(2, [("a", "f4")])) is None
    assert route(aligned_empty((2,), np.float32).view(">f4")) is None
    assert route([1.0]) is None  # not an array
    with pytest.raises(TypeError, match="ndarray_import"):
        _core.ndarray_import(print, print, 0, a)


def test_tensorflow_s_route_from_numpy_is_one_c_call_reading_the_context_then():
    """The route runs no Python frame (TF's import, the capsule and the context's
    handle in one C call), and reads TF's eager context as it is at each call: a
    handle that is not there (no context made yet, or not initialised) leaves the
    conversion to the general path, which makes it."""
    route = _backends.get("tensorflow").ROUTES["numpy"]
    assert route.func is _core.ndarray_import
    a = aligned_empty((3,), np.float32)
    calls = []
    sys.setprofile(lambda frame, event, arg: calls.append(event))
    try:
        t = route(a)
    finally:
        sys.setprofile(None)
    assert "call" not in calls  # C functions only ('c_call')
    assert t is not None
    refs = sys.getrefcount(a)
    for handle in (lambda: None, lambda: None._context_handle):
        assert _core.ndarray_import(route.args[0], handle, 64, a) is None
    assert sys.getrefcount(a) == refs  # the declined capsule's Export freed
    with pytest.raises(ZeroDivisionError):  # any other error goes on up
        _core.ndarray_import(route.args[0], lambda: 1 / 0, 64, a)
    assert sys.getrefcount(a) == refs


def test_tensorflow_routes_share_memory_and_decline_what_they_cannot():
    import tensorflow as tf
    tf_backend = _backends.get("tensorflow")
    a = aligned_empty((2, 3), np.float64)
    a[...] = np.arange(6.0).reshape(2, 3)
    t = tf_backend.ROUTES["numpy"](a)
    assert _dlpack.buffer_from_dlpack(t).data_ptr == a.ctypes.data
    assert tf_backend.ROUTES["numpy"](a.T) is None  # TF needs row-major
    bf16 = np.zeros(2, numpy_interop._BFLOAT16)  # no buffer-protocol name
    assert tf_backend.ROUTES["numpy"](bf16) is None
    back = NUMPY.ROUTES["tensorflow"](t)
    assert back.ctypes.data == a.ctypes.data
    assert not back.flags.writeable
    # the route's view is made by numpy's C API, which names no bfloat16: the
    # general path takes it (through ml_dtypes), read-only as the route's are
    assert NUMPY.ROUTES["tensorflow"](tf.constant([1.0], tf.bfloat16)) is None
    x = ut.asarray(tf.constant([1.0, 2.0], tf.bfloat16))
    assert x.numpy().dtype.name == "bfloat16"
    assert not x.numpy().flags.writeable
    assert float(x.numpy()[1]) == 2.0


def test_creation_and_astype_take_the_tensor_s_own_device():
    # found by the namespace fuzzer: astype(x, int16, device=x.device) read TF's
    # short device name '/CPU:0' as no device at all
    from unitensor._backends.tensorflow.interop import device_of_name
    with ut.owner("tensorflow"):
        x = ut.zeros(3, dtype=ut.int32)
    y = ut.astype(x, ut.int16, device=x.device)
    assert (y.owner, y.dtype, y.device) == ("tensorflow", ut.int16, x.device)
    assert ut.zeros(2, device=x.device).owner == "tensorflow"
    for name in ("/job:localhost/replica:0/task:0/device:GPU:1", "/GPU:1", "GPU:1"):
        assert device_of_name(name) == ut.Device("cuda", 1)
    assert device_of_name("/CPU:0") == ut.Device("cpu")
    assert device_of_name("/device:CPU:0") == ut.Device("cpu")


def test_signed_zeros_survive_tensorflows_scalar_cache():
    """TF caches eager scalar constants by value, and 0.0 == -0.0: after a +0
    constant, ``tf.constant(-0.0)`` gave +0 (the official suite's -0 cases)."""
    tf = pytest.importorskip("tensorflow")
    with ut.owner("tensorflow"):
        for value, dtype in ((0.0, ut.float64), (-0.0, ut.float64),
                             (0.0, ut.float32), (-0.0, ut.float32),
                             (0j, ut.complex128), (complex(-0.0, 0.0), ut.complex128)):
            x = ut.asarray(value, dtype=dtype)
            assert x.owner == "tensorflow"
            got = complex(x)
            assert math.copysign(1, got.real) == math.copysign(1, value.real)
        x = ut.asarray(tf.constant([1.0, 2.0], tf.float64))
        assert (x * 0.0).numpy().tolist() == [0.0, 0.0]
        assert [math.copysign(1, v) for v in (x * -0.0).numpy()] == [-1, -1]
        assert math.copysign(1, float(ut.full((), -0.0, dtype=ut.float64))) == -1


def _normalize(a):
    """Framework-agnostic code: the standard's namespace, operators, indexing."""
    x = ut.asarray(a)
    xp = x.__array_namespace__()
    centred = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0, correction=1)
    top = xp.max(centred[:, 1:], axis=-1, keepdims=True)
    mask = centred > 0
    clipped = xp.where(mask, centred, xp.zeros_like(centred))
    return xp.concat([clipped, top, xp.sort(centred, axis=1, descending=True)], axis=1)


GRAPH_CASES = {
    "normalize": (_normalize, "float64"),
    "elementwise": (lambda a: ut.exp(ut.asarray(a)) + ut.sin(a) * 2 - ut.abs(a) ** 2,
                    "float32"),
    "reductions": (lambda a: ut.stack([ut.sum(a, axis=0), ut.var(a, axis=0),
                                       ut.cumulative_sum(a, axis=0)[-1]]), "float64"),
    "indexing": (lambda a: ut.asarray(a)[ut.asarray(a)[:, 0] > 2.0][:, ::-1],
                 "float64"),
    "integer arrays": (lambda a: ut.take(a, ut.argsort(ut.asarray(a)[:, 1]), axis=0),
                       "float64"),
    "matmul": (lambda a: ut.linalg.inv(
        ut.matmul(ut.matrix_transpose(a), a)
        + ut.eye(3, dtype=ut.float64, device=ut.asarray(a).device)), "float64"),
    "setitem": (lambda a: _write(ut.asarray(a)), "float64"),
    "complex": (lambda a: ut.sqrt(ut.astype(a, ut.complex128) - 4.0)
                / ut.asarray(1j, device=ut.asarray(a).device), "float64"),
    "complex special": (lambda a: ut.log(ut.astype(a, ut.complex128) * 0), "float64"),
    "uint8 pow": (lambda a: ut.astype(a, ut.uint8) ** 2, "float64"),
    "unique": (lambda a: ut.unique_all(ut.round(a)).inverse_indices, "float64"),
    "fft": (lambda a: ut.abs(ut.fft.rfftn(a, axes=(0, 1), norm="ortho")), "float64"),
}


def _write(x):
    x[0, :] = -1.0
    x[x > 3] = 0.0
    x += 1
    return x


@pytest.mark.parametrize("name", GRAPH_CASES)
def test_namespace_inside_tf_function_matches_eager(name):
    """Inside tf.function the operands are symbolic tensors: they are wrapped as
    TF-owned Tensors, the namespace builds TF's graph, and the results match
    eager execution."""
    tf = pytest.importorskip("tensorflow")
    func, dtype = GRAPH_CASES[name]
    data = tf.constant([[1.0, 5.0, 2.0], [3.0, -1.0, 4.0], [6.0, 2.0, 0.5],
                        [2.5, 3.5, 1.0]], dtype)
    seen = []

    def body(a):
        result = func(a)
        seen.append(result.owner)
        return result.tf()
    graph = tf.function(body)(data)
    assert seen == ["tensorflow"]
    assert isinstance(graph, tf.Tensor)
    assert hasattr(graph, "numpy")
    eager = func(data)
    assert eager.owner == "tensorflow"
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-6)


def test_tensor_of_a_symbolic_tensor_and_what_needs_memory():
    tf = pytest.importorskip("tensorflow")
    checked = []

    @tf.function
    def body(a):
        x = ut.asarray(a)
        assert x.owner == "tensorflow"
        assert x.dtype == ut.float32
        assert x.shape == (None, 2)
        assert x.size is None
        assert x.ndim == 2
        assert x.device == ut.asarray(tf.constant(1.0)).device
        for convert in (lambda: x.numpy(), lambda: x.torch(), lambda: x.__dlpack__(),
                        lambda: float(x[0, 0]), lambda: bool(x[0, 0] > 0),
                        lambda: np.asarray(x),
                        lambda: ut.matmul(ut.astype(x, ut.int8),
                                          ut.astype(x.mT, ut.int8))):
            with pytest.raises(TypeError, match=r"^\w+\(\): \w+: expected .*"
                               r"tf\.function.*, got a symbolic tf\.Tensor inside "
                               r"tf\.function"):
                convert()
            checked.append(convert)
        return (x * 2).tf()

    spec = tf.TensorSpec((None, 2), tf.float32)
    out = body.get_concrete_function(spec)(tf.ones((3, 2)))
    assert out.numpy().tolist() == [[2.0, 2.0]] * 3
    assert len(checked) == 7


def test_unique_in_tensorflow_sort_based():
    """unique_* sort in TF (real part, imaginary part, NaNs last): every NaN is a
    value of its own, -0 and +0 are one, uint64 above 2**63 exact; the same
    values, first indices, inverse and counts as numpy's (values sorted)."""
    tf = pytest.importorskip("tensorflow")
    nan = math.nan
    cases = [
        np.array([3.0, nan, 1.0, 3.0, -0.0, 0.0, nan, math.inf, 1.0, -math.inf]),
        np.array([[1 + 1j, 1 + 0j], [complex(nan, 0), 1 + 1j], [0j, complex(0, nan)],
                  [1 + 0j, -1j]]),
        np.array([2**64 - 1, 2**63, 5, 2**64 - 1, 0], np.uint64),
        np.array([[True, False], [True, True]]),
        np.array([5, -3, 5, 5, 0], np.int8),
        np.zeros((0, 3), np.float32),
    ]
    for data in cases:
        x = ut.asarray(tf.constant(data))
        got = ut.unique_all(x)
        assert {t.owner for t in got} == {"tensorflow"}
        values, indices, inverse, counts = np.unique(
            data, return_index=True, return_inverse=True, return_counts=True,
            equal_nan=False)
        np.testing.assert_array_equal(got.values.numpy(), values)
        np.testing.assert_array_equal(got.indices.numpy(), indices)
        np.testing.assert_array_equal(got.inverse_indices.numpy(),
                                      inverse.reshape(data.shape))
        np.testing.assert_array_equal(got.counts.numpy(), counts)
        assert got.indices.dtype == got.counts.dtype == ut.int64
        np.testing.assert_array_equal(ut.unique_values(x).numpy(), values)
        np.testing.assert_array_equal(ut.unique_counts(x).counts.numpy(), counts)
        np.testing.assert_array_equal(ut.unique_inverse(x).inverse_indices.numpy(),
                                      inverse.reshape(data.shape))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
                                  "fftn", "ifftn", "rfftn", "irfftn"])
def test_fft_through_tf_signal_matches_numpy(name):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(1)
    real = rng.standard_normal((3, 4, 6))
    data = real if name in ("rfft", "ihfft", "rfftn") else \
        real + 1j * rng.standard_normal(real.shape)
    x = ut.asarray(tf.constant(data))
    if name.endswith("n"):
        options = [{}, {"s": (3, 5), "axes": (0, 2)}, {"axes": (1,)}]
    else:
        options = [{}, {"n": 3, "axis": 0}, {"n": 9, "axis": 1}]
    for kwargs in options:
        for norm in ("backward", "ortho", "forward"):
            got = getattr(ut.fft, name)(x, norm=norm, **kwargs)
            assert got.owner == "tensorflow"
            want = getattr(np.fft, name)(data, norm=norm, **kwargs)
            assert got.shape == want.shape
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    frequencies = ut.fft.fftfreq(5, d=0.5, device=x.device)
    assert frequencies.owner == "tensorflow"
    np.testing.assert_allclose(frequencies.numpy(), np.fft.fftfreq(5, 0.5))
    np.testing.assert_allclose(ut.fft.rfftfreq(5, device=x.device).numpy(),
                               np.fft.rfftfreq(5))
    np.testing.assert_array_equal(ut.fft.fftshift(x, axes=(0, 2)).numpy(),
                                  np.fft.fftshift(data, axes=(0, 2)))
    np.testing.assert_array_equal(ut.fft.ifftshift(x).numpy(), np.fft.ifftshift(data))


def test_official_suite_findings():
    """What data-apis/array-api-tests found with a TF owner."""
    pytest.importorskip("tensorflow")
    with ut.owner("tensorflow"):
        x = ut.asarray([[7]], dtype=ut.int32)
        # 0-d int64 and int32 indices together (TF packs a key into one tensor)
        assert int(x[ut.asarray(0), ut.asarray(0, dtype=ut.int32)]) == 7
        # a 0-d array as a slice bound
        y = ut.asarray([False, True, True])
        assert y[0:ut.asarray(2, dtype=ut.int32)].numpy().tolist() == [False, True]
        # bools for a numeric dtype
        assert int(ut.asarray(False, dtype=ut.uint8)) == 0
        assert ut.asarray([True, False], dtype=ut.float32).numpy().tolist() == [1, 0]
        # a diagonal beyond int64
        assert ut.eye(2, k=2**63).numpy().tolist() == [[0, 0], [0, 0]]
        # repeat of an empty array along a non-empty axis (TF's own fails)
        empty = ut.zeros((0, 2), dtype=ut.bool)
        repeats = ut.asarray([1, 2], dtype=ut.int8)
        assert ut.repeat(empty, repeats, axis=1).shape == (0, 3)
        assert ut.repeat(empty, 2, axis=1).shape == (0, 4)
        # std/var over no axis
        assert ut.std(ut.asarray([1.0, 2.0]), axis=()).numpy().tolist() == [0, 0]
        # expand_dims with several axes (2025.12)
        assert ut.expand_dims(ut.asarray([1.0, 2.0]), axis=(0, -1)).shape == (1, 2, 1)
        with pytest.raises(IndexError, match="expand_dims"):
            ut.expand_dims(ut.asarray([1.0, 2.0]), axis=(0, 0))
        # pinv's and matrix_rank's rtol may be an array
        m = ut.asarray([[1.0, 0.0, 0.0], [0.0, 1e-3, 0.0], [0.0, 0.0, 0.0]])
        assert int(ut.linalg.matrix_rank(m, rtol=ut.asarray(1e-2))) == 1
        assert ut.linalg.pinv(m, rtol=ut.asarray(1e-6)).owner == "tensorflow"


def test_linalg_in_tensorflow_matches_numpy():
    """solve, qr, svd, slogdet, pinv, matrix_rank, matrix_norm, eig and eigvals
    compute in TF (no longer NOT_YET), with numpy's results."""
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.tensorflow import namespace as tf_namespace
    assert not [n for n in tf_namespace.NOT_YET if n.startswith("linalg.")]
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((3, 2))
    x, y = ut.asarray(tf.constant(a)), ut.asarray(tf.constant(b))
    close = np.testing.assert_allclose
    close(ut.linalg.solve(x, y).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    close(ut.linalg.solve(x, y[:, 0]).numpy(), np.linalg.solve(a, b[:, 0]), rtol=1e-10)
    q, r = ut.linalg.qr(x)
    close(ut.matmul(q, r).numpy(), a, atol=1e-12)
    u, s, vh = ut.linalg.svd(x, full_matrices=False)
    close(s.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    close((u * s[..., None, :]) @ vh, a, atol=1e-12)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    sign, logabsdet = ut.linalg.slogdet(ut.asarray(tf.constant(singular)))
    assert math.copysign(1, float(sign)) == 1.0
    assert float(logabsdet) == -math.inf
    close(ut.linalg.slogdet(x).logabsdet.numpy(), np.linalg.slogdet(a).logabsdet)
    close(ut.linalg.pinv(x).numpy(), np.linalg.pinv(a), rtol=1e-8)
    low = np.diag([1.0, 1e-3, 0.0])
    rank = ut.linalg.matrix_rank(ut.asarray(tf.constant(np.stack([low, low]))),
                                 rtol=ut.asarray(tf.constant([1e-2, 1e-6])))
    assert rank.numpy().tolist() == [1, 2]
    for order in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        got = ut.linalg.matrix_norm(x, ord=order, keepdims=True)
        assert got.owner == "tensorflow"
        close(got.numpy(), np.linalg.norm(a, ord=order, axis=(-2, -1), keepdims=True),
              rtol=1e-10)
    values, vectors = ut.linalg.eig(x)
    assert values.dtype == ut.complex128
    close((ut.astype(x, ut.complex128) @ vectors).numpy(),
          (vectors * values[..., None, :]).numpy(), atol=1e-10)
    close(np.sort_complex(ut.linalg.eigvals(x).numpy()),
          np.sort_complex(np.linalg.eigvals(a)), rtol=1e-10)


UINT64_CASES = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b, "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b, "pow": lambda a, b: a ** 2,
    "maximum": ut.maximum, "less": lambda a, b: a < b,
    "bitwise": lambda a, b: (a & b) | (a ^ (b << 3)) | (~a >> 2),
    "negative": lambda a, b: -a, "sign": lambda a, b: ut.sign(a),
    "sum": lambda a, b: ut.sum(a), "prod": lambda a, b: ut.prod(a),
    "cumulative_sum": lambda a, b: ut.cumulative_sum(a),
    "max": lambda a, b: ut.max(a),
    "argmax": lambda a, b: ut.argmax(a),
    "sort": lambda a, b: ut.sort(a, descending=True),
    "argsort": lambda a, b: ut.argsort(a), "where": lambda a, b: ut.where(a > b, a, b),
    "clip": lambda a, b: ut.clip(a, 2**63, 2**64 - 2),
    "searchsorted": lambda a, b: ut.searchsorted(ut.sort(a), b),
    "unique": lambda a, b: ut.unique_counts(a).values, "isin": ut.isin,
    "diff": lambda a, b: ut.diff(a), "repeat": lambda a, b: ut.repeat(a, 2),
    "full_like": lambda a, b: ut.full_like(a, 2**64 - 1),
    "arange": lambda a, b: ut.arange(2**64 - 1, 2**63, -(2**61), dtype=ut.uint64,
                                     device=a.device),
    "matmul": ut.matmul, "vecdot": ut.vecdot,
    "astype": lambda a, b: ut.astype(a, ut.int8),
    "getitem": lambda a, b: a[a > 2**63], "equal": lambda a, b: a == 2**64 - 1,
    "add_scalar": lambda a, b: a + 2**63,
}


@pytest.mark.parametrize("name", UINT64_CASES)
def test_uint64_exact_in_tensorflow(name):
    """uint64 values of 2**63 and more survive every path (no int64 detour)."""
    tf = pytest.importorskip("tensorflow")
    big = np.array([2**64 - 1, 2**63, 2**63 + 5, 7, 0], np.uint64)
    other = np.array([3, 2**63 + 1, 1, 2**64 - 2, 9], np.uint64)
    func = UINT64_CASES[name]
    with np.errstate(all="ignore"):
        got = func(ut.asarray(tf.constant(big)), ut.asarray(tf.constant(other)))
        want = func(ut.asarray(big.copy()), ut.asarray(other.copy()))
    assert got.owner == "tensorflow"
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    values = ut.asarray(tf.constant(big))
    assert int(values[0]) == 2**64 - 1
    values[1] = 2**64 - 3
    assert int(values[1]) == 2**64 - 3


def test_device_is_where_the_memory_is():
    """``Tensor.device`` reads TF's backing_device (an int32 tensor placed on a
    GPU lives in host memory); on this CPU build both name the CPU."""
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.tensorflow import interop as tf_interop
    for dtype in (tf.int32, tf.float32):
        t = tf.constant([1, 2], dtype)
        x = ut.asarray(t)
        assert x.device == tf_interop.device_of_name(t.backing_device)
        assert x.device.dlpack == x.__dlpack_device__() == (1, 0)


def test_complex_prod_multiplies_in_order_and_empty_unsigned_arange():
    """A complex product that overflows reaches numpy's infinities (TF's tree
    reduction gave inf-infj for numpy's -9.7e37-infj); arange with no elements
    takes bounds outside an unsigned dtype."""
    tf = pytest.importorskip("tensorflow")
    data = np.array([6j, 42j, 57j, 65j, 80j, 83j, 85j, 86j, 90j, 93j, 81j, 11j, 39j,
                     22j, 27j, 28j, 56j, 46 + 63j, 78j, 85, 91 + 93j, -1 - 7j, -1,
                     -19 - 100j], np.complex64).reshape(2, 3, 4)
    x = ut.asarray(tf.constant(data))
    with np.errstate(all="ignore"):
        want = np.prod(data)
        np.testing.assert_array_equal(ut.prod(x).numpy(), want)
        for axis in (0, (0, 2), (), -1):
            np.testing.assert_allclose(ut.prod(x, axis=axis, keepdims=True).numpy(),
                                       np.prod(data, axis=axis, keepdims=True),
                                       rtol=1e-6)
    # TF's complex multiplication recovers infinities (C99 Annex G) where
    # numpy's gives NaN: such products are numpy's
    for values in ([1e38 + 1e38j, 1e38 + 1e38j, 1e38 - 1e38j], [3e38 + 3e38j] * 3):
        data = np.array(values, np.complex64)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(ut.prod(ut.asarray(tf.constant(data))).numpy(),
                                          np.prod(data))
    empty = ut.asarray(tf.constant(np.zeros((0, 2), np.complex128)))
    assert ut.prod(empty, axis=0).numpy().tolist() == [1, 1]
    with ut.owner("tensorflow"):
        assert ut.arange(-1, -2, 3, dtype=ut.uint64).shape == (0,)
        assert ut.arange(2, stop=-2, step=3, dtype=ut.uint8).shape == (0,)


def test_writes_to_a_tensor_of_a_variable_assign_the_variable():
    # a snapshot would take the writes and the variable would never change
    # (issue 30): the variable is TensorFlow's mutable array, written through
    tf = pytest.importorskip("tensorflow")
    var = tf.Variable([1.0, 2.0, 3.0])
    t = ut.asarray(var)
    t[0] = 10.0
    np.testing.assert_array_equal(var.numpy(), [10.0, 2.0, 3.0])
    t += 1.0
    np.testing.assert_array_equal(var.numpy(), [11.0, 3.0, 4.0])
    t[1:] = ut.asarray(tf.zeros(2))
    np.testing.assert_array_equal(var.numpy(), [11.0, 0.0, 0.0])
    np.testing.assert_array_equal(t.numpy(), var.numpy())
    with ut.owner("numpy"), warnings.catch_warnings():  # computed elsewhere,
        warnings.simplefilter("ignore", ut.CopyWarning)  # (aligned for TF: a copy)
        t *= 2.0  # written back into the variable
    np.testing.assert_array_equal(var.numpy(), [22.0, 0.0, 0.0])
    np.testing.assert_array_equal(ut.asarray(var).numpy(), [22.0, 0.0, 0.0])


def test_writes_to_a_tensor_of_a_variable_assign_it_inside_tf_function():
    tf = pytest.importorskip("tensorflow")
    var = tf.Variable([1.0, 2.0])

    @tf.function
    def step():
        t = ut.asarray(var)
        t += 100.0
        return t.tf()

    np.testing.assert_array_equal(step().numpy(), [101.0, 102.0])
    np.testing.assert_array_equal(var.numpy(), [101.0, 102.0])


def test_a_tensor_of_a_tf_tensor_still_rebinds_alone():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant([1.0, 2.0])
    t = ut.asarray(x)
    t += 1.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(t.numpy(), [2.0, 3.0])


# Complex values whose truth the standard gives: True unless both parts are 0
# (0.5j and -1j are true; TF's cast to bool reads the real part only).
COMPLEX_TRUTH = [0.5j, -1j, 1, 0, complex("nan"), -0.0j, complex(0, math.inf)]
COMPLEX_TRUE = [True, True, True, False, True, False, True]


def _complex_tensor(dtype=np.complex128):
    tf = pytest.importorskip("tensorflow")
    return ut.asarray(tf.constant(np.array(COMPLEX_TRUTH, dtype)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_astype_bool_is_true_unless_both_parts_are_zero(dtype):
    x = _complex_tensor(dtype)
    assert ut.astype(x, ut.bool).numpy().tolist() == COMPLEX_TRUE
    assert ut.astype(x, ut.bool).owner == "tensorflow"
    # a bool mask made from it selects the true elements
    assert ut.sum(ut.astype(x, ut.bool)).numpy() == sum(COMPLEX_TRUE)


def test_complex_asarray_with_dtype_bool_is_true_unless_both_parts_are_zero():
    # the adapter's astype (conversions with a dtype), not the namespace's
    x = _complex_tensor()
    assert ut.asarray(x, dtype=ut.bool).numpy().tolist() == COMPLEX_TRUE
    tf = pytest.importorskip("tensorflow")
    assert ut.asarray(tf.constant(np.array(COMPLEX_TRUTH)), dtype=ut.bool
                      ).numpy().tolist() == COMPLEX_TRUE


def test_complex_casts_to_real_dtypes_and_predicates_match_numpy():
    # the rest of the audit, as numpy's owner answers: casts to int and float
    # take the real part (numpy's), nonzero, count_nonzero, any, all, bool() read
    # both parts
    x = _complex_tensor()
    data = np.array(COMPLEX_TRUTH)
    with np.errstate(all="ignore"):
        for dtype in (ut.float64, ut.float32):
            np.testing.assert_array_equal(ut.astype(x, dtype).numpy(),
                                          data.real.astype(dtype.name))
        finite = ut.asarray(x[:4])
        assert ut.astype(finite, ut.int32).numpy().tolist() == [0, 0, 1, 0]
    assert ut.nonzero(x)[0].numpy().tolist() == np.nonzero(data)[0].tolist()
    assert ut.count_nonzero(x).numpy() == np.count_nonzero(data)
    assert bool(ut.any(x[:2]))
    assert bool(ut.all(x[:2]))
    assert not bool(ut.all(x))
    assert not bool(ut.any(x[3:4]))
    assert not bool(ut.any(x[5:6]))
    assert [bool(x[i]) for i in range(len(COMPLEX_TRUTH))] == COMPLEX_TRUE


def test_complex_where_condition_is_true_unless_both_parts_are_zero():
    tf = pytest.importorskip("tensorflow")
    x = _complex_tensor()
    ones = ut.asarray(tf.ones(len(COMPLEX_TRUTH), tf.float64))
    want = np.where(np.array(COMPLEX_TRUE), 1.0, 0.0).tolist()
    assert ut.where(x, ones, 0.0).numpy().tolist() == want
    assert ut.where(x, ones, ut.zeros_like(ones)).numpy().tolist() == want


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor",
                                  "logical_not"])
def test_complex_logical_functions_read_both_parts(name):
    # numpy's and jax's answer (TF's logical ops refused complex operands)
    x = _complex_tensor()
    data = np.array(COMPLEX_TRUTH)
    y = ut.flip(x)
    func = getattr(ut, name)
    want = getattr(np, name)(*((data,) if name == "logical_not"
                               else (data, np.flip(data))))
    got = func(x) if name == "logical_not" else func(x, y)
    assert got.owner == "tensorflow"
    assert got.numpy().tolist() == want.tolist()


def test_basic_keys_on_more_dimensions_than_strided_slice_takes():
    """TF's StridedSlice takes at most 8 dimensions (the official suite's
    test_reshape indexes a 9-d result): such keys are applied axis by axis."""
    import tensorflow as tf
    shape = (2, 3, 2, 2, 2, 1, 2, 2, 3)
    base = np.arange(math.prod(shape)).reshape(shape)
    x, n = ut.asarray(tf.constant(base)), ut.asarray(base)
    for key in ((1, 2, 0, 1, 1, 0, 1, 0, 2), (slice(None, None, -1), ..., -1),
                (None, 1, ..., None, slice(1, 3)), (-1, slice(0, 2), 0)):
        assert np.array_equal(np.asarray(x[key]), np.asarray(n[key]))
    with pytest.raises(IndexError):
        x[2]
    y = ut.reshape(ut.asarray(tf.constant([True, False])), (2, 1, 1, 1, 1, 1, 1, 1, 1))
    assert not bool(y[1, 0, 0, 0, 0, 0, 0, 0, 0])
    x[0, 0, 0, 0, 0, 0, 0, 0, 0] = -5
    assert int(x[0, 0, 0, 0, 0, 0, 0, 0, 0]) == -5


@pytest.mark.parametrize("value", [1e20, 3e19 + 1j, 1e-25j])
def test_qr_of_large_and_tiny_magnitudes_is_numpys(value):
    """TF's Householder norms overflowed (R of -inf and NaN for |x| ~ 1e20 in
    complex64) or underflowed (|x| ~ 1e-25: R not triangular at all)."""
    import tensorflow as tf
    a = (value * (2 * np.eye(3) + np.arange(9).reshape(3, 3) / 9)).astype(np.complex64)
    q, r = ut.linalg.qr(ut.asarray(tf.constant(a)))
    expected = ut.linalg.qr(ut.asarray(a)).R
    assert np.allclose(np.abs(np.asarray(r)), np.abs(np.asarray(expected)), rtol=1e-4)
    assert np.allclose(np.asarray(q) @ np.asarray(r), a, rtol=1e-4)


def test_the_c_fast_paths_call_tf_s_own_sin_and_matmul_where_they_apply():
    # issue 32 item 3: sin and matmul on TF-owned data within native + 0.3 µs,
    # as on the other owners: TF's op straight from C, not through the fixes'
    # Python layers, for the dtypes that need none of them
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.tensorflow.namespace import linear_algebra
    adapter = _backends.get("tensorflow")
    x = ut.asarray(tf.constant(np.linspace(0.0, 1.0, 16, dtype=np.float32)))
    ut.sin(x)
    sin = ut.sin.table[adapter]  # type: ignore[attr-defined]
    assert sin.real_func.__name__ == "sin"  # TF's Sin op, called from C below
    assert tf.int32 in sin.complex_dtypes  # integers: numpy's loop dtype first
    assert tf.float32 not in sin.complex_dtypes
    np.testing.assert_allclose(ut.sin(x).numpy(), np.sin(x.numpy()), rtol=1e-6)
    i = ut.asarray(tf.constant([1, 2], tf.int32))
    assert ut.sin(i).dtype == ut.float64
    np.testing.assert_allclose(ut.sin(i).numpy(), np.sin([1, 2]))
    m = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    tm = ut.asarray(tf.constant(m))
    ut.matmul(tm, tm)
    assert ut.matmul.table[adapter].func is (  # type: ignore[attr-defined]
        linear_algebra.matmul_same_dtype)
    for a, b in ((m, m), (m[0], m), (m, m[0]), (m[0], m[0]), (np.ones((2, 4, 4),
                 np.float32), m), (m.astype(np.int8), m.astype(np.int8)),
                 (m > 3, m > 5)):
        got = ut.matmul(ut.asarray(tf.constant(a)), ut.asarray(tf.constant(b)))
        np.testing.assert_array_equal(got.numpy(), np.matmul(a, b))
        assert got.numpy().dtype == np.matmul(a, b).dtype
    for kwargs in ({}, {"keepdims": True}, {"axis": 0}, {"dtype": ut.float64}):
        np.testing.assert_allclose(ut.sum(tm, **kwargs).numpy(), np.sum(
            m, **{k: (np.float64 if k == "dtype" else v) for k, v in kwargs.items()}))


def _tf_python_calls(func, *args):
    """The functions of TF's op layer (its public op functions, their dispatch
    and generated wrappers: tensorflow/python/ops and util) ``func(*args)`` enters.
    """
    entered = []

    def profile(frame, event, arg):
        name = frame.f_code.co_filename.replace("\\", "/")
        if event == "call" and ("/tensorflow/python/ops/" in name
                                or "/tensorflow/python/util/" in name):
            entered.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        func(*args)
    finally:
        sys.setprofile(None)
    return entered


def test_sin_sum_and_matmul_reach_tf_s_ops_without_its_python_layers():
    # issue 32 item 3: TF's public functions (dispatch decorators, weak-tensor
    # and generated op wrappers, reduce_sum's axes constant) cost more than the
    # op here; unitensor calls the ops through TF's C fast path
    tf = pytest.importorskip("tensorflow")
    m = ut.asarray(tf.constant(np.arange(16.0).reshape(4, 4)))
    v = ut.asarray(tf.constant(np.arange(4.0)))
    for _ in range(2):  # (the rows learnt first)
        calls = {"sin": lambda: ut.sin(v), "sum": lambda: ut.sum(m),
                 "sum keepdims": lambda: ut.sum(m, keepdims=True),
                 "matmul": lambda: ut.matmul(m, m), "add": lambda: v + v}
        entered = {name: _tf_python_calls(call) for name, call in calls.items()}
    assert entered == {name: [] for name in calls}
    assert _tf_python_calls(tf.math.sin, v.tf())  # (TF's own enters its Python)
    np.testing.assert_allclose(ut.sum(m, keepdims=True).numpy(), [[120.0]])
    np.testing.assert_allclose(ut.matmul(m, m).numpy(), m.numpy() @ m.numpy())

    @tf.function
    def traced(a):  # symbolic tensors: TF's public functions
        return tf.math.sin(a) + ut.sum(ut.asarray(a)).tf()
    np.testing.assert_allclose(traced(v.tf()).numpy(), np.sin(np.arange(4.0)) + 6)
    with tf.GradientTape() as tape:  # the fast path records on TF's tape
        a = tf.constant(np.arange(4.0))
        tape.watch(a)
        r = ut.sum(ut.sin(ut.asarray(a))).tf()
    np.testing.assert_allclose(tape.gradient(r, a).numpy(), np.cos(np.arange(4.0)))


@pytest.mark.slow  # a fresh interpreter
def test_the_namespace_first_imported_inside_tf_function_knows_eager_tensors():
    # its array type was made by tf.constant at import: a SymbolicTensor when the
    # first unitensor call on TF data ran inside tf.function, after which every
    # eager result missed the fast path's type check (slower, through Python)
    code = (
        "import numpy as np, tensorflow as tf, unitensor as ut\n"
        "from unitensor import _backends\n"
        "@tf.function\n"
        "def traced(a):\n"
        "    return ut.sin(ut.asarray(a)).tf()\n"
        "traced(tf.constant(np.arange(3.0)))\n"
        "x = ut.asarray(tf.constant(np.arange(3.0)))\n"
        "ut.sin(x)\n"
        "row = ut.sin.table[_backends.get('tensorflow')]\n"
        "assert row.array_type is type(x.tf()), row.array_type\n"
        "print('ok')\n")
    assert _fresh_interpreter(code) == "ok"


def test_tensorflow_s_detour_through_numpy_takes_the_c_route_once_it_is_there():
    """The namespace's detour through numpy (a function TF has no kernel for)
    reads numpy's route from TF at each call: after the first, it is the one C
    call that call put in ROUTES, and ROUTES is not written again (each write
    tells the fast paths to read their routes afresh)."""
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.numpy import interop as numpy_interop
    from unitensor._backends.tensorflow.namespace import _numpy_route
    _backends.get("tensorflow")  # (loaded, as where the namespace runs)
    x = tf.constant([1.0, 2.0])
    first = _numpy_route.to_numpy(x)
    route = numpy_interop.ROUTES["tensorflow"]
    assert route.func is _core.ndarray_lend
    for _ in range(3):
        assert _numpy_route.to_numpy(x).tolist() == first.tolist() == [1.0, 2.0]
    assert numpy_interop.ROUTES["tensorflow"] is route
