"""Imported by each module of this package before its ``import tensorflow``: where
TensorFlow is not loaded yet, triton is imported first (the process aborts at
torch.compile's first use otherwise; ``_backends/_triton.py`` says why).
"""

from .._triton import before_tensorflow

before_tensorflow()
