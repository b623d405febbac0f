"""The backends layer: one folder per target kind, behind one small interface.

    from tunefarm.backends import parse_target, registry
    registry.config_space(task)      # answered by the backend of task.target

`base` holds the `Backend` protocol and the table of backends; `registry` the op registry
keyed by (target kind, op). Other layers import only these two modules, never a backend's
own (`tunefarm.backends.cpu...`): the import contracts in pyproject.toml check it.
"""

from tunefarm.backends.base import (
    Backend,
    backend_of,
    canonical,
    check_networks,
    get_backend,
    kinds,
    network_target_error,
    parse_target,
    usage,
)
from tunefarm.target import Target, TargetError

__all__ = [
    "Backend",
    "Target",
    "TargetError",
    "backend_of",
    "canonical",
    "check_networks",
    "get_backend",
    "kinds",
    "network_target_error",
    "parse_target",
    "usage",
]
