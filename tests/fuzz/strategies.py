"""Hypothesis strategies that draw fuzz cases as JSON-able dicts (the worker rebuilds the
Python objects, so a case prints as a one-line reproducer).

A case is {"entry", "soc", "seed", "args", "mut"}: `args` is a valid call of the entry point
(shapes, strides incl. non-contiguous and broadcast views, offsets, dtypes, formats, SoC),
`mut` is None or one hostile mutation of it ({"kind": ..., ...}). Values the JSON cannot
carry are tagged (values.py): {"$": "np", "t": "int64", "v": 3}, {"$": "f", "v": "inf"}...
Element values are not drawn here: the worker derives them from `seed`.
"""
from __future__ import annotations

from hypothesis import strategies as st

from helpers import injective_views, readable_views

from . import spec as S

SEEDS = st.integers(0, 2**32 - 1)
GUARDS = st.sampled_from([64, 64, 192])
VALUE_MODES = st.sampled_from(["small", "small", "small", "special"])


def f(v: object) -> dict:
    return {"$": "f", "v": v}


def np_(t: str, v: object) -> dict:
    return {"$": "np", "t": t, "v": v}


def a0(t: str, v: object) -> dict:
    return {"$": "a0", "t": t, "v": v}


def obj(v: str) -> dict:
    return {"$": "obj", "v": v}


# Replacements for an int parameter: equivalent (must behave as the plain int), hostile (must
# be refused), ambiguous (either, but an accepted one must behave as the plain int).
def int_equivalents(v: int) -> list:
    out = [np_("int64", v), np_("int32", v) if -2**31 <= v < 2**31 else np_("int64", v)]
    if 0 <= v < 256:
        out.append(np_("uint8", v))
    return out


INT_HOSTILE = [f(1.5), f(2.0), f("inf"), f("-inf"), f("nan"), True, False, "3", "abc", [3],
               2**63, 2**64, -2**63 - 1, 10**30, np_("float32", 2.0), np_("float64", 1.0),
               np_("bool_", True), np_("str_", "1"), {"$": "complex", "v": [1, 0]},
               {"$": "bytes", "v": [3]}, obj("object")]


def int_ambiguous(v: int) -> list:
    return [a0("int64", v)]


@st.composite
def int_mutation(draw, v: int) -> dict:
    """{"value": replacement, "class": "equiv" | "hostile" | "any"} for the int v."""
    cls = draw(st.sampled_from(["equiv", "hostile", "hostile", "any"]))
    pool = {"equiv": int_equivalents(v), "hostile": INT_HOSTILE, "any": int_ambiguous(v)}[cls]
    return {"value": draw(st.sampled_from(pool)), "class": cls}


# ------------------------------------------------------------------------- shapes, views

def shapes(min_rank: int = 0, max_rank: int = 3, empty: bool = True) -> st.SearchStrategy:
    size = st.sampled_from([1, 1, 2, 3, 4, 5, 7] + ([0] if empty else []))
    return st.lists(size, min_size=min_rank, max_size=max_rank)


def public_formats(rank: int) -> list[int]:
    return [fm for fm, r in S.PUBLIC_RANK.items() if r is None or r == rank]


@st.composite
def nd_tensor(draw, dtype: int, shape: list, out: bool = False, contiguous: bool = False,
              formats: bool = True) -> dict:
    """An ND (or public-format) tensor: a view over a 1-D storage, or the contiguous tensor
    of its shape."""
    if contiguous or draw(st.integers(0, 3)) == 0:
        strides, offset, storage = None, 0, list(shape)
    else:
        strides, offset, n = draw(injective_views(shape) if out else readable_views(shape))
        storage = [n]
    fmt = draw(st.sampled_from(public_formats(len(shape)))) if formats and draw(st.booleans()) else S.ND
    return {"dtype": dtype, "shape": list(shape), "strides": strides, "offset": offset,
            "storage": storage, "format": fmt, "guard": draw(GUARDS)}


def broadcast_source(draw, shape: list) -> list:
    """A shape that broadcasts to `shape` (a suffix, some dims 1)."""
    lead = draw(st.integers(0, len(shape)))
    return [1 if draw(st.booleans()) else n for n in shape[lead:]]


def _drop_leading_ones(draw, shape: list) -> list:
    ones = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    return shape[draw(st.integers(0, ones)):]


def broadcast_pair(draw, shape: list) -> tuple[list, list]:
    """Two shapes whose broadcast is exactly `shape`: each dim carried by one or both."""
    a, b = [], []
    for n in shape:
        who = draw(st.integers(0, 2))
        a.append(1 if who == 1 else n)
        b.append(1 if who == 0 else n)
    a, b = _drop_leading_ones(draw, a), _drop_leading_ones(draw, b)
    if len(a) < len(shape) and len(b) < len(shape):
        a = [1] * (len(shape) - len(a)) + a            # one of them carries out's rank
    return a, b


# ---------------------------------------------------------------- valid operator calls

def soc_for(op: str) -> st.SearchStrategy:
    if op in ("Expand", "Matmul", "CubeMatmul"):
        return st.sampled_from([s for s in S.SOCS if s not in S.NO_CUBE_SOCS])
    if op == "NpuFormatCast":
        return st.sampled_from(sorted(S.FORMAT_CAST_GROUP))
    return st.sampled_from(S.SOCS)


