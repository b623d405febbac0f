"""Entry point of the `tunefarm` command: build the parser from the command modules, dispatch.

Run as `tunefarm CMD ...`, `python -m tunefarm CMD ...` or `python -m tunefarm.cli.main`.
`main(argv)` returns the exit status instead of exiting, so tests call it in-process.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

import tunefarm.cli as cli_package
from tunefarm.cli import EXIT_USAGE, CommandError
from tunefarm.cli._about import VersionAction

PROG = "tunefarm"
_NOT_COMMANDS = frozenset({"main"})


class UsageError(Exception):
    """Raised instead of argparse's print-usage-and-exit, so `main` can return a status."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become UsageError (sub-parsers inherit the class)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def command_modules() -> list[str]:
    """Names of the command modules in `tunefarm.cli`, sorted."""
    names = (m.name for m in pkgutil.iter_modules(cli_package.__path__))
    return sorted(n for n in names if not n.startswith("_") and n not in _NOT_COMMANDS)


def _describe(module: ModuleType) -> tuple[str, str]:
    name = getattr(module, "NAME", module.__name__.rsplit(".", 1)[-1].replace("_", "-"))
    doc = (module.__doc__ or "").strip().splitlines()
    return name, getattr(module, "HELP", doc[0] if doc else "")


def _unavailable(exc: Exception) -> Callable[[argparse.Namespace], int]:
    """A stand-in for a command whose module fails to import, so the others still work."""

    def run(args: argparse.Namespace) -> int:
        raise CommandError(f"command unavailable: {type(exc).__name__}: {exc}", code=1)

    return run


def build_parser() -> Parser:
    """The top-level parser with one sub-parser per command module."""
    parser = Parser(prog=PROG, description="An auto-tuning compiler for deep-learning operators.")
    parser.add_argument(
        "--version", action=VersionAction, help="print the versions of tunefarm and its libraries"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for modname in command_modules():
        try:
            module = importlib.import_module(f"{cli_package.__name__}.{modname}")
        except Exception as exc:  # one broken command must not take the others down
            sub = subparsers.add_parser(modname, help=f"(unavailable: {exc})")
            sub.set_defaults(_run=_unavailable(exc))
            continue
        if not (hasattr(module, "add_arguments") and hasattr(module, "run")):
            continue  # a helper module, not a command
        name, help_text = _describe(module)
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: sys.argv[1:]), run the command, return its exit status."""
    parser = build_parser()
    args: argparse.Namespace | None = None
    try:
        args = parser.parse_args(argv)
        if getattr(args, "_run", None) is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return int(args._run(args))
    except UsageError as exc:
        print(f"{exc.prog}: error: {exc} (see {exc.prog} --help)", file=sys.stderr)
        return EXIT_USAGE
    except CommandError as exc:
        prog = f"{PROG} {getattr(args, 'command', '')}".strip()
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return exc.code
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:  # `tunefarm ... | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
