"""What `tunefarm --version` prints: this package, the checkout's commit, and the versions of
the libraries whose behaviour a bug report depends on (read from their metadata, not
imported, so it stays fast)."""

from __future__ import annotations

import argparse
import platform
import subprocess
from importlib import metadata
from pathlib import Path

LIBRARIES = ("numpy", "onnx", "onnxruntime", "xgboost")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def git_commit(where: Path | None = None) -> str | None:
    """The commit of the checkout this package runs from (`-dirty` if changed); None when it
    is not run from a git checkout or git is missing."""
    where = where or Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(where), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def version_text() -> str:
    """`tunefarm 0.1.0 (commit abc123)` and one line of library versions."""
    commit = git_commit()
    head = f"tunefarm {_version('tunefarm')}" + (f" (commit {commit})" if commit else "")
    libs = ", ".join(f"{name} {_version(name)}" for name in LIBRARIES)
    return f"{head}\nPython {platform.python_version()}, {libs}"


class VersionAction(argparse.Action):
    """`--version`: print `version_text()` and exit 0 (argparse's own needs a fixed string)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, **kw):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(version_text())
        parser.exit(0)
