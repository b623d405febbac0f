"""Per-tenant quotas on job submissions, kept in Redis so every gateway replica shares them.

Three bounds, each set per token in the tokens file (see the gateway's `auth.py`) and
counted per tenant: jobs not yet finished (`max_running`), trials submitted per UTC day
(`trials_per_day`) and submissions per minute (`submits_per_minute`). A submission past
one is refused with the bound's name and how long until it frees (HTTP 429, Retry-After).
The check and the counting are one Lua script, so concurrent submissions cannot both pass
the last free place.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.jobs import STATES, TERMINAL

DAY_S, MINUTE_S = 86_400, 60


@dataclass(frozen=True)
class Quotas:
    """A tenant's bounds (0: none may be submitted)."""

    max_running: int = 100
    trials_per_day: int = 200_000
    submits_per_minute: int = 60


class QuotaExceeded(Exception):
    """Past a quota: `retry_after_s` says when to try again."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


# KEYS: trials-today, submits-this-minute, then the tenant's unfinished-state indexes.
# ARGV: trials, trials_per_day, submits_per_minute, max_running, day ttl, minute ttl.
_ADMIT = """
local running = 0
for i = 3, #KEYS do running = running + redis.call('zcard', KEYS[i]) end
if running >= tonumber(ARGV[4]) then return {1, running} end
local trials = tonumber(redis.call('get', KEYS[1]) or '0')
if trials + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {2, trials} end
local submits = tonumber(redis.call('get', KEYS[2]) or '0')
if submits >= tonumber(ARGV[3]) then return {3, submits} end
redis.call('incrby', KEYS[1], ARGV[1]) redis.call('expire', KEYS[1], ARGV[5])
redis.call('incr', KEYS[2]) redis.call('expire', KEYS[2], ARGV[6])
return {0, 0}
"""


def admit(config: ServiceConfig, r, tenant: str, trials: int, quotas: Quotas) -> None:
    """Count one submission of `trials` trials for `tenant`, or raise QuotaExceeded."""
    now = time.time()
    day, minute = int(now // DAY_S), int(now // MINUTE_S)
    keys = [
        config.key("quota", tenant, "trials", str(day)),
        config.key("quota", tenant, "submits", str(minute)),
        *(config.key("jobs", "tenant", tenant, "state", s) for s in STATES if s not in TERMINAL),
    ]
    args = [trials, quotas.trials_per_day, quotas.submits_per_minute, quotas.max_running]
    code, value = r.eval(_ADMIT, len(keys), *keys, *args, 2 * DAY_S, 2 * MINUTE_S)
    if code == 1:
        raise QuotaExceeded(
            f"tenant {tenant!r} has {value} unfinished jobs, its limit (max_running="
            f"{quotas.max_running}); wait for one to finish or cancel one",
            30,
        )
    if code == 2:
        raise QuotaExceeded(
            f"tenant {tenant!r} submitted {value} trials today (UTC); {trials} more would pass "
            f"its limit (trials_per_day={quotas.trials_per_day})",
            int(DAY_S - now % DAY_S) + 1,
        )
    if code == 3:
        raise QuotaExceeded(
            f"tenant {tenant!r} submitted {value} jobs this minute, its limit "
            f"(submits_per_minute={quotas.submits_per_minute})",
            int(MINUTE_S - now % MINUTE_S) + 1,
        )
