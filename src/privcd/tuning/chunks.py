"""Splitting a grid into chunks: each chunk is one pipeline job that runs many configurations.

Configurations are grouped by privacy setting first (stable order), so a chunk usually needs one
or two noise calibrations and a batched kernel sees configurations of equal length. Seeds come
from identity (:mod:`privcd.tuning.seeds`), so the chunk size changes no number.
"""
import math

from privcd.identity import configuration_id
from privcd.validation import check_positive_int

# By privcd's convention (noise multiplier = noise std / L2 sensitivity of each release) these
# hyperparameters scale the releases and their sensitivity, never the noise multiplier.
NOISE_FREE_PARAMETERS = ("step", "clip")


def privacy_setting(configuration):
    """The part of ``configuration`` that determines the noise multiplier: all but step and clip."""
    return {key: value for key, value in configuration.items() if key not in NOISE_FREE_PARAMETERS}


def privacy_setting_id(configuration):
    """:func:`~privcd.identity.configuration_id` of :func:`privacy_setting`."""
    return configuration_id(privacy_setting(configuration))


def group_by_privacy(configurations):
    """``configurations`` reordered so equal privacy settings are adjacent (stable, first-seen order)."""
    order = {}
    for configuration in configurations:
        order.setdefault(privacy_setting_id(configuration), len(order))
    return sorted(configurations, key=lambda configuration: order[privacy_setting_id(configuration)])


def chunk_count(n_configurations, chunk_size):
    """``ceil(n / chunk_size)`` (at least 1)."""
    chunk_size = check_positive_int("chunk_size", chunk_size)
    return max(1, math.ceil(n_configurations / chunk_size))


def chunk(configurations, index, chunk_size):
    """Chunk ``index`` (0-based) of :func:`group_by_privacy` ``(configurations)``."""
    count = chunk_count(len(configurations), chunk_size)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
        raise ValueError(f"chunk index={index!r} is outside [0, {count}) for {len(configurations)} "
                         f"configurations in chunks of {chunk_size}")
    ordered = group_by_privacy(configurations)
    return ordered[index * chunk_size:(index + 1) * chunk_size]
