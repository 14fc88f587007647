"""TensorFlow: immutable eager tensors, exchanged through its DLPack import and export.

Quirks handled here:
- ``tf.Tensor`` exchanges memory only through ``tf.experimental.dlpack`` and only
  in the legacy capsule format, which cannot carry the read-only flag; since TF
  tensors are immutable, read-only memory may be lent to TF, and memory exported
  by TF is marked read-only here.
- ``tf.convert_to_tensor`` and ``tf.Tensor.numpy()`` copy; the DLPack route does not.
- TF accepts only row-major compact memory ("Invalid strides array from DLPack"):
  anything else is copied and reported.
- TF's CPU kernels (Eigen) assume 64-byte aligned memory and abort the process
  (``tensor.h: Check failed: IsAligned()``) on anything else, which is most
  small numpy arrays (numpy aligns to 16 bytes): copied and reported, as for JAX.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import _triton_first  # noqa: F401  (triton before TensorFlow)

# isort: split
import tensorflow as tf
from tensorflow.python import pywrap_tfe as _pywrap_tfe
from tensorflow.python.eager import record as _record

from ... import _core
from ..._device import CPU, Device
from ..._dtypes import DTYPES, DType
from ..._errors import arg_error, describe
from .. import Watched, exported_by
from .._dlpack import cpu_only_reason

if TYPE_CHECKING:
    import numpy as np

NATIVE_DTYPES = {tf.dtypes.as_dtype(n): d for n, d in DTYPES.items()}
_TO_TF = {d: t for t, d in NATIVE_DTYPES.items()}
# An eager tensor's dtype from its C method's enum: what the dtype property
# computes, in Python, from the same enum.
DTYPE_CODE = ("_datatype_enum", {t.as_datatype_enum: t for t in NATIVE_DTYPES})


ARRAY_TYPES = (tf.Tensor, tf.Variable)


def wraps_as_is(kind: type) -> bool:
    """Tensors, eager or symbolic (inside ``tf.function``); variables are read
    (``native``).
    """
    return issubclass(kind, tf.Tensor) and not issubclass(kind, tf.Variable)


def native(obj: object) -> tf.Tensor:
    if isinstance(obj, tf.Variable):
        return _read(obj)
    if isinstance(obj, tf.Tensor):
        return obj
    raise arg_error(TypeError, "asarray", "obj", "a tf.Tensor or tf.Variable",
                    describe(obj))


# A Tensor of a tf.Variable holds the variable's value (read when the Tensor is
# made: TF's own ops read it so); unitensor's writes to it (x[key] = v, x += 1)
# make a new value, as for any TF tensor, and assign it to the variable, so that
# the variable changes as a numpy array would. The value remembers its variable
# (an attribute: TF tensors carry Keras' the same way).
_VARIABLE = "_unitensor_variable"


def _read(variable: tf.Variable) -> tf.Tensor:
    """The variable's current value (symbolic when traced), which a write assigns
    back to it (``written``).
    """
    value = variable.value()
    setattr(value, _VARIABLE, variable)
    return value


def written(before: tf.Tensor, after: tf.Tensor) -> tf.Tensor:
    """``after`` assigned to the variable ``before`` was read from, if any: a write
    to a Tensor of a ``tf.Variable`` writes through (the rule above).
    """
    variable = getattr(before, _VARIABLE, None)
    if variable is None:
        return after
    variable.assign(after)
    return _read(variable)


def symbolic(x: tf.Tensor) -> bool:
    """Whether ``x`` is a graph tensor (inside ``tf.function``): it has no memory."""
    return not hasattr(x, "numpy")


NO_MEMORY = ("a symbolic tf.Tensor inside tf.function, which has no memory to "
             "share or read")


def no_memory(x: tf.Tensor) -> str | None:
    """Why ``x`` has no memory (a symbolic tensor traced by ``tf.function``)."""
    return NO_MEMORY if not hasattr(x, "numpy") else None



def device(x: tf.Tensor) -> Device:
    """Where ``x``'s memory is: TF's ``backing_device`` (TF keeps int32 tensors
    placed on a GPU in host memory, and ``x.device`` names the GPU); a symbolic
    tensor has none, and is where TF will place it.
    """
    name = getattr(x, "backing_device", None) or x.device
    if not name:
        return default_device()
    return device_of_name(name)


def default_device() -> Device:
    """TF's own placement: its first GPU where it has one, else the CPU."""
    gpus = tf.config.list_logical_devices("GPU")
    return device_of_name(gpus[0].name) if gpus else CPU