@st.composite
def expand_args(draw, soc: str) -> dict:
    dt = draw(st.sampled_from(S.with_bf16(S.EXPAND_DTYPES, soc)))
    self_shape = draw(shapes(0, 3))
    size, out_shape = [], []
    for _ in range(draw(st.integers(0, 2))):
        n = draw(st.sampled_from([1, 2, 3, 0]))
        size.append(n)
        out_shape.append(n)
    for m in self_shape:
        how = draw(st.integers(0, 2))
        n = -1 if how == 0 else (draw(st.integers(0, 4)) if m == 1 and how == 2 else m)
        size.append(n)
        out_shape.append(m if n == -1 else n)
    return {"tensors": {"self": draw(nd_tensor(dt, self_shape)),
                        "out": draw(nd_tensor(dt, out_shape, out=True))}, "size": size}


@st.composite
def copy_args(draw, soc: str) -> dict:
    dst_dt = draw(st.sampled_from(S.COPY_DTYPES))
    src_dt = draw(st.sampled_from(S.COPY_DTYPES))
    shape = draw(shapes(0, 3))
    both_complex = dst_dt in S.COMPLEX and src_dt in S.COMPLEX   # contiguous selfRef (docs/operators.md#aclnninplacecopy)
    return {"tensors": {"selfRef": draw(nd_tensor(dst_dt, shape, out=True, contiguous=both_complex)),
                        "src": draw(nd_tensor(src_dt, broadcast_source(draw, shape)))}}


@st.composite
def cast_args(draw, soc: str) -> dict:
    dtypes = S.with_bf16(S.CAST_DTYPES, soc) + (S.CAST_950_EXTRA if soc == "Ascend950" else ())
    src, dst = draw(st.sampled_from(dtypes)), draw(st.sampled_from(dtypes))
    shape = draw(shapes(0, 3))
    return {"tensors": {"self": draw(nd_tensor(src, shape)), "out": draw(nd_tensor(dst, shape, out=True))},
            "dtype": dst}


def add_pairs(soc: str) -> list[tuple[int, int]]:
    allowed = set(S.with_bf16(S.ADD_DTYPES, soc))
    pairs = [(d, d) for d in sorted(allowed)]
    for a, b in S.PROMOTED_PAIRS:
        if a in allowed and b in allowed:
            pairs += [(a, b), (b, a)]
    return pairs


@st.composite
def binary_args(draw, soc: str, op: str) -> dict:
    """Add, InplaceAdd, Mul, InplaceMul: small-integer values make every CANN branch exact."""
    inplace = op.startswith("Inplace")
    a_dt, b_dt = draw(st.sampled_from(add_pairs(soc)))
    compute = S.promote(a_dt, b_dt)
    allowed = S.with_bf16(S.ADD_DTYPES, soc)
    if inplace:
        if not S.castable(compute, a_dt):
            a_dt, b_dt = b_dt, a_dt
        if not S.castable(compute, a_dt):
            a_dt = b_dt = compute
        out_dt = a_dt
    else:
        out_dt = draw(st.sampled_from([compute] + [d for d in allowed if S.castable(compute, d)]))
    shape = draw(shapes(0, 3))
    if inplace:
        a_shape, b_shape = shape, broadcast_source(draw, shape)
    else:
        a_shape, b_shape = broadcast_pair(draw, shape)
    names = ("selfRef", "other") if inplace else ("self", "other")
    tensors = {names[0]: draw(nd_tensor(a_dt, a_shape, out=inplace)),
               names[1]: draw(nd_tensor(b_dt, b_shape))}
    if not inplace:
        tensors["out"] = draw(nd_tensor(out_dt, shape, out=True))
    args: dict = {"tensors": tensors, "values": draw(VALUE_MODES)}
    if op.endswith("Add"):
        unsigned = any(d in S.UNSIGNED for d in (a_dt, b_dt, out_dt))
        if compute == S.BOOL:
            alpha_dt = draw(st.sampled_from([S.BOOL, S.S32]))
            value = True if alpha_dt == S.BOOL else 1
        else:
            options = [compute] + [d for d in (S.S32, S.F32, S.S64) if S.castable(d, compute)]
            alpha_dt = draw(st.sampled_from(options))
            value = draw(st.sampled_from([1, 1, 2, 3, 0] + ([] if unsigned else [-1, -2])))
            if alpha_dt in S.FLOATS:
                value = float(value)
            elif alpha_dt in S.COMPLEX:
                value = {"$": "complex", "v": [value, 0]}
        args["alpha"] = {"value": value, "dtype": alpha_dt}
    return args


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@st.composite
def format_cast_args(draw, soc: str) -> dict:
    group = S.FORMAT_CAST_GROUP[soc]
    dt = draw(st.sampled_from(S.FORMAT_CAST_DTYPES[group]))
    if group == "A2A3":
        public, private, rank = draw(st.sampled_from(S.FORMAT_CAST_PAIRS_A2A3))
    else:
        public, private, rank = S.ND, S.FRACTAL_NZ, None
    layout = S.LAYOUT_NAME[private]
    if layout == "FRACTAL_NZ":
        r = rank or draw(st.integers(2, 4))
        shape = [draw(st.integers(1, 3)) for _ in range(r - 2)] + [draw(st.integers(1, 40)),
                                                                  draw(st.integers(1, 40))]
    else:
        letters = S.FORMAT_LETTERS[public]
        dims = {"N": draw(st.integers(1, 20)), "C": draw(st.integers(1, 20)),
                "H": draw(st.integers(1, 3)), "W": draw(st.integers(1, 3)), "D": draw(st.integers(1, 2))}
        shape = [dims[c] for c in letters]
    additional = -1
    dst_param = private
    c0 = 32 // S.ITEMSIZE[dt]
    choice = draw(st.integers(0, 5))
    if choice == 1:
        additional = dt
    elif choice == 2 and layout == "FRACTAL_NZ" and dt in (S.F32, S.S32, S.U32):
        additional = S.F16                  # fp32 data in 16-wide fractals
        c0 = 16
    elif choice == 3 and group == "950":
        named = {v: k for k, v in S.NZ_C0.items()}
        if c0 in named:
            dst_param = named[c0]           # FRACTAL_NZ_C0_x naming the dtype's own C0
    actual = dst_param
    if group == "950" and dst_param == S.FRACTAL_NZ and c0 != 32 // S.ITEMSIZE[dt]:
        actual = {v: k for k, v in S.NZ_C0.items()}[c0]
    to_private = draw(st.booleans())
    origin = S.FORMAT_LETTERS.get(public) if layout != "FRACTAL_NZ" else None
    guard = draw(GUARDS), draw(GUARDS)
    pub = {"dtype": dt, "shape": shape, "strides": None, "offset": 0, "storage": list(shape),
           "format": public, "guard": guard[0]}
    priv = {"dtype": dt, "shape": shape, "layout": layout, "c0": c0, "origin": origin,
            "format": actual, "offset": 0, "guard": guard[1]}
    src, dst = (pub, priv) if to_private else (priv, pub)
    return {"tensors": {"srcTensor": src, "dstTensor": dst},
            "fc": {"to_private": to_private, "dst_format": dst_param if to_private else public,
                   "additional": additional, "actual": actual if to_private else public}}


