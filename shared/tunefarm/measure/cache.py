"""The build cache location, shared by everything that compiles kernels.

The measure builder (candidate artifacts) and the runtime (kernel objects of a network, loaded
libraries) cache under the same directory and key their entries on the compiler's identity
(`measure.compile.compiler_identity`), so `$TUNEFARM_CACHE` moves all of it and a compiler
upgrade misses every old entry.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """`$TUNEFARM_CACHE` if set, else `~/.cache/tunefarm/build` (absolute; not created)."""
    env = os.environ.get("TUNEFARM_CACHE")
    return Path(env or Path.home() / ".cache/tunefarm/build").absolute()
