"""Running actions right after a module's own import, without importing it.

``ut.memory`` applies settings that only an API call can make once a framework is
imported; ``unitensor._compile`` shows ``torch.compile``'s tracer unitensor's C
paths once the tracer is imported. Both wait the same way: a finder that finds nothing
itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any


class AfterImport:
    """A ``sys.meta_path`` finder that finds nothing itself: for a module with
    pending actions it asks the other finders for the spec and makes its loader
    run the actions once the module has executed (then it leaves ``sys.meta_path``
    when nothing waits any more).

    The actions wait for the execution, not for the look-up:
    ``importlib.util.find_spec('tensorflow')`` (which asks whether it is
    installed) finds a spec that is never executed, and must not use them up.
    ``failed(module, what, exc)`` hears of an action that raised: the import
    itself must go on.
    """

    def __init__(self, failed: Callable[[str, str, Exception], None]) -> None:
        self.pending: dict[str, dict[str, Callable[[], object]]] = {}
        self._failed = failed

    def add(self, module: str, what: str, action: Callable[[], object]) -> None:
        """Run ``action`` right after ``module`` is first imported (a later
        action for the same ``what`` replaces it).
        """
        self.pending.setdefault(module, {})[what] = action
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def clear(self) -> None:
        """Forget every waiting action."""
        self.pending.clear()
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> Any:
        if fullname not in self.pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then_act(module: ModuleType) -> None:
            try:
                exec_module(module)
            finally:  # the loader's own exec_module again (it serves one module)
                del loader.exec_module
            actions = self.pending.pop(fullname, {})
            if not self.pending and self in sys.meta_path:
                sys.meta_path.remove(self)
            for what, action in actions.items():
                try:
                    action()
                except Exception as exc:  # the import must go on
                    self._failed(fullname, what, exc)

        loader.exec_module = exec_then_act
        return spec
