"""The `opencl` backend: the GPU templates in the OpenCL C dialect, built at load time by the
device's driver (pocl on the CPU here, a GPU vendor's driver elsewhere), run through ctypes on
libOpenCL (`driver.py`).

Its device limits are a portable GPU's (1,024 threads and 48 KiB of shared memory per block),
not pocl's larger ones, so a schedule that passes here is one a GPU can launch too.
"""

from __future__ import annotations

from collections.abc import Mapping

from tunefarm.backends.gpu_common.backend import GpuBackend
from tunefarm.backends.gpu_common.kernel import DeviceLimits
from tunefarm.backends.gpu_common.render import OPENCL
from tunefarm.backends.opencl import driver, network, prebuild
from tunefarm.backends.opencl.driver import load_opencl_kernel
from tunefarm.measure.types import Toolchain
from tunefarm.target import Target, TargetError

USAGE = "opencl"
LIMITS = DeviceLimits("opencl (portable GPU limits)")


class OpenCLBackend(GpuBackend):
    kind = "opencl"
    usage = USAGE
    dialect = OPENCL
    kernel_loader = staticmethod(load_opencl_kernel)
    min_repeat_ms = 300.0
    # the CLI's repeats (cli._args.repeats): 2 timed calls, more up to --repeat only while
    # their spread is over 5%; on pocl every timed call is CPU time the builds could use
    adaptive_repeats = (2, 0.05)

    def check_options(self, options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        if options:
            raise TargetError(f"unknown option(s) {', '.join('-' + k for k in sorted(options))}")
        return ()

    def limits(self, target: Target) -> DeviceLimits:
        return LIMITS

    def open_network(self, plan, images, params):
        """A compiled network's kernels, buffers and params on this machine's device."""
        return network.open_network(plan, images, params)

    def device_info(self) -> dict[str, object]:
        """Name, memory and driver of this machine's device, for the agent's registration."""
        return driver.device_info()

    def toolchain(self, target: Target) -> Toolchain:
        """No build step: the source is the artifact, built by the driver when loaded."""
        return Toolchain("", source_suffix=".cl", artifact_suffix=".cl")

    def candidate_toolchain(self, target: Target, specs) -> Toolchain:
        """Tuning candidates are compiled by the driver in the build workers, which fills its
        kernel cache for the measurer (`prebuild.py`); TUNEFARM_OPENCL_PREBUILD=0: as
        networks, the measurer compiles."""
        return prebuild.toolchain(specs) if prebuild.enabled() else self.toolchain(target)


BACKEND = OpenCLBackend()
