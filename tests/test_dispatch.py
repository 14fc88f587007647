"""The owner rule (unitensor/_dispatch.py and _config.py): a call runs in the owner
of its left-most array operand, or in ``with ut.owner()``'s, or in the default
owner; other operands convert zero-copy; results are the standard's named tuples
and lists; missing functions and bad arguments fail clearly."""

from __future__ import annotations

import collections
import operator
import subprocess
import sys

import numpy as np
import pytest
from frameworks import aligned_empty
from owners import COMPUTING, FRAMEWORKS, LAZY

import unitensor as ut

pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")


@pytest.mark.parametrize("framework", COMPUTING)
def test_a_call_runs_in_the_owner_and_returns_its_tensor(framework):
    x = ut.asarray(np.arange(6.0).reshape(2, 3)).to(framework, copy=True)
    for result in (ut.sin(x), x + 1, ut.sum(x, axis=0), ut.matmul(x, x.mT), x[0, 1:],
                   ut.linalg.vector_norm(x), ut.fft.fftshift(x)):
        assert type(result) is ut.Tensor
        assert result.owner == framework
        assert type(result.native).__module__.split(".")[0] in (
            framework, "jaxlib", "jax")
    np.testing.assert_allclose(ut.sum(x, axis=0).numpy(), [3.0, 5.0, 7.0])


def test_the_left_most_tensor_decides_and_others_convert_zero_copy():
    torch = pytest.importorskip("torch")
    n = ut.asarray(np.ones(4, dtype=np.float32))
    t = ut.asarray(torch.arange(4, dtype=torch.float32))
    assert ut.add(n, t).owner == "numpy"
    assert ut.add(t, n).owner == "torch"
    assert ut.add(2.0, t).owner == "torch"  # scalars do not take part
    assert ut.stack([n, t]).owner == "numpy"  # sequences: the first array in them
    # the converted operand is the same memory (cached as the tensor's torch view)
    ut.add(t, n)
    assert n.torch().data_ptr() == n.numpy().ctypes.data


def test_framework_arrays_passed_directly_count_as_operands():
    torch = pytest.importorskip("torch")
    result = ut.add(torch.ones(2), np.ones(2, dtype=np.float32))
    assert result.owner == "torch"
    assert result.numpy().tolist() == [2.0, 2.0]
    assert (np.ones(2) + ut.asarray(np.ones(2))).owner == "numpy"  # numpy defers to us


def test_owner_context_forces_the_owner_and_nests():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    n = ut.asarray(np.ones(3, dtype=np.float32))
    with ut.owner("torch") as name:
        assert name == "torch"
        assert ut.zeros((2,)).owner == "torch"
        assert ut.add(n, n).owner == "torch"
        with ut.owner("jax"):
            assert ut.ones((2,)).owner == "jax"
        assert ut.ones((2,)).owner == "torch"
    assert ut.zeros((2,)).owner == "numpy"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_python_data_is_made_by_the_owner_block_existing_arrays_keep_theirs(framework):
    existing = ut.asarray(np.arange(2.0))
    with ut.owner(framework):
        made = (ut.asarray([1.0, 2.0]), ut.asarray(3), ut.asarray(True),
                ut.asarray([[1], [2]], dtype=ut.int32))
        assert [t.owner for t in made] == [framework] * len(made)
        assert ut.asarray(existing) is existing  # wrapped as they are, not converted
        assert ut.asarray(existing.native).owner == "numpy"
        # creation functions compute in the owner (TensorFlow too)
        assert ut.zeros((2,)).owner == framework
    assert ut.asarray([1.0]).owner == "numpy"


