"""The workflow's ``calibrate`` stage: every distinct privacy setting of a study calibrated once."""
from privcd.algorithms import get_algorithm
from privcd.algorithms.base import Settings
from privcd.privacy.reuse import CalibrationStore
from privcd.tuning.chunks import privacy_setting_id
from privcd.tuning.runner import fit_arguments


def calibrate_study(problem, algorithm, configurations, store=None):
    """Calibrate the noise of one configuration per distinct privacy setting; return the store.

    Each representative is planned by the algorithm's own ``plan`` (exactly what
    :func:`privcd.fit` does before running the kernel) with the store in its settings, so that
    the store records the calibration(s) the plan asks for. Step size and clipping
    threshold do not change the noise multiplier (:data:`privcd.tuning.chunks.NOISE_FREE_PARAMETERS`),
    so configurations differing only in them share one calibration.
    """
    module = get_algorithm(algorithm)
    store = store if store is not None else CalibrationStore()
    representatives = {}
    for configuration in configurations:
        representatives.setdefault(privacy_setting_id(configuration), configuration)
    for configuration in representatives.values():
        arguments = fit_arguments(configuration, problem.n_samples)
        options = {key: value for key, value in arguments.items()
                   if key not in ("epsilon", "delta", "passes", "step", "clip")}
        settings = Settings(epsilon=float(arguments["epsilon"]), delta=arguments.get("delta"),
                            passes=float(arguments["passes"]), step=float(arguments["step"]),
                            clip=float(arguments["clip"]), calibrations=store)
        module.plan(problem, settings, {**module.OPTIONS, **options})
    return store
