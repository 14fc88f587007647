"""unitensor's own Array API conformance suite: differential against array-api-strict.

Run it with ``python -m conformance`` (see ``__main__.py`` and docs/conformance.md).
"""