def _batch_pair(draw) -> tuple[list, list, list]:
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    ab = [1 if draw(st.booleans()) else n for n in batch][draw(st.integers(0, len(batch))):]
    bb = [1 if draw(st.booleans()) else n for n in batch][draw(st.integers(0, len(batch))):]
    full = []
    for i in range(max(len(ab), len(bb))):
        x = ab[len(ab) - 1 - i] if i < len(ab) else 1
        y = bb[len(bb) - 1 - i] if i < len(bb) else 1
        full.insert(0, max(x, y))
    return ab, bb, full


@st.composite
def matmul_args(draw, soc: str) -> dict:
    bf16 = soc in S.BF16_SOCS
    a_dt, b_dt = draw(st.sampled_from([(S.F16, S.F16), (S.F32, S.F32), (S.F16, S.F32), (S.F32, S.F16)]
                                      + ([(S.BF16, S.BF16)] if bf16 else [])))
    compute = S.promote(a_dt, b_dt)
    out_dt = draw(st.sampled_from([compute, S.F32, S.F16] + ([S.BF16] if bf16 else [])))
    dim = st.sampled_from([1, 2, 7, 15, 16, 17, 33, 40])
    m, k, n = draw(dim), draw(st.sampled_from([0, 1, 5, 16, 17, 40])), draw(dim)
    ab, bb, batch = _batch_pair(draw)
    a1, b1 = draw(st.integers(0, 5)) == 0, draw(st.integers(0, 5)) == 0   # torch.matmul's 1-D rules
    a_shape = [k] if a1 else [*ab, m, k]
    b_shape = [k] if b1 else [*bb, k, n]
    out_shape = [] if a1 and b1 else [*bb, n] if a1 else [*ab, m] if b1 else [*batch, m, n]
    maths = tuple(range(5)) if a1 and b1 else S.MATMUL_MATH[S.matmul_math_group(soc)][compute]
    return {"tensors": {"self": draw(nd_tensor(a_dt, a_shape, formats=False)),
                        "mat2": draw(nd_tensor(b_dt, b_shape, formats=False)),
                        "out": draw(nd_tensor(out_dt, out_shape, out=True, formats=False))},
            "math": draw(st.sampled_from(maths))}


@st.composite
def cube_args(draw, soc: str) -> dict:
    dtypes = [S.F16, S.S8] + ([S.BF16] if soc in S.BF16_SOCS else []) + \
        ([S.F32] if soc in S.HF32_SOCS else [])
    dt = draw(st.sampled_from(dtypes))
    out_dt = S.S32 if dt == S.S8 else draw(st.sampled_from([S.F32, S.F16] + ([S.BF16] if soc in S.BF16_SOCS else [])))
    k0 = 32 // S.ITEMSIZE[dt]
    ab, bb, batch = _batch_pair(draw)
    dim = st.sampled_from([1, 2, 15, 16, 17, 33, 40])
    m, k, n = draw(dim), draw(dim), draw(dim)
    left = "FRACTAL_NZ" if soc == "Ascend950" else "Zz"
    g = [draw(GUARDS) for _ in range(3)]
    return {"tensors": {
        "self": {"dtype": dt, "shape": [*ab, m, k], "layout": left, "c0": k0, "origin": None,
                 "format": S.FRACTAL_NZ if left == "FRACTAL_NZ" else S.UNDEFINED_FMT, "offset": 0, "guard": g[0]},
        "mat2": {"dtype": dt, "shape": [*bb, k, n], "layout": "Zn", "c0": k0, "origin": None,
                 "format": S.UNDEFINED_FMT, "offset": 0, "guard": g[1]},
        "out": {"dtype": out_dt, "shape": [*batch, m, n], "layout": "FRACTAL_NZ", "c0": 16,
                "origin": None, "format": S.FRACTAL_NZ, "offset": 0, "guard": g[2]}}}


