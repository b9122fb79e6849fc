"""privcd.audit: lower bounds on epsilon from real runs on worst-case neighbours (issue 21)."""
import math

import numpy as np
import pytest
from scipy import stats

import privcd
from privcd.algorithms import ALGORITHMS, dp_cd
from privcd.auditing import PAIRS, SOUND, UNSOUND, VARIANTS, audit
from privcd.auditing.variants import MUTANTS
from privcd.auditing.bounds import (
    ErrorCounts, best_threshold, clopper_pearson_upper, count_errors, epsilon_from_rates, epsilon_lower_bound,
    mu_from_rates,
)
from privcd.auditing import bounds
from privcd.auditing.canaries import canary_pair, report_noisy_max_win
from privcd.auditing.curves import ProfileTable
from privcd.fit import prepare
from privcd.privacy.mechanisms import SubsampledGaussian

pytestmark = pytest.mark.slow  # the slow tier: python -m pytest -m slow (.ci/run)


def gaussian_delta(epsilon, mu):
    """delta(epsilon) of the Gaussian mechanism with mu = sensitivity / std (Balle and Wang 2018, Thm 8)."""
    return stats.norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * stats.norm.cdf(-epsilon / mu - mu / 2)


def gaussian_epsilon(mu, delta):
    """The exact epsilon of the mu-Gaussian mechanism at delta."""
    from scipy.optimize import brentq
    return brentq(lambda epsilon: gaussian_delta(epsilon, mu) - delta, 0.0, 100.0)


@pytest.mark.parametrize("count, trials", [(0, 50), (3, 50), (49, 50), (120, 1000)])
def test_clopper_pearson_matches_scipys_exact_interval(count, trials):
    # binomtest's two-sided exact interval at confidence 1 - 2a has the one-sided bound at 1 - a.
    expected = stats.binomtest(count, trials).proportion_ci(confidence_level=0.9, method="exact").high
    assert clopper_pearson_upper(count, trials, 0.95) == pytest.approx(expected, rel=1e-9)
    assert clopper_pearson_upper(trials, trials, 0.95) == 1.0


def test_epsilon_from_rates_inverts_the_hypothesis_testing_region():
    # Equal rates r on the boundary r + e^eps r = 1 - delta give back eps; the larger of the two
    # forms counts when the rates differ.
    for epsilon, delta in [(1.0, 0.0), (2.5, 1e-5), (0.3, 1e-3)]:
        rate = (1 - delta) / (1 + math.exp(epsilon))
        assert epsilon_from_rates(rate, rate, delta) == pytest.approx(epsilon)
    assert epsilon_from_rates(0.01, 0.5, 0.0) == pytest.approx(math.log(0.5 / 0.01))
    assert epsilon_from_rates(0.5, 0.01, 0.0) == pytest.approx(math.log(0.5 / 0.01))
    assert epsilon_from_rates(0.5, 0.5, 0.0) == 0.0 and epsilon_from_rates(0.6, 0.6, 0.0) == 0.0


def test_counts_and_threshold_on_separated_scores():
    inside, outside = np.arange(10.0, 20.0), np.arange(0.0, 10.0)
    threshold = best_threshold(inside, outside, 1e-5, 0.95)
    assert 9.0 <= threshold < 10.0
    counts = count_errors(inside, outside, threshold)
    assert counts == ErrorCounts(threshold, 10, 10, 0, 0)
    assert epsilon_lower_bound(counts, 1e-5, 0.95) == pytest.approx(
        math.log((1 - 1e-5 - clopper_pearson_upper(0, 10, 0.975)) / clopper_pearson_upper(0, 10, 0.975)))