def test_default_owner_can_be_set_and_read():
    pytest.importorskip("torch")
    assert ut.get_default_owner() == "numpy"
    ut.set_default_owner("torch")
    try:
        assert ut.arange(3).owner == "torch"
        # float64 on the CPU, as every owner (torch's own default is float32)
        assert ut.__array_namespace_info__().default_dtypes()["real floating"] == (
            ut.float64)
    finally:
        ut.set_default_owner("numpy")
    with pytest.raises(ValueError, match=r"set_default_owner\(\): framework"):
        ut.set_default_owner("pytorch")
    with pytest.raises(ValueError, match=r"owner\(\): framework"):
        with ut.owner("nope"):
            pass


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_environment_variable_moves_a_whole_program():
    pytest.importorskip("torch")
    code = "import unitensor as ut; print(ut.ones((2,)).owner, ut.asarray([1.0]).owner)"
    env = {"UNITENSOR_DEFAULT_OWNER": "torch", "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=env).stdout.split()
    assert out == ["torch", "torch"]


@pytest.mark.parametrize("framework", COMPUTING)
def test_named_tuples_and_tuples_are_the_standards(framework):
    x = ut.asarray(np.array([[2.0, 1.0], [1.0, 3.0]])).to(framework, copy=True)
    eig = ut.linalg.eigh(x)
    assert eig._fields == ("eigenvalues", "eigenvectors")
    assert type(eig.eigenvalues) is ut.Tensor
    assert eig.eigenvalues.owner == framework
    assert ut.linalg.svd(x)._fields == ("U", "S", "Vh")
    assert ut.unique_counts(x)._fields == ("values", "counts")
    eig = ut.linalg.eig(x)  # 2025.12
    assert eig._fields == ("eigenvalues", "eigenvectors")
    assert type(eig).__name__ == "EigResult"
    assert eig.eigenvectors.owner == framework
    # tuples, not lists, since 2025.12 (jax's own are lists)
    assert type(ut.meshgrid(x[0, :], x[1, :])) is tuple
    assert type(ut.broadcast_arrays(x, x[0, :])) is tuple
    assert type(ut.unstack(x)) is tuple


def test_a_missing_function_names_the_owner():
    from unitensor import _dispatch
    with pytest.raises(NotImplementedError, match="not available in numpy"):
        _dispatch.implementation(_dispatch._backends.get("numpy"), "linalg.nope")


def test_unknown_arguments_fail_like_python():
    with pytest.raises(TypeError):
        ut.sum(ut.asarray(np.ones(2)), axes=0)


def _int32_range(value: int, arg: str = "x2", func: str = "add") -> str:
    return (rf"^{func}\(\): {arg}: expected a Python int within int32's range "
            rf"\[-2147483648, 2147483647\], got {value} of type 'int'$")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_python_ints_outside_the_dtype_are_refused_never_wrapped(framework):
    # torch wraps int32 + 2**40 to int32 + 0; numpy, jax, strict raise their own errors
    x = ut.asarray(np.arange(3, dtype=np.int32)).to(framework, copy=True)
    big = 2**40
    cases = {"x2": (lambda: ut.add(x, big), lambda: x + big, lambda: x == big,
                    lambda: x < big, lambda: big < x,  # x.__gt__(big): greater(x, big)
                    lambda: ut.add(x.native, big), lambda: ut.maximum(x, -big)),
             "x1": (lambda: ut.add(big, x), lambda: big + x, lambda: big - x,
                    lambda: ut.add(big, x.native))}
    for arg, calls in cases.items():
        for action in calls:
            with pytest.raises(OverflowError, match=rf"^\w+\(\): {arg}: expected a "
                               r"Python int within int32's range \[-2147483648, "
                               r"2147483647\], got -?1099511627776 of type 'int'$"):
                action()
    with pytest.raises(OverflowError, match=_int32_range(big)):
        with ut.owner("numpy" if framework != "numpy" else "torch"):
            x + big
    with pytest.raises(OverflowError, match=_int32_range(big, "other", "__iadd__")):
        x += big
    with pytest.raises(OverflowError, match=_int32_range(-big, "other", "__isub__")):
        x -= -big
    assert x.numpy().tolist() == [0, 1, 2]  # nothing written
    in_range = (x + (2**31 - 1), ut.add(-(2**31), x), x * 200, x == -1)
    assert [r.dtype for r in in_range] == [ut.int32, ut.int32, ut.int32, ut.bool]
    u = ut.asarray(np.arange(3, dtype=np.uint8)).to(framework, copy=True)
    with pytest.raises(OverflowError, match=r"^subtract\(\): x2: expected a "
                       r"Python int within uint8's range \[0, 255\], got 256 "):
        u - 256
    with pytest.raises(OverflowError, match=r"^add\(\): x2: .* uint8's range "
                                            r"\[0, 255\], got -1 of type 'int'$"):
        u + -1
    f = ut.asarray(np.arange(3, dtype=np.float32)).to(framework, copy=True)
    assert (f + big).dtype is ut.float32  # a float dtype takes any int


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_scalars_standing_for_arrays_take_the_array_operands_dtype(framework):
    """clip's bounds, isin's x1 or x2 and searchsorted's x2 (2025.12) may be Python
    scalars: ints must fit the array operand's dtype (jax's clip wrapped 1000 to
    -24 in int8), before the fast path too; two scalars are no call."""
    x = ut.asarray(np.array([1, 2, 100], dtype=np.int8)).to(framework, copy=True)
    int8 = r"expected a Python int within int8's range \[-128, 127\], got -?1000 "
    for _ in range(2):  # the second call as a fast path would take it
        for action, start in ((lambda: ut.clip(x, max=1000), r"clip\(\): max"),
                              (lambda: ut.clip(x, -1000), r"clip\(\): min"),
                              (lambda: ut.isin(x, 1000), r"isin\(\): x2"),
                              (lambda: ut.isin(1000, x), r"isin\(\): x1"),
                              (lambda: ut.searchsorted(x, 1000),
                               r"searchsorted\(\): x2")):
            with pytest.raises(OverflowError, match=rf"^{start}: {int8}"):
                action()
        assert ut.clip(x, 2, 50).numpy().tolist() == [2, 2, 50]
        assert ut.isin(x, 2, invert=True).numpy().tolist() == [True, False, True]
        assert ut.isin(2, x).shape == ()
        assert bool(ut.isin(2, x))
        assert int(ut.searchsorted(x, 2)) == 1
        assert int(ut.searchsorted(x, 2, side="right")) == 2
    with pytest.raises(TypeError, match=r"^isin\(\): x1, x2: .* two Python scalars"):
        ut.isin(1, 2)
    with pytest.raises(TypeError, match=r"^searchsorted\(\): x1: expected an array"):
        ut.searchsorted(1, x)
    f = ut.asarray(np.array([0.5, 1.5, 2.5], dtype=np.float32)).to(framework, copy=True)
    assert ut.clip(f, 1, 2).dtype is ut.float32  # int bounds for a float array
    assert ut.searchsorted(f, 2).dtype is ut.searchsorted(f, f).dtype


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_setitem_promotes_an_array_value_to_the_arrays_dtype(framework):
    """x[key] = value (2025.12): an int8 value into int32 through a boolean mask
    (torch refused the mismatch), float32 into float64 through a slice; a value the
    table does not promote to x's dtype is a TypeError and writes nothing."""
    x = ut.asarray(np.array([1, 2, 3], dtype=np.int32)).to(framework, copy=True)
    mask = ut.asarray(np.array([True, False, True])).to(framework, copy=True)
    x[mask] = ut.asarray(np.array([7, 8], dtype=np.int8)).to(framework, copy=True)
    assert x.dtype is ut.int32
    assert x.numpy().tolist() == [7, 2, 8]
    y = ut.asarray(np.zeros(3)).to(framework, copy=True)
    y[1:] = ut.asarray(np.array([0.5, 1.5], dtype=np.float32)).to(framework, copy=True)
    assert y.dtype is ut.float64
    assert y.numpy().tolist() == [0.0, 0.5, 1.5]
    for value in (np.array([0.5]), np.array([1], dtype=np.int64)):
        with pytest.raises(TypeError, match=r"^__setitem__\(\): value: expected an "
                           r"array whose dtype promotes to the array's dtype int32"):
            x[:1] = ut.asarray(value).to(framework, copy=True)
    assert x.numpy().tolist() == [7, 2, 8]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_creation_refuses_python_ints_outside_the_dtype(framework):
    big = 2**40
    x = ut.asarray(np.arange(3, dtype=np.int32)).to(framework, copy=True)
    int8 = (r"expected a Python int within int8's range \[-128, 127\], got "
            r"-?1099511627776 of type 'int'$")
    int64 = (r"expected a Python int within int64's range \[-9223372036854775808, "
             r"9223372036854775807\], got -?1180591620717411303424 of type 'int'$")
    with ut.owner(framework):
        for _ in range(2):  # the second call as a fast path would take it
            with pytest.raises(OverflowError, match=_int32_range(big, "fill_value",
                                                                 "full_like")):
                ut.full_like(x, big)
        cases = [(lambda: ut.full((2,), big, dtype=ut.int8), r"full\(\): fill_value"),
                 (lambda: ut.full((2,), 2**70), r"full\(\): fill_value", int64),
                 (lambda: ut.arange(0, big, 2**38, dtype=ut.int8), r"arange\(\): stop"),
                 (lambda: ut.arange(big, dtype=ut.int8), r"arange\(\): start"),
                 (lambda: ut.arange(-big, 0, big, dtype=ut.int8), r"arange\(\): start"),
                 (lambda: ut.arange(2**70), r"arange\(\): start", int64),
                 (lambda: ut.asarray(big, dtype=ut.int8), r"asarray\(\): obj"),
                 (lambda: ut.asarray([[1], [big]], dtype=ut.int8), r"asarray\(\): obj")]
        for action, start, *expected in cases:
            with pytest.raises(OverflowError, match=rf"^{start}: "
                               f"{expected[0] if expected else int8}"):
                action()
        # float results take any int, ints in range are made as asked
        assert ut.full((1,), big, dtype=ut.float32).dtype is ut.float32
        assert ut.full_like(x, big, dtype=ut.float32).dtype is ut.float32
        assert ut.arange(0.5, float(big), 2.0**39).shape == (2,)
        assert ut.full((1,), -128, dtype=ut.int8).numpy().tolist() == [-128]
        assert ut.asarray([255, 0], dtype=ut.uint8).numpy().tolist() == [255, 0]
        # arange's elements must fit, not its bounds
        for args, values in (((0, 300, 100), [0, 100, 200]), ((-1,), []),
                             ((3, -1, -1), [3, 2, 1, 0]), ((0, 10, 300), [0])):
            assert ut.arange(*args, dtype=ut.uint8).numpy().tolist() == values
        with pytest.raises(OverflowError, match=r"^arange\(\): stop: .* uint8's range "
                                                r"\[0, 255\], got -2 of type 'int'$"):
            ut.arange(1, -2, -1, dtype=ut.uint8)


# Creation "where x lives": the standard's device=x.device, as libraries write it.
CREATE_AT = {
    "zeros": lambda d, dt: ut.zeros(3, dtype=dt, device=d),
    "ones": lambda d, dt: ut.ones(3, dtype=dt, device=d),
    "empty": lambda d, dt: ut.empty(3, dtype=dt, device=d),
    "full": lambda d, dt: ut.full(3, 2.0, dtype=dt, device=d),
    "arange": lambda d, dt: ut.arange(3, dtype=dt, device=d),
    "linspace": lambda d, dt: ut.linspace(0, 1, 3, dtype=dt, device=d),
    "eye": lambda d, dt: ut.eye(3, dtype=dt, device=d),
    "fftfreq": lambda d, dt: ut.fft.fftfreq(4, dtype=dt, device=d),
    "asarray scalar": lambda d, dt: ut.asarray(1.0, dtype=dt, device=d),
    "asarray list": lambda d, dt: ut.asarray([1.0, 2.0], dtype=dt, device=d),
}


@pytest.mark.parametrize("create", CREATE_AT)
@pytest.mark.parametrize("framework", COMPUTING)
def test_creation_on_a_tensors_device_belongs_to_its_owner(framework, create):
    x = ut.asarray(np.ones(3, dtype=np.float32)).to(framework, copy=True)
    made = CREATE_AT[create](x.device, x.dtype)
    assert made.owner == framework
    assert made.device == x.device
    assert (ut.reshape(made, (-1,))[:1] + x[:1]).owner == framework  # stays there


def test_a_tensors_device_prints_and_compares_as_the_standards():
    import torch
    x = ut.asarray(torch.ones(2))
    assert str(x.device) == "cpu"
    assert x.device == ut.asarray(np.ones(2)).device  # owners do not matter
    assert x.device.owner == "torch"
    assert repr(x.device) == "Device('cpu', owner='torch')"
    assert hash(x.device) == hash(ut.Device("cpu"))


def test_a_framework_device_object_names_its_framework():
    import torch
    assert ut.zeros(2, device=torch.device("cpu")).owner == "torch"
    assert ut.zeros(2, device="cpu").owner == ut.get_default_owner()
    assert ut.zeros(2, device=ut.Device("cpu")).owner == ut.get_default_owner()


def test_owner_blocks_come_before_the_device():
    import torch
    with ut.owner("numpy"):
        assert ut.zeros(2, device=ut.asarray(torch.ones(1)).device).owner == "numpy"


def test_inspection_devices_are_the_described_owners():
    with ut.owner("torch"):
        info = ut.__array_namespace_info__()
        assert ut.zeros(2, device=info.default_device()).owner == "torch"
    assert ut.zeros(2, device=info.devices()[0]).owner == "torch"


@pytest.mark.parametrize("framework", COMPUTING)
def test_any_frameworks_dtype_object_means_the_same_on_every_owner(framework):
    import torch
    dtypes = [ut.float32, "float32", np.float32, np.dtype("float32"), torch.float32]
    with ut.owner(framework):
        for dtype in dtypes:
            assert ut.zeros(2, dtype=dtype).dtype == ut.float32
            assert ut.asarray([1.0], dtype=dtype).dtype == ut.float32
        x = ut.ones(2, dtype=ut.int32)
        for dtype in dtypes:
            assert ut.astype(x, dtype).dtype == ut.float32
            assert ut.astype(x, dtype).owner == framework
    with pytest.raises(TypeError, match=r"^zeros\(\): dtype: expected a unitensor "
                       r"dtype such as unitensor.float32, its name, or a framework's "
                       r"dtype, got 'floaty' of type 'str'$"):
        ut.zeros(2, dtype="floaty")


@pytest.mark.parametrize("framework", COMPUTING)
def test_matrix_rank_and_pinv_take_rtol_as_an_array(framework):
    # the standard: rtol is a float or an array (the official suite sends arrays;
    # before, refused as an array where a Python value belongs)
    with ut.owner(framework):
        x = ut.stack([ut.eye(3) * ut.asarray([1.0, 1e-3, 0.0]), ut.eye(3)])
        for rtol in (1e-2, ut.asarray(1e-2), ut.asarray([1e-2, 1e-2])):
            assert ut.linalg.matrix_rank(x, rtol=rtol).numpy().tolist() == [1, 3]
            inverse = ut.linalg.pinv(x, rtol=rtol)
            assert inverse.owner == framework
            assert inverse.numpy()[0].tolist() == np.diag([1.0, 0.0, 0.0]).tolist()


@pytest.mark.parametrize("framework", COMPUTING)
def test_matrix_rank_s_rtol_is_relative_to_the_largest_singular_value(framework):
    # jax compared the singular values with rtol itself (rank 2 for rtol=0.6 of
    # singular values 5 and 2.7, numpy's 1): the test above has a largest
    # singular value of 1, where the two readings agree
    a = [[3.0, 1.0, 2.0], [0.5, 4.0, 1.5]]
    with ut.owner(framework):
        for x in (ut.asarray(a, dtype=ut.float32),
                  ut.asarray([a, (10 * np.asarray(a)).tolist()], dtype=ut.float32)):
            for rtol in (0.3, 0.6, 1.5, ut.asarray(0.6, dtype=ut.float32)):
                expected = np.linalg.matrix_rank(np.asarray(x.numpy()),
                                                 rtol=float(rtol))
                assert x.owner == framework
                assert ut.linalg.matrix_rank(x, rtol=rtol).numpy().tolist() == (
                    expected.tolist())


# -- item: an operand carrying autodiff state decides the owner -------------------
def _aligned(values):
    # 64-byte aligned numpy memory: JAX and TF alias it without a CopyWarning
    out = aligned_empty((len(values),), np.float32)
    out[:] = values
    return out


def test_a_torch_operand_that_requires_grad_decides_the_owner():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    p = torch.ones(3, requires_grad=True)
    for left in (ut.asarray(jnp.ones(3)), ut.asarray(np.ones(3, np.float32))):
        r = ut.add(left, ut.asarray(p))
        assert r.owner == "torch"
        ut.sum(r * r).torch().backward()  # the graph reaches p
        np.testing.assert_allclose(p.grad.numpy(), [4.0] * 3)
        p.grad = None
    # operands in a sequence, and framework arrays passed directly, count too
    assert ut.stack([ut.asarray(np.ones(3, np.float32)), p]).owner == "torch"
    # none carries any: the left-most still decides
    assert ut.add(ut.asarray(np.ones(3, np.float32)),
                  ut.asarray(torch.ones(3))).owner == "numpy"



def test_mixed_owners_ask_only_frameworks_with_autodiff_state():
    # the cost of mixing owners (#35): numpy, dask and array_api_strict arrays
    # carry no graph and are not asked; the others are
    from unitensor import _backends
    asked = {name: _backends.get(name, "test").AUTODIFF
             for name in ("numpy", "torch", "jax", "tensorflow", "dask",
                          "array_api_strict")}
    assert asked == {"numpy": False, "torch": True, "jax": True,
                     "tensorflow": True, "dask": False, "array_api_strict": False}


# torch.jit.script (torch._decomp.decompositions_for_jvp, loaded by make_dual):
# torch's own warning
@pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_a_forward_mode_or_torch_func_operand_decides_the_owner():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as fwAD
    left = ut.asarray(np.ones(3, np.float32))
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.ones(3), torch.full((3,), 2.0))
        r = ut.multiply(left * 3.0, ut.asarray(d))
        assert r.owner == "torch"
        np.testing.assert_allclose(fwAD.unpack_dual(r.torch()).tangent.numpy(),
                                   [6.0] * 3)
    grad = torch.func.grad(lambda a: ut.sum(ut.multiply(left, ut.asarray(a))).torch())
    np.testing.assert_allclose(grad(torch.full((3,), 2.0)).numpy(), [1.0] * 3)


