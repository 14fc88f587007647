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
