"""Error messages of the catalogue cases, pinned: function, argument, accepted, got.

Every message comes from one helper (unitensor/_errors.py's arg_error and its C
twin in ext/_core.c) in one format: "func(): arg: expected ..., got ...".
"""

from __future__ import annotations

import datetime
from typing import ClassVar

import numpy as np
import pytest
from forge import forge

import unitensor as ut


def readonly_tensor() -> ut.Tensor:
    x = np.arange(3.0)
    x.flags.writeable = False
    return ut.asarray(x)


class _Producer:
    """A DLPack producer that claims ``device``."""

    def __init__(self, device: tuple[int, int]) -> None:
        self.device = device

    def __dlpack__(self, **kwargs: object) -> object:
        return forge(shape=(3,), device=self.device)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


CASES = {
    "P-01": (lambda: ut.from_dlpack(forge(name=b"not_a_dltensor")), TypeError,
             "from_dlpack(): x: expected a PyCapsule named "
             "'dltensor_versioned' or 'dltensor', got a capsule named "
             "'not_a_dltensor'"),
    "P-03": (lambda: ut.from_dlpack(datetime.datetime_CAPI), TypeError,
             "from_dlpack(): x: expected a PyCapsule named "
             "'dltensor_versioned' or 'dltensor', got a capsule named "
             "'datetime.datetime_CAPI'"),
    "P-04": (lambda: ut.from_dlpack(42), TypeError,
             "from_dlpack(): x: expected an object with __dlpack__ or a DLPack "
             "capsule, got 42 of type 'int'"),
    "P-05": (lambda: ut.from_dlpack(forge(shape=(3,), null_data=True)), BufferError,
             "from_dlpack(): data: expected a non-NULL data pointer for a "
             "non-empty tensor, got NULL data with 3 elements"),
    "P-12": (lambda: ut.from_dlpack(forge(np.zeros((1,) * 64), shape=(1,) * 65,
                                          strides=(1,) * 65)), BufferError,
             "from_dlpack(): ndim: expected 0 <= ndim <= 64, got ndim=65"),
    "P-17": (lambda: ut.from_dlpack(forge(np.zeros(4, np.float32),
                                          dtype=(2, 32, 4))), BufferError,
             "from_dlpack(): dtype: expected a dtype of bool8, int/uint 8-64, "
             "float 16-64, bfloat16, the 8-bit floats (DLPack codes 7-14) or "
             "complex 64/128 with lanes=1, got lanes=4 "
             "(code=2, bits=32)"),
    "P-18": (lambda: ut.from_dlpack(forge(np.zeros(4, np.float32),
                                          dtype=(2, 7, 1))), BufferError,
             "from_dlpack(): dtype: expected a dtype of bool8, int/uint 8-64, "
             "float 16-64, bfloat16, the 8-bit floats (DLPack codes 7-14) or "
             "complex 64/128 with lanes=1, got dtype "
             "code=2, bits=7"),
    "P-20": (lambda: ut.from_dlpack(forge(shape=(3,), device=(99, 0))), BufferError,
             "from_dlpack(): device: expected a DLPack device type, got unknown "
             "device type 99"),
    "P-21": (lambda: ut.asarray(np.arange(2.0)).__dlpack__(dl_device=(2, 0)),
             BufferError,
             "__dlpack__(): dl_device: expected the tensor's own device (1, 0); "
             "unitensor never copies across devices here, got (2, 0)"),
    "P-21 device id": (
        lambda: ut.asarray(np.arange(2.0)).__dlpack__(dl_device=(1, 2**30)),
        BufferError,
        "__dlpack__(): dl_device: expected the tensor's own device (1, 0); "
        "unitensor never copies across devices here, got (1, 1073741824)"),
    "P-20 device id": (lambda: ut.from_dlpack(_Producer(device=(1, -1))), BufferError,
                       "from_dlpack(): device: expected a device id of 0 or "
                       "more, got device CPU (1, -1)"),
    "P-22": (lambda: ut.asarray(np.arange(2.0)).__dlpack__(stream=1), ValueError,
             "__dlpack__(): stream: expected None for memory on the CPU, got 1"),
    "P-34": (lambda: ut.asarray({"a": 1}), TypeError,
             "asarray(): obj: expected an array from numpy, torch, jax, cupy, "
             "tensorflow or array_api_strict, a DLPack capsule, an object with "
             "__dlpack__, __array_interface__, __cuda_array_interface__, the "
             "buffer protocol or __array__, a Python scalar or a nested sequence of "
             "numbers, got an object of type 'dict'"),
    "P-35": (lambda: ut.asarray([1.0]).to("pytorchh"), ValueError,
             "to(): framework: expected one of ('numpy', 'torch', 'jax', "
             "'tensorflow', 'cupy', 'dask', 'array_api_strict', 'warp', 'drjit'), "
             "got "
             "'pytorchh' of "
             "type 'str'"),
    "P-38": (lambda: ut.asarray(np.arange(2.0)).__dlpack__(copy="yes"), TypeError,
             "__dlpack__(): copy: expected True, False or None, got an object of "
             "type 'str'"),
    "int out of range": (
        lambda: 2**40 + ut.asarray(np.arange(3, dtype=np.int32)), OverflowError,
        "add(): x1: expected a Python int within int32's range [-2147483648, "
        "2147483647], got 1099511627776 of type 'int'"),
    "fill value out of range": (
        lambda: ut.full((2,), -129, dtype=ut.int8), OverflowError,
        "full(): fill_value: expected a Python int within int8's range [-128, 127], "
        "got -129 of type 'int'"),
}


