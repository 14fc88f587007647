"""Test helpers: make a framework's array from numpy data, and read its pointer."""

from __future__ import annotations

import numpy as np

import unitensor as ut


def make(framework: str, base: np.ndarray):
    """``framework``'s own array with ``base``'s values (made by that framework)."""
    if framework == "numpy":
        return base
    if framework == "torch":
        import torch
        if base.dtype.name == "bfloat16":
            return torch.from_numpy(base.view(np.uint16).copy()).view(torch.bfloat16)
        # (np.array, not np.ascontiguousarray: that one makes 0-d data 1-d)
        return torch.from_numpy(np.array(base, order="C", copy=True))
    if framework == "jax":
        import jax.numpy as jnp
        return jnp.asarray(base)
    if framework == "tensorflow":
        import tensorflow as tf
        return tf.constant(base)
    if framework == "array_api_strict":
        import array_api_strict as xs
        return xs.asarray(base)
    if framework == "dask":
        import dask.array as da
        # chunks of two along the first axis: calls meet chunk boundaries
        chunks = (2, *base.shape[1:]) if base.ndim else ()
        return da.from_array(base, chunks=chunks)
    raise ValueError(framework)


def pointer(array) -> int:
    """The address of ``array``'s first element, read with its framework's own API."""
    module = type(array).__module__.partition(".")[0]
    if module == "numpy":
        return array.__array_interface__["data"][0]
    if module == "torch":
        return array.data_ptr()
    if module in ("jax", "jaxlib"):
        return array.unsafe_buffer_pointer()
    if module == "tensorflow":  # TF exposes no pointer: read its DLPack capsule
        return capsule_data_pointer(tf_capsule(array))
    if module == "array_api_strict":
        return array._array.__array_interface__["data"][0]
    if module == "warp":
        return array.ptr
    if module == "drjit":  # Dr.Jit exposes no pointer: read its DLPack capsule
        return capsule_data_pointer(array.__dlpack__())
    raise TypeError(type(array))


def tf_capsule(array):
    import tensorflow as tf
    return tf.experimental.dlpack.to_dlpack(array)


def capsule_data_pointer(capsule) -> int:
    """The data address in an unconsumed legacy capsule (read with ctypes)."""
    import ctypes

    from forge import DLManagedTensor
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    managed = DLManagedTensor.from_address(get(capsule, b"dltensor"))
    return (managed.dl_tensor.data or 0) + managed.dl_tensor.byte_offset


def to_numpy(array) -> np.ndarray:
    """Values of any framework's array as numpy (copying), for comparisons."""
    module = type(array).__module__.partition(".")[0]
    if module == "torch":
        import torch
        if array.dtype == torch.bfloat16:
            import ml_dtypes
            return array.view(torch.uint16).numpy().view(ml_dtypes.bfloat16).copy()
        return array.detach().numpy().copy()
    if module == "array_api_strict":
        return np.asarray(array._array).copy()
    if module == "tensorflow":
        return array.numpy().copy()
    return np.array(array, copy=True)


def values(dtype_name: str, shape=(3, 4)) -> np.ndarray:
    """A distinctive, exactly representable array of ``dtype_name``."""
    n = int(np.prod(shape))
    ramp = np.arange(n, dtype=np.int64) % 100
    if dtype_name == "bool":
        a = ramp % 3 == 0
    elif dtype_name == "bfloat16":
        import ml_dtypes
        a = ramp.astype(np.float32).astype(ml_dtypes.bfloat16)
    elif dtype_name.startswith("complex"):
        a = (ramp + 1j * (ramp + 1)).astype(dtype_name)
    else:
        a = ramp.astype(dtype_name)
    return a.reshape(shape)


ALL_DTYPES = list(ut._dtypes.DTYPES)


def aligned_empty(shape, dtype, alignment=64, offset=0):
    """A numpy array whose data starts ``offset`` bytes past an aligned address."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + alignment + offset, np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    return raw[start:start + nbytes].view(dtype).reshape(shape)