def ideal_bound(mu, runs, delta):
    """The bound with the expected counts of a mu-Gaussian test at its best threshold: what
    Clopper-Pearson at ``runs`` a side allows at most (up to rounding)."""
    bounds = []
    for threshold in np.linspace(-3.0, mu + 5.0, 801):
        counts = ErrorCounts(threshold, runs, runs, round(runs * stats.norm.cdf(threshold - mu)),
                             round(runs * stats.norm.sf(threshold)))
        bounds.append(epsilon_lower_bound(counts, delta, 0.95))
    return max(bounds)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_the_bound_on_gaussian_scores_is_below_the_truth_and_near_its_limit(mu):
    """Scores of a mu-Gaussian mechanism: the audit's bound never exceeds its exact epsilon (in 20
    independent repetitions at 95% confidence; expected failures at most 1, allowed 3), and the
    threshold chosen on 2,000 runs a side loses little: the median bound is at least 0.85 of the
    best that 18,000 runs a side allow (:func:`ideal_bound`)."""
    rng = np.random.default_rng(7)
    truth = gaussian_epsilon(mu, 1e-5)
    bounds = []
    for _ in range(20):
        inside, outside = rng.normal(mu, 1.0, 20_000), rng.normal(0.0, 1.0, 20_000)
        threshold = best_threshold(inside[:2000], outside[:2000], 1e-5, 0.95)
        bounds.append(epsilon_lower_bound(count_errors(inside[2000:], outside[2000:], threshold), 1e-5, 0.95))
    assert sum(bound > truth for bound in bounds) <= 3
    assert np.median(bounds) >= 0.85 * ideal_bound(mu, 18_000, 1e-5)


def test_every_registered_algorithm_has_an_audit_design_and_every_variant_runs_one():
    assert set(PAIRS) == set(ALGORITHMS)
    assert {variant.algorithm for variant in SOUND.values()} == set(ALGORITHMS)
    for name, variant in VARIANTS.items():
        if "attack" in variant.options:  # no canary pair: the attack's own neighbours
            result = audit(variant.algorithm, epsilon=1.0, delta=1e-5, runs=10, **variant.options)
            assert result.statistic == "floating-point", name
            continue
        options = {key: value for key, value in variant.options.items() if key != "noise_factor"}  # audit's own
        pair = canary_pair(variant.algorithm, options)
        module, _, _, plan = prepare(pair.inside, variant.algorithm, epsilon=1.0, delta=1e-5, **pair.arguments)
        assert math.isfinite(pair.score(module, pair.inside, plan, 0)), name
    assert {variant.options["noise_factor"] for variant in MUTANTS.values()} == {1 / 1.2}
    assert {name.removesuffix("-mutant") for name in MUTANTS} <= set(SOUND)


def test_the_canary_pairs_are_replace_one_neighbours():
    for algorithm in PAIRS:
        pair = canary_pair(algorithm, {})
        assert np.array_equal(pair.inside.X, pair.outside.X)
        assert np.count_nonzero(pair.inside.y != pair.outside.y) == 1


GAUSSIAN_FAMILIES = [("dp-cd", {}), ("dp-sgd", {}), ("dp-skgd", {})]


@pytest.mark.parametrize("algorithm, options", GAUSSIAN_FAMILIES)
def test_gaussian_claims_are_audited_to_nine_tenths(algorithm, options):
    """Issue 35's floor: T composed Gaussians are audited through mu (the Gaussian statistic); at
    (2, 1e-5) with the default 100,000 runs a side the bound is at least 0.9 of the claim and at most
    the claim (measured 0.960, 0.980 and 0.980 with the joint test)."""
    result = audit(algorithm, epsilon=2.0, delta=1e-5, **options)
    assert result.statistic == "gaussian" and result.mu_lower <= result.mu
    assert 0.9 * result.epsilon <= result.epsilon_lower <= result.epsilon


@pytest.mark.parametrize("algorithm, options", GAUSSIAN_FAMILIES)
def test_a_mutant_with_a_sixth_less_noise_is_caught(algorithm, options):
    """``noise_factor = 1 / 1.2`` with the calibrated claim: the bound exceeds the claim (measured at
    (2, 1e-5): 2.37, 2.41 and 2.41 against 2.00)."""
    result = audit(algorithm, epsilon=2.0, delta=1e-5, noise_factor=1 / 1.2, **options)
    assert result.epsilon_lower > result.epsilon and result.mu_lower > result.mu


