"""Timings that know when they are unreliable: the spread across repeats is measured, a noisy
measurement is taken again and flagged if it stays noisy; in-network selection and a rerun's
artifact keep what they have unless the new choice wins clearly over interleaved rounds."""

from __future__ import annotations

import time

import pytest

from tunefarm.compiler.select import clear_winner
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.runner import max_cv
from tunefarm.measure.types import MeasureResult, MeasureSettings
from tunefarm.recipe.job import Duel


def result(costs, msg=""):
    return MeasureResult(tuple(costs), MeasureErrorNo.NO_ERROR, msg, 0.0, time.time(),
                         MeasureSettings())  # fmt: skip


def test_coefficient_of_variation_of_repeats():
    assert result([1.0, 1.0, 1.0]).cv == 0.0
    assert result([1.0, 3.0]).cv == pytest.approx(0.7071, rel=1e-3)
    assert result([1.0]).cv == 0.0
    assert not result([1.0, 3.0]).noisy
    assert result([1.0, 3.0], "noisy: the repeats vary by 71%").noisy


def test_max_cv_comes_from_the_environment(monkeypatch):
    assert max_cv() == 0.2
    monkeypatch.setenv("TUNEFARM_MAX_CV", "0.05")
    assert max_cv() == 0.05
    monkeypatch.setenv("TUNEFARM_MAX_CV", "lots")
    with pytest.raises(ValueError, match="TUNEFARM_MAX_CV"):
        max_cv()


def _runner_with_replies(monkeypatch, replies):
    """A LocalRunner whose measurement child answers `replies` in turn."""
    from tunefarm.measure import runner as runner_mod

    r = runner_mod.LocalRunner(MeasureSettings(repeat=5), lambda inp, seed: None)
    calls = iter(replies)
    monkeypatch.setattr(r, "_measure_in_child", lambda job: next(calls))
    monkeypatch.setattr(r, "_reference", lambda inp, key: runner_mod._IOEntry("x", (), ()))
    monkeypatch.setattr(runner_mod, "_layout_mismatch", lambda entry, specs: "")
    return r


def _reply(costs):
    return {"error_no": 0, "error_msg": "", "costs": costs, "number": 1}


def test_a_noisy_measurement_is_taken_again(monkeypatch):
    from tunefarm.measure.types import BuildResult

    build = BuildResult("a.so", io_key="key")
    noisy, clean = [1.0, 5.0, 1.0, 9.0, 1.0], [1.0, 1.01, 0.99, 1.0, 1.0]
    r = _runner_with_replies(monkeypatch, [_reply(noisy), _reply(clean)])
    got = r._run_one(None, build)
    assert got.ok and not got.noisy and got.costs == tuple(clean)
    r = _runner_with_replies(monkeypatch, [_reply(noisy), _reply(noisy)])
    flagged = r._run_one(None, build)
    assert flagged.ok and flagged.noisy and "TUNEFARM_MAX_CV" in flagged.error_msg
    r = _runner_with_replies(monkeypatch, [_reply(clean)])  # a clean one is measured once
    assert r._run_one(None, build).error_msg == ""


def test_selection_keeps_the_best_record_unless_another_wins_clearly():
    best = [1.00, 1.00, 1.00, 1.00, 1.00]
    assert clear_winner([best, [0.90] * 5]) == 1  # 10% faster every round
    assert clear_winner([best, [0.99] * 5]) == 0  # within the margin
    lucky = [0.80, 0.80, 1.10, 1.10, 0.80]  # a better median, but only 3 of 5 rounds
    assert clear_winner([best, lucky]) == 0
    assert clear_winner([best, [0.9] * 5, [0.8] * 5]) == 2


def test_a_rerun_keeps_the_current_artifact_unless_the_new_one_wins_clearly():
    assert Duel(new_ms=9.0, old_ms=10.0, wins=7, rounds=7).replace
    assert not Duel(new_ms=9.9, old_ms=10.0, wins=7, rounds=7).replace  # not by enough
    assert not Duel(new_ms=9.0, old_ms=10.0, wins=4, rounds=7).replace  # not often enough
    assert not Duel(new_ms=11.0, old_ms=10.0, wins=0, rounds=7).replace
    assert "kept" in Duel(11.0, 10.0, 0, 7).describe()
