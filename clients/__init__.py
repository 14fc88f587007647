"""Real clients' own test suites, run with unitensor as one of their namespaces.

``python -m clients`` runs scikit-learn's array-API tests (from its installed wheel)
and array-api-extra's suite (from its source distribution at the installed version,
fetched into a cache directory, never committed) once on array_api_strict, the
reference, and once per unitensor owner, each in its own processes; ``plugin.py``
adds unitensor to their namespace parametrization without editing their files.
"""
