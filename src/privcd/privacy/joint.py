"""Calibrating one of several runs released together: one-vs-rest models under one budget.

A one-vs-rest model trains ``runs`` binary models on the same records and releases them all, so its
privacy is that of the ``runs``-fold composition of one run. Every mechanism family of
:mod:`privcd.privacy.mechanisms` is ``steps`` releases of one kind, independently composed (each
step draws its own noise and, sampled, its own batch), so the composition of ``runs`` runs of
``steps`` releases is the family with ``runs * steps`` releases, exactly: calibrating that family
to (epsilon, delta) and running each model with its noise multiplier makes the whole release
(epsilon, delta)-DP with the same tight accountant as one run, where basic composition would give
each model (epsilon / runs, delta / runs) (Dwork and Roth 2014, Theorem 3.16) and far more noise.

:class:`JointRelease` does this through the calibration path every store-calibrated algorithm
already has: ``privcd.fit(..., calibrations=JointRelease(runs))`` -> the plan ->
``calibrate(..., store=release)``.
"""
import dataclasses

import numpy as np

from privcd.validation import check_positive_int


class JointRelease:
    """Calibrations of one of ``runs`` identical runs whose outputs are released together.

    ``calibrate`` answers a request for a family of ``steps`` releases with the calibration of the
    family of ``runs * steps`` releases (the same target and accountant), so the returned
    ``epsilon`` is the achieved epsilon of all the runs together. ``consulted`` counts the
    requests: a run that calibrates elsewhere (DP-GCD's composition, DP-CD-P's smoothness share)
    is not covered, and its caller must check that ``consulted`` moved.
    """

    def __init__(self, runs):
        self.runs = int(check_positive_int("runs", runs))
        self.consulted = 0
        self._smoothness = None

    def shared_smoothness(self, mechanism, draw):
        """DP-CD-P's private constants, released once for all the runs: ``draw()`` at the first
        request, the same array after.

        The constants ``(1/n) sum_i min(c x_ij^2, b_j)`` do not depend on the labels, so the
        one-vs-rest models, trained on the same records, need one release of them (epsilon', once)
        and not one per model. A request whose mechanism (released value, scales or epsilon')
        differs from the first's is another statistic and a ``ValueError``.
        """
        if self._smoothness is None:
            self._smoothness = (mechanism, draw())
            return self._smoothness[1]
        first, constants = self._smoothness
        if (mechanism.epsilon != first.epsilon or not np.array_equal(mechanism.clipped_mean, first.clipped_mean)
                or not np.array_equal(mechanism.scale, first.scale)):
            raise ValueError("runs of one JointRelease estimate different smoothness constants (other records, "
                             "bounds or epsilon'): one release of the constants cannot serve them all")
        return constants

    def calibrate(self, mechanism, epsilon, delta, accountant, *, compute):
        """``compute`` for ``mechanism`` with ``runs`` times its steps (see the class)."""
        self.consulted += 1
        return compute(dataclasses.replace(mechanism, steps=mechanism.steps * self.runs), epsilon, delta, accountant)
