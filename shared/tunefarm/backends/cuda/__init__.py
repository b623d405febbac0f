"""The `cuda` backend: the GPU templates in the CUDA C dialect, compiled by nvcc to a fat
binary (SASS + PTX) in the build farm on machines without a GPU (`target.py`), and run
through the CUDA driver API with ctypes on libcuda (`driver.py`) on a machine with one.

`resource_usage` (ptxas's registers, shared memory and spills, and the nvcc version) backs
`tunefarm op ... --build-only`.
"""

from __future__ import annotations

from collections.abc import Mapping

from tunefarm.backends.base import parse_target
from tunefarm.backends.cuda import driver, network, tensorcore, tensorcore_gemm
from tunefarm.backends.cuda import target as cuda_target
from tunefarm.backends.cuda.driver import load_cuda_kernel
from tunefarm.backends.cuda.resources import resource_usage
from tunefarm.backends.gpu_common.backend import GpuBackend
from tunefarm.backends.gpu_common.kernel import DeviceLimits
from tunefarm.backends.gpu_common.render import CUDA
from tunefarm.measure.types import Toolchain
from tunefarm.schedule.template import Template
from tunefarm.target import Target
from tunefarm.task import Task

_TENSOR_CORE = {
    "dense": tensorcore.DenseTensorCore(),
    "conv2d": tensorcore_gemm.Conv2dTensorCore(),
    "batch_matmul": tensorcore_gemm.BatchMatmulTensorCore(),
}
_DENSE_WITH_EPILOGUE = tensorcore_gemm.DenseGemmTensorCore()
MMA_N = 8  # the N of m16n8k8 / m16n8k16: the rows (pixels) one instruction covers


class CudaBackend(GpuBackend):
    kind = "cuda"
    usage = cuda_target.USAGE
    dialect = CUDA
    kernel_loader = staticmethod(load_cuda_kernel)
    min_repeat_ms = 300.0  # the tutorial's setting for GPUs

    def template(self, task: Task) -> Template:
        """Dense, conv2d (groups 1) and batch_matmul at -precision=tf32|fp16 run on tensor
        cores (`tensorcore.py`, `tensorcore_gemm.py`); depthwise, dense of fewer than 8 rows
        and the rest stay fp32."""
        tc = _TENSOR_CORE.get(task.op)
        if tc is None or tensorcore.precision(parse_target(task.target)) == "fp32":
            return super().template(task)
        if task.op == "conv2d" and int(task.args.get("groups", 1)) != 1:
            return super().template(task)
        if task.op == "dense" and int(task.args["data"][0]) < MMA_N:
            # fewer rows than the instruction's N: most of each tile is padding (resnet-50's
            # fc at batch 1 measured 1.0 ms at tf32 against 0.20 ms fp32 on an H100)
            return super().template(task)
        if task.op == "dense" and task.args.get("epilogue"):
            return _DENSE_WITH_EPILOGUE
        return tc

    def check_options(self, options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        return cuda_target.check_options(options)

    def network_tolerance(self, target: Target) -> float:
        """A network's error against ONNX Runtime fp32 allowed at the target's precision."""
        return tensorcore.network_tolerance(tensorcore.precision(target))

    def limits(self, target: Target) -> DeviceLimits:
        return cuda_target.ARCHS[cuda_target.arch(target)]

    def toolchain(self, target: Target) -> Toolchain:
        return cuda_target.toolchain(target)

    def open_network(self, plan, images, params):
        """A compiled network's kernels, buffers and params on this machine's device."""
        return network.open_network(plan, images, params)

    def device_info(self) -> dict[str, object]:
        """Name, memory and driver of this machine's device, for the agent's registration."""
        return driver.device_info()

    def artifact_info(self, code: str, target: Target) -> dict[str, object]:
        """Registers, shared memory, spills and nvcc version of a candidate's source."""
        return resource_usage(code, target)


BACKEND = CudaBackend()
