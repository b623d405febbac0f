"""Layer 4, measurement: build candidates to shared objects and time them safely.

`Builder.build(inputs) -> [BuildResult]` and `Runner.run(inputs, builds) -> [MeasureResult]`,
batch in, batch out; a bad candidate is a result with a `MeasureErrorNo`, never an exception.
"""

from tunefarm.measure.builder import Builder, LocalBuilder
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.hooks import IOFactory, SourceGenerator, default_generate, default_io
from tunefarm.measure.runner import LocalRunner, Runner
from tunefarm.measure.timing import Timing, time_evaluator
from tunefarm.measure.types import (
    ArgSpec,
    BuildResult,
    Config,
    KernelIO,
    KernelSource,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
)

__all__ = [
    "ArgSpec",
    "Builder",
    "BuildResult",
    "Config",
    "IOFactory",
    "KernelIO",
    "KernelSource",
    "LocalBuilder",
    "LocalRunner",
    "MeasureErrorNo",
    "MeasureInput",
    "MeasureResult",
    "MeasureSettings",
    "Runner",
    "SourceGenerator",
    "Timing",
    "default_generate",
    "default_io",
    "time_evaluator",
]
