"""pytest plugin: a client's own test suite, with unitensor as one of its namespaces.

Loaded with ``-p clients.plugin`` into a run of scikit-learn's array-API tests or
array-api-extra's suite; nothing in their files is edited. The environment says what
to run (``clients/__main__.py`` sets it):

- ``UNITENSOR_CLIENTS_SUITE``: ``scikit-learn`` or ``array-api-extra``;
- ``UNITENSOR_CLIENTS_NAMESPACE``: ``unitensor``, or ``array_api_strict`` (the
  reference);
- ``UNITENSOR_DEFAULT_OWNER``: the owner under test (unitensor's own variable);
- ``UNITENSOR_CLIENTS_LOG``: a file this plugin appends one JSON line to before and
  after each test, so that the runner knows which test a dead process was running;
- ``UNITENSOR_CLIENTS_DONE``: a file of test ids to leave out (a resumed run);
- ``UNITENSOR_CLIENTS_SAMPLE``: ``K/N`` keeps the tests whose id hashes to K modulo N.

The rule it keeps: only tests parametrized by the namespace run, and a test is named
by an id with the namespace's part replaced by ``XP``, so the same test on
array_api_strict and on unitensor has one name and the two runs can be compared.
Each unitensor test's body runs inside ``ut.owner(owner)``: a client's arrays are
often numpy arrays passed through ``xp.asarray`` (wrapped zero-copy, so still numpy's),
and the block makes every call of the test run in the owner under test; the copies
of numpy's data that JAX and TensorFlow need (64-byte alignment) are the block's, and
their CopyWarning is let through.
"""

from __future__ import annotations

import json
import linecache
import os
import re
import warnings
import zlib
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest

SUITE = os.environ.get("UNITENSOR_CLIENTS_SUITE", "")
NAMESPACE = os.environ.get("UNITENSOR_CLIENTS_NAMESPACE", "unitensor")
OWNER = os.environ.get("UNITENSOR_DEFAULT_OWNER", "numpy")

# scikit-learn's own combinations for array_api_strict (a default and a second
# device); unitensor takes the same two dtypes on the CPU.
_SKLEARN_COMBINATIONS = {
    "array_api_strict": [("array_api_strict", "CPU_DEVICE", "float64"),
                         ("array_api_strict", "device1", "float32")],
    "unitensor": [("unitensor", "cpu", "float64"), ("unitensor", "cpu", "float32")],
}


class _Namespace(str):
    """A namespace's name that came from the patched generators: a test that names
    "array_api_strict" itself (hard-coded, so never unitensor) is left out of both runs.
    """


_ID_PARTS = re.compile(
    r"array_api_strict-(CPU_DEVICE|device1)-|unitensor-cpu-|array_api_strict|unitensor")


def patch_scikit_learn(namespace: str) -> None:
    """scikit-learn's generators of namespaces yield ``namespace`` alone."""
    # The tests import these generators by name when pytest collects them, which is
    # after this plugin is imported: patching the module is enough.
    from sklearn.utils import _array_api

    def namespaces(include_numpy_namespaces: bool = True) -> Iterator[str]:
        yield _Namespace(namespace)

    def combinations(include_numpy_namespaces: bool = True) -> Iterator[tuple]:
        for name, device, dtype in _SKLEARN_COMBINATIONS[namespace]:
            yield _Namespace(name), device, dtype

    def mixed() -> Iterator[tuple]:
        # Conversions between two namespaces are outside this tier.
        return iter(())

    _array_api.yield_namespaces = namespaces
    _array_api.yield_namespace_device_dtype_combinations = combinations
    _array_api.yield_mixed_namespace_input_permutations = mixed


