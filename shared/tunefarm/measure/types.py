"""Records that cross the builder/runner interface.

Everything here is a small frozen dataclass with `to_json()` / `from_json()`, because a
Celery-backed builder or runner sends the same objects over a queue and the tuner writes them
to records. The only exception is `KernelIO` (numpy arrays), which never leaves the machine
that measures: it travels parent -> child as an `.npz` file.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.task import Task

_INF = float("inf")


def _freeze_value(name: str, value: Any) -> Any:
    """Normalise a knob value to hashable JSON data: lists -> tuples, numpy scalars -> Python."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze_value(name, v) for v in value)
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(
        f"Config value for knob {name!r} must be a JSON scalar or a list of them, "
        f"got {type(value).__name__} {value!r}"
    )


def _thaw_value(value: Any) -> Any:
    """Tuples back to lists for JSON output."""
    if isinstance(value, tuple):
        return [_thaw_value(v) for v in value]
    return value


@dataclass(frozen=True)
class Config:
    """One point of a config space: ordered (knob name, value) pairs plus its index if known."""

    values: tuple[tuple[str, Any], ...] = ()
    index: int | None = None

    def __post_init__(self) -> None:
        pairs = tuple((str(k), _freeze_value(str(k), v)) for k, v in self.values)
        names = [k for k, _ in pairs]
        if len(set(names)) != len(names):
            raise ValueError(f"Config values has duplicate knob names: {names}")
        if self.index is not None and (isinstance(self.index, bool) or self.index < 0):
            raise ValueError(f"Config index must be a non-negative int or None, got {self.index!r}")
        object.__setattr__(self, "values", pairs)

    @staticmethod
    def make(values: dict[str, Any], index: int | None = None) -> Config:
        """Build from a dict (knob order = dict order)."""
        if not isinstance(values, dict):
            raise ValueError(f"Config.make values must be a dict, got {type(values).__name__}")
        return Config(values=tuple(values.items()), index=index)

    def get(self, name: str) -> Any:
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(f"Config has no knob {name!r}; knobs are {[k for k, _ in self.values]}")

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "values": {k: _thaw_value(v) for k, v in self.values}}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Config:
        return Config.make(dict(obj["values"]), index=obj.get("index"))


@dataclass(frozen=True)
class MeasureInput:
    """What to build and measure: a task and one config of its space."""

    task: Task
    config: Config

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task.to_json(), "config": self.config.to_json()}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MeasureInput:
        return MeasureInput(Task.from_json(obj["task"]), Config.from_json(obj["config"]))


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument buffer: name, shape and dtype in *kernel* layout.

    exact: an output the kernel computes bit-exactly (integer arithmetic, stated rounding):
    it is checked for equality, with no tolerance.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    is_output: bool = False
    exact: bool = False

    def __post_init__(self) -> None:
        shape = tuple(self.shape)
        if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
            raise ValueError(f"ArgSpec {self.name!r} shape must be non-negative ints, got {shape}")
        try:
            dtype = np.dtype(self.dtype).name
        except TypeError as exc:
            raise ValueError(f"ArgSpec {self.name!r} dtype {self.dtype!r} is not a dtype") from exc
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", dtype)

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "shape": list(self.shape),
            "dtype": self.dtype,
            "is_output": self.is_output,
        }
        if self.exact:  # only when set, so float kernels' records stay as they were
            out["exact"] = True
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> ArgSpec:
        return ArgSpec(
            obj["name"],
            tuple(obj["shape"]),
            obj["dtype"],
            bool(obj["is_output"]),
            bool(obj.get("exact", False)),
        )


def _specs_json(specs: tuple[ArgSpec, ...]) -> list[dict[str, Any]]:
    return [s.to_json() for s in specs]


def _specs_from_json(objs: list[dict[str, Any]]) -> tuple[ArgSpec, ...]:
    return tuple(ArgSpec.from_json(o) for o in objs)


