"""Bounds on server-sent event streams: how many one gateway process holds, and how many
one token holds. Each stream keeps a connection open and blocks on a Redis connection for as
long as its job runs, so without bounds one read token could open thousands and starve
every tenant. Past a bound the request gets 429 with Retry-After; a stream frees its slot
when the client goes away or the stream ends (`Response.call_on_close`).

The counts are per worker process (each gunicorn worker has its own), so the totals of a
gateway are the bounds times its worker count.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

RETRY_AFTER_S = 5


class TooManyStreams(Exception):
    """No slot: the message says which bound was reached."""


@dataclass
class StreamSlots:
    """Counts open streams, in total and per token name."""

    max_total: int
    max_per_token: int
    _open: Counter = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, token_name: str) -> None:
        """Take a slot for one stream of `token_name`, or raise TooManyStreams."""
        with self._lock:
            if self._open[token_name] >= self.max_per_token:
                raise TooManyStreams(
                    f"token {token_name!r} has {self.max_per_token} event streams open, its "
                    "limit (TUNEFARM_MAX_STREAMS_PER_TOKEN); close one or retry later"
                )
            if sum(self._open.values()) >= self.max_total:
                raise TooManyStreams(
                    f"the gateway holds {self.max_total} event streams, its limit "
                    "(TUNEFARM_MAX_STREAMS); retry later"
                )
            self._open[token_name] += 1

    def give(self, token_name: str) -> None:
        with self._lock:
            self._open[token_name] -= 1
            if self._open[token_name] <= 0:
                del self._open[token_name]

    def total(self) -> int:
        with self._lock:
            return sum(self._open.values())
