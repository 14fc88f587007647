"""JAX's memory controls: environment variables read when it starts its backends.

JAX (jaxlib's ``xla_client.generate_pjrt_gpu_plugin_options``) reads
``XLA_PYTHON_CLIENT_PREALLOCATE``, ``XLA_CLIENT_MEM_FRACTION`` (a byte limit
becomes a share of the GPU's size, read through NVML) and
``XLA_PYTHON_CLIENT_ALLOCATOR`` once, when it initialises its backends (the first
array, ``jax.devices()``, ...), not at ``import jax``. After that no setting can
take effect, and nothing can make its BFC pool smaller in-process: a flush frees
the buffers of dead arrays (the caller's ``gc.collect()``) back into the pool.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ..._device import CPU, Device
from .._memory import (
    MemoryStats,
    Request,
    counted,
    loaded,
    requested_share,
    set_env,
    unknown,
    unset_env,
)

NAME = "jax"
# What XLA_PYTHON_CLIENT_ALLOCATOR accepts (jaxlib 0.10; 'default' is the BFC pool,
# 'vmm' is new in recent jaxlib: an older one refuses it when it starts).
ALLOCATORS = ("default", "bfc", "platform", "cuda_async", "vmm")
PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE"
FRACTION = "XLA_CLIENT_MEM_FRACTION"
# The old name: jaxlib refuses to start when both are set.
FRACTION_DEPRECATED = "XLA_PYTHON_CLIENT_MEM_FRACTION"
ALLOCATOR = "XLA_PYTHON_CLIENT_ALLOCATOR"
_NOT_STARTED = ("jax has not initialised its backends yet (asking would start it "
                "and, on a GPU, preallocate)")


def started() -> list[str] | None:
    """The platforms of JAX's initialised backends, or None if it has not started.

    ``jax._src.xla_bridge._backends`` (private: JAX has no public question for
    this) fills when the backends start; an unknown layout counts as started, so
    that a setting is refused rather than silently ignored.
    """
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is None:
        return None
    backends = getattr(bridge, "_backends", None)
    if not isinstance(backends, dict):
        return ["unknown"]
    return sorted(backends) or None


def check_allocator(name: str, /) -> str | None:
    return None if name in ALLOCATORS else f"one of {ALLOCATORS}"


def too_late(request: Request, /) -> dict[str, str]:
    platforms = started()
    if platforms is None:
        return {}
    variables = {"preallocate": PREALLOCATE, "fraction": FRACTION,
                 "allocator": ALLOCATOR, "limit": FRACTION}
    return {name: f"jax has already initialised its backends "
                  f"({', '.join(platforms)}); it reads {variables[name]} only then"
            for name in request.given()}


def without_gpu() -> str | None:
    platforms = started()
    if platforms is None or "unknown" in platforms or set(platforms) - {"cpu"}:
        return None
    return "jax started on the CPU only, where its GPU memory settings cannot matter"


def apply(request: Request, /) -> list[str]:
    done = []
    if request.preallocate is not None:
        done.append(set_env(PREALLOCATE, "true" if request.preallocate else "false"))
    fraction = requested_share(NAME, request, done)  # JAX takes only shares
    if fraction is not None:
        done.append(set_env(FRACTION, repr(fraction)))  # exact: :g rounds up
        if FRACTION_DEPRECATED in os.environ:
            done.append(unset_env(FRACTION_DEPRECATED))
    if request.allocator is not None:
        done.append(set_env(ALLOCATOR, request.allocator))
    return done


def _allocator() -> str:
    """The GPU allocator named in the environment ('default' is the BFC pool)."""
    name = os.environ.get(ALLOCATOR, "default").lower()
    return "bfc" if name == "default" else name


def _device(native: Any) -> Device:
    if native.platform == "cpu":
        return CPU
    return Device("cuda" if native.platform in ("gpu", "cuda") else native.platform,
                  native.local_hardware_id or 0)


def _all_devices(jax: Any) -> list[Any]:
    """The local devices of the default backend, then the CPU's (once each)."""
    found = list(jax.local_devices())
    found += [d for d in jax.devices("cpu") if d not in found]
    return found


def _live_bytes(jax: Any, native: Any) -> int:
    """Bytes of the live arrays on ``native``: JAX's own list of live arrays."""
    total = 0
    for array in jax.live_arrays():
        if array.is_deleted():
            continue
        devices = array.devices()
        if len(devices) == 1:
            total += array.nbytes if native in devices else 0
        else:
            total += sum(shard.data.nbytes for shard in array.addressable_shards
                         if shard.device == native)
    return total


def stats(device: Device | None, /) -> MemoryStats:
    jax = loaded("jax")
    if jax is None or started() is None:
        return unknown(NAME, device or CPU, _NOT_STARTED)
    natives = jax.devices()  # the default backend's: its GPUs where it has some
    if device is not None:
        natives = [d for d in _all_devices(jax) if _device(d) == device]
        if not natives:
            return unknown(NAME, device, f"jax has no device {device}")
    native = natives[0]
    where = _device(native)
    counters = native.memory_stats()
    if counters is None:  # the CPU client keeps no allocator statistics
        why = "jax keeps no allocator statistics for CPU memory"
        return counted(NAME, where, {
            "in_use": _live_bytes(jax, native), "allocator": "cpu"},
            {"reserved": why, "peak": why, "limit": why})
    # The BFC pool's size is 'pool_bytes' (or 'bytes_reserved' in older jaxlib).
    reserved = counters.get("pool_bytes", counters.get("bytes_reserved"))
    return counted(NAME, where, {
        "in_use": counters.get("bytes_in_use"), "reserved": reserved,
        "peak": counters.get("peak_bytes_in_use"),
        "limit": counters.get("bytes_limit"), "allocator": _allocator()},
        dict.fromkeys(("in_use", "reserved", "peak", "limit"),
                      "this jaxlib's memory_stats() does not report it"))


def held() -> int | None:
    jax = loaded("jax")
    if jax is None or started() is None:
        return None
    total = 0
    for native in _all_devices(jax):
        counters = native.memory_stats()
        total += (_live_bytes(jax, native) if counters is None
                  else counters.get("bytes_in_use", 0))
    return total


def release() -> str:
    platforms = started()
    if loaded("jax") is None or platforms is None:
        return "jax has not started: it holds no memory"
    pool = ("the pool itself cannot shrink in-process (configure "
            "preallocate=False or allocator={'jax': 'platform'} before JAX starts)")
    if platforms == ["cpu"]:
        return ("buffers of dead arrays freed (gc); on a GPU they go back to "
                f"JAX's pool: {pool}")
    return f"buffers of dead arrays freed (gc) back to JAX's pool; {pool}"