def device_of_name(name: str) -> Device:
    """unitensor's device for a TF device name: a tensor's
    ('/job:localhost/.../device:GPU:0') or a short one ('/CPU:0', 'GPU:1').
    """
    last = name.rpartition("/")[2].removeprefix("device:")
    kind, _, index = last.upper().partition(":")
    if kind == "CPU":
        return CPU
    if kind == "GPU":
        return Device("cuda", int(index or 0))
    raise arg_error(ValueError, "asarray", "obj", "a tensor on CPU or GPU",
                    f"a tensor on {name!r}")


def autodiff_state(x: tf.Tensor) -> str | None:
    """Whether an active ``tf.GradientTape`` watches ``x`` (or a tensor computed
    from a watched one), or a ``ForwardAccumulator`` holds a tangent for it: TF's
    tapes record only TF's ops, so a computation elsewhere drops the gradient.
    Asked through TF's recording module (its tape bookkeeping, which
    ``tf.GradientTape`` itself uses); outside any tape both answers are no.
    """
    if not _record.could_possibly_record():  # no tape or accumulator is active
        return None
    if _record.should_record_backprop([x]):
        return "a tf.Tensor watched by a tf.GradientTape"
    if _pywrap_tfe.TFE_Py_PackJVPs([x])[0]:
        return "a tf.Tensor with a tangent of a tf.autodiff.ForwardAccumulator"
    return None


def readonly(x: tf.Tensor) -> bool:
    return True


# x's memory, read-only: the capsule tf.experimental.dlpack.to_dlpack makes (its
# C function, without its Python frame) as a read-only Buffer, in one C call.
export: Callable[[tf.Tensor], _core.Buffer] = _core.bound(
    _core.immutable_export, _pywrap_tfe.TFE_ToDlpackCapsule)


def _numpy_route() -> Callable[[np.ndarray], tf.Tensor | None] | None:
    """The route from numpy: a numpy array (row-major compact and 64-byte
    aligned, as TF needs) as a DLPack capsule made in C over the array for TF's
    C++ import, with the eager context's handle read from TF's module global as
    it is then (TF makes a new context in its own resets), all in one C call
    (``_core.ndarray_import``): a third of the general path's cost. None for any
    other array (or dtype the capsule does not name), and before TF has made its
    context: the general path decides, or makes it. No route where TF's C++
    import is not there.
    """
    if _from_capsule is None:
        return None
    return _core.bound(_core.ndarray_import, _from_capsule,
                       functools.partial(_CONTEXT_HANDLE, _eager), _ALIGNMENT)


# the eager context's handle (a plain attribute: Context._handle is a property
# whose Python frame the route would pay); None where it is not initialised
_CONTEXT_HANDLE = operator.attrgetter("_context._context_handle")


def _from_torch(x: Any) -> tf.Tensor | None:  # x: a torch.Tensor
    """torch's memory through its DLPack C exchange API and TF's C++ import:
    half the cost of ``tf.experimental.dlpack.from_dlpack(t.__dlpack__())``. Only
    what the general path would alias as it is (on the CPU, row-major compact,
    64-byte aligned), and not a tensor with torch's lazy negation or conjugation
    bit, which the exchange does not see, nor one of a type that does not declare
    the exchange itself (a subclass): None, and the general path copies and
    reports, or refuses. The capsule is made in one C call
    (``_core.exchange_host_capsule``), as numpy's route from torch is.
    """
    if _from_capsule is None:
        return None
    capsule = _core.exchange_host_capsule(("is_neg",), ("is_conj",), _ALIGNMENT, x)
    return None if capsule is None else _from_capsule(capsule, _context_handle())


def _from_jax(x: Any) -> tf.Tensor | None:  # x: a jax.Array
    """JAX's memory by the jax adapter's export (jaxlib's own, without
    ``__dlpack__``'s Python) and TF's C++ import (``alias``): what the general
    path does, without its Python. None where the export is refused (a tracer)
    or TF would need a copy (not compact or not 64-byte aligned, off the CPU):
    the general path decides.
    """
    buf = exported_by("jax", x)
    return alias(buf) if buf is not None and copy_reason(buf) is None else None


ROUTES: Watched[str, Callable[[Any], Any]] = Watched(torch=_from_torch, jax=_from_jax)


_ALIGNMENT = 64  # what TF's CPU kernels assume of every tensor's data


def _unaligned(buf: _core.Buffer) -> bool:
    return bool(buf.size and buf.data_ptr % _ALIGNMENT)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if not buf.c_contiguous:
        return "TensorFlow accepts only row-major compact memory"
    reason = cpu_only_reason(buf, "tensorflow (as built here)")
    if reason is None and _unaligned(buf):
        return ("TensorFlow's CPU kernels need 64-byte aligned memory "
                f"(this data is {buf.alignment}-byte aligned)")
    return reason


