"""Argument helpers shared by commands (not a command: the leading "_" hides it from main)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from tunefarm.cli import CommandError


def number(kind: type, low: float, strict: bool = False):
    """An argparse type: a finite number of `kind` above (strict) or at least `low`."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not value >= low or (strict and value == low) or not math.isfinite(value):
            bound = f"> {low}" if strict else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text!r}")
        return value

    return convert


def add_target_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--target",
        default="cpu",
        help="a backend and its options, e.g. 'cpu -isa=avx2' (default: cpu, the host)",
    )


def checked_target(text: str) -> Any:
    """The parsed --target (a tunefarm.target.Target); CommandError naming the targets that
    exist when it has no backend or options its backend does not take."""
    from tunefarm.backends import TargetError, parse_target

    try:
        return parse_target(text)
    except TargetError as exc:
        raise CommandError(f"--target: {exc}") from None


def add_measure_arguments(
    p: argparse.ArgumentParser, repeat: int = 3, min_repeat_ms: float = 100.0, flush: bool = False
) -> None:
    """--repeat, --min-repeat-ms, --number, --timeout, --flush-cache: how each config is timed."""
    p.add_argument("--repeat", type=number(int, 1), default=repeat, help="timed calls per config")
    p.add_argument(
        "--min-repeat-ms",
        type=number(float, 0),
        default=None,
        help=f"grow the runs per call until a call lasts this long (default: {min_repeat_ms:g}, "
        "or the target's own: 300 for GPUs)",
    )
    p.set_defaults(min_repeat_ms_default=min_repeat_ms)
    p.add_argument("--number", type=number(int, 1), default=1, help="initial runs per timed call")
    p.add_argument(
        "--timeout",
        type=number(float, 0, strict=True),
        default=10.0,
        metavar="S",
        help="seconds one config's measurement may take",
    )
    p.add_argument(
        "--flush-cache",
        action=argparse.BooleanOptionalAction,
        default=flush,
        help="evict the CPU caches before each timed call (default: %(default)s)",
    )
    p.add_argument(
        "--adaptive-repeats",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="stop timing a config after fewer calls than --repeat when their spread is "
        "small (default: the target's choice; on for opencl: 2 calls, up to --repeat while "
        "the spread is over 5%%)",
    )


def _backend(args: argparse.Namespace):
    """The backend of --target, or None (no target, or one that does not parse)."""
    from tunefarm.backends import TargetError, get_backend, parse_target

    text = getattr(args, "target", None)
    if not text:
        return None
    try:
        return get_backend(parse_target(text).kind)
    except TargetError:
        return None


def min_repeat_ms(args: argparse.Namespace) -> float:
    """--min-repeat-ms if given, else the target backend's (`min_repeat_ms`: 300 for GPUs, as
    the tutorial measures them), else the command's default."""
    if args.min_repeat_ms is not None:
        return float(args.min_repeat_ms)
    default = float(args.min_repeat_ms_default)
    return float(getattr(_backend(args), "min_repeat_ms", default))


def repeats(args: argparse.Namespace) -> dict[str, int | float]:
    """The repeat fields of MeasureSettings: --repeat fixed, or, where the target's backend
    asks for adaptive repeats (`adaptive_repeats` = (calls, target spread): opencl, whose
    pocl timings cost the CPU the builds need) and --no-adaptive-repeats is not given, that
    many calls first and up to --repeat while the spread is over the target."""
    choice = getattr(args, "adaptive_repeats", None)
    adaptive = getattr(_backend(args), "adaptive_repeats", None)
    if choice is True and adaptive is None:
        adaptive = DEFAULT_ADAPTIVE
    if choice is False or adaptive is None:
        return {"repeat": args.repeat}
    first, cv = adaptive
    if args.repeat <= first:
        return {"repeat": args.repeat}
    return {"repeat": first, "max_repeat": args.repeat, "target_cv": cv}


DEFAULT_ADAPTIVE = (2, 0.05)  # --adaptive-repeats on a target that has no choice of its own


