"""Kendall tau on all states and on the top 10%: the figures the sketch search reports about
its cost model (issue 27)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from tunefarm.tune.rank_quality import kendall_tau, rank_report, top_tau


def test_kendall_tau_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 40).astype(float)  # many ties
    b = a + rng.normal(0, 2, 40)
    assert kendall_tau(a, b) == pytest.approx(kendalltau(a, b).statistic)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert math.isnan(kendall_tau([1.0], [2.0])) and math.isnan(kendall_tau([1, 1], [1, 2]))


def test_top_tau_looks_only_at_the_best_measured_states():
    """A model that orders the slow 90% perfectly and the best 10% backwards: tau on all
    is high, on the top it is -1."""
    measured = np.arange(100.0)
    predicted = measured.copy()
    predicted[90:] = predicted[90:][::-1]
    assert kendall_tau(predicted, measured) > 0.9
    assert top_tau(predicted, measured, 0.1) == -1.0
    report = rank_report(predicted, measured)
    assert report["n"] == 100 and report["tau_top10"] == -1.0 and report["tau"] > 0.9
    # the top is taken by the measured values, whatever order the states come in
    perm = np.random.default_rng(1).permutation(100)
    assert top_tau(predicted[perm], measured[perm]) == -1.0


def test_top_tau_rejects_bad_input():
    with pytest.raises(ValueError, match="share"):
        top_tau([1, 2], [1, 2], 0.0)
    with pytest.raises(ValueError, match="predictions"):
        top_tau([1, 2, 3], [1, 2])