VALID_ARGS = {
    "Expand": expand_args, "InplaceCopy": copy_args, "Cast": cast_args,
    "Add": lambda soc: binary_args(soc, "Add"), "InplaceAdd": lambda soc: binary_args(soc, "InplaceAdd"),
    "Mul": lambda soc: binary_args(soc, "Mul"), "InplaceMul": lambda soc: binary_args(soc, "InplaceMul"),
    "NpuFormatCast": format_cast_args, "Matmul": matmul_args, "CubeMatmul": cube_args,
}

# ------------------------------------------------------------------- operator mutations

WRONG_TYPES = [0, 7, f(1.5), "abc", [1, 2], obj("object"), obj("intarray"), obj("scalar"),
               obj("stream"), obj("event"), obj("executor"), True, np_("int64", 0)]
STREAM_HOSTILE = [5, "abc", f(1.5), obj("event"), obj("destroyed_stream"), obj("tensor"),
                  True, obj("object"), np_("float32", 0.0)]
WS_HOSTILE = ["abc", f(1.5), f("inf"), -1, True, obj("foreign"), obj("freed"), obj("short"),
              obj("tensor"), 2**64]
WS_SIZE_HOSTILE = ["abc", f(1.5), f("inf"), f("nan"), -1, True, 2**64, 2**70, obj("smaller"),
                   obj("object"), [0]]
EXECUTOR_HOSTILE = [None, "abc", 5, f(1.5), obj("destroyed_executor"), obj("tensor")]
FREE_THEN = ["none", "victim", "realloc", "empty_cache"]


@st.composite
def op_mutation(draw, op: str, args: dict) -> dict | None:
    tensors = list(args["tensors"])
    private_op = op in ("NpuFormatCast", "CubeMatmul")
    names = [n for n, _ in S.OPS[op]]
    kinds = ["null", "wrong_type", "arg_count", "destroyed", "alias_out", "short_alloc",
             "foreign_ptr", "null_data", "neg_ptr", "misaligned", "free", "free",
             "destroy_executor", "ws", "ws_size", "stream", "executor", "run_twice",
             "p2_arg_count", "alias_out_huge"]
    if not private_op:
        kinds.append("numel_overflow")
    if private_op:
        kinds += ["private_offset", "private_offset"]
    if op == "Matmul":
        kinds += ["k_overflow", "int_param"]
    if op in ("Cast", "Expand"):
        kinds.append("int_param")
    if op.endswith("Add"):
        kinds.append("alpha_value")
    kind = draw(st.sampled_from(kinds))
    pick_tensor = st.sampled_from(tensors)
    if kind == "null":
        return {"kind": kind, "arg": draw(st.sampled_from(names))}
    if kind == "wrong_type":
        return {"kind": kind, "arg": draw(st.sampled_from(names)), "value": draw(st.sampled_from(WRONG_TYPES))}
    if kind in ("arg_count", "p2_arg_count"):
        return {"kind": kind, "delta": draw(st.sampled_from([-1, 1, -2]))}
    if kind == "destroyed":
        return {"kind": kind, "arg": draw(st.sampled_from([n for n, k in S.OPS[op]
                                                           if k in ("tensor", "out", "scalar", "intarray")]))}
    if kind in ("alias_out", "alias_out_huge"):
        return {"kind": kind}
    if kind in ("short_alloc", "null_data", "misaligned", "neg_ptr"):
        return {"kind": kind, "arg": draw(pick_tensor)}
    if kind == "foreign_ptr":
        return {"kind": kind, "arg": draw(pick_tensor),
                "where": draw(st.sampled_from(["host_array", "unmapped", "huge", "freed_block"]))}
    if kind == "free":
        return {"kind": kind, "arg": draw(pick_tensor), "then": draw(st.sampled_from(FREE_THEN))}
    if kind == "ws":
        return {"kind": kind, "value": draw(st.sampled_from(WS_HOSTILE + [None]))}
    if kind == "ws_size":
        return {"kind": kind, "value": draw(st.sampled_from(WS_SIZE_HOSTILE + [obj("larger"), obj("np")]))}
    if kind == "stream":
        return {"kind": kind, "value": draw(st.sampled_from(STREAM_HOSTILE))}
    if kind == "executor":
        return {"kind": kind, "value": draw(st.sampled_from(EXECUTOR_HOSTILE))}
    if kind == "run_twice":
        return {"kind": kind, "repeatable": draw(st.booleans())}
    if kind == "private_offset":
        private = [n for n, t in args["tensors"].items() if t.get("layout")]
        return {"kind": kind, "arg": draw(st.sampled_from(private)), "offset": draw(st.sampled_from([1, 4, 16]))}
    if kind == "int_param":
        param = {"Matmul": "math", "Cast": "dtype", "Expand": "size"}[op]
        if param == "size" and not args["size"]:
            return {"kind": "null", "arg": "size"}
        base = args[param][0] if param == "size" else args[param]
        return {"kind": kind, "param": param, **draw(int_mutation(base))}
    if kind == "alpha_value":
        return {"kind": kind, "value": draw(st.sampled_from(
            [f("nan"), f("inf"), f(1e300), 2**40, -1, np_("float16", 2.0), a0("float64", 2.0),
             np_("str_", "1"), {"$": "np_dt64", "v": 1}, "abc", None, {"$": "complex", "v": [1, 1]}]))}
    return {"kind": kind}                   # numel_overflow, k_overflow, destroy_executor


@st.composite
def op_case(draw, op: str) -> dict:
    soc = draw(soc_for(op))
    args = draw(VALID_ARGS[op](soc))
    args["stream"] = draw(st.sampled_from(["none", "zero", "new"]))
    mut = None if draw(st.integers(0, 9)) < 4 else draw(op_mutation(op, args))
    return {"entry": "aclnn" + op, "soc": soc, "seed": draw(SEEDS), "args": args, "mut": mut}


