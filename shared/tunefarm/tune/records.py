"""Tuning records: one versioned JSON line per measurement, and what is read back from them.

A record is everything needed to trust, replay and reuse one measurement later: the task (and
its workload key and target), the device it ran on, the config with its index, the timing
settings and the result. Files are append-only JSON lines, fsync'd per batch, so a tuning job
that is killed loses at most the line being written; readers skip such a line (and any other
corrupt one) with a message naming it instead of giving up on the file.

Readers: `best_by_workload`, `pick_best` (AutoTVM's pick_best), `distill` (auto_scheduler's
distill), `history_for` (resume a tuner) and `ApplyHistoryBest` (which config to compile with,
and if none, why not).
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tunefarm.backends import registry
from tunefarm.measure import (
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
    Recheck,
)
from tunefarm.task import Task

RECORD_VERSION = 1
PathLike = str | os.PathLike[str]
Callback = Callable[[Any, Sequence[MeasureInput], Sequence[MeasureResult]], None]
_log = logging.getLogger(__name__)
_SHOWN = 60  # characters of a bad value quoted in an error message


class RecordError(ValueError):
    """One record (a JSON object) that is not a valid tuning record; names the bad field."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _require(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """obj[name] if present and of `kind` (bools are not ints here); else RecordError."""
    if name not in obj:
        raise RecordError(f"missing field {name!r}")
    value = obj[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"field {name!r} must be {what}, got {_show(value)}")
    return value


def _seconds(value: Any, name: str) -> float:
    """A JSON time: a number >= 0, or null for 'no time' (strict JSON has no Infinity)."""
    if value is None:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise RecordError(f"field {name!r} must be seconds >= 0 or null, got {_show(value)}")
    return float(value)


def _json_seconds(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _parse(name: str, parse: Callable[[Any], Any], obj: Any) -> Any:
    """Run another type's from_json; turn whatever it raises into a RecordError naming `name`."""
    try:
        return parse(obj)
    except KeyError as exc:
        raise RecordError(f"field {name!r} lacks key {exc.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise RecordError(f"field {name!r} is invalid: {exc}") from None


def _task_from_json(obj: dict[str, Any]) -> Task:
    if not isinstance(obj.get("op"), str) or not isinstance(obj.get("params"), dict):
        raise ValueError("needs 'op' (a string) and 'params' (an object)")
    return Task.from_json(obj)


def _config_from_json(obj: dict[str, Any]) -> Config:
    index = obj.get("index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise ValueError(f"index must be an int or null, got {_show(index)}")
    if not isinstance(obj.get("values"), dict):
        raise ValueError("'values' must be an object of knob values")
    return Config.from_json(obj)


@dataclass(frozen=True)
class Record:
    """One measurement of one config of one task on one device; a line of a records file.

    target repeats task.target and workload_key repeats task.workload_key, so that readers
    can group lines without rebuilding tasks, and a line edited inconsistently is caught.
    device_key names the machine (or pool of identical machines) that measured it: costs
    from different devices are not comparable. `result` is the measurement as the tuner saw
    it; a line stores its fields flat, beside the others.
    """

    version: int
    workload_key: str
    task: Task
    target: str
    device_key: str
    config: Config
    result: MeasureResult

    @property
    def ok(self) -> bool:
        return self.result.ok

    @property
    def cost(self) -> float:
        """Median seconds per run, inf for a failed measurement (so it sorts last)."""
        return self.result.median

    @property
    def ranked(self) -> bool:
        """Whether it may be a best record: valid, and not refuted by its recheck
        (`MeasureResult.refuted`: its costs are those of rounds it lost against a faster
        incumbent). Every best-record lookup ranks these by cost and only these
        (`best_by_workload`, `ApplyHistoryBest`, the record store's best / top-k / pages)."""
        return self.result.ok and not self.result.refuted

    def to_json(self) -> dict[str, Any]:
        """One JSON object; non-finite times become null so the line is strict JSON."""
        res = self.result
        return {
            "version": self.version,
            "workload_key": self.workload_key,
            "target": self.target,
            "device_key": self.device_key,
            "task": self.task.to_json(),
            "config": self.config.to_json(),
            "costs": [_json_seconds(c) for c in res.costs],
            "error_no": int(res.error_no),
            "error_msg": res.error_msg,
            "all_cost": _json_seconds(res.all_cost),
            "timestamp": _json_seconds(res.timestamp),
            "settings": res.settings.to_json(),
            **({"compiler": res.compiler} if res.compiler else {}),  # e.g. nvcc's release
            **({"recheck": res.recheck.to_json()} if res.recheck else {}),  # tune.recheck
        }

    @staticmethod
    def from_json(obj: Any) -> Record:
        """Parse and check one object; RecordError (a ValueError) names the bad field."""
        if not isinstance(obj, Mapping):
            raise RecordError(f"a record must be a JSON object, got {type(obj).__name__}")
        version = obj.get("version")
        if "version" not in obj:
            raise RecordError("missing field 'version'")
        if isinstance(version, bool) or version != RECORD_VERSION:
            raise RecordError(
                f"unknown record version {_show(version)} (this tunefarm reads {RECORD_VERSION})"
            )
        task = _parse("task", _task_from_json, _require(obj, "task", dict, "an object"))
        key = _require(obj, "workload_key", str, "a string")
        if key != task.workload_key:
            raise RecordError(
                f"field 'workload_key' {key!r} is not its task's {task.workload_key!r}"
            )
        target = _require(obj, "target", str, "a string")
        if target != task.target:
            raise RecordError(f"field 'target' {target!r} is not its task's {task.target!r}")
        device_key = _require(obj, "device_key", str, "a string")
        if not device_key:
            raise RecordError("field 'device_key' is empty")
        config = _parse("config", _config_from_json, _require(obj, "config", dict, "an object"))
        return Record(RECORD_VERSION, key, task, target, device_key, config, _result(obj))


def _result(obj: Mapping[str, Any]) -> MeasureResult:
    """The measurement fields of a record line, checked."""
    error_no = _require(obj, "error_no", int, "an int")
    if error_no not in set(MeasureErrorNo):
        raise RecordError(f"field 'error_no' {error_no} is not a known MeasureErrorNo")
    settings = _require(obj, "settings", dict, "an object")
    settings = _parse("settings", lambda o: MeasureSettings.from_json(o), settings)
    costs = tuple(_seconds(c, "costs") for c in _require(obj, "costs", list, "a list"))
    error_msg = _require(obj, "error_msg", str, "a string")
    all_cost = _seconds(_require(obj, "all_cost", (int, float, type(None)), "a number"), "all_cost")
    timestamp = _seconds(_require(obj, "timestamp", (int, float), "a number"), "timestamp")
    compiler = obj.get("compiler", "")
    if not isinstance(compiler, str):
        raise RecordError(f"field 'compiler' must be a string, got {_show(compiler)}")
    recheck = obj.get("recheck")
    if recheck is not None:
        if not isinstance(recheck, dict):
            raise RecordError(f"field 'recheck' must be an object, got {_show(recheck)}")
        recheck = _parse("recheck", Recheck.from_json, recheck)
    return MeasureResult(
        costs,
        MeasureErrorNo(error_no),
        error_msg,
        all_cost,
        timestamp,
        settings,
        compiler,
        recheck,
    )


def make_record(inp: MeasureInput, res: MeasureResult, device_key: str = "local") -> Record:
    """The record of measuring `inp` with result `res` on the device called `device_key`."""
    if not isinstance(device_key, str) or not device_key:
        raise RecordError(f"device_key must be a non-empty string, got {_show(device_key)}")
    task = inp.task
    return Record(RECORD_VERSION, task.workload_key, task, task.target, device_key, inp.config, res)


def _line(record: Record) -> str:
    return json.dumps(record.to_json(), separators=(",", ":"), allow_nan=False) + "\n"


# -- files -----------------------------------------------------------------------------------
def append_records(path: PathLike, records: Iterable[Record]) -> int:
    """Append one line per record with a single write, then flush and fsync; returns the count.

    If the file ends in a partial line (a writer was killed mid-line), a newline goes first so
    that the partial line stays one skippable bad line instead of corrupting the next record.
    """
    lines = [_line(r) for r in records]
    text = "".join(lines)
    if not lines:
        return 0
    with open(path, "a+b") as fh:
        if fh.seek(0, os.SEEK_END) > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                text = "\n" + text
        fh.write(text.encode("utf-8"))  # O_APPEND: lands at the end whatever the position
        fh.flush()
        os.fsync(fh.fileno())
    return len(lines)


def _parse_line(raw: bytes, at_end: bool) -> Record:
    """One line to a Record; RecordError says what is wrong with it."""
    truncated = at_end and not raw.endswith(b"\n")
    try:
        obj = json.loads(raw.strip().decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        what = "truncated line (no newline at end of file)" if truncated else "not valid JSON"
        raise RecordError(f"{what}: {exc.msg} (column {exc.colno})") from None
    return Record.from_json(obj)


def load_records(path: PathLike, errors: list[str] | None = None) -> list[Record]:
    """Every valid record of a file, in file order; bad lines are skipped, never raised.

    Each skipped line adds "<path>:<line>: <what is wrong>" to `errors` (or is logged as a
    warning when `errors` is None). Blank lines are ignored. A missing file raises
    FileNotFoundError: that is a wrong path, not bad content.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"records file {str(p)!r} does not exist")
    out: list[Record] = []
    with open(p, "rb") as fh:
        lines = fh.readlines()
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            out.append(_parse_line(raw, lineno == len(lines)))
        except RecordError as exc:
            message = f"{p}:{lineno}: {exc}"
            if errors is None:
                _log.warning("skipping record: %s", message)
            else:
                errors.append(message)
    return out


def _write_atomic(path: PathLike, records: Iterable[Record]) -> int:
    """Replace `path` with exactly these records (temp file + rename: never half-written)."""
    p = Path(path)
    if not p.parent.is_dir():
        raise FileNotFoundError(f"cannot write {str(p)!r}: directory {str(p.parent)!r} is missing")
    lines = [_line(r) for r in records]
    mode = p.stat().st_mode & 0o777 if p.exists() else 0o644  # mkstemp's 0o600 would stick
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(lines)


# -- best records ----------------------------------------------------------------------------
def best_by_workload(records: Iterable[Record]) -> dict[tuple[str, str], Record]:
    """The fastest ranked record (`Record.ranked`) per (workload_key, target); the earliest
    wins a tie."""
    best: dict[tuple[str, str], Record] = {}
    for r in records:
        if not r.ranked:
            continue
        key = (r.workload_key, r.target)
        if key not in best or r.cost < best[key].cost:
            best[key] = r
    return best


def pick_best(in_path: PathLike, out_path: PathLike, errors: list[str] | None = None) -> int:
    """Write the best ranked record per workload+target of `in_path` to a new `out_path`.

    Returns the number written. `errors` collects skipped-line messages as in load_records.
    """
    best = best_by_workload(load_records(in_path, errors))
    return _write_atomic(out_path, best.values())


def distill(in_path: PathLike, out_path: PathLike, errors: list[str] | None = None) -> int:
    """Merge the best of `in_path` into `out_path`: afterwards `out_path` holds the best ranked
    record per workload+target of both files (its own records win ties). Returns the count."""
    kept = load_records(out_path, errors) if Path(out_path).exists() else []
    best = best_by_workload([*kept, *load_records(in_path, errors)])
    return _write_atomic(out_path, best.values())


def as_records(records: Iterable[Record] | PathLike, errors: list[str] | None) -> list[Record]:
    if isinstance(records, (str, os.PathLike)):
        return load_records(records, errors)
    out = list(records)
    bad = next((r for r in out if not isinstance(r, Record)), None)
    if bad is not None:
        raise RecordError(f"expected Record objects or a path, got a {type(bad).__name__}")
    return out


def history_for(
    task: Task,
    records: Iterable[Record] | PathLike,
    device_key: str | None = None,
    space: Any = None,
) -> list[tuple[int, MeasureResult]]:
    """(config index, result) of every record of this task's workload and target, failed ones
    included (a tuner should not propose them again), to pass to `Tuner.load_history`.

    The index is recomputed from the knob values when `config.index` does not match them
    (the space changed since); records whose values are not in today's space are skipped.
    With `device_key`, only records measured on that device count. `space`: the tuner's own
    space when it is not the template's (a sketch tuner's table of step lists).
    """
    space = space if space is not None else registry.config_space(task)
    out: list[tuple[int, MeasureResult]] = []
    skipped = 0
    for r in as_records(records, None):
        if r.workload_key != task.workload_key or r.target != task.target:
            continue
        if device_key is not None and r.device_key != device_key:
            continue
        try:
            index = space.index_of(r.config.as_dict())
        except ValueError:
            skipped += 1
            continue
        out.append((index, r.result))
    if skipped:
        _log.info("history for %s: %d record(s) not in the config space skipped", task, skipped)
    return out


# -- writing records while tuning ------------------------------------------------------------
def log_to_file(path: PathLike, device_key: str = "local") -> Callback:
    """A `Tuner.tune` callback that appends one record per measurement as batches arrive.

    The directory is checked now, so a typo fails before the first batch is measured.
    """
    parent = Path(path).parent
    if not parent.is_dir():
        raise FileNotFoundError(
            f"cannot log to {str(path)!r}: directory {str(parent)!r} is missing"
        )
    if not isinstance(device_key, str) or not device_key:
        raise RecordError(f"device_key must be a non-empty string, got {_show(device_key)}")

    def callback(
        tuner: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
    ) -> None:
        records = [make_record(i, r, device_key) for i, r in zip(inputs, results, strict=True)]
        append_records(path, records)

    return callback
