"""Stream-ordered exchange on CUDA (#16 item 4), without blanket synchronisation.

Each run: a producer queues a sleep and then a write on a side stream (non-blocking,
so CUDA's legacy default stream does not order it), hands the memory over through
unitensor while that stream is its current one, and the consumer reads at once on
a stream of its own. Only the event unitensor records makes the read wait for the
write: without it, the sleep leaves the read seeing the previous values. The first
run makes the consumer's view, the later ones get it from the cache.

Written for the GPU machine (the GPU issue collects the verification); skipped
elsewhere, with the reason.
"""

from __future__ import annotations

import importlib.util

import pytest
from owners import has_cuda

import unitensor as ut
from unitensor._convert import buffer_of

RUNS = 1000
SLEEP = 1_000_000  # GPU cycles before each write: ~0.5 ms, far longer than a hand-over
N = 1 << 12  # float32 sums stay exact: at most RUNS * N < 2**24


def _torch_cuda() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return torch.cuda.is_available()


def _jax_gpu() -> bool:
    if importlib.util.find_spec("jax") is None or not _torch_cuda():
        return False
    import jax
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


needs_torch_cuda = pytest.mark.skipif(not _torch_cuda(), reason="needs a CUDA GPU "
                                      "and a CUDA build of torch")
needs_cupy = pytest.mark.skipif(not (has_cuda() and _torch_cuda()),
                                reason="needs cupy, a CUDA torch and a CUDA GPU")
needs_jax_gpu = pytest.mark.skipif(not _jax_gpu(), reason="needs jax with its CUDA "
                                   "plugin, a CUDA torch and a CUDA GPU")


@pytest.fixture
def torch():
    import torch
    return torch


def _write_late(torch, x, value):
    """Queue a sleep then ``x.fill_(value)`` on torch's current stream."""
    torch.cuda._sleep(SLEEP)
    x.fill_(value)


def _wrong_runs(torch, run_once):
    """The runs (1 to RUNS) whose read did not see that run's write:
    ``run_once(run)`` writes ``run`` late, hands over and returns the sum read.
    """
    wrong = [run for run in range(1, RUNS + 1) if run_once(run) != run * N]
    torch.cuda.synchronize()
    return wrong


@needs_cupy
def test_torch_producer_cupy_consumer(torch):
    import cupy
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side, reader = torch.cuda.Stream(), cupy.cuda.Stream(non_blocking=True)

    def run_once(run):
        with torch.cuda.stream(side), reader:
            _write_late(torch, x, run)
            return int(t.cupy().sum())  # cupy's current stream (reader) waits
    assert _wrong_runs(torch, run_once) == []


@needs_cupy
def test_torch_default_stream_producer_cupy_consumer(torch):
    # torch's default stream is CUDA's legacy one (DLPack's 1): ordered through
    # torch.cuda.default_stream(), not ExternalStream(1), which c10 refuses
    import cupy
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    reader = cupy.cuda.Stream(non_blocking=True)  # not ordered by the legacy stream

    def run_once(run):
        with reader:
            _write_late(torch, x, run)  # on torch's default stream
            return int(t.cupy().sum())
    assert _wrong_runs(torch, run_once) == []


@needs_cupy
def test_torch_side_stream_producer_cupy_null_stream_consumer(torch):
    import cupy
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side = torch.cuda.Stream()

    def run_once(run):
        with torch.cuda.stream(side), cupy.cuda.Stream.null:
            _write_late(torch, x, run)
            return int(t.cupy().sum())  # cupy passes 1, the legacy default stream
    assert _wrong_runs(torch, run_once) == []


@needs_torch_cuda
def test_dlpack_without_a_stream_orders_the_legacy_default_stream(torch):
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side = torch.cuda.Stream()

    def run_once(run):
        with torch.cuda.stream(side):
            _write_late(torch, x, run)
            capsule = t.__dlpack__(max_version=(1, 0))  # None: the legacy stream
        return int(torch.from_dlpack(capsule).sum())  # on torch's default stream
    assert _wrong_runs(torch, run_once) == []