# --------------------------------------------------------- CalculateSizeAndFormat

@st.composite
def calc_case(draw) -> dict:
    soc = draw(soc_for("NpuFormatCast"))
    args = draw(format_cast_args(soc))
    fc = args["fc"]
    mut = None
    roll = draw(st.integers(0, 9))
    if roll >= 4:
        target = draw(st.sampled_from(["dst_format", "dst_format", "additional", "src", "arg_count",
                                       "destroyed_src", "other_soc"]))
        if target == "dst_format":
            mut = {"kind": "dst_format", **draw(int_mutation(fc["dst_format"]))}
            if draw(st.integers(0, 3)) == 0:
                mut = {"kind": "dst_format", "class": "hostile",
                       "value": draw(st.sampled_from([f(29.7), f(float(fc["dst_format"])), 999, -1, None,
                                                      str(fc["dst_format"]), f("-inf")]))}
        elif target == "additional":
            mut = {"kind": "additional", **draw(int_mutation(fc["additional"]))}
        elif target == "src":
            mut = {"kind": "src", "value": draw(st.sampled_from([None, "abc", 5, obj("intarray")]))}
        elif target == "arg_count":
            mut = {"kind": "arg_count", "delta": draw(st.sampled_from([-1, 1]))}
        elif target == "destroyed_src":
            mut = {"kind": "destroyed_src"}
        else:
            mut = {"kind": "other_soc", "soc": draw(st.sampled_from(["Ascend910", "Ascend310P", "Ascend310B"]))}
    return {"entry": "aclnnNpuFormatCastCalculateSizeAndFormat", "soc": soc, "seed": draw(SEEDS),
            "args": args, "mut": mut}


# ----------------------------------------------------------------- executor handles

@st.composite
def executor_case(draw) -> dict:
    """A sequence of repeatable / run / destroy actions on one Add executor."""
    actions = draw(st.lists(st.sampled_from(["repeatable", "run", "run", "destroy"]), min_size=1, max_size=5))
    handle = draw(st.sampled_from(["real"] * 6 + ["none", "str", "int"]))
    return {"entry": "executor", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"actions": actions, "handle": handle,
                     "shape": draw(shapes(1, 2, empty=False))}, "mut": None}


ADDR_HOSTILE = [None, "0x10", f(1.5), f("inf"), 0x1234, -4096, 2**64, True, obj("freed"),
                obj("short"), np_("float64", 1.0)]
INDEX_HOSTILE = ["0", None, f(0.0), -1, 2, 99, True, 2**63, f("nan")]


@st.composite
def rebind_case(draw) -> dict:
    """Rebinding a repeatable executor's addresses: valid rebinds mixed with hostile ones; a
    refused rebind must leave the executor usable."""
    op = draw(st.sampled_from(["Add", "Mul", "InplaceCopy", "Cast"]))
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        which = draw(st.sampled_from(["input", "output"]))
        kind = draw(st.sampled_from(["valid", "valid", "addr", "index", "index_equiv"]))
        step = {"which": which, "kind": kind}
        if kind == "addr":
            step["value"] = draw(st.sampled_from(ADDR_HOSTILE))
        elif kind == "index":
            step["value"] = draw(st.sampled_from(INDEX_HOSTILE))
        steps.append(step)
    return {"entry": "rebind", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"op": op, "steps": steps, "repeatable": draw(st.sampled_from([True, True, True, False])),
                     "shape": draw(shapes(1, 2, empty=False))}, "mut": None}


# ------------------------------------------------------------- tensors, scalars, arrays

CREATE_PARAMS = ("view_dims", "data_type", "stride", "offset", "format", "storage_dims", "tensor_data")
LIST_HOSTILE = [{"$": "bytearray", "v": [2, 3]}, "23", None, 5, {"$": "set", "v": [2]},
                {"$": "arr", "t": "float64", "v": [2.0, 3.0]}, [[2], [3]], {"$": "dict"},
                {"$": "bytes", "v": [2, 3]}]
DTYPE_HOSTILE = [np_("float32", 2.0), f(1.5), True, 999, -1, None, S.STRING, f(0.0), "nope"]
FORMAT_HOSTILE = [f(2.0), True, 999, -1, None, f(29.7), "nope"]
DATA_HOSTILE = [f(1.5), "abc", True, -4096, 2**64, f("inf"), np_("float64", 4096.0)]


