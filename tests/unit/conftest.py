"""Fixtures the search tests share: `build_cache`, a throwaway build cache so tests neither
read nor fill ~/.cache (a module asks for it with `pytestmark =
pytest.mark.usefixtures("build_cache")`; a module may define its own), and `measure`, one
local measurer per module, so its worker processes start once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tunefarm.measure import MeasureSettings
from tunefarm.tune.tuner import MeasureOption


@pytest.fixture
def build_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path_factory.getbasetemp() / "build-cache"))


@pytest.fixture(scope="module")
def measure() -> Iterator[MeasureOption]:
    option = MeasureOption.local(MeasureSettings(repeat=1, min_repeat_ms=1))
    yield option
    option.close()