def test_sampled_dp_sgd_is_audited_through_its_curve_and_its_mutant_caught():
    """Issue 35's floor for sampled DP-SGD (0.6 of the claim): the dominating pair observed at every
    step, bounded through the claimed PLD's profile (measured at (2, 1e-5), batches of 5 of 10 in
    one pass: 0.885 and 0.920 of the claim with seeds 0 and 1, and 1.172 and 1.176 for the mutant
    with a sixth less noise; 1.204 with the audit target's seed)."""
    sound = audit("dp-sgd", epsilon=2.0, delta=1e-5, batch_size=5)
    assert sound.statistic == "curve" and 0.6 * sound.epsilon <= sound.epsilon_lower <= sound.epsilon
    mutant = audit("dp-sgd", epsilon=2.0, delta=1e-5, batch_size=5, noise_factor=1 / 1.2)
    assert mutant.epsilon_lower > mutant.epsilon


@pytest.mark.parametrize("algorithm", ["dp-scd", "seqdp-scd"])
def test_the_dual_methods_are_audited_through_their_curve_and_their_mutant_caught(algorithm):
    """Issue 35's floor for DP-SCD and SEQDP-SCD (0.6 of the claim): two records and batches of one
    (where the two algorithms are the same run), every step's v and the final duals read by their
    likelihood ratio (:func:`privcd.auditing.canaries.hidden_dual_pair`). Measured for DP-SCD at (2,
    1e-5): 0.855 of the claim, and 1.093 for the mutant with a sixth less noise."""
    sound = audit(algorithm, epsilon=2.0, delta=1e-5)
    assert sound.statistic == "curve" and 0.6 * sound.epsilon <= sound.epsilon_lower <= sound.epsilon
    mutant = audit(algorithm, epsilon=2.0, delta=1e-5, noise_factor=1 / 1.2)
    assert mutant.epsilon_lower > mutant.epsilon


def greedy_pair_epsilon(epsilon_step, delta, *, features=10, factor=1.0):
    """The exact epsilon at ``delta`` of one DP-GCD iteration on its canary pair, its noise ``factor``
    times the calibrated: the selection picks the canary's coordinate with chance P in D and P' in D'
    (:func:`report_noisy_max_win` at ``+-epsilon' / (2 factor)``), and the release is the Laplace
    mechanism at ``epsilon' / factor`` (dp-accounting's PLDs of the two, composed)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    shift = epsilon_step / (2.0 * factor)
    lead, trail = report_noisy_max_win(shift, features), report_noisy_max_win(-shift, features)
    interval = epsilon_step / 1024
    selection = pld.from_two_probability_mass_functions(
        {0: math.log(lead), 1: math.log1p(-lead)}, {0: math.log(trail), 1: math.log1p(-trail)},
        value_discretization_interval=interval, symmetric=False)
    release = pld.from_laplace_mechanism(parameter=factor / epsilon_step, value_discretization_interval=interval)
    return selection.compose(release).get_epsilon_for_delta(delta)


@pytest.mark.parametrize("shift", [0.05, 0.5, 2.0])
def test_report_noisy_max_win_matches_its_closed_form_and_sampling(shift):
    """Two scores: the distribution function of the difference of two ``Lap(1)``; ten: the share of
    400,000 sampled report-noisy-max draws the leading (or trailing) score wins, within 4.5 standard
    errors."""
    assert report_noisy_max_win(shift, 2) == pytest.approx(1.0 - (1.0 + shift / 2.0) * math.exp(-shift) / 2.0,
                                                           rel=1e-9)
    assert report_noisy_max_win(-shift, 2) == pytest.approx((1.0 + shift / 2.0) * math.exp(-shift) / 2.0, rel=1e-9)
    rng = np.random.default_rng(7)
    for signed in (shift, -shift):
        noise = rng.laplace(size=(400_000, 10))
        noise[:, 0] += signed
        share = np.mean(np.argmax(noise, axis=1) == 0)
        win = report_noisy_max_win(signed, 10)
        assert abs(share - win) <= 4.5 * math.sqrt(win * (1.0 - win) / 400_000)


def test_dp_gcd_is_audited_through_its_curve_and_its_mutant_caught():
    """Issue 35's floor for DP-GCD (0.6 of the claim, each rule, at (2, 1e-5)) and its mutant with a
    sixth less noise caught. The ten-coordinate pair's exact epsilon (one iteration) is 0.996 of the
    claim, the mutant's 1.19. Measured: 0.950 sound, 1.137 the mutant."""
    from privcd.privacy.greedy_composition import greedy_epsilon_per_step
    epsilon_step = greedy_epsilon_per_step(2.0, 1e-5, 1)
    assert greedy_pair_epsilon(epsilon_step, 1e-5) == pytest.approx(2.0, rel=0.01)
    assert greedy_pair_epsilon(epsilon_step, 1e-5, features=2) == pytest.approx(0.75 * 2.0, rel=0.01)
    assert greedy_pair_epsilon(epsilon_step, 1e-5, factor=1 / 1.2) > 1.15 * 2.0
    for rule in (None, "gs-s", "gs-r", "gs-q"):
        sound = audit("dp-gcd", epsilon=2.0, delta=1e-5, runs=50_000, rule=rule)
        assert sound.statistic == "curve" and 0.6 * sound.epsilon <= sound.epsilon_lower <= sound.epsilon, rule
    mutant = audit("dp-gcd", epsilon=2.0, delta=1e-5, noise_factor=1 / 1.2)
    assert mutant.epsilon_lower > mutant.epsilon


