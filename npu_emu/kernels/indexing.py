"""Host side of `kernels_cuda/npu_emu_index.cuh`: turn views into the smallest iteration
space the kernels walk (broadcast, reorder by the output's strides, drop size-1 dims, merge
dims contiguous in every operand), choose 32- or 64-bit indexing, and pack the parameter
struct. Done once per plan, never per launch.
"""
from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

MAX_DIMS = 8
INT32_LIMIT = 2**31  # offsets and counts below this take the 32-bit path


@functools.lru_cache(maxsize=None)
def params_dtype(n_operands: int) -> np.dtype:
    """NumPy mirror of `IterParams<N>` (natural C alignment, 8-byte fields first)."""
    return np.dtype([
        ("numel", np.int64), ("run", np.int64),
        ("size", np.int64, (MAX_DIMS,)),
        ("stride", np.int64, (n_operands, MAX_DIMS)),
        ("magic", np.uint32, (MAX_DIMS,)), ("shift", np.uint32, (MAX_DIMS,)),
        ("ndim", np.int32), ("flags", np.int32),
    ], align=True)


def magic_divisor(d: int) -> tuple[int, int]:
    """(magic, shift) with n // d == (umulhi(n, magic) + n) >> shift for 0 <= n < 2**31."""
    if d < 1 or d >= INT32_LIMIT:
        return 0, 0  # unused: the 64-bit path divides
    shift = 0
    while (1 << shift) < d:
        shift += 1
    magic = ((1 << 32) * ((1 << shift) - d)) // d + 1
    return magic & 0xFFFFFFFF, shift


@dataclass(frozen=True)
class IterSpace:
    """A coalesced iteration space: sizes and per-operand strides, innermost dim first."""
    sizes: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]   # [operand][dim]

    @property
    def numel(self) -> int:
        return math.prod(self.sizes)

    @property
    def ndim(self) -> int:
        return len(self.sizes)

    def extent(self, operand: int) -> int:
        """One past the largest element offset the operand touches."""
        return sum((n - 1) * s for n, s in zip(self.sizes, self.strides[operand])) + 1

    def fits_32bit(self) -> bool:
        """Whether the kernels' 32-bit index body can walk this space: fewer than 2^31
        elements, every offset below 2^31 and none negative (the bodies' index types are
        unsigned; a negative stride takes the 64-bit body, whose offsets wrap to the same
        addresses)."""
        return self.numel < INT32_LIMIT and all(
            s >= 0 for st in self.strides for s in st) and all(
            self.extent(k) < INT32_LIMIT for k in range(len(self.strides)))

    def permuted(self, order: Sequence[int]) -> "IterSpace":
        return IterSpace(tuple(self.sizes[d] for d in order),
                         tuple(tuple(st[d] for d in order) for st in self.strides))


def broadcast_strides(shape: Sequence[int], src_shape: Sequence[int],
                      src_strides: Sequence[int]) -> tuple[int, ...]:
    """Strides of a view of src_shape read as `shape` (right-aligned; stretched dims get 0).
    The caller has checked that the shapes broadcast."""
    lead = len(shape) - len(src_shape)
    out = [0] * lead
    for n, m, s in zip(shape[lead:], src_shape, src_strides):
        out.append(s if m == n else 0)
    return tuple(out)


def coalesce(shape: Sequence[int], strides: Sequence[Sequence[int]],
             order: Sequence[int] | None = None) -> IterSpace:
    """Iteration space for operands with the given strides over a common `shape`
    (outermost first, as in a tensor). Operand 0 is the output: dims are ordered by its
    strides so the kernels write in memory order -- or in `order` (innermost first) when
    the caller chooses. Neighbours contiguous in every operand merge."""
    if order is None:
        dims = [d for d, n in enumerate(shape) if n != 1]
        # Innermost first: smallest output stride first, ties broken by the inputs' strides.
        dims.sort(key=lambda d: tuple(abs(st[d]) for st in strides))
    else:
        dims = [d for d in order if shape[d] != 1]
    sizes: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for d in dims:
        n = shape[d]
        if sizes and all(st[d] == acc[-1] * sizes[-1] for st, acc in zip(strides, out_strides)):
            sizes[-1] *= n  # d continues the previous (inner) dim in every operand
            continue
        sizes.append(n)
        for st, acc in zip(strides, out_strides):
            acc.append(st[d])
    if not sizes:  # 0-d or all ones: one element
        sizes = [1]
        out_strides = [[0] for _ in strides]
    return IterSpace(tuple(sizes), tuple(tuple(s) for s in out_strides))


