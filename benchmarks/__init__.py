"""privcd benchmarks: ``python -m benchmarks`` (see README)."""
