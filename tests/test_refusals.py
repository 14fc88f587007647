"""Bad input to the namespace: the standard's error types, in the project's format.

Arguments that must be arrays are checked before any framework reads them; what a
framework refuses comes out as a TypeError/ValueError/IndexError naming the
argument where the standard's rules can tell which (shapes, axes), else carrying
the framework's message -- always with the framework's exception as the cause.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from frameworks import make

import unitensor as ut
from unitensor._errors import STANDARD_TYPES
from unitensor._standard import FUNCTIONS

OWNERS = ["numpy", "torch", "jax", "tensorflow", "array_api_strict"]
AN_ARRAY = re.escape("expected an array (a unitensor Tensor or a framework's array; "
                     "ut.asarray() makes one from other data)")


def tensor(owner: str, values: object = (0.0, 1.0, 2.0, 3.0)) -> ut.Tensor:
    return ut.asarray(make(owner, np.asarray(values)))


def function(qualified: str):
    module, _, name = qualified.rpartition(".")
    return getattr(getattr(ut, module) if module else ut, name)


def qualified(row) -> str:
    return row.name if row.group not in ("linalg", "fft") else f"{row.group}.{row.name}"


TAKES_X = [qualified(row) for row in FUNCTIONS
           if row.signature.startswith("x,") and row.name != "from_dlpack"]


@pytest.mark.parametrize("name", TAKES_X)
@pytest.mark.parametrize("bad", [None, "abc", [1.0, 2.0], {"a": 1}, object()])
def test_every_function_taking_x_refuses_what_is_not_an_array(name, bad):
    func = function(name)
    extra = {"full_like": (0,), "broadcast_to": ((2,),), "expand_dims": (0,),
             "permute_dims": ((0,),), "reshape": ((2,),), "roll": (1,),
             "squeeze": (0,), "take": (tensor("numpy", [0]),),
             "take_along_axis": (tensor("numpy", [0]),), "tile": ((1,),),
             "repeat": (1,), "moveaxis": (0, 0), "astype": (ut.float32,),
             "linalg.matrix_power": (1,)}.get(name, ())
    with pytest.raises(TypeError, match=f"^{re.escape(name)}\\(\\): x: {AN_ARRAY}"):
        func(bad, *extra)


@pytest.mark.parametrize("owner", OWNERS)
def test_elementwise_operands_are_arrays_or_python_scalars(owner):
    x = tensor(owner)
    with pytest.raises(TypeError, match=f"^add\\(\\): x2: {AN_ARRAY} or a Python "):
        ut.add(x, None)
    with pytest.raises(TypeError, match=f"^multiply\\(\\): x1: {AN_ARRAY} or a "):
        ut.multiply("2", x)
    with pytest.raises(TypeError, match=r"^add\(\): x1, x2: expected at least one "
                       r"array \(the standard's rule for Python scalars\), got two"):
        ut.add(1, 2)


def test_sequences_of_arrays_name_the_item():
    x = tensor("numpy")
    with pytest.raises(TypeError, match=f"^concat\\(\\): arrays\\[1\\]: {AN_ARRAY}"):
        ut.concat([x, None])
    with pytest.raises(TypeError, match=r"^stack\(\): arrays: expected a list or "
                       r"tuple of arrays, got an object of type"):
        ut.stack(x)
    with pytest.raises(TypeError, match=f"^meshgrid\\(\\): arrays\\[2\\]: {AN_ARRAY}"):
        ut.meshgrid(x, x, 3)


def raised(func, *args, **kwargs) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a framework's own warnings, not ours
        with pytest.raises(STANDARD_TYPES) as info:  # anything else fails the test
            func(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("owner", OWNERS)
def test_shapes_that_do_not_broadcast_are_a_value_error_naming_both(owner):
    error = raised(ut.add, tensor(owner), tensor(owner, [1.0] * 5))
    assert type(error) is ValueError
    assert str(error) == ("add(): x1, x2: expected shapes that broadcast together, "
                          "got (4,) and (5,)")
    assert error.__cause__ is not None  # the framework's own refusal


@pytest.mark.parametrize("owner", OWNERS)
def test_an_axis_out_of_range_is_a_value_error_naming_the_range(owner):
    error = raised(ut.sum, tensor(owner), axis=5)
    assert type(error) is ValueError
    assert str(error) == ("sum(): axis: expected an axis in [-1, 0] for an array of "
                          "shape (4,), got 5")
    error = raised(ut.stack, [tensor(owner)] * 2, axis=-3)
    assert type(error) is ValueError
    assert str(error).startswith("stack(): axis: expected an axis in [-2, 1]")


@pytest.mark.parametrize("owner", OWNERS)
def test_an_axis_of_the_wrong_kind_is_a_type_error(owner):
    error = raised(ut.sum, tensor(owner), axis="a")
    assert type(error) is TypeError
    assert str(error) == ("sum(): axis: expected an int, a tuple of ints or None, "
                          "got 'a' of type 'str'")


AXIS_OWNERS = [*OWNERS, "dask"]
MATRIX = np.arange(12.0).reshape(3, 4)


def _on(owner):
    return ut.asarray(make(owner, MATRIX))


# an axis that is an integer (numpy's, a 0-d integer array), or a tuple of them
# where the standard takes one, read as the Python ints they are, on every owner
_READ = [
    ("sum", lambda x: ut.sum(x, axis=np.int64(1))),
    ("sum of a tuple", lambda x: ut.sum(x, axis=(np.int64(0), 1))),
    ("argsort", lambda x: ut.argsort(x, axis=np.int32(0))),
    ("cumulative_sum", lambda x: ut.cumulative_sum(x, axis=np.int64(1))),
    ("expand_dims, positional", lambda x: ut.expand_dims(x, np.int64(0))),
    ("permute_dims", lambda x: ut.permute_dims(x, (np.int64(1), 0))),
    ("permute_dims of a list (scipy's)", lambda x: ut.permute_dims(x, [1, 0])),
    ("flip of a list", lambda x: ut.flip(x, axis=[np.int64(1)])),
    ("moveaxis of lists", lambda x: ut.moveaxis(x, [0], [1])),
    ("vector_norm", lambda x: ut.linalg.vector_norm(x, axis=np.int64(0))),
    ("concat flattened", lambda x: ut.concat([x, x], axis=None)),
    ("tril's k", lambda x: ut.tril(x, k=np.int64(1))),
    ("diff's n", lambda x: ut.diff(x, n=np.int64(2))),
    ("diagonal's offset", lambda x: ut.linalg.diagonal(x, offset=np.int32(1))),
    ("roll's shift", lambda x: ut.roll(x, np.int64(1), axis=0)),
    ("matrix_power's n", lambda x: ut.linalg.matrix_power(x[:3, :3], np.int64(2))),
    ("fft's n", lambda x: ut.fft.fft(ut.astype(x, ut.complex64), n=np.int64(3))),
    # numpy's numbers where a Python number is taken (TF and array_api_strict
    # refused them)
    ("std's correction", lambda x: ut.std(x, correction=np.int64(1))),
    ("var's correction", lambda x: ut.var(x, correction=np.float32(0.5))),
    ("vector_norm's ord", lambda x: ut.linalg.vector_norm(x, ord=np.int64(1))),
    ("matrix_norm's ord", lambda x: ut.linalg.matrix_norm(x, ord=np.float64(2))),
    # ord=None: the default (torch and TensorFlow refused it)
    ("matrix_norm's ord None", lambda x: ut.linalg.matrix_norm(x, ord=None)),
    ("vector_norm's ord None", lambda x: ut.linalg.vector_norm(x, ord=None)),
    ("fftn's list of axes", lambda x: ut.fft.fftn(ut.astype(x, ut.complex64),
                                                   axes=[1, 0])),
]
# refused on every owner with the standard's TypeError, naming the parameter
_REFUSED = [
    ("sum", lambda x: ut.sum(x, axis=True), "axis",
     "an int, a tuple of ints or None", "True of type 'bool'"),
    ("max of a list", lambda x: ut.max(x, axis=[0]), "axis",
     "an int, a tuple of ints or None", "an object of type 'list'"),
    ("mean of a float", lambda x: ut.mean(x, axis=1.0), "axis",
     "an int, a tuple of ints or None", "1.0 of type 'float'"),
    ("argsort of a tuple", lambda x: ut.argsort(x, axis=(0,)), "axis", "an int",
     "an object of type 'tuple'"),
    ("flip of a numpy bool", lambda x: ut.flip(x, axis=np.True_), "axis",
     "an int, a list or tuple of ints or None", "an object of type 'numpy.bool'"),
    ("fft.fft of None", lambda x: ut.fft.fft(ut.astype(x, ut.complex64), axis=None),
     "axis", "an int", "None of type 'NoneType'"),
    ("squeeze, positional", lambda x: ut.squeeze(x, False), "axis",
     "an int or a tuple of ints", "False of type 'bool'"),
    ("permute_dims of an int", lambda x: ut.permute_dims(x, 1), "axes",
     "a list or tuple of ints", "1 of type 'int'"),
    ("tril of a float k", lambda x: ut.tril(x, k=1.5), "k", "an int",
     "1.5 of type 'float'"),  # (numpy's own took it)
    ("diff of a bool n", lambda x: ut.diff(x, n=True), "n", "an int",
     "True of type 'bool'"),
    ("roll of a float shift", lambda x: ut.roll(x, 1.0, axis=0), "shift",
     "an int or a list or tuple of ints", "1.0 of type 'float'"),
    ("matrix_power of a bool", lambda x: ut.linalg.matrix_power(x[:3, :3], True),
     "n", "an int", "True of type 'bool'"),
    ("fftn of an int s", lambda x: ut.fft.fftn(ut.astype(x, ut.complex64), s=2), "s",
     "a list or tuple of ints or None", "2 of type 'int'"),
    ("take of a matrix without an axis", lambda x: ut.take(x, ut.asarray(
        np.asarray([0]))), "axis", "an axis for an x of more than one dimension "
     "(None only for a one-dimensional x)", "None for an x of 2 dimensions"),
    ("squeeze of a list", lambda x: ut.squeeze(x, [0]), "axis",
     "an int or a tuple of ints", "an object of type 'list'"),
]


@pytest.mark.parametrize("owner", AXIS_OWNERS)
@pytest.mark.parametrize(("name", "call"), _READ, ids=[r[0] for r in _READ])
def test_an_integer_axis_of_any_type_reads_as_numpy_reads_it(owner, name, call):
    # (dask refused numpy's integers, jax and TensorFlow took bools, torch lists)
    expected = call(_on("numpy"))
    np.testing.assert_allclose(np.asarray(call(_on(owner)).numpy()),  # (jax: float32)
                               np.asarray(expected.numpy()), rtol=1e-5)


@pytest.mark.parametrize("owner", AXIS_OWNERS)
@pytest.mark.parametrize(("name", "call", "param", "accepted", "received"), _REFUSED,
                         ids=[r[0] for r in _REFUSED])
def test_an_axis_of_another_kind_is_the_same_error_on_every_owner(
        owner, name, call, param, accepted, received):
    error = raised(call, _on(owner))
    assert type(error) is (ValueError if name.startswith("take") else TypeError)
    func = str(error).partition("(")[0]
    assert str(error) == f"{func}(): {param}: expected {accepted}, got {received}"


@pytest.mark.parametrize("owner", OWNERS)
def test_a_dtype_the_function_refuses_is_a_type_error_with_the_cause(owner):
    # numpy and torch refuse bitwise_and of floats with their own exception types
    # (torch: NotImplementedError, a RuntimeError)
    error = raised(ut.bitwise_and, tensor(owner), tensor(owner))
    assert type(error) is TypeError
    assert str(error).startswith("bitwise_and(): arguments: expected arguments that ")
    assert error.__cause__ is not None


@pytest.mark.parametrize("owner", ["numpy", "torch", "array_api_strict"])
def test_other_refusals_are_value_errors_keeping_the_framework_message(owner):
    error = raised(ut.reshape, tensor(owner), (3,))
    assert type(error) is ValueError
    assert str(error).startswith(f"reshape(): arguments: expected arguments that "
                                 f"{owner} accepts, got {owner}'s refusal: ")
    assert str(error.__cause__).partition("\n")[0] in str(error)


def test_torch_linalg_error_is_a_value_error_like_numpys():
    import torch
    error = raised(ut.linalg.inv, ut.asarray(torch.zeros(2, 2)))
    assert type(error) is ValueError
    assert isinstance(error.__cause__, torch.linalg.LinAlgError)


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.parametrize("convert", [bool, int, float])
def test_python_scalars_of_many_elements_are_a_value_error(owner, convert):
    error = raised(convert, tensor(owner))
    assert type(error) is ValueError
    assert str(error).startswith(f"__{convert.__name__}__(): self: expected an "
                                 "array of one element")
    assert str(error).endswith("got an array of shape (4,)")


@pytest.mark.parametrize("owner", ["numpy", "torch", "array_api_strict"])
def test_an_index_out_of_bounds_is_an_index_error(owner):
    error = raised(tensor(owner).__getitem__, 10)
    assert type(error) is IndexError
    assert str(error).startswith("__getitem__(): arguments: expected arguments")


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.parametrize("bad", [None, "1", object()])
def test_setitem_refuses_values_that_are_no_array_or_scalar(owner, bad):
    x = tensor(owner)
    with pytest.raises(TypeError, match=r"^__setitem__\(\): value: expected an "):
        x[0] = bad
    x[:2] = [5.0, 6.0]  # a list, as numpy, torch and jax take it
    assert list(x.numpy()[:2]) == [5.0, 6.0]


def test_len_of_a_0d_array_is_a_type_error_in_the_format():
    with pytest.raises(TypeError, match=r"^__len__\(\): self: expected an array of "
                       r"at least one dimension, got a 0-d array$"):
        len(ut.asarray(1.0))


def test_a_dtype_the_owner_lacks_is_a_type_error_naming_it():
    with ut.owner("array_api_strict"), pytest.raises(
            TypeError, match=r"^zeros\(\): dtype: expected a dtype array_api_strict "
            r"has, got float16$"):
        ut.zeros(2, dtype=ut.float16)


def test_unitensors_own_errors_pass_through_unchanged():
    # a fix's error (in the format already) is not wrapped a second time
    x = ut.asarray(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"^T\(\): self: expected a 2-d array"):
        _ = ut.asarray(np.zeros(3)).T
    error = raised(ut.matmul, x, x)
    assert str(error).count("expected") == 1


# copy=False where a copy is needed: the standard names the type per function.
# TensorFlow is not here: its tensors are always row-major compact (.mT makes a
# new tensor, computed by TF), so no reshape of one needs a copy.
@pytest.mark.parametrize("owner", ["numpy", "torch", "array_api_strict"])
def test_reshape_that_needs_a_copy_with_copy_false_is_a_value_error(owner):
    x = ut.asarray(make(owner, np.arange(6.0).reshape(2, 3))).mT
    error = raised(ut.reshape, x, (6,), copy=False)
    assert type(error) is ValueError
    assert str(error).startswith("reshape(): copy: expected True or None, since this "
                                 "reshape needs a copy")
    error = raised(ut.reshape, x, (4,), copy=False)  # the size, not the copy
    assert str(error).startswith("reshape(): arguments: ")


@pytest.mark.parametrize("owner", OWNERS)
def test_asarray_that_needs_a_copy_with_copy_false_is_a_value_error(owner):
    with pytest.raises(ValueError, match=r"^asarray\(\): copy: expected True or "
                       r"None, since a copy is needed: the dtype changes to int32, "
                       r"got False"):
        ut.asarray(tensor(owner), dtype=ut.int32, copy=False)


def test_dlpack_functions_and_views_refuse_with_buffer_error():
    from unitensor._errors import copy_refused
    assert type(copy_refused("from_dlpack", "copy", "why")) is BufferError
    assert type(copy_refused("__dlpack__", "copy", "why")) is BufferError
    assert type(copy_refused("jax", "copy", "why")) is BufferError
    assert type(copy_refused("asarray", "copy", "why")) is ValueError
    unaligned = np.zeros(17, dtype=np.uint8)[1:].view(np.float32)
    with pytest.raises(BufferError, match=r"^jax\(\): copy: expected True or None, "
                       r"since a copy is needed: JAX on CPU copies memory"):
        ut.asarray(unaligned).jax(copy=False)


# Found by tests/test_namespace_fuzz.py, each a class of its own.
@pytest.mark.parametrize("call", [
    lambda x: ut.sum(x, axis=x), lambda x: ut.std(x, correction=x),
    lambda x: ut.eye(3, k=x), lambda x: ut.arange(0, stop=x),
    lambda x: ut.fft.fft(x, norm=x), lambda x: ut.full(3, x)])
def test_an_array_where_the_standard_takes_a_python_value_is_refused(call):
    # before: compared elementwise inside a framework (a bool() error naming
    # __bool__, or numpy's "truth value is ambiguous")
    with pytest.raises(TypeError, match=r"^[\w.]+\(\): \w+: expected a Python value "
                       r"\(the standard takes no array for \w+\), got an array of "
                       r"shape \(4,\)$"):
        call(tensor("numpy"))


def test_fill_value_is_a_number():
    with pytest.raises(TypeError, match=r"^full\(\): fill_value: expected a number"):
        ut.full(3, object())
    assert ut.full(2, np.float32(2.0)).numpy().tolist() == [2.0, 2.0]


@pytest.mark.parametrize("owner", ["numpy", "torch", "jax", "tensorflow", "dask",
                                   "array_api_strict"])
def test_an_in_place_true_division_of_integers_is_refused_in_the_format(owner):
    """Refused before any owner divides (TensorFlow wrote [7, -7] /= 2 back
    truncated, [3, -3]; its namespace divided bools into bool)."""
    for values, other in (([True, False], True), ([7, -7], 2), ([7, -7], [2, 2])):
        x = ut.asarray(make(owner, np.array(values)))
        operand = ut.asarray(make(owner, np.array(other))) if type(
            other) is list else other
        dtype = x.dtype.name
        with pytest.raises(TypeError, match=r"^__itruediv__\(\): other: expected "
                           rf"an operand that keeps the array's dtype {dtype} and "
                           r"shape \(2,\), got one giving a floating-point array "
                           rf"\(true division; //= keeps {dtype}\)$"):
            x /= operand
        assert x.numpy().tolist() == values


def test_python_data_a_framework_refuses_is_mapped():
    with ut.owner("torch"), pytest.raises(ValueError, match=r"^asarray\(\): "
                                          r"arguments: .* torch's refusal: "):
        ut.asarray(float("nan"), dtype=ut.int8)


def test_len_of_a_0d_tensorflow_tensor_is_a_type_error():
    import tensorflow as tf
    with pytest.raises(TypeError, match=r"^__len__\(\): self: "):
        len(ut.asarray(tf.constant(1.0)))


def test_copy_is_checked_by_identity_not_equality():
    x = tensor("numpy")
    with pytest.raises(TypeError, match=r"^from_dlpack\(\): copy: expected True, "
                       r"False or None, got an object of type"):
        ut.from_dlpack(x, copy=x)


def test_keyword_arrays_take_an_array_a_python_scalar_or_none():
    x = tensor("numpy")
    with pytest.raises(TypeError, match=r"^diff\(\): prepend: expected an array "):
        ut.diff(x, prepend={"a": 1})  # before: an object array, then a BufferError
    with pytest.raises(TypeError, match=r"^clip\(\): min: expected an array "):
        ut.clip(x, min="a")
    assert ut.diff(x, prepend=1.0).shape == (4,)


def test_a_literal_where_a_second_array_belongs_is_refused():
    # before: the C fast path handed 2**70 to numpy, which made an object array
    with pytest.raises(TypeError, match=r"^tensordot\(\): x2: expected an array "):
        ut.tensordot(tensor("numpy"), 2**70, axes=0)
    with pytest.raises(TypeError, match=r"^take\(\): indices: expected an array "):
        ut.take(tensor("numpy"), 1)


def test_torch_integer_division_by_zero_is_numpy_s_zero_not_an_error():
    # (torch raised ZeroDivisionError, mapped here before the one rule of
    # docs/namespace.md: 0, as numpy answers, on every owner)
    import torch
    x = ut.asarray(torch.tensor([1, 2]))
    quotient = ut.floor_divide(x, ut.asarray(torch.tensor([0, 2])))
    assert quotient.torch().tolist() == [0, 1]
    assert (x % 0).torch().tolist() == [0, 0]


def test_a_python_scalar_is_no_operand_of_a_linear_algebra_function():
    x = tensor("numpy")
    with pytest.raises(TypeError, match=r"^linalg\.outer\(\): x2: expected an array"):
        ut.linalg.outer(x, 2**70)  # before: an object array from numpy
    with pytest.raises(TypeError, match=r"^matmul\(\): x2: expected an array"):
        ut.matmul(x, 2)
    with pytest.raises(TypeError, match=r"^full\(\): fill_value: expected a number"):
        ut.full(3, None)


@pytest.mark.parametrize("owner", OWNERS)
def test_diff_of_a_huge_order_is_empty_on_every_owner(owner):
    x = tensor(owner, (0, 1, 4, 9))
    # before: numpy, jax and array_api_strict never returned; torch raised
    result = ut.diff(x, n=2**70)
    assert result.shape == (0,)
    assert result.owner == owner
    prepend = ut.zeros(300, dtype=x.dtype, device=x.device)
    assert ut.diff(x, n=200, prepend=prepend).shape == (104,)


def test_python_ints_beyond_64_bits_are_refused_where_they_would_make_objects():
    x = tensor("numpy", (0, 1, 2))
    with pytest.raises(OverflowError, match=r"^arange\(\): step: expected a Python "
                       r"int within the range of int64 or uint64, got 2361"):
        ut.arange(0, 10, 2**71)  # before: numpy's object array, refused as such
    with pytest.raises(OverflowError, match=r"^diff\(\): prepend: expected a Python "
                       r"int within int64's range"):
        ut.diff(x, prepend=2**70)
    top = ut.arange(2**63, 2**63 + 2, dtype=ut.uint64)  # uint64's own range stays
    assert top.numpy().tolist() == [2**63, 2**63 + 1]


@pytest.mark.parametrize("owner", ["numpy", "dask", "array_api_strict"])
def test_a_device_an_owner_lacks_is_refused_naming_the_function_called(owner):
    # before: "dask(): device: ..." and "array_api_strict(): device: ...", the
    # conversion inside zeros() rather than zeros()
    pytest.importorskip(owner)
    with ut.owner(owner), pytest.raises(ValueError, match=r"^zeros\(\): device: "
                                        r"expected cpu"):
        ut.zeros(3, device=ut.Device("cuda", 0))


@pytest.mark.parametrize("call", [
    lambda x, v: ut.isin(x, v), lambda x, v: ut.searchsorted(x, v),
    lambda x, v: ut.where(x > 1, x, v), lambda x, v: ut.where(x > 1, v, x)])
def test_an_array_or_number_slot_refuses_other_literals_after_a_fast_call(call):
    # before: once the C fast path had learned the call, isin(x, None) and
    # isin(x, 'abc') reached numpy, which answered False everywhere
    x = tensor("numpy", (0, 1, 2, 3))
    call(x, 2)
    call(x, 2)  # learned
    for value in (None, "abc", (1,)):
        with pytest.raises(TypeError, match=r"^\w+\(\): x[12]: expected an array"):
            call(x, value)


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
def test_reductions_of_nothing_agree_on_every_owner(owner):
    # before: TensorFlow answered max() of nothing with -inf and var() with
    # correction past the count with -0.0 (found by the fuzzer's long run)
    pytest.importorskip(owner)
    with ut.owner(owner):
        empty = ut.zeros((0, 3))
    for function in (ut.max, ut.min, ut.argmax, ut.argmin):
        with pytest.raises(ValueError, match=r"^\w+\(\): (x|arguments): expected "):
            function(empty, axis=0)
    with warnings.catch_warnings():  # numpy, torch: "degrees of freedom <= 0"
        warnings.simplefilter("ignore")
        spread = ut.var(empty, axis=0, correction=1).numpy()
    assert np.isnan(spread).all()


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
def test_arange_without_a_start_is_refused_on_every_owner(owner):
    # before: a raw "cannot be interpreted as an integer" TypeError from
    # unitensor's own range check, and dask read None as 0 (the fuzzer's long run)
    pytest.importorskip(owner)
    with ut.owner(owner), pytest.raises(TypeError, match=r"^arange\(\): start: "
                                        r"expected an int or a float, got None"):
        ut.arange(None, stop=4, step=-1)


# -- a framework's array no Tensor holds: refused by the function the user called --
def _strings(framework):
    if framework == "tensorflow":
        tf = pytest.importorskip("tensorflow")
        return tf.constant(["a", "b"])
    return np.array(["a", "b"])


@pytest.mark.parametrize("framework", ["numpy", "tensorflow"])
@pytest.mark.parametrize(("call", "named"), [
    (lambda s: ut.add(s, 1), "add(): x1: "),
    (lambda s: ut.add(ut.asarray(np.arange(2.0)), s), "add(): x2: "),
    (lambda s: ut.sum(s), "sum(): x: "),
    (lambda s: ut.from_dlpack(s), "from_dlpack(): x: "),
    (lambda s: ut.concat([ut.asarray(np.arange(2.0)), s]), "concat(): arrays: "),
    (lambda s: ut.where(np.array([True, False]), 1.0, s), "where(): x2: "),
    (lambda s: ut.asarray(np.arange(2.0)).__iadd__(s), "__iadd__(): other: "),
    (lambda s: ut.asarray(np.arange(2.0)).__setitem__(0, s), "__setitem__(): value: "),
])
def test_an_array_of_strings_is_refused_naming_the_function_called(framework, call,
                                                                    named):
    # not "asarray(): obj: ...", the conversion made on the way (issue 30)
    with pytest.raises((TypeError, BufferError)) as info:
        call(_strings(framework))
    assert str(info.value).startswith(named)
    # the type asarray() itself gives: TF's dtype a TypeError, numpy's memory
    # that DLPack cannot describe a BufferError (reliability P-19)
    expected = TypeError if framework == "tensorflow" else BufferError
    assert type(info.value) is expected


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_torch_tensor_refused_at_asarray(layout: str) -> None:
    """A sparse torch tensor is refused at asarray, also once a dense torch tensor
    taught asarray's C fast path the type and dtype (it wrapped every torch.Tensor
    before, refused later by the first operation).
    """
    torch = pytest.importorskip("torch")
    ut.asarray(torch.ones(3))  # the fast path knows torch.Tensor/float32 now
    dense = torch.eye(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch: CSR support in beta
        sparse = dense.to_sparse() if layout == "coo" else dense.to_sparse_csr()
    for _ in range(2):  # the second call is the one a learned fast path takes
        with pytest.raises(TypeError, match=r"^asarray\(\): obj: .*dense.*sparse_"):
            ut.asarray(sparse)
    assert ut.asarray(dense).torch() is dense


def test_scipy_sparse_refused_at_asarray() -> None:
    """scipy.sparse has no strided memory either: asarray's TypeError names obj."""
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match=r"^asarray\(\): obj: expected .*csr_matrix"):
        ut.asarray(sparse.eye(3).tocsr())


