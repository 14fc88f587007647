"""CuPy's memory controls: its memory pools, which API calls change at any time.

CuPy takes device memory as arrays need it (it never preallocates) and keeps
freed blocks in its pool. ``CUPY_GPU_MEMORY_LIMIT`` (read at ``import cupy``;
bytes, or a percentage of each GPU) or ``MemoryPool.set_limit`` caps the pool;
``cupy.cuda.set_allocator`` chooses the allocator. A flush clears the cuFFT
plan caches (their work areas live in the pool) and frees the pool's and the
pinned-host pool's cached blocks.

cupy is not installed on the development machine: every path here is
unverified until run on a GPU (docs/memory.md).
"""

from __future__ import annotations

import sys
from decimal import Decimal  # the exact percentage of a share
from typing import Any

from ..._device import Device
from .._memory import (
    MemoryStats,
    Request,
    after_import,
    counted,
    loaded,
    set_env,
    unknown,
)

NAME = "cupy"
ALLOCATORS = ("pool", "async", "managed")  # the default pool, cudaMallocAsync, UVM
LIMIT = "CUPY_GPU_MEMORY_LIMIT"
_pool: Any = None  # the pool configure() installed (None: cupy's default pool)
_pool_kind = "pool"


def check_allocator(name: str, /) -> str | None:
    return None if name in ALLOCATORS else f"one of {ALLOCATORS}"


def too_late(request: Request, /) -> dict[str, str]:
    return {}  # CuPy's API changes its pools at any time


def without_gpu() -> str | None:
    return None  # nothing is ever too late (too_late)


def _active_pool(cupy: Any) -> Any:
    return _pool if _pool is not None else cupy.get_default_memory_pool()


def _devices(cupy: Any) -> range:
    try:
        return range(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no driver, no device (cupy raises its CUDARuntimeError)
        return range(0)


def _set_limit(cupy: Any, **limit: float) -> str:
    """The pool's limit on every device: ``fraction=`` or ``size=`` (bytes)."""
    pool = _active_pool(cupy)
    for index in _devices(cupy):
        with cupy.cuda.Device(index):
            pool.set_limit(**limit)
    (name, value), = limit.items()
    return f"MemoryPool.set_limit({name}={value!r}) on every device"


def _set_allocator(cupy: Any, kind: str) -> str:
    global _pool, _pool_kind
    if kind == "pool":
        pool = cupy.get_default_memory_pool()
    elif kind == "async":
        pool = cupy.cuda.MemoryAsyncPool()
    else:
        pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    cupy.cuda.set_allocator(pool.malloc)
    _pool, _pool_kind = pool, kind
    return f"cupy.cuda.set_allocator({type(pool).__name__}().malloc)"


def apply(request: Request, /) -> list[str]:
    cupy = loaded("cupy")
    done = []
    if request.preallocate is not None:
        done.append("cupy does not preallocate: its pool takes memory as arrays "
                    "need it")
    if request.allocator is not None:
        kind = request.allocator
        done.append(_set_allocator(cupy, kind) if cupy is not None else after_import(
            "cupy", "allocator", lambda: _set_allocator(sys.modules["cupy"], kind)))
    if request.fraction is not None:
        if cupy is not None:
            done.append(_set_limit(cupy, fraction=request.fraction))
        else:
            done.append(set_env(LIMIT, f"{Decimal(repr(request.fraction)) * 100}%"))
    if request.limit is not None:  # bytes: CuPy takes them as they are
        done.append(_set_limit(cupy, size=request.limit) if cupy is not None
                    else set_env(LIMIT, str(request.limit)))
    return done


def stats(device: Device | None, /) -> MemoryStats:
    cupy = loaded("cupy")
    assert cupy is not None, "stats() asks only loaded frameworks"
    device = device or Device("cuda", 0)
    if device.kind != "cuda" or device.index not in _devices(cupy):
        return unknown(NAME, device, f"cupy has no device {device}")
    pool = _active_pool(cupy)
    with cupy.cuda.Device(device.index):
        in_use, reserved = pool.used_bytes(), pool.total_bytes()
        limit = pool.get_limit() if hasattr(pool, "get_limit") else 0
    return counted(NAME, device, {
        "in_use": in_use, "reserved": reserved, "limit": limit or None,
        "allocator": _pool_kind},
        {"peak": "cupy's pool keeps no peak", "limit": "no limit set"})


def held() -> int | None:
    cupy = loaded("cupy")
    if cupy is None:
        return None
    pool = _active_pool(cupy)
    total = 0
    for index in _devices(cupy):
        with cupy.cuda.Device(index):
            total += pool.total_bytes()
    return int(total)


def release() -> str:
    cupy = loaded("cupy")
    if cupy is None:
        return "cupy is not loaded"
    pool = _active_pool(cupy)
    for index in _devices(cupy):  # the plan caches and pools are per device
        with cupy.cuda.Device(index):
            cupy.fft.config.get_plan_cache().clear()
            pool.free_all_blocks()
    pinned = cupy.get_default_pinned_memory_pool()
    blocks = pinned.n_free_blocks()
    pinned.free_all_blocks()
    return (f"cuFFT plan cache cleared, the pool's cached blocks freed, and "
            f"{blocks} pinned-host blocks (cupy counts no bytes for those)")
