"""Bearer-token authentication for the gateway (the REST API and the web UI).

Tokens live in the file named by `TUNEFARM_TOKENS_FILE`, one per line:

    # TOKEN (>= 16 chars)     SCOPES             [OPTION=VALUE ...]      [NAME]
    Zr8u2kQ0vX4mT1pL9aB3     read               tenant=vision           grafana
    q7N2cV5xW8yE1rT4uI6o     read,submit        tenant=vision expires=2027-01-31 ci
    K3jH6gF9dS2aP5oI8uY1     read,submit,admin  operations

Scopes: `read` (GET endpoints), `submit` (POST endpoints: submit, cancel) and `admin` (see
and cancel every tenant's jobs, see device hosts; it implies `read`), and `metrics` (only
/metrics, for Prometheus). A job belongs to the tenant of the token that submitted it; any
other tenant's token gets 404 for it, as if it did not exist, and does not see it in lists.

Options, each at most once: `tenant=` (default `default`); `records=fleet` lets the token
read the fleet's shared tuning records as well as its tenant's, and makes the records of
the jobs it submits fleet records too (see docs/records.md); `expires=` an ISO date (00:00
UTC of that day) or date and time (UTC unless it names a zone), after which the token is
refused; the tenant's quotas `max_running=`, `trials_per_day=`, `submits_per_minute=`
(see `tunefarm.distributed.quotas`; defaults 100, 200,000 and 60). A secret shorter than 16
characters, or an example one (containing `change-me`), is refused, as is an unknown
option. `#` starts a comment; blank lines and a UTF-8 byte-order mark are ignored.

The file is read again when its content changes (its SHA-256, looked at at most once a
second), so adding or revoking a token needs no restart. A malformed file stops the
gateway at startup with its line number; one that becomes malformed later refuses every
token (and says why in the log) until it is fixed, because a half-read file would lock
out, or let in, the wrong clients. Without a tokens file there are no tokens: every API
call is refused.

Every refusal is logged with the token's name (never the token) or, for an unknown token,
with the client's address.

A client sends `Authorization: Bearer TOKEN`, or the `tunefarm_token` cookie (set by the web
UI), which is checked the same way. A cookie travels with cross-site requests, so a
cookie-authenticated POST must come from this gateway's own origin when the browser says
where it came from (Origin/Referer). Tokens are compared in constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from flask import current_app, request
from tunefarm_services.gateway.logtext import escape
from werkzeug.exceptions import HTTPException

from tunefarm.distributed.quotas import Quotas

SCOPES = ("read", "submit", "admin", "metrics")
READ, SUBMIT, ADMIN, METRICS = SCOPES
DEFAULT_TENANT = "default"
RELOAD_CHECK_S = 1.0  # how often the tokens file's content is looked at
COOKIE_NAME = "tunefarm_token"
REALM = "tunefarm"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
log = logging.getLogger("tunefarm.gateway.auth")


class TokensFileError(ValueError):
    """The tokens file cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Token:
    """One API client: its secret, scopes, tenant, optional expiry (epoch seconds) and a
    name for logs."""

    secret: str
    scopes: frozenset[str]
    name: str
    tenant: str = DEFAULT_TENANT
    expires: float | None = None
    quotas: Quotas = Quotas()
    records_fleet: bool = False  # `records=fleet`: reads and writes the fleet's records too

    def allows(self, scope: str) -> bool:
        return scope in self.scopes or (scope in (READ, METRICS) and ADMIN in self.scopes)

    @property
    def admin(self) -> bool:
        return ADMIN in self.scopes

    def expired(self, now: float | None = None) -> bool:
        return self.expires is not None and (now or time.time()) >= self.expires

    def sees(self, tenant: str | None) -> bool:
        """Whether this token may see a job of `tenant` (None: a job from before tenants,
        which belongs to the default tenant)."""
        return self.admin or (tenant or DEFAULT_TENANT) == self.tenant


