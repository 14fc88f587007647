"""Each public entry point as the *first* unitensor call of a fresh interpreter.

Inside one test process every module has long been imported by earlier tests, so a
path that works only once something else imported a module (an attribute of a
package that its submodule sets on first import) passes there and fails for a
user. Here each snippet runs in its own interpreter, right after the imports of
the frameworks it hands to unitensor.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from owners import FRAMEWORKS

pytestmark = pytest.mark.slow  # a fresh interpreter per entry point

PRODUCER = """
class Producer:  # any foreign DLPack producer (Warp, a user's class, ...)
    def __init__(self, a): self.a = a
    def __dlpack__(self, **kw): return self.a.__dlpack__(**kw)
    def __dlpack_device__(self): return self.a.__dlpack_device__()
"""

# name -> (frameworks it needs, code whose last line prints 'ok' when it worked).
SNIPPETS: dict[str, tuple[tuple[str, ...], str]] = {
    "asarray(numpy)": ((), "t = ut.asarray(np.arange(3.0)); assert t.owner == 'numpy'"),
    "asarray(list)": ((), "assert ut.asarray([[1, 2], [3, 4]]).shape == (2, 2)"),
    "asarray(scalar)": ((), "assert float(ut.asarray(2.5)) == 2.5"),
    "asarray(producer)": ((), PRODUCER + "t = ut.asarray(Producer(np.arange(3.0)))\n"
                          "assert t.owner == 'numpy' and float(t[2]) == 2.0"),
    "asarray(capsule)": ((), "t = ut.asarray(np.arange(3.0).__dlpack__())\n"
                         "assert t.shape == (3,)"),
    "asarray(array interface)": ((), """
class I:
    def __init__(self, a): self.a = a; self.__array_interface__ = a.__array_interface__
t = ut.asarray(I(np.arange(4.0)))
assert t.shape == (4,)"""),
    "asarray(buffer protocol)": ((), "t = ut.asarray(bytearray(b'abc'))\n"
                                 "assert t.shape == (3,) and t.dtype == ut.uint8"),
    "from_dlpack(capsule)": ((), "t = ut.from_dlpack(np.arange(3.0).__dlpack__())\n"
                             "assert float(t[1]) == 1.0"),
    "from_dlpack(producer)": ((), PRODUCER + "t = ut.from_dlpack(Producer(np.ones(2)))"
                              "\nassert t.shape == (2,)"),
    "creation": ((), "assert ut.zeros((2, 3)).shape == (2, 3)\n"
                 "assert ut.arange(4).owner == 'numpy'"),
    "owner()": (("torch",), "with ut.owner('torch'):\n"
                "    z = ut.ones(3)\nassert z.owner == 'torch'"),
    "linalg": ((), "assert abs(float(ut.linalg.det(ut.eye(3))) - 1) < 1e-12"),
    "fft": ((), "assert ut.fft.fft(ut.ones(4)).shape == (4,)"),
    "inspection": ((), "info = ut.__array_namespace_info__()\n"
                   "assert 'float64' in info.dtypes()"),
    "mixed owners": (("torch",), "import torch\n"
                     "r = ut.add(ut.asarray(torch.ones(2)), ut.asarray(np.ones(2)))\n"
                     "assert r.owner == 'torch'"),
    "np.from_dlpack(Tensor)": ((), "a = np.from_dlpack(ut.asarray(np.arange(3.0)))\n"
                               "assert a[2] == 2.0"),
    "torch.from_dlpack(Tensor)": (("torch",), "import torch\n"
                                  "x = torch.from_dlpack(ut.asarray(np.arange(3.0)))\n"
                                  "assert x[2].item() == 2.0"),
    ".numpy()": (("torch",), "import torch\n"
                 "assert ut.asarray(torch.arange(3.0)).numpy()[2] == 2.0"),
    ".torch()": (("torch",), "assert ut.asarray(np.arange(3.0)).torch()[2] == 2"),
    ".jax()": (("jax",), "assert float(ut.asarray(np.arange(3.0, dtype=np.float32))"
               ".jax()[2]) == 2.0"),
    ".tf()": (("tensorflow",), "assert float(ut.asarray(np.arange(3.0)).tf()[2]) == 2"),
    "memory": (("jax",), "import jax.numpy as jnp\nx = jnp.ones(1000)\n"
               "assert ut.memory.stats('cpu')['jax'].in_use >= 4000\n"
               "assert ut.memory.flush('jax')['jax'].released == 0"),
}


def _run(code: str) -> subprocess.CompletedProcess[str]:
    script = ("import warnings, numpy as np, unitensor as ut\n"
              "warnings.simplefilter('ignore', ut.CopyWarning)\n"
              f"{code}\nprint('ok')\n")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, env=env, check=False, timeout=300)


def test_every_entry_point_works_as_the_first_call():
    runnable = {name: code for name, (needs, code) in SNIPPETS.items()
                if all(f in FRAMEWORKS for f in needs)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(runnable, pool.map(_run, runnable.values()), strict=True))
    failed = {name: out.stderr.strip().splitlines()[-1:]
              for name, out in results.items()
              if out.returncode != 0 or out.stdout.strip() != "ok"}
    assert not failed


@pytest.mark.parametrize("name", ["from_dlpack(producer)", "asarray(producer)"])
def test_foreign_producer_first(name):
    """The defect this file was written for, on its own (fails fast if it returns)."""
    out = _run(SNIPPETS[name][1])
    assert out.returncode == 0, out.stderr[-1500:]