def test_the_profile_table_finds_the_multiplier_whose_trade_off_curve_rates_sit_on():
    """Rates on the trade-off curve of a tabulated multiplier, ``FNR = max_eps max(1 - delta_z(eps) - e^eps
    FPR, e^-eps (1 - delta_z(eps) - FPR))``, contradict only larger multipliers; moved inside it, they
    contradict it and every larger one too."""
    mechanism = SubsampledGaussian(20, 2, 10, "without-replacement")
    table = ProfileTable(mechanism, 1.7, 2.0)
    index, false_positive_rate = 14, 0.01
    growth, delta = np.exp(table.epsilons), table.profiles[index]
    on = float(np.max(np.maximum(1 - delta - growth * false_positive_rate, (1 - delta - false_positive_rate) / growth)))
    assert table.smallest_contradicted_index(false_positive_rate, on * (1 + 1e-3)) > index
    inside = int(table.smallest_contradicted_index(false_positive_rate, on * (1 - 1e-2)))
    assert index - 1 <= inside <= index
    assert all(table.contradicted(false_positive_rate, on * (1 - 1e-2), profile) for profile in table.profiles[inside:])
    assert table.smallest_contradicted_multiplier(0.5, 0.5) == math.inf  # a coin flip contradicts nothing


def test_mu_from_rates_inverts_the_gaussian_trade_off():
    """The rates of the Gaussian test at threshold t, ``FPR = Phi(-t)`` and ``FNR = Phi(t - mu)``, give
    back mu; rates a test cannot beat (FPR + FNR >= 1) give 0."""
    for mu in (0.2, 1.0, 3.0):
        for t in (-1.0, 0.3, 2.0):
            assert mu_from_rates(stats.norm.cdf(-t), stats.norm.cdf(t - mu)) == pytest.approx(mu, rel=1e-9)
    assert mu_from_rates(0.6, 0.5) == 0.0
    assert bounds.gaussian_epsilon(0.0, 1e-5) == 0.0
    for mu in (0.3, 1.0, 2.5):  # against this module's independent root of Balle and Wang's delta
        assert bounds.gaussian_epsilon(mu, 1e-5) == pytest.approx(gaussian_epsilon(mu, 1e-5), rel=1e-3)


def test_the_audit_catches_noise_scaled_by_a_quarter(monkeypatch):
    """A broken DP-CD whose noise is a quarter of its calibration: the bound exceeds the claim."""
    calibrated = dp_cd.coordinate_parameters

    def quarter_noise(*args):
        step_sizes, thresholds, noise_std = calibrated(*args)
        return step_sizes, thresholds, noise_std / 4
    monkeypatch.setattr(dp_cd, "coordinate_parameters", quarter_noise)
    result = audit("dp-cd", epsilon=2.0, delta=1e-5, runs=5000, workers=1)  # helpers would run the unpatched code
    assert result.epsilon_lower > result.epsilon