# Tiles of a transposed walk (tiled): TILE x TILE elements, where both dims divide.
TILE_SIZES = (32, 16, 8)
TILE_MIN_NUMEL = 1 << 16      # below, the operands stay in cache untiled


def tiled(space: IterSpace) -> IterSpace:
    """The same elements walked in square tiles where an input's memory runs across the
    output's: dim 0 (the output's innermost) and the dim j in which that input is contiguous
    (stride +-1) are cut into TILE x TILE blocks, walked block by block, so each cache line
    of the input read down a column serves TILE rows before it leaves (x.T + y read x.T a
    line per element). Unchanged where no input runs so, the space is small, no tile size
    divides both dims, or the kernels' MAX_DIMS would be passed. An elementwise result does
    not depend on the order it is walked in."""
    if space.ndim < 2 or space.ndim + 2 > MAX_DIMS or space.numel < TILE_MIN_NUMEL:
        return space
    j = None
    for st in space.strides[1:]:
        if abs(st[0]) > 1:
            j = next((d for d in range(1, space.ndim) if abs(st[d]) == 1), None)
            if j is not None:
                break
    if j is None:
        return space
    n0, nj = space.sizes[0], space.sizes[j]
    tile = next((t for t in TILE_SIZES if n0 % t == 0 and nj % t == 0 and n0 >= 2 * t
                 and nj >= 2 * t), None)
    if tile is None:
        return space
    rest = [d for d in range(1, space.ndim) if d != j]
    sizes = (tile, tile, n0 // tile, nj // tile, *(space.sizes[d] for d in rest))
    strides = tuple((st[0], st[j], st[0] * tile, st[j] * tile, *(st[d] for d in rest))
                    for st in space.strides)
    return IterSpace(sizes, strides)


@functools.lru_cache(maxsize=None)
def _params_struct(n_operands: int) -> struct.Struct:
    # Same layout as params_dtype(n): every field is 8- or 4-byte and the total is a multiple
    # of 8, so native packing without padding matches the aligned C struct.
    fmt = f"=qq{MAX_DIMS}q{n_operands * MAX_DIMS}q{MAX_DIMS}I{MAX_DIMS}Iii"
    st = struct.Struct(fmt)
    assert st.size == params_dtype(n_operands).itemsize
    return st


_MAGIC_CACHE: dict[int, tuple[int, int]] = {}


def pack_params(space: IterSpace, run: int, flags: int = 0) -> np.void:
    """The IterParams<N> struct for the kernels, as a NumPy structured scalar."""
    if space.ndim > MAX_DIMS:
        raise ValueError(f"iteration space has {space.ndim} dims after coalescing; kernels "
                         f"take at most {MAX_DIMS}")
    n_ops = len(space.strides)
    pad = [0] * (MAX_DIMS - space.ndim)
    magics, shifts = [], []
    for n in space.sizes:
        m = _MAGIC_CACHE.get(n)
        if m is None:
            m = _MAGIC_CACHE[n] = magic_divisor(n)
        magics.append(m[0])
        shifts.append(m[1])
    values = [space.numel, run, *space.sizes, *pad]
    for st in space.strides:
        values += [*st, *pad]
    values += [*magics, *pad, *shifts, *pad, space.ndim, flags]
    raw = _params_struct(n_ops).pack(*values)
    return np.frombuffer(raw, dtype=params_dtype(n_ops))[0]