def measure_settings(args: argparse.Namespace):
    """The MeasureSettings the measure arguments ask for (CommandError when inconsistent)."""
    from tunefarm.measure import MeasureSettings

    try:
        return MeasureSettings(
            number=args.number,
            min_repeat_ms=min_repeat_ms(args),
            timeout_s=args.timeout,
            flush_cache=args.flush_cache,
            **repeats(args),
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None


# = factory.TUNER_NAMES ("sketch": the template-free search, what --policy sketch picks)
TUNERS = ("random", "gridsearch", "ga", "xgb", "xgb-rank", "xgb-reg", "sketch", "sketch-random")
POLICIES = ("template", "sketch", "auto")  # = tune.policy.POLICIES


def add_policy_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default="template",
        help="template: tune the knobs of each op's template; sketch: search schedules derived "
        "from the compute definition; auto: sketches for ops without a template of their own "
        "(default: template)",
    )


def add_scheduler_arguments(p: argparse.ArgumentParser) -> None:
    """--tuner, --log, --early-stopping, --resume, --strategy: options of tune and tune-tasks."""
    p.add_argument("--tuner", choices=TUNERS, default="xgb", help="search per task (default: xgb)")
    add_policy_argument(p)
    p.add_argument("--log", required=True, metavar="LOG.jsonl", help="records file to append to")
    p.add_argument(
        "--early-stopping",
        type=number(int, 1),
        metavar="K",
        help="stop a task after K trials without improvement",
    )
    p.add_argument("--resume", action="store_true", help="continue from the records in --log")
    p.add_argument(
        "--transfer-from",
        metavar="LOG",
        help="also train the cost models on these earlier records (other tasks and networks)",
    )
    p.add_argument("--strategy", choices=("gradient", "round-robin"), default="gradient")


def add_store_argument(p: argparse.ArgumentParser) -> None:
    """--store: where the record store lives ($TUNEFARM_STORE, else the cache directory)."""
    import os

    from tunefarm.store import default_path

    p.add_argument(
        "--store",
        default=os.environ.get("TUNEFARM_STORE", ""),
        metavar="PATH|URL|none",
        help="record store shared across jobs: a SQLite file, postgresql://USER@HOST/DB, or "
        f"none (default: $TUNEFARM_STORE, else {default_path()})",
    )


def add_reuse_arguments(p: argparse.ArgumentParser) -> None:
    """--reuse and --reuse-min-trials (recipe.reuse)."""
    from tunefarm.recipe.reuse import DEFAULT_MIN_TRIALS, REUSE_MODES

    add_store_argument(p)
    p.add_argument(
        "--reuse",
        choices=REUSE_MODES,
        default="warm",
        help="best: tasks with enough trials in the store are not tuned again; warm: every "
        "search starts from the store and the fleet cost model; off (default: warm)",
    )
    p.add_argument(
        "--reuse-min-trials",
        type=number(int, 1),
        default=DEFAULT_MIN_TRIALS,
        metavar="N",
        help=f"--reuse best: trials a task needs in the store (default: {DEFAULT_MIN_TRIALS})",
    )


LOG_FORMATS = ("auto", "live", "plain", "autotvm", "json")  # = tune.progress.MODES less quiet


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    """--quiet, --verbose, --log-format: how much a tune shows while it runs."""
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "-q", "--quiet", action="store_true", help="print only the result, no progress"
    )
    group.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print the scheduler table after every round",
    )
    p.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default="auto",
        help="progress while tuning: live (a display rewritten in place), plain (a line per "
        "round), autotvm (AutoTVM's lines and the table every round, for parsers), json (an "
        "object per round); auto: live on a terminal, plain elsewhere (default: auto)",
    )


def reporter(args: argparse.Namespace, stream: Any):
    """The tune.progress Reporter that --quiet/--verbose/--log-format ask for, on `stream`."""
    from tunefarm.tune.progress import make_reporter

    mode = "quiet" if args.quiet else args.log_format
    return make_reporter(mode, stream, verbose=args.verbose)
