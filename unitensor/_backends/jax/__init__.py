"""JAX: immutable arrays on CPU or GPU."""

NAME = "jax"
MODULES = ("jax", "jaxlib")  # top-level modules whose types belong to jax
IMMUTABLE = True  # writes rebind the Tensor to an updated array
INSTALL = "jax"  # what to install for it
SCALARS_IN_DEFAULTS = True  # int32 * 0.5 is the default float (weak types, either x64)
