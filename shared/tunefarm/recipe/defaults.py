"""The untuned kernel as a record: under the sketch policy, measure each sketch-searched
task's template default config once.

The sketch search starts from the template's default schedule as a sketch of the compute
definition, which is not always the kernel the template emits for its default config (the
CPU conv2d's blocked, register-tiled code): on squeezenet1_1 (one core, CPU time) a 32 -> 128
3x3 conv's "default" sketch measured 1.62 ms and its best of 4 sketches 0.72 ms, while the
template's own default kernel, the one the untuned network runs, takes 0.49 ms. A network
compiled from the records takes any task's best record over the default config, so such a
task made the tuned network slower than the untuned one. With the template default measured
into the log beside the sketches, the best record is the untuned kernel wherever nothing
searched beats it. Where the template's default is a schedule of the compute definition (no
code of its own), the search's first sketch would be that same kernel: the search takes this
measurement for it instead of measuring it again (`SketchTuner.load_default`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tunefarm.backends import registry
from tunefarm.graph.extract import NetworkTask
from tunefarm.measure.types import MeasureInput
from tunefarm.tune.policy import uses_sketch
from tunefarm.tune.records import append_records, load_records, make_record
from tunefarm.tune.tuner import MeasureOption


def unmeasured_defaults(
    tasks: Sequence[NetworkTask], policy: str, log: str | os.PathLike, device_key: str
) -> list[MeasureInput]:
    """The template defaults of the sketch-searched tasks that `log` does not hold a record
    of (on `device_key`): what `measure_defaults` measures."""
    have = set()
    if Path(log).is_file():
        have = {
            (r.workload_key, r.config.index)
            for r in load_records(log, [])
            if r.device_key == device_key and r.config.index is not None
        }
    out, seen = [], set()
    for t in tasks:
        task = t.task
        if task in seen or not uses_sketch(policy, task):
            continue
        seen.add(task)
        default = registry.default_config(task)
        if (task.workload_key, default.index) not in have:
            out.append(MeasureInput(task, default))
    return out


def measure_defaults(
    tasks: Sequence[NetworkTask],
    policy: str,
    log: str | os.PathLike,
    option: MeasureOption,
    device_key: str,
    on_measured: Callable[[Any, Sequence[MeasureInput], Sequence[Any]], Any] | None = None,
) -> int:
    """Measure the missing template defaults (see the module) and append them to `log`;
    returns how many were measured. They are not trials of the scheduler's budget.
    `on_measured(None, inputs, results)` (a tuner callback, no tuner behind it) then gets
    them too: the services' store callback, so they reach the record store like every
    other record of the job."""
    inputs = unmeasured_defaults(tasks, policy, log, device_key)
    if not inputs:
        return 0
    results = option.measure(inputs)
    pairs = zip(inputs, results, strict=True)
    append_records(log, [make_record(i, r, device_key) for i, r in pairs])
    if on_measured is not None:
        on_measured(None, inputs, results)
    return len(inputs)
