"""The build cache location and the compiler's identity, shared by everything that compiles C.

The measure builder (candidate .so files) and the runtime (kernel objects of a network, loaded
libraries) cache under the same directory and key their entries on the same compiler identity,
so `$TUNEFARM_CACHE` moves all of it and a compiler upgrade misses every old entry.
"""

from __future__ import annotations

import os
from pathlib import Path

from tunefarm.measure.worker import run_killable


def default_cache_dir() -> Path:
    """`$TUNEFARM_CACHE` if set, else `~/.cache/tunefarm/build` (absolute; not created)."""
    env = os.environ.get("TUNEFARM_CACHE")
    return Path(env or Path.home() / ".cache/tunefarm/build").absolute()


def compiler_identity(cc: str) -> str:
    """First line of `cc --version` (e.g. "gcc (Debian 12.2.0-14) 12.2.0"), "" if unknown."""
    try:
        rc, output = run_killable([cc, "--version"], 10.0)
    except OSError:
        return ""
    return output.splitlines()[0] if rc == 0 and output else ""
