"""DRAM images: named regions of one byte buffer, as the accelerator's DMA sees them.

VTA addresses DRAM in elements of the buffer an instruction moves (16-byte input vectors,
256-byte weight tiles, ...), so every region starts at a multiple of the largest element
size; `element_base` turns a region into the `dram_base` an instruction carries. The
simulator reads and writes one contiguous uint8 array; `pack` builds it from arrays and `view`
reads a region back as a typed array without copying.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Region:
    """One tensor in DRAM: byte offset, dtype and shape (C order)."""

    name: str
    offset: int
    dtype: str
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class DramLayout:
    """Regions in address order and the total size in bytes."""

    regions: tuple[Region, ...]
    size: int
    align: int

    @classmethod
    def build(
        cls, tensors: Sequence[tuple[str, tuple[int, ...], str]], align: int = 256
    ) -> DramLayout:
        """Place (name, shape, dtype) tensors one after another, each `align`-byte aligned."""
        regions, offset = [], 0
        for name, shape, dtype in tensors:
            offset = -(-offset // align) * align
            region = Region(name, offset, np.dtype(dtype).str, tuple(int(s) for s in shape))
            regions.append(region)
            offset += region.nbytes
        return cls(tuple(regions), -(-offset // align) * align, align)

    def __getitem__(self, name: str) -> Region:
        for region in self.regions:
            if region.name == name:
                return region
        raise KeyError(f"no DRAM region {name!r}; regions: {[r.name for r in self.regions]}")

    def element_base(self, name: str, elem_bytes: int) -> int:
        """The region's start in units of `elem_bytes` (an instruction's dram_base)."""
        offset = self[name].offset
        if offset % elem_bytes:
            raise ValueError(f"region {name!r} at byte {offset} is not aligned to {elem_bytes}")
        return offset // elem_bytes

    def pack(self, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
        """A zeroed DRAM image with the given regions filled (shapes must match)."""
        dram = np.zeros(self.size, dtype=np.uint8)
        for name, array in arrays.items():
            self.view(dram, name)[...] = array
        return dram

    def view(self, dram: np.ndarray, name: str) -> np.ndarray:
        """The region `name` of a DRAM image as a typed array (a view: writes go through)."""
        region = self[name]
        raw = dram[region.offset : region.offset + region.nbytes]
        return raw.view(np.dtype(region.dtype)).reshape(region.shape)
