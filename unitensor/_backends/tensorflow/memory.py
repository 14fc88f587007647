"""TensorFlow's memory controls: set before it initialises its devices.

TensorFlow reads its GPU settings once, when its eager context initialises (the
first op, not ``import tensorflow``): memory growth (``TF_FORCE_GPU_ALLOW_GROWTH``,
or ``tf.config.experimental.set_memory_growth`` per GPU), the allocator
(``TF_GPU_ALLOCATOR=cuda_malloc_async``), the share of each GPU
(``per_process_gpu_memory_fraction`` of its configuration) or a limit in MiB per
GPU (its logical device configuration's ``memory_limit``). Without growth it
takes nearly all of every GPU. Nothing can make it return memory in-process
(tensorflow/tensorflow#36465): a flush only counts the tensors that the caller's
``gc.collect()`` freed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ..._device import CPU, Device
from .._memory import (
    MemoryStats,
    Request,
    after_import,
    counted,
    loaded,
    set_env,
    unknown,
    unset_env,
)

NAME = "tensorflow"
ALLOCATORS = ("bfc", "cuda_malloc_async")  # bfc: TensorFlow's default (no variable)
GROWTH = "TF_FORCE_GPU_ALLOW_GROWTH"  # overrides the configuration when set
ALLOCATOR = "TF_GPU_ALLOCATOR"
_NOT_STARTED = ("tensorflow has not initialised its devices yet (asking would "
                "start it and, on a GPU, take nearly all of its memory)")


def started() -> bool:
    """Whether TensorFlow's eager context has initialised (its devices exist).

    ``context_safe()`` is public in ``tensorflow.python.eager.context``; the
    handle it holds once initialised is private (``_context_handle``), which
    ``set_memory_growth`` itself reads to refuse late changes.
    """
    module = sys.modules.get("tensorflow.python.eager.context")
    if module is None:
        return False
    context = module.context_safe()
    return context is not None and getattr(context, "_context_handle",
                                           None) is not None


def check_allocator(name: str, /) -> str | None:
    return None if name in ALLOCATORS else f"one of {ALLOCATORS}"


def too_late(request: Request, /) -> dict[str, str]:
    if not started():
        return {}
    settings = {"preallocate": f"memory growth ({GROWTH})",
                "fraction": "per_process_gpu_memory_fraction",
                "allocator": ALLOCATOR,
                "limit": "its logical device configuration (memory_limit)"}
    return {name: "tensorflow has already initialised its devices; it reads "
                  f"{settings[name]} only then" for name in request.given()}


def without_gpu() -> str | None:
    tf = loaded("tensorflow")
    if tf is None or not started() or _gpus(tf):
        return None
    return ("tensorflow started without a GPU, where its GPU memory settings cannot "
            "matter")


def _gpus(tf: Any) -> list[Any]:
    """TensorFlow's physical GPUs (listing them does not initialise it)."""
    return list(tf.config.list_physical_devices("GPU"))


def _set_fraction(tf: Any, fraction: float) -> str:
    """Put ``per_process_gpu_memory_fraction`` in the configuration TensorFlow
    hands to its runtime when it initialises.

    TF2 has no public call for it (``set_logical_device_configuration`` wants a
    size in MiB per GPU, and TensorFlow cannot tell a GPU's size before it
    starts); the eager context's configuration (``_config``, private) is where
    TF1's ``ConfigProto(gpu_options=...)`` still goes, and ``context().config``
    shows it.
    """
    context = sys.modules["tensorflow.python.eager.context"].context()
    if context._config is None:
        context._config = tf.compat.v1.ConfigProto()
    context._config.gpu_options.per_process_gpu_memory_fraction = fraction
    gpus = len(_gpus(tf))
    return (f"per_process_gpu_memory_fraction={fraction:g} in tensorflow's "
            f"configuration ({gpus} GPU{'s' if gpus != 1 else ''} visible)")


def _set_limit(tf: Any, limit: int) -> str:
    """One logical device per GPU with ``memory_limit`` in MiB (rounded down,
    so that it stays within ``limit`` bytes): TensorFlow's public call for a
    size per GPU, read when its devices initialise. Unverified on a GPU.
    """
    mib = limit // 2**20
    gpus = _gpus(tf)
    if not gpus:
        return (f"no GPU visible to tensorflow: no memory limit to set "
                f"(memory_limit={mib} MiB not set)")
    for gpu in gpus:
        tf.config.set_logical_device_configuration(
            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=mib)])
    return (f"tf.config.set_logical_device_configuration(memory_limit={mib} MiB) "
            f"on {len(gpus)} GPU{'s' if len(gpus) != 1 else ''}")


