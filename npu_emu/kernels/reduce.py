"""Host side of the reduce family (`kernels_cuda/reduce.cuh` and its build units
`reduce_<unit>_<group>.cu`): the family's catalog (functions x dtype pairs and the unit each
op builds in, declared once; the units' files are generated from it), `plan` (launches and
workspace for a reduction or scan over a strided view) and `apply_numpy`, the eager helper
the tests use. The order every reduction follows is in docs/reductions.md.

`python -m npu_emu.kernels` rewrites the units' files (`--check`: exit 1 when one is stale or
one is left over).
"""
from __future__ import annotations

import ctypes
import functools
import math
import struct
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..dtypes import INFO, aclDataType as DT, as_dtype, dt_name
from ..runtime import current as current_backend
from ..runtime.base import Backend, Launch, Workspace
from . import unit_text
from .copy import View, pointer_arg
from .indexing import coalesce

# Build units: an op's kernels build by its unit (KernelSet.unit: what the unit's text says it
# holds) and by the group of their input dtype (GROUPS), one module each,
# reduce_<unit>_<group>.cu, so that a first call builds only the kernels of its input's group
# (a first float32 sum waited 15-19 s of g++ for the 25 sums of every dtype), each build
# stays short and the units build in parallel.
UNITS = {"sum": "sum", "prod": "prod", "stats": "mean, var, std and the sum of squares",
         "extreme": "max, min, argmax, argmin", "bool": "all, any",
         "scan": "cumulative_sum, cumulative_prod"}
LEAF = 1024          # L: elements per leaf
LANES = 16           # W: interleaved accumulators per leaf
MAX_DIMS = 8         # kept dims and reduced dims, each after merging
PART_BYTES = 16      # the widest partial result (complex128, a key with its index)
CENTER_BYTES = 8     # var/std's per-output mean (float or double)
ALIGN = 256

# ------------------------------------------------------------------------- the catalog

# The C++ storage type of each dtype the family takes (kernels_cuda/npu_emu_convert.cuh).
C_TYPES = {
    DT.ACL_BOOL: "npu_emu::boolean",
    DT.ACL_INT8: "int8_t", DT.ACL_INT16: "int16_t", DT.ACL_INT32: "int32_t", DT.ACL_INT64: "int64_t",
    DT.ACL_UINT8: "uint8_t", DT.ACL_UINT16: "uint16_t", DT.ACL_UINT32: "uint32_t",
    DT.ACL_UINT64: "uint64_t",
    DT.ACL_FLOAT16: "npu_emu::f16", DT.ACL_BF16: "npu_emu::bf16",
    DT.ACL_FLOAT: "float", DT.ACL_DOUBLE: "double",
    DT.ACL_COMPLEX64: "npu_emu::c64", DT.ACL_COMPLEX128: "npu_emu::c128",
}
SIGNED = (DT.ACL_INT8, DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64)
UNSIGNED = (DT.ACL_UINT8, DT.ACL_UINT16, DT.ACL_UINT32, DT.ACL_UINT64)
REAL_FLOATS = (DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT, DT.ACL_DOUBLE)
COMPLEX = (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128)
REAL = SIGNED + UNSIGNED + REAL_FLOATS
NUMERIC = REAL + COMPLEX
ALL = (DT.ACL_BOOL,) + NUMERIC
GROUPS = {"float": REAL_FLOATS, "int": (DT.ACL_BOOL,) + SIGNED + UNSIGNED, "complex": COMPLEX}
_GROUP_OF = {dt: group for group, dts in GROUPS.items() for dt in dts}

