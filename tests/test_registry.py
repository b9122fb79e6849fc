"""Every registered loss and penalty is reachable through the kernels' integer-code dispatch."""
import math

import numpy as np
import pytest

from privcd.kernels import dispatch
from privcd.losses import LOSS_MODULES, LOSSES, get_loss
from privcd.penalties import PENALTY_MODULES, PENALTIES, get_penalty

POINTS = [(-3.0, 1.0), (-0.5, -1.0), (0.0, 1.0), (0.7, -1.0), (4.0, 1.0)]


@pytest.mark.parametrize("module", LOSS_MODULES, ids=lambda m: m.SPEC.name)
def test_loss_dispatch_reaches_module(module):
    for z, y in POINTS:
        assert dispatch.loss_value(module.CODE, z, y) == module.value(z, y)
        assert dispatch.loss_derivative(module.CODE, z, y) == module.derivative(z, y)
        u = -0.3 * y
        assert dispatch.loss_conjugate(module.CODE, u, y) == module.conjugate(u, y)
        second = dispatch.loss_second_derivative(module.CODE, z, y)
        assert second == module.second_derivative(z, y) or (math.isnan(second) and math.isnan(module.second_derivative(z, y)))


@pytest.mark.parametrize("module", LOSS_MODULES, ids=lambda m: m.SPEC.name)
def test_loss_derivative_and_curvature(module):
    """The derivative matches finite differences and the second derivative never exceeds the curvature."""
    h = 1e-6
    for z, y in POINTS:
        numeric = (module.value(z + h, y) - module.value(z - h, y)) / (2 * h)
        assert numeric == pytest.approx(module.derivative(z, y), abs=1e-6)
        second = (module.derivative(z + h, y) - module.derivative(z - h, y)) / (2 * h)
        assert second <= module.SPEC.curvature + 1e-6


@pytest.mark.parametrize("module", LOSS_MODULES, ids=lambda m: m.SPEC.name)
def test_loss_conjugate_is_fenchel(module):
    """l*(u) = sup_z u z - l(z), checked on a grid of z (Fenchel-Young holds with equality at u = l'(z))."""
    for z, y in POINTS:
        u = module.derivative(z, y)
        assert module.conjugate(u, y) == pytest.approx(u * z - module.value(z, y), abs=1e-9)
        grid = np.linspace(-20, 20, 4001)
        assert module.conjugate(u, y) >= max(u * g - module.value(g, y) for g in grid) - 1e-9


@pytest.mark.parametrize("module", PENALTY_MODULES, ids=lambda m: str(m.SPEC.name))
def test_penalty_dispatch_and_prox(module):
    lam, step = 0.3, 0.7
    for x in (-2.0, -0.1, 0.0, 0.15, 3.0):
        assert dispatch.penalty_value(module.CODE, x, lam) == module.value(x, lam)
        prox = dispatch.penalty_prox(module.CODE, x, step, lam)
        assert prox == module.prox(x, step, lam)
        # prox minimises (v - x)^2 / 2 + step psi(v): no grid point does better
        grid = np.linspace(-4, 4, 8001)
        best = min((v - x) ** 2 / 2 + step * module.value(v, lam) for v in grid)
        assert (prox - x) ** 2 / 2 + step * module.value(prox, lam) <= best + 1e-12


def test_codes_are_unique():
    assert len({spec.code for spec in LOSSES.values()}) == len(LOSSES)
    assert len({spec.code for spec in PENALTIES.values()}) == len(PENALTIES)


def test_unknown_code_is_nan():
    unused = max(spec.code for spec in LOSSES.values()) + 1
    assert math.isnan(dispatch.loss_derivative(unused, 0.0, 1.0))


def test_unknown_names_are_named_in_the_error():
    with pytest.raises(ValueError, match="loss='hinge2'.*expected one of"):
        get_loss("hinge2")
    with pytest.raises(ValueError, match="penalty='l3'"):
        get_penalty("l3")


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_every_loss_declares_its_facts_on_its_spec(name):
    """What the estimators, the utility metrics and the tables need of a loss is on its spec."""
    from privcd.results.hyperparameters import LOSS_NAMES
    from privcd.results.utility import HIGHER_IS_BETTER, utility_of
    spec = LOSSES[name]
    assert spec.gradient_bound > 0 and spec.utility in HIGHER_IS_BETTER and spec.display
    assert utility_of(name) == spec.utility and LOSS_NAMES[name] == spec.display
    assert spec.solver in ("newton", "svm-dual-cd", "none")
    assert spec.weighted is None or LOSSES[spec.weighted].weighted is None
    assert isinstance(spec.zero_at_label, bool) and isinstance(spec.unattained_on_separable, bool)


@pytest.mark.parametrize("module", LOSS_MODULES, ids=lambda m: m.SPEC.name)
def test_the_declared_facts_hold(module):
    """The spec's facts are the module's: ``|l'| <= gradient_bound`` at every prediction
    (classification) or residual within 1 (regression), attained; ``|l'(0, y)| <=
    start_gradient_bound`` over the labels, attained; ``l(y, y) = 0`` where declared;
    an infimum approached only at infinite margin where declared."""
    spec = module.SPEC
    classification = spec.utility == "accuracy"
    labels = spec.labels or np.linspace(-1.0, 1.0, 8)  # also weighted labels: a weight and a sign
    slopes, zeros, smallest = [], [], []
    for y in labels:
        predictions = np.linspace(-50.0, 50.0, 1001) if classification else y + np.linspace(-1.0, 1.0, 41)
        slopes.append(max(abs(module.derivative(z, y)) for z in predictions))
        zeros.append(module.value(y, y) == 0.0)
        smallest.append(min(module.value(z, y) for z in np.append(np.linspace(-50.0, 50.0, 1001), y)))
    assert spec.gradient_bound - 1e-3 <= max(slopes) <= spec.gradient_bound
    assert max(abs(module.derivative(0.0, y)) for y in labels) == pytest.approx(spec.start_gradient_bound, rel=1e-15)
    assert all(zeros) == spec.zero_at_label
    assert all(value > 0.0 for value in smallest) == spec.unattained_on_separable
    assert min(smallest) < 1e-20


@pytest.mark.parametrize("name", sorted(name for name, spec in LOSSES.items() if spec.weighted))
def test_a_weighted_variant_is_its_loss_scaled_by_the_weight_its_label_carries(name):
    """``weighted(z, r y) = r loss(z, y)`` for labels in {-1, 1} and weights r in [0, 1], for the
    value, the derivative and (where finite) the conjugate at ``r u``."""
    loss = LOSS_MODULES[[module.SPEC.name for module in LOSS_MODULES].index(name)]
    weighted = LOSS_MODULES[[module.SPEC.name for module in LOSS_MODULES].index(LOSSES[name].weighted)]
    for y in (-1.0, 1.0):
        for r in (0.0, 0.3, 1.0):
            for z in (-3.0, -0.5, 0.2, 2.0):
                assert weighted.value(z, r * y) == pytest.approx(r * loss.value(z, y), rel=1e-15, abs=0)
                assert weighted.derivative(z, r * y) == pytest.approx(r * loss.derivative(z, y), rel=1e-15, abs=0)
                u = loss.derivative(z, y)
                if r > 0:
                    assert weighted.conjugate(r * u, r * y) == pytest.approx(r * loss.conjugate(u, y), rel=1e-12,
                                                                             abs=1e-15)