"""How adapters take memory in and lend it out: DLPack imports, CUDA stream order.

The rule: memory enters a Buffer through ``__dlpack__`` (versioned first, legacy
as the fallback) or a framework's capsule, and it leaves only in a form the
consumer can honour (read-only memory as legacy capsules only to frameworks that
never write); CUDA memory carries its producer's stream order (``StreamOrder``),
which every consumer's stream waits for. Shared by two or more adapters; nothing
here imports a framework.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _core
from .._device import CPU_READABLE

# CPU memory lent read-only to a framework that cannot mark its arrays read-only
# (torch): the memory's address -> how many of that framework's arrays' storages
# are alive over it (the C exchange export keeps the count, in C). Torch's adapter
# answers ``readonly`` from it (``address in LENT_READ_ONLY``); a route that must
# decline such memory (numpy's from torch) asks nothing while it is empty, the
# common case.
LENT_READ_ONLY = _core.LentTable()


def buffer_from_dlpack(obj: Any, func: str = "from_capsule", arg: str = "capsule",
                       stream: int | None = None) -> _core.Buffer:
    """Import ``obj`` through ``__dlpack__``: versioned first, legacy as fallback.

    Errors name ``func`` and ``arg`` (the public call, where a user's object).
    ``stream``: for CUDA memory, the consumer's stream, which the producer makes
    wait for its work (None: none asked, as on the CPU).
    ``obj`` is Any, not a protocol: legacy producers take no ``max_version``.
    """
    try:
        capsule = (obj.__dlpack__(max_version=_core.DLPACK_VERSION) if stream is None
                   else obj.__dlpack__(stream=stream, max_version=_core.DLPACK_VERSION))
    except TypeError:  # a producer from before DLPack 1.0 knows no max_version
        capsule = (obj.__dlpack__() if stream is None
                   else obj.__dlpack__(stream=stream))
    return _core.from_capsule(capsule, func=func, arg=arg)


class StreamOrder:
    """One framework's current CUDA stream on one device, ordered against the
    streams of others: what a Buffer of its CUDA memory holds as ``producer``
    (torch and cupy; each gives its own ``current`` and ``order``).

    Streams are ints as ``__dlpack__`` takes them: 1 the legacy default stream,
    2 the per-thread default stream, else a ``cudaStream_t`` handle.
    """

    __slots__ = ("_current", "_order", "device")

    def __init__(self, device: int, current: Callable[[int], int],
                 order: Callable[[int, int, int], None]) -> None:
        self.device = device
        self._current = current  # current(device) -> the framework's stream now
        self._order = order  # order(device, first, then): `then` waits for `first`

    def stream(self) -> int:
        """The framework's current stream: the memory is ready on it."""
        return self._current(self.device)

    def wait(self, stream: int) -> None:
        """The consumer's ``stream`` waits for the work queued so far on the
        framework's current stream (an event, not a host synchronisation).
        """
        current = self._current(self.device)
        if stream != current:
            self._order(self.device, current, stream)

    def follow(self, stream: int) -> None:
        """The framework's current stream waits for the work queued so far on
        ``stream`` (a producer's, from ``__cuda_array_interface__``).
        """
        current = self._current(self.device)
        if stream != current:
            self._order(self.device, stream, current)


# A capsule of an immutable framework (jax, tensorflow) imported read-only, in one
# C call. Their legacy capsules cannot carry the READ_ONLY flag, so it is set
# here (JAX 0.11+'s versioned capsules set it themselves; legacy is asked so that
# one route serves every version).
immutable_buffer = _core.immutable_from_capsule


class ForImmutableConsumer:
    """``buf`` as seen by a framework that never writes into imported memory.

    JAX up to 0.10 asks for legacy capsules (no ``max_version``), which cannot
    carry the read-only flag, so a read-only Buffer refuses them; JAX arrays are
    immutable, so lending them read-only memory is safe. JAX 0.11+ asks for a
    versioned capsule (``max_version=(1, 3)``) and takes READ_ONLY ones zero-copy.
    """

    __slots__ = ("buf",)

    def __init__(self, buf: _core.Buffer) -> None:
        self.buf = buf

    def __dlpack__(self, *, stream: int | None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> object:
        if max_version is None and dl_device is None and copy is None:
            return self.buf.export_legacy(allow_readonly=True, stream=stream)
        return self.buf.__dlpack__(stream=stream, max_version=max_version,
                                   dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.buf.__dlpack_device__()


def cpu_only_reason(buf: _core.Buffer, framework: str) -> str | None:
    """Frameworks that only read CPU memory need a copy of anything else."""
    if buf.device[0] in CPU_READABLE:
        return None
    return f"{framework} only reads CPU memory and the data is on another device"
