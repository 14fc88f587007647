"""PyTorch: CPU and CUDA tensors."""

NAME = "torch"
MODULES = ("torch",)  # top-level modules whose types belong to torch
INSTALL = "torch"  # what to install for it
NEGATIVE_STRIDES = False  # flip and x[::-1] copy: views of their base (_views.py)
SCALAR_VIEWS = True  # x[0] of a vector is a 0-d view: copied, as numpy's scalar
