"""Build the C extension; everything else lives in pyproject.toml."""

import os

import numpy
from setuptools import Extension, setup

# Development builds (UNITENSOR_DEV=1) turn every warning into an error;
# UNITENSOR_SANITIZE=1 adds AddressSanitizer and UBSan (see docs/reliability.md).
# CPython callbacks take arguments they do not all use: -Wno-unused-parameter.
extra_compile_args = ["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                      "-fvisibility=hidden"]
extra_link_args: list[str] = []
if os.environ.get("UNITENSOR_DEV"):
    extra_compile_args.append("-Werror")
if os.environ.get("UNITENSOR_SANITIZE"):
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             "-fno-omit-frame-pointer", "-O1", "-g"]
    extra_compile_args += flags
    extra_link_args += flags

setup(
    ext_modules=[
        Extension(
            "unitensor._core",
            sources=["ext/_core.c"],
            depends=["ext/dlpack.h", "ext/spare.h"],
            # numpy's C API (ext/_core.c imports it on first use, never at import)
            include_dirs=["ext", numpy.get_include()],
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
        ),
        Extension(
            # the XLA FFI handler of jax.jit calls (unitensor/_wrap/jax.py); its
            # ABI is declared in ext/xla_ffi.h: no jax at build time
            "unitensor._xla",
            sources=["ext/_xla.c"],
            depends=["ext/dlpack.h", "ext/xla_ffi.h"],
            include_dirs=["ext"],
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
        ),
        Extension(
            "unitensor._fast",
            sources=["ext/_fast.c"],
            depends=["ext/spare.h"],
            include_dirs=["ext"],
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
        ),
    ]
)
