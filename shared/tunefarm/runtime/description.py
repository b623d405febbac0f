"""What an executor says about the network it holds, the same for a host library
(`executor.GraphExecutor`) and a device artifact (`device.DeviceExecutor`): its manifest,
input and output names with shapes and dtypes, and how many kernel calls a run makes."""

from __future__ import annotations

import json
from typing import Any

import numpy as np


class ExecutorDescription:
    """Mixin over `_manifest`, `_inputs` / `_outputs` (name -> buffer), `_calls`, and
    `_host_array(buffer)`, the host array that holds (or mirrors) a buffer."""

    _manifest: dict[str, Any]
    _inputs: dict[str, str]
    _outputs: dict[str, str]
    _calls: list[Any]

    def _host_array(self, buf: str) -> np.ndarray:
        raise NotImplementedError

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the artifact's manifest."""
        return json.loads(json.dumps(self._manifest))

    @property
    def input_names(self) -> list[str]:
        return list(self._inputs)

    @property
    def output_names(self) -> list[str]:
        return list(self._outputs)

    @property
    def num_calls(self) -> int:
        return len(self._calls)

    def _info(self, table: dict[str, str]) -> dict[str, tuple[tuple[int, ...], str]]:
        out = {}
        for name, buf in table.items():
            array = self._host_array(buf)
            out[name] = (array.shape, array.dtype.name)
        return out

    def input_info(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """Input name -> (shape, dtype name)."""
        return self._info(self._inputs)

    def output_info(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """Output name -> (shape, dtype name)."""
        return self._info(self._outputs)
