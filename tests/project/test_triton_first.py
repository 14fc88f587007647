"""TensorFlow and torch in one process, in both orders of import, in fresh interpreters.

Where triton is installed (PyPI's torch wheels bring it), importing it after
TensorFlow aborts the process at the first import of torch._dynamo
(unitensor/_backends/_triton.py says why). When unitensor is the one importing
TensorFlow it imports triton first; when the user imported TensorFlow first,
unitensor's own calls never import torch._dynamo. Each case runs in its own
interpreter: inside the test process both are long imported (tests/conftest.py
imports triton first, as docs/interop.md tells users).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.slow,  # a fresh interpreter per case
              pytest.mark.skipif(
                  any(importlib.util.find_spec(m) is None
                      for m in ("torch", "tensorflow")),
                  reason="needs torch and tensorflow")]

TRITON = importlib.util.find_spec("triton") is not None

# After the snippet: the order of the first imports, and torch.compile at work
# (it imports torch._dynamo, and triton with it where it is installed).
COMPILE_AFTER = """
order = list(sys.modules)
assert "tensorflow" in order
if TRITON:
    assert order.index("triton") < order.index("tensorflow"), "triton after TF"
compiled = torch.compile(lambda v: v * 2.0, backend="eager")
assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
"""

# unitensor imports TensorFlow: the user imported torch (and unitensor) only.
UNITENSOR_IMPORTS_TF = {
    "asarray(...).to('tensorflow')": """
t = ut.asarray(np.arange(3.0)).to("tensorflow")
assert t.owner == "tensorflow"
""",
    "wrap(source='torch', target='tensorflow')": """
f = ut.wrap("torch", "tensorflow")(lambda v: v * 3.0)
x = torch.ones(2, requires_grad=True)
f(x).sum().backward()
assert torch.equal(x.grad, torch.full((2,), 3.0))
""",
}

# The user imported TensorFlow first, then torch: unitensor's bridges from
# TensorFlow to a torch body (its output shapes under tf.function, its gradient
# and its tangents) import no torch._dynamo. The body holds parameters of its
# own (meta tensors refuse them, fake tensors would import torch._dynamo).
USER_IMPORTED_TF = """
lin = torch.nn.Linear(3, 2).double()
f = ut.wrap("tensorflow", "torch")(lambda v: torch.tanh(lin(v)))
x = tf.ones((4, 3), tf.float64)

@tf.function
def loss(v):
    return tf.reduce_sum(f(v))

with tf.GradientTape() as tape:
    tape.watch(x)
    y = loss(x)
grad = tape.gradient(y, x).numpy()
with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
    z = f(x)
tangent = acc.jvp(z).numpy()

# references in numpy: torch's own forward mode of a Linear imports torch._dynamo
# (torch/_compile.py wraps its decompositions), which would abort here
w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
slope = 1.0 - np.tanh(np.ones((4, 3)) @ w.T + b) ** 2
np.testing.assert_allclose(grad, slope @ w)
np.testing.assert_allclose(tangent, slope * (np.ones((4, 3)) @ w.T))

# a body no shape pass can run (it reads values), its shapes given: no pass
h = ut.wrap("tensorflow", "torch", output_shapes=tf.TensorSpec((4, 3), tf.float64))(
    lambda v: v * v.sum().item())
np.testing.assert_allclose(tf.function(h)(x).numpy(), np.full((4, 3), 12.0))
if TRITON:
    assert "torch._dynamo" not in sys.modules, "unitensor imported torch._dynamo"
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=600, env=env)


def check(result: subprocess.CompletedProcess[str]) -> None:
    # an abort is -6 (SIGABRT) with "LLVM ERROR" on stderr; a segfault -11
    report = (result.returncode, result.stdout[-2000:], result.stderr[-4000:])
    assert result.returncode == 0, report
    assert result.stdout.strip().endswith("ok"), report


@pytest.mark.skipif(not TRITON, reason="no triton here (torch's CPU wheel): no order "
                    "to keep; .ci/run's newest-stack leg, with PyPI's torch, runs it")
@pytest.mark.parametrize("name", list(UNITENSOR_IMPORTS_TF))
def test_unitensor_importing_tensorflow_imports_triton_first(name):
    code = (f"import sys\nimport numpy as np\nimport torch\nimport unitensor as ut\n"
            f"TRITON = {TRITON}\n{UNITENSOR_IMPORTS_TF[name]}{COMPILE_AFTER}"
            "print('ok')\n")
    check(run(code))


def test_tensorflow_imported_first_then_bridges_to_torch():
    code = (f"import sys\nimport numpy as np\nimport tensorflow as tf\nimport torch\n"
            f"import unitensor as ut\nTRITON = {TRITON}\n{USER_IMPORTED_TF}"
            "print('ok')\n")
    check(run(code))
