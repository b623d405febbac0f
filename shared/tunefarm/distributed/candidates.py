"""One candidate's build and measurement in the services: what a build worker and a device
agent run for each message of a `CeleryBuilder` / `CeleryRunner` batch."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

from tunefarm.backends import registry
from tunefarm.distributed import simulate
from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.remote import localize
from tunefarm.measure.compile import BuildJob, build_one
from tunefarm.measure.runner import LocalRunner
from tunefarm.measure.types import BuildResult, MeasureInput, MeasureSettings


def build_candidate(
    config: ServiceConfig, inp_json: dict, timeout_s: float, options: list[str]
) -> dict[str, Any]:
    """On a build worker: generate and compile one candidate into the store's kernel cache
    (keyed by source hash, so a repeated build is a cache hit). Under TUNEFARM_SIMULATE,
    a delay stands in for the compile."""
    sim = simulate.Simulation.parse(config.simulate)
    if sim is not None:
        return simulate.build(sim, inp_json)
    store = ArtifactStore(config.artifacts)
    job = BuildJob(
        MeasureInput.from_json(inp_json),
        registry.generate_source,
        "",
        tuple(options),
        str(store.kernels_dir()),
        float(timeout_s),
    )
    result = build_one(job)
    if result.artifact is not None:
        result = replace(result, artifact=store.relative(result.artifact))
    return result.to_json()


class AgentRunner:
    """On a device agent: one LocalRunner per measure settings (it caches reference data per
    workload) for the agent's device kind, fed with build results localised to this host's
    artifact store."""

    def __init__(self, config: ServiceConfig, kind: str = "cpu") -> None:
        self.store = ArtifactStore(config.artifacts)
        self.kind = kind
        self._runners: dict[str, LocalRunner] = {}
        self.simulation = simulate.Simulation.parse(config.simulate)

    def measure(self, build_json: dict, inp_json: dict, settings_json: dict) -> dict[str, Any]:
        if self.simulation is not None:  # the scale harness: a delay, a deterministic cost
            return simulate.measure(self.simulation, inp_json, settings_json)
        key = json.dumps(settings_json, sort_keys=True)
        if key not in self._runners:
            settings = MeasureSettings.from_json(settings_json)
            self._runners[key] = registry.local_runner(settings, self.kind)
        build = localize(BuildResult.from_json(build_json), self.store)
        start = time.perf_counter()
        result = self._runners[key].run([MeasureInput.from_json(inp_json)], [build])[0]
        return {**result.to_json(), "agent_seconds": time.perf_counter() - start}
