"""A genetic algorithm over knob digits (like autotvm's GATuner).

A config's genes are its per-knob entity positions (`ConfigSpace.digits`), so crossover and
mutation act on knobs, not on the mixed-radix index whose neighbouring values are unrelated
configs. Fitness is GFLOPS (0 for a failed candidate).

One generation is `pop_size` children. The first one is random; later ones are bred from the
parent pool: the `pop_size` most recently measured configs (the latest generation; the best
history entries after `load_history`) plus the `elite_num` best configs ever measured, which
therefore keep breeding even after they have left the latest generation. Parents are drawn
with probability proportional to fitness; a child takes each knob from either parent with equal
probability and then re-draws each knob with probability `mutation_prob`. A child that was
already measured or proposed is bred again, a bounded number of times, and then replaced by a
random unvisited config, so the tuner never proposes a config twice and always terminates.
While nothing measured so far has a positive fitness (no history, or only failures), a
generation is random, since proportional selection has nothing to go on.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

from tunefarm.measure import MeasureResult
from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task
from tunefarm.tune.random_tuner import TunerArgumentError, check_batch_size
from tunefarm.tune.tuner import Tuner

BREED_ATTEMPTS = 16  # tries per child before it is replaced by a random unvisited config


def _positive_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TunerArgumentError(f"{name} must be a positive int, got {value!r}")
    return value


class GATuner(Tuner):
    """Genetic algorithm: elitism, fitness-proportional selection, uniform crossover, mutation.

    generation: number of generations made so far (random ones included).
    fallbacks: children replaced by random configs because breeding kept producing configs
        already measured; a high count means the parent pool has converged.
    """

    name = "ga"

    def __init__(
        self,
        task: Task,
        space: ConfigSpace | None = None,
        seed: int = 0,
        pop_size: int = 16,
        elite_num: int = 3,
        mutation_prob: float = 0.1,
    ):
        super().__init__(task, space, seed)
        self.pop_size = _positive_int("pop_size", pop_size)
        if isinstance(elite_num, bool) or not isinstance(elite_num, int):
            raise TunerArgumentError(f"elite_num must be an int, got {elite_num!r}")
        if not 0 <= elite_num <= pop_size:
            raise TunerArgumentError(
                f"elite_num must be in [0, pop_size={pop_size}], got {elite_num}"
            )
        if (
            isinstance(mutation_prob, bool)
            or not isinstance(mutation_prob, (int, float))
            or not 0.0 <= mutation_prob <= 1.0
        ):
            raise TunerArgumentError(f"mutation_prob must be in [0, 1], got {mutation_prob!r}")
        self.elite_num, self.mutation_prob = elite_num, float(mutation_prob)
        self.generation = 0
        self.fallbacks = 0
        self._dims = np.asarray(self.space.dims, dtype=np.int64)
        self._scores: dict[int, float] = {}  # fitness of every measured or loaded config
        self._recent: deque[int] = deque(maxlen=self.pop_size)  # the latest generation
        self._queue: deque[int] = deque()  # children of the current generation not yet proposed
        self._proposed: set[int] = set()  # proposed but not measured yet

    # -- the Tuner interface ---------------------------------------------------------------------
    def next_batch(self, batch_size: int) -> list[int]:
        """Up to `batch_size` unvisited children, breeding a new generation whenever the
        current one has been handed out; [] once the space is exhausted."""
        check_batch_size(batch_size)
        out: list[int] = []
        while len(out) < batch_size:
            if not self._queue:
                self._queue.extend(self._new_generation())
                if not self._queue:
                    break
            index = self._queue.popleft()
            if index not in self.visited and index not in self._proposed:
                self._proposed.add(index)
                out.append(index)
        return out

    def update(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        """Record the fitness of measured children; they become the latest population."""
        for index, result in zip(indices, results, strict=True):
            self._scores[index] = self.gflops(result.median if result.ok else math.inf)
            self._recent.append(index)
            self._proposed.discard(index)

    def load_history(self, pairs: Iterable[tuple[int, MeasureResult]]) -> None:
        """Book earlier results, then breed from the best `pop_size` of them (not from the
        last ones in file order, which is what plain `update` would leave behind)."""
        pairs = list(pairs)
        super().load_history(pairs)
        if pairs:
            loaded = dict.fromkeys(index for index, _ in pairs)
            best = heapq.nlargest(self.pop_size, loaded, key=self._scores.__getitem__)
            self._recent = deque(best, maxlen=self.pop_size)
            self._queue.clear()  # bred before the history was known

    # -- breeding --------------------------------------------------------------------------------
    @property
    def population(self) -> list[tuple[int, float]]:
        """The parent pool (index, fitness): the elites, then the latest generation."""
        elites = heapq.nlargest(self.elite_num, self._scores, key=self._scores.__getitem__)
        pool = dict.fromkeys([*elites, *self._recent])
        return [(index, self._scores[index]) for index in pool]

    def _new_generation(self) -> list[int]:
        """`pop_size` fresh configs: bred from the pool, or random while no parent is fit."""
        taken = self.visited | self._proposed
        pool = [(i, f) for i, f in self.population if f > 0.0]
        if not pool:
            children = self.space.sample(self.rng, self.pop_size, exclude=taken)
            self.generation += bool(children)
            return children
        genes = np.asarray([self.space.digits(i) for i, _ in pool], dtype=np.int64)
        fitness = np.asarray([f for _, f in pool], dtype=np.float64)
        weights = fitness / fitness.sum()
        children: list[int] = []
        missing = 0
        for _ in range(self.pop_size):
            child = self._breed_one(genes, weights, taken)
            if child is None:
                missing += 1
            else:
                taken.add(child)
                children.append(child)
        if missing:
            filled = self.space.sample(self.rng, missing, exclude=taken)
            self.fallbacks += len(filled)
            children += filled
        self.generation += bool(children)
        return children

    def _breed_one(self, genes: np.ndarray, weights: np.ndarray, taken: set[int]) -> int | None:
        """One child not in `taken`, or None after `BREED_ATTEMPTS` tries."""
        n_knobs = len(self._dims)
        for _ in range(BREED_ATTEMPTS):
            mother, father = self.rng.choice(len(genes), size=2, p=weights)
            take_mother = self.rng.random(n_knobs) < 0.5
            child = np.where(take_mother, genes[mother], genes[father])
            mutate = self.rng.random(n_knobs) < self.mutation_prob
            if mutate.any():
                child[mutate] = self.rng.integers(0, self._dims[mutate])
            index = self.space.index_from_digits(child.tolist())
            if index not in taken:
                return index
        return None
