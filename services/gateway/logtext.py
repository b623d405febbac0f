"""Text from a request, made safe to log: a path may carry a decoded `%0a`, and a raw line
break in a log line writes a second, forged line (log injection). Control characters are
escaped (as `\\n`, `\\x1b`, ...) and the text is capped."""

from __future__ import annotations

MAX_LOGGED = 300


def escape(text: object, limit: int = MAX_LOGGED) -> str:
    """`text` with every non-printable character escaped, at most `limit` characters (an
    ellipsis says it was cut)."""
    text = str(text)
    cut = len(text) > limit
    text = text[:limit]
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return text + ("..." if cut else "")
