"""Hyperparameter tuning: grids, configuration ids, identity-derived seeds, chunks, the experiment
plan of a workflow config, calibration per privacy setting and ``run_chunk``."""
from privcd.tuning.calibration import calibrate_study
from privcd.tuning.chunks import chunk, chunk_count, group_by_privacy, privacy_setting, privacy_setting_id
from privcd.tuning.experiment import UPSTREAM_PRIORITY, Experiment, ProblemSpec, Study
from privcd.identity import configuration_id
from privcd.tuning.grid import expand
from privcd.tuning.privacy_values import resolve_delta
from privcd.tuning.runner import fit_arguments, run_chunk
from privcd.tuning.seeds import derive_seed, draws_identity

__all__ = ["UPSTREAM_PRIORITY", "Experiment", "ProblemSpec", "Study", "calibrate_study", "chunk", "chunk_count",
           "configuration_id", "derive_seed", "draws_identity", "expand", "fit_arguments", "group_by_privacy",
           "privacy_setting", "privacy_setting_id", "resolve_delta", "run_chunk"]
