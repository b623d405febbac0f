"""The `--ops` list of the benchmarks that run named ops (autoscheduler.py,
time_to_quality.py, search_depth.py): names and group names, comma-separated."""

from __future__ import annotations

from collections.abc import Mapping


def select_names(
    text: str, ops: Mapping[str, object], groups: Mapping[str, list[str]]
) -> list[str]:
    """Op names from a comma-separated list of names in `ops` and groups in `groups`, in
    order, each once; ValueError naming what is unknown and listing what is known."""
    names: list[str] = []
    unknown = []
    for item in filter(None, (x.strip() for x in text.split(","))):
        found = groups.get(item, [item] if item in ops else None)
        if found is None:
            unknown.append(item)
        names += [n for n in found or [] if n not in names]
    if unknown:
        raise ValueError(f"unknown {unknown}; groups: {', '.join(groups)}; ops: {', '.join(ops)}")
    return names
