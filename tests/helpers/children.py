"""Functions a ``multiprocessing`` child runs (importable by a spawned one: a
spawned child imports its target by module name, so it cannot be a test's own).
"""

from __future__ import annotations

from typing import Any


def read_and_write(inbox: Any, outbox: Any) -> None:
    """For each Tensor from ``inbox`` until None: report its owner and values,
    then write 1.0 at [0] (the parent sees it only where the memory is shared).
    """
    while (t := inbox.get(timeout=120)) is not None:
        outbox.put((t.owner, t.numpy().tolist()))
        t.native[0] = 1.0
        outbox.put("written")
