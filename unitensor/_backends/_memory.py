"""What every framework's ``memory`` module shares: the records, the settings,
the environment edits and the post-import hook.

The per-framework parts (``_backends/<name>/memory.py``) never import their
framework: they find it in ``sys.modules`` when the user has imported it, and
otherwise act through the environment variables the framework reads when it
starts, or through :func:`after_import`, which runs an action right after the
framework's own ``import`` (for settings that only an API call can make).
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

from .._device import Device
from .._errors import TooLateWarning
from ._after_import import AfterImport

# The frameworks that keep a memory cache of their own (a ``memory`` module each).
# numpy and array-api-strict hand memory back to the system at once.
FRAMEWORKS: tuple[str, ...] = ("torch", "jax", "tensorflow", "cupy")


@dataclass(frozen=True, slots=True)
class Request:
    """The settings ``configure`` asks of one framework (None: leave as is)."""

    preallocate: bool | None = None
    fraction: float | None = None
    allocator: str | None = None
    limit: int | None = None  # bytes per GPU (never with a fraction)

    def given(self) -> tuple[str, ...]:
        """The names of the settings that are set."""
        return tuple(name for name in ("preallocate", "fraction", "allocator", "limit")
                     if getattr(self, name) is not None)

    def without(self, names: Sequence[str]) -> Request:
        """The same request less the settings ``names``."""
        values = {name: getattr(self, name) for name in self.given()
                  if name not in names}
        return Request(**values)


_NO_REASONS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class MemoryStats:
    """One framework's memory on one device, as its allocator counts it.

    Every byte count is the framework's own counter, read when ``stats()`` was
    called; a field the framework cannot report is None, and ``reasons`` says why.

    Attributes
    ----------
    framework : str
        The framework: 'torch', 'jax', 'tensorflow' or 'cupy'.
    device : Device
        The device the figures are for.
    in_use : int or None
        Bytes held by live arrays.
    reserved : int or None
        Bytes the allocator holds from the device, in use or cached.
    peak : int or None
        The most bytes in use at once so far (JAX and TensorFlow cannot reset it).
    limit : int or None
        The most bytes the allocator will take on this device.
    allocator : str or None
        The allocator serving this device ('bfc', 'platform', 'native',
        'cudaMallocAsync', 'pool', ...; 'cpu' for the framework's host allocator).
    reasons : Mapping[str, str]
        A field that is None -> why the framework cannot say.
    """

    framework: str
    device: Device
    in_use: int | None = None
    reserved: int | None = None
    peak: int | None = None
    limit: int | None = None
    allocator: str | None = None
    reasons: Mapping[str, str] = field(default_factory=lambda: _NO_REASONS)


def unknown(framework: str, device: Device, reason: str,
            allocator: str | None = None) -> MemoryStats:
    """A record whose byte counts are all None, for one ``reason``."""
    names = ("in_use", "reserved", "peak", "limit")
    reasons = dict.fromkeys(names, reason)
    if allocator is None:
        reasons["allocator"] = reason
    return MemoryStats(framework, device, allocator=allocator,
                       reasons=MappingProxyType(reasons))


def counted(framework: str, device: Device, values: Mapping[str, Any],
            reasons: Mapping[str, str]) -> MemoryStats:
    """A record of the fields known (``values``), with why the others are not
    (``reasons`` may name more fields than are missing: only those are kept).
    """
    names = ("in_use", "reserved", "peak", "limit", "allocator")
    missing = [name for name in names if values.get(name) is None]
    assert all(name in reasons for name in missing), (framework, missing)
    return MemoryStats(framework, device, **{n: values.get(n) for n in names},
                       reasons=MappingProxyType({n: reasons[n] for n in missing}))


@dataclass(frozen=True, slots=True)
class Flushed:
    """What ``flush()`` released for one framework.

    Attributes
    ----------
    released : int
        Bytes released: the fall of the framework's own counter across the
        flush (0 where nothing could be released; never an estimate).
    note : str
        What was done, where the bytes went, or why nothing could be released.
    """

    released: int
    note: str


def loaded(name: str) -> ModuleType | None:
    """The framework's top-level module if the user has imported it, else None."""
    return sys.modules.get(name)


def set_env(name: str, value: str) -> str:
    """Set an environment variable; say so."""
    os.environ[name] = value
    return f"{name}={value}"


def unset_env(name: str) -> str:
    """Remove an environment variable; say so."""
    os.environ.pop(name, None)
    return f"{name} unset"


# -- a byte limit as a share of the GPU, for the frameworks that take only shares ---
class _NvmlMemory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                ("used", ctypes.c_ulonglong)]  # nvmlMemory_t (v1), bytes


