"""Real Array API clients, unchanged, on Tensors: scikit-learn, scipy, array-api-extra.

Each runs on numpy-, torch- and jax-owned data and must give numpy's values, keep
the data's owner for its results (arrays it creates with ``device=x.device`` are
the owner's), and raise no CopyWarning about unitensor's own intermediates
(the suite turns warnings into errors). Fitted estimators pickle and clone.
"""

from __future__ import annotations

import importlib
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from frameworks import make

import unitensor as ut

sklearn = pytest.importorskip("sklearn")
scipy_special = pytest.importorskip("scipy.special")
scipy_stats = pytest.importorskip("scipy.stats")
xpx = pytest.importorskip("array_api_extra")

OWNERS = ["numpy", "torch", "jax"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((120, 6)).astype(np.float32)
Y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int32) + (X[:, 2] > 1)


def tensor(owner: str, base: np.ndarray) -> ut.Tensor:
    return ut.asarray(make(owner, base))


def values(t: ut.Tensor) -> np.ndarray:
    return np.asarray(t.numpy())


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_scikit_learn_lda_and_pca_run_in_the_owner(owner):
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    x, y = tensor(owner, X), tensor(owner, Y)
    expected_lda = LinearDiscriminantAnalysis().fit(X, Y)
    expected_pca = PCA(n_components=3).fit(X)
    with sklearn.config_context(array_api_dispatch=True):
        lda = LinearDiscriminantAnalysis().fit(x, y)
        predicted = lda.predict(x)
        pca = PCA(n_components=3).fit(x)
        projected = pca.transform(x)
    assert predicted.owner == owner
    assert projected.owner == owner
    assert lda.coef_.owner == owner
    np.testing.assert_array_equal(values(predicted), expected_lda.predict(X))
    np.testing.assert_allclose(values(projected), expected_pca.transform(X),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.slow  # fits estimators on every owner: 9 s on jax (its compiles)
@pytest.mark.parametrize("owner", OWNERS)
def test_fitted_estimators_pickle_and_clone(owner):
    from sklearn.base import clone
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    x, y = tensor(owner, X), tensor(owner, Y)
    with sklearn.config_context(array_api_dispatch=True):
        lda = LinearDiscriminantAnalysis().fit(x, y)
        restored = pickle.loads(pickle.dumps(lda))
        assert restored.coef_.owner == owner
        np.testing.assert_array_equal(values(restored.predict(x)),
                                      values(lda.predict(x)))
        assert clone(lda).get_params() == lda.get_params()


@pytest.mark.slow  # a real client's run per owner (1-5 s): the whole suite runs it
@pytest.mark.parametrize("owner", OWNERS)
def test_scipy_special_and_stats_run_in_the_owner(owner):
    x = tensor(owner, X[:4])
    cases = {
        "logsumexp": (lambda: scipy_special.logsumexp(x, axis=1),
                      scipy_special.logsumexp(X[:4], axis=1)),
        "softmax": (lambda: scipy_special.softmax(x, axis=1),
                    scipy_special.softmax(X[:4], axis=1)),
        "zscore": (lambda: scipy_stats.zscore(x, axis=0),
                   scipy_stats.zscore(X[:4], axis=0)),
    }
    for name, (run, expected) in cases.items():
        result = run()
        assert result.owner == owner, name
        np.testing.assert_allclose(values(result), expected, rtol=1e-5, atol=1e-5,
                                   err_msg=name)


@pytest.mark.slow  # a real client's run per owner (1-4 s): the whole suite runs it
@pytest.mark.parametrize("owner", OWNERS)
def test_array_api_extra_runs_in_the_owner(owner):
    base = X[:3, :4]
    x = tensor(owner, base)
    cases = {
        "at.set": (lambda: xpx.at(x)[0, 1].set(5.0, copy=True),
                   np.where(np.arange(12).reshape(3, 4) == 1, 5.0, base)),
        "pad": (lambda: xpx.pad(x, 1), np.pad(base, 1)),
        "kron": (lambda: xpx.kron(x, x), np.kron(base, base)),
        "sinc": (lambda: xpx.sinc(x), np.sinc(base)),
        "isclose": (lambda: xpx.isclose(x, x), np.ones((3, 4), bool)),
        "atleast_nd": (lambda: xpx.atleast_nd(x, ndim=3), base[None]),
        "nunique": (lambda: xpx.nunique(x), np.asarray(12)),
    }
    for name, (run, expected) in cases.items():
        result = run()
        assert result.owner == owner, name
        np.testing.assert_allclose(values(result), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    assert x.numpy()[0, 1] == base[0, 1]  # at(copy=True) wrote a copy


@pytest.mark.slow  # a real client's run per owner (1-6 s): the whole suite runs it
@pytest.mark.parametrize("owner", ["numpy", "torch", "jax", "tensorflow"])
def test_scipy_oaconvolve_writes_through_views_on_every_owner(owner):
    """scipy.signal.oaconvolve's array-API code writes its blocks through views
    (``out[...] = ...`` on reshaped and sliced arrays): on immutable owners those
    writes reach their base (unitensor/_views.py), so the values are numpy's.
    """
    scipy_signal = pytest.importorskip("scipy.signal")
    if owner == "tensorflow":
        pytest.importorskip("tensorflow")
    cases = [(RNG.standard_normal(50), RNG.standard_normal(7)),
             (RNG.standard_normal((20, 30)), RNG.standard_normal((5, 4)))]
    for a, b in cases:
        a, b = a.astype(np.float32), b.astype(np.float32)
        result = scipy_signal.oaconvolve(tensor(owner, a), tensor(owner, b))
        assert result.owner == owner
        np.testing.assert_allclose(values(result), scipy_signal.oaconvolve(a, b),
                                   rtol=1e-4, atol=1e-4)


# scikit-learn's GaussianMixture draws its initial responsibilities with numpy
# indices (resp[index, col] = 1): JAX and TF copy numpy memory that is not 64-byte
# aligned, which unitensor reports (a copy of scikit-learn's key, never of the data)
_KEY_COPIED = "ignore:__setitem__\\(\\). copied because:unitensor.CopyWarning"


@pytest.mark.slow  # ~5-7 s per owner: jax and TF trace each new op of the EM loop
@pytest.mark.filterwarnings(_KEY_COPIED)
@pytest.mark.parametrize("owner", ["jax", "tensorflow"])
def test_scikit_learn_gaussian_mixture_on_immutable_owners(owner, x64):
    """GaussianMixture's EM writes through views and mixes dtypes (#35: NaN
    probabilities on jax-owned data before): the numpy owner's values."""
    from sklearn.mixture import GaussianMixture
    pytest.importorskip(owner)
    rng = np.random.default_rng(1)
    data = np.concatenate([rng.standard_normal((30, 3)),
                           rng.standard_normal((30, 3)) + 4.0])

    def fitted(x):
        with sklearn.config_context(array_api_dispatch=True):
            model = GaussianMixture(2, random_state=0, max_iter=20,
                                    init_params="random_from_data").fit(x)
            return model, model.predict_proba(x)

    expected_model, expected = fitted(data)
    model, proba = fitted(tensor(owner, data))
    assert proba.owner == owner
    np.testing.assert_allclose(values(proba), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values(model.means_), expected_model.means_,
                               rtol=1e-9)


@pytest.mark.slow  # ~2 s on jax (its first dispatch of each op), 0.1 s on TF
@pytest.mark.parametrize("owner", ["jax", "tensorflow"])
def test_scikit_learn_pairwise_distances_in_threads(owner, x64):
    """n_jobs=2: two threads compute column blocks of one jax- or TF-owned
    result (#35: zero columns before); the numpy owner's values."""
    from sklearn.metrics import pairwise_distances
    pytest.importorskip(owner)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((20, 4)), rng.standard_normal((25, 4))
    expected = pairwise_distances(a, b)
    with sklearn.config_context(array_api_dispatch=True):
        got = pairwise_distances(tensor(owner, a), tensor(owner, b), n_jobs=2)
    assert got.owner == owner
    np.testing.assert_allclose(values(got), expected, rtol=1e-12, atol=1e-12)


# --- the clients tier: the clients' own suites (clients/, python -m clients) ---

ROOT = Path(__file__).resolve().parent.parent
# The subset .ci/run's long step runs: the tests whose id hashes to 0 modulo N (the
# same subset on array_api_strict and on every owner); docs/conformance.md says why.
CLIENTS_SAMPLE = "0/8"


def clients_module(name: str) -> Any:
    # clients/ sits beside the package, as conformance/ does: not installed
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"clients.{name}")


def test_clients_plugin_names_a_test_alike_on_every_namespace():
    common_id = clients_module("plugin").common_id
    strict = ("sklearn/x/test_a.py::test_f[array_api_strict-CPU_DEVICE-float64-1]",
              "sklearn/x/test_a.py::test_f[array_api_strict-device1-float32-1]",
              "tests/main/test_at.py::test_g[array_api_strict]")
    ours = ("sklearn/x/test_a.py::test_f[unitensor-cpu-float64-1]",
            "sklearn/x/test_a.py::test_f[unitensor-cpu-float32-1]",
            "tests/main/test_at.py::test_g[unitensor]")
    assert [common_id(t) for t in strict] == [common_id(t) for t in ours]
    assert common_id(ours[0]) == "sklearn/x/test_a.py::test_f[XP-float64-1]"


def test_clients_plugin_makes_unitensor_scikit_learns_namespace(monkeypatch):
    from sklearn.utils import _array_api
    from sklearn.utils._testing import _array_api_for_tests
    for name in ("yield_namespaces", "yield_namespace_device_dtype_combinations",
                 "yield_mixed_namespace_input_permutations"):
        monkeypatch.setattr(_array_api, name, getattr(_array_api, name))
    clients_module("plugin").patch_scikit_learn("unitensor")
    combinations = list(_array_api.yield_namespace_device_dtype_combinations())
    assert combinations == [("unitensor", "cpu", "float64"),
                            ("unitensor", "cpu", "float32")]
    assert list(_array_api.yield_mixed_namespace_input_permutations()) == []
    xp, _ = _array_api_for_tests(*combinations[0])
    assert xp is ut


def test_clients_plugin_makes_unitensor_an_array_api_extra_backend(monkeypatch):
    from array_api_extra._lib import _backends
    monkeypatch.setattr(_backends, "Backend", _backends.Backend)
    clients_module("plugin").patch_array_api_extra()
    backend = _backends.Backend.UNITENSOR
    assert backend.modname == "unitensor"
    assert not backend.like(_backends.Backend.NUMPY)
    assert backend.pytest_param().id == "unitensor"
    # the suite's own members are all still there, with their values
    assert _backends.Backend.TORCH.value == "torch"


@pytest.mark.slow  # pytest in fresh processes, a 5 s hang: ~15 s
def test_clients_runner_charges_a_process_death_to_its_test_and_runs_the_rest(
        tmp_path):
    run_pytest = clients_module("__main__").run_pytest
    (tmp_path / "test_client.py").write_text(
        "import os\nimport pytest\n\n"
        "@pytest.mark.parametrize('xp', ['unitensor', 'numpy'])\n"
        "@pytest.mark.parametrize('case', ['a', 'dies', 'b', 'fails', 'hangs'])\n"
        "def test_case(case, xp):\n"
        "    if case == 'dies':\n        os.abort()\n"
        "    if case == 'hangs':\n        import time; time.sleep(600)\n"
        "    assert case != 'fails'\n")
    results = run_pytest(tmp_path, ["test_client.py"], "none", "unitensor", "numpy",
                         "", timeout=5)
    outcomes = {test_id.partition("::")[2]: outcome
                for test_id, (outcome, _) in results.items()}
    assert outcomes == {"test_case[a-XP]": "passed", "test_case[dies-XP]": "crashed",
                        "test_case[b-XP]": "passed", "test_case[fails-XP]": "failed",
                        "test_case[hangs-XP]": "crashed"}


CLIENT_RUNS = [pytest.param(suite, owner)
               for suite in ("scikit-learn", "array-api-extra")
               for owner in ("numpy", "torch", "jax", "tensorflow", "dask")
               if (suite, owner) != ("scikit-learn", "dask")]


@pytest.mark.long
@pytest.mark.clients
@pytest.mark.parametrize(("suite", "owner"), CLIENT_RUNS)
def test_clients_own_suite_passes_on_the_owner_where_it_passes_on_the_reference(
        suite, owner):
    """The client's own tests (a fixed subset), on array_api_strict and on unitensor
    with this owner, each in its own processes: every test that passes on the
    reference passes on the owner, or docs/conformance.md's known failures give its
    cause (python -m clients prints the same, and --write makes the table)."""
    pytest.importorskip("tensorflow" if owner == "tensorflow" else owner)
    runner = clients_module("__main__")
    result = runner.compare(suite, owner, CLIENTS_SAMPLE)
    assert result.passing, "nothing passed on the reference: the plugin is broken"
    assert not runner.unexplained(result)