FLAGS = [("sum", False, "keepdims"), ("sort", False, "descending"),
         ("argsort", False, "stable"), ("cumulative_sum", False, "include_initial"),
         ("linalg.vector_norm", False, "keepdims"),
         ("linalg.svd", True, "full_matrices"), ("linalg.cholesky", True, "upper")]


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
@pytest.mark.parametrize(("name", "matrix", "flag"), FLAGS)
def test_a_flag_takes_a_bool_on_every_owner(owner, name, matrix, flag):
    """The standard's flags are bools; frameworks read other values each their
    own way: numpy as true or false, torch refused, and jax handed
    ``full_matrices=None`` to LAPACK, whose SVD was NaN. Refused on every
    owner, on the fast path too (the second call); numpy's bool is one."""
    func = function(name)
    x = tensor(owner, [[2.0, 1.0], [1.0, 3.0]] if matrix else [3.0, 1.0, 2.0])
    expected = func(x, **{flag: True})
    for bad in (None, 1, 1.5, "yes"):
        for _ in range(2):
            with pytest.raises(TypeError, match=re.escape(
                    f"{name}(): {flag}: expected a bool (True or False), got ")):
                func(x, **{flag: bad})
    got = func(x, **{flag: np.True_})
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    expected if isinstance(expected, tuple) else (expected,),
                    strict=True):
        np.testing.assert_array_equal(np.asarray(a.numpy()), np.asarray(b.numpy()))