@dataclass(frozen=True)
class Toolchain:
    """How a backend's source becomes a loadable artifact: a compiler found on PATH, its flags
    and file suffixes. `compiler` "" means no build step (the device's driver compiles the
    source when it loads it, as OpenCL does); the artifact is then the source itself.

    in_process: a module that compiles in the build worker's own process instead of running
    `compiler` (NVRTC: `tunefarm.backends.cuda.nvrtc`); it has `compile_file(source,
    artifact, options) -> log` and `identity() -> str`. `compiler` then only names it."""

    compiler: str
    flags: tuple[str, ...] = ()  # compile flags
    link: tuple[str, ...] = ()  # flags that make the loadable artifact (e.g. -shared)
    libs: tuple[str, ...] = ()  # after the sources on the command line (the linker wants them)
    source_suffix: str = ".c"
    artifact_suffix: str = ".so"
    in_process: str = ""

    def __post_init__(self) -> None:
        for name in ("flags", "link", "libs"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def command(self, source: str, artifact: str, extra: tuple[str, ...] = ()) -> list[str]:
        """The command line that compiles `source` into `artifact` in one step."""
        return [self.compiler, *self.flags, *self.link, *extra, "-o", artifact, source, *self.libs]

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Toolchain:
        return Toolchain(**obj)


@dataclass(frozen=True)
class KernelSource:
    """The source of one candidate and how to build it, following its backend's kernel ABI
    (for host code: `tf_entry` / `tf_time`, see `measure.host`).

    entry: name of the kernel function inside `code` (informational).
    io_key: identifies the argument layouts; candidates with equal io_key share reference data.
    flops: floating-point operations of one run, for GFLOP/s reporting.
    toolchain: the compiler command of the source's backend and target.
    """

    code: str
    entry: str
    arg_specs: tuple[ArgSpec, ...]
    io_key: str
    flops: float
    toolchain: Toolchain

    def __post_init__(self) -> None:
        object.__setattr__(self, "arg_specs", tuple(self.arg_specs))

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "entry": self.entry,
            "arg_specs": _specs_json(self.arg_specs),
            "io_key": self.io_key,
            "flops": self.flops,
            "toolchain": self.toolchain.to_json(),
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> KernelSource:
        return KernelSource(
            obj["code"],
            obj["entry"],
            _specs_from_json(obj["arg_specs"]),
            obj["io_key"],
            float(obj["flops"]),
            Toolchain.from_json(obj["toolchain"]),
        )


@dataclass(frozen=True, eq=False)
class KernelIO:
    """Reference data: arrays in kernel layout and arg order (outputs included, as their
    initial contents), and `expected[pos]` = reference value of output arg `pos`."""

    args: list[np.ndarray]
    expected: dict[int, np.ndarray] = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        """Write to an uncompressed .npz (the runner's child loads it once per candidate)."""
        arrays = {f"arg{i}": np.ascontiguousarray(a) for i, a in enumerate(self.args)}
        arrays.update({f"exp{k}": np.ascontiguousarray(v) for k, v in self.expected.items()})
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @staticmethod
    def load(path: str | Path) -> KernelIO:
        with np.load(path, allow_pickle=False) as data:
            names = list(data.keys())
            args = [data[f"arg{i}"] for i in range(sum(n.startswith("arg") for n in names))]
            expected = {int(n[3:]): data[n] for n in names if n.startswith("exp")}
        return KernelIO(args, expected)


@dataclass(frozen=True)
class MeasureSettings:
    """How to time a candidate (TVM time-evaluator semantics) and check its answer.

    number: runs per timed call (grown until one call lasts `min_repeat_ms`).
    repeat: timed calls; one cost each. flush_cache: write 64 MiB before each repeat.
    cooldown_ms: sleep between repeats. timeout_s: limit for one candidate's child process.
    rtol / atol_rel: pass if |out-ref| <= atol_rel*max(1, max|ref|) + rtol*|ref|.
    max_repeat / target_cv: repeats chosen by their spread. With max_repeat > repeat, timing
    stops after `repeat` calls if the coefficient of variation of the costs so far is at
    most `target_cv`, and otherwise adds one call at a time until it is or `max_repeat`
    calls are made (the result's costs say how many). 0 (the default) keeps `repeat` fixed;
    these two fields appear in JSON only when set, so records stay as they were.
    give_up_s: a host candidate whose checked first run takes longer than this (seconds)
    and than `min_repeat_ms` is timed by that run alone, once its answer is checked. The
    tuner sets it at a few times the incumbent's cost (`Tuner.give_up_factor`), so a kernel
    that cannot be the best does not also pay its repeats; 0 (the default, and always for
    device kernels) times every candidate fully. In JSON only when set. In the persistent
    measurer a checked run `child.CUT_FACTOR` times over it is stopped, and timed at that
    deadline (`child.cut_after`).
    """

    number: int = 1
    repeat: int = 3
    min_repeat_ms: float = 100
    flush_cache: bool = False
    cooldown_ms: float = 0
    timeout_s: float = 10.0
    check_correctness: bool = True
    rtol: float = 1e-4
    atol_rel: float = 1e-4
    max_repeat: int = 0
    target_cv: float = 0.0
    give_up_s: float = 0.0

    def __post_init__(self) -> None:
        for name in ("number", "repeat"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"MeasureSettings.{name} must be an int >= 1, got {value!r}")
        for name in ("min_repeat_ms", "cooldown_ms", "rtol", "atol_rel", "give_up_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not (0 <= value < _INF):
                raise ValueError(
                    f"MeasureSettings.{name} must be a finite number >= 0, got {value!r}"
                )
        if not isinstance(self.timeout_s, (int, float)) or not (0 < self.timeout_s < _INF):
            raise ValueError(
                f"MeasureSettings.timeout_s must be > 0 seconds, got {self.timeout_s!r}"
            )
        cap = self.max_repeat
        if isinstance(cap, bool) or not isinstance(cap, int) or (cap and cap < self.repeat):
            raise ValueError(
                f"MeasureSettings.max_repeat must be 0 (fixed repeats) or an int >= repeat "
                f"({self.repeat}), got {cap!r}"
            )
        if not isinstance(self.target_cv, (int, float)) or not (0 <= self.target_cv < _INF):
            raise ValueError(
                f"MeasureSettings.target_cv must be a finite number >= 0, got {self.target_cv!r}"
            )

    @property
    def adaptive(self) -> bool:
        """Whether the number of repeats follows their spread (`max_repeat` > `repeat`)."""
        return self.max_repeat > self.repeat

    def to_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if not self.max_repeat and not self.target_cv:  # the format before adaptive repeats
            del out["max_repeat"], out["target_cv"]
        if not self.give_up_s:
            del out["give_up_s"]
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MeasureSettings:
        return MeasureSettings(**obj)


@dataclass(frozen=True)
class BuildResult:
    """Outcome of building one candidate: an artifact path, or an error code."""

    artifact: str | None
    arg_specs: tuple[ArgSpec, ...] = ()
    io_key: str = ""
    flops: float = 0.0
    error_no: MeasureErrorNo = MeasureErrorNo.NO_ERROR
    error_msg: str = ""
    build_seconds: float = 0.0
    source_hash: str = ""
    compiler: str = ""  # the build worker's compiler version (`compiler_identity`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "arg_specs", tuple(self.arg_specs))
        object.__setattr__(self, "error_no", MeasureErrorNo(self.error_no))

    @property
    def ok(self) -> bool:
        return self.error_no == MeasureErrorNo.NO_ERROR and self.artifact is not None

    @staticmethod
    def failed(
        error_no: MeasureErrorNo, msg: str, build_seconds: float = 0.0, source_hash: str = ""
    ) -> BuildResult:
        return BuildResult(
            None,
            error_no=error_no,
            error_msg=msg,
            build_seconds=build_seconds,
            source_hash=source_hash,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact": self.artifact,
            "arg_specs": _specs_json(self.arg_specs),
            "io_key": self.io_key,
            "flops": self.flops,
            "error_no": int(self.error_no),
            "error_msg": self.error_msg,
            "build_seconds": self.build_seconds,
            "source_hash": self.source_hash,
            "compiler": self.compiler,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> BuildResult:
        return BuildResult(
            obj["artifact"],
            _specs_from_json(obj["arg_specs"]),
            obj["io_key"],
            float(obj["flops"]),
            MeasureErrorNo(obj["error_no"]),
            obj["error_msg"],
            float(obj["build_seconds"]),
            obj["source_hash"],
            str(obj.get("compiler", "")),
        )


NOISY_PREFIX = "noisy:"  # error_msg of a result whose repeats disagree beyond the limit


@dataclass(frozen=True)
class Recheck:
    """A would-be new best timed again against the incumbent in alternating rounds before it
    was believed (`tune.recheck`).

    against: the incumbent's config index. costs / incumbent_costs: one median per round,
    the two timed back to back in alternating order. first_costs: the candidate's costs from
    its own batch (its result's costs are then this recheck's). believed: whether it beat
    the incumbent in the rechecked figures (median of the rounds).
    """

    against: int
    costs: tuple[float, ...]
    incumbent_costs: tuple[float, ...]
    first_costs: tuple[float, ...]
    believed: bool

    def __post_init__(self) -> None:
        for name in ("costs", "incumbent_costs", "first_costs"):
            object.__setattr__(self, name, tuple(float(c) for c in getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        return {
            "against": self.against,
            "costs": list(self.costs),
            "incumbent_costs": list(self.incumbent_costs),
            "first_costs": list(self.first_costs),
            "believed": self.believed,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Recheck:
        against = obj["against"]
        if isinstance(against, bool) or not isinstance(against, int):
            raise ValueError(f"recheck 'against' must be a config index, got {against!r}")
        return Recheck(
            against,
            tuple(obj["costs"]),
            tuple(obj["incumbent_costs"]),
            tuple(obj["first_costs"]),
            bool(obj["believed"]),
        )


@dataclass(frozen=True)
class MeasureResult:
    """Outcome of measuring one candidate.

    costs: seconds per run, one per repeat (empty on error).
    all_cost: wall seconds spent on this candidate (build + run), for tuning-time accounting.
    settings: the settings used, with `number` set to the value the timing loop settled on.
    recheck: set on a candidate that was re-timed against the incumbent before it was
        believed to be a new best (`Recheck`); None otherwise (and absent from JSON).
    """

    costs: tuple[float, ...]
    error_no: MeasureErrorNo
    error_msg: str
    all_cost: float
    timestamp: float
    settings: MeasureSettings
    compiler: str = ""  # the compiler version that built the candidate, where known
    recheck: Recheck | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "costs", tuple(float(c) for c in self.costs))
        object.__setattr__(self, "error_no", MeasureErrorNo(self.error_no))

    @property
    def ok(self) -> bool:
        return self.error_no == MeasureErrorNo.NO_ERROR and bool(self.costs)

    @property
    def refuted(self) -> bool:
        """Whether its recheck found it slower than the incumbent it was to replace: its
        costs are then not to rank it by (`tune.dispatch`, `Tuner.observe`)."""
        return self.recheck is not None and not self.recheck.believed

    @property
    def min(self) -> float:
        return min(self.costs) if self.ok else _INF

    @property
    def median(self) -> float:
        return statistics.median(self.costs) if self.ok else _INF

    @property
    def mean(self) -> float:
        return math.fsum(self.costs) / len(self.costs) if self.ok else _INF

    @property
    def cv(self) -> float:
        """Coefficient of variation of the repeats (stdev / mean): how far one figure can be
        trusted. 0 with fewer than two repeats; inf for a failed measurement."""
        if not self.ok:
            return _INF
        if len(self.costs) < 2 or self.mean <= 0:
            return 0.0
        return statistics.stdev(self.costs) / self.mean

    @property
    def noisy(self) -> bool:
        """Measured, but with a spread over the limit even after a re-measurement (the
        runner says so in `error_msg`, which a clean result leaves empty)."""
        return self.ok and self.error_msg.startswith(NOISY_PREFIX)

    def to_json(self) -> dict[str, Any]:
        return {
            "costs": list(self.costs),
            "error_no": int(self.error_no),
            "error_msg": self.error_msg,
            "all_cost": self.all_cost,
            "timestamp": self.timestamp,
            "settings": self.settings.to_json(),
            **({"compiler": self.compiler} if self.compiler else {}),
            **({"recheck": self.recheck.to_json()} if self.recheck else {}),
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MeasureResult:
        return MeasureResult(
            tuple(obj["costs"]),
            MeasureErrorNo(obj["error_no"]),
            obj["error_msg"],
            float(obj["all_cost"]),
            float(obj["timestamp"]),
            MeasureSettings.from_json(obj["settings"]),
            str(obj.get("compiler", "")),
            Recheck.from_json(obj["recheck"]) if obj.get("recheck") else None,
        )
