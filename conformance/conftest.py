"""Settings for the conformance suite: example budget, and JAX's 64-bit types."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "conformance", max_examples=int(os.environ.get("CONFORMANCE_EXAMPLES", "20")),
    deadline=None, derandomize=os.environ.get("CONFORMANCE_DERANDOMIZE") == "1",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.load_profile("conformance")

if os.environ.get("UNITENSOR_DEFAULT_OWNER") == "jax":
    import jax
    jax.config.update("jax_enable_x64", True)  # the standard's float64 and int64



def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The frameworks' own warnings about values the standard defines (log(0),
    # overflow, ...) are not failures of conformance.
    for item in items:
        item.add_marker(pytest.mark.filterwarnings("ignore::RuntimeWarning"))