AXIS_CALLS = {
    "sort": lambda x, a, i: ut.sort(x, axis=a),
    "argsort": lambda x, a, i: ut.argsort(x, axis=a),
    "diff": lambda x, a, i: ut.diff(x, axis=a),
    "take": lambda x, a, i: ut.take(x, i[0, ...], axis=a),
    "take_along_axis": lambda x, a, i: ut.take_along_axis(x, i, axis=a),
    "permute_dims": lambda x, a, i: ut.permute_dims(x, (a, 0)),
}


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
@pytest.mark.parametrize("name", sorted(AXIS_CALLS))
def test_an_axis_out_of_range_is_refused_not_wrapped(owner, name):
    """TensorFlow's sort, argsort, diff, take and take_along_axis, jax's and
    TensorFlow's permute_dims and dask's sort and take_along_axis read an axis
    modulo ndim: a sort of a 2-d array along axis 5 sorted along axis 1,
    silently. numpy refuses it, and so does every owner now."""
    x = ut.asarray(make(owner, np.arange(6.0, dtype=np.float32).reshape(2, 3)))
    indices = ut.asarray(make(owner, np.zeros((2, 3), np.int32)))
    for axis in (2, -3, 7):
        with pytest.raises(ValueError, match=re.escape(f"{name}(): ")):
            AXIS_CALLS[name](x, axis, indices)


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
def test_a_dtype_literal_is_parsed_on_every_call_not_handed_to_the_framework(owner):
    """Once ``ones_like``/``prod`` ran on an owner, the C path handed a literal
    ``dtype=`` to the framework as it was: TensorFlow read ``dtype=5`` as its
    DataType 5 and ``dtype=True`` as 1 (float32), silently. Parsed as the first
    call parses it, every time."""
    x = tensor(owner)
    ut.ones_like(x)
    ut.prod(x)  # (both learned by their fast paths)
    for bad in (True, 5, 0):
        for _ in range(2):
            for call in (ut.ones_like, ut.prod):
                with pytest.raises(TypeError, match=re.escape(
                        f"{call.__name__}(): dtype: expected a unitensor dtype")):
                    call(x, dtype=bad)
    assert ut.ones_like(x, dtype="float32").dtype == ut.float32


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
def test_the_largest_of_no_value_in_a_norm_is_zero_and_the_smallest_refused(owner):
    """numpy's norms of empty matrices and vectors: a largest value of none (ord
    2, 1, inf) is 0, a smallest (-2, -1, -inf) a ValueError. TensorFlow reduced
    nothing to -inf and inf, silently; dask's inf norm of a (0, 0) matrix was an
    array of shape (0,), and its others refused, as torch's inf vector norm."""
    for shape in ((0, 0), (0, 3), (2, 0, 3)):
        x = ut.asarray(make(owner, np.zeros(shape, np.float32)))
        for ord in (1, 2, float("inf")):
            norm = ut.linalg.matrix_norm(x, ord=ord)
            np.testing.assert_array_equal(np.asarray(norm.numpy()),
                                          np.zeros(shape[:-2], np.float32))
        np.testing.assert_array_equal(
            np.asarray(ut.linalg.vector_norm(x, ord=float("inf")).numpy()), 0.0)
        for ord in (-2, float("-inf")):
            with pytest.raises(ValueError, match=r"^linalg\.matrix_norm\(\): "):
                ut.linalg.matrix_norm(x, ord=ord)
        with pytest.raises(ValueError, match=r"^linalg\.vector_norm\(\): "):
            ut.linalg.vector_norm(x, ord=float("-inf"))


@pytest.mark.parametrize("owner", [*OWNERS, "dask"])
def test_an_array_into_one_element_is_refused_on_every_owner(owner):
    """numpy refused an int array's x[0] = a (a of shape (1,)) and wrote a bool
    array's; torch wrote both; the others refused: refused on every owner.
    Into a 0-d view's slot (x[..., 1]) numpy and torch write it (numpy drops a
    value's leading 1s; jax, TensorFlow and dask refuse that: left as it is)."""
    for values in ([1, 2, 3], [True, False, True]):
        x = ut.asarray(make(owner, np.asarray(values)))
        one = ut.asarray(make(owner, np.asarray(values[:1])))
        with pytest.raises(ValueError, match=re.escape(
                "__setitem__(): value: expected a value that broadcasts to x[key]'s "
                "shape () (one element), got an array of shape (1,)")):
            x[1] = one
        if owner in ("numpy", "torch"):
            x[..., 1] = one
            assert np.asarray(x.numpy()).tolist() == [values[0]] * 2 + values[2:]