@st.composite
def create_tensor_case(draw) -> dict:
    dt = draw(st.sampled_from(S.ALL_DTYPES))
    shape = draw(shapes(0, 4))
    t = draw(nd_tensor(dt, shape))
    args = {"view_dims": t["shape"], "data_type": dt, "stride": t["strides"], "offset": t["offset"],
            "format": t["format"], "storage_dims": t["storage"], "data": draw(st.sampled_from(["live", "live", "none"])),
            "guard": t["guard"]}
    mut = None
    roll = draw(st.integers(0, 9))
    if roll >= 3:
        kind = draw(st.sampled_from(["param", "param", "param", "list", "arg_count", "past_storage",
                                     "overflow", "destroyed_use", "double_destroy", "negative"]))
        if kind == "param":
            param = draw(st.sampled_from(["view_dims", "stride", "offset", "storage_dims", "data_type",
                                          "format", "tensor_data"]))
            mut = {"kind": "param", "param": param}
            if param in ("view_dims", "stride", "storage_dims"):
                values = args[param] if param != "stride" else (args["stride"] or [])
                if not values:
                    mut = {"kind": "list", "param": param, "value": draw(st.sampled_from(LIST_HOSTILE))}
                else:
                    i = draw(st.integers(0, len(values) - 1))
                    mut.update({"index": i, **draw(int_mutation(values[i]))})
            elif param == "offset":
                mut.update(draw(int_mutation(args["offset"])))
            elif param == "data_type":
                mut.update(draw(st.sampled_from([{"value": np_("int64", dt), "class": "equiv"},
                                                 {"value": np_("int32", dt), "class": "equiv"}]
                                                + [{"value": v, "class": "hostile"} for v in DTYPE_HOSTILE])))
            elif param == "format":
                mut.update(draw(st.sampled_from([{"value": np_("int64", args["format"]), "class": "equiv"}]
                                                + [{"value": v, "class": "hostile"} for v in FORMAT_HOSTILE])))
            else:
                mut.update(draw(st.sampled_from([{"value": obj("live_np"), "class": "equiv"}]
                                                + [{"value": v, "class": "hostile"} for v in DATA_HOSTILE])))
        elif kind == "list":
            param = draw(st.sampled_from(["view_dims", "stride", "storage_dims"]))
            value = draw(st.sampled_from(LIST_HOSTILE + [{"$": "tuple"}, {"$": "arr", "t": "int64"}]))
            mut = {"kind": kind, "param": param, "value": value}
        elif kind == "arg_count":
            mut = {"kind": kind, "delta": draw(st.sampled_from([-1, 1, -7]))}
        elif kind == "overflow":
            mut = {"kind": kind, "how": draw(st.sampled_from(["numel", "stride", "storage", "offset"]))}
        elif kind == "destroyed_use":
            mut = {"kind": kind, "getter": draw(st.sampled_from(["aclGetViewShape", "aclGetViewStrides",
                                                                 "aclGetViewOffset", "aclGetStorageShape",
                                                                 "aclGetFormat", "aclGetDataType"]))}
        elif kind == "negative":
            mut = {"kind": kind, "param": draw(st.sampled_from(["view_dims", "stride", "offset", "storage_dims"]))}
        else:
            mut = {"kind": kind}
    return {"entry": "aclCreateTensor", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS), "args": args, "mut": mut}


@st.composite
def create_scalar_case(draw) -> dict:
    dt = draw(st.sampled_from([S.F32, S.F16, S.F64, S.BF16, S.S8, S.U8, S.S16, S.U16, S.S32, S.U32,
                               S.S64, S.U64, S.BOOL, S.C64, S.C128]))
    cls = draw(st.sampled_from(["valid", "valid", "equiv", "hostile", "any"]))
    lo, hi = {S.S8: (-128, 127), S.U8: (0, 255), S.S16: (-2**15, 2**15 - 1), S.U16: (0, 2**16 - 1),
              S.S32: (-2**31, 2**31 - 1), S.U32: (0, 2**32 - 1), S.S64: (-2**63, 2**63 - 1),
              S.U64: (0, 2**64 - 1)}.get(dt, (-1000, 1000))
    if dt == S.BOOL:
        valid = [True, False]
    elif dt in S.COMPLEX:
        valid = [{"$": "complex", "v": [1.5, -2.0]}, 3, 2.5]
    elif dt in S.FLOATS:
        valid = [1.5, -2.0, 0.0, 3, f("nan"), f("inf"), 65504.0]
    else:
        valid = [lo, hi, 0, 1, (lo + hi) // 2]
    if cls == "valid":
        value = draw(st.sampled_from(valid))
    elif cls == "equiv":        # NumPy scalars and 0-d arrays: C's `&value`
        v = draw(st.sampled_from([x for x in valid if not isinstance(x, dict) or x.get("v") != "nan"]))
        t = "bool_" if dt == S.BOOL else ("complex128" if dt in S.COMPLEX else
                                         ("float64" if dt in S.FLOATS else ("uint64" if dt == S.U64 else "int64")))
        value = {"$": draw(st.sampled_from(["np", "a0"])), "t": t, "v": v}
    elif cls == "hostile":
        pool = [np_("str_", "a"), np_("str_", "1"), {"$": "np_void"}, {"$": "np_dt64", "v": 1}, "1", None,
                [1], obj("object"), {"$": "bytes", "v": [1]}]
        if dt in S.INTS:
            pool += [lo - 1, hi + 1, f(1e300), f("nan"), f("inf"), 2**70]
        if dt not in S.COMPLEX:
            pool.append({"$": "complex", "v": [1, 1]})
        value = draw(st.sampled_from(pool))
    else:
        value = draw(st.sampled_from([f(2.5), f(-0.5), True, f(1e10), f(-1e300), {"$": "a0", "t": "float64", "v": 1.0}]))
    mut = draw(st.sampled_from([None, None, None, {"kind": "double_destroy"}, {"kind": "arg_count", "delta": 1},
                                {"kind": "arg_count", "delta": -1},
                                {"kind": "dtype", "value": draw(st.sampled_from(DTYPE_HOSTILE))}]))
    return {"entry": "aclCreateScalar", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"value": value, "dtype": dt, "class": cls}, "mut": mut}


