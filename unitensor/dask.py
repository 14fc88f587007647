"""Work on dask-owned Tensors: per-chunk functions in any framework, and computing.

``ut.dask`` is imported on first use (``import unitensor`` imports no framework);
it needs dask (``pip install unitensor[dask]``).

- :func:`map_blocks` runs a framework-agnostic function (written against
  ``x.__array_namespace__()``) on each chunk of dask-owned Tensors, in the
  framework you choose: each chunk's numpy memory is handed to torch, jax, ...
  without a copy (``Tensor.to``), and the function's result is handed back to
  dask without a copy (``Tensor.numpy``).
- :func:`compute` computes several dask-owned Tensors in one pass over their
  graphs (shared parts once), and keeps each result on its Tensor, so that
  ``.numpy()``, ``float()``, ... afterwards compute nothing.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.utils import has_keyword

from ._convert import asarray
from ._dispatch import owner
from ._errors import arg_error, computing_failed, describe, refused, standard_type
from ._tensor import Tensor

__all__ = ["FRAMEWORKS", "chunked", "compute", "map_blocks"]

#: the frameworks a chunk can be handed to by :func:`map_blocks`
FRAMEWORKS = ("numpy", "torch", "jax", "tensorflow", "array_api_strict")


def map_blocks(func: Callable[..., Any], /, *arrays: Any, framework: str = "torch",
               dtype: Any = None, chunks: Any = None, drop_axis: Any = None,
               new_axis: Any = None, copy: bool | None = None,
               **kwargs: Any) -> Tensor:
    """Run ``func`` on each chunk of ``arrays``, in ``framework``; lazily.

    Parameters
    ----------
    func : callable
        Takes one Tensor per array (owned by ``framework``, over the chunk's
        memory) and ``kwargs``; returns a Tensor or an array of any framework.
        Written against ``x.__array_namespace__()``, it runs in any framework.
    *arrays : Tensor or array
        dask-owned Tensors (others are made dask arrays, zero-copy where they are
        numpy's), chunked alike or broadcastable as ``dask.array.map_blocks``
        aligns them.
    framework : str
        Where each chunk is computed: one of :data:`FRAMEWORKS` (default torch).
    dtype : DType, str or a framework's dtype, optional
        The result's dtype; by default what ``func`` returns on empty chunks.
    chunks, drop_axis, new_axis : optional
        As ``dask.array.map_blocks``: where ``func`` changes a chunk's shape.
    copy : bool, optional
        How each chunk reaches ``framework``: None (default) zero-copy where it
        can alias the chunk, else a copy with a :class:`CopyWarning` (JAX takes
        only 64-byte aligned memory); True always copies; False refuses copies.
    **kwargs
        Passed to ``func`` on every chunk.

    Returns
    -------
    Tensor
        dask-owned; nothing is computed until its values are asked for.

    Raises
    ------
    ValueError
        ``framework`` is not one of :data:`FRAMEWORKS`; when computed, ``func``
        returns a chunk of another shape than ``chunks``, ``drop_axis`` and
        ``new_axis`` (or the input's chunks) say.
    TypeError
        ``func`` is not callable, or cannot be called with one chunk per array
        and ``kwargs``; an array is no array; ``copy`` is not a bool or None;
        when computed, ``func`` returns another dtype than ``dtype`` (or the one
        dask inferred).
    """
    if not callable(func):
        raise arg_error(TypeError, "map_blocks", "func", "a callable", describe(func))
    if framework not in FRAMEWORKS:
        raise arg_error(ValueError, "map_blocks", "framework",
                        f"one of {FRAMEWORKS}", describe(framework))
    if not arrays:
        raise arg_error(TypeError, "map_blocks", "arrays", "at least one array",
                        "none")
    if copy is not None and type(copy) is not bool:  # else refused in each task
        raise arg_error(TypeError, "map_blocks", "copy", "True, False or None",
                        describe(copy))
    _check_call(func, len(arrays), kwargs)
    natives = [_dask_native(a, i) for i, a in enumerate(arrays)]
    # dask hands a chunk's block_info / block_id to a function that takes them:
    # _run_block takes both (it checks each result), and passes on what func takes
    wants = tuple(k for k in ("block_info", "block_id") if has_keyword(func, k))
    block = functools.partial(_run_block, func, framework, copy, wants)
    options: dict[str, Any] = {}
    if dtype is not None:
        from ._dtypes import parse
        np_dtype = np.dtype(parse(dtype, "map_blocks").name)
        ndim = max(x.ndim for x in natives) - len(_axes(drop_axis)) + len(
            _axes(new_axis))
        options = {"dtype": np_dtype, "meta": np.empty((0,) * ndim, np_dtype)}
    elif "meta" not in kwargs:
        options = {"dtype": _inferred_dtype(block, natives, kwargs)}
    try:
        result = da.map_blocks(block, *natives, chunks=chunks, drop_axis=drop_axis,
                               new_axis=new_axis, **options, **kwargs)
    except Exception as exc:  # chunks that do not line up, func failing on meta
        raise refused(exc, standard_type(exc), "map_blocks", "dask") from exc
    return asarray(result)


def _inferred_dtype(block: Callable[..., Any], natives: list[da.Array],
                   kwargs: dict[str, Any]) -> np.dtype:
    """The dtype of ``block``'s result on a chunk of ones per array, as dask infers
    it: here, so that func's own error reaches the user as raised (dask's says
    "dtype inference failed", with func's only in its text).
    """
    sample = [np.ones((1,) * x.ndim, x.dtype) for x in natives]
    try:
        return block(*sample, **{k: v for k, v in kwargs.items()
                                 if k not in _DASK_KEYWORDS}).dtype
    except Exception as exc:
        exc.add_note("(raised by map_blocks' func on a chunk of ones, to find the "
                     "result's dtype: dtype= says it instead)")
        raise


def chunked(x: Any, /, chunks: Any = "auto") -> Tensor:
    """A dask-owned Tensor over ``x``'s memory, in chunks of your choice, zero-copy.

    Parameters
    ----------
    x : Tensor or array
        CPU memory of any framework (a dask-owned Tensor is rechunked instead).
    chunks : int, tuple or "auto"
        As ``dask.array``: a chunk shape, sizes per axis, or "auto" (dask's
        ``array.chunk-size``, 128 MiB by default).

    Returns
    -------
    Tensor
        dask-owned; each chunk is a view of ``x``'s memory (a later write into
        ``x`` is seen when the graph computes). ``da.from_array`` would copy.
    """
    from ._backends.dask.interop import from_numpy
    t = asarray(x)
    if _holds_bool(chunks):  # dask takes True for 1
        raise arg_error(TypeError, "chunked", "chunks", "an int, a tuple of sizes "
                        "per axis or 'auto', not a bool", describe(chunks))
    if isinstance(chunks, dict):
        # dask ignores an axis x does not have, and any negative one
        if any(type(axis) is not int or not -t.ndim <= axis < t.ndim
               for axis in chunks):
            raise arg_error(ValueError, "chunked", "chunks", f"a dict of x's axes "
                            f"(in [{-t.ndim}, {t.ndim - 1}]) -> chunk sizes",
                            repr(chunks))
        chunks = {axis % t.ndim: size for axis, size in chunks.items()}
    try:
        if t.owner == "dask":
            return asarray(t.native.rechunk(chunks))
        return asarray(from_numpy(t.numpy(), chunks))
    except (ValueError, TypeError, ZeroDivisionError) as exc:  # dask's
        # normalize_chunks refusing (chunks of 0: a division by zero)
        reason = ("a size of 0" if isinstance(exc, ZeroDivisionError) else
                  str(exc).partition(chr(10))[0])
        raise arg_error(ValueError, "chunked", "chunks", "chunks dask can lay over "
                        f"shape {t.shape}: an int, a tuple of sizes per axis or "
                        f"'auto' (dask: {reason})", describe(chunks)) from exc


def compute(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Compute dask-owned Tensors in one pass, keeping each result on its Tensor.

    Parts of the graphs the Tensors share are computed once. Afterwards,
    ``.numpy()``, ``.torch()``, ``float()``, ``__dlpack__`` ... of each compute
    nothing more.

    Parameters
    ----------
    *tensors : Tensor
        dask-owned Tensors (Tensors of other owners are already computed and
        are returned as they are).

    Returns
    -------
    tuple of Tensor
        The same Tensors.

    Raises
    ------
    TypeError
        An argument is not a Tensor.
    """
    pending = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise arg_error(TypeError, "compute", f"tensors[{i}]", "a Tensor",
                            describe(t))
        aliases = t._aliases
        if t._backend.LAZY and (aliases is None or aliases.buffer is None):
            pending.append(t)
    if pending:
        from ._backends.dask.interop import computed
        try:
            values = dask.compute(*(t._native for t in pending))
        except Exception as exc:  # passed on unchanged, as .numpy() does
            computing_failed(exc)
            raise
        for t, value in zip(pending, values, strict=True):
            t._shared().buffer = computed(value)
    return tensors


# -- inside each task: one chunk, one framework -------------------------------------
def _run_block(func: Callable[..., Any], framework: str, copy: bool | None,
               wants: tuple[str, ...], *blocks: Any, block_info: Any = None,
               block_id: Any = None, **kwargs: Any) -> np.ndarray:
    """``func`` on one chunk per array, in ``framework``, with the ``wants`` of
    dask's block_info and block_id (as dask passes them); its result as numpy,
    checked against what dask says of it (``block_info``, None while dask infers
    the dtype).
    """
    tensors = [asarray(b).to(framework, copy=copy) if isinstance(b, np.ndarray)
               else b for b in blocks]
    given = {"block_info": block_info, "block_id": block_id}
    kwargs.update((k, given[k]) for k in wants)
    result = np.asarray(asarray(func(*tensors, **kwargs)).numpy())
    if isinstance(block_info, dict) and None in block_info:
        _check_block(result, block_info[None])
    return result


def _check_block(result: np.ndarray, info: dict[str, Any]) -> None:
    """A chunk's result refused where it is not what the Tensor says it is: dask
    trusts the declared dtype and chunks, and a later step would read the values
    wrongly (as another dtype, or broadcast against chunks of another shape).
    """
    where = f"on chunk {info['chunk-location']}"
    if result.dtype != np.dtype(info["dtype"]):
        raise arg_error(TypeError, "map_blocks", "dtype", f"{np.dtype(info['dtype'])}"
                        f" (the result's dtype) from func {where}",
                        str(result.dtype))
    shape = info["chunk-shape"]
    if result.ndim != len(shape) or any(n == n and n != m for n, m in zip(
            shape, result.shape, strict=False)):
        expected = tuple(None if n != n else n for n in shape)
        raise arg_error(ValueError, "map_blocks", "chunks", f"a result of shape "
                        f"{expected} from func {where} (chunks, drop_axis and "
                        "new_axis say how func changes a chunk's shape)",
                        f"shape {result.shape}")


# map_blocks' keywords that dask.array.map_blocks takes for itself (not func's)
_DASK_KEYWORDS = frozenset(("name", "token", "enforce_ndim", "meta"))


def _check_call(func: Callable[..., Any], n_arrays: int,
                kwargs: dict[str, Any]) -> None:
    """``func(*chunks, **kwargs)``, as each task calls it, refused now where
    Python would refuse it there (dask reports it as a failed dtype inference, or
    with ``dtype`` given not until computed).
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # none to read (some builtins): called as is
        return
    chunks = range(n_arrays)
    try:
        signature.bind(*chunks, **{k: v for k, v in kwargs.items()
                                   if k not in _DASK_KEYWORDS})
    except TypeError as exc:
        try:
            signature.bind_partial(*chunks)
        except TypeError:
            raise arg_error(TypeError, "map_blocks", "arrays", "one array per "
                            "chunk func takes (func(*chunks, **kwargs) runs on "
                            "each chunk)", f"{n_arrays}: func{signature} refuses "
                            f"them ({exc})") from exc
        raise arg_error(TypeError, "map_blocks", "kwargs", "keywords func takes "
                        "(func(*chunks, **kwargs) runs on each chunk)",
                        f"{', '.join(kwargs) or 'none'}: func{signature} refuses "
                        f"them ({exc})") from exc


def _holds_bool(chunks: Any) -> bool:
    if isinstance(chunks, dict):
        chunks = tuple(chunks.values())
    if isinstance(chunks, (tuple, list)):
        return any(map(_holds_bool, chunks))
    return isinstance(chunks, (bool, np.bool_))


def _dask_native(value: Any, index: int) -> da.Array:
    if isinstance(value, Tensor) and value.owner == "dask":
        return value.native
    if isinstance(value, da.Array):
        return value
    try:
        with owner("dask"):
            t = asarray(value)
        return t.to("dask").native
    except TypeError as exc:
        raise arg_error(TypeError, "map_blocks", f"arrays[{index}]", "an array",
                        describe(value)) from exc


def _axes(axes: int | Sequence[int] | None) -> tuple[int, ...]:
    if axes is None:
        return ()
    return (axes,) if isinstance(axes, int) else tuple(axes)
