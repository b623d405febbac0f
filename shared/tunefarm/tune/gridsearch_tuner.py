"""Grid search: configs in index order 0, 1, 2, ..., skipping the ones already measured.

Useful for small spaces that can be swept completely, and as a deterministic baseline in tests
and benchmarks (like autotvm's GridSearchTuner). Configs loaded from history are skipped, so a
resumed sweep continues where the records end instead of starting over.
"""

from __future__ import annotations

from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task
from tunefarm.tune.random_tuner import check_batch_size
from tunefarm.tune.tuner import Tuner


class GridSearchTuner(Tuner):
    """Proposes the lowest unvisited config indices, in increasing order."""

    name = "gridsearch"
    default_first = False  # a grid search enumerates the space in order, nothing else

    def __init__(self, task: Task, space: ConfigSpace | None = None, seed: int = 0):
        super().__init__(task, space, seed)
        # Every index below the cursor is visited; it only moves past measured configs, so a
        # proposed batch is proposed again if it was never measured.
        self._cursor = 0

    def next_batch(self, batch_size: int) -> list[int]:
        """The next `batch_size` unvisited indices in order; [] once the sweep is complete."""
        check_batch_size(batch_size)
        size = self.space.size
        while self._cursor < size and self._cursor in self.visited:
            self._cursor += 1
        out: list[int] = []
        index = self._cursor
        # Visited indices above the cursor come from history or other tuners: at most
        # len(self.visited) extra steps, never a walk over the whole space.
        while len(out) < batch_size and index < size:
            if index not in self.visited:
                out.append(index)
            index += 1
        return out
