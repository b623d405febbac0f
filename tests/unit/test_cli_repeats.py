"""The CLI's repeats: fixed --repeat, or adaptive where the target's backend asks for it
(opencl: 2 timed calls, more up to --repeat only while their spread is over 5%, since on
pocl every timed call is CPU time the builds could use)."""

from __future__ import annotations

import argparse

import pytest

from tunefarm.cli._args import add_measure_arguments, measure_settings


def settings(*argv: str):
    p = argparse.ArgumentParser()
    p.add_argument("--target", default="")
    add_measure_arguments(p)
    return measure_settings(p.parse_args(list(argv)))


def test_opencl_times_two_calls_and_more_only_while_noisy():
    s = settings("--target", "opencl", "--repeat", "5")
    assert (s.repeat, s.max_repeat, s.target_cv, s.adaptive) == (2, 5, 0.05, True)
    assert s.min_repeat_ms == 300.0  # the backend's own, as before


@pytest.mark.parametrize(
    "argv, fixed",
    [
        (("--target", "opencl", "--repeat", "5", "--no-adaptive-repeats"), 5),
        (("--target", "opencl", "--repeat", "2"), 2),  # nothing to save
        (("--target", "cpu", "--repeat", "5"), 5),  # host kernels: as before
        (("--repeat", "4"), 4),
    ],
)
def test_fixed_repeats_elsewhere(argv, fixed):
    s = settings(*argv)
    assert (s.repeat, s.max_repeat, s.adaptive) == (fixed, 0, False)


def test_adaptive_repeats_can_be_asked_for_on_any_target():
    s = settings("--target", "cpu", "--repeat", "6", "--adaptive-repeats")
    assert (s.repeat, s.max_repeat, s.target_cv) == (2, 6, 0.05)