def test_a_jax_tracer_decides_the_owner():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    plain = ut.asarray(_aligned([1.0, 2.0, 3.0]))
    grad = jax.grad(lambda a: ut.sum(ut.multiply(plain, ut.asarray(a))).jax())
    np.testing.assert_allclose(grad(jnp.ones(3)), [1.0, 2.0, 3.0])


def test_a_tensorflow_operand_a_tape_watches_decides_the_owner():
    tf = pytest.importorskip("tensorflow")
    x = tf.ones(3)
    plain = ut.asarray(_aligned([1.0, 2.0, 3.0]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ut.sum(ut.multiply(plain, ut.asarray(x)))
    assert y.owner == "tensorflow"
    np.testing.assert_allclose(tape.gradient(y.tf(), x).numpy(), [1.0, 2.0, 3.0])
    # unwatched (outside the tape), the left-most decides as before
    assert ut.multiply(plain, ut.asarray(x)).owner == "numpy"


def test_autodiff_state_of_two_frameworks_is_refused_naming_wrap():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    p = torch.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match=r"^multiply\(\): arrays: expected operands "
                       r"carrying autodiff state of one framework .*ut\.wrap.*got a "
                       r"torch tensor that requires grad .* and a jax tracer"):
        jax.grad(lambda a: ut.sum(ut.asarray(p) * ut.asarray(a)).jax())(
            jax.numpy.ones(3))


# -- what real clients met (issue 36): the numpy owner's answer on every owner --------
_Pair = collections.namedtuple("_Pair", "a b")
_NAN, _INF = float("nan"), float("inf")
CLIENT_CALLS = {
    "full with a 0-d array": lambda a: ut.full((2,), a(2.5)),
    "full with a 0-d int8 array": lambda a: ut.full((2,), a(3, "int8")),
    "full_like with a 0-d array": lambda a: ut.full_like(a([1.0, 2.0]), a(7.0)),
    "stack of a namedtuple": lambda a: ut.stack(_Pair(a([1, 2]), a([3, 4]))),
    "concat of a namedtuple": lambda a: ut.concat(_Pair(a([1, 2]), a([3, 4]))),
    "np.iterable of a 0-d array": lambda a: np.iterable(a(1.0)),
    "np.iterable of a 1-d array": lambda a: np.iterable(a([1.0])),
    "operator.index of a float": lambda a: operator.index(a(1.0)),
    "operator.index of a bool": lambda a: operator.index(a(True)),
    "operator.index of an int": lambda a: operator.index(a(3)),
    "exp of int64": lambda a: ut.exp(a([1, 2], "int64")),
    "sqrt of int16": lambda a: ut.sqrt(a([1, 4], "int16")),
    "sin of uint8": lambda a: ut.sin(a([1, 4], "uint8")),
    "atan2 of int32": lambda a: ut.atan2(a([1, 4], "int32"), a([2, 1], "int32")),
    "atan2 of int8 and int16": lambda a: ut.atan2(a([1, 4], "int8"),
                                                  a([2, 1], "int16")),
    "exp of bool": lambda a: ut.exp(a([True, False])),
    "hypot of int8": lambda a: ut.hypot(a([3, 5], "int8"), a([4, 12], "int8")),
    "logaddexp of uint8 and a Python int": lambda a: ut.logaddexp(a([1, 4], "uint8"),
                                                                  2),
    "nextafter of int8": lambda a: ut.nextafter(a([1, 0], "int8"), a([2, -1], "int8")),
    "nextafter of float16": lambda a: ut.nextafter(a([1, 0, -1, 2.5], "float16"),
                                                   a([2, -1, 0, 2.5], "float16")),
    "divide of int8": lambda a: ut.divide(a([1, 7], "int8"), a([3, 2], "int8")),
    "int16 / a Python int": lambda a: a([1, 7], "int16") / 3,
    "a Python int / bool": lambda a: 1 / a([True, True]),
    "reciprocal of int32": lambda a: ut.reciprocal(a([1, 3], "int32")),
    "argmax with NaN": lambda a: ut.argmax(a([1.5, _NAN, 3.0, _NAN])),
    "argmin with NaN along an axis": lambda a: ut.argmin(
        a([[1.0, _NAN, -2.0], [0.0, 1.0, -_INF]]), axis=1, keepdims=True),
    "left shift by negative counts": lambda a: ut.bitwise_left_shift(
        a([3, -1, 5], "int32"), a([-1, -2, 1], "int32")),
    "right shift by negative counts": lambda a: ut.bitwise_right_shift(
        a([-4, 8, 8], "int32"), a([-4, -1, 1], "int32")),
    "floor_divide of ints by zero": lambda a: ut.floor_divide(a([7, -7, 0], "int32"),
                                                              a([0, 2, 0], "int32")),
    "remainder of uint8 by zero": lambda a: ut.remainder(a([7, 5], "uint8"),
                                                         a([0, 3], "uint8")),
    "ints // a Python 0": lambda a: a([7, -7], "int16") // 0,
    "take out of bounds": lambda a: ut.take(a([1, 2, 3]), a([0, 3]), axis=0),
    "take_along_axis out of bounds": lambda a: ut.take_along_axis(
        a([[1, 2], [3, 4]]), a([[0], [-3]]), axis=1),
    "take_along_axis of int32 indices": lambda a: ut.take_along_axis(
        a([[1, 2], [3, 4]]), a([[1], [-2]], "int32"), axis=1),
    "ints to a negative power": lambda a: ut.pow(a([2, 3], "int32"),
                                                 a([1, -1], "int32")),
    "ints to a Python -1": lambda a: a([2, 3], "int64") ** -1,
    "imag of float32": lambda a: ut.imag(a([1.5, -2.0], "float32")),
    "repeat with a negative count": lambda a: ut.repeat(a([0, 1, 2]), a([1, -1, 2])),
    "repeat with 2-d repeats": lambda a: ut.repeat(a([[0, 1], [2, 3]]),
                                                   a([[1, 1], [1, 1]])),
    "mean of int32": lambda a: ut.mean(a([[1, 2, 4], [3, 3, 3]], "int32"), axis=1),
    "var of bool": lambda a: ut.var(a([True, False, False]), correction=1),
    "std of int8": lambda a: ut.std(a([1, 2, 4], "int8"), keepdims=True),
    "sort with NaN": lambda a: ut.sort(a([3, _NAN, 1, -_INF, 2, _INF, _NAN, 0])),
    "argsort with NaN": lambda a: ut.argsort(a([[3, _NAN, 1, -_INF], [_NAN, 2, 0, 1]]),
                                             axis=0),
    "sort descending with NaN": lambda a: ut.sort(a([3, _NAN, 1, -_INF, _NAN, 2]),
                                                  descending=True),
    "searchsorted of NaN": lambda a: ut.searchsorted(a([.1, .5, _INF, _NAN, _NAN]),
                                                     a([_NAN, _INF, .3, -_INF])),
    "searchsorted of NaN, right": lambda a: ut.searchsorted(
        a([.1, .5, _INF, _NAN, _NAN]), a([_NAN, _INF, .3]), side="right"),
    "searchsorted of a NaN scalar": lambda a: ut.searchsorted(a([.1, _NAN]), _NAN),
    "searchsorted of a 2-d x1": lambda a: ut.searchsorted(a([[1, 2], [1, 2]]),
                                                          a([[2], [2]])),
    "a list index": lambda a: a([5, 6, 7])[[0, 1, 1, -1]],
    "a list mask": lambda a: a([5, 6, 7])[[True, False, True]],
    "a list in a tuple index": lambda a: a([[1, 2], [3, 4]])[:, [1, 1, 0]],
    "asarray of strs": lambda a: ut.asarray(["yes", "no"], device=a(0).device),
    "asarray of nested bytes": lambda a: ut.asarray([[b"y"]], device=a(0).device),
    "asarray of a None": lambda a: ut.asarray([1.0, None], device=a(0).device),
    "a list index of strs": lambda a: a([5, 6])[["a"]],
    "linspace of uint16": lambda a: ut.linspace(0, 10, 5, dtype=ut.uint16,
                                                device=a(0).device),
    "linspace of uint64": lambda a: ut.linspace(0, 10, 4, dtype=ut.uint64,
                                                device=a(0).device, endpoint=False),
    # bool inputs of arithmetic (_bool_loops): numpy's loops
    "bool + bool": lambda a: a([True, False, False]) + a([True, True, False]),
    "bool * a Python bool": lambda a: a([True, False]) * True,
    "maximum of bools": lambda a: ut.maximum(a([True, False]), a([False, False])),
    "abs of bool": lambda a: ut.abs(a([True, False])),
    "square of bool": lambda a: ut.square(a([True, False])),
    "bool ** bool": lambda a: a([True, False, False]) ** a([False, True, False]),
    "bool // bool": lambda a: ut.floor_divide(a([True, True]), a([True, False])),
    "sum of bools": lambda a: ut.sum(a([[True, False], [True, True]]), axis=0),
    "cumulative_prod of bools": lambda a: ut.cumulative_prod(a([True, True, False])),
    "max of bools": lambda a: ut.max(a([[True, False], [False, False]]), axis=1),
    "min of bools": lambda a: ut.min(a([True, False]), keepdims=True),
    "sign of bool": lambda a: ut.sign(a([True, False])),
    "bool - bool": lambda a: a([True]) - a([False]),
    "negative of bool": lambda a: -a([True]),
    "round of bool": lambda a: ut.round(a([True, False])),
    "conj of bool": lambda a: ut.conj(a([True, False])),
    "floor of bool": lambda a: ut.floor(a([True, False])),
    "trunc of bool": lambda a: ut.trunc(a([True, False])),
}

# integer inputs of floating-point functions and averages: numpy's dtype on every owner
# (docs/namespace.md), values to the precision of the dtype, as each framework's
# own exp, atan2, ... may round the last bit differently
_FLOAT_RULE = {"exp of int64": "float64", "sqrt of int16": "float32",
               "sin of uint8": "float16", "atan2 of int32": "float64",
               "atan2 of int8 and int16": "float32", "exp of bool": "float16",
               "hypot of int8": "float16",
               "logaddexp of uint8 and a Python int": "float16",
               "nextafter of int8": "float16", "divide of int8": "float64",
               "int16 / a Python int": "float64", "a Python int / bool": "float64",
               "reciprocal of int32": "float64", "mean of int32": "float64",
               "var of bool": "float64", "std of int8": "float64"}
# bool counts: numpy's default integer (JAX without x64: int32)
_COUNTS = ("sum of bools", "cumulative_prod of bools")
# numpy's own answers (np.full, np.stack, ..., np.iterable on ndarrays), where
# the numpy owner's could be wrong too
NUMPY_SAYS = {
    "full with a 0-d array": ("float64", [2.5, 2.5]),
    "full with a 0-d int8 array": ("int8", [3, 3]),
    "full_like with a 0-d array": ("float64", [7.0, 7.0]),
    "stack of a namedtuple": ("int64", [[1, 2], [3, 4]]),
    "concat of a namedtuple": ("int64", [1, 2, 3, 4]),
    "np.iterable of a 0-d array": False,
    "np.iterable of a 1-d array": True,
    "operator.index of a float": TypeError,
    "operator.index of a bool": TypeError,
    "operator.index of an int": 3,
    "a list in a tuple index": ("int64", [[2, 2, 1], [4, 4, 3]]),
    "asarray of strs": TypeError,  # at asarray: TF made a tf.string tensor, whose
    "asarray of nested bytes": TypeError,  # astype aborted the process
    "asarray of a None": TypeError,
    "bool + bool": ("bool", [True, True, False]),
    "square of bool": ("int8", [1, 0]),
    "bool ** bool": ("int8", [1, 0, 1]),
    "sum of bools": ("int64", [2, 1]),
    "sign of bool": TypeError,
    "round of bool": TypeError,  # (numpy's own cast to float16; conj's to int8)
    "conj of bool": TypeError,
    "floor of bool": ("bool", [True, False]),
    "searchsorted of a 2-d x1": ValueError,
    "bool - bool": TypeError,
}


def _write_list_index(framework):
    x = ut.asarray(np.arange(5.0)).to(framework, copy=True)
    x[[0, 3]] = 9.0
    return np.asarray(x).tolist()


@pytest.mark.parametrize("framework", [*COMPUTING, *LAZY])
def test_a_list_index_writes_as_numpy_writes(framework):
    if framework == "array_api_strict":  # the strict library refuses integer arrays
        pytest.skip("array_api_strict writes through no integer array index")
    assert _write_list_index(framework) == [9.0, 1.0, 2.0, 9.0, 4.0]


def jax_x64():
    jax = sys.modules.get("jax")
    return jax is not None and bool(jax.config.jax_enable_x64)


def _answer(call, framework, raw=False):
    """What ``call`` gives on ``framework``'s data: its value as numpy, with its
    dtype, or the exception type raised.
    """
    def make(values, dtype=None):
        data = np.asarray(values, dtype=dtype)  # Python floats: float64, ints: int64
        return ut.asarray(data).to(framework, copy=True)
    try:
        result = call(make)
        values = np.asarray(result) if type(result) is ut.Tensor else None
    except Exception as exc:  # (a lazy owner's: when its values are computed)
        return type(exc)
    if raw:
        return values
    if values is not None:  # values as text, where NaN equals NaN
        return result.dtype.name, repr(values.tolist())
    return result


@pytest.mark.parametrize("call", CLIENT_CALLS, ids=list(CLIENT_CALLS))
@pytest.mark.parametrize("framework", [*COMPUTING, *LAZY])
def test_what_clients_met_answers_as_the_numpy_owner(framework, call):
    expected = _answer(CLIENT_CALLS[call], "numpy")
    if call in NUMPY_SAYS:
        said = NUMPY_SAYS[call]
        assert expected == ((said[0], repr(said[1])) if type(said) is tuple else said)
    if framework == "array_api_strict" and "float16" in call:
        pytest.skip("array_api_strict has no float16")
    found = _answer(CLIENT_CALLS[call], framework)
    if call in _FLOAT_RULE:
        dtype = _FLOAT_RULE[call]
        if framework == "array_api_strict" and dtype == "float16":
            if call.startswith("nextafter"):  # the next float32 is another number
                pytest.skip("array_api_strict has no float16")
            dtype = "float32"  # the narrowest it holds: it has no float16
        if framework == "jax" and dtype == "float64" and not jax_x64():
            dtype = "float32"  # the widest JAX holds without x64
        assert (expected[0], found[0]) == (_FLOAT_RULE[call], dtype)
        np.testing.assert_allclose(
            _answer(CLIENT_CALLS[call], framework, raw=True),
            _answer(CLIENT_CALLS[call], "numpy", raw=True),
            rtol={"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}[
                _FLOAT_RULE[call]])
        return
    if call in _COUNTS and framework == "jax" and not jax_x64():
        expected = ("int32", expected[1])
    if (framework == "array_api_strict" and expected != found
            and found in (TypeError, IndexError, ValueError)):  # it refuses beyond
        return  # the standard (negative shift counts: ValueError)
    assert found == expected


def test_an_integer_array_with_a_float_is_cast_once_where_its_owner_computes(
        monkeypatch):
    # issue 35's cost of the one dtype rule: numpy computes int32 * 0.5 in
    # float64, the rule's dtype, its operand cast to it: that result is kept (it
    # went 2 -> 6 us when the cast was made again); torch computes it in its
    # float32, not the rule's float64: cast first, as before
    x = ut.asarray(np.arange(4, dtype=np.int32))
    for warm in (x * 0.5, x + 1.5, x ** 0.5, x * 1j):  # (the general path's first)
        assert warm.owner == "numpy"
    casts = []

    def recording(backend):
        astype = backend.astype

        def cast(native, dtype):
            casts.append(dtype)
            return astype(native, dtype)
        return cast

    monkeypatch.setattr(x._backend, "astype", recording(x._backend))
    for r in (x * 0.5, x + 1.5, x ** 0.5, x * 1j):
        assert casts == []
        assert r.owner == "numpy"
    np.testing.assert_array_equal((x * 0.5).numpy(), np.arange(4) * 0.5)
    assert (x * 0.5).dtype == ut.float64
    assert (x * 1j).dtype == ut.complex128
    assert (x == 0.5).dtype == ut.bool  # (a bool result tells no dtype: cast first)
    torch = pytest.importorskip("torch")
    casts.clear()
    t = ut.asarray(torch.arange(4, dtype=torch.int32))
    assert (t * 0.5).dtype == ut.float64
    monkeypatch.setattr(t._backend, "astype", recording(t._backend))
    r = t * 0.5
    assert casts == [ut.float64]
    assert r.dtype == ut.float64
    assert r.numpy().tolist() == [0.0, 0.5, 1.0, 1.5]


@pytest.mark.parametrize("framework", COMPUTING)
def test_integer_inputs_of_floating_functions_follow_the_rule_on_the_fast_paths(
        framework):
    # the C fast paths learn exp and divide from floating inputs, then meet
    # integer ones: the rows route those through the rule, and floating inputs
    # straight to the owner's own function
    from unitensor import _fastpath
    f = ut.asarray(np.ones(2)).to(framework, copy=True)
    i = ut.asarray(np.array([1, 2], dtype=np.int32)).to(framework, copy=True)
    for _ in range(2):
        ut.exp(f), ut.divide(f, f), f / f
    wide = "float32" if framework == "jax" and not jax_x64() else "float64"
    assert [ut.exp(i).dtype.name, ut.divide(i, i).dtype.name, (i / i).dtype.name,
            ut.sqrt(i * 1).dtype.name] == [wide] * 4
    np.testing.assert_allclose(np.asarray(i / i), [1.0, 1.0])
    for name in ("exp", "divide"):
        row = _fastpath._tables[name][1][f._backend]
        assert row.real_func is not None
        assert f._native.dtype not in row.complex_dtypes
        assert i._native.dtype in row.complex_dtypes
