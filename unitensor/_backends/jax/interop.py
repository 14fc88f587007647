"""JAX: its arrays (immutable, on CPU or GPU), their memory, and the routes to them.

Quirks handled here (each measured, see docs/interop.md):
- with x64 disabled (JAX's default), ``jax.dlpack.from_dlpack`` of 64-bit data
  silently returns a 32-bit *copy*, and a 64-bit ``dtype=`` makes a 32-bit array
  with only a warning: both refused, naming the ``jax_enable_x64`` switch.
- JAX on CPU copies any buffer that is not 64-byte aligned, and any layout that is
  not row-major compact: copied by unitensor (64-byte aligned), and reported.
- JAX arrays are immutable: exports are read-only.
- On CPU, a computation over ~1,000 flops runs on a worker thread of XLA's
  (asynchronous dispatch), and the export blocks until it is done: the direct
  export polls ``is_ready()`` for up to ``_POLL_NS`` first (below; measured in
  docs/wrap.md, "Training loops and XLA's worker thread").
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.dlpack
import jax.numpy as jnp
import numpy as np

from ... import _core
from ..._device import CPU, KDL_CPU, Device
from ..._dtypes import DTYPES, DType, from_dlpack_code
from ..._errors import arg_error
from .._dlpack import ForImmutableConsumer, immutable_buffer
from .._dtype_tables import numpy_dtype_table

NATIVE_DTYPES = numpy_dtype_table(np)
_TO_JAX = {d: k for k, d in NATIVE_DTYPES.items()}
# The dtypes JAX holds only with x64 enabled (else it narrows them to 32 bits).
_WIDE_DTYPES = frozenset(DTYPES[n] for n in ("int64", "uint64", "float64",
                                              "complex128"))
_WIDE = frozenset(d.dlpack for d in _WIDE_DTYPES)  # as a Buffer names them
# the 32-bit dtype a user casts each 64-bit one to, where x64 is not wanted
_NARROW = {"int64": "int32", "uint64": "uint32", "float64": "float32",
           "complex128": "complex64"}
_ALIGNMENT = 64


# jax.Array's isinstance takes tracers too, but its issubclass does not (and
# unitensor recognises arrays by their type): inside jit, grad and vmap they are
# the arrays of the jax code a unitensor function traces
ARRAY_TYPES = (jax.Array, jax.core.Tracer)


def device(x: jax.Array) -> Device:
    # a tracer has no memory: where JAX will run the traced computation
    devices = x.devices() if not isinstance(x, jax.core.Tracer) else {_default()}
    if len(devices) != 1:
        raise arg_error(ValueError, "asarray", "obj", "a jax.Array on one device",
                        f"an array sharded over {len(devices)} devices")
    (dev,) = devices
    if dev.platform == "cpu":
        return CPU
    if dev.platform in ("gpu", "cuda"):
        return Device("cuda", dev.local_hardware_id or 0)
    if dev.platform == "rocm":
        return Device("rocm", dev.local_hardware_id or 0)
    raise arg_error(ValueError, "asarray", "obj", "a jax.Array on cpu or gpu",
                    f"an array on {dev.platform}")


def _default() -> Any:
    """JAX's default device (its setting: a device, a platform's name, None)."""
    default = jax.config.jax_default_device  # type: ignore[attr-defined]
    if default is None or isinstance(default, str):
        return jax.devices(default)[0]
    return default


def readonly(x: jax.Array) -> bool:
    return True


def no_memory(x: jax.Array) -> str | None:
    """Why ``x`` has no memory (a tracer of a jax transformation), or None."""
    if type(x) is not _ARRAY_IMPL and isinstance(x, _TRACER):
        return ("a jax tracer inside a jax transformation (jit, grad, vmap, ...), "
                "which has no memory to share or read")
    return None


# read once: jax.core's attributes go through its deprecation __getattr__, and
# a concrete array (most operands) is no tracer
_TRACER = jax.core.Tracer
# (jaxlib's ArrayImpl: jax.Array's stubs lack some of its methods, is_ready)
_ARRAY_IMPL: Any = type(jnp.zeros(()))


def autodiff_state(x: jax.Array) -> str | None:
    """A tracer carries a jax transformation's state (``grad``, ``jvp``, ``jit``,
    ``vmap``): only jax can compute on it.
    """
    if type(x) is not _ARRAY_IMPL and isinstance(x, _TRACER):
        return f"a jax tracer ({type(x).__name__})"
    return None


def export(x: jax.Array) -> _core.Buffer:
    # Without a stream, JAX's export waits until the array is computed; a JAX
    # array never changes after, so its Buffer needs no producer.
    buf = direct_export(x)
    return buf if buf is not None else immutable_buffer(x.__dlpack__())


def direct_export(x: Any) -> _core.Buffer | None:
    """A read-only Buffer over ``x`` by jaxlib's own export, which
    ``__dlpack__`` calls after ~5 µs of Python (its checks are of arrays
    elsewhere): for a concrete array on the one CPU device, of a dtype
    unitensor holds. None for anything else (a tracer, numpy, another device, a
    sharded array) and for a deleted or donated one (``__dlpack__`` says so).
    """
    if (_EXPORT is None or type(x) is not _ARRAY_IMPL or x.dtype not in NATIVE_DTYPES
            or getattr(x.sharding, "_device", None) is not _cpu()):
        return None
    try:
        if not x.is_ready():
            _settle(x)
        return immutable_buffer(_EXPORT(x))
    except (RuntimeError, ValueError, TypeError):
        return None


# How long an export polls a CPU result that is not ready yet before it blocks.
# Blocking sleeps until XLA's worker thread wakes the caller, and where idle
# cores sleep (a virtual machine) the two wake-ups of a small computation cost
# ~45 µs more than the computation (measured, docs/wrap.md); polling keeps the
# caller awake to see the result as it lands. A longer computation then blocks
# as before, having lost at most this long of one core.
_POLL_NS = 50_000


def _settle(x: Any) -> None:
    """Return once ``x`` (not computed when asked) is, or ``_POLL_NS`` have passed."""
    clock = time.perf_counter_ns
    end = clock() + _POLL_NS
    while not x.is_ready() and clock() < end:
        pass


try:  # jaxlib's DLPack export
    from jax._src.lib import _jax
    _EXPORT = getattr(_jax, "buffer_to_dlpack_managed_tensor", None)
except ImportError:  # pragma: no cover - another jaxlib
    _EXPORT = None


@functools.cache
def _cpu() -> Any:
    return jax.devices("cpu")[0]


def _x64_disabled() -> bool:
    # mypy: jax sets its flags on jax.config at runtime; its types omit them
    return not jax.config.jax_enable_x64  # type: ignore[attr-defined]


def _x64_error(exc: type[Exception], arg: str, narrowing: str,
               received: str) -> Exception:
    """The one refusal of 64-bit data or dtypes while x64 is disabled."""
    return arg_error(exc, "jax", arg, "a dtype JAX holds with x64 disabled (enable "
                     "it with jax.config.update('jax_enable_x64', True) or "
                     f"JAX_ENABLE_X64=1; {narrowing})", received)


def jax_dtype(dtype: DType) -> Any:
    """JAX's dtype for ``dtype``: every ``dtype=`` argument passes here.

    ValueError, not TypeError, for a 64-bit dtype with x64 disabled: the dtype is
    valid, this configuration does not hold it; array_api_strict (the standard's
    reference) raises ValueError too for a dtype a device does not support.
    """
    if dtype in _WIDE_DTYPES and _x64_disabled():
        raise _x64_error(ValueError, "dtype", "JAX would make a 32-bit array "
                         "instead, with only a warning", dtype.name)
    return _TO_JAX[dtype]


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.dtype in _WIDE and _x64_disabled():
        # the data's dtype by name (not its DLPack code), and the other way out:
        # a 32-bit copy the user asks for, where x64 is not wanted
        name = from_dlpack_code(buf.dtype).name
        raise _x64_error(BufferError, "x", "or cast it first, ut.astype(x, ut."
                         f"{_NARROW[name]}); jax.dlpack.from_dlpack would silently "
                         "return a 32-bit copy", f"{name} data")
    if buf.device[0] == KDL_CPU:
        if not buf.c_contiguous:
            return "JAX on CPU accepts only row-major compact memory"
        if buf.size and buf.data_ptr % _ALIGNMENT:
            return ("JAX on CPU copies memory that is not 64-byte aligned "
                    f"(this data is {buf.alignment}-byte aligned)")
    return None


def alias(buf: _core.Buffer) -> jax.Array:
    x = _import_cpu(buf) if buf.device[0] == KDL_CPU and _direct_import else None
    if x is None:
        x = jax.dlpack.from_dlpack(ForImmutableConsumer(buf))
    on_cpu = buf.device[0] == KDL_CPU
    if buf.size and on_cpu and x.unsafe_buffer_pointer() != buf.data_ptr:
        # Our checks above should make this unreachable; never hand out a silent copy.
        raise arg_error(BufferError, "jax", "x", "memory jax.dlpack.from_dlpack "
                        "shares", "a silent copy by JAX")
    return x


def _jaxlib_import() -> Callable[..., Any] | None:
    """jaxlib's own DLPack import, which ``jax.dlpack.from_dlpack`` calls after ~15
    µs of Python (stream lookup, dtype canonicalisation, placement: none of which
    applies to CPU memory that ``copy_reason`` already accepted). Private API:
    None where this jaxlib does not have it in the shape used here.
    """
    try:
        from jax._src.lib import _jax, jaxlib_extension_version
    except ImportError:
        return None
    if jaxlib_extension_version < 467:  # the 5-argument form
        return None
    return getattr(_jax, "dlpack_managed_tensor_to_buffer", None)


def _import_cpu(buf: _core.Buffer) -> jax.Array | None:
    """``buf`` (CPU) as a jax.Array through jaxlib directly; None to fall back
    (for good, if jaxlib refuses the call itself).
    """
    global _direct_import
    if _direct_import is None:  # alias() asks first; this tells the type checker
        return None
    try:
        # copy=None, as jax.dlpack.from_dlpack passes: an empty array at an
        # unaligned address is "copied"; wrap() refuses any other copy.
        return _direct_import(buf.export_legacy(allow_readonly=True),
                              _cpu_device(), None, None, 1)
    except TypeError:  # a jaxlib whose private function changed shape
        _direct_import = None
        return None


@functools.cache
def _cpu_device() -> object:
    return jax.devices("cpu")[0]


_direct_import = _jaxlib_import()


def copy(x: jax.Array) -> jax.Array:
    return jnp.array(x, copy=True)


def astype(x: jax.Array, dtype: DType) -> jax.Array:
    return x.astype(jax_dtype(dtype))


def cuda_devices() -> int:
    try:
        return len(jax.devices("gpu"))
    except RuntimeError:  # "Unknown backend gpu": no CUDA plugin, or no device
        return 0


def to_device(x: jax.Array, device: Device) -> jax.Array:
    platform = "cpu" if device.kind == "cpu" else "gpu"
    return jax.device_put(x, jax.devices(platform)[device.index])


def from_python(obj: object, dtype: DType | None) -> jax.Array:
    return jnp.asarray(obj, dtype=None if dtype is None else jax_dtype(dtype))
