"""The `Backend` interface, and the table of backends by target kind.

A backend owns everything that is particular to one kind of machine: its target options, its
schedule templates, its layout policy for network tasks, its code emitter, the compiler that
turns that code into something loadable, and how a measurement loads and times it. The rest
of the library sees only this interface (and the op registry built on it,
`tunefarm.backends.registry`); no other layer imports a backend's own modules, and the
import contracts in pyproject.toml keep it so.

Adding a target is adding a folder `backends/<kind>/` whose package exposes `BACKEND`, and a
line in `_MODULES` (see docs/adding-a-target.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol

from tunefarm.codegen.loops import LoweredFunc
from tunefarm.measure.child import KernelLoader
from tunefarm.measure.types import Toolchain
from tunefarm.schedule.template import Template
from tunefarm.target import Target, TargetError, split_target
from tunefarm.task import Task

# kind -> package. Imported on first use: a backend may pull in heavy or optional libraries
# (a GPU driver binding), which a process that never targets it should not pay for.
_MODULES = {
    "cpu": "tunefarm.backends.cpu",
    "vta": "tunefarm.backends.vta",
    "cuda": "tunefarm.backends.cuda",
    "opencl": "tunefarm.backends.opencl",
}


class Backend(Protocol):
    """What one kind of machine provides; `tunefarm.backends.cpu` is the worked example.

    Optional members, read with getattr where they matter (the GPU backends have them):
    `untuned_variant(variants)` (of a node's `anchor_variants`, the one an untuned compile
    runs; absent: the first), `network_note` (why whole networks cannot be compiled for it,
    see `check_networks`; absent or empty when they can), `min_repeat_ms` (the CLI's
    default for its measurements), `adaptive_repeats` ((calls, target spread): the CLI times
    that many calls and adds more, up to --repeat, only while the spread is over the target),
    `artifact_info(code, target)` (what `tunefarm op
    --build-only` reports, e.g. registers and shared memory) and `device_info()` (what an
    agent registers about its device: name, memory, driver), and `open_network(plan, images,
    params)` with `network_align` (a backend that runs whole networks on a device: the
    runtime plans the arena with that alignment, stores each kernel's image as its toolchain
    makes it, and runs the network through the object `open_network` returns; see
    `tunefarm.runtime.device`).
    """

    kind: str
    usage: str  # the target syntax, e.g. "cpu [-isa=avx512|avx2|sse4|generic] [-cores=N]"
    kernel_loader: KernelLoader  # run in a measurement child: load, run and time a kernel

    def check_options(self, options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        """The options in canonical order; TargetError naming an unknown or bad option."""

    def ops(self) -> list[str]:
        """The ops this backend has templates for."""

    def template(self, task: Task) -> Template:
        """The schedule template of a task (the registry's (kind, op) lookup)."""

    def anchor_variants(self, task: Task) -> list[Task]:
        """Layout policy for a network's anchor (conv2d, dense) task in logical params: the
        tasks that can run that node on this backend, pinned to the layout the network keeps,
        the default algorithm first and alternatives after it."""

    def emit(self, func: LoweredFunc, target: Target) -> str:
        """Source code of a lowered kernel, following the measure layer's kernel ABI."""

    def toolchain(self, target: Target) -> Toolchain:
        """The compiler and flags that turn emitted source into a loadable artifact."""


def kinds() -> list[str]:
    """The target kinds that have a backend."""
    return sorted(_MODULES)


def get_backend(kind: str) -> Backend:
    """The backend of a target kind; TargetError listing the targets that exist."""
    module = _MODULES.get(kind)
    if module is None:
        raise TargetError(f"no backend for target kind {kind!r}; targets that exist: {usage()}")
    return importlib.import_module(module).BACKEND


def network_target_error(kind: str) -> str:
    """Why whole networks cannot be compiled for `kind` ("" when they can): a backend that
    runs single ops only says so in its `network_note` (the others have none)."""
    return getattr(get_backend(kind), "network_note", "")


def usage() -> str:
    """Every backend's target syntax, for error messages and --help."""
    return "; ".join(get_backend(k).usage for k in kinds())


def parse_target(text: str) -> Target:
    """A checked target: its kind has a backend that knows every option given."""
    kind, options = split_target(text)
    if kind not in _MODULES:
        raise TargetError(
            f"target {text!r}: no backend for {kind!r}; targets that exist: {usage()}"
        )
    backend = get_backend(kind)
    try:
        return Target(kind, backend.check_options(options))
    except TargetError as exc:
        raise TargetError(f"target {text!r}: {exc}; {kind} takes: {backend.usage}") from None


def check_networks(text: str) -> None:
    """TargetError unless the target's backend compiles whole networks (see
    `network_target_error`)."""
    target = parse_target(text)
    problem = network_target_error(target.kind)
    if problem:
        able = [k for k in kinds() if not network_target_error(k)]
        raise TargetError(f"target {text!r}: {problem}; networks compile for: {', '.join(able)}")


def canonical(text: str) -> str:
    """The canonical spelling of a checked target (records and tasks compare targets as text)."""
    return str(parse_target(text))


def backend_of(task: Task) -> Backend:
    return get_backend(split_target(task.target)[0])