class AuthError(HTTPException):
    """401 (no or unknown token) or 403 (token lacks the scope, or a cross-site cookie).

    An HTTPException, so a view that lets it escape still answers with its status; the API
    renders it as JSON, and the UI may register its own handler (e.g. to show a login page).
    """

    def __init__(self, code: int, description: str, scope: str | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.scope = scope

    def challenge(self) -> str:
        """The WWW-Authenticate value (RFC 6750)."""
        if self.code == 401:
            missing = self.description.startswith("missing")
            return f'Bearer realm="{REALM}"' + ("" if missing else ', error="invalid_token"')
        return f'Bearer realm="{REALM}", error="insufficient_scope", scope="{self.scope}"'

    def get_headers(self, environ=None, scope=None):
        return [*super().get_headers(environ, scope), ("WWW-Authenticate", self.challenge())]


class TokenRing:
    """The known tokens; `find` looks a secret up without leaking, through timing, how much
    of it matched or which token it was."""

    def __init__(self, tokens: Iterable[Token] = ()) -> None:
        self._tokens = [(_digest(t.secret), t) for t in tokens]

    def __len__(self) -> int:
        return len(self._tokens)

    def find(self, secret: str | None) -> Token | None:
        if not secret:
            return None
        probe = _digest(secret)
        found = None
        for digest, token in self._tokens:  # no early exit: every token costs the same
            if hmac.compare_digest(digest, probe):
                found = token
        return found


def _digest(secret: str) -> bytes:
    """Equal-length digests, so compare_digest's time does not depend on the token length."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


# -- the tokens file ----------------------------------------------------------------------------
MIN_SECRET = 16  # characters: shorter secrets can be guessed
EXAMPLE_SECRET = "change-me"  # the examples' secrets contain this: never accept one
QUOTA_OPTIONS = ("max_running", "trials_per_day", "submits_per_minute")


def parse_tokens(text: str, source: str = "<tokens>") -> TokenRing:
    """Parse the tokens file format; raises TokensFileError naming the bad line (and never
    quoting a secret)."""
    tokens, seen = [], {}
    text = text.removeprefix("\ufeff")  # a byte-order mark would stick to the first token
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        token = _parse_line(line, f"{source}, line {number}", f"line-{number}")
        if token.secret in seen:
            raise TokensFileError(
                f"{source}, line {number}: duplicate token (first on line {seen[token.secret]})"
            )
        seen[token.secret] = number
        tokens.append(token)
    return TokenRing(tokens)


def _parse_line(line: str, where: str, default_name: str) -> Token:
    parts = line.split()
    if len(parts) < 2:
        raise TokensFileError(f"{where}: expected {LINE_FORMAT}")
    secret, scopes_text, rest = parts[0], parts[1], parts[2:]
    _check_secret(secret, where)
    scopes = frozenset(s.strip() for s in scopes_text.split(",") if s.strip())
    unknown = sorted(scopes - set(SCOPES))
    if unknown or not scopes:
        # the column may hold a secret (columns out of order): name only short words
        shown = ", ".join(u for u in unknown if len(u) <= 10) or "the second column"
        raise TokensFileError(
            f"{where}: unknown scope(s) {shown}; expected {LINE_FORMAT}, scopes from "
            f"{', '.join(SCOPES)}, comma-separated"
        )
    options, name = _options(rest, where)
    tenant = options.get("tenant", DEFAULT_TENANT)
    if not tenant or not all(c.isalnum() or c in "-_." for c in tenant) or len(tenant) > 64:
        raise TokensFileError(f"{where}: tenant {tenant[:64]!r}: use 1-64 letters, digits, '-_.'")
    expires = _expiry(options["expires"], where) if "expires" in options else None
    quotas = Quotas(**{k: _count(options[k], k, where) for k in QUOTA_OPTIONS if k in options})
    records = options.get("records", "tenant")
    if records not in ("tenant", "fleet"):
        raise TokensFileError(
            f"{where}: records={records[:20]!r}: use records=fleet or leave it out"
        )
    name_text = " ".join(name) or default_name
    return Token(secret, scopes, name_text, tenant, expires, quotas, records == "fleet")


LINE_FORMAT = "'TOKEN SCOPES [OPTION=VALUE ...] [NAME]'"
OPTIONS = ("tenant", "expires", "records", *QUOTA_OPTIONS)


def _check_secret(secret: str, where: str) -> None:
    if EXAMPLE_SECRET in secret.lower():
        raise TokensFileError(
            f"{where}: an example token ({EXAMPLE_SECRET}...): generate your own, e.g. "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'"
        )
    if all(part in SCOPES for part in secret.split(",")):
        raise TokensFileError(f"{where}: the first column is the token, then its scopes")
    if len(secret) < MIN_SECRET:
        raise TokensFileError(
            f"{where}: the token has {len(secret)} characters; use at least {MIN_SECRET}"
        )


def _options(words: list[str], where: str) -> tuple[dict[str, str], list[str]]:
    """OPTION=VALUE words (each at most once), then the name's words."""
    options: dict[str, str] = {}
    name: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in OPTIONS:
            if key in options:
                raise TokensFileError(f"{where}: option {key}= is given twice")
            options[key] = value
        elif eq and not name:  # a typo such as tennant=x must not become the name
            raise TokensFileError(
                f"{where}: unknown option {key[:32]!r}; options are {', '.join(OPTIONS)}"
            )
        else:
            name.append(word)
    return options, name


def _count(text: str, key: str, where: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise TokensFileError(f"{where}: {key}={text[:20]!r}: expected a whole number >= 0")
    return int(text)


def _expiry(text: str, where: str) -> float:
    """An ISO date or date-time (UTC unless it names a zone) as epoch seconds; a date alone
    is 00:00 UTC of that day (the token stops working as that day begins)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise TokensFileError(
            f"{where}: expires={text[:40]!r}: expected an ISO date such as 2027-01-31 "
            "(00:00 UTC that day) or a time such as 2027-01-31T18:00Z"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def load_tokens(path: str | None) -> TokenRing:
    """Read the tokens file (None: no tokens, every call is refused)."""
    if path is None:
        return TokenRing()
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokensFileError(f"tokens file {path}: {exc}") from None
    return parse_tokens(text, source=f"tokens file {path}")


class TokenSource:
    """The tokens file, read again when its content changes (its SHA-256), looked at most
    once per `RELOAD_CHECK_S`. Thread- and greenlet-safe: a reload swaps the ring whole."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._ring = load_tokens(path)  # malformed at startup: raise, the gateway stops
        self._stamp = self._stat()
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def _stat(self) -> str | None:
        """The file's SHA-256 ("missing" when it cannot be read): a rewrite of the same
        size within one mtime tick still changes it."""
        if self.path is None:
            return None
        try:
            return hashlib.sha256(Path(self.path).read_bytes()).hexdigest()
        except OSError:
            return "missing"

    def ring(self) -> TokenRing:
        now = time.monotonic()
        if self.path is None or now - self._checked < RELOAD_CHECK_S:
            return self._ring
        with self._lock:
            self._checked = now
            stamp = self._stat()
            if stamp != self._stamp:
                self._stamp = stamp
                self._ring = self._reload()
        return self._ring

    def _reload(self) -> TokenRing:
        try:
            ring = load_tokens(self.path)
        except TokensFileError as exc:
            log.error("%s; refusing every token until the file is fixed", exc)
            return TokenRing()
        log.info("tokens file %s reloaded: %d token(s)", self.path, len(ring))
        return ring


# -- checking a request ---------------------------------------------------------------------------
def token_from_request() -> tuple[str | None, str | None]:
    """(secret, where it came from: "header" or "cookie"), from the current request."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, secret = header.partition(" ")
        return (secret.strip() or None, "header") if scheme.lower() == "bearer" else (None, None)
    cookie = request.cookies.get(COOKIE_NAME)
    return (cookie, "cookie") if cookie else (None, None)


def check_token(secret: str | None, scope: str, ring: TokenRing | None = None) -> Token:
    """The token for `secret` if it has `scope` and has not expired; else AuthError 401
    (missing, unknown or expired) or 403 (scope lacking), logged. The UI calls this for a
    token typed into its login form."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; scopes are {', '.join(SCOPES)}")
    ring = ring if ring is not None else tokens()
    if not secret:
        refused(None, "no token")
        raise AuthError(401, "missing token: send 'Authorization: Bearer <token>'")
    token = ring.find(secret)
    if token is None:
        refused(None, "unknown token")
        raise AuthError(401, "unknown token")
    if token.expired():
        refused(token, "expired")
        raise AuthError(401, f"token {token.name!r} has expired")
    if not token.allows(scope):
        refused(token, f"lacks the {scope!r} scope")
        raise AuthError(403, f"token {token.name!r} lacks the {scope!r} scope", scope=scope)
    return token


def refused(token: Token | None, reason: str) -> None:
    """Log a refusal: the token's name and tenant (never its secret), or the client's
    address for an unknown token, with the request it came with."""
    from flask import has_request_context

    who = f"token {token.name!r} (tenant {token.tenant})" if token else "a request"
    where = ""
    if has_request_context():
        method, path, addr = (
            escape(v) for v in (request.method, request.path, request.remote_addr)
        )
        where = f" on {method} {path} from {addr}"
    log.warning("refused %s%s: %s", who, where, escape(reason, 500))


def authenticate(scope: str) -> Token:
    """Check the current request's token (header or cookie) for `scope`."""
    secret, source = token_from_request()
    token = check_token(secret, scope)
    if source == "cookie" and request.method not in _SAFE_METHODS and not _same_origin():
        refused(token, "cross-site request with the cookie")
        raise AuthError(403, "cross-site request refused: the cookie is for this site only", scope)
    return token


def required_scope(method: str) -> str:
    """GET (and HEAD, OPTIONS) need `read`; anything that changes state needs `submit`."""
    return READ if method in _SAFE_METHODS else SUBMIT


def require(scope: str | None = None) -> Callable:
    """View decorator: authenticate the request for `scope` (default: by its method) and
    keep the token on `flask.g.token`."""

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(*args, **kwargs):
            from flask import g

            g.token = authenticate(scope or required_scope(request.method))
            return view(*args, **kwargs)

        return wrapper

    return decorate


def tokens() -> TokenRing:
    """The current app's token ring (its tokens file as of at most a second ago)."""
    return current_app.extensions["tunefarm"].tokens


def _same_origin() -> bool:
    """False when the browser says the request came from another host. No Origin and no
    Referer (a non-browser client) passes: only browsers attach cookies behind one's back.
    Hosts only, not schemes: behind a TLS-terminating ingress the gateway sees plain http."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()
