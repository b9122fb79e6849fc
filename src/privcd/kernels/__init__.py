"""Module-level ``@njit(cache=True)`` kernels: they know nothing of accounting or workflows."""
