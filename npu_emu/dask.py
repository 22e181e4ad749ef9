"""npu_emu.dask: the NPU's operations on dask arrays, block by block through the same
operator core as one process (the public `npu_emu.array_api` namespace), so a dask result
equals the single-process result bit for bit; docs/scale-out.md describes it.

Chunks are NumPy arrays on the cpu backend (CuPy arrays on cuda), each wrapped by
`xp.asarray` without a copy and returned as a NumPy (CuPy) chunk. HiFloat8, which NumPy has
no type for, travels as its bits (uint8) and says so in the dtype's metadata
(`x.dtype.metadata["npu_emu.dtype"] == "hifloat8"`); bfloat16 and the float8 types use
ml_dtypes' dtypes. A private layout (FRACTAL_NZ, ...) is a dask array of its storage whose
dtype's metadata names the layout, its C0 and the logical shape.
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Sequence

import numpy as np

try:
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
except ImportError as _exc:       # the optional extra is not installed
    raise ImportError("npu_emu.dask needs Dask: pip install 'npu-emu[dask]' (dask[array] and "
                      "distributed; on GPU hosts also dask-cuda)") from _exc

import npu_emu.array_api as xp
from npu_emu import codecs, fractal, runtime
from npu_emu.dtypes import aclDataType

__all__ = ["DTYPE_KEY", "FORMAT_KEY", "C0_KEY", "VIEW_SHAPE_KEY", "DTYPE_NAMES", "add",
           "astype", "chunk_dtype", "chunk_library", "expand", "format_cast", "layout_of",
           "matmul", "multiply", "npu_dtype", "npu_dtype_name", "with_dtype"]

# Keys of a dask array's dtype metadata (np.dtype(..., metadata=...)), read by npu_dtype and
# layout_of: the NPU dtype of chunks that travel as bits, and a private layout's geometry.
DTYPE_KEY = "npu_emu.dtype"
FORMAT_KEY = "npu_emu.format"
C0_KEY = "npu_emu.c0"
VIEW_SHAPE_KEY = "npu_emu.view_shape"

# NPU dtypes whose chunks are their bits: NumPy has no type for them.
BITS_DTYPES = {"hifloat8": np.dtype(np.uint8)}


# ----------------------------------------------------------------------------- dtypes

# The namespace's dtypes, by name (an aclDataType finds its own here).
DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64", "bfloat16", "float8_e5m2", "float8_e4m3fn",
               "hifloat8", "complex64", "complex128")


def _xp_dtype(dtype: object, param: str = "dtype") -> Any:
    """The namespace's dtype for a DType, a name ("float16", "hifloat8"), an aclDataType or
    a NumPy / ml_dtypes dtype."""
    if isinstance(dtype, xp.DType):
        return dtype
    if isinstance(dtype, str) and isinstance(getattr(xp, dtype, None), xp.DType):
        return getattr(xp, dtype)
    if isinstance(dtype, aclDataType):
        for name in DTYPE_NAMES:
            if getattr(xp, name).acl_dtype == dtype:
                return getattr(xp, name)
        raise TypeError(f"{param}={dtype.name} has no dtype in npu_emu.array_api")
    try:
        return xp.asarray(np.empty((0,), np.dtype(dtype))).dtype
    except TypeError:
        raise TypeError(f"{param}={dtype!r} is not a dtype of npu_emu.array_api") from None


@functools.cache
def chunk_dtype(name: str) -> np.dtype:
    """The NumPy dtype of a chunk holding the NPU dtype `name` (HiFloat8: uint8 bits, with
    the dtype in its metadata)."""
    if name in BITS_DTYPES:
        return np.dtype(BITS_DTYPES[name], metadata={DTYPE_KEY: name})
    return np.asarray(xp.empty((0,), dtype=getattr(xp, name))).dtype


def npu_dtype_name(dtype: object) -> str:
    """The namespace's name of a dtype (a DType, a name, an aclDataType, a NumPy dtype)."""
    return _xp_dtype(dtype).name


def npu_dtype(x: da.Array) -> Any:
    """The NPU dtype (npu_emu.array_api's) of a dask array's elements."""
    name = (x.dtype.metadata or {}).get(DTYPE_KEY)
    return getattr(xp, name) if name else _xp_dtype(x.dtype, "x")


