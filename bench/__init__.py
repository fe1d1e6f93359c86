"""Benchmarks, run by hand from the checkout's root: `.venv/bin/python -m bench.NAME`."""
