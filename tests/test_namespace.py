"""The Array API namespace: made from the standard's table, dispatched to the owner.

Values and dtypes per function are the conformance suite's job (conformance/);
this file checks the namespace's shape (the table against the module), the
owner rule, mixed owners, devices, the array object's operators and indexing,
and the adapters' fixes.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest
from conftest import FRAMEWORKS

import unitensor as ut
from unitensor import _standard

COMPUTING = [f for f in ("numpy", "torch", "jax", "array_api_strict")
             if f in FRAMEWORKS]


@pytest.fixture(autouse=True)
def _jax_x64(request):
    """Tests over every framework use float64 data: JAX needs x64 for it."""
    if "framework" in request.fixturenames and (
            request.getfixturevalue("framework") == "jax"):
        request.getfixturevalue("x64")


def _parameters(func):
    return [(p.name, p.kind, p.default)
            for p in inspect.signature(func).parameters.values()]


def _function(row: _standard.Function):
    module = {"linalg": ut.linalg, "fft": ut.fft}.get(row.group, ut)
    return getattr(module, row.name, None)


# -- the table against the module ------------------------------------------------
@pytest.mark.parametrize("row", _standard.FUNCTIONS,
                         ids=lambda r: f"{r.group}.{r.name}")
def test_every_function_of_the_standard_is_there_with_its_signature(row):
    func = _function(row)
    assert func is not None, f"{row.group}: {row.name} is missing"
    exec(f"def expected({row.signature}): pass", scope := {})
    assert _parameters(func) == _parameters(scope["expected"])


def test_the_table_covers_the_2024_12_standard():
    counts = {g: len(_standard.group(g)) for g in _standard.GROUPS}
    assert counts == {
        "creation": 16, "data_types": 6, "elementwise": 67, "indexing": 2,
        "linear_algebra": 4, "manipulation": 14, "searching": 6, "set": 4,
        "sorting": 2, "statistical": 9, "utility": 3, "linalg": 23, "fft": 14}
    assert ut.__array_api_version__ == "2024.12"


def test_each_group_module_defines_exactly_its_rows():
    import importlib
    for group in _standard.GROUPS:
        name = {"linalg": "unitensor.linalg", "fft": "unitensor.fft",
                "data_types": "unitensor._data_type_functions"}.get(
                    group, f"unitensor._{group}_functions")
        module = importlib.import_module(name)
        assert module.__all__ == [row.name for row in _standard.group(group)]


def test_public_names_are_the_standard_plus_unitensor_own():
    standard = {row.name for row in _standard.FUNCTIONS if row.group not in
                ("linalg", "fft")}
    assert standard <= set(ut.__all__)
    for constant in ("e", "inf", "nan", "newaxis", "pi"):
        assert constant in ut.__all__
    assert ut.newaxis is None and ut.pi == pytest.approx(3.141592653589793)


def test_import_still_imports_no_framework():
    code = ("import sys, unitensor as ut; ut.add; ut.linalg.qr; "
            "print(sorted(m for m in ('numpy', 'torch', 'jax', 'tensorflow', "
            "'array_api_compat', 'array_api_strict') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


# -- the owner rule --------------------------------------------------------------
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
    assert result.owner == "torch" and result.numpy().tolist() == [2.0, 2.0]
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


def test_default_owner_can_be_set_and_read():
    pytest.importorskip("torch")
    assert ut.get_default_owner() == "numpy"
    ut.set_default_owner("torch")
    try:
        assert ut.arange(3).owner == "torch"
        assert ut.__array_namespace_info__().default_dtypes()["real floating"] == (
            ut.float32)
    finally:
        ut.set_default_owner("numpy")
    with pytest.raises(ValueError, match=r"set_default_owner\(\): framework"):
        ut.set_default_owner("pytorch")
    with pytest.raises(ValueError, match=r"owner\(\): framework"):
        with ut.owner("nope"):
            pass


def test_environment_variable_moves_a_whole_program():
    pytest.importorskip("torch")
    code = "import unitensor as ut; print(ut.ones((2,)).owner, ut.asarray([1.0]).owner)"
    env = {"UNITENSOR_DEFAULT_OWNER": "torch", "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=env).stdout.split()
    assert out == ["torch", "torch"]


def test_tensorflow_owned_data_computes_in_numpy_zero_copy():
    tf = pytest.importorskip("tensorflow")
    x = ut.asarray(tf.constant([1.0, 2.0, 3.0]))
    result = ut.multiply(x, 2)
    assert result.owner == "numpy"
    assert result.numpy().tolist() == [2.0, 4.0, 6.0]


# -- results ---------------------------------------------------------------------
@pytest.mark.parametrize("framework", COMPUTING)
def test_named_tuples_and_lists_are_the_standards(framework):
    x = ut.asarray(np.array([[2.0, 1.0], [1.0, 3.0]])).to(framework, copy=True)
    eig = ut.linalg.eigh(x)
    assert eig._fields == ("eigenvalues", "eigenvectors")
    assert type(eig.eigenvalues) is ut.Tensor and eig.eigenvalues.owner == framework
    assert ut.linalg.svd(x)._fields == ("U", "S", "Vh")
    assert ut.unique_counts(x)._fields == ("values", "counts")
    assert type(ut.meshgrid(x[0, :], x[1, :])) is list
    assert type(ut.broadcast_arrays(x, x[0, :])) is list
    assert type(ut.unstack(x)) is tuple


def test_numpy_zero_d_results_stay_arrays():
    x = ut.asarray(np.float64(2.0))
    for result in (x + 1, ut.sum(ut.asarray(np.ones(3))), ut.sin(x)):
        assert type(result.native) is np.ndarray and result.shape == ()


# -- the array object --------------------------------------------------------------
@pytest.mark.parametrize("framework", COMPUTING)
def test_operators_reflected_and_comparison(framework):
    x = ut.asarray(np.array([1, 2, 3], dtype=np.int32)).to(framework, copy=True)
    assert (x + 1).numpy().tolist() == [2, 3, 4]
    assert (10 - x).numpy().tolist() == [9, 8, 7]
    assert (2 ** x).numpy().tolist() == [2, 4, 8]
    assert (x // 2).numpy().tolist() == [0, 1, 1]
    assert (-x).numpy().tolist() == [-1, -2, -3]
    assert (~x).numpy().tolist() == [-2, -3, -4]
    assert (x << 1).numpy().tolist() == [2, 4, 6]
    assert (x == 2).numpy().tolist() == [False, True, False]
    assert (x >= 2).dtype == ut.bool
    assert (x + 1).dtype == ut.int32  # a Python scalar takes the array's dtype
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("framework", COMPUTING)
def test_inplace_operators_mutate_or_rebind(framework):
    x = ut.asarray(np.arange(4.0)).to(framework, copy=True)
    alias = x
    x += 1
    x *= ut.asarray(np.full(4, 2.0)).to(framework, copy=True)
    assert alias is x
    assert x.numpy().tolist() == [2.0, 4.0, 6.0, 8.0]


def test_inplace_on_numpy_writes_the_shared_memory():
    base = np.arange(3.0)
    x = ut.asarray(base)
    x += 1
    assert base.tolist() == [1.0, 2.0, 3.0]


def test_inplace_on_an_immutable_owner_keeps_dtype_and_shape():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    x = ut.asarray(jnp.arange(3, dtype=jnp.int32))
    with pytest.raises(TypeError, match="keeps the array's dtype int32"):
        x += ut.asarray(jnp.ones(3, dtype=jnp.float32))


@pytest.mark.parametrize("framework", COMPUTING)
def test_getitem_every_indexing_form(framework):
    x = ut.asarray(np.arange(12.0).reshape(3, 4)).to(framework, copy=True)
    assert x[1, 2].numpy().tolist() == 6.0
    assert x[:, 1:3].shape == (3, 2)
    assert x[..., ::2].shape == (3, 2)
    assert x[None, 0, :].shape == (1, 4)
    assert x[x > 9].numpy().tolist() == [10.0, 11.0]
    index = ut.asarray(np.array([2, 0])).to(framework, copy=True)
    assert x[index, 0].numpy().tolist() == [8.0, 0.0]
    assert x[1, ...].owner == framework


@pytest.mark.parametrize("framework", COMPUTING)
def test_setitem_every_indexing_form(framework):
    x = ut.asarray(np.zeros((2, 3))).to(framework, copy=True)
    x[0, 1] = 5.0
    x[1, :] = ut.asarray(np.array([1.0, 2.0, 3.0])).to(framework, copy=True)
    x[x > 2.5] = -1.0
    assert x.numpy().tolist() == [[0.0, -1.0, 0.0], [1.0, 2.0, -1.0]]
    assert x.owner == framework


def test_setitem_on_jax_rebinds_and_forgets_old_views():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    x = ut.asarray(jnp.zeros(3))
    old = x.numpy()
    x[1] = 2.0
    assert x.numpy().tolist() == [0.0, 2.0, 0.0]
    assert old.tolist() == [0.0, 0.0, 0.0]  # jax arrays are immutable: a new array


@pytest.mark.parametrize("framework", COMPUTING)
def test_python_conversions_and_attributes(framework):
    x = ut.asarray(np.array([[1.5, 2.0], [3.0, 4.0]])).to(framework, copy=True)
    assert float(x[0, 0]) == 1.5 and int(x[1, 1]) == 4 and complex(x[0, 1]) == 2
    assert bool(x[0, 0]) is True
    i = ut.asarray(np.array(2)).to(framework, copy=True)
    assert [10, 20, 30][i] == 30  # __index__
    assert x.T.shape == (2, 2) and x.mT.numpy().tolist() == [[1.5, 3.0], [2.0, 4.0]]
    assert x.ndim == 2 and x.size == 4 and len(x) == 2
    assert [row.shape for row in x] == [(2,), (2,)]
    assert x.__array_namespace__() is ut
    assert x.__array_namespace__(api_version="2023.12") is ut
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2099.01")
    assert x.to_device("cpu") is x


def test_iteration_stops_on_jax():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    assert len(list(ut.asarray(jnp.arange(3)))) == 3  # jax clamps x[3]; we do not loop


# -- data type functions and inspection --------------------------------------------
def test_promotion_follows_the_standard_table():
    assert ut.result_type(ut.int8, ut.uint8) is ut.int16
    assert ut.result_type(ut.uint16, ut.int32) is ut.int32
    assert ut.result_type(ut.uint32, ut.int8) is ut.int64
    assert ut.result_type(ut.float32, ut.complex64, ut.float64) is ut.complex128
    assert ut.result_type(ut.asarray(np.ones(2, dtype=np.int8)), 1) is ut.int8
    assert ut.result_type(ut.float32, 1j) is ut.complex64
    with pytest.raises(TypeError, match="uint64 and int64|int64 and uint64"):
        ut.result_type(ut.int64, ut.uint64)
    with pytest.raises(TypeError):
        ut.result_type(ut.int32, ut.float32)  # mixed kinds: not in the standard
    assert ut.can_cast(ut.int8, ut.int16) and not ut.can_cast(ut.int16, ut.int8)
    assert not ut.can_cast(ut.bool, ut.int8)
    assert ut.isdtype(ut.uint8, "integral")
    assert ut.isdtype(ut.float32, ("bool", ut.float32))
    with pytest.raises(ValueError, match="kind"):
        ut.isdtype(ut.int8, "integer")


def test_finfo_iinfo_accept_tensors_and_dtypes():
    x = ut.asarray(np.ones(2, dtype=np.float32))
    assert ut.finfo(x).eps == pytest.approx(1.1920929e-07)
    assert ut.finfo(ut.complex128).dtype is ut.float64
    assert ut.iinfo(ut.uint16).max == 65535 and ut.iinfo(ut.int8).min == -128
    with pytest.raises(TypeError, match="finfo"):
        ut.finfo(ut.int32)


@pytest.mark.parametrize("framework", COMPUTING)
def test_inspection_describes_the_owner(framework):
    with ut.owner(framework):
        info = ut.__array_namespace_info__()
        dtypes = info.dtypes()
        assert all(isinstance(d, ut.DType) for d in dtypes.values())
        assert dtypes["float32"] is ut.float32
        assert set(info.dtypes(kind="integral")) <= set(dtypes)
        assert info.default_device() == ut.Device("cpu")
        assert ut.Device("cpu") in info.devices()
        assert set(info.default_dtypes()) == {"real floating", "complex floating",
                                              "integral", "indexing"}
        assert {"boolean indexing", "data-dependent shapes"} <= set(info.capabilities())
        assert ut.zeros((2,)).dtype is info.default_dtypes()["real floating"]


# -- the adapters' fixes -----------------------------------------------------------
@pytest.mark.parametrize("framework", COMPUTING)
def test_floor_divide_special_cases(framework):
    x = ut.asarray(np.array([np.inf, -np.inf, 1.0, -1.0])).to(framework, copy=True)
    y = ut.asarray(np.array([2.0, 2.0, -np.inf, np.inf])).to(framework, copy=True)
    out = (x // y).numpy()
    assert out[:2].tolist() == [np.inf, -np.inf]
    assert out[2] == 0 and np.signbit(out[2]) and np.signbit(out[3])


@pytest.mark.parametrize("framework", ["numpy", "array_api_strict"])
def test_complex_expm1_special_cases(framework):
    x = ut.asarray(np.array([complex(np.inf, 0.0), complex(-np.inf, np.inf)])).to(
        framework, copy=True)
    with np.errstate(invalid="ignore"):
        out = ut.expm1(x).numpy()
    assert out[0] == complex(np.inf, 0.0) and out[1] == complex(-1.0, 0.0)


def test_torch_unsigned_sums_are_uint64():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([200, 100], dtype=torch.uint8))
    assert ut.sum(x).dtype is ut.uint64 and int(ut.sum(x)) == 300
    assert ut.cumulative_prod(x).dtype is ut.uint64
    y = ut.asarray(torch.tensor([1, 2], dtype=torch.uint16))
    assert int(ut.sum(y)) == 3  # torch has no uint16 sum: computed in int64


def test_torch_plain_sum_agrees_with_the_general_sum_for_every_dtype():
    """ut.sum(x) on torch skips array-api-compat's wrapper unless x is unsigned
    or arguments are given: the same answer either way."""
    torch = pytest.importorskip("torch")
    from unitensor import _backends
    fixed = _backends.get("torch").FIXES["sum"]
    for dtype in (torch.bool, torch.int8, torch.int32, torch.int64, torch.uint8,
                  torch.uint16, torch.float16, torch.float32, torch.complex64):
        x = torch.tensor([1, 0, 1], dtype=dtype)
        plain, general = fixed(x), fixed(x, keepdims=False)
        assert plain.dtype == general.dtype and plain.tolist() == general.tolist()
        assert fixed(x, keepdims=True).shape == (1,)


def test_jax_index_results_use_the_index_dtype(x64):
    import jax.numpy as jnp
    x = ut.asarray(jnp.arange(4))
    assert ut.searchsorted(x, x).dtype is ut.int64


# -- devices and errors ------------------------------------------------------------
def test_a_missing_function_names_the_owner():
    from unitensor import _dispatch
    with pytest.raises(NotImplementedError, match="not available in numpy"):
        _dispatch.implementation(_dispatch._backends.get("numpy"), "linalg.nope")


def test_unknown_arguments_fail_like_python():
    with pytest.raises(TypeError):
        ut.sum(ut.asarray(np.ones(2)), axes=0)


def test_jax_all_any_read_complex_numbers_whole(x64):
    import jax.numpy as jnp
    assert bool(ut.all(ut.asarray(jnp.asarray([1j, 2.0 + 0j]))))
    assert not bool(ut.any(ut.asarray(jnp.asarray([0j]))))


def test_asarray_reads_nested_zero_d_tensors():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([7, 9], dtype=torch.uint16))
    ut.set_default_owner("torch")
    try:
        y = ut.asarray([[x[0], x[1]]], dtype=ut.uint16)
    finally:
        ut.set_default_owner("numpy")
    assert y.owner == "torch" and y.dtype is ut.uint16 and y.shape == (1, 2)
    assert ut.asarray([x[0], x[1]]).numpy().tolist() == [7, 9]


def test_torch_special_functions_fixed():
    torch = pytest.importorskip("torch")
    z = ut.asarray(torch.zeros(2, dtype=torch.complex64))
    assert (z ** z).numpy().tolist() == [1 + 0j, 1 + 0j]  # x ** 0 is 1, even 0 ** 0
    x = ut.asarray(torch.tensor([-0.0, 1.0]))
    assert np.signbit((x % -1.0).numpy()[0])  # a zero remainder has x2's sign
    m = ut.asarray(torch.arange(6.0).reshape(2, 3))
    assert m[:, ::-2].numpy().tolist() == [[2.0, 0.0], [5.0, 3.0]]  # negative steps
    assert float(ut.std(m, correction=0.5)) == pytest.approx(
        float(np.std(np.arange(6.0), ddof=0.5)), rel=1e-6)
    assert ut.count_nonzero(m, axis=()).shape == (2, 3)
    assert ut.unique_all(ut.asarray(torch.tensor([3, 1, 3]))).indices.numpy(
        ).tolist() == [1, 0]
    c = ut.conj(ut.asarray(torch.tensor([1 + 2j])))
    assert c.numpy().tolist() == [1 - 2j]  # no lazy conjugate bit, so no copy


def test_complex_branch_cuts_follow_signed_zeros(x64):
    import jax.numpy as jnp
    out = ut.sqrt(ut.asarray(jnp.asarray([complex(-1.0, -0.0)]))).numpy()
    assert out[0] == -1j


def test_torch_unsigned_fallback_keeps_the_standard_dtypes():
    torch = pytest.importorskip("torch")
    u = ut.asarray(torch.tensor([1, 2, 3], dtype=torch.uint16))
    u += ut.asarray(torch.tensor([1, 1, 1], dtype=torch.uint16))  # in place
    assert u.numpy().tolist() == [2, 3, 4] and u.dtype is ut.uint16
    assert ut.take(u, ut.asarray(torch.tensor([0, 2]))).dtype is ut.uint16
    assert ut.repeat(u, 2).dtype is ut.uint16
    limit = ut.asarray(torch.tensor(3, dtype=torch.uint16))
    assert ut.clip(u, max=limit).numpy().tolist() == [2, 3, 3]


def test_jax_permute_dims_takes_negative_axes(x64):
    import jax.numpy as jnp
    assert ut.permute_dims(ut.asarray(jnp.zeros((2, 3))), (-1, 0)).shape == (3, 2)
    x = ut.asarray(jnp.asarray([complex(-0.0, 2.0)], dtype=jnp.complex64))
    assert ut.asinh(x).numpy()[0].real < 0  # the branch cut's side, by the zero's sign


def test_torch_unsigned_mixed_dtypes_and_masked_writes():
    torch = pytest.importorskip("torch")
    a = ut.asarray(torch.tensor([1, 257], dtype=torch.uint16))
    b = ut.asarray(torch.tensor([1, 1], dtype=torch.uint8))
    assert (a != b).numpy().tolist() == [False, True]  # torch alone says 257 == 1
    assert ut.bitwise_left_shift(a, b).dtype is ut.uint16  # torch alone: uint8
    a[a > 1] = 65535
    assert a.numpy().tolist() == [1, 65535]


def test_torch_unique_of_complex_numbers():
    torch = pytest.importorskip("torch")
    x = ut.asarray(torch.tensor([1 + 1j, 2j, 1 + 1j]))
    result = ut.unique_counts(x)
    assert result.values.owner == "torch"
    assert result.values.numpy().tolist() == [2j, 1 + 1j]
    assert result.counts.numpy().tolist() == [1, 2]
