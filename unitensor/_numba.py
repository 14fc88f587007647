"""numba reads a Tensor: unitensor's numba extension (numba loads it itself).

The rule: inside a ``numba.njit`` function a Tensor is the numpy array
``t.numpy()`` gives, so numba sees an ndarray (its methods, ``np.sum(t)``,
slicing) over the Tensor's memory, zero-copy, whoever owns it: a write lands in
the owner's memory; memory that is read-only (a JAX or TensorFlow array, a
read-only numpy array, memory lent read-only) is typed read-only, so numba
refuses a write to it when it compiles, as it does for a read-only ndarray. A
dask-owned Tensor is computed once, as ``t.numpy()`` does, and read-only.

numba types a Python object by ``typeof_impl`` (a ``functools.singledispatch``)
and passes it in by the unboxer of its numba type: ``TensorType`` is numba's
array type under another name (so every ndarray typing and lowering applies)
whose unboxer first takes the Tensor's numpy view (cached on the Tensor; numba
holds it, and with it the memory, while the call runs and in any array it
returns). What a compiled function returns is numba's: an array, also the
Tensor given to it, comes back as a ``numpy.ndarray`` over the same memory.

Loaded by numba through the entry point ``numba_extensions: init`` of the
installed package (pyproject.toml), on its first compile; ``init()`` by hand
does the same where the package is not installed. ``import unitensor`` never
imports numba.

Memory numba cannot read is not typed here: a Tensor in CUDA memory is left to
numba's CUDA target, which reads ``__cuda_array_interface__``; a dtype numba has
no type for (bfloat16) and memory in an autodiff graph (a torch tensor that
requires grad: numba would drop the graph) are refused with the project's
errors, and so is a Tensor that is a global or closure variable of the jitted
function (numba would freeze it as an ndarray constant): a Tensor is an argument.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np
from numba.core import cgutils, types
from numba.core.boxing import unbox_array
from numba.core.datamodel.models import ArrayModel
from numba.core.errors import NumbaNotImplementedError
from numba.core.typing.typeof import Purpose
from numba.extending import NativeValue, register_model, typeof_impl, unbox
from numba.np import numpy_support

from ._device import CPU_READABLE
from ._errors import arg_error, is_ours, restated
from ._tensor import Tensor

_FUNC = "numba"  # the function a refusal names: the njit function's typing


class TensorType(types.Array):
    """numba's type of a Tensor: an array type (every ndarray typing and
    lowering applies to it) with its own unboxer, which reads the Tensor.
    """

    def __init__(self, dtype: Any, ndim: int, layout: Literal["C", "F", "A"],
                 readonly: bool = False, aligned: bool = True) -> None:
        name = f"unitensor.Tensor({dtype}, {ndim}d, {layout})"
        if readonly:
            name = f"readonly {name}"
        if not aligned:
            name = f"unaligned {name}"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name,
                         aligned=aligned)


def _array(t: Tensor) -> np.ndarray[Any, Any] | None:
    """``t``'s numpy view, which numba reads; None for memory off the CPU."""
    # numba types every argument of every call: first what t.numpy() would give
    # at once without copying (the owner's own ndarray, the cached view)
    native = t._native
    if type(native) is np.ndarray:
        return native
    aliases = t._aliases
    cached = None if aliases is None else aliases.views.get("numpy")
    if cached is not None:
        return cast("np.ndarray[Any, Any]", cached)  # (a string: no alias per call)
    try:
        return t.numpy(copy=False)
    except BufferError:
        if t.device.dlpack[0] not in CPU_READABLE:
            # (numba's own ValueError follows: numba's CUDA target then reads
            # __cuda_array_interface__)
            return None
        raise
    except ValueError as exc:
        # numba takes a ValueError for "no numba type" (an object argument, then
        # a confusing typing error): a refusal (memory in an autodiff graph) is
        # raised as a TypeError
        if not is_ours(exc):
            raise
        raise restated(exc, TypeError, _FUNC, "argument") from exc


# (dtype, ndim, layout, readonly, aligned) -> its TensorType: numba types each
# argument of every call (a Tensor has no fingerprint numba caches), and making a
# numba type costs ten times this look-up.
_TYPES: dict[tuple[np.dtype[Any], int, Literal["C", "F", "A"], bool, bool],
             TensorType] = {}


def typeof_tensor(t: Tensor, context: Any) -> TensorType | None:
    """numba's type of ``t``: an array of its dtype, dimensions and layout,
    read-only where its memory is (``t.numpy()`` is read-only where ``t`` is).
    """
    if context.purpose is Purpose.constant:
        # numba would freeze a global array's values into the compiled code, and
        # reads a constant as an ndarray: a Tensor is an argument
        raise arg_error(TypeError, _FUNC, "globals", "arrays a jitted function "
                        "takes as arguments (or t.numpy(), frozen as numba "
                        "freezes a global ndarray)", "a Tensor as a global or "
                        "closure variable")
    array = _array(t)
    if array is None:
        return None
    flags = array.flags  # (numba's own layout rule: numpy_support.map_layout)
    layout: Literal["C", "F", "A"] = (
        "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A")
    key = (array.dtype, array.ndim, layout, not flags.writeable, flags.aligned)
    typ = _TYPES.get(key)
    if typ is None:
        try:
            dtype = numpy_support.from_dtype(array.dtype)
        except NumbaNotImplementedError:
            raise arg_error(TypeError, _FUNC, "argument", "a Tensor of a dtype "
                            "numba has a type for (bool, integers, float16, "
                            "float32, float64, complex64, complex128: "
                            ".astype(float32) first)",
                            f"a Tensor of dtype {t.dtype.name}") from None
        typ = _TYPES.setdefault(key, TensorType(dtype, *key[1:]))
    return typ


def unbox_tensor(typ: TensorType, obj: Any, c: Any) -> NativeValue:
    """A Tensor passed in: its numpy view (``t.numpy()``), unboxed as numba
    unboxes an ndarray; numba's array holds the view (and so the memory).
    """
    as_array = types.Array(typ.dtype, typ.ndim, typ.layout, readonly=not typ.mutable,
                           aligned=typ.aligned)
    value = cgutils.alloca_once(c.builder, c.context.get_value_type(typ))
    failed = cgutils.alloca_once_value(c.builder, cgutils.true_bit)
    array = c.pyapi.call_method(obj, "numpy", ())
    with c.builder.if_then(cgutils.is_not_null(c.builder, array), likely=True):
        native = unbox_array(as_array, array, c)
        c.pyapi.decref(array)  # (numba's array holds its own reference)
        c.builder.store(native.value, value)
        c.builder.store(native.is_error, failed)
    return NativeValue(c.builder.load(value), is_error=c.builder.load(failed))


_registered = False


def init() -> None:
    """Register the Tensor with numba (numba's entry point calls this; calling
    it again does nothing).
    """
    global _registered
    if _registered:
        return
    register_model(TensorType)(ArrayModel)
    typeof_impl.register(Tensor)(typeof_tensor)
    unbox(TensorType)(unbox_tensor)
    _registered = True