@st.composite
def create_array_case(draw, entry: str) -> dict:
    n = draw(st.integers(0, 5))
    cls = draw(st.sampled_from(["valid", "valid", "equiv", "hostile"]))
    if entry == "aclCreateIntArray":
        items = draw(st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-5, 5)
                              | st.sampled_from([-2**63, 2**63 - 1]), min_size=n, max_size=n))
        equiv = [{"$": "arr", "t": "int64", "v": items}, {"$": "tuple", "v": items},
                 [np_("int64", v) for v in items], [np_("int32", v) if -2**31 <= v < 2**31 else v for v in items]]
        hostile_items = [f(1.5), True, "3", None, 2**63, -2**63 - 1, 2**64, [1], np_("float32", 1.0)]
    elif entry == "aclCreateFloatArray":
        items = draw(st.lists(st.sampled_from([0.0, 1.5, -2.25, 1e30, 3]), min_size=n, max_size=n))
        equiv = [{"$": "tuple", "v": items}, [np_("float32", v) for v in items],
                 {"$": "arr", "t": "float64", "v": items}, [f("nan")] * n, [f("inf")] * n]
        hostile_items = [True, "1.5", None, {"$": "complex", "v": [1, 1]}, [1.0], 10**400, np_("str_", "1")]
    elif entry == "aclCreateBoolArray":
        items = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        equiv = [{"$": "tuple", "v": items}, [np_("bool_", v) for v in items], {"$": "arr", "t": "bool_", "v": items}]
        hostile_items = ["True", None, f(1.0), 2, [True]]
    else:                                   # aclCreateTensorList: tensors by index
        items = [obj("tensor")] * n
        equiv = [{"$": "tuple", "v": items}]
        hostile_items = [None, "abc", 5, obj("destroyed_tensor"), obj("scalar")]
    if cls == "valid":
        value = items
    elif cls == "equiv":
        value = draw(st.sampled_from(equiv))
    elif n and draw(st.booleans()):
        bad = list(items)
        bad[draw(st.integers(0, n - 1))] = draw(st.sampled_from(hostile_items))
        value = bad
    else:
        float_array = {"$": "arr", "t": "float64", "v": [2.0, 3.0]}
        value = draw(st.sampled_from([v for v in LIST_HOSTILE
                                      if entry != "aclCreateFloatArray" or v != float_array]))
    mut = draw(st.sampled_from([None, None, None, {"kind": "double_destroy"}, {"kind": "wrong_destroy"},
                                {"kind": "arg_count", "delta": 1}, {"kind": "arg_count", "delta": -1}]))
    return {"entry": entry, "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"value": value, "items": items, "class": cls}, "mut": mut}


# -------------------------------------------------------------------------- acl runtime

SIZE_HOSTILE = [0, -1, f(64.0), f(1.5), "64", True, None, 2**63, 2**64, f("inf"), np_("float64", 64.0), [64]]
PTR_HOSTILE = [None, 0, 0x1234, -4096, "abc", f(1.5), True, 2**64, obj("freed"), obj("interior"),
               obj("host_array"), obj("stream")]
KIND_HOSTILE = [9, -1, f(1.0), "1", None, True, 2**63]


@st.composite
def malloc_case(draw) -> dict:
    size = draw(st.sampled_from([1, 7, 64, 511, 512, 4096, 100000, 1 << 20]))
    mut = draw(st.sampled_from([None, None, "size", "size", "policy", "free_ptr", "free_ptr",
                                "double_free", "arg_count", "huge", "free_arg_count"]))
    m: dict | None = None
    if mut == "size":
        m = {"kind": "size", "value": draw(st.sampled_from(SIZE_HOSTILE + int_equivalents(size)))}
    elif mut == "policy":
        m = {"kind": "policy", "value": draw(st.sampled_from([3, -1, f(0.0), "0", None, True, np_("int64", 1), 2**64]))}
    elif mut == "free_ptr":
        m = {"kind": "free_ptr", "value": draw(st.sampled_from(PTR_HOSTILE + [obj("np_ptr")]))}
    elif mut == "huge":
        m = {"kind": "huge", "value": draw(st.sampled_from([2**48, 2**55, 2**62, 2**63 - 1]))}
    elif mut in ("arg_count", "free_arg_count"):
        m = {"kind": mut, "delta": draw(st.sampled_from([-1, 1]))}
    elif mut:
        m = {"kind": mut}
    return {"entry": "acl.rt.malloc", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"size": size, "policy": draw(st.sampled_from([0, 1, 2]))}, "mut": m}


@st.composite
def memcpy_case(draw, asynchronous: bool) -> dict:
    kind = draw(st.sampled_from([0, 1, 2, 3, 4]))
    size = draw(st.sampled_from([1, 16, 100, 256, 1000, 4096]))
    count = draw(st.integers(0, size))
    args = {"kind": kind, "size": size, "count": count, "dst_off": draw(st.integers(0, 16)),
            "src_off": draw(st.integers(0, 16)), "dest_max": draw(st.sampled_from(["count", "rest"])),
            "host_form": draw(st.sampled_from(["array", "array", "int", "bytes"])),
            "stream": draw(st.sampled_from(["new", "none", "zero"])), "guard": draw(GUARDS)}
    mut = None
    if draw(st.integers(0, 9)) >= 4:
        which = draw(st.sampled_from(["count", "dest_max", "kind", "dst", "src", "over_count", "over_alloc",
                                      "freed_dst", "freed_src", "default_stale", "host_small", "readonly",
                                      "noncontig", "arg_count"] + (["stream"] * 2 if asynchronous else [])))
        if which in ("count", "dest_max"):
            mut = {"kind": which, **draw(int_mutation(count))}
        elif which == "kind":
            mut = {"kind": which, "value": draw(st.sampled_from(KIND_HOSTILE + [np_("int64", kind)]))}
        elif which in ("dst", "src"):
            mut = {"kind": which, "value": draw(st.sampled_from(PTR_HOSTILE))}
        elif which == "stream":
            mut = {"kind": which, "value": draw(st.sampled_from(STREAM_HOSTILE))}
        elif which == "arg_count":
            mut = {"kind": which, "delta": draw(st.sampled_from([-1, 1]))}
        else:
            mut = {"kind": which}
    return {"entry": "acl.rt.memcpy_async" if asynchronous else "acl.rt.memcpy", "soc": S.DEFAULT_SOC,
            "seed": draw(SEEDS), "args": args, "mut": mut}


