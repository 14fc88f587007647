"""dask: lazy, chunked arrays; a call builds a graph, a conversion computes it."""

NAME = "dask"
MODULES = ("dask",)  # top-level modules whose types belong to dask
IMMUTABLE = True  # writes rebind the Tensor to an updated graph
LAZY = True  # conversions compute the graph, once per Tensor (interop.export)
INSTALL = "dask[array]"  # what to install for it