def patch_array_api_extra() -> None:
    """array-api-extra's ``Backend`` enum gains ``UNITENSOR``."""
    # The suite's `library` fixture is parametrized by every member of its Backend
    # enum; an enum cannot grow, so the module gets an equal enum with one more member
    # before the suite's conftest imports it.
    from array_api_extra._lib import _backends

    old = _backends.Backend
    if "UNITENSOR" in old.__members__:
        return
    members = {name: member.value for name, member in old.__members__.items()}
    members["UNITENSOR"] = "unitensor"
    new = Enum("Backend", members, module=old.__module__)  # type: ignore[misc]
    for name in ("modname", "like", "pytest_param", "__doc__"):
        setattr(new, name, old.__dict__[name])
    _backends.Backend = new


if SUITE == "scikit-learn":
    patch_scikit_learn(NAMESPACE)
elif SUITE == "array-api-extra":
    patch_array_api_extra()


def common_id(nodeid: str) -> str:
    """The test's id with its namespace's part replaced by ``XP``."""
    return _ID_PARTS.sub(lambda m: "XP-" if m.group(0).endswith("-") else "XP", nodeid)


def _takes_namespace(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    for value in callspec.params.values():
        if isinstance(value, _Namespace):
            return True
        # scikit-learn's tests that name a namespace themselves are left out; a
        # parameter of another suite is the namespace's name (params hold arbitrary
        # objects, arrays among them: only strings are compared)
        if SUITE != "scikit-learn" and isinstance(value, str) and value == NAMESPACE:
            return True
        if isinstance(value, Enum) and value.value == NAMESPACE:
            return True
    return False


def _sampled(test_id: str) -> bool:
    sample = os.environ.get("UNITENSOR_CLIENTS_SAMPLE", "")
    if not sample:
        return True
    k, n = (int(part) for part in sample.split("/"))
    return zlib.crc32(test_id.encode()) % n == k


def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    done_file = os.environ.get("UNITENSOR_CLIENTS_DONE", "")
    done = set()
    if done_file and os.path.exists(done_file):
        with open(done_file) as f:
            done = {line.rstrip("\n") for line in f}
    keep, drop = [], []
    for item in items:
        test_id = common_id(item.nodeid)
        chosen = _takes_namespace(item) and _sampled(test_id)
        (keep if chosen and test_id not in done else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def _log(record: dict[str, Any]) -> None:
    path = os.environ.get("UNITENSOR_CLIENTS_LOG")
    if path:
        # One line per event, flushed at once: the process may die in the next test.
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


def pytest_runtest_logstart(nodeid: str, location: tuple) -> None:
    _log({"start": common_id(nodeid)})


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    outcome = None
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        else:
            outcome = report.outcome
    elif report.when == "teardown" and report.failed:
        outcome = "failed"
    if outcome is not None:
        message = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
            if crash is not None and ":" not in message.partition("\n")[0]:
                # a bare exception (a client's own `assert`, outside pytest's
                # rewriting): the line that raised it names the failure
                line = linecache.getline(crash.path, crash.lineno).strip()
                message = (f"{message.partition(chr(10))[0]} at "
                           f"{os.path.basename(crash.path)}:{crash.lineno}: {line}")
        _log({"id": common_id(report.nodeid), "outcome": outcome,
              "message": message.splitlines()[0][:300] if message else ""})


# The block below moves the numpy arrays a test made (xp.asarray of numpy data wraps
# them zero-copy, numpy-owned) into JAX or TensorFlow, whose CPU kernels take only
# 64-byte aligned memory: unitensor copies numpy's 16- or 32-byte aligned data and
# says so with a CopyWarning, which array-api-extra's configuration makes an error.
# The copy is the harness's (a user of those owners holds their arrays), so that
# warning, and no other, is let through.
_ALIGNMENT_COPY = (r".*(JAX on CPU copies memory that is not 64-byte aligned"
                   r"|TensorFlow's CPU kernels need 64-byte aligned memory)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    if NAMESPACE != "unitensor":
        return (yield)
    import unitensor as ut
    with ut.owner(OWNER), warnings.catch_warnings():
        warnings.filterwarnings("ignore", _ALIGNMENT_COPY, ut.CopyWarning)
        return (yield)