@st.composite
def memset_case(draw) -> dict:
    size = draw(st.sampled_from([1, 16, 64, 1000, 4096]))
    count = draw(st.integers(0, size))
    args = {"size": size, "count": count, "off": draw(st.integers(0, 8)), "value": draw(st.integers(0, 255)),
            "max": draw(st.sampled_from(["count", "rest"])), "guard": draw(GUARDS)}
    mut = None
    if draw(st.integers(0, 9)) >= 4:
        which = draw(st.sampled_from(["count", "count", "max", "value", "ptr", "over_max", "over_alloc",
                                      "negative_count", "freed", "arg_count"]))
        if which in ("count", "max"):
            mut = {"kind": which, **draw(int_mutation(count))}
        elif which == "value":
            mut = {"kind": which, "value": draw(st.sampled_from([256, -1, "a", f(1.5), None, True, 2**64,
                                                                 np_("uint8", 7), np_("int64", 7)]))}
        elif which == "ptr":
            mut = {"kind": which, "value": draw(st.sampled_from(PTR_HOSTILE))}
        elif which == "arg_count":
            mut = {"kind": which, "delta": draw(st.sampled_from([-1, 1]))}
        else:
            mut = {"kind": which}
    return {"entry": "acl.rt.memset", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS), "args": args, "mut": mut}


STREAM_ACTIONS = ["create", "synchronize", "destroy", "memcpy_async", "record_event", "wait_event", "aclnn"]


@st.composite
def stream_case(draw) -> dict:
    """A random sequence of stream actions; the expected code of each follows from a small
    state machine (a destroyed stream is refused with 100000)."""
    actions = draw(st.lists(st.sampled_from(STREAM_ACTIONS), min_size=1, max_size=6))
    target = draw(st.sampled_from(["real"] * 6 + ["none", "zero", "str", "int", "event", "float"]))
    return {"entry": "acl.rt.stream", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"actions": ["create"] + actions, "target": target,
                     "arg_count": draw(st.sampled_from([0] * 8 + [-1, 1]))}, "mut": None}


EVENT_ACTIONS = ["record", "synchronize", "query", "wait", "destroy"]


@st.composite
def event_case(draw) -> dict:
    actions = draw(st.lists(st.sampled_from(EVENT_ACTIONS), min_size=1, max_size=6))
    target = draw(st.sampled_from(["real"] * 6 + ["none", "str", "stream", "int"]))
    return {"entry": "acl.rt.event", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"actions": actions, "target": target, "stream": draw(st.sampled_from(["new", "none", "destroyed"])),
                     "arg_count": draw(st.sampled_from([0] * 8 + [-1, 1]))}, "mut": None}


LIFECYCLE_ACTIONS = ["init", "finalize", "malloc", "create_stream", "set_device", "reset_device",
                     "get_device", "synchronize_device", "memset", "create_event", "get_mem_info"]


@st.composite
def lifecycle_case(draw) -> dict:
    actions = draw(st.lists(st.sampled_from(LIFECYCLE_ACTIONS), min_size=1, max_size=6))
    return {"entry": "acl.init/finalize", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"actions": actions, "start": draw(st.sampled_from(["initialized", "finalized"]))},
            "mut": None}


DEVICE_IDS = [0, np_("int64", 0), 1, -1, True, f(0.0), "0", None, 2**70, {"$": "arr", "t": "int64", "v": [0, 0]},
              a0("int64", 0), 7]


@st.composite
def device_case(draw) -> dict:
    return {"entry": "acl.rt.set_device/reset_device", "soc": S.DEFAULT_SOC, "seed": draw(SEEDS),
            "args": {"fn": draw(st.sampled_from(["set_device", "reset_device"])),
                     "id": draw(st.sampled_from(DEVICE_IDS)),
                     "arg_count": draw(st.sampled_from([0] * 6 + [-1, 1]))}, "mut": None}


ACLNN_ENTRIES: dict[str, st.SearchStrategy] = {
    "aclCreateTensor": create_tensor_case(),
    "aclCreateScalar": create_scalar_case(),
    "aclCreateIntArray": create_array_case("aclCreateIntArray"),
    "aclCreateFloatArray": create_array_case("aclCreateFloatArray"),
    "aclCreateBoolArray": create_array_case("aclCreateBoolArray"),
    "aclCreateTensorList": create_array_case("aclCreateTensorList"),
    **{"aclnn" + op: op_case(op) for op in S.OPS},
    "aclnnNpuFormatCastCalculateSizeAndFormat": calc_case(),
    "executor": executor_case(),
    "rebind": rebind_case(),
}
ACL_ENTRIES: dict[str, st.SearchStrategy] = {
    "acl.init/finalize": lifecycle_case(),
    "acl.rt.set_device/reset_device": device_case(),
    "acl.rt.malloc": malloc_case(),
    "acl.rt.memcpy": memcpy_case(False),
    "acl.rt.memcpy_async": memcpy_case(True),
    "acl.rt.memset": memset_case(),
    "acl.rt.stream": stream_case(),
    "acl.rt.event": event_case(),
}
