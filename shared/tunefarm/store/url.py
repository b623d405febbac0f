"""Where a store lives: the `--store` value turned into a SQLAlchemy URL, and errors that say
which store and what to do about it.

`--store` takes a path (a SQLite file), `sqlite:///PATH`, `postgresql://...` or `none` (no
store: today's behaviour). With no value the store is a SQLite file in the user's cache
directory, so a second job on the same machine already finds the first one's records.
"""

from __future__ import annotations

import os
from pathlib import Path

NONE = "none"
ENV = "TUNEFARM_STORE"  # read once by the CLI and the services' settings, never here


class StoreError(ValueError):
    """The store cannot be used as asked; the message names the file or URL and the fix."""


class StoreUnavailable(StoreError):
    """The store's server did not answer (down, or unreachable): records can be spooled."""


def default_path() -> Path:
    """~/.cache/tunefarm/records.sqlite (or under $XDG_CACHE_HOME)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tunefarm" / "records.sqlite"


def sqlalchemy_url(store: str | os.PathLike | None) -> str | None:
    """The SQLAlchemy URL of a `--store` value; None for `none`."""
    text = str(store) if store is not None else ""
    if text.strip().lower() == NONE:
        return None
    if not text:
        text = str(default_path())
    if text.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if text.startswith(("postgresql+", "sqlite:")):
        return text
    if "://" in text:
        raise StoreError(
            f"--store {text!r}: unknown scheme; use a file path, sqlite:///PATH, "
            "postgresql://USER@HOST/DB or none"
        )
    path = Path(text).expanduser()
    if path.is_dir():
        raise StoreError(
            f"--store {text!r} is a directory; name a file, e.g. {path}/records.sqlite"
        )
    return f"sqlite:///{path.resolve()}"


def shown(url: str) -> str:
    """The URL as it may appear in a message or a page: no password."""
    if "://" not in url or "@" not in url:
        return url.replace("sqlite:///", "")
    scheme, rest = url.split("://", 1)
    auth, host = rest.rsplit("@", 1)
    user = auth.split(":", 1)[0]
    return f"{scheme.replace('+psycopg', '')}://{user}@{host}"
