"""A quick survey of conv2d_packed on the simulator: default config against random search.

    python -m tunefarm.backends.vta.survey [--config default] [--samples 50] [--seed 0]

For resnet-18's packed 3x3 convolutions (the tutorial's tasks with 64 or more channels) it
prints, per layer: the cycles of the fallback config (the first entity of every knob, what
AutoTVM runs without records), of the hand-rule default, and of the best of a random sample of
valid configs; the best's GOPS at the configured clock against the GEMM peak; and its modules'
busy shares. Cycles come from timing-only simulation, which does not depend on data.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tunefarm.backends.vta.config import VTAConfig, load_config
from tunefarm.backends.vta.conv2d import lower_conv2d_packed, simulate
from tunefarm.backends.vta.conv2d_space import (
    Conv2dWorkload,
    check_config,
    config_space,
    default_config,
    valid_configs,
)
from tunefarm.backends.vta.simulator import SimResult, Simulator

# resnet-18's packed convs as the tutorial prints them: (batch, height, width, in_filter,
# out_filter, hkernel, wkernel, hpad, wpad, hstride, wstride)
RESNET18_TASKS = (
    (1, 14, 14, 256, 512, 1, 1, 0, 0, 2, 2),
    (1, 28, 28, 128, 256, 1, 1, 0, 0, 2, 2),
    (1, 56, 56, 64, 128, 1, 1, 0, 0, 2, 2),
    (1, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1),
    (1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 1),
    (1, 56, 56, 64, 128, 3, 3, 1, 1, 2, 2),
    (1, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1),
    (1, 28, 28, 128, 256, 3, 3, 1, 1, 2, 2),
    (1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1),
    (1, 14, 14, 256, 512, 3, 3, 1, 1, 2, 2),
)


def resnet18_3x3() -> list[Conv2dWorkload]:
    """The 3x3 tasks (all have 64 or more channels)."""
    return [Conv2dWorkload.from_tutorial(t) for t in RESNET18_TASKS if t[5] == 3]


def fallback_config(wl: Conv2dWorkload, hw: VTAConfig) -> dict | None:
    """Entity 0 of every knob (inner factors 1, no threads), if that config is valid."""
    knobs = config_space(wl, hw).default()
    return knobs if check_config(wl, knobs, hw) is None else None


def cycles(wl: Conv2dWorkload, knobs: dict, hw: VTAConfig, sim: Simulator) -> SimResult:
    result, _ = simulate(lower_conv2d_packed(wl, knobs, hw), sim)
    if not result.ok:
        raise RuntimeError(f"{knobs}: {result.error_msg}")
    return result


def survey_layer(
    wl: Conv2dWorkload, hw: VTAConfig, sim: Simulator, samples: int, rng: np.random.Generator
) -> dict:
    """Fallback, default and best-of-sample results of one layer."""
    space = valid_configs(wl, hw)
    picks = rng.choice(len(space), size=min(samples, len(space)), replace=False)
    best_knobs, best = None, None
    for i in picks:
        result = cycles(wl, space[i], hw, sim)
        if best is None or result.cycles < best.cycles:
            best_knobs, best = space[i], result
    fallback = fallback_config(wl, hw)
    return {
        "workload": wl,
        "space": len(space),
        "fallback": cycles(wl, fallback, hw, sim).cycles if fallback else None,
        "default": cycles(wl, default_config(wl, hw), hw, sim),
        "best": best,
        "best_knobs": best_knobs,
    }


def print_row(row: dict, hw: VTAConfig) -> dict[str, float]:
    """One table row; returns the row's speedups, efficiency and bound for the summary."""
    wl, best, default, fb = row["workload"], row["best"], row["default"], row["fallback"]
    gops = wl.ops / hw.seconds(best.cycles) / 1e9
    ideal = wl.ops // (2 * hw.macs_per_cycle)  # a GEMM micro-op every cycle
    name = f"{wl.height}x{wl.width} {wl.in_channels}->{wl.out_channels} s{wl.stride_h}"
    shares = "/".join(f"{best.share(m):.2f}" for m in ("load", "compute", "store"))
    stats = {
        "fallback": fb / best.cycles if fb else math.nan,
        "default": default.cycles / best.cycles,
        "efficiency": gops / hw.peak_gops,
        "bound": default.cycles / ideal,
    }
    print(
        f"{name:<24}{row['space']:>6}{fb or 0:>10}{default.cycles:>9}"
        f"{100 * ideal / default.cycles:>5.0f}%{best.cycles:>9}{stats['fallback']:>7.2f}"
        f"{stats['default']:>7.2f}{gops:>7.1f}{100 * stats['efficiency']:>6.0f}%  {shares}"
    )
    print(f"{'':<24}best {row['best_knobs']}")
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="default", help="VTA preset name or JSON path")
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    hw = load_config(args.config)
    sim = Simulator(hw)
    rng = np.random.default_rng(args.seed)
    print(
        f"VTA {hw.name}: peak {hw.peak_gops:.1f} GOPS at {hw.clock_mhz:g} MHz; "
        f"{args.samples} random valid configs per layer (seed {args.seed})"
    )
    head = f"{'layer':<24}{'valid':>6}{'fallback':>10}{'default':>9}{'def%':>6}{'best':>9}"
    print(head + f"{'x fb':>7}{'x def':>7}{'GOPS':>7}{'%peak':>7}  busy load/compute/store")
    rows = [print_row(survey_layer(wl, hw, sim, args.samples, rng), hw) for wl in resnet18_3x3()]
    geo = lambda key: math.exp(sum(math.log(r[key]) for r in rows) / len(rows))  # noqa: E731
    print(
        f"geomean speedup of the best: {geo('fallback'):.2f}x over the fallback, "
        f"{geo('default'):.2f}x over the default (at most {geo('bound'):.2f}x: the default's "
        f"cycles over pure GEMM cycles); layers at >= 50% of peak: "
        f"{sum(r['efficiency'] >= 0.5 for r in rows)}/{len(rows)}"
    )


if __name__ == "__main__":
    main()
