"""dask: lazy arrays whose memory exists only once the graph is computed.

Quirks handled here:
- A dask array has no memory of its own: ``export`` computes the graph (one
  ``compute()``) into a numpy array and exports that, read-only (a write into
  the computed values would not reach the graph). ``_convert.buffer_of`` keeps
  the Buffer on the Tensor's ``Aliases`` record, so ``.numpy()``, ``.torch()``,
  ``.jax()``, ``.tf()``, ``__dlpack__``, ``float()`` and ``bool()`` of one
  Tensor compute its graph once, whatever asks and however often.
- Memory from elsewhere becomes a dask array without a copy (``from_numpy``):
  its chunks are slices (views) of the numpy array (or of a numpy view of the
  Buffer), under a random key (no pass over the memory to hash it).
- Sizes that depend on the data (after a boolean mask, ``unique_*``,
  ``nonzero``) are NaN in dask's ``shape``; ``shape`` here reads them as None,
  as the standard says.
- Chunks are numpy arrays on the CPU (dask arrays of cupy chunks are not taken
  yet).
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks, slices_from_chunks

from ... import _core
from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error, computing_failed
from .. import Watched
from .._dlpack import cpu_only_reason
from .._dtype_tables import numpy_dtype_table
from ..numpy import interop as numpy_interop

NATIVE_DTYPES = numpy_dtype_table(np)
ARRAY_TYPES = (da.Array,)


def device(x: da.Array) -> Device:
    return CPU


def readonly(x: da.Array) -> bool:
    return True


def shape(x: da.Array) -> tuple[int | None, ...]:
    """``x.shape`` with dask's NaN (a size known only after computing) as None."""
    return tuple(None if n != n else int(n) for n in x.shape)


def materialise(x: da.Array) -> np.ndarray:
    """The computed values of ``x``: one ``compute()`` of its graph; an error
    raised in it noted, to reach the user unchanged (``computing_failed``).
    """
    try:
        return np.asarray(x.compute())
    except Exception as exc:
        computing_failed(exc)
        raise


def export(x: da.Array) -> _core.Buffer:
    return computed(materialise(x))


def computed(values: Any) -> _core.Buffer:
    """The Buffer of a graph's computed ``values``: read-only, as every view of a
    dask-owned Tensor is (writes would not reach the graph).
    """
    buf = numpy_interop.export(np.asarray(values))
    buf.mark_readonly()
    return buf


def from_numpy(x: np.ndarray, chunks: Any = "auto") -> da.Array:
    """A dask array over ``x``'s memory: its chunks are views of ``x``.

    Not ``da.from_array``, which copies any array with a ``copy`` method first
    (dask 2026) and hashes the whole array to name it: the graph is built here
    as ``from_array`` builds it for numpy arrays, from views, under a random name.
    """
    chunks = normalize_chunks(chunks, x.shape, dtype=x.dtype)
    name = f"unitensor-{uuid.uuid4().hex}"
    keys = itertools.product((name,), *(range(len(c)) for c in chunks))
    graph = {key: x[index] if index else x[...]
             for key, index in zip(keys, slices_from_chunks(chunks), strict=True)}
    return da.Array(graph, name, chunks, meta=np.empty((0,) * x.ndim, x.dtype))


def held(x: da.Array) -> np.ndarray | None:
    """The values of a dask array ``from_numpy`` made in one chunk (a numpy array
    or scalar made an operand, or chunked whole): its graph holds them, so they
    are read without computing; None for any other array.
    """
    layer = x.dask.layers.get(x.name)
    if (not x.name.startswith("unitensor-") or len(x.dask.layers) != 1
            or layer is None or len(layer) != 1):
        return None
    values = next(iter(layer.values()))
    return values if isinstance(values, np.ndarray) else None


ROUTES = Watched({"numpy": from_numpy})


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    return cpu_only_reason(buf, "dask (numpy chunks)")


def alias(buf: _core.Buffer) -> da.Array:
    return from_numpy(numpy_interop.alias(buf))


def copy(x: da.Array) -> da.Array:
    # dask arrays are immutable: a graph that copies each chunk is a new array
    # that shares nothing with ``x``'s sources once computed.
    return da.map_blocks(np.copy, x, dtype=x.dtype)


def astype(x: da.Array, dtype: DType) -> da.Array:
    return x.astype(numpy_interop.numpy_dtype(dtype))


def to_device(x: da.Array, device: Device) -> da.Array:
    if device == CPU:
        return x
    raise arg_error(ValueError, "to_device", "device", "cpu for dask arrays (of "
                    "numpy chunks)", repr(str(device)))


def from_python(obj: object, dtype: DType | None) -> da.Array:
    return from_numpy(numpy_interop.from_python(obj, dtype))

