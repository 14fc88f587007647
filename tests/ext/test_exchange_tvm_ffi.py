"""A real consumer of unitensor's DLPack C exchange API: apache-tvm-ffi.

tvm-ffi takes an argument through its type's ``__dlpack_c_exchange_api__``
where it has one, and through ``__dlpack__`` otherwise; so a count of
``__dlpack__`` calls tells which route it took. The callee is a Python function
registered with tvm-ffi: it receives tvm-ffi's own Tensors, read afterwards.
The per-argument cost against torch tensors is a row of benchmarks/run.py
(``exchange``), not a timed test.
"""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import unitensor as ut
from unitensor import _core

tvm_ffi = pytest.importorskip("tvm_ffi", reason="apache-tvm-ffi is not installed")


def owners_memory() -> list:
    """Arrays of numpy (strided), jax and tensorflow, those installed."""
    base = np.arange(12.0).reshape(3, 4)
    arrays = [base[:, ::2]]
    try:
        import jax.numpy as jnp
        arrays.append(jnp.arange(5, dtype=jnp.float32))
    except ImportError:
        pass
    try:
        import tensorflow as tf
        arrays.append(tf.constant([[1, 2], [3, 4]], dtype=tf.int32))
    except ImportError:
        pass
    return arrays


class DLPackCalls:
    """Records the ``__dlpack__`` calls made while active: of Python functions
    (by qualified name and file) and of C methods called from Python (numpy's)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_name == "__dlpack__":
            self.calls.append(f"{code.co_qualname} in {code.co_filename}")
        elif event == "c_call" and getattr(arg, "__name__", "") == "__dlpack__":
            self.calls.append(repr(arg))

    def __enter__(self) -> DLPackCalls:
        sys.setprofile(self)
        return self

    def __exit__(self, *exc) -> None:
        sys.setprofile(None)


def keeper() -> tuple[list, object]:
    """A tvm-ffi function that keeps the tensors it is given."""
    kept: list = []
    return kept, tvm_ffi.convert(lambda *args: kept.extend(args))


def test_tensors_of_every_owner_pass_by_the_c_api_without_dlpack_calls():
    arrays = owners_memory()
    tensors = [ut.asarray(a) for a in arrays]
    kept, f = keeper()
    with DLPackCalls() as first:
        f(*tensors)
    # None of unitensor's; the owner's own export makes the Buffer a Tensor keeps
    # at its first crossing, where the owner has no other (JAX's __dlpack__, which
    # .torch() would call too): where __dlpack__ was tvm-ffi's route, a call of
    # Tensor.__dlpack__ per Tensor
    assert not [c for c in first.calls if "unitensor" in c], first.calls
    assert len(first.calls) <= sum(type(a).__module__.startswith("jax")
                                   for a in arrays), first.calls
    assert len(kept) == len(arrays)
    for got, array in zip(kept, arrays, strict=True):
        expected = np.asarray(array)
        assert tuple(got.shape) == expected.shape
        assert str(got.dtype) == str(expected.dtype)
        assert np.from_dlpack(got).tolist() == expected.tolist()
    # zero-copy: tvm-ffi's tensor is the Tensor's memory
    assert kept[0].data_ptr() == arrays[0].ctypes.data
    # warm (each Tensor holds its Buffer now): still no __dlpack__ at all
    with DLPackCalls() as warm:
        f(*tensors)
    assert warm.calls == []


def test_the_memory_outlives_the_tensor_and_each_deleter_runs_once():
    before = _core.stats()
    kept, f = keeper()
    tensors = [ut.asarray(a) for a in owners_memory()]
    f(*tensors)
    expected = [np.asarray(t).tolist() for t in tensors]
    del tensors
    gc.collect()
    assert [np.from_dlpack(k).tolist() for k in kept] == expected
    after = _core.stats()
    assert after["capsules_exported"] == before["capsules_exported"] + len(expected)
    assert after["exported_alive"] == before["exported_alive"] + len(expected)
    del kept, f  # (f keeps the list)
    gc.collect()
    assert _core.stats()["exported_alive"] == before["exported_alive"]


def test_a_tensor_tvm_ffi_returns_is_a_unitensor_tensor_over_the_memory():
    echo = tvm_ffi.get_global_func("testing.echo")
    base = np.arange(4.0)
    back = echo(ut.asarray(base))
    assert isinstance(back, ut.Tensor)
    assert back.owner == "numpy"
    assert back.native.ctypes.data == base.ctypes.data


def test_a_symbolic_tensor_is_refused_with_the_reason():
    tf = pytest.importorskip("tensorflow", reason="tensorflow is not installed")
    _, f = keeper()
    seen = []

    @tf.function
    def traced(x):
        try:
            f(ut.asarray(x))
        except TypeError as exc:
            seen.append(str(exc))
        return x

    traced(tf.constant([1.0]))
    [message] = seen
    assert "__dlpack_c_exchange_api__(): self: expected an array with memory" in message


def test_tvm_ffi_from_dlpack_takes_the_c_route_too():
    base = np.arange(6.0).reshape(2, 3)
    t = ut.asarray(base)
    with DLPackCalls() as calls:
        got = tvm_ffi.from_dlpack(t)
    assert calls.calls == []
    assert got.data_ptr() == base.ctypes.data
    assert np.from_dlpack(got).tolist() == base.tolist()
