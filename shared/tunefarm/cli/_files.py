"""Checks of the files a command reads and writes, before any work starts: each problem is
one CommandError naming the option, the file and the fix (not a traceback after minutes of
tuning, and never an input overwritten by an output)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from tunefarm.cli import CommandError


def input_file(
    path: str, option: str, suffixes: Iterable[str] = (), what: str = "file", empty_ok=False
) -> Path:
    """`path` as an existing regular file, non-empty unless `empty_ok`, ending in one of
    `suffixes` if given."""
    p = Path(path)
    if p.is_dir():
        raise CommandError(f"{option} {path!r} is a directory; expected a {what}")
    if not p.exists():
        raise CommandError(f"{option} {path!r}: no such {what}")
    if not os.access(p, os.R_OK):
        raise CommandError(f"{option} {path!r}: not readable (check its permissions)")
    if p.stat().st_size == 0 and not empty_ok:
        raise CommandError(f"{option} {path!r} is empty; expected a {what}")
    suffixes = tuple(suffixes)
    if suffixes and p.suffix.lower() not in suffixes:
        raise CommandError(
            f"{option} {path!r}: expected a {what} ({' or '.join(suffixes)}), "
            f"got {p.suffix or 'no extension'!r}"
        )
    return p


def output_file(
    path: str,
    option: str,
    suffix: str,
    inputs: Mapping[str, str | None] = MappingProxyType({}),
    what: str = "file",
) -> Path:
    """`path` as a file this command may write: not a directory, its directory existing, not
    one of `inputs` ({option: path}; an output must never replace what it was made from), and
    not a model or records file by its extension when `suffix` asks for something else."""
    p = Path(path)
    if p.is_dir() or path.endswith(os.sep):
        raise CommandError(
            f"{option} {path!r} is a directory; give a file name, e.g. {Path(path, 'net' + suffix)}"
        )
    if not p.resolve().parent.is_dir():
        raise CommandError(f"{option} {path!r}: directory {str(p.parent)!r} does not exist")
    for other_option, other in inputs.items():
        if other and p.resolve() == Path(other).resolve():
            raise CommandError(
                f"{option} {path!r} is also {other_option}; writing the {what} there would "
                f"overwrite it: give {option} another name"
            )
    if p.suffix.lower() in {".onnx", ".jsonl", ".json"} and p.suffix.lower() != suffix:
        raise CommandError(
            f"{option} {path!r}: the {what} is written there, not a {p.suffix} file; "
            f"use a {suffix} name (e.g. {p.with_suffix(suffix).name!r})"
        )
    return p
