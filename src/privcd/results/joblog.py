"""Logging of one workflow job into its Snakemake log file."""
import logging
import sys


def log_to(path):
    """Send the job's log lines (``logging`` at INFO, timestamped) and its stderr (warnings and the
    traceback of a failure) to ``path``, the rule's ``log:`` file."""
    stream = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115  (lives as long as the job)
    sys.stderr = stream
    logging.basicConfig(stream=stream, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
