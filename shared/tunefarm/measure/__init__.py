"""Layer 4, measurement: build candidates and time them safely, on any backend.

`Builder.build(inputs) -> [BuildResult]` and `Runner.run(inputs, builds) -> [MeasureResult]`,
batch in, batch out; a bad candidate is a result with a `MeasureErrorNo`, never an exception.
Nothing here knows an op or a target: the source generator, the reference data and the
device loader come from the caller (the op registry and the candidate's backend).
"""

from tunefarm.measure.builder import Builder, LocalBuilder
from tunefarm.measure.child import KernelLoader, LoadedKernel
from tunefarm.measure.compile import SourceGenerator
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.runner import IOFactory, LocalRunner, Runner
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
    Recheck,
    Toolchain,
)

__all__ = [
    "ArgSpec",
    "Builder",
    "BuildResult",
    "Config",
    "IOFactory",
    "KernelIO",
    "KernelLoader",
    "KernelSource",
    "LoadedKernel",
    "LocalBuilder",
    "LocalRunner",
    "MeasureErrorNo",
    "MeasureInput",
    "MeasureResult",
    "MeasureSettings",
    "Recheck",
    "Runner",
    "SourceGenerator",
    "Timing",
    "Toolchain",
    "time_evaluator",
]