@pytest.mark.parametrize("case", CASES)
def test_catalogue_messages_are_pinned(case):
    action, kind, message = CASES[case]
    with pytest.raises(kind) as info:
        action()
    assert str(info.value) == message
    assert_carries_its_parts(info.value)


def assert_carries_its_parts(error: BaseException) -> None:
    """An error of ours carries its message's parts as data (Python's arg_error
    and its C twin alike): code reads those, never the text."""
    parts = {name: getattr(error, name, None)
             for name in ("func", "arg", "accepted", "received")}
    assert all(isinstance(part, str) for part in parts.values()), parts
    assert str(error) == "{func}(): {arg}: expected {accepted}, got {received}".format(
        **parts)


class _BadInterface:
    """An object whose __array_interface__ names a dtype unitensor refuses."""

    __array_interface__: ClassVar[dict] = {
        "shape": (2,), "typestr": "<V8", "data": (0, False), "version": 3}


# A C importer's errors name the public call and its argument, not the importer.
PUBLIC_NAMES = {
    "capsule via from_dlpack": (lambda: ut.from_dlpack(forge(name=b"other")),
                                TypeError, "from_dlpack(): x: expected a PyCapsule"),
    "capsule via asarray": (lambda: ut.asarray(forge(name=b"other")),
                            TypeError, "asarray(): obj: expected a PyCapsule"),
    "array interface via asarray": (lambda: ut.asarray(_BadInterface()), BufferError,
                                    "asarray(): typestr: expected a typestr"),
    "buffer protocol via asarray": (
        lambda: ut.asarray(memoryview(b"abcd").cast("c")), BufferError,
        "asarray(): obj: expected a buffer of bool, integers"),
}


@pytest.mark.parametrize("case", PUBLIC_NAMES)
def test_c_importer_errors_name_the_public_function(case):
    action, kind, start = PUBLIC_NAMES[case]
    with pytest.raises(kind) as info:
        action()
    assert str(info.value).startswith(start)
    assert_carries_its_parts(info.value)