def alias(buf: _core.Buffer) -> tf.Tensor:
    # TF never writes into a tensor, so lending it read-only memory is safe.
    capsule = buf.export_legacy(allow_readonly=True)
    if _from_capsule is None:
        return tf.experimental.dlpack.from_dlpack(capsule)
    # What tf.experimental.dlpack.from_dlpack calls, without its ~0.3 µs of
    # Python per call (it initialises the eager context every time).
    return _from_capsule(capsule, _context_handle())


def _tfe_import() -> Callable[..., Any] | None:
    """TensorFlow's C++ DLPack import (private API); None where it is not there."""
    global _eager
    try:
        from tensorflow.python import pywrap_tfe
        from tensorflow.python.eager import context
    except ImportError:
        return None
    if not hasattr(context.context(), "ensure_initialized"):
        return None
    _eager = context
    return getattr(pywrap_tfe, "TFE_FromDlpackCapsule", None)


_eager: Any = None  # tensorflow.python.eager.context, once _tfe_import() found it


def _context_handle() -> object:
    """The eager context's handle, initialised once (and again only if TF made a
    new context). TF's own context() is a Python call: its module's global is
    read first, and context() asked only where that is not the one seen before.
    """
    global _context, _handle
    ctx = _eager._context
    if ctx is None or ctx is not _context:
        ctx = _eager.context()
        ctx.ensure_initialized()
        _context, _handle = ctx, ctx._handle
    return _handle


_context: object = None
_handle: object = None


_from_capsule = _tfe_import()
_FROM_NUMPY = _numpy_route()
if _FROM_NUMPY is not None:
    ROUTES["numpy"] = _FROM_NUMPY


def copy(x: tf.Tensor) -> tf.Tensor:
    return tf.raw_ops.DeepCopy(x=x)  # tf.identity may forward the same buffer


def astype(x: tf.Tensor, dtype: DType) -> tf.Tensor:
    native = _TO_TF[dtype]
    if native == tf.bool and x.dtype.is_complex:
        # true unless both parts are 0 (TF's cast reads the real part only)
        return tf.math.not_equal(x, tf.zeros_like(x))
    return tf.cast(x, native)


def cuda_devices() -> int:
    # physical devices: listing them does not initialise TensorFlow's context
    return len(tf.config.list_physical_devices("GPU"))


def to_device(x: tf.Tensor, device: Device) -> tf.Tensor:
    with tf.device(device_name(device)):
        return tf.identity(x)


def device_name(device: Device) -> str:
    """TF's name for ``device``."""
    return "/CPU:0" if device.kind == "cpu" else f"/GPU:{device.index}"


def constant(value: Any, dtype: Any) -> tf.Tensor:
    """``tf.constant(value, dtype)`` for a Python scalar, signed zeros kept: TF's
    eager cache of scalar constants is keyed by the value, and ``0.0 == -0.0``,
    so ``tf.constant(-0.0)`` after ``tf.constant(0.0)`` gives +0 (also for a
    zero part of a complex). Zeros go through numpy, which TF does not cache.
    """
    kind = type(value)
    if (kind is float and value == 0) or (kind is complex and (
            value.real == 0 or value.imag == 0)):
        import numpy as np
        return tf.constant(np.array(value, dtype.as_numpy_dtype))
    return tf.constant(value, dtype)


def from_python(obj: object, dtype: DType | None) -> tf.Tensor:
    """Python data, with the standard's default dtypes where ``dtype`` is None
    (those the inspection API reports: float64, complex128, int64; TF's own
    inference would give float32 and int32).
    """
    if dtype is None:
        import numpy as np
        array = np.asarray(obj)
        if array.dtype.kind in "biufc":
            return tf.constant(array)
        # what TF would make a tf.string or variant tensor of: refused as the
        # numpy owner refuses it (no dtype of ours; casting one aborts TF)
        raise arg_error(TypeError, "asarray", "obj", "a Python scalar or nested "
                        "sequence of bool, int, float or complex",
                        f"elements that make numpy dtype {array.dtype.str!r}")
    if dtype is not None and type(obj) in (float, complex) and dtype.kind.endswith(
            "floating"):
        return constant(obj, _TO_TF[dtype])
    try:
        return tf.convert_to_tensor(obj, dtype=None if dtype is None else _TO_TF[dtype])
    except (TypeError, ValueError):
        if dtype is None:
            raise
        import numpy as np
        # TF refuses what the other owners cast ("Cannot convert [1, 0] to
        # EagerTensor of dtype bool", bools for a numeric dtype, floats for an
        # integer one): Python data converts as numpy converts it, on every owner
        # (docs/namespace.md)
        return tf.constant(np.asarray(obj, dtype=_TO_TF[dtype].as_numpy_dtype))