def test_the_audit_finds_the_papers_dp_scd_accounting_unsound_and_privcds_sound():
    """dp-scd Algorithm 1 as printed (noise on the batch's duals, which reveals the batch) with the
    paper's amplification by sampling: the audit's bound exceeds the claim at epsilon = 0.5; privcd's
    DP-SCD (noise on every dual) at the same target stays below it."""
    paper = audit("dp-scd", epsilon=0.5, delta=1e-5, runs=20_000, **UNSOUND["dp-scd-paper"].options)
    assert paper.epsilon_lower > paper.epsilon
    sound = audit("dp-scd", epsilon=0.5, delta=1e-5, runs=20_000)
    assert sound.epsilon_lower <= sound.epsilon


@pytest.mark.parametrize("name", sorted(SOUND))
def test_no_sound_variant_is_caught_above_its_claim(name):
    """Safety: for every algorithm as the library runs it, at every epsilon of issue 21, the bound
    stays at or below the claim (a failure is a privacy bug, not a test to tune). The bound is read
    at the study's check confidence for these K audits, ``1 - 0.05 / K`` (a tight audit of an exact
    claim exceeds it at 95% with chance up to 5%)."""
    variant, epsilons = SOUND[name], (0.5, 1.0, 2.0, 4.0, 8.0)
    check_confidence = 1.0 - 0.05 / (len(SOUND) * len(epsilons))
    for epsilon in epsilons:
        result = audit(variant.algorithm, epsilon=epsilon, delta=1e-5, runs=2000, seed=11,
                       check_confidence=check_confidence, **variant.options)
        assert result.epsilon_check <= result.epsilon, (name, epsilon, result)


def test_same_seed_same_bound_and_bad_arguments_are_errors():
    first = audit("dp-sgd", epsilon=1.0, delta=1e-5, runs=300, seed=3)
    assert audit("dp-sgd", epsilon=1.0, delta=1e-5, runs=300, seed=3) == dataclass_without_seconds(first)
    with pytest.raises(ValueError, match="no audit design for algorithm 'sgd'"):
        audit("sgd", epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="runs=5"):
        audit("dp-cd", epsilon=1.0, delta=1e-5, runs=5)
    with pytest.raises(ValueError, match="batch_sizes"):
        audit("dp-sgd", epsilon=1.0, delta=1e-5, runs=20, batch_sizes=3)
    with pytest.raises(ValueError, match="workers=0"):
        audit("dp-cd", epsilon=1.0, delta=1e-5, runs=20, workers=0)
    assert privcd.audit is audit


@pytest.mark.parametrize("algorithm, options, workers", [("dp-cd", {}, 3), ("dp-sgd", {"batch_size": 5}, 2),
                                                        ("dp-scd", {"noise_factor": 0.8}, 2)])
def test_an_audit_on_several_processes_has_the_bits_of_one(algorithm, options, workers):
    """Helper processes score shares of the runs (:mod:`privcd.auditing.workers`): the same test and
    bound as one process, for a Gaussian claim, a curve claim, and a mutant."""
    one = audit(algorithm, epsilon=2.0, delta=1e-5, runs=301, seed=5, workers=1, **options)
    several = audit(algorithm, epsilon=2.0, delta=1e-5, runs=301, seed=5, workers=workers, **options)
    assert several == dataclass_without_seconds(one)
    assert one.counts.false_negatives + one.counts.false_positives > 0


def test_the_runs_are_shared_among_processes_in_order():
    from privcd.auditing.workers import shares
    assert shares(10, 1) == [(0, 10)]
    assert shares(10, 3) == [(0, 3), (3, 7), (7, 10)]
    assert shares(2, 3) == [(0, 1), (1, 1), (1, 2)]


def dataclass_without_seconds(result):
    class AnySeconds(type(result)):
        def __eq__(self, other):
            return all(getattr(self, key) == getattr(other, key) for key in vars(self) if key != "seconds")
    return AnySeconds(**vars(result))