def with_dtype(x: da.Array, dtype: object) -> da.Array:
    """x's chunks (the bits of an NPU dtype NumPy has no type for: uint8 for hifloat8) marked
    as that dtype; other dtypes are their NumPy dtype already and are returned unchanged."""
    name = _xp_dtype(dtype).name
    want = chunk_dtype(name)
    if name not in BITS_DTYPES:
        if x.dtype != want:
            raise TypeError(f"with_dtype: {name} chunks are {want}, x holds {x.dtype}")
        return x
    if x.dtype != want:
        raise TypeError(f"with_dtype: {name} travels as {want} bits, x holds {x.dtype}")
    return x.map_blocks(_view, want, dtype=want, meta=np.empty((0,) * x.ndim, want))


def _view(block: Any, dtype: np.dtype) -> Any:
    return block.view(dtype)


def layout_of(x: da.Array) -> tuple[str, int, tuple[int, ...]] | None:
    """(layout, c0, logical shape) of a dask array of a private layout's storage, or None
    for ND."""
    md = x.dtype.metadata or {}
    if FORMAT_KEY not in md:
        return None
    return md[FORMAT_KEY], md[C0_KEY], tuple(md[VIEW_SHAPE_KEY])


def _meta(ndim: int, name: str, **metadata: Any) -> Any:
    """An empty chunk of the NPU dtype `name` (what dask keeps as the array's meta); its
    dtype carries the metadata."""
    dt = chunk_dtype(name)
    if metadata:
        dt = np.dtype(dt, metadata={**(dt.metadata or {}), **metadata})
    meta = np.empty((0,) * ndim, dt)
    return meta if chunk_library() is np else chunk_library().asarray(meta)


def _chunk_dtype_name(chunk: Any) -> str:
    """The NPU dtype of a chunk a block function returned."""
    return (chunk.dtype.metadata or {}).get(DTYPE_KEY) or _xp_dtype(chunk.dtype).name


def _check_chunk_type(name: str) -> None:
    """On cuda the chunks are CuPy arrays, and CuPy holds NumPy's own dtypes only."""
    if chunk_library() is not np and (name in BITS_DTYPES
                                 or chunk_dtype(name).type.__module__ != "numpy"):
        raise TypeError(f"npu_emu.dask on the cuda backend: chunks are CuPy arrays, and CuPy "
                        f"has no {name} type (use the cpu backend, or a NumPy dtype)")


def chunk_library() -> Any:
    """The chunks' library: NumPy on the cpu backend, CuPy on cuda."""
    if runtime.current().name == "cuda":
        import cupy
        return cupy
    return np


# ----------------------------------------------------------------------------- blocks

def _wrap(block: Any, name: str) -> Any:
    """A chunk as an array of the namespace, sharing its memory (HiFloat8: converted from
    its bits, exactly: every code decodes to a float32 that converts back to it)."""
    if name in BITS_DTYPES:
        values = codecs.decode(np.asarray(block).view(BITS_DTYPES[name]), "hif8")   # cpu only
        return xp.astype(xp.asarray(values), getattr(xp, name))
    return xp.asarray(block)


def _unwrap(arr: Any) -> Any:
    """A result of the namespace as a chunk: a view of its memory on the cpu backend (a CuPy
    array on cuda); HiFloat8 as its bits."""
    name = arr.dtype.name
    if name in BITS_DTYPES:       # cpu only (_check_chunk_type)
        return codecs.encode(np.asarray(arr), "hif8").view(chunk_dtype(name))
    return np.asarray(arr) if chunk_library() is np else chunk_library().asarray(arr)


def _astype_block(block: Any, src: str, dst: str) -> Any:
    return _unwrap(xp.astype(_wrap(block, src), getattr(xp, dst)))


def _expand_block(block_shape: list[int], block: Any, src: str) -> Any:
    return _unwrap(xp.expand(_wrap(block, src), tuple(block_shape)))


def _binary_block(op: str, names: list[str | None], scalars: list[Any], *blocks: Any) -> Any:
    it = iter(blocks)
    args = [_wrap(next(it), n) if n is not None else s for n, s in zip(names, scalars)]
    return _unwrap(getattr(xp, op)(*args))


def _matmul_block(a: Any, b: Any, a_name: str, b_name: str, cube_math_type: int) -> Any:
    return _unwrap(xp.matmul(_wrap(a, a_name), _wrap(b, b_name), cube_math_type=cube_math_type))


def _to_layout_block(block: Any, src: str, layout: str, c0: int | None) -> Any:
    return _unwrap(xp.format_cast(_wrap(block, src), layout, c0=c0))