def apply(request: Request, /) -> list[str]:
    tf = loaded("tensorflow")
    done = []
    if request.preallocate is not None:
        growth = not request.preallocate
        done.append(set_env(GROWTH, "true" if growth else "false"))
        # set_memory_growth refuses a GPU with a memory limit (a logical device
        # configuration); TensorFlow reads the variable for those still
        gpus = [] if tf is None else [
            gpu for gpu in _gpus(tf)
            if tf.config.get_logical_device_configuration(gpu) is None]
        if tf is not None and gpus:
            for gpu in gpus:
                tf.config.experimental.set_memory_growth(gpu, growth)
            done.append(f"tf.config.experimental.set_memory_growth({growth}) on "
                        f"{len(gpus)} GPU{'s' if len(gpus) != 1 else ''}")
    if request.allocator is not None:
        done.append(unset_env(ALLOCATOR) if request.allocator == "bfc"
                    else set_env(ALLOCATOR, request.allocator))
    if request.fraction is not None:
        fraction = request.fraction
        if tf is not None:
            done.append(_set_fraction(tf, fraction))
        else:
            done.append(after_import(
                "tensorflow", "fraction",
                lambda: _set_fraction(sys.modules["tensorflow"], fraction)))
    if request.limit is not None:
        limit = request.limit
        done.append(_set_limit(tf, limit) if tf is not None else after_import(
            "tensorflow", "limit",
            lambda: _set_limit(sys.modules["tensorflow"], limit)))
    return done


def _device_name(device: Device) -> str | None:
    if device.kind == "cpu":
        return "CPU:0"
    return f"GPU:{device.index}" if device.kind == "cuda" else None


def _allocator(device: Device) -> str:
    if device.kind == "cpu":
        return "cpu"
    return os.environ.get(ALLOCATOR) or "bfc"


def stats(device: Device | None, /) -> MemoryStats:
    tf = loaded("tensorflow")
    if tf is None or not started():
        return unknown(NAME, device or CPU, _NOT_STARTED)
    if device is None:
        device = Device("cuda", 0) if tf.config.list_logical_devices("GPU") else CPU
    name = _device_name(device)
    known = [d.name.rpartition("device:")[2] for d in tf.config.list_logical_devices()]
    if name is None or name not in known:
        return unknown(NAME, device, f"tensorflow has no device {device}")
    info = _memory_info(tf, name)
    if info is None:
        return unknown(NAME, device, _NO_STATS.format(name))
    only = "tensorflow reports only the bytes in use now and at their peak"
    return counted(NAME, device, {
        "in_use": info.get("current"), "peak": info.get("peak"),
        "allocator": _allocator(device)}, {"reserved": only, "limit": only,
                                           "in_use": only, "peak": only})


def held() -> int | None:
    tf = loaded("tensorflow")
    if tf is None or not started():
        return None
    counts = [_memory_info(tf, d.name.rpartition("device:")[2])
              for d in tf.config.list_logical_devices()
              if d.device_type in ("CPU", "GPU")]
    known = [info.get("current", 0) for info in counts if info is not None]
    return sum(known) if known else None


# TensorFlow keeps allocator statistics for a CPU device only in some processes
# (which allocator its first op picked); elsewhere get_memory_info raises.
_COUNTED = "TF_CPU_ALLOCATOR_USE_BFC=true before tensorflow starts"
_NO_STATS = ("tensorflow keeps no allocator statistics for {} in this process "
             f"({_COUNTED} keeps them on the CPU)")


def _memory_info(tf: Any, name: str) -> dict[str, int] | None:
    """TensorFlow's counters for device ``name``, or None where it keeps none."""
    try:
        return dict(tf.config.experimental.get_memory_info(name))
    except ValueError:  # "Allocator stats not available for device 'CPU:0'"
        return None


def release() -> str:
    if loaded("tensorflow") is None or not started():
        return "tensorflow has not started: it holds no memory"
    note = ("tensorflow cannot return memory its allocator holds in-process "
            "(tensorflow/tensorflow#36465): only tensors freed by gc count")
    if held() is None:
        note += (", and this process's allocator keeps no counts to measure them "
                 f"({_COUNTED} keeps them on the CPU)")
    return note
