"""Target strings: a backend kind and its options, `KIND -option=value ...`.

    cpu                     the host CPU (its ISA read from /proc/cpuinfo)
    cpu -isa=avx2 -cores=2

A `Target` is plain data, as a `Task` is: the kind names a backend (`tunefarm.backends`) and
the options are strings that only that backend interprets. Parsing the text checks the
syntax; `tunefarm.backends.parse_target` also checks that the backend exists and knows every
option, which is what every entry point (CLI, REST, agents, job submission) calls.
"""

from __future__ import annotations

from dataclasses import dataclass


class TargetError(ValueError):
    """A target string that names no backend, or options its backend does not take."""


@dataclass(frozen=True)
class Target:
    """A backend kind and its options, in the backend's canonical order."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()

    def get(self, name: str, default: str = "") -> str:
        return dict(self.options).get(name, default)

    def __str__(self) -> str:
        return " ".join([self.kind, *(f"-{k}={v}" for k, v in self.options)])


def split_target(text: str) -> tuple[str, dict[str, str]]:
    """(kind, options) of a target string, checking only its syntax."""
    if not isinstance(text, str):
        raise TargetError(f"a target must be a string, got {type(text).__name__}")
    parts = text.split()
    if not parts:
        raise TargetError("the target is empty; e.g. 'cpu' or 'cpu -isa=avx2'")
    options: dict[str, str] = {}
    for part in parts[1:]:
        key, sep, value = part[1:].partition("=")
        if not part.startswith("-") or not sep or not key or not value:
            raise TargetError(f"target {text!r}: option {part!r} must look like -key=value")
        if key in options:
            raise TargetError(f"target {text!r}: option -{key} is given twice")
        options[key] = value
    return parts[0], options
