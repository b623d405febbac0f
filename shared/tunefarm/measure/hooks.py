"""Where the measure layer gets C source and reference data from.

The builder and runner know nothing about operators; the op registry
(`tunefarm.templates.registry`) turns a MeasureInput into C code and into reference arrays.
The registry is imported lazily so that the measure layer has no import-time dependency on
the templates (and tests can plug in hand-written kernels instead).

Builds run in a process pool, so a `SourceGenerator` must be a picklable module-level
function. An `IOFactory` runs in the runner's own process and may be any callable.
"""

from __future__ import annotations

from collections.abc import Callable

from tunefarm.measure.types import KernelIO, KernelSource, MeasureInput

SourceGenerator = Callable[[MeasureInput], KernelSource]
IOFactory = Callable[[MeasureInput, int], KernelIO]  # (input, seed) -> reference data


def default_generate(inp: MeasureInput) -> KernelSource:
    """C source for `inp` from the op registry."""
    from tunefarm.templates import registry

    return registry.generate_source(inp)


def default_io(inp: MeasureInput, seed: int) -> KernelIO:
    """Seeded reference inputs and outputs for `inp` from the op registry."""
    from tunefarm.templates import registry

    return registry.reference_io(inp, seed)