# sum / prod / the scans: (input, output) pairs. The output is the accumulation type (fp16 and
# bf16 accumulate in float and round once); the widening pairs are the array API's defaults
# (sum of int32 is int64, of bool int64) and the dtype= arguments that prevent overflow.
SUM_TYPES = tuple((t, t) for t in NUMERIC) + (
    (DT.ACL_BOOL, DT.ACL_INT64),
    (DT.ACL_INT8, DT.ACL_INT64), (DT.ACL_INT16, DT.ACL_INT64), (DT.ACL_INT32, DT.ACL_INT64),
    (DT.ACL_UINT8, DT.ACL_UINT64), (DT.ACL_UINT16, DT.ACL_UINT64), (DT.ACL_UINT32, DT.ACL_UINT64),
    (DT.ACL_FLOAT16, DT.ACL_FLOAT), (DT.ACL_BF16, DT.ACL_FLOAT), (DT.ACL_FLOAT, DT.ACL_DOUBLE),
    (DT.ACL_COMPLEX64, DT.ACL_COMPLEX128),
)
# mean: same type; f16/bf16 -> float are var/std's centers (their mean kept in float).
MEAN_TYPES = tuple((t, t) for t in REAL_FLOATS + COMPLEX) + (
    (DT.ACL_FLOAT16, DT.ACL_FLOAT), (DT.ACL_BF16, DT.ACL_FLOAT))


@dataclass(frozen=True)
class KernelSet:
    """One op of the family: the kernels `{kind}_{op}_{in}_{out}` for each dtype pair, built
    in the module of its unit and of the input's group (module_for)."""
    kind: str     # "reduce" or "scan"
    op: str       # the kernel op name
    cpp: str      # the op's struct in reduce.cuh
    types: tuple[tuple[DT, DT], ...]
    unit: str     # a key of UNITS

    def module_for(self, src: DT) -> str:
        """The module that holds this op's kernels from input dtype `src`."""
        return f"reduce_{self.unit}_{_GROUP_OF[src]}.cu"


KERNEL_SETS = (
    KernelSet("reduce", "sum", "Sum", SUM_TYPES, "sum"),
    KernelSet("reduce", "prod", "Prod", SUM_TYPES, "prod"),
    KernelSet("reduce", "max", "Max", tuple((t, t) for t in REAL), "extreme"),
    KernelSet("reduce", "min", "Min", tuple((t, t) for t in REAL), "extreme"),
    KernelSet("reduce", "argmax", "ArgMax", tuple((t, DT.ACL_INT64) for t in REAL), "extreme"),
    KernelSet("reduce", "argmin", "ArgMin", tuple((t, DT.ACL_INT64) for t in REAL), "extreme"),
    KernelSet("reduce", "all", "All", tuple((t, DT.ACL_BOOL) for t in ALL), "bool"),
    KernelSet("reduce", "any", "Any", tuple((t, DT.ACL_BOOL) for t in ALL), "bool"),
    KernelSet("reduce", "mean", "Mean", MEAN_TYPES, "stats"),
    KernelSet("reduce", "sqdev", "SqDev", tuple((t, t) for t in REAL_FLOATS), "stats"),
    # x * x summed, in the accumulation type (fp16 / bf16: squared and summed in float)
    KernelSet("reduce", "sumsq", "SumSq", ((DT.ACL_FLOAT, DT.ACL_FLOAT), (DT.ACL_DOUBLE, DT.ACL_DOUBLE),
                                          (DT.ACL_FLOAT16, DT.ACL_FLOAT), (DT.ACL_BF16, DT.ACL_FLOAT)),
              "stats"),
    KernelSet("scan", "sum", "Sum", SUM_TYPES, "scan"),
    KernelSet("scan", "prod", "Prod", SUM_TYPES, "scan"),
)


@dataclass(frozen=True)
class Function:
    """A reduction as callers name it: the kernel set it runs on and its default output."""
    name: str
    kind: str
    op: str


FUNCTIONS = {f.name: f for f in (
    Function("sum", "reduce", "sum"), Function("prod", "reduce", "prod"),
    Function("max", "reduce", "max"), Function("min", "reduce", "min"),
    Function("argmax", "reduce", "argmax"), Function("argmin", "reduce", "argmin"),
    Function("all", "reduce", "all"), Function("any", "reduce", "any"),
    Function("mean", "reduce", "mean"),
    Function("var", "reduce", "sqdev"), Function("std", "reduce", "sqdev"),
    Function("sum_of_squares", "reduce", "sumsq"),
    Function("cumulative_sum", "scan", "sum"), Function("cumulative_prod", "scan", "prod"),
)}


