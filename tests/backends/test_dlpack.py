"""How adapters take memory in and lend it out (unitensor/_backends/_dlpack.py):
DLPack imports, read-only memory for frameworks that never write, CUDA stream
order, the CPU-only copy reason."""

from __future__ import annotations

import numpy as np
import pytest
from forge import forge

from unitensor import _core
from unitensor._backends._dlpack import (
    ForImmutableConsumer,
    StreamOrder,
    buffer_from_dlpack,
    cpu_only_reason,
    immutable_buffer,
)


class _Legacy:
    """A producer from before DLPack 1.0: its __dlpack__ takes no max_version."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.asked: list[dict[str, object]] = []

    def __dlpack__(self, stream: int | None = None) -> object:
        self.asked.append({"stream": stream})
        return self.array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()


def test_buffer_from_dlpack_asks_versioned_then_legacy_and_names_the_call():
    a = np.arange(4.0)
    versioned = buffer_from_dlpack(a)
    assert versioned.data_ptr == a.ctypes.data
    legacy = _Legacy(a)
    buf = buffer_from_dlpack(legacy)
    assert buf.data_ptr == a.ctypes.data
    assert legacy.asked == [{"stream": None}]  # once, after the versioned TypeError
    buffer_from_dlpack(legacy, stream=1)
    assert legacy.asked[-1] == {"stream": 1}

    class _Bad:
        def __dlpack__(self, **kwargs: object) -> object:
            return forge(name=b"other")

    with pytest.raises(TypeError, match=r"^from_dlpack\(\): x: expected a PyCapsule"):
        buffer_from_dlpack(_Bad(), "from_dlpack", "x")


def test_immutable_memory_is_imported_read_only_and_lent_only_to_readers():
    a = np.arange(3.0)
    buf = immutable_buffer(a.__dlpack__())
    assert buf.readonly
    with pytest.raises(BufferError):  # a legacy capsule cannot say read-only
        buf.export_legacy()
    lent = ForImmutableConsumer(buf)
    assert lent.__dlpack_device__() == (1, 0)
    # a legacy request (jax's): lent read-only memory, a consumer that never writes
    assert _core.from_capsule(lent.__dlpack__()).data_ptr == a.ctypes.data
    # a versioned one: the Buffer's own export, which carries the flag
    assert _core.from_capsule(lent.__dlpack__(max_version=(1, 0))).readonly



def test_jax_versioned_capsules_carry_read_only_and_is_copied():
    jax = pytest.importorskip("jax")
    x = jax.numpy.arange(4, dtype=jax.numpy.float32)
    own = _core.from_capsule(x.__dlpack__(max_version=_core.DLPACK_VERSION))
    if own.version is None:  # 0.10 takes max_version but answers a legacy capsule
        pytest.skip(f"jax {jax.__version__} exports no versioned DLPack (0.11+ does)")
    # JAX sets READ_ONLY itself; immutable_buffer's mark_readonly is for 0.10
    assert own.readonly
    assert not own.is_copied
    assert own.data_ptr == x.unsafe_buffer_pointer()
    copied = _core.from_capsule(x.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.is_copied
    assert copied.data_ptr != x.unsafe_buffer_pointer()


def test_read_only_memory_reaches_jax_zero_copy_on_every_jax():
    jax = pytest.importorskip("jax")
    buf = _core.empty((16,), 2, 32)
    np.asarray(buf)[:] = np.arange(16.0)
    buf.mark_readonly()
    lent = ForImmutableConsumer(buf)
    # 0.10 asks legacy (lent read-only); 0.12 asks max_version=(1, 3) and takes
    # the versioned capsule with READ_ONLY set, also without a copy
    x = jax.dlpack.from_dlpack(lent)
    assert x.unsafe_buffer_pointer() == buf.data_ptr
    assert x.tolist() == list(range(16))

def test_stream_order_orders_only_different_streams():
    calls = []
    order = StreamOrder(3, lambda device: 9, lambda *args: calls.append(args))
    assert order.stream() == 9
    order.wait(9)  # the consumer reads on the producer's stream: nothing to do
    order.follow(9)
    assert calls == []
    order.wait(5)  # stream 5 waits for stream 9's work, on device 3
    order.follow(7)  # stream 9 waits for stream 7's
    assert calls == [(3, 9, 5), (3, 7, 9)]


def test_a_cpu_only_framework_needs_a_copy_of_device_memory():
    assert cpu_only_reason(_core.from_capsule(np.arange(2.0).__dlpack__()),
                           "numpy") is None
    on_gpu = _core.from_capsule(forge(shape=(3,), device=(2, 0)))  # never read
    assert cpu_only_reason(on_gpu, "numpy") == (
        "numpy only reads CPU memory and the data is on another device")