def _to_nd_block(block_shape: list[int], block: Any, src: str, layout: str, c0: int) -> Any:
    # The block's logical part in the layout (a fresh array of the namespace), its storage
    # written from the chunk, converted back by the same operator as one process.
    private = xp.format_cast(xp.empty(tuple(block_shape), dtype=getattr(xp, src)), layout, c0=c0)
    xp.view_copy(private, _wrap(block, src))
    return _unwrap(xp.format_cast(private, "ND"))


def _probe(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a block function once on tiny blocks: the namespace's checks refuse bad dtypes
    and shapes when the graph is built, and its result says the output dtype."""
    out = fn(*args)
    _check_chunk_type(_chunk_dtype_name(out))
    return out


def _tiny(x: da.Array) -> Any:
    """A block of x's dtype and rank with at most one element per axis (zeros), of the
    chunks' library."""
    _check_chunk_type(npu_dtype(x).name)
    block = np.zeros(tuple(min(n, 1) for n in x.shape), x.dtype)
    return block if chunk_library() is np else chunk_library().asarray(block)


def _graph(name: str, out_chunks: tuple[tuple[int, ...], ...], deps: Sequence[da.Array],
           task: Callable[[tuple[int, ...], list[int]], tuple], meta: Any) -> da.Array:
    """A dask array of the blocks `task(block index, block shape)` (tuples of a function
    and its arguments, input blocks as keys (name, i, j, ...))."""
    layer = {}
    for idx in itertools.product(*(range(len(c)) for c in out_chunks)):
        shape = [out_chunks[d][i] for d, i in enumerate(idx)]
        layer[(name, *idx)] = task(idx, shape)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=list(deps))
    return da.Array(graph, name, out_chunks, meta=meta)


def _auto_chunks(shape: tuple[int, ...], known: Sequence[tuple[int, ...] | None],
                 dtype: np.dtype) -> tuple[tuple[int, ...], ...]:
    """Chunks of an output: `known` where an input gives them, dask's "auto" elsewhere."""
    spec = tuple(k if k is not None else "auto" for k in known)
    return da.core.normalize_chunks(spec, shape, dtype=dtype)


# ----------------------------------------------------------------------------- operations

def astype(x: da.Array, dtype: object, /) -> da.Array:
    """xp.astype on every block: to any dtype of npu_emu.array_api (the NPU's conversions:
    aclnnCast or InplaceCopy's, bit for bit)."""
    src, dst = npu_dtype(x).name, _xp_dtype(dtype).name
    _probe(_astype_block, _tiny(x), src, dst)
    return x.map_blocks(_astype_block, src, dst, dtype=chunk_dtype(dst),
                        meta=_meta(x.ndim, dst),
                        name=f"npu-astype-{dst}-" + tokenize(x, dst))