def kernel_name(kind: str, op: str, src: DT, dst: DT) -> str:
    """The one place kernel names are made: `reduce_sum_s32_s64`, `scan_prod_f16_f16`."""
    return f"{kind}_{op}_{INFO[src].short}_{INFO[dst].short}"


def kernel_set(kind: str, op: str) -> KernelSet:
    return next(k for k in KERNEL_SETS if k.kind == kind and k.op == op)


def supported(name: str) -> tuple[tuple[DT, DT], ...]:
    """The (input, output) dtype pairs of a function."""
    f = FUNCTIONS[name]
    return kernel_set(f.kind, f.op).types


def default_dtype(name: str, src: DT) -> DT:
    """The output dtype when the caller gives none: the array API's rules (sum/prod/scans of
    signed integers and bool give int64, of unsigned integers uint64)."""
    if name in ("argmax", "argmin"):
        return DT.ACL_INT64
    if name in ("all", "any"):
        return DT.ACL_BOOL
    if name in ("sum", "prod", "cumulative_sum", "cumulative_prod"):
        if src in SIGNED or src == DT.ACL_BOOL:
            return DT.ACL_INT64
        if src in UNSIGNED:
            return DT.ACL_UINT64
    return src


def _modules() -> dict[str, tuple[tuple[KernelSet, DT, DT], ...]]:
    """Every module of the family -> its kernels (kernel set, input, output), in the catalog's
    order; the modules in the order of UNITS, then GROUPS."""
    found: dict[str, list] = {}
    for unit in UNITS:
        for group in GROUPS:
            for ks in (k for k in KERNEL_SETS if k.unit == unit):
                for src, dst in ks.types:
                    if _GROUP_OF[src] == group:
                        found.setdefault(ks.module_for(src), []).append((ks, src, dst))
    return {m: tuple(kernels) for m, kernels in found.items()}


MODULES = _modules()
GENERATED = ("reduce_*.cu",)   # the files generated from the catalog (npu_emu.kernels)


def unit_source(module: str) -> str:
    """The whole text of a module: reduce.cuh and its instantiation lines, one kernel each."""
    kernels = MODULES[module]
    unit = kernels[0][0].unit
    group = _GROUP_OF[kernels[0][1]]
    lines = []
    for ks, src, dst in kernels:
        macro = "NPU_EMU_REDUCE" if ks.kind == "reduce" else "NPU_EMU_SCAN"
        lines.append(f"{macro}({ks.op}, {ks.cpp}, {C_TYPES[src]}, {INFO[src].short}, "
                     f"{C_TYPES[dst]}, {INFO[dst].short})")
    return unit_text("reduce", "the catalog KERNEL_SETS", lines,
                     about=[f"Build unit {unit}_{group} (reduce.cuh): {UNITS[unit]}, from "
                            f"{', '.join(dt_name(d) for d in GROUPS[group])}."],
                     includes=["reduce.cuh"])


def generated() -> dict[str, str]:
    """Every module's kernels_cuda/reduce_<unit>_<group>.cu."""
    return {module: unit_source(module) for module in MODULES}


def unit_modules(unit: str) -> list[str]:
    """The modules of one unit (one per input group its ops take)."""
    return [m for m, kernels in MODULES.items() if kernels[0][0].unit == unit]


# ------------------------------------------------------------------------------ params

# Mirror of `ReduceParams` (reduce.cuh): 6 counts, 5 arrays of MAX_DIMS, a double, 4 int32.
_PARAMS = struct.Struct(f"=6q{5 * MAX_DIMS}qd4i")
PHASE_WHOLE, PHASE_GROUPS, PHASE_COMBINE = 0, 1, 2
FLAG_SQRT, FLAG_INITIAL = 1, 2