@needs_cupy
def test_cupy_producer_torch_consumer(torch):
    import cupy
    x = cupy.zeros(N, dtype=cupy.float32)
    t = ut.asarray(x)
    side = cupy.cuda.Stream(non_blocking=True)
    reader = torch.cuda.Stream()

    def run_once(run):
        with side, torch.cuda.stream(reader):
            with torch.cuda.stream(torch.cuda.ExternalStream(side.ptr)):
                torch.cuda._sleep(SLEEP)  # torch's sleep kernel, on cupy's stream
            x.fill(run)
            return int(t.torch().sum())  # torch's current stream (reader) waits
    assert _wrong_runs(torch, run_once) == []


@needs_jax_gpu
def test_torch_producer_jax_consumer(torch):
    import jax.numpy as jnp
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side = torch.cuda.Stream()

    def run_once(run):
        with torch.cuda.stream(side):
            _write_late(torch, x, run)
            view = t.jax()  # imported anew each time: JAX's import waits for side
            return int(jnp.sum(view))
    assert _wrong_runs(torch, run_once) == []


@needs_torch_cuda
def test_dlpack_stream_argument_orders_a_torch_consumer_on_another_stream(torch):
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side, reader = torch.cuda.Stream(), torch.cuda.Stream()

    def run_once(run):
        with torch.cuda.stream(side):
            _write_late(torch, x, run)
            capsule = t.__dlpack__(stream=reader.cuda_stream, max_version=(1, 0))
        y = torch.from_dlpack(capsule)
        with torch.cuda.stream(reader):
            return int(y.sum())
    assert _wrong_runs(torch, run_once) == []


@needs_torch_cuda
def test_to_device_stream_waits_for_the_producer(torch):
    x = torch.zeros(N, device="cuda")
    t = ut.asarray(x)
    side, reader = torch.cuda.Stream(), torch.cuda.Stream()

    def run_once(run):
        with torch.cuda.stream(side):
            _write_late(torch, x, run)
            same = t.to_device(t.device, stream=reader)  # there already: no copy
        with torch.cuda.stream(reader):
            return int(same.torch().sum())
    assert _wrong_runs(torch, run_once) == []


@needs_torch_cuda
def test_exported_cuda_array_interface_names_the_producers_stream(torch):
    x = torch.zeros(4, device="cuda")
    t = ut.asarray(x)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        assert buffer_of(t).__cuda_array_interface__["stream"] == side.cuda_stream
    # torch's default stream is CUDA's legacy default stream: 1 in the interface
    assert buffer_of(t).__cuda_array_interface__["stream"] == 1


@needs_cupy
def test_imported_cuda_array_interface_stream_is_waited_for(torch):
    import cupy
    x = torch.zeros(N, device="cuda")
    side = torch.cuda.Stream()

    class Exporter:  # a v3 exporter whose data is ready on `side` only
        def __init__(self):
            self.__cuda_array_interface__ = {
                "shape": (N,), "typestr": "<f4", "data": (x.data_ptr(), False),
                "version": 3, "strides": None, "stream": side.cuda_stream}

    reader = cupy.cuda.Stream(non_blocking=True)

    def run_once(run):
        with torch.cuda.stream(side):
            _write_late(torch, x, run)
        with reader:
            t = ut.asarray(Exporter())  # cupy's current stream (reader) follows side
            return int(t.cupy().sum())
    assert _wrong_runs(torch, run_once) == []


@needs_cupy
def test_a_tensors_buffer_given_back_keeps_its_producer(torch):
    t = ut.asarray(torch.zeros(4, device="cuda"))
    buf = buffer_of(t)
    producer = buf.producer
    assert ut.asarray(buf).owner == "cupy"
    assert buf.producer is producer  # torch's writes are still the ones waited for
