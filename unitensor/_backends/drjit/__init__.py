"""Dr.Jit: a tracing JIT's arrays (LLVM on the CPU, CUDA), no Array API namespace."""

NAME = "drjit"
MODULES = ("drjit",)  # top-level modules whose types belong to it (drjit.llvm.ad, ...)
INSTALL = "drjit"  # what to install for it
