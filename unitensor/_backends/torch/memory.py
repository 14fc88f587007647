"""PyTorch's memory controls: the CUDA caching allocator.

torch takes CUDA memory as tensors need it (it never preallocates) and keeps
freed blocks cached. Its allocator reads ``PYTORCH_ALLOC_CONF`` (or the older
``PYTORCH_CUDA_ALLOC_CONF``) when CUDA initialises (the first CUDA tensor, not
``import torch``): the backend (``native`` or ``cudaMallocAsync``), the options
(``expandable_segments:True``, ...) and, since torch 2.9,
``per_process_memory_fraction`` (a byte limit becomes a share of the GPU's size,
read through NVML). Once CUDA is initialised, the fraction and most
options can still be changed by API calls; only the backend cannot.
``torch.cuda.empty_cache()`` returns the cached blocks to the driver.

Every CUDA path here is unverified until run on a GPU (docs/memory.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
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
)

NAME = "torch"
BACKENDS = ("native", "cudaMallocAsync")
# PYTORCH_ALLOC_CONF is read first; the CUDA-named one is the older spelling.
CONF = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")
_NO_CPU_STATS = ("torch keeps no statistics for CPU memory (its CPU allocator "
                 "hands memory back to the system at once)")


def started(torch: Any | None = None) -> bool:
    """Whether torch has initialised CUDA (its allocator has read its settings)."""
    torch = torch or loaded("torch")
    return torch is not None and bool(torch.cuda.is_initialized())


def options(conf: str) -> dict[str, str]:
    """An allocator configuration string as key -> value ('a:1,b:[2:4,>:1]'):
    a list value in brackets is one value, commas and colons inside it kept.
    """
    found, depth, item = {}, 0, ""
    for char in conf + ",":
        depth += (char == "[") - (char == "]")
        if char == "," and depth <= 0:
            key, colon, value = item.strip().partition(":")
            if item.strip():
                found[key.strip()] = value.strip() if colon else ""
            item = ""
        else:
            item += char
    return found


def _whole(text: str) -> int | None:
    """``text`` as a whole number (ASCII digits, as torch's stoi reads), or None."""
    return int(text) if text.isascii() and text.isdigit() else None


def _power_of_two(text: str, zero: bool = False) -> bool:
    n = _whole(text)
    return n is not None and (n & (n - 1) == 0) and (n > 0 or zero)


def _number(text: str, low: float, high: float, high_included: bool) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return low < value < high or (high_included and value == high)


def _divisions(text: str) -> bool:
    """A power of two, or a list '[size:divisions,...,>:divisions]' of sizes
    that are powers of two (or '>', the rest) and divisions that are powers of
    two or 0 (no rounding), as c10's parser requires.
    """
    if not (text.startswith("[") and text.endswith("]")):
        return _power_of_two(text)
    items = [item.partition(":") for item in text[1:-1].split(",")]
    return all(colon and (size.strip() == ">" or _power_of_two(size.strip()))
               and _power_of_two(count.strip(), zero=True)
               for size, colon, count in items)


def _flag(text: str) -> bool:
    return text in ("True", "False")


def _at_least(minimum: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        n = _whole(text)
        return n is not None and n >= minimum
    return check


# The options torch's allocator knows (c10's AllocatorConfig and
# CUDAAllocatorConfig, torch 2.13) and the values each takes, as c10's parsers
# check them: torch refuses an unknown key or a bad value only when CUDA
# initialises, far from the configure() that set it. key -> (check, in words).
_OPTIONS: dict[str, tuple[Callable[[str], bool], str]] = {
    "backend": (lambda text: text in BACKENDS, f"one of {BACKENDS}"),
    **dict.fromkeys(("expandable_segments", "pinned_use_background_threads",
                     "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
                     "graph_capture_record_stream_reuse", "pinned_free_catch_all",
                     "throw_on_cudamalloc_oom"), (_flag, "True or False")),
    # c10's minimum: its large-block size, 20 MiB
    **dict.fromkeys(("max_split_size_mb", "max_non_split_rounding_mb"),
                    (_at_least(20), "a whole number of MiB, at least 20")),
    **dict.fromkeys(("large_segment_size_mb", "pinned_max_round_threshold_mb",
                     "pinned_max_cached_size_mb"),
                    (_at_least(0), "a whole number of MiB")),
    "pinned_reserve_segment_size_mb": (_at_least(1), "a whole number of MiB, "
                                       "at least 1"),
    "pinned_num_register_threads": (
        lambda text: _power_of_two(text) and int(text) <= 128,
        "a power of two up to 128"),
    "garbage_collection_threshold": (lambda text: _number(text, 0, 1, False),
                                     "a number in (0, 1)"),
    "per_process_memory_fraction": (lambda text: _number(text, 0, 1, True),
                                    "a number in (0, 1]"),
    "roundup_power2_divisions": (_divisions, "a power of two, or a list "
                                 "[size:divisions,...,>:divisions] of powers of "
                                 "two (divisions may be 0)"),
}
KEYS = tuple(_OPTIONS)


def _bad_option(key: str, value: str) -> str | None:
    """Why ``key:value`` is not an option torch's allocator takes, or None."""
    if key not in _OPTIONS:
        return f"an unknown key {key!r} (torch's keys: {', '.join(KEYS)})"
    check, wanted = _OPTIONS[key]
    return None if check(value) else f"{key}:{value!r} ({key} takes {wanted})"


def _requested(request: Request) -> dict[str, str]:
    """The allocator options ``request`` asks for ('native' -> backend:native)."""
    if request.allocator is None:
        return {}
    if request.allocator in BACKENDS:
        return {"backend": request.allocator}
    return options(request.allocator)


def check_allocator(name: str, /) -> str | None:
    if name in BACKENDS:
        return None
    items = options(name)
    if not items:
        return (f"one of {BACKENDS}, or allocator options 'key:value,...' "
                "('expandable_segments:True,max_split_size_mb:128')")
    for key, value in items.items():
        why = _bad_option(key, value)
        if why is not None:
            return (f"one of {BACKENDS}, or options torch's allocator takes "
                    f"('expandable_segments:True,max_split_size_mb:128'), not {why}")
    return None


def too_late(request: Request, /) -> dict[str, str]:
    torch = loaded("torch")
    if not started(torch):
        return {}
    assert torch is not None
    backend = _requested(request).get("backend")
    current = torch.cuda.get_allocator_backend()
    if backend is not None and backend != current:
        return {"allocator": f"torch has already initialised CUDA with the "
                             f"{current!r} allocator backend, which it cannot "
                             "change"}
    return {}


def without_gpu() -> str | None:
    return None  # too late only once CUDA is initialised: then there is a GPU


def _conf_variable() -> str:
    """The variable torch reads: the one the user set, else the CUDA-named one."""
    return next((name for name in CONF if name in os.environ), CONF[1])


def _set_limit(torch: Any, limit: int) -> str:
    """``limit`` bytes on each device as torch's share of that device (its own
    size: CUDA has started). Unverified on a GPU.
    """
    count = torch.cuda.device_count()
    for index in range(count):
        total = torch.cuda.get_device_properties(index).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, limit / total), index)
    return (f"torch.cuda.set_per_process_memory_fraction(limit {limit} / each "
            f"device's total memory) on {count} device(s)")


