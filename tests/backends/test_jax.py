"""The jax adapter (unitensor/_backends/jax.py): x64, 64-byte alignment, immutable
arrays (in-place operations rebind), index dtypes and special cases, and jaxlib's
direct import with its fallback to the public one."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from frameworks import aligned_empty, pointer

import unitensor as ut
from unitensor import _backends

pytest.importorskip("jax")

NUMPY = _backends.get("numpy")


def test_jax_float64_without_x64_is_refused_not_narrowed():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", False)
    t = ut.asarray(aligned_empty((4,), np.float64))
    with pytest.raises(BufferError, match="jax_enable_x64"):
        t.jax()
    # in words a user reads: the dtype's name (not its DLPack code), and the cast
    with pytest.raises(BufferError, match=r"or cast it first, ut.astype\(x, "
                       r"ut.float32\); .*, got float64 data$"):
        t.jax()


# Every way a dtype reaches JAX: creation functions, the *_like ones, asarray of
# Python data and of a JAX array (astype), and astype itself.
_WITH_DTYPE = {
    "zeros": lambda d: ut.zeros((2,), dtype=d),
    "ones": lambda d: ut.ones((2,), dtype=d),
    "empty": lambda d: ut.empty((2,), dtype=d),
    "full": lambda d: ut.full((2,), 1, dtype=d),
    "arange": lambda d: ut.arange(3, dtype=d),
    "eye": lambda d: ut.eye(2, dtype=d),
    "linspace": lambda d: ut.linspace(0, 1, 3, dtype=d),
    "zeros_like": lambda d: ut.zeros_like(ut.zeros((2,), dtype=ut.int32), dtype=d),
    "ones_like": lambda d: ut.ones_like(ut.zeros((2,), dtype=ut.int32), dtype=d),
    "empty_like": lambda d: ut.empty_like(ut.zeros((2,), dtype=ut.int32), dtype=d),
    "full_like": lambda d: ut.full_like(ut.zeros((2,), dtype=ut.int32), 1, dtype=d),
    "asarray(list)": lambda d: ut.asarray([1, 0], dtype=d),
    "asarray(jax)": lambda d: ut.asarray(ut.zeros((2,), dtype=ut.int32).jax(), dtype=d),
    "astype": lambda d: ut.astype(ut.zeros((2,), dtype=ut.int32), d),
}
_WIDE = ("int64", "uint64", "float64", "complex128")


@pytest.mark.parametrize("make", _WITH_DTYPE)
def test_jax_64_bit_dtypes_without_x64_are_refused_not_narrowed(make):
    # jax would make an int32 (float32, ...) array with only a UserWarning; the
    # error names the function called (before: jax(), the conversion inside it)
    function = make.partition("(")[0]
    with ut.owner("jax"):
        for name in _WIDE:
            with pytest.raises(ValueError, match=(
                    rf"^{function}\(\): dtype: expected a dtype JAX holds with x64 "
                    r"disabled "
                    r"\(enable it with jax.config.update\('jax_enable_x64', True\) or "
                    r"JAX_ENABLE_X64=1; JAX would make a 32-bit array instead, with "
                    rf"only a warning\), got {name}$")):
                _WITH_DTYPE[make](getattr(ut, name))
        for name in ("int32", "uint32", "float32", "complex64"):
            result = _WITH_DTYPE[make](getattr(ut, name))
            assert (result.owner, result.dtype.name) == ("jax", name)


_X64 = """
import unitensor as ut
from test_jax import _WIDE, _WITH_DTYPE
with ut.owner("jax"):
    for label, make in _WITH_DTYPE.items():
        for name in _WIDE:
            result = make(getattr(ut, name))
            assert (result.owner, result.dtype.name) == ("jax", name), (label, name)
    assert ut.full((1,), 2**40, dtype=ut.int64).numpy().tolist() == [2**40]
    assert ut.asarray([2**40]).dtype is ut.int64
