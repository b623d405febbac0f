"""Random search: uniform samples of the config space, never one config twice.

The baseline every smarter tuner must beat (like autotvm's RandomTuner). Sampling goes through
`ConfigSpace.sample`, which draws random indices for a huge space and lists the remaining ones
for a nearly exhausted small space, so a batch always comes back quickly and the tuner stops
exactly when every config has been measured.
"""

from __future__ import annotations

from tunefarm.tune.tuner import Tuner


class TunerArgumentError(ValueError):
    """A tuner or callback was given an argument it cannot work with."""


def check_batch_size(batch_size: int) -> int:
    """The batch size as an int; a clear error for anything but a positive int, because a
    zero or negative batch would make the tuning loop spin without measuring anything."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise TunerArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
    return batch_size


class RandomTuner(Tuner):
    """Proposes uniformly random configs that have not been measured (or loaded) yet."""

    name = "random"

    def next_batch(self, batch_size: int) -> list[int]:
        """Up to `batch_size` distinct random unvisited indices; [] once the space is used up.

        Only measured or loaded configs are excluded, so calling this twice without measuring
        in between may propose a config again; the tuning loop always measures a batch first.
        """
        check_batch_size(batch_size)
        return self.space.sample(self.rng, batch_size, exclude=self.visited)
