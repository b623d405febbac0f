"""Bearer-token authentication for the gateway (the REST API and the web UI).

Tokens live in the file named by `TUNEFARM_TOKENS_FILE`, one per line:

    # TOKEN            SCOPES        [NAME]
    s3cr3t-reader      read          grafana
    s3cr3t-ci          read,submit   ci pipeline

Scopes: `read` (GET endpoints) and `submit` (POST endpoints: submit, cancel); a scope does
not imply the other. `#` starts a comment; blank lines are ignored; a malformed line stops
the gateway at startup with its line number, because a half-read token file would lock out
(or let in) the wrong clients. Without a tokens file there are no tokens: every API call is
refused.

A client sends `Authorization: Bearer TOKEN`, or the `tunefarm_token` cookie (set by the web
UI), which is checked the same way. A cookie travels with cross-site requests, so a
cookie-authenticated POST must come from this gateway's own origin when the browser says
where it came from (Origin/Referer). Tokens are compared in constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flask import current_app, request
from werkzeug.exceptions import HTTPException

SCOPES = ("read", "submit")
READ, SUBMIT = SCOPES
COOKIE_NAME = "tunefarm_token"
REALM = "tunefarm"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class TokensFileError(ValueError):
    """The tokens file cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Token:
    """One API client: its secret, its scopes and a name for logs."""

    secret: str
    scopes: frozenset[str]
    name: str

    def allows(self, scope: str) -> bool:
        return scope in self.scopes


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
def parse_tokens(text: str, source: str = "<tokens>") -> TokenRing:
    """Parse the tokens file format; raises TokensFileError naming the bad line."""
    tokens, seen = [], {}
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
    parts = line.split(maxsplit=2)
    if len(parts) < 2:
        raise TokensFileError(
            f"{where}: expected 'TOKEN SCOPES [NAME]' with SCOPES from {','.join(SCOPES)}"
        )
    secret, scopes_text = parts[0], parts[1]
    scopes = frozenset(s.strip() for s in scopes_text.split(",") if s.strip())
    unknown = sorted(scopes - set(SCOPES))
    if unknown or not scopes:
        raise TokensFileError(
            f"{where}: unknown scope(s) {', '.join(unknown) or repr(scopes_text)}; "
            f"scopes are {', '.join(SCOPES)}, comma-separated"
        )
    return Token(secret, scopes, parts[2].strip() if len(parts) > 2 else default_name)


def load_tokens(path: str | None) -> TokenRing:
    """Read the tokens file (None: no tokens, every call is refused)."""
    if path is None:
        return TokenRing()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokensFileError(f"tokens file {path}: {exc}") from None
    return parse_tokens(text, source=f"tokens file {path}")


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
    """The token for `secret` if it has `scope`; else AuthError 401 (missing or unknown) or
    403 (scope lacking). The UI can call this for a token typed into a login form."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; scopes are {', '.join(SCOPES)}")
    ring = ring if ring is not None else tokens()
    if not secret:
        raise AuthError(401, "missing token: send 'Authorization: Bearer <token>'")
    token = ring.find(secret)
    if token is None:
        raise AuthError(401, "unknown token")
    if not token.allows(scope):
        raise AuthError(403, f"token {token.name!r} lacks the {scope!r} scope", scope=scope)
    return token


def authenticate(scope: str) -> Token:
    """Check the current request's token (header or cookie) for `scope`."""
    secret, source = token_from_request()
    token = check_token(secret, scope)
    if source == "cookie" and request.method not in _SAFE_METHODS and not _same_origin():
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
    """The current app's token ring (loaded once by `create_app`)."""
    return current_app.extensions["tunefarm"].tokens


def _same_origin() -> bool:
    """False when the browser says the request came from another host. No Origin and no
    Referer (a non-browser client) passes: only browsers attach cookies behind one's back.
    Hosts only, not schemes: behind a TLS-terminating ingress the gateway sees plain http."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()
