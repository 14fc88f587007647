"""Shared fixtures: the frameworks installed here, and clean global state per test."""

from __future__ import annotations

import gc
import importlib
import importlib.util
import logging
import os

import pytest

# This process loads TensorFlow and then torch._dynamo (test_compile.py), as a user
# of both does: where triton is installed (PyPI's torch wheels bring it), it must be
# imported before TensorFlow, whose LLVM it clashes with ("LLVM ERROR: inconsistency
# in registered CommandLine options", the process aborts). docs/interop.md tells
# users the same; tests/project/test_triton_first.py checks unitensor keeps the
# rule itself.
if importlib.util.find_spec("triton") is not None:
    import triton  # noqa: F401
# Dr.Jit's LLVM backend too: after TensorFlow, its first kernel crashes the
# process (unitensor/_backends/_triton.py).
if importlib.util.find_spec("drjit") is not None:
    import drjit  # noqa: F401

from owners import FRAMEWORKS

LONG = ("a long check (conformance on every owner, the sanitizers, the benchmark "
        "runs, the clients tier, mypy, the docs build, dask out of core): outside "
        "the whole suite's "
        "8 minutes; "
        "`pytest --long -m long` runs it, as .ci/run does")


def pytest_configure(config: pytest.Config) -> None:
    """xdist's workers steal queued tests from each other (``-n``): the slowest
    tests are fresh interpreters of 15-70 s, and xdist's default ("load") left
    one worker idle at the end, ~40 s of the whole suite on two cores."""
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "worksteal"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true",
                     help="also run the long checks (marker long), as .ci/run does")


def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Long checks are skipped, saying where they run, unless --long is given."""
    if config.getoption("--long"):
        return
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(pytest.mark.skip(reason=LONG))


class _FormattedAtOnce(logging.Filter):
    """Keeps a record's text, not its arguments: on Python 3.13, TensorFlow's
    AutoGraph cannot convert the loop function of its own vectorized_map and logs
    a warning whose arguments hold that function (its closure: the loop's inputs).
    pytest's log capture keeps every record of a test, so under jax.jit the inputs
    of a TensorFlow body (views of XLA's buffers) looked kept by the body, which
    unitensor refuses (test_wrap_tf.py's jax-to-tf tests); a user's program keeps
    no records. The message is unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = record.getMessage(), None
        return True


logging.getLogger("tensorflow").addFilter(_FormattedAtOnce())

# scipy reads this once, at its import: its Array API support, which
# tests/test_clients.py runs on Tensors (and scikit-learn's array_api_dispatch needs).
os.environ.setdefault("SCIPY_ARRAY_API", "1")



def _preloaded() -> list[str]:
    """The frameworks to import before the first test (all installed ones).

    UNITENSOR_TEST_PRELOAD (comma-separated names) narrows the list: the ASan run of
    tests/ext/test_asan.py leaves TensorFlow out, as its selection of tests does.
    """
    names = os.environ.get("UNITENSOR_TEST_PRELOAD")
    if names is None:
        return FRAMEWORKS
    return [name for name in names.split(",") if name in FRAMEWORKS]


@pytest.fixture(scope="session", autouse=True)
def _frameworks_frozen():
    """Import the installed frameworks once, then freeze the heap.

    With torch, jax and TensorFlow loaded, a full collection walks millions of their
    objects (0.1-0.6 s each time). ``gc.freeze()`` moves everything alive now into a
    permanent generation that collections skip, so the collector only sees what the
    tests make. No collection runs between tests: a test that counts deleters,
    weakrefs, ``_core.stats()`` or refcounts calls ``gc.collect()`` itself.
    """
    for name in _preloaded():
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(scope="module", autouse=True)
def _earlier_modules_frozen(_frameworks_frozen):
    """Each module starts with the garbage of earlier modules collected, and what
    they left alive (caches, compiled functions) frozen as well: a ``gc.collect()``
    in a test then walks only what its own module made (in a full run, test_fuzz's
    300 collections took 20 s without this, 1 s with it)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _reset_global_state():
    """Every test starts with jax x64 off and unitensor's defaults."""
    import unitensor._config as config
    saved_owner = config._default_owner
    jax_x64 = None
    if importlib.util.find_spec("jax") is not None:
        import jax
        jax_x64 = jax.config.jax_enable_x64
    yield
    config._default_owner = saved_owner
    if jax_x64 is not None:
        import jax
        jax.config.update("jax_enable_x64", jax_x64)


@pytest.fixture
def x64_for_jax_framework(request):
    """Tests over every framework use float64 data: JAX needs x64 for it.

    Used by modules whose tests take a ``framework`` parameter
    (``pytestmark = pytest.mark.usefixtures("x64_for_jax_framework")``).
    """
    if "framework" in request.fixturenames and (
            request.getfixturevalue("framework") == "jax"):
        request.getfixturevalue("x64")


@pytest.fixture
def x64():
    """JAX with 64-bit types enabled for this test."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax
