"""VTA target options: `vta [-config=PRESET|FILE.json]`.

`vta` alone is the default preset (1x16x16: batch 1, 16-wide blocks, 100 MHz). `-config`
names another preset shipped in `configs/` (`1x32x32`) or a JSON file in VTA's style. The
file is read and checked when the target is parsed, so a bad config is refused at the CLI,
the REST API and agent start-up, naming the field, instead of failing every candidate later.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from tunefarm.backends.vta.config import ConfigError, VTAConfig, load_config, preset_names
from tunefarm.target import Target, TargetError

DEFAULT_PRESET = "default"
USAGE = "vta [-config=1x16x16|1x32x32|FILE.json]"
# The preset files are named by their role ("default") or their shape; both spell a preset.
ALIASES = {"1x16x16": DEFAULT_PRESET}


def check_options(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """-config, checked by loading it; the default preset is left out (canonical `vta`)."""
    unknown = sorted(set(options) - {"config"})
    if unknown:
        raise TargetError(f"unknown option(s) {', '.join('-' + u for u in unknown)}")
    value = options.get("config")
    if value is None:
        return ()
    value = ALIASES.get(value, value)
    try:
        _load(value)
    except ConfigError as exc:
        raise TargetError(f"-config={value}: {exc}") from None
    return () if value == DEFAULT_PRESET else (("config", value),)


@functools.lru_cache(maxsize=16)
def _load(spec: str) -> VTAConfig:
    return load_config(spec)


def hw_config(target: Target) -> VTAConfig:
    """The hardware configuration a (checked) vta target names."""
    return _load(target.get("config", DEFAULT_PRESET))


def presets() -> list[str]:
    """Preset names a target may give to -config (aliases included)."""
    return sorted({*preset_names(), *ALIASES})