def test_the_audit_study_checks_its_config_and_its_claims():
    from privcd.auditing.study import AuditStudy, check_claims, frame, job_seed
    study = AuditStudy.from_config({"epsilons": [1, 4], "runs": 50, "variants": ["dp-cd", "dp-scd-paper"]})
    assert study.jobs() == [("dp-cd", 1.0), ("dp-cd", 4.0), ("dp-scd-paper", 1.0), ("dp-scd-paper", 4.0)]
    assert AuditStudy.from_config(None).variants == tuple(sorted(VARIANTS))
    mutants = AuditStudy.from_config({"epsilons": [1, 4], "variants": ["dp-cd", "dp-gcd-mutant"]})
    assert mutants.jobs() == [("dp-cd", 1.0), ("dp-cd", 4.0), ("dp-gcd-mutant", 2.0)]  # mutants at mutant_epsilons
    with pytest.raises(ValueError, match="audit.mutant_epsilons"):
        AuditStudy.from_config({"mutant_epsilons": [0]})
    with pytest.raises(ValueError, match=r"audit.variants: \['dp-xx'\]"):
        AuditStudy.from_config({"variants": ["dp-cd", "dp-xx"]})
    with pytest.raises(ValueError, match="audit.epsilons"):
        AuditStudy.from_config({"epsilons": [1, -2]})
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['run'\]"):
        AuditStudy.from_config({"run": 5})
    assert job_seed(7, "dp-cd", 1.0, 50) == job_seed(7, "dp-cd", 1, 50) != job_seed(7, "dp-cd", 2.0, 50)
    assert study.check_confidence() == pytest.approx(1 - 0.05 / 4)
    assert study.runs_for("dp-cd") == 50 and study.runs_for("dp-gcd-experiment-floats") == 2000
    rows = [{"variant": "dp-cd", "sound": True, "epsilon": 1.0, "epsilon_lower": 0.9, "epsilon_check": 0.85},
            {"variant": "dp-scd-paper", "sound": False, "epsilon": 1.0, "epsilon_lower": 1.5, "epsilon_check": 1.4}]
    check_claims(frame(rows))  # an unsound variant above its claim is expected, not a failure
    rows[0]["epsilon_lower"] = 1.01  # reported at 95%, not confirmed at the study's check confidence
    check_claims(frame(rows))
    rows[0]["epsilon_check"] = 1.005
    with pytest.raises(AssertionError, match=r"dp-cd at epsilon=1: epsilon_check=1.005 \(reported bound 1.01\)"):
        check_claims(frame(rows))


def test_the_check_confidence_bound_is_the_same_test_at_a_higher_confidence():
    """``check_confidence`` reads the same counts at another confidence: lower at a higher one, equal at
    the same one, for each statistic."""
    for algorithm, options in (("dp-cd", {}), ("dp-gcd", {}), ("dp-scd", UNSOUND["dp-scd-paper"].options)):
        same = audit(algorithm, epsilon=2.0, delta=1e-5, runs=3000, check_confidence=0.95, **options)
        assert same.epsilon_check == same.epsilon_lower
        strict = audit(algorithm, epsilon=2.0, delta=1e-5, runs=3000, check_confidence=0.999, **options)
        assert strict.epsilon_lower == same.epsilon_lower and strict.epsilon_check < strict.epsilon_lower


def test_the_summary_names_claim_bound_and_ratio():
    """Each audit's row says which column is the claim, which the lower bound and which their ratio."""
    from privcd.auditing.study import frame, result_row, summary_table
    result = audit("dp-cd", epsilon=1.0, delta=1e-5, runs=2000, seed=0)
    table = summary_table(frame([result_row("dp-cd", 1.0, 0, result)]))
    assert list(table.columns) == ["variant", "sound", "target epsilon", "claim (achieved epsilon)", "lower bound",
                                   "lower bound / claim", "statistic", "runs a side", "seconds"]
    row = table.iloc[0]
    assert row["claim (achieved epsilon)"] == round(result.epsilon, 3)
    assert row["lower bound"] == round(result.epsilon_lower, 3)
    assert row["lower bound / claim"] == round(result.epsilon_lower / result.epsilon, 3)


def test_a_noise_factor_must_be_positive():
    with pytest.raises(ValueError, match="noise_factor"):
        audit("dp-cd", epsilon=1.0, delta=1e-5, runs=10, noise_factor=0.0)
