"""The `tunefarm` command line: one subcommand per module of this package.

A command module needs no registration: `tunefarm.cli.main` finds every module here (except
`main` and names starting with "_"), so engineers add commands (tune, tasks, compile, run,
bench, records, serve, worker, agent) without touching a shared file. A command module has:

    NAME = "op"                  # optional; default: the module name, "_" -> "-"
    HELP = "one line for --help" # optional; default: the module docstring's first line
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...   # the exit status

Keep heavy imports (numpy, templates, measure) inside `run`, so `tunefarm --help` and every
other command stay fast. Bad user input should raise `CommandError` (or go through
`parser.error`): `main` prints it as one line, `tunefarm CMD: error: ...`, and exits 2,
never with a traceback.
"""

from __future__ import annotations

EXIT_USAGE = 2  # argparse's status for bad arguments; we use it for every bad-input error


class CommandError(Exception):
    """A problem to report to the user as one line, with exit status `code`."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code