def gpu_totals() -> tuple[list[int], str]:
    """Each NVIDIA GPU's total memory in bytes, or [] and why not.

    Read through NVML (the driver's own library, through ctypes): asking torch,
    JAX or CuPy would import them, and start CUDA or their backends. NVML counts
    every GPU in the machine (CUDA_VISIBLE_DEVICES hides none from it).
    Unverified until run on a GPU (docs/memory.md); without the driver's library
    (this CPU machine) it says so.
    """
    try:
        nvml = ctypes.CDLL("nvml.dll" if sys.platform == "win32"
                           else "libnvidia-ml.so.1")
    except OSError as exc:
        return [], f"no NVIDIA driver library (NVML): {exc}"
    code = nvml.nvmlInit_v2()
    if code != 0:
        return [], f"NVML did not start (nvmlInit_v2 returned {code})"
    try:
        count = ctypes.c_uint()
        code = nvml.nvmlDeviceGetCount_v2(ctypes.byref(count))
        if code != 0:
            return [], f"NVML could not count the GPUs (error {code})"
        totals = []
        for index in range(count.value):
            handle, info = ctypes.c_void_p(), _NvmlMemory()
            code = (nvml.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index),
                                                       ctypes.byref(handle))
                    or nvml.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(info)))
            if code != 0:
                return [], f"NVML could not read GPU {index}'s memory (error {code})"
            totals.append(int(info.total))
        return totals, "" if totals else "NVML sees no GPU"
    finally:
        nvml.nvmlShutdown()


def share_of_gpu(limit: int) -> tuple[float | None, str]:
    """``limit`` bytes as the share of each GPU that a framework taking only
    shares (torch, JAX) is given, and how it was found; or None and why not.

    One share serves every GPU, so it is taken of the largest: a limit caps, and
    no GPU then gives more than ``limit`` bytes (a smaller one gives less).
    Rounded down to 6 decimals, for the same reason; at most 1.
    """
    totals, why = gpu_totals()
    if not totals:
        return None, f"no GPU to limit ({why})"
    largest = max(totals)
    share = min(limit * 10**6 // largest, 10**6) / 10**6
    sizes = "" if len(set(totals)) == 1 else f" (the largest of {len(totals)} GPUs)"
    return share, f"{limit} bytes of {largest}{sizes}, read through NVML"


def requested_share(name: str, request: Request, done: list[str]) -> float | None:
    """The share of each GPU ``request`` gives ``name``, a framework that takes
    only shares (torch, JAX): its fraction, or its byte limit as a share of the
    GPU (how, or why none, said in ``done``).
    """
    if request.limit is None:
        return request.fraction
    share, how = share_of_gpu(request.limit)
    done.append(f"limit={request.limit}: " + (
        how if share is not None else f"not set for {name}: {how}"))
    return share


# -- running an action right after a framework's own import -----------------------
def _too_late(module: str, what: str, exc: Exception) -> None:
    warnings.warn(f"unitensor.memory: {what} could not be applied when {module} "
                  f"was imported: {exc}", TooLateWarning, stacklevel=3)


_hook = AfterImport(_too_late)
# module -> setting -> what its action did, in words (it ran after configure()
# returned, so this is where it says what it did, or why nothing)
_applied: dict[str, dict[str, object]] = {}


def after_import(module: str, what: str, action: Callable[[], object]) -> str:
    """Run ``action`` right after ``module`` is first imported (``what`` names
    the setting: a later request for the same setting replaces it); say so.
    """
    def act_and_record() -> None:
        _applied.setdefault(module, {})[what] = action()

    _hook.add(module, what, act_and_record)
    return f"{what}: applied when {module} is imported"


def applied() -> dict[str, dict[str, object]]:
    """Module -> setting -> what the action run after its import did."""
    return {module: dict(done) for module, done in _applied.items()}


def pending() -> dict[str, tuple[str, ...]]:
    """Module -> the settings waiting for its import."""
    return {module: tuple(actions) for module, actions in _hook.pending.items()}


def clear_pending() -> None:
    """Forget every action waiting for an import, and what ran (tests)."""
    _hook.clear()
    _applied.clear()