def apply(request: Request, /) -> list[str]:
    done = []
    if request.preallocate is not None:
        done.append("torch does not preallocate: its caching allocator takes "
                    "memory as tensors need it")
    updates = _requested(request)
    torch = loaded("torch")
    if started(torch):  # the API calls that still work (unverified on a GPU)
        assert torch is not None
        if request.fraction is not None:
            count = torch.cuda.device_count()
            for index in range(count):
                torch.cuda.set_per_process_memory_fraction(request.fraction, index)
            done.append(f"torch.cuda.set_per_process_memory_fraction("
                        f"{request.fraction:g}) on {count} device(s)")
        if request.limit is not None:
            done.append(_set_limit(torch, request.limit))
        updates.pop("backend", None)  # the same backend (too_late checked it)
        if updates:
            conf = ",".join(f"{k}:{v}" for k, v in updates.items())
            torch._C._accelerator_setAllocatorSettings(conf)
            done.append(f"torch allocator settings {conf!r} (at run time)")
        return done
    fraction = requested_share(NAME, request, done)  # torch takes only shares
    if fraction is not None:
        updates["per_process_memory_fraction"] = repr(fraction)  # exact
    if updates:
        variable = _conf_variable()
        merged = {**options(os.environ.get(variable, "")), **updates}
        done.append(set_env(variable, ",".join(f"{k}:{v}" for k, v in merged.items())))
    return done


def _default_device(torch: Any) -> Device:
    # is_available() does not initialise CUDA (current_device() would).
    if not torch.cuda.is_available():
        return CPU
    return Device("cuda", torch.cuda.current_device() if started(torch) else 0)


def stats(device: Device | None, /) -> MemoryStats:
    torch = loaded("torch")
    assert torch is not None, "stats() asks only loaded frameworks"
    device = device or _default_device(torch)
    if device.kind == "cpu":
        return unknown(NAME, device, _NO_CPU_STATS, allocator="cpu")
    if device.kind != "cuda" or device.index >= torch.cuda.device_count():
        return unknown(NAME, device, f"torch has no device {device}")
    if not started(torch):
        return unknown(NAME, device, "torch has not initialised CUDA "
                                   "yet (asking would)")
    counters = torch.cuda.memory_stats(device.index)
    total = torch.cuda.get_device_properties(device.index).total_memory
    fraction = torch.cuda.get_per_process_memory_fraction(device.index)
    missing = "the allocator backend does not count it"
    return counted(NAME, device, {
        "in_use": counters.get("allocated_bytes.all.current"),
        "reserved": counters.get("reserved_bytes.all.current"),
        "peak": counters.get("allocated_bytes.all.peak"),
        "limit": int(total * fraction),
        "allocator": torch.cuda.get_allocator_backend()},
        dict.fromkeys(("in_use", "reserved", "peak"), missing))


def held() -> int | None:
    torch = loaded("torch")
    if not started(torch):
        return None
    assert torch is not None
    devices = range(torch.cuda.device_count())
    cached = sum(torch.cuda.memory_reserved(i) for i in devices)
    pinned = torch.cuda.host_memory_stats().get("allocated_bytes.current", 0)
    return int(cached + pinned)


def release() -> str:
    torch = loaded("torch")
    if not started(torch):
        return ("torch has not initialised CUDA, and keeps no cache of CPU memory: "
                "nothing to release")
    assert torch is not None
    torch.cuda.empty_cache()
    host_empty = getattr(torch._C, "_host_emptyCache", None)  # private, no public one
    if host_empty is not None:
        host_empty()
    return ("torch.cuda.empty_cache() and the pinned-host cache: cached blocks "
            "returned to the driver")
