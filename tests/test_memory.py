"""unitensor.memory (#16): configure, stats and flush, on CPU.

configure is proved where it matters, in fresh interpreters (marked slow): the
settings reach each framework before it starts (JAX's own reader of its
variables, TensorFlow's configuration), the launcher runs a script after them,
and a framework that has started refuses them. In this process (where the
frameworks are loaded and started by conftest and earlier tests): the errors,
the best-effort warnings, stats and flush by the frameworks' own counters.
The CUDA paths need a CUDA GPU: the tests for them are skipped here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from owners import FRAMEWORKS

import unitensor as ut
from unitensor._backends import _memory

memory = ut.memory
ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(ROOT)}
VARIABLES = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_CLIENT_MEM_FRACTION",
             "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR",
             "TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR", "PYTORCH_ALLOC_CONF",
             "PYTORCH_CUDA_ALLOC_CONF", "CUPY_GPU_MEMORY_LIMIT")


def torch_cuda() -> bool:
    """Whether torch sees a CUDA GPU (is_available() does not initialise CUDA)."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return torch.cuda.is_available()


needs_gpu = pytest.mark.skipif(not torch_cuda(), reason="needs a CUDA GPU")
# NVML (the NVIDIA driver's library) sees a GPU: byte limits become shares of it
NVML_GPUS = bool(_memory.gpu_totals()[0])
needs_no_nvml = pytest.mark.skipif(NVML_GPUS, reason="NVML sees a GPU here")
MIB = 2**20


@pytest.fixture(autouse=True)
def _environment_restored():
    """configure() writes os.environ and may leave actions waiting for an import."""
    saved = dict(os.environ)
    for name in VARIABLES:  # the tests start from none, whatever the shell set
        os.environ.pop(name, None)
    yield
    os.environ.clear()
    os.environ.update(saved)
    _memory.clear_pending()


