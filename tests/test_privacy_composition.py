"""Advanced composition (dp-gcd Appendix A eq. (2)): the solver against the formula it inverts,
Dwork and Roth's closed forms and its asymptotics."""
import math

import pytest

from privcd import privacy

GRID = [(epsilon, delta, mechanisms) for epsilon in (1e-4, 0.01, 0.5, 1.0, 3.0, 30.0)
        for delta in (1e-2, 1e-6, 1 / 20640**2) for mechanisms in (1, 2, 40, 5000)]


def dp_gcd_eq2(epsilon_step, delta, iterations):
    """dp-gcd eq. (2) as printed, for T iterations (2T mechanisms)."""
    return (math.sqrt(4 * iterations * math.log(1 / delta)) * epsilon_step
            + 2 * iterations * epsilon_step * (math.exp(epsilon_step) - 1))


@pytest.mark.parametrize("epsilon_step, delta, iterations", [(0.01, 1e-5, 10), (0.3, 1e-8, 1), (2.0, 0.1, 250)])
def test_forward_formula_is_dp_gcd_eq2(epsilon_step, delta, iterations):
    assert privacy.advanced_composition_epsilon(epsilon_step, delta, 2 * iterations) == pytest.approx(
        dp_gcd_eq2(epsilon_step, delta, iterations), rel=1e-12)


@pytest.mark.parametrize("epsilon, delta, mechanisms", GRID)
def test_per_step_epsilon_is_the_largest_meeting_the_target(epsilon, delta, mechanisms):
    step = privacy.advanced_composition_epsilon_per_step(epsilon, delta, mechanisms)
    achieved = privacy.advanced_composition_epsilon(step, delta, mechanisms)
    assert achieved <= epsilon
    assert achieved == pytest.approx(epsilon, rel=1e-12)
    assert privacy.advanced_composition_epsilon(step * (1 + 1e-9), delta, mechanisms) > epsilon


@pytest.mark.parametrize("epsilon, delta, mechanisms", [g for g in GRID if g[0] <= 1])
def test_per_step_epsilon_beats_dwork_roth_closed_form(epsilon, delta, mechanisms):
    """Dwork and Roth, Corollary 3.21 (dp-gcd Theorem 4.2): for epsilon <= 1, epsilon' =
    epsilon / (2 sqrt(2 k log(1/delta))) suffices; the numerical solution can only be larger."""
    closed_form = epsilon / (2 * math.sqrt(2 * mechanisms * math.log(1 / delta)))
    assert privacy.advanced_composition_epsilon(closed_form, delta, mechanisms) <= epsilon
    assert privacy.advanced_composition_epsilon_per_step(epsilon, delta, mechanisms) >= closed_form


@pytest.mark.parametrize("epsilon, delta, mechanisms", GRID)
def test_per_step_epsilon_lies_between_the_first_order_and_quadratic_solutions(epsilon, delta, mechanisms):
    """exp(x) - 1 >= x, so the root is below that of k x^2 + a x = epsilon (a = sqrt(2 k log(1/delta)))
    and, the second term being non-negative, below epsilon / a; it tends to epsilon / a as epsilon -> 0."""
    a = math.sqrt(2 * mechanisms * math.log(1 / delta))
    quadratic = (-a + math.sqrt(a**2 + 4 * mechanisms * epsilon)) / (2 * mechanisms)
    step = privacy.advanced_composition_epsilon_per_step(epsilon, delta, mechanisms)
    assert step <= quadratic * (1 + 1e-12)
    assert step <= epsilon / a
    if epsilon * mechanisms / a**2 < 1e-4:
        assert step == pytest.approx(epsilon / a, rel=2e-4)


def test_infinite_epsilon_gives_infinite_per_step_epsilon():
    assert privacy.advanced_composition_epsilon_per_step(math.inf, 1e-5, 10) == math.inf
    assert privacy.advanced_composition_epsilon(math.inf, 1e-5, 10) == math.inf


@pytest.mark.parametrize("arguments, name", [((0.0, 1e-5, 10), "epsilon="), ((-1.0, 1e-5, 10), "epsilon="),
                                             ((1.0, 0.0, 10), "delta="), ((1.0, 1.0, 10), "delta="),
                                             ((1.0, 1e-5, 0), "mechanisms="), ((1.0, 1e-5, 2.5), "mechanisms=")])
def test_bad_arguments_are_named(arguments, name):
    with pytest.raises(ValueError, match=name):
        privacy.advanced_composition_epsilon_per_step(*arguments)


@pytest.mark.parametrize("arguments, name", [((-0.1, 1e-5, 10), "epsilon_step="), ((0.1, 1.5, 10), "delta="),
                                             ((0.1, 1e-5, 0), "mechanisms=")])
def test_bad_forward_arguments_are_named(arguments, name):
    with pytest.raises(ValueError, match=name):
        privacy.advanced_composition_epsilon(*arguments)