def _broadcast_shape(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    ndim = max(len(s) for s in shapes)
    out = []
    for d in range(ndim):
        sizes = {s[d - ndim + len(s)] for s in shapes if d - ndim + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"shapes {', '.join(map(str, shapes))} do not broadcast "
                             f"(axis {d}: {sorted(sizes)})")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _aligned_inputs(inputs: Sequence[da.Array], out_shape: tuple[int, ...],
                    out_chunks: tuple[tuple[int, ...], ...]) -> list[da.Array]:
    """Each input rechunked to the output's chunks, its broadcast axes (size 1) one block."""
    aligned = []
    for a in inputs:
        off = len(out_shape) - a.ndim
        aligned.append(a.rechunk(tuple((1,) if a.shape[j] == 1 else out_chunks[j + off]
                                       for j in range(a.ndim))))
    return aligned


def _input_key(a: da.Array, idx: tuple[int, ...], out_ndim: int) -> tuple:
    off = out_ndim - a.ndim
    return (a.name, *(0 if a.shape[j] == 1 else idx[j + off] for j in range(a.ndim)))


def expand(x: da.Array, /, size: Sequence[int], *, chunks: object = None) -> da.Array:
    """xp.expand (aclnnExpand) by blocks: x broadcast to `size` (-1 keeps an axis). The
    output's chunks follow x's on the axes x gives, dask's "auto" on the others (or
    `chunks`)."""
    size = tuple(int(n) for n in size)
    if len(size) < x.ndim:
        raise ValueError(f"expand: size {size} has fewer axes than x's shape {x.shape}")
    off = len(size) - x.ndim
    out_shape = tuple(x.shape[d - off] if n == -1 and d >= off else n for d, n in enumerate(size))
    for j, n in enumerate(x.shape):
        if n != 1 and n != out_shape[j + off]:
            raise ValueError(f"expand: x's shape {x.shape} does not broadcast to size {size} "
                             f"(axis {j + off}: {n} to {out_shape[j + off]})")
    src = npu_dtype(x).name
    _probe(_expand_block, [min(n, 1) for n in out_shape], _tiny(x), src)
    if chunks is not None:
        out_chunks = da.core.normalize_chunks(chunks, out_shape, dtype=x.dtype)
    else:
        known = [None] * off + [c if n != 1 else None for c, n in zip(x.chunks, x.shape)]
        out_chunks = _auto_chunks(out_shape, known, x.dtype)
    (a,) = _aligned_inputs([x], out_shape, out_chunks)
    name = "npu-expand-" + tokenize(a, out_chunks)
    return _graph(name, out_chunks, [a], lambda idx, shape: (
        _expand_block, shape, _input_key(a, idx, len(out_shape)), src), _meta(len(out_shape), src))


def _binary(op: str, x1: object, x2: object) -> da.Array:
    operands = [x1, x2]
    arrays = [v for v in operands if isinstance(v, da.Array)]
    if not arrays:
        raise TypeError(f"{op}: at least one operand must be a dask array")
    for v in operands:
        if not isinstance(v, (da.Array, bool, int, float, complex)):
            raise TypeError(f"{op}: operands are dask arrays or Python scalars, not "
                            f"{type(v).__name__}")
    names = [npu_dtype(v).name if isinstance(v, da.Array) else None for v in operands]
    scalars = [None if isinstance(v, da.Array) else v for v in operands]
    out_shape = _broadcast_shape([a.shape for a in arrays])
    dst = _chunk_dtype_name(_probe(_binary_block, op, names, scalars,
                                   *(_tiny(a) for a in arrays)))
    # Each output axis takes the chunks of the first operand of that size (not broadcast).
    out_chunks = tuple(next(a.chunks[j] for a in arrays
                            for j in [d - len(out_shape) + a.ndim] if j >= 0 and a.shape[j] == n)
                       for d, n in enumerate(out_shape))
    aligned = _aligned_inputs(arrays, out_shape, out_chunks)
    name = f"npu-{op}-" + tokenize(*aligned, scalars)
    return _graph(name, out_chunks, aligned,
                  lambda idx, shape: (_binary_block, op, names, scalars,
                                      *(_input_key(a, idx, len(out_shape)) for a in aligned)),
                  _meta(len(out_shape), dst))


def add(x1: object, x2: object, /) -> da.Array:
    """xp.add by blocks: broadcasting, the NPU's promotion (the namespace's rule set)."""
    return _binary("add", x1, x2)


def multiply(x1: object, x2: object, /) -> da.Array:
    """xp.multiply by blocks: broadcasting, the NPU's promotion (the namespace's rule set)."""
    return _binary("multiply", x1, x2)


def matmul(x1: da.Array, x2: da.Array, /, *, cube_math_type: int = 0) -> da.Array:
    """x1 @ x2 for 2-D dask arrays, by blocks of M and N with K whole in every block: the
    cube accumulates K fractal by fractal in one fp32 accumulator, in ascending k, and rounds
    once to the output dtype, so partial sums of K blocks added afterwards would round
    differently. Each output element is computed exactly as in one process."""
    if x1.ndim != 2 or x2.ndim != 2:
        raise ValueError(f"matmul: npu_emu.dask takes 2-D operands, not shapes {x1.shape} "
                         f"and {x2.shape}")
    if x1.shape[1] != x2.shape[0]:
        raise ValueError(f"matmul: x1's shape {x1.shape} and x2's {x2.shape} do not "
                         f"match (K {x1.shape[1]} != {x2.shape[0]})")
    a_name, b_name = npu_dtype(x1).name, npu_dtype(x2).name
    probe = _probe(_matmul_block, _tiny(x1[:1, :1]), _tiny(x2[:1, :1]), a_name, b_name,
                   cube_math_type)
    dst = _chunk_dtype_name(probe)
    k = x1.shape[1]
    a = x1.rechunk({1: k})
    b = x2.rechunk({0: k})
    return da.blockwise(_matmul_block, "ij", a, "ik", b, "kj", a_name=a_name, b_name=b_name,
                        cube_math_type=cube_math_type, concatenate=True,
                        dtype=chunk_dtype(dst), meta=_meta(2, dst),
                        name="npu-matmul-" + tokenize(a, b, cube_math_type))


def _tiles(spec: Any) -> dict[int, tuple[int, int]]:
    """Per logical axis: (the storage axis its tile index runs along, the tile's size)."""
    out: dict[int, tuple[int, int]] = {}
    for k, (dim, mult, _size) in enumerate(spec.axes):
        if dim not in out or mult > out[dim][1]:
            out[dim] = (k, mult)
    return out


def _tile_chunks(chunks: tuple[int, ...], tile: int) -> tuple[int, ...]:
    """chunks whose boundaries are whole tiles: kept when they are, regular otherwise."""
    if all(c % tile == 0 for c in chunks[:-1]):
        return chunks
    size = max(tile, round(sum(chunks) / len(chunks) / tile) * tile)
    total = sum(chunks)
    return tuple([size] * (total // size) + ([total % size] if total % size else []))


def format_cast(x: da.Array, fmt: str, /, c0: int | None = None) -> da.Array:
    """xp.format_cast by blocks for 2-D layouts: ND -> FRACTAL_NZ, Zz, Zn or DN (a dask
    array of the storage; its dtype's metadata names the layout, C0 and the logical shape)
    and back to ND. Blocks are whole fractal tiles (x is rechunked where its chunks cut a
    tile), so each block's storage is a block of the whole array's storage."""
    current = layout_of(x)
    src = npu_dtype(x).name
    if str(fmt).upper() == "ND":
        if current is None:
            raise ValueError("format_cast(x, 'ND'): x is ND already (its dtype's metadata "
                             "names no layout)")
        return _to_nd(x, src, *current)
    if current is not None:
        raise ValueError(f"format_cast: x is in {current[0]}; convert it to ND first")
    if x.ndim != 2:
        raise ValueError(f"format_cast: npu_emu.dask converts 2-D arrays, not shape {x.shape}")
    spec = fractal.layout_spec(fmt, x.shape, getattr(xp, src).acl_dtype, c0=c0)
    layout = spec.layout.value
    if spec.layout is fractal.L.ND or len(spec.view_shape) != 2:
        raise ValueError(f"format_cast: {fmt!r} is not a 2-D private layout (FRACTAL_NZ, Zz, "
                         f"Zn, DN)")
    tiles = _tiles(spec)
    a = x.rechunk(tuple(_tile_chunks(x.chunks[d], tiles[d][1]) for d in range(2)))
    _probe(_to_layout_block, _tiny(a), src, layout, c0)
    out_chunks = []
    for k, (dim, mult, size) in enumerate(spec.axes):
        axis, tile = tiles[dim]
        out_chunks.append(tuple(-(-c // tile) for c in a.chunks[dim]) if axis == k else (size,))
    name = f"npu-format-cast-{layout}-" + tokenize(a, layout, c0)
    meta = _meta(len(out_chunks), src, **{FORMAT_KEY: layout, C0_KEY: spec.c0,
                                                   VIEW_SHAPE_KEY: tuple(x.shape)})

    def task(idx: tuple[int, ...], shape: list[int]) -> tuple:
        block = [0, 0]
        for k, (dim, _mult, _size) in enumerate(spec.axes):
            if tiles[dim][0] == k:
                block[dim] = idx[k]
        return (_to_layout_block, (a.name, *block), src, layout, c0)
    return _graph(name, tuple(out_chunks), [a], task, meta)


def _to_nd(x: da.Array, src: str, layout: str, c0: int, view_shape: tuple[int, ...]) -> da.Array:
    spec = fractal.layout_spec(layout, view_shape, getattr(xp, src).acl_dtype, c0=c0)
    if tuple(spec.storage_shape) != tuple(x.shape):
        raise ValueError(f"format_cast(x, 'ND'): x's shape {x.shape} is not the storage of "
                         f"{layout} {view_shape} ({tuple(spec.storage_shape)})")
    tiles = _tiles(spec)
    # Tile axes keep their chunks; the axes inside a tile are whole in every block.
    a = x.rechunk(tuple(x.chunks[k] if tiles[dim][0] == k else (size,)
                        for k, (dim, _mult, size) in enumerate(spec.axes)))
    out_chunks = []
    for dim, n in enumerate(view_shape):
        axis, tile = tiles[dim]
        sizes, start = [], 0
        for c in a.chunks[axis]:
            sizes.append(min(c * tile, n - start))
            start += c * tile
        out_chunks.append(tuple(sizes))
    name = "npu-format-cast-ND-" + tokenize(a, layout, c0, view_shape)

    def task(idx: tuple[int, ...], shape: list[int]) -> tuple:
        key = [0] * len(spec.axes)
        for dim, (axis, _tile) in tiles.items():
            key[axis] = idx[dim]
        return (_to_nd_block, shape, (a.name, *key), src, layout, c0)
    return _graph(name, tuple(out_chunks), [a], task, _meta(2, src))