print("ok")
"""


@pytest.mark.slow
def test_jax_64_bit_dtypes_with_x64_enabled():
    # a fresh interpreter: JAX reads JAX_ENABLE_X64 when it is imported
    env = {**os.environ, "JAX_ENABLE_X64": "1", "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(__file__), *sys.path])}
    out = subprocess.run([sys.executable, "-c", _X64], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok"]


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


def test_inplace_on_an_immutable_owner_keeps_dtype_and_shape():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    x = ut.asarray(jnp.arange(3, dtype=jnp.int32))
    with pytest.raises(TypeError, match="keeps the array's dtype int32"):
        x += ut.asarray(jnp.ones(3, dtype=jnp.float32))


def test_setitem_on_jax_rebinds_and_forgets_old_views():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    x = ut.asarray(jnp.zeros(3))
    old = x.numpy()
    x[1] = 2.0
    assert x.numpy().tolist() == [0.0, 2.0, 0.0]
    assert old.tolist() == [0.0, 0.0, 0.0]  # jax arrays are immutable: a new array


def test_iteration_stops_on_jax():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    assert len(list(ut.asarray(jnp.arange(3)))) == 3  # jax clamps x[3]; we do not loop


def test_jax_index_results_use_the_index_dtype(x64):
    import jax.numpy as jnp
    x = ut.asarray(jnp.arange(4))
    assert ut.searchsorted(x, x).dtype is ut.int64


def test_jax_all_any_read_complex_numbers_whole(x64):
    import jax.numpy as jnp
    assert bool(ut.all(ut.asarray(jnp.asarray([1j, 2.0 + 0j]))))
    assert not bool(ut.any(ut.asarray(jnp.asarray([0j]))))


def test_complex_branch_cuts_follow_signed_zeros(x64):
    import jax.numpy as jnp
    out = ut.sqrt(ut.asarray(jnp.asarray([complex(-1.0, -0.0)]))).numpy()
    assert out[0] == -1j


def test_jax_permute_dims_takes_negative_axes(x64):
    import jax.numpy as jnp
    assert ut.permute_dims(ut.asarray(jnp.zeros((2, 3))), (-1, 0)).shape == (3, 2)
    x = ut.asarray(jnp.asarray([complex(-0.0, 2.0)], dtype=jnp.complex64))
    assert ut.asinh(x).numpy()[0].real < 0  # the branch cut's side, by the zero's sign


def test_min_and_max_of_a_long_array_with_a_nan_are_nan():
    """XLA on CPU skipped the NaN (and x[0]) of 10,001 elements: min gave 1e-4
    (array-api-extra's own searchsorted test found it on the jax owner)."""
    import jax.numpy as jnp
    a = np.linspace(0, 1, 10001, dtype=np.float32)
    a[0], a[5000] = -np.inf, np.nan
    x = ut.asarray(jnp.asarray(a))
    assert np.isnan(ut.min(x).numpy())
    assert np.isnan(ut.max(x).numpy())
    rows = ut.asarray(jnp.asarray(np.stack([a, np.linspace(0, 1, 10001)])))
    np.testing.assert_array_equal(ut.min(rows, axis=1, keepdims=True).numpy(),
                                  [[np.nan], [0.0]])
    assert ut.max(ut.asarray(jnp.asarray([1, 5, 2]))).numpy() == 5  # integers as before


def test_jax_direct_import_matches_jax_dlpack_and_falls_back(monkeypatch):
    jax_backend = _backends.get("jax")
    from unitensor._backends.jax import interop as jax_interop
    raw = np.empty(16 * 4 + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    a = raw[start:start + 64].view(np.float32)
    a[:] = np.arange(16)
    buf = NUMPY.export(a)
    direct = jax_backend.alias(buf)
    assert direct.unsafe_buffer_pointer() == a.ctypes.data
    monkeypatch.setattr(jax_interop, "_direct_import", None)
    public = jax_backend.alias(buf)
    assert public.unsafe_buffer_pointer() == a.ctypes.data
    assert (direct.dtype, direct.shape) == (public.dtype, public.shape)

    def changed(*args):
        raise TypeError("a different signature")
    monkeypatch.setattr(jax_interop, "_direct_import", changed)
    assert jax_backend.alias(buf).unsafe_buffer_pointer() == a.ctypes.data
    assert jax_interop._direct_import is None  # given up for good


def test_jax_direct_import_of_empty_memory_at_an_unaligned_address():
    jax_backend = _backends.get("jax")
    empty = np.frombuffer(bytes(8), np.float32, 0, offset=4)  # 4-byte aligned
    assert jax_backend.alias(NUMPY.export(empty)).shape == (0,)


_VIRTUAL_CPU = """
import jax, jax.numpy as jnp, numpy as np, unitensor as ut
x = jax.device_put(jnp.arange(3.0), jax.devices("cpu")[1])
t = ut.asarray(x)
assert t.__dlpack_device__() == (1, 0)
view = t.numpy()
assert view.ctypes.data == x.unsafe_buffer_pointer(), "copied"
assert view.tolist() == [0.0, 1.0, 2.0]
"""


@pytest.mark.slow
def test_arrays_on_a_virtual_cpu_device_convert_zero_copy():
    # jax's capsule carries the virtual device's index (1) as the CPU device id,
    # while its __dlpack_device__ says 0: the Buffer reads it as the one CPU
    env = {**os.environ,
           "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
           "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", _VIRTUAL_CPU], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]


def test_reductions_to_bool_read_complex_numbers_whole():
    # jnp.prod(1j, dtype=bool) is False: jax casts complex to real first (found by
    # the namespace fuzzer's long run); the standard casts the input to the dtype
    import jax.numpy as jnp
    x = ut.asarray(jnp.asarray(np.array([1j, 1.0, 2 + 2j], np.complex64)))
    for function in (ut.prod, ut.sum):
        assert bool(function(x, dtype=ut.bool)) is True
    for function in (ut.cumulative_prod, ut.cumulative_sum):
        assert function(x, dtype=ut.bool).numpy().tolist() == [True, True, True]


@pytest.mark.parametrize("poll_ns", [0, 50_000, 10**9])
def test_an_export_of_a_result_still_computing_holds_its_values(poll_ns, monkeypatch):
    # jax's CPU client computes a jitted result on its worker thread and returns
    # at once: the direct export polls is_ready() for up to _POLL_NS, then
    # blocks (0: blocks at once; 10**9: polls until the result lands)
    import jax
    import jax.numpy as jnp

    from unitensor._backends.jax import interop as jax_interop
    monkeypatch.setattr(jax_interop, "_POLL_NS", poll_ns)
    step = jax.jit(lambda x: jnp.cumsum(jnp.sin(x) * x))
    for size in (1024, 1_000_000):  # within the default poll, and past it
        x = jnp.linspace(0.0, 1.0, size, dtype=jnp.float32)
        expected = np.asarray(step(x))
        y = step(x)  # dispatched, maybe not computed yet
        got = ut.asarray(y).numpy()
        assert got.ctypes.data == y.unsafe_buffer_pointer()  # its own memory
        np.testing.assert_array_equal(got, expected)