def run(code: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (no memory variable inherited)."""
    env = {k: v for k, v in ENV.items() if k not in VARIABLES}
    return subprocess.run([sys.executable, *args, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=timeout)


def ok(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def started(name: str) -> None:
    """Start a framework in this process (its backends, its devices)."""
    if name == "jax":
        import jax
        jax.devices()
    elif name == "tensorflow":
        import tensorflow as tf
        tf.constant(1.0)


def ours() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in VARIABLES}


# -- fast: a fresh interpreter that imports no framework ---------------------------
BEFORE_ANY_IMPORT = """
import json, os, sys, unitensor as ut
m = ut.memory
done = m.configure(preallocate=False, fraction={'torch': 0.4, 'jax': 0.3},
                   allocator={'jax': 'platform', 'tensorflow': 'cuda_malloc_async'})
first = {k: v for k, v in os.environ.items() if k in VARIABLES}
# the user's own torch options are kept; jaxlib refuses the old name beside the new
os.environ['PYTORCH_CUDA_ALLOC_CONF'] = 'max_split_size_mb:128'
os.environ['XLA_PYTHON_CLIENT_MEM_FRACTION'] = '0.9'
m.configure(fraction={'torch': 0.5, 'jax': 0.5}, allocator={'torch': 'cudaMallocAsync'})
second = dict(os.environ)
os.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segments:True'  # torch reads it first
m.configure(allocator={'torch': 'garbage_collection_threshold:0.6'})
assert m.stats() == {} and m.flush() == {}
print(json.dumps({'done': done, 'first': first, 'second': second,
                  'third': dict(os.environ),
                  'loaded': [f for f in ('torch', 'jax', 'jaxlib', 'tensorflow',
                                         'cupy', 'numpy') if f in sys.modules]}))
"""


def test_configure_before_any_import_sets_what_each_framework_reads():
    """In a fresh interpreter (here, the frameworks have started): the variables
    each framework reads when it starts, and no framework imported to set them."""
    import json
    code = f"VARIABLES = {VARIABLES!r}\n{BEFORE_ANY_IMPORT}"
    found = json.loads(ok(run(code, "-W", "error")))
    assert found["loaded"] == []
    assert found["first"] == {
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_CLIENT_MEM_FRACTION": "0.3",
        "XLA_PYTHON_CLIENT_ALLOCATOR": "platform", "TF_FORCE_GPU_ALLOW_GROWTH": "true",
        "TF_GPU_ALLOCATOR": "cuda_malloc_async",
        "PYTORCH_CUDA_ALLOC_CONF": "per_process_memory_fraction:0.4"}
    # what was done is said, framework by framework (never a silent no-op)
    done = found["done"]
    assert set(done) == {"torch", "jax", "tensorflow", "cupy"}
    assert "XLA_PYTHON_CLIENT_PREALLOCATE=false" in done["jax"]
    assert any("does not preallocate" in action for action in done["torch"])
    assert found["second"]["PYTORCH_CUDA_ALLOC_CONF"] == (
        "max_split_size_mb:128,backend:cudaMallocAsync,per_process_memory_fraction:0.5")
    assert "XLA_PYTHON_CLIENT_MEM_FRACTION" not in found["second"]
    assert found["third"]["PYTORCH_ALLOC_CONF"] == (
        "expandable_segments:True,garbage_collection_threshold:0.6")


@needs_no_nvml
def test_a_limit_before_any_import_cupy_bytes_and_no_gpu_said_in_words():
    """CuPy reads its limit in bytes at import; torch and JAX take only shares of
    a GPU, and without one nothing is set and the result says so; TensorFlow's
    waits for its import. No framework imported to do any of it."""
    import json
    found = json.loads(ok(run(f"""
        import json, os, sys, unitensor as ut
        done = ut.memory.configure(limit=3 * 2**30)
        print(json.dumps({{'done': done,
                          'env': {{k: v for k, v in os.environ.items()
                                   if k in {VARIABLES!r}}},
                          'loaded': [f for f in ('torch', 'jax', 'jaxlib', 'tensorflow',
                                                 'cupy') if f in sys.modules]}}))
    """, "-W", "error")))
    assert found["loaded"] == []
    assert found["env"] == {"CUPY_GPU_MEMORY_LIMIT": "3221225472"}
    assert found["done"]["cupy"] == ["CUPY_GPU_MEMORY_LIMIT=3221225472"]
    assert found["done"]["tensorflow"] == ["limit: applied when tensorflow is imported"]
    for name in ("torch", "jax"):
        [said] = found["done"][name]
        assert said.startswith(f"limit=3221225472: not set for {name}: no GPU to "
                               "limit (no NVIDIA driver library (NVML)"), said


@needs_no_nvml
def test_without_nvml_there_is_no_gpu_size_to_share():
    totals, why = _memory.gpu_totals()
    assert totals == []
    assert "NVML" in why
    assert _memory.share_of_gpu(2**30) == (None, f"no GPU to limit ({why})")


def test_a_limit_is_a_share_of_the_largest_gpu_rounded_down(monkeypatch):
    """One share serves every GPU: of the largest, so that none gives more than
    the limit; rounded down; at most the whole GPU. (NVML's reading itself is
    unverified here: no GPU.)"""
    monkeypatch.setattr(_memory, "gpu_totals", lambda: ([3 * 2**30, 2**30], ""))
    share, how = _memory.share_of_gpu(2**30)
    assert share == 0.333333
    assert how == (f"1073741824 bytes of {3 * 2**30} (the largest of 2 GPUs), "
                   "read through NVML")
    assert _memory.share_of_gpu(4 * 2**30)[0] == 1.0


BAD = [
    ({"preallocate": 1}, TypeError, "configure(): preallocate: expected True, False"),
    ({"growth": "yes"}, TypeError, "configure(): growth: "),
    ({"best_effort": None}, TypeError, "configure(): best_effort: "),
    ({"preallocate": False, "growth": False}, ValueError, "configure(): growth: "),
    ({"fraction": 0}, ValueError, r"configure(): fraction: expected a float in (0, 1]"),
    ({"fraction": 1.5}, ValueError, "configure(): fraction: "),
    ({"fraction": float("nan")}, ValueError, "configure(): fraction: "),
    ({"fraction": True}, TypeError, "configure(): fraction: "),
    ({"fraction": "0.5"}, TypeError, "configure(): fraction: "),
    ({"fraction": {"mxnet": 0.5}}, ValueError, "configure(): fraction: expected "
     "framework names"),
    ({"fraction": {1: 0.5}}, TypeError, "configure(): fraction: "),
    ({"fraction": {"jax": 2.0}}, ValueError, "configure(): fraction['jax']: "),
    ({"allocator": "platform"}, TypeError, "configure(): allocator: expected a dict"),
    ({"allocator": {"jax": "cudaMallocAsync"}}, ValueError,
     "configure(): allocator['jax']: expected one of ('default', 'bfc', 'platform'"),
    ({"allocator": {"torch": "fast"}}, ValueError, "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "expandable_segments"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"tensorflow": 1}}, TypeError, "configure(): allocator['tensorflow"),
    # torch would refuse these only when CUDA initialises, far from the call
    ({"allocator": {"torch": "backend:bogus"}}, ValueError,
     "configure(): allocator['torch']: expected one of ('native', 'cudaMallocAsync'), "
     "or options torch's allocator takes ('expandable_segments:True,"
     "max_split_size_mb:128'), not backend:'bogus'"),
    ({"allocator": {"torch": "expandable_segments:True,no_such_option:1"}},
     ValueError, "configure(): allocator['torch']: expected one of ('native', "
     "'cudaMallocAsync'), or options torch's allocator takes ('expandable_segments:"
     "True,max_split_size_mb:128'), not an unknown key 'no_such_option'"),
    ({"allocator": {"torch": "max_split_size_mb:lots"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "expandable_segments:yes"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "garbage_collection_threshold:2"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "roundup_power2_divisions:[256:1,x:2]"}}, ValueError,
     "configure(): allocator['torch']: "),
    # values c10's parsers refuse when CUDA starts (torch 2.13)
    ({"allocator": {"torch": "max_split_size_mb:0"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "garbage_collection_threshold:1.0"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "roundup_power2_divisions:3"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "roundup_power2_divisions:[255:4,>:4]"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "max_split_size_mb:\u00b2\u00b2"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "pinned_num_register_threads:256"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"allocator": {"torch": "large_segment_size_mb:lots"}}, ValueError,
     "configure(): allocator['torch']: "),
    ({"limit": True}, TypeError, "configure(): limit: expected a whole number of "
     "bytes, at least 1 MiB (1048576), below 2**64, got True"),
    ({"limit": 1.5e9}, TypeError, "configure(): limit: "),
    ({"limit": "1GB"}, TypeError, "configure(): limit: "),
    ({"limit": 1000}, ValueError, "configure(): limit: expected a whole number of "
     "bytes, at least 1 MiB"),
    ({"limit": -MIB}, ValueError, "configure(): limit: "),
    ({"limit": 2**64}, ValueError, "configure(): limit: "),  # no 64-bit size
    ({"limit": {"mxnet": MIB}}, ValueError, "configure(): limit: expected "
     "framework names"),
    ({"limit": {"jax": 0}}, ValueError, "configure(): limit['jax']: "),
    ({"limit": {"cupy": False}}, TypeError, "configure(): limit['cupy']: "),
    # one budget per framework: a fraction or a limit
    ({"fraction": 0.5, "limit": {"tensorflow": 2**30}}, ValueError,
     "configure(): limit['tensorflow']: expected no limit for tensorflow, since "
     "fraction gives it a fraction (a fraction or a limit, not both), got 1073741824"),
    ({"fraction": {"torch": 0.5}, "limit": 2**30}, ValueError,
     "configure(): limit: expected no limit for torch, since fraction['torch'] "),
]


@pytest.mark.parametrize(("kwargs", "kind", "message"), BAD,
                         ids=[str(kw) for kw, _, _ in BAD])
def test_bad_values_name_the_argument_and_change_nothing(kwargs, kind, message):
    before = ours()
    with pytest.raises(kind) as info:
        memory.configure(**kwargs)
    assert str(info.value).startswith(message)
    assert ours() == before
    assert _memory.pending() == {}  # nor an action waiting for an import


def test_torch_options_with_a_list_value_are_kept_whole(monkeypatch):
    monkeypatch.delenv("PYTORCH_ALLOC_CONF", raising=False)
    monkeypatch.delenv("PYTORCH_CUDA_ALLOC_CONF", raising=False)
    memory.configure(allocator={"torch": "roundup_power2_divisions:[256:1,>:4]"})
    memory.configure(allocator={"torch": "expandable_segments:True"})
    assert os.environ["PYTORCH_CUDA_ALLOC_CONF"] == (
        "roundup_power2_divisions:[256:1,>:4],expandable_segments:True")


def test_concurrent_configure_calls_keep_every_option(monkeypatch):
    options = ["max_split_size_mb:64", "max_non_split_rounding_mb:32",
               "large_segment_size_mb:8", "pinned_max_round_threshold_mb:4",
               "pinned_max_cached_size_mb:16", "pinned_reserve_segment_size_mb:2",
               "pinned_num_register_threads:8", "garbage_collection_threshold:0.5"]
    monkeypatch.delenv("PYTORCH_ALLOC_CONF", raising=False)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between read and write
    try:
        for _ in range(20):
            monkeypatch.delenv("PYTORCH_CUDA_ALLOC_CONF", raising=False)
            barrier = threading.Barrier(len(options))

            def one(option: str, barrier: threading.Barrier = barrier) -> None:
                barrier.wait()
                memory.configure(allocator={"torch": option})

            threads = [threading.Thread(target=one, args=(option,))
                       for option in options]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            found = os.environ["PYTORCH_CUDA_ALLOC_CONF"].split(",")
            assert sorted(found) == sorted(options)
    finally:
        sys.setswitchinterval(old)


def test_a_share_is_written_exactly_never_rounded_up(monkeypatch):
    for name in ("XLA_CLIENT_MEM_FRACTION", "PYTORCH_ALLOC_CONF",
                 "PYTORCH_CUDA_ALLOC_CONF", "CUPY_GPU_MEMORY_LIMIT"):
        monkeypatch.delenv(name, raising=False)
    share = 0.1234567  # '%g' wrote 0.123457: a larger cap
    memory.configure(fraction={"torch": share, "cupy": share})
    # jax's part directly: configure() refuses once this process started jax
    from unitensor._backends.jax import memory as jax_memory
    jax_memory.apply(_memory.Request(fraction=share))
    assert os.environ["XLA_CLIENT_MEM_FRACTION"] == "0.1234567"
    assert os.environ["PYTORCH_CUDA_ALLOC_CONF"] == (
        "per_process_memory_fraction:0.1234567")
    assert os.environ["CUPY_GPU_MEMORY_LIMIT"] == "12.3456700%"


def test_configure_takes_keywords_only():
    with pytest.raises(TypeError):
        memory.configure(False)  # type: ignore[misc]


# -- fast: in this process, where the frameworks have started ----------------------
def gpu_less(name: str) -> bool:
    """Whether ``name`` started without a GPU, where its settings cannot matter."""
    part = importlib.import_module(f"unitensor._backends.{name}.memory")
    return part.without_gpu() is not None


@contextlib.contextmanager
def too_late(name: str) -> Iterator[list[str]]:
    """Refused (TooLateError) where ``name`` sees a GPU; said (TooLateWarning, not
    applied) where it started without one. Yields the message, once out."""
    said: list[str] = []
    if gpu_less(name):
        with pytest.warns(memory.TooLateWarning) as caught:
            yield said
        said += [str(w.message) for w in caught
                 if issubclass(w.category, memory.TooLateWarning)]
        assert all("not applied, and it cannot matter: " in m for m in said), said
    else:
        with pytest.raises(memory.TooLateError) as info:
            yield said
        said.append(str(info.value))
        assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("name", [f for f in ("jax", "tensorflow") if f in FRAMEWORKS])
def test_a_started_framework_refuses_and_nothing_changes(name):
    started(name)
    before = ours()
    with too_late(name) as said:
        memory.configure(preallocate=False, fraction={name: 0.5, "torch": 0.5})
    message = "; ".join(said)
    assert message.startswith("configure(): preallocate: ")
    assert f"for {name}, too late: {name} has already initialised" in message
    assert f"fraction['{name}']" in message
    if gpu_less(name):  # said: the others applied, nothing of name's
        assert "without a GPU" in message or "CPU only" in message
        added = {k for k in ours() if k not in before}
        assert not added & {"XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_CLIENT_MEM_FRACTION"}
        assert added & {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}
    else:
        assert ours() == before  # torch's fraction could have been set: it was not


@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_best_effort_warns_for_the_late_setting_and_applies_the_rest():
    started("jax")
    with pytest.warns(memory.TooLateWarning, match=r"configure\(\): fraction\['jax'\]"
                      r": .*XLA_CLIENT_MEM_FRACTION"):
        done = memory.configure(fraction={"jax": 0.3, "torch": 0.4}, best_effort=True)
    assert "jax" not in done
    assert "XLA_CLIENT_MEM_FRACTION" not in os.environ
    conf = os.environ.get("PYTORCH_ALLOC_CONF") or os.environ["PYTORCH_CUDA_ALLOC_CONF"]
    assert "per_process_memory_fraction:0.4" in conf


@pytest.mark.parametrize(("name", "reads"), [
    (f, r) for f, r in (("jax", "XLA_CLIENT_MEM_FRACTION"),
                        ("tensorflow", "memory_limit")) if f in FRAMEWORKS])
def test_a_started_framework_refuses_a_limit(name, reads):
    started(name)
    with too_late(name) as said:
        memory.configure(limit={name: 2**30, "cupy": 2**30})
    assert re.match(rf"^configure\(\): limit\['{name}'\]: .* got 1073741824 for "
                    rf"{name}, too late: .*{reads}", said[0]), said
    if not gpu_less(name):
        assert ours() == {}  # CuPy's limit could have been set: it was not


@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_a_framework_started_without_a_gpu_is_warned_not_refused():
    """The first-hour defect: on a CPU-only machine, configure() after the first
    jax array raised TooLateError, though nothing it sets can matter there."""
    started("jax")
    import jax
    if any(d.platform != "cpu" for d in jax.devices()):
        pytest.skip("jax sees an accelerator here: refusing is right")
    with pytest.warns(memory.TooLateWarning, match=(
            r"too late: jax has already initialised .*; not applied, and it cannot "
            r"matter: jax started on the CPU only")):
        done = memory.configure(fraction={"jax": 0.5})
    assert "jax" not in done
    assert "XLA_CLIENT_MEM_FRACTION" not in os.environ


@needs_no_nvml
@pytest.mark.skipif("torch" not in FRAMEWORKS, reason="torch is not installed")
def test_torch_limit_without_a_gpu_sets_nothing_and_says_so():
    done = memory.configure(limit={"torch": 2**30})
    assert done["torch"][0].startswith("limit=1073741824: not set for torch: no GPU "
                                       "to limit")
    assert ours() == {}


@pytest.mark.skipif("torch" not in FRAMEWORKS, reason="torch is not installed")
def test_torch_without_cuda_never_refuses():
    import torch
    assert not torch.cuda.is_initialized()
    done = memory.configure(fraction={"torch": 0.25},
                            allocator={"torch": "expandable_segments:True"})
    assert done["torch"] == ("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,"
                             "per_process_memory_fraction:0.25",)


# -- stats -----------------------------------------------------------------------------
def check_record(record, framework):
    assert record.framework == framework
    assert isinstance(record.device, ut.Device)
    for field in ("in_use", "reserved", "peak", "limit", "allocator"):
        value = getattr(record, field)
        assert (value is None) == (field in record.reasons), (framework, field)
    assert all(record.reasons.values())


def test_stats_reports_only_loaded_frameworks():
    found = memory.stats()
    assert set(found) == {f for f in memory.FRAMEWORKS if f in sys.modules}
    for name, record in found.items():
        check_record(record, name)


@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_stats_jax_on_cpu_counts_its_live_arrays():
    import jax.numpy as jnp
    started("jax")
    before = memory.stats("cpu")["jax"]
    x = jnp.ones((250, 1000), dtype=jnp.float32)
    after = memory.stats("cpu")["jax"]
    check_record(after, "jax")
    assert after.in_use - before.in_use == x.nbytes == 1_000_000
    assert after.device == ut.Device("cpu")
    assert after.allocator == "cpu"
    assert after.peak is None
    assert "no allocator statistics" in after.reasons["peak"]


TF_COUNTED = """
import json, gc, unitensor as ut, tensorflow as tf
tf.constant(1.0)
class Cycle:
    def __init__(self, x): self.x, self.me = x, self
before = ut.memory.stats()["tensorflow"]
x = tf.ones((250, 1000), dtype=tf.float32)
after = ut.memory.stats()["tensorflow"]
del x
Cycle(tf.ones((500, 1000), dtype=tf.float32))
flushed = ut.memory.flush(("tensorflow",))["tensorflow"]
print(json.dumps({"grew": after.in_use - before.in_use, "in_use": after.in_use,
                  "peak": after.peak, "reserved": after.reserved,
                  "reason": after.reasons["reserved"], "allocator": after.allocator,
                  "released": flushed.released, "note": flushed.note}))
"""


@pytest.mark.skipif("tensorflow" not in FRAMEWORKS, reason="tensorflow not installed")
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_stats_and_flush_tensorflow_on_cpu_count_bytes_where_it_keeps_counts():
    """TensorFlow counts CPU bytes only with its BFC allocator on the CPU (2.21's
    default CPU allocator keeps none): there, in use, peak and what gc freed."""
    env = {k: v for k, v in ENV.items() if k not in VARIABLES}
    out = subprocess.run([sys.executable, "-c", TF_COUNTED], capture_output=True,
                         text=True, cwd=ROOT, timeout=300,
                         env={**env, "TF_CPU_ALLOCATOR_USE_BFC": "true"})
    found = json.loads(ok(out).strip().splitlines()[-1])
    assert found["grew"] >= 1_000_000
    assert found["peak"] >= found["in_use"]
    assert found["reserved"] is None
    assert "only the bytes in use" in found["reason"]
    assert found["allocator"] == "cpu"
    assert found["released"] >= 2_000_000
    assert "cannot return memory" in found["note"]


@pytest.mark.skipif("tensorflow" not in FRAMEWORKS, reason="tensorflow not installed")
def test_stats_and_flush_tensorflow_say_why_where_it_keeps_no_counts():
    """Where TensorFlow keeps no CPU counts (get_memory_info raises), stats say
    why and flush says it could not measure: nothing raises."""
    import tensorflow as tf
    started("tensorflow")
    try:
        tf.config.experimental.get_memory_info("CPU:0")
    except ValueError:
        pass
    else:
        pytest.skip("this process's tensorflow keeps CPU counts (the test above)")
    record = memory.stats()["tensorflow"]
    check_record(record, "tensorflow")
    assert record.in_use is None
    assert "keeps no allocator statistics for CPU:0" in record.reasons["in_use"]
    assert "TF_CPU_ALLOCATOR_USE_BFC=true" in record.reasons["in_use"]
    flushed = memory.flush("tensorflow")["tensorflow"]
    assert flushed.released == 0
    assert "keeps no counts to measure them" in flushed.note


@pytest.mark.skipif("torch" not in FRAMEWORKS, reason="torch is not installed")
def test_stats_torch_on_cpu_says_why_it_cannot():
    record = memory.stats()["torch"]
    check_record(record, "torch")
    if record.device.kind == "cpu":
        assert record.in_use is None
        assert "no statistics for CPU memory" in (
            record.reasons["in_use"])
    missing = memory.stats("cuda:7")["torch"]
    assert missing.in_use is None
    assert "no device cuda:7" in missing.reasons["in_use"]


def test_stats_refuses_a_bad_device():
    with pytest.raises(ValueError, match=r"^stats\(\): device: "):
        memory.stats("tpu:0")
    with pytest.raises(ValueError, match=r"^stats\(\): device: .* got 'cpu:7'"):
        memory.stats("cpu:7")  # one CPU


# -- flush -----------------------------------------------------------------------------
class Cycle:
    def __init__(self, payload):
        self.me, self.payload = self, payload


@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_jax_allocators_are_the_installed_jaxlib_s(monkeypatch):
    # Every allocator configure() takes, the installed jaxlib takes too (it refuses
    # an unknown one when it starts, ValueError), 'address' included where it does;
    # the advice names an allocator that frees memory to the GPU on this jaxlib
    # ('platform' no longer does from jaxlib 0.10.1: jax#39145).
    from jaxlib import xla_client

    from unitensor._backends.jax import memory as jax_memory
    options = xla_client.generate_pjrt_gpu_plugin_options
    for name in jax_memory.ALLOCATORS:
        monkeypatch.setenv("XLA_PYTHON_CLIENT_ALLOCATOR", name)
        assert options()["allocator"] == name
    monkeypatch.setenv("XLA_PYTHON_CLIENT_ALLOCATOR", "address")
    try:
        options()
        takes_address = True
    except ValueError:
        takes_address = False
    monkeypatch.delenv("XLA_PYTHON_CLIENT_ALLOCATOR")
    assert ("address" in jax_memory.ALLOCATORS) == takes_address
    assert jax_memory.FREEING != "platform" or jax_memory._JAXLIB < (0, 10, 1)
    started("jax")
    note = memory.flush("jax")["jax"].note
    if jax_memory.FREEING is None:
        assert "no allocator of this jaxlib frees memory" in note
    else:
        assert f"allocator={{'jax': {jax_memory.FREEING!r}}}" in note


@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_flush_jax_frees_dead_arrays_and_measures_them():
    import jax.numpy as jnp
    started("jax")
    Cycle(jnp.ones((500, 1000), dtype=jnp.float32))  # dead, held by a cycle
    result = memory.flush("jax")
    assert set(result) == {"jax"}
    assert result["jax"].released >= 2_000_000
    assert "cannot shrink in-process" in result["jax"].note
    assert memory.flush(["jax"])["jax"].released == 0  # nothing left to free


def test_flush_every_loaded_framework_and_one_not_loaded():
    result = memory.flush()
    assert set(result) == {f for f in memory.FRAMEWORKS if f in sys.modules}
    if "torch" in result and not torch_cuda():
        assert result["torch"].released == 0
        assert "nothing to release" in result["torch"].note
    if "cupy" not in sys.modules:
        assert memory.flush("cupy")["cupy"] == memory.Flushed(0, "cupy is not loaded")


@pytest.mark.parametrize(("frameworks", "kind"), [
    ("numpy", ValueError), (["jax", "mxnet"], ValueError), (3, TypeError),
    ([None], TypeError), (b"jax", TypeError)])
def test_flush_refuses_bad_frameworks(frameworks, kind):
    with pytest.raises(kind, match=r"^flush\(\): frameworks: expected "):
        memory.flush(frameworks)


# -- the post-import hook and the launcher's parser ------------------------------------
def test_an_action_waits_for_its_module_and_a_failure_is_a_warning(tmp_path,
                                                                   monkeypatch):
    (tmp_path / "fakefw.py").write_text("VALUE = 1\n")
    (tmp_path / "brokenfw.py").write_text("VALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    _memory.after_import("fakefw", "fraction", lambda: seen.append(
        sys.modules["fakefw"].VALUE))
    assert _memory.pending() == {"fakefw": ("fraction",)}
    assert importlib.util.find_spec("fakefw") is not None  # a look-up, no import
    assert _memory.pending() == {"fakefw": ("fraction",)}
    assert seen == []
    import fakefw  # noqa: F401
    assert seen == [1]
    assert _memory.pending() == {}
    assert _memory._hook not in sys.meta_path

    def broken():
        raise RuntimeError("no GPU")
    _memory.after_import("brokenfw", "allocator", broken)
    with pytest.warns(memory.TooLateWarning, match="allocator could not be applied "
                      "when brokenfw was imported: no GPU"):
        import brokenfw  # noqa: F401
    assert sys.modules["brokenfw"].VALUE == 2
    for name in ("fakefw", "brokenfw"):
        monkeypatch.delitem(sys.modules, name)


def test_the_launcher_reads_its_options_up_to_the_script():
    parse = memory._parse_launcher
    kwargs, command, verbose = parse(["--no-preallocate", "--fraction",
                                      "torch=0.4,jax=0.3", "--allocator",
                                      "torch=expandable_segments:True,max_split_size_mb:128",
                                      "--allocator=jax=platform", "s.py", "--fraction",
                                      "x"])
    assert kwargs == {"preallocate": False, "fraction": {"torch": 0.4, "jax": 0.3},
                      "allocator": {"torch": "expandable_segments:True,"
                                    "max_split_size_mb:128", "jax": "platform"}}
    assert command == ["s.py", "--fraction", "x"]
    assert not verbose
    kwargs, command, verbose = parse(["--growth", "--best-effort", "--verbose",
                                      "--fraction=0.5", "-m", "pkg.mod", "-v"])
    assert kwargs == {"growth": True, "best_effort": True, "fraction": 0.5}
    assert command == ["-m", "pkg.mod", "-v"]
    assert verbose
    kwargs, _, _ = parse(["--limit", "1073741824", "--limit=torch=2097152,cupy=3",
                          "s.py"])
    assert kwargs == {"limit": {"torch": 2097152, "cupy": 3}}  # the last one
    assert parse(["--limit", "4096", "s.py"])[0] == {"limit": 4096}
    for bad in (["--fraction", "half", "s.py"], ["--allocator", "jax", "s.py"],
                ["--limit", "1GB", "s.py"], ["--limit", "torch=0.5", "s.py"],
                ["--limit", f"torch={MIB},torch={2 * MIB}", "s.py"],
                ["--fraction", "jax=0.3,jax=0.2", "s.py"],
                ["--frac", "s.py"], ["--no-preallocate"], ["-m"]):
        with pytest.raises(memory._UsageError):
            parse(bad)


def test_the_launcher_refuses_a_bad_value_before_running_anything(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    out = subprocess.run([sys.executable, "-m", "unitensor.memory", "--fraction",
                          "torch=2", str(script)], capture_output=True, text=True,
                         env=ENV, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "configure(): fraction['torch']: expected a float in (0, 1]" in out.stderr


def test_the_launcher_sets_a_limit_then_runs_the_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import os, sys\n"
                      "print(os.environ['CUPY_GPU_MEMORY_LIMIT'], 'torch' in "
                      "sys.modules)\n")
    env = {k: v for k, v in ENV.items() if k not in VARIABLES}
    out = subprocess.run([sys.executable, "-m", "unitensor.memory", "--verbose",
                          "--limit", "cupy=2097152", str(script)],
                         capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=120)
    assert ok(out) == "2097152 False\n"
    assert "unitensor.memory: cupy: CUPY_GPU_MEMORY_LIMIT=2097152" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "unitensor.memory", "--limit",
                          "jax=1000", str(script)], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert "configure(): limit['jax']: expected a whole number of bytes" in bad.stderr


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_the_launcher_fails_as_python_does(tmp_path):
    """A missing script or module, and a script's exception: python's message,
    exit status and traceback (from the script's frame), not the launcher's."""
    (tmp_path / "boom.py").write_text("def f():\n    raise KeyError('boom')\nf()\n")
    (tmp_path / "syntax.py").write_text("x = (\n")
    (tmp_path / "interrupted.py").write_text("def f():\n    raise KeyboardInterrupt\n"
                                             "f()\n")
    for package, main in (("boompkg", "import boom\n"), ("nomain", None)):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        if main is not None:
            (tmp_path / package / "__main__.py").write_text(main)

    def both(*command: str) -> tuple[subprocess.CompletedProcess[str], ...]:
        return tuple(subprocess.run([sys.executable, *launcher, *command],
                                    capture_output=True, text=True, cwd=tmp_path,
                                    env={**ENV, "PYTHONPATH": str(ROOT)}, timeout=120)
                     for launcher in ([], ["-m", "unitensor.memory"]))

    # python's one-line refusals, and a syntax error printed without a traceback
    for command in (["missing.py"], ["-m", "missing_module"], ["-m", "nomain"],
                    ["syntax.py"]):
        python, launched = both(*command)
        assert (launched.returncode, launched.stderr) == (python.returncode,
                                                          python.stderr)
        assert python.returncode in (1, 2)
    for command in (["boom.py"], ["-m", "boom"], ["-m", "boompkg"]):
        python, launched = both(*command)
        assert launched.returncode == python.returncode == 1
        frames = launched.stderr.splitlines()
        assert frames[0] == "Traceback (most recent call last):"
        assert "boom" in frames[1], launched.stderr  # the script's, first
        assert "unitensor" not in launched.stderr  # no launcher frames
        assert frames[-1] == "KeyError: 'boom'"
    python, launched = both("interrupted.py")  # printed, then killed by SIGINT
    assert launched.returncode == python.returncode == -signal.SIGINT
    assert launched.stderr == python.stderr


def test_main_job_prints_a_table_where_there_is_a_gpu(monkeypatch, capsys):
    """The GPU branch of python -m unitensor, on records as a GPU gives them."""
    from unitensor import __main__ as main_job
    gpu = ut.Device("cuda", 0)
    records = {"torch": _memory.counted("torch", gpu, {
        "in_use": 2**20, "reserved": 3 * 2**20, "peak": 2**21, "limit": 2**30,
        "allocator": "native"}, {})}
    monkeypatch.setattr(memory, "stats", lambda device=None: records)
    monkeypatch.setattr(memory, "flush", lambda frameworks=None: {
        "torch": memory.Flushed(2 * 2**20, "torch.cuda.empty_cache()")})
    before = {"torch": _memory.counted("torch", gpu, {
        "in_use": 0, "reserved": 2**19, "peak": 0, "limit": 2**30,
        "allocator": "native"}, {})}
    main_job.memory_report(before)
    out = capsys.readouterr().out
    row = ("torch   cuda:0              0.5        1.0        3.0        2.0    1,024.0"
           "        2.0")
    assert row in out
    assert "torch: torch.cuda.empty_cache()" in out
    main_job.memory_report({})  # a framework not loaded before the demo: '-'
    assert "torch   cuda:0                -        1.0" in capsys.readouterr().out
    monkeypatch.setattr(memory, "stats", lambda device=None: {})
    main_job.memory_report({})
    assert capsys.readouterr().out.strip().startswith("Memory: no GPU here")


# -- slow: fresh interpreters ----------------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not {"jax", "tensorflow", "torch"} <= set(FRAMEWORKS),
                    reason="needs jax, tensorflow and torch")
def test_settings_reach_each_framework_before_it_starts():
    """configure() before the imports: JAX's own reader of its variables
    (jaxlib.xla_client.generate_pjrt_gpu_plugin_options, which its GPU plugin
    calls when the backends start) sees them; TensorFlow's configuration carries
    the fraction, set right after its import; torch's variable is set; and each
    framework then starts and runs."""
    out = ok(run("""
        import os, sys, unitensor as ut
        done = ut.memory.configure(
            preallocate=False, fraction={'jax': 0.3, 'tensorflow': 0.2, 'torch': 0.4},
            allocator={'jax': 'platform', 'tensorflow': 'cuda_malloc_async'})
        assert 'fraction: applied when tensorflow is imported' in done['tensorflow']
        import jax, jax.numpy as jnp
        from jaxlib import xla_client
        options = xla_client.generate_pjrt_gpu_plugin_options()
        assert options['preallocate'] is False, options
        assert options['memory_fraction'] == 0.3, options
        assert options['allocator'] == 'platform', options
        assert float(jnp.ones(3).sum()) == 3.0
        import tensorflow as tf
        from tensorflow.python.eager import context
        config = context.context().config
        assert abs(config.gpu_options.per_process_gpu_memory_fraction - 0.2) < 1e-6
        assert os.environ['TF_FORCE_GPU_ALLOW_GROWTH'] == 'true'
        assert os.environ['TF_GPU_ALLOCATOR'] == 'cuda_malloc_async'
        assert float(tf.reduce_sum(tf.ones(3))) == 3.0
        import torch
        assert 'per_process_memory_fraction:0.4' in os.environ[
            'PYTORCH_CUDA_ALLOC_CONF']
        assert float(torch.ones(3).sum()) == 3.0
        print(sorted(ut.memory.stats()))
    """))
    assert out.strip() == "['jax', 'tensorflow', 'torch']"


@pytest.mark.slow
@pytest.mark.skipif(not {"jax", "tensorflow"} <= set(FRAMEWORKS),
                    reason="needs jax and tensorflow")
def test_imported_is_not_started_and_started_is_too_late():
    """After import (not started), settings still apply, TensorFlow's through its
    API; after the first array, they are refused, naming framework and setting,
    or warned about with best_effort."""
    out = ok(run("""
        import os, warnings, unitensor as ut
        import jax, jax.numpy as jnp, tensorflow as tf
        from tensorflow.python.eager import context
        ut.memory.configure(preallocate=False, fraction={'jax': 0.5,
                                                         'tensorflow': 0.25})
        assert os.environ['XLA_PYTHON_CLIENT_PREALLOCATE'] == 'false'
        config = context.context().config.gpu_options
        assert abs(config.per_process_gpu_memory_fraction - 0.25) < 1e-6
        jnp.ones(2).block_until_ready(); tf.ones(2)
        gpus = (jax.devices()[0].platform != 'cpu'
                or tf.config.list_logical_devices('GPU'))
        for name, setting in (('jax', 'XLA_CLIENT_MEM_FRACTION'),
                              ('tensorflow', 'per_process_gpu_memory_fraction')):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter('always')
                try:  # refused where a GPU is seen; else said: it cannot matter
                    ut.memory.configure(fraction={name: 0.1})
                except ut.memory.TooLateError as exc:
                    assert gpus, exc
                    text = str(exc)
                else:
                    assert not gpus and len(caught) == 1, caught
                    assert caught[0].category is ut.memory.TooLateWarning
                    text = str(caught[0].message)
                    assert 'it cannot matter' in text, text
            assert text.startswith(f"configure(): fraction['{name}']: "), text
            assert setting in text and 'too late' in text, text
        assert os.environ.get('XLA_CLIENT_MEM_FRACTION') == '0.5'
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            done = ut.memory.configure(preallocate=True, best_effort=True)
        assert sorted(str(w.message).split(' too late: ')[1].split(' ')[0]
                      for w in caught) == ['jax', 'tensorflow'], caught
        assert all(w.category is ut.memory.TooLateWarning for w in caught)
        assert 'jax' not in done and 'torch' in done
        assert os.environ['XLA_PYTHON_CLIENT_PREALLOCATE'] == 'false'
        print('ok')
    """))
    assert out.strip() == "ok"


@pytest.mark.slow
@pytest.mark.skipif("tensorflow" not in FRAMEWORKS, reason="tensorflow not installed")
def test_tensorflow_limit_is_set_after_its_import_and_said_where_no_gpu():
    """A limit before ``import tensorflow`` is its logical device configuration,
    set right after the import (what the action did is kept: it ran after
    configure() returned); after the import it is set at once. On a GPU, each
    GPU's memory_limit in whole MiB; without one, the words say why nothing."""
    out = ok(run("""
        import unitensor as ut
        from unitensor._backends import _memory
        done = ut.memory.configure(limit={'tensorflow': 3 * 2**20 + 5})
        assert done == {'tensorflow': ('limit: applied when tensorflow is imported',)}
        import tensorflow as tf
        assert _memory.pending() == {}
        said = _memory.applied()['tensorflow']['limit']
        again = ut.memory.configure(limit={'tensorflow': 2**30})['tensorflow']
        gpus = tf.config.list_physical_devices('GPU')
        if gpus:
            assert said.startswith('tf.config.set_logical_device_configuration('
                                   'memory_limit=1024 MiB)'), said
            [config] = tf.config.get_logical_device_configuration(gpus[0])
            assert config.memory_limit == 1024, config
        else:
            assert said == ('no GPU visible to tensorflow: no memory limit to set '
                            '(memory_limit=3 MiB not set)'), said
            assert again == ('no GPU visible to tensorflow: no memory limit to '
                             'set (memory_limit=1024 MiB not set)',), again
        assert float(tf.reduce_sum(tf.ones(3))) == 3.0
        print('ok')
    """, "-W", "error"))
    assert out.strip() == "ok"


@pytest.mark.slow
@pytest.mark.skipif("jax" not in FRAMEWORKS, reason="jax is not installed")
def test_the_launcher_configures_then_runs_the_script(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import sys
        import jax, jax.numpy as jnp
        from jaxlib import xla_client
        jnp.ones(2).block_until_ready()
        options = xla_client.generate_pjrt_gpu_plugin_options()
        print(options['preallocate'], options.get('memory_fraction'), sys.argv[1:],
              __name__, sys.path[0] == sys.argv[0].rpartition('/')[0])
    """))
    env = {k: v for k, v in ENV.items() if k not in VARIABLES}
    out = subprocess.run([sys.executable, "-W", "error", "-m", "unitensor.memory",
                          "--no-preallocate", "--fraction", "torch=0.4,jax=0.3",
                          str(script), "a", "--fraction", "b"],
                         capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=300)
    assert ok(out).strip() == "False 0.3 ['a', '--fraction', 'b'] __main__ True"
    module = subprocess.run([sys.executable, "-m", "unitensor.memory", "--growth",
                             "-m", "script", "x"], capture_output=True, text=True,
                            env={**env, "PYTHONPATH": f"{tmp_path}:{ROOT}"},
                            cwd=ROOT, timeout=300)
    assert ok(module).strip() == "False None ['x'] __main__ False"


# -- CUDA: written, not yet run (the GPU issue collects the verification) ----------
@needs_gpu
def test_flush_returns_torch_cuda_cache_to_the_driver():
    import torch
    x = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")
    del x
    assert memory.stats("cuda:0")["torch"].reserved >= 64 * 2**20
    released = memory.flush("torch")["torch"].released
    assert released >= 64 * 2**20
    assert memory.stats("cuda:0")["torch"].reserved < 64 * 2**20


@needs_gpu
def test_torch_fraction_after_cuda_started_uses_the_api():
    import torch
    torch.zeros(1, device="cuda")
    old = torch.cuda.get_per_process_memory_fraction(0)
    try:
        memory.configure(fraction={"torch": 0.5})
        assert torch.cuda.get_per_process_memory_fraction(0) == 0.5
        assert memory.stats("cuda:0")["torch"].limit == int(
            torch.cuda.get_device_properties(0).total_memory * 0.5)
    finally:
        torch.cuda.set_per_process_memory_fraction(old, 0)


@needs_gpu
def test_torch_limit_after_cuda_started_is_its_share_of_each_device():
    import torch
    torch.zeros(1, device="cuda")
    old = torch.cuda.get_per_process_memory_fraction(0)
    total = torch.cuda.get_device_properties(0).total_memory
    try:
        memory.configure(limit={"torch": 2**30})
        assert torch.cuda.get_per_process_memory_fraction(0) == pytest.approx(
            2**30 / total)
        assert _memory.gpu_totals()[0]  # NVML reads the GPU's size too
    finally:
        torch.cuda.set_per_process_memory_fraction(old, 0)
