"""numba reads a Tensor (#31): ``numba.njit(f)(t)`` sees an ndarray over the
Tensor's memory, zero-copy, whoever owns it; read-only memory is typed read-only,
so numba refuses a write when it compiles (unitensor/_numba.py).

numba's import costs ~0.8 s and each compile ~0.5 s: the module is slow, numba is
imported by its fixture (not when the module is collected), and the functions are
compiled once, for float32 arrays (one writable and one read-only type).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from frameworks import pointer

import unitensor as ut

torch = pytest.importorskip("torch")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.slow  # numba's import and compiles
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def nb():
    """numba, with unitensor's extension registered by hand (an editable checkout
    has no installed entry point), and the functions the tests compile."""
    numba = pytest.importorskip("numba", reason="numba is not installed (the numba "
                                "extra)")
    from unitensor import _numba
    _numba.init()

    @numba.njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):  # a loop over the memory...
            s += a[i]
        return s, a.sum()  # ... and an ndarray method

    @numba.njit
    def bump(a):
        a[0] += 1
        return a

    @numba.njit
    def corner(a):
        return a[0, 0], np.sum(a)

    return SimpleNamespace(numba=numba, total=total, bump=bump, corner=corner,
                           readonly=numba.core.errors.TypingError)


def owners():
    """A float32 array [0, 1, 2, 3] of each owner, and whether it is writable."""
    tf = pytest.importorskip("tensorflow")
    da = pytest.importorskip("dask.array")
    return {"numpy": (np.arange(4, dtype=np.float32), True),
            "torch": (torch.arange(4, dtype=torch.float32), True),
            "jax": (jnp.arange(4, dtype=jnp.float32), False),
            "tensorflow": (tf.range(4, dtype=tf.float32), False),
            # dask: computed once, into read-only memory, as t.numpy() does
            "dask": (da.arange(4, dtype=np.float32, chunks=2), False)}


def test_njit_reads_every_owners_tensor_and_writes_where_it_may(nb):
    for name, (native, writable) in owners().items():
        t = ut.asarray(native)
        assert nb.total(t) == (6.0, 6.0), name
        typ = nb.numba.typeof(t)
        assert (typ.dtype, typ.ndim, typ.layout, typ.mutable) == (
            nb.numba.float32, 1, "C", writable), name
        if writable:  # the write lands in the owner's memory, no copy
            out = nb.bump(t)
            assert float(native[0]) == 1.0, name
            assert pointer(out) == pointer(native), name
            del t, native
            gc.collect()
            assert out[0] == 1.0  # numba's array holds the memory
        else:
            with pytest.raises(nb.readonly, match="readonly"):
                nb.bump(t)


def test_memory_lent_read_only_stays_read_only(nb):
    # a torch-owned Tensor over JAX's memory: torch cannot mark it read-only, numba can
    t = ut.asarray(jnp.arange(4, dtype=jnp.float32)).to("torch")
    assert t.owner == "torch"
    assert t.readonly
    assert not nb.numba.typeof(t).mutable
    with pytest.raises(nb.readonly, match="readonly"):
        nb.bump(t)
    ro = np.arange(4, dtype=np.float32)
    ro.flags.writeable = False
    assert not nb.numba.typeof(ut.asarray(ro)).mutable


def test_strided_and_flipped_views_are_read_in_place(nb):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for t, expected in ((ut.asarray(x)[:, ::2], x[:, ::2]),
                        (ut.asarray(x)[::-1, ::-2], x[::-1, ::-2])):
        assert nb.numba.typeof(t).layout == "A"
        assert nb.corner(t) == (expected[0, 0], expected.sum())
    # a view of an immutable owner is the memory it reads now (after a write)
    base = ut.asarray(jnp.arange(4, dtype=jnp.float32))
    view = base[1:]
    base[1] = 10.0
    assert nb.total(view) == (15.0, 15.0)


def test_refusals_name_the_cause(nb):
    """Before anything compiles: numba types the arguments and globals first."""
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @nb.numba.njit
    def ident(a):
        return a

    bf16 = ut.asarray(np.ones(3, dtype=ml_dtypes.bfloat16))
    with pytest.raises(TypeError, match=r"numba\(\): .*dtype bfloat16"):
        ident(bf16)
    graph = ut.asarray(torch.ones(3, requires_grad=True))
    with pytest.raises(TypeError, match=r"numba\(\): .*autodiff graph"):
        ident(graph)
    assert ident.signatures == []

    @nb.numba.njit
    def of_global():
        return graph.sum()  # a global (here a closure variable): refused too

    with pytest.raises(TypeError, match=r"numba\(\): globals: .*as arguments"):
        of_global()


def test_numba_loads_the_extension_by_its_entry_point(nb, tmp_path):
    """The entry point pyproject.toml declares, installed as a distribution's
    metadata: numba finds it by itself, and ``import unitensor`` imports no numba.
    """
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "project"]["entry-points"]["numba_extensions"]
    assert declared == {"init": "unitensor._numba:init"}
    info = tmp_path / "unitensor_numba_probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: unitensor-numba-probe\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[numba_extensions]\n" + "".join(f"{k} = {v}\n" for k, v in declared.items()))
    code = ("import sys, numpy as np, unitensor as ut\n"
            "assert 'numba' not in sys.modules\n"
            "import numba\n"
            "t = ut.asarray(np.arange(4.0))\n"
            "print(numba.njit(lambda a: a.sum())(t))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "6.0"