def test_c_importers_take_the_name_to_report_and_check_it():
    from unitensor import _core

    with pytest.raises(TypeError, match=r"^from_dlpack\(\): x: expected a PyCapsule"):
        _core.from_capsule(1, func="from_dlpack", arg="x")
    with pytest.raises(TypeError, match=r"^from_capsule\(\): capsule: expected"):
        _core.from_capsule(1)  # its own names by default
    with pytest.raises(TypeError, match=r"^from_buffer\(\): func: expected a str"):
        _core.from_buffer(b"", func=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'fun'"):
        _core.from_buffer(b"", fun="asarray")
    with pytest.raises(TypeError, match=r"takes exactly one positional argument \(2"):
        _core.from_capsule(1, 2)
    with pytest.raises(TypeError, match=r"^f\(\): a: expected an object with "
                                        r"__array_interface__"):
        _core.from_array_interface(1, func="f", arg="a")


def test_a_conversion_s_refusal_is_renamed_from_its_parts_never_its_text():
    from unitensor import _backends, _errors

    # the names conversions report under: every framework's, and .tf() and .to()
    assert _errors.CONVERSIONS == {*_backends.NAMES, "tf", "to"}
    made = _errors.arg_error(ValueError, "jax", "dtype", "a dtype JAX holds (x64: "
                             "jax(): off)", "float64")
    assert _errors.is_ours(made)
    renamed = _errors.renamed("zeros", made)
    assert type(renamed) is ValueError
    assert str(renamed) == ("zeros(): dtype: expected a dtype JAX holds (x64: "
                            "jax(): off), got float64")
    assert_carries_its_parts(renamed)
    refused = _errors.conversion_refused("wrap", "args", made)
    assert type(refused) is BufferError
    assert str(refused) == ("wrap(): args: expected a dtype JAX holds (x64: "
                            "jax(): off), got float64")
    assert_carries_its_parts(refused)
    # a function's own refusal is passed on
    own = _errors.arg_error(ValueError, "sum", "axis", "an axis of x", "3")
    assert _errors.renamed("mean", own) is None
    assert _errors.conversion_refused("wrap", "args", own) is None
    # a framework's message that reads like ours is the framework's
    lookalike = ValueError("jax(): x: expected one thing, got another")
    assert not _errors.is_ours(lookalike)
    assert _errors.renamed("zeros", lookalike) is None


# -- where a warning points: the user's line ------------------------------------
def _copied_where(call) -> list[tuple[str, type]]:
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [(w.filename, w.category) for w in seen]


def _unaligned() -> np.ndarray:
    memory = np.zeros(32, np.float32)
    start = (-memory.ctypes.data % 64 + 4) // 4  # 4 bytes past a 64-byte line
    return memory[start:start + 8]


@pytest.mark.parametrize("call", [
    lambda: ut.asarray(_unaligned()).jax(),
    lambda: ut.asarray(_unaligned()).to("jax"),
    lambda: ut.wrap("numpy", "jax")(lambda v: v)(_unaligned()),
], ids=["jax()", "to()", "wrap"])
def test_a_copy_warning_points_at_the_user_s_line(call):
    # not at unitensor's line that warns: the filters and "once per location"
    # of Python's warnings apply to the user's calls
    pytest.importorskip("jax")
    assert _copied_where(call) == [(__file__, ut.CopyWarning)]


def test_a_copy_warning_inside_torch_s_autograd_points_at_the_user_s_line():
    torch = pytest.importorskip("torch")
    pytest.importorskip("jax")
    import jax.numpy as jnp
    body = ut.wrap("torch", "jax")(jnp.sin)
    x = torch.zeros(17, requires_grad=True)[1:]  # 4-byte aligned: JAX copies it

    def call():
        body(x).sum().backward()  # torch's autograd.Function calls the bridge
    assert _copied_where(call)[0] == (__file__, ut.CopyWarning)


def test_a_warning_from_code_whose_module_name_is_not_a_str_is_no_error():
    # exec'd code may carry any __name__ (None here): finding the user's line
    # must not fail (Python itself then drops the warning)
    pytest.importorskip("jax")
    code = "def call(x):\n    return ut.asarray(x).jax()\n"
    scope = {"__name__": None, "ut": ut}
    exec(code, scope)
    x = _unaligned()
    _copied_where(lambda: np.testing.assert_array_equal(scope["call"](x), x))
