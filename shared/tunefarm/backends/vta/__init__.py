"""The `vta` backend: an int8 GEMM accelerator in VTA's style, measured on a C simulator.

What it owns (see `tunefarm.backends.base.Backend`):
- target options: `vta [-config=1x16x16|1x32x32|FILE.json]` (`target.py`), naming a hardware
  configuration (`config.py`, presets in `configs/`);
- one template, `conv2d_packed` (`template.py`): the tutorial's knobs (`conv2d_space.py`),
  lowered to an instruction stream and micro-ops (`conv2d.py`, `isa.py`, `dram.py`);
- no emitter and no compiler: a candidate's code is its program (`program.py`), the artifact
  as it is (`Toolchain("")`);
- measurement by simulation: the kernel loader runs the program on the cycle-level C simulator
  (`simulator.py`, `sim/*.c`, built on first use), and a run's time is its simulated cycles
  at the config's clock.

Other modules: `reference` (numpy semantics of each instruction, the simulator's oracle),
`survey` (a quick default-against-random table).
"""

from __future__ import annotations

from collections.abc import Mapping

from tunefarm.backends.vta import target as vta_target
from tunefarm.backends.vta.program import load_vta_kernel
from tunefarm.backends.vta.template import Conv2dPacked
from tunefarm.codegen.loops import LoweredFunc
from tunefarm.measure.types import Toolchain
from tunefarm.schedule.template import Template
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

PROGRAM_SUFFIX = ".vta.json"


class VtaBackend:
    kind = "vta"
    usage = vta_target.USAGE
    kernel_loader = staticmethod(load_vta_kernel)
    # Its device is a simulator running on the host: `tunefarm op` and local tuning measure
    # on this machine, as for the CPU, no agent needed.
    simulated = True
    # Networks reach VTA quantized to int8 and packed (graph_pack): `tunefarm tasks` and
    # `tunefarm tune|compile` and REST jobs do it with `--quantize int8` (`"quantize":
    # "int8"`); a network command without it is refused up front with this note.
    network_note = (
        "the vta backend runs networks quantized to int8 and packed (graph_pack): use "
        "`tunefarm tasks|tune|compile MODEL --target vta --quantize int8` (a REST job: "
        '"quantize": "int8")'
    )

    def __init__(self) -> None:
        self._templates: dict[str, Template] = {t.op: t for t in (Conv2dPacked(),)}

    def check_options(self, options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        return vta_target.check_options(options)

    def ops(self) -> list[str]:
        return sorted(self._templates)

    def template(self, task: Task) -> Template:
        found = self._templates.get(task.op)
        if found is None:
            raise TaskError(f"unknown op {task.op!r}; vta ops: {', '.join(self.ops())}")
        return found

    def pack_blocks(self, target: Target) -> tuple[int, int, int]:
        """(batch, block_in, block_out) of the target's hardware config: the blocked layouts
        graph_pack packs a network into."""
        hw = vta_target.hw_config(target)
        return (hw.batch, hw.block_in, hw.block_out)

    def clock_note(self, target: Target) -> str:
        """How network times are given: simulated at the config's clock."""
        return f"accelerator simulated at {vta_target.hw_config(target).clock_mhz:g} MHz"

    def anchor_variants(self, task: Task) -> list[Task]:
        """A packed conv runs as it is: the network is packed before its tasks are made."""
        return [task]

    def emit(self, func: LoweredFunc, target: Target) -> str:
        raise TaskError("the vta backend emits no loop nests: its templates make programs")

    def toolchain(self, target: Target) -> Toolchain:
        """No build step: the program document is the artifact."""
        return Toolchain("", source_suffix=PROGRAM_SUFFIX, artifact_suffix=PROGRAM_SUFFIX)


BACKEND = VtaBackend()