@functools.lru_cache(maxsize=None)
def params_dtype() -> np.dtype:
    """NumPy mirror of ReduceParams (for the layout checks)."""
    return np.dtype([
        ("nout", np.int64), ("nred", np.int64), ("nleaves", np.int64), ("group", np.int64),
        ("ngroups", np.int64), ("scan_ystride", np.int64),
        ("out_size", np.int64, (MAX_DIMS,)), ("out_xstride", np.int64, (MAX_DIMS,)),
        ("out_ystride", np.int64, (MAX_DIMS,)), ("red_size", np.int64, (MAX_DIMS,)),
        ("red_stride", np.int64, (MAX_DIMS,)), ("correction", np.float64),
        ("out_ndim", np.int32), ("red_ndim", np.int32), ("phase", np.int32), ("flags", np.int32),
    ], align=True)


@dataclass(frozen=True)
class Space:
    """An output space (kept dims: sizes, input strides, output strides; innermost first) and
    the reduced space of each output (sizes, strides; innermost = the last axis first)."""
    out_sizes: tuple[int, ...]
    out_xstrides: tuple[int, ...]
    out_ystrides: tuple[int, ...]
    red_sizes: tuple[int, ...]
    red_strides: tuple[int, ...]

    @property
    def nout(self) -> int:
        return math.prod(self.out_sizes)

    @property
    def nred(self) -> int:
        return math.prod(self.red_sizes)

    @property
    def nleaves(self) -> int:
        return -(-self.nred // LEAF)


def _pad(values: Sequence[int]) -> list[int]:
    return [*values, *([1] * (MAX_DIMS - len(values)))]


def pack(space: Space, group: int, phase: int, *, correction: float = 0.0, flags: int = 0,
         scan_ystride: int = 0, ystrides: Sequence[int] | None = None) -> np.void:
    """The ReduceParams struct, as a NumPy structured scalar."""
    ngroups = max(1, -(-space.nleaves // group))
    raw = _PARAMS.pack(space.nout, space.nred, space.nleaves, group, ngroups, scan_ystride,
                       *_pad(space.out_sizes), *_pad(space.out_xstrides),
                       *_pad(space.out_ystrides if ystrides is None else ystrides),
                       *_pad(space.red_sizes), *_pad(space.red_strides), float(correction),
                       len(space.out_sizes), len(space.red_sizes), phase, flags)
    return np.frombuffer(raw, dtype=params_dtype())[0]


# The reductions whose result does not depend on the order of the elements, ties included
# (argmax and argmin return the first index of a tie: theirs does): their reduced elements are
# walked in memory order (reduced_dims' by_memory), so max(x.T) reads x row by row.
ANY_ORDER = frozenset({"max", "min", "all", "any"})


def reduced_dims(shape: Sequence[int], strides: Sequence[int], axes: Sequence[int],
                 by_memory: bool = False) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The reduced space in its logical C order (ascending axes, the last fastest), innermost
    first: size-1 axes dropped, neighbours merged where memory is contiguous across them (the
    logical order is unchanged by both). `by_memory` (an ANY_ORDER reduction): the axes in the
    order of their strides instead, the smallest fastest, so neighbours in memory merge."""
    dims = [(shape[a], strides[a]) for a in sorted(axes) if shape[a] != 1]
    if by_memory:
        dims.sort(key=lambda d: -abs(d[1]))         # stable: equal strides keep their order
    if any(n == 0 for n, _ in dims):
        return (0,), (0,)
    merged: list[list[int]] = []            # innermost first
    for n, s in reversed(dims):
        if merged and s == merged[-1][1] * merged[-1][0]:
            merged[-1][0] *= n
        else:
            merged.append([n, s])
    if not merged:
        return (1,), (0,)
    if len(merged) > MAX_DIMS:
        raise ValueError(f"axis={tuple(axes)} leaves {len(merged)} reduced dims after merging; "
                         f"the kernels take at most {MAX_DIMS}")
    return tuple(n for n, _ in merged), tuple(s for _, s in merged)


def make_space(x: View, out: View, axes: Sequence[int], initial: "int | None" = None,
               by_memory: bool = False) -> Space:
    """The spaces of a reduction over `axes`, or of a scan along axes[0] (`initial`: how many
    leading outputs the scan writes before its first element, 0 or 1); `by_memory`: the
    reduced elements in memory order (reduced_dims)."""
    scan = initial is not None
    kept = [a for a in range(len(x.shape)) if a not in set(axes)]
    kept_shape = tuple(x.shape[a] for a in kept)
    ystrides = [out.strides[a] for a in kept] if scan else list(out.strides)
    want = tuple(n + (initial if scan and a == axes[0] else 0)
                 for a, n in enumerate(x.shape)) if scan else kept_shape
    if tuple(out.shape) != want:
        raise ValueError(f"out has shape {tuple(out.shape)}; this {'scan' if scan else 'reduction'} "
                         f"of shape {tuple(x.shape)} over axis={tuple(axes)} writes {want}")
    kspace = coalesce(kept_shape, [ystrides, [x.strides[a] for a in kept]])
    if kspace.ndim > MAX_DIMS:
        raise ValueError(f"the kept dims coalesce to {kspace.ndim} dims; the kernels take at "
                         f"most {MAX_DIMS}")
    red_sizes, red_strides = reduced_dims(x.shape, x.strides, axes, by_memory)
    if scan:   # one axis, never merged
        red_sizes, red_strides = (x.shape[axes[0]],), (x.strides[axes[0]],)
    return Space(kspace.sizes, kspace.strides[1], kspace.strides[0], red_sizes, red_strides)


# ---------------------------------------------------------------------------- geometry

@dataclass(frozen=True)
class Geometry:
    """How a launch splits the work (never what it computes): `group` leaves per phase-1
    item (a power of two; at least nleaves means one phase), `threads` in all, `block` per
    block. Tests pass their own to prove the bits do not change."""
    group: int
    threads: int
    block: int = 1

    def __post_init__(self) -> None:
        if self.group < 1 or self.group & (self.group - 1):
            raise ValueError(f"group={self.group}: leaves per group must be a power of two")
        if self.threads < 1 or self.block < 1:
            raise ValueError(f"threads={self.threads}, block={self.block}: both must be >= 1")


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


# A reduction whose weighed bytes (elements x itemsize, elements x 16 for the types under 4
# bytes, which convert or widen every element) are at most INLINE_BYTES / parallelism runs as
# one block on the calling thread where a split would be into groups or narrow bands: handing
# the work to the pool's workers and combining their groups in a second launch costs more
# than it saves below that (float32 on the 2-core development machine, workers awake: max of
# 256K 27 us in one block, 30 split; 512K 100 and 53, past one core's L2; 1M 70 split). More
# workers split sooner.
INLINE_BYTES = 2 << 20


def weight(itemsize: int) -> int:
    """Bytes an element counts for INLINE_BYTES."""
    return 16 if itemsize < 4 else itemsize


# The fewest side-by-side outputs (the columns of a row-major matrix) that take reduce.cuh's
# side-by-side paths (its R_MIN; a test checks that they agree): fewer go output by output.
SIDE_BY_SIDE_MIN = 16
# Side-by-side outputs are split among the workers only in bands of at least this many (a
# chunk of reduce.cuh's, R): a band short of R_MIN fell back to walking column by column,
# reading a few bytes of each row's cache lines (a (16384, 256) float32 max down the columns:
# 9.9 ms in bands of 32, 0.93 in bands of 64; NumPy 0.97).
BAND = 64


def cpu_geometry(parallelism: int, nout: int, nleaves: int, item_weight: int = 0,
                 side_by_side: bool = False) -> Geometry:
    """A few contiguous chunks per worker; an output's leaves are split into groups only when
    there are too few outputs to keep every worker busy; `side_by_side` outputs (at least
    SIDE_BY_SIDE_MIN neighbours in the input) in bands of at least BAND. One block, inline,
    for one worker and for small work: at most 16 leaves, or, where the split would be into
    groups (fewer outputs than chunks) or into bands narrower than BAND, a reduction's
    weighed bytes (`item_weight`: weight() of its input's itemsize; 0 for a scan, whose lines
    are not leaves) at most INLINE_BYTES / parallelism."""
    chunks = 4 * parallelism
    whole = _pow2_at_least(max(nleaves, 1))
    split_badly = nout < chunks and nleaves > 1 or side_by_side and nout < BAND * chunks
    small = parallelism == 1 or nout * max(nleaves, 1) <= 16 or (
        # two launches (groups, then their combination), or narrow bands: not worth it
        item_weight > 0 and split_badly
        and nout * max(nleaves, 1) * LEAF * item_weight <= INLINE_BYTES // parallelism)
    if small or nout >= chunks or nleaves <= 1:
        # small: one block, run inline (no hand-off to a worker)
        if small:
            return Geometry(whole, 1)
        return Geometry(whole, max(1, min(nout // BAND, chunks)) if side_by_side
                        else min(nout, chunks))
    per_output = -(-chunks // nout)
    group = _pow2_at_least(-(-nleaves // per_output))
    return Geometry(group, min(nout * -(-nleaves // group), chunks))


def gpu_geometry(nout: int, nleaves: int, block: int = 256) -> Geometry:
    """One item per thread: a whole output each when there are many, else one leaf each."""
    if nleaves <= 1 or nout >= 65536:
        return Geometry(_pow2_at_least(max(nleaves, 1)), max(nout, 1), block)
    return Geometry(1, nout * nleaves, block)


def choose_geometry(be: Backend, nout: int, nleaves: int, itemsize: int | None = None,
                    side_by_side: bool = False) -> Geometry:
    """`itemsize`: a reduction's input's (None for a scan); `side_by_side`: its outputs'
    elements are neighbours in the input (cpu_geometry)."""
    if be.is_cpu:
        return cpu_geometry(be.parallelism, nout, nleaves,
                            0 if itemsize is None else weight(itemsize), side_by_side)
    return gpu_geometry(nout, nleaves)


# -------------------------------------------------------------------------------- plan

@dataclass
class ReducePlan:
    """Launches (in order, on one stream) and the workspace bytes they need."""
    launches: list[Launch]
    workspace_size: int


def _check_types(name: str, src: DT, dst: DT) -> None:
    if name not in FUNCTIONS:
        raise ValueError(f"{name!r} is not a reduction of this family; choose one of "
                         f"{', '.join(FUNCTIONS)}")
    if (src, dst) not in supported(name):
        raise TypeError(f"{name} has no kernel from {dt_name(src)} to {dt_name(dst)}; it takes "
                        + ", ".join(f"{INFO[a].short}->{INFO[b].short}" for a, b in supported(name)))


def _normalize_axes(name: str, ndim: int, axes: Sequence[int] | None) -> tuple[int, ...]:
    if axes is None:
        return tuple(range(ndim))
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis={a} is out of range for an array of {ndim} dims")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"axis={tuple(axes)} repeats an axis")
    if name.startswith("cumulative") and len(out) != 1:
        raise ValueError(f"{name} takes one axis, got axis={tuple(axes)}")
    return tuple(sorted(out))


# Pointer slots of a cached plan's arguments, filled per call.
X, Y = "x", "y"


def plan(be: Backend, name: str, x: View, x_dtype: DT, out: View, out_dtype: DT,
         axes: Sequence[int] | None = None, *, correction: float = 0.0,
         include_initial: bool = False,
         geometry: Callable[[int, int], Geometry] | None = None) -> ReducePlan:
    """Launches computing `name` of the view x over `axes` (None: all; scans: one) into the
    view out: the kept dims in order for reductions (keepdims is the caller's reshape), x's
    shape with the axis one longer (include_initial) or the same for scans. The host work
    depends only on shapes, strides, dtypes and the geometry, and is cached on them."""
    _check_types(name, x_dtype, out_dtype)
    axes = _normalize_axes(name, len(x.shape), axes)
    skeleton, size = _skeleton(be, (be.is_cpu, be.parallelism), geometry, name, x_dtype, out_dtype,
                               tuple(x.shape), tuple(x.strides), tuple(out.shape),
                               tuple(out.strides), axes, float(correction), bool(include_initial))
    slots = {X: pointer_arg(x.ptr), Y: pointer_arg(out.ptr)}
    return ReducePlan([Launch(kernel, grid, block, tuple(slots.get(a, a) if isinstance(a, str) else a
                                                         for a in args))
                       for kernel, grid, block, args in skeleton], size)


@functools.lru_cache(maxsize=1024)
def _skeleton(be: Backend, device: tuple, geometry: Callable[[int, int], Geometry] | None,
              name: str, x_dtype: DT, out_dtype: DT, x_shape: tuple, x_strides: tuple,
              out_shape: tuple, out_strides: tuple, axes: tuple, correction: float,
              include_initial: bool) -> tuple[tuple, int]:
    """(launches as (kernel, grid, block, args) with X / Y in the pointer slots, workspace
    bytes). `device`: what the geometry reads of the backend, part of the key."""
    f = FUNCTIONS[name]
    x = View(X, x_shape, x_strides, 0)     # type: ignore[arg-type]  (the pointers are slots)
    out = View(Y, out_shape, out_strides, 0)  # type: ignore[arg-type]
    scan = f.kind == "scan"
    space = make_space(x, out, axes, int(include_initial) if scan else None, name in ANY_ORDER)
    if space.nout == 0 or out.numel == 0:
        return (), 0
    side_by_side = bool(space.out_sizes) and abs(space.out_xstrides[0]) == 1 \
        and space.out_sizes[0] >= SIDE_BY_SIDE_MIN
    choose = geometry or functools.partial(choose_geometry, be,
                                           itemsize=None if scan else INFO[x_dtype].itemsize,
                                           side_by_side=side_by_side)
    launches: list[tuple] = []

    def add(kernel: tuple[str, str], threads: int, block: int, args: tuple) -> None:
        grid = -(-max(threads, 1) // block)
        launches.append((be.function(*kernel), (grid, 1, 1), (block, 1, 1), args))

    def kernel(kind: str, op: str, src: DT, dst: DT) -> tuple[str, str]:
        """(module, kernel name)."""
        return kernel_set(kind, op).module_for(src), kernel_name(kind, op, src, dst)

    if scan:
        geo = choose(space.nout, 1)
        params = pack(space, 1, PHASE_WHOLE, flags=FLAG_INITIAL if include_initial else 0,
                      scan_ystride=out_strides[axes[0]])
        # The geometry's threads (a GPU: one a line; the CPU: a few ranges of lines a
        # worker, which its kernel steps together where they lie side by side).
        add(kernel("scan", f.op, x_dtype, out_dtype), geo.threads, geo.block, (params, X, Y))
        return tuple(launches), 0

    geo = choose(space.nout, space.nleaves)
    ngroups = max(1, -(-space.nleaves // geo.group))
    two_phase = ngroups > 1
    partials = Workspace(0) if two_phase else np.uint64(0)
    size = -(-space.nout * ngroups * PART_BYTES // ALIGN) * ALIGN if two_phase else 0
    null = np.uint64(0)

    def passes(k: tuple[str, str], y: "str | Workspace", center: "Workspace | None",
               flags: int = 0, ystrides: Sequence[int] | None = None) -> None:
        args = (X, partials, y, center if center is not None else null)
        common = dict(correction=correction, flags=flags, ystrides=ystrides)
        if not two_phase:
            add(k, min(geo.threads, space.nout), geo.block,
                (pack(space, geo.group, PHASE_WHOLE, **common), *args))
            return
        add(k, min(geo.threads, space.nout * ngroups), geo.block,
            (pack(space, geo.group, PHASE_GROUPS, **common), *args))
        add(k, min(geo.threads, space.nout), geo.block,
            (pack(space, geo.group, PHASE_COMBINE, **common), *args))

    center = None
    if f.op == "sqdev":   # first pass: each output's mean, in float (f16/bf16) or the type
        acc = DT.ACL_FLOAT if x_dtype in (DT.ACL_FLOAT16, DT.ACL_BF16) else x_dtype
        center = Workspace(size)
        size += -(-space.nout * CENTER_BYTES // ALIGN) * ALIGN
        by_m = [math.prod(space.out_sizes[:d]) for d in range(len(space.out_sizes))]
        passes(kernel("reduce", "mean", x_dtype, acc), center, None, ystrides=by_m)
    passes(kernel("reduce", f.op, x_dtype, out_dtype), Y, center,
           flags=FLAG_SQRT if name == "std" else 0)
    return tuple(launches), size


# ----------------------------------------------------------------------- eager helper

def _device_view(be: Backend, arr: np.ndarray) -> tuple[int, View]:
    """A device copy of the memory arr spans; (the block, arr's view of it)."""
    item = arr.itemsize
    lo = sum(min(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides)) if arr.size else 0
    hi = (sum(max(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides)) + item) if arr.size else 0
    block = be.malloc(max(hi - lo, 1))
    if arr.size:
        span = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(arr.ctypes.data + lo))
        be.copy_from_host(block, span)
    strides = tuple(s // item for s in arr.strides)
    return block, View(block - lo, tuple(arr.shape), strides, item)


def apply_numpy(name: str, arr: np.ndarray, axis: "int | Sequence[int] | None" = None,
                dtype: object = None, *, correction: float = 0.0, include_initial: bool = False,
                geometry: Callable[[int, int], Geometry] | None = None,
                backend: Backend | None = None) -> np.ndarray:
    """`name` of a NumPy array (any view: strided, negative strides) on a backend (default the
    current one): copy in, plan, launch, synchronize, copy out. Reductions drop the reduced
    axes; argmax/argmin over all axes index the C-order flattening."""
    be = backend or current_backend()
    arr = np.asarray(arr)
    src = as_dtype(arr.dtype)
    dst = default_dtype(name, src) if dtype is None else as_dtype(dtype)
    _check_types(name, src, dst)
    raw = arr.view(INFO[src].storage) if arr.dtype != INFO[src].storage else arr
    axes = None if axis is None else ((axis,) if isinstance(axis, (int, np.integer)) else tuple(axis))
    if FUNCTIONS[name].kind == "scan":
        if axes is None:
            if arr.ndim != 1:
                raise ValueError(f"{name} of a {arr.ndim}-d array needs an axis")
            axes = (0,)
        a = axes[0] % max(arr.ndim, 1)
        shape = tuple(n + (include_initial and d == a) for d, n in enumerate(arr.shape))
    else:
        keep = set(range(arr.ndim)) - set(_normalize_axes(name, arr.ndim, axes))
        shape = tuple(n for d, n in enumerate(arr.shape) if d in keep)
    result = np.empty(shape, dtype=INFO[dst].storage)
    x_block, x_view = _device_view(be, raw)
    y_block = be.malloc(max(result.nbytes, 1))
    y_view = View(y_block, shape, tuple(s // result.itemsize for s in result.strides), result.itemsize)
    ws = 0
    try:
        p = plan(be, name, x_view, src, y_view, dst, axes, correction=correction,
                 include_initial=include_initial, geometry=geometry)
        if p.workspace_size:
            ws = be.malloc(p.workspace_size)
        be.enqueue(p.launches, be.default_stream, workspace=ws)
        be.synchronize()
        if result.size:
            be.copy_to_host(result, y_block)
    finally:
        for block in (x_block, y_block, ws):
            if block:
                be.free(block)
    host = INFO[dst].host
    return result.view(host) if host is not None and host != result.dtype else result
