"""Benchmarks of vcgmm against its peers (scripts, not tests).

Run them from the repository root as modules, e.g.::

    python -m bench.lloyd_iteration

See bench/README.md for what each benchmark measures.
"""
