"""The tables of docs/ that exist as data in the code, generated into the markdown.

    python -m npu_emu._docgen            rewrite every generated block of docs/*.md
    python -m npu_emu._docgen --check    exit 1 (naming the stale blocks) if any is out of date

A block is `<!-- generated: NAME -->` ... `<!-- end generated -->`; NAME is a key of
GENERATORS, or `promotion-RULESET` / `conversion-RULESET` for one rule set's table. Generators read only module-level tables and public functions (dtypes.RULE_SETS,
arch.SOCS, aclnn.OPERATORS, ...), through `_need`: a name that moved makes the generator fail
with a message saying which, instead of silently dropping a table.
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"(<!-- generated: ([a-z0-9_-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


class DocgenError(RuntimeError):
    pass


def _need(module: str, name: str) -> Any:
    """`module.name`, or DocgenError saying the generator must follow the move."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise DocgenError(f"npu_emu._docgen reads {module}.{name}, but {module} does not import: "
                          f"{exc}") from None
    obj = mod
    for part in name.split("."):
        if not hasattr(obj, part):
            raise DocgenError(f"npu_emu._docgen reads {module}.{name}, which no longer exists: "
                              f"point the generator at its new place (do not drop the table)")
        obj = getattr(obj, part)
    return obj


def md_table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


GENERATORS: dict[str, Callable[[], str]] = {}


def generator(name: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def deco(fn: Callable[[], str]) -> Callable[[], str]:
        GENERATORS[name] = fn
        return fn
    return deco


# --------------------------------------------------------------------------- dtypes

# Row/column order of the dtype tables (the order of the documented promotion table, then
# the types it leaves out); any other dtype a table holds follows in enum order.
_ORDER = "f32 f16 f64 bf16 s8 u8 s16 s32 s64 u16 u32 u64 bool c32 c64 c128 hif8 fp8e5m2 fp8e4m3fn fp8e8m0".split()


def _short(dt: Any) -> str:
    info = _need("npu_emu.dtypes", "INFO")
    try:
        return info[dt].short
    except KeyError:
        raise DocgenError(f"a table holds {dt!r}, which is not an aclDataType of "
                          f"npu_emu.dtypes.INFO") from None


def _ordered(dts: Iterable[Any]) -> list:
    rank = {s: i for i, s in enumerate(_ORDER)}
    return sorted(set(dts), key=lambda d: (rank.get(_short(d), len(rank)), int(d)))


def _dtype_list(dts: Iterable[Any]) -> str:
    return ", ".join(_short(d) for d in _ordered(dts))


@generator("dtypes")
def gen_dtypes() -> str:
    info = _need("npu_emu.dtypes", "INFO")
    rows = []
    for dt, i in sorted(info.items(), key=lambda kv: int(kv[0])):
        bits = i.bits if i.bits else "-"
        rows.append([f"`{dt.name}`", int(dt), f"`{i.short}`", bits, i.kind,
                     i.storage.name if i.storage is not None else "-",
                     (i.host.name if i.host is not None else "-") if i.storage is not None else "-"])
    return md_table(["aclDataType", "value", "short name", "bits", "kind", "device storage",
                     "host dtype"], rows)


def _rule_sets() -> dict:
    sets = _need("npu_emu.dtypes", "RULE_SETS")
    if not sets:
        raise DocgenError("npu_emu.dtypes.RULE_SETS is empty")
    return sets


def _grid(axes: list, cell: Callable[[Any, Any], str]) -> str:
    head = ["", *[_short(d) for d in axes]]
    return md_table(head, [[f"**{_short(a)}**", *[cell(a, b) for b in axes]] for a in axes])


def _rule_set(name: str) -> Any:
    sets = _rule_sets()
    if name not in sets:
        raise DocgenError(f"a block asks for rule set {name!r}, which npu_emu.dtypes.RULE_SETS "
                          f"does not have ({', '.join(sets)})")
    return sets[name]


def _promotion(rs: Any, name: str) -> dict:
    table = getattr(rs, "promotion", None)
    if not isinstance(table, dict):
        raise DocgenError(f"npu_emu.dtypes.RULE_SETS[{name!r}].promotion is not the promotion "
                          f"table any more: point npu_emu._docgen at it")
    return table


def promotion_table(name: str) -> str:
    """Rule set `name`'s promotion grid (rows: self, columns: other), the dtypes that promote
    only with themselves, its asymmetric cells, and how it differs from the first rule set."""
    sets = _rule_sets()
    table = _promotion(_rule_set(name), name)
    info = _need("npu_emu.dtypes", "INFO")
    axes = _ordered({d for a, b in table if a != b for d in (a, b)})
    # Types with no per-element storage (int4, fp6, ...) hold no tensor: not worth a mention.
    alone = _ordered({a for a, b in table if a == b and info[a].storage is not None} - set(axes))
    out = [_grid(axes, lambda a, b: _short(table[a, b]) if (a, b) in table else "·")]
    if alone:
        out.append(f"\nOnly with itself (giving itself): {', '.join(_short(d) for d in alone)}.")
    asym = sorted({tuple(sorted((_short(a), _short(b)))) for (a, b) in table
                   if table.get((b, a)) != table[a, b]})
    if asym:
        out.append("\nNot symmetric: " + ", ".join(f"{a} with {b}" for a, b in asym) + ".")
    first_name = next(iter(sets))
    if name != first_name:
        first = _promotion(sets[first_name], first_name)

        def text(r: Any) -> str:
            return "not supported" if r is None else _short(r)
        changed = {(a, b) for a, b in set(table) | set(first) if table.get((a, b)) != first.get((a, b))}
        diff = []
        for a, b in sorted(changed, key=lambda k: (_ORDER.index(_short(k[0])) if _short(k[0]) in _ORDER else 99,
                                                  _ORDER.index(_short(k[1])) if _short(k[1]) in _ORDER else 99)):
            same_both = (b, a) in changed and table.get((b, a)) == table.get((a, b)) \
                and first.get((b, a)) == first.get((a, b))
            if same_both and (b, a) in {d[0] for d in diff}:
                continue
            order = " (either order)" if same_both and a != b else ""
            diff.append(((a, b), f"{_short(a)} with {_short(b)}{order}: {text(table.get((a, b)))} "
                                 f"({first_name}: {text(first.get((a, b)))})"))
        out.append(f"\nDifferences from `{first_name}`: " + ("; ".join(d[1] for d in diff) or "none") + ".")
    return "\n".join(out)


def conversion_table(name: str) -> str:
    """Rule set `name`'s result conversion: rows the computed dtype, columns out's dtype."""
    info = _need("npu_emu.dtypes", "INFO")
    can = getattr(_rule_set(name), "can_cast", None)
    if can is None:
        raise DocgenError("npu_emu.dtypes.RuleSet.can_cast no longer exists: point "
                          "npu_emu._docgen at the result-conversion rule")
    axes = _ordered(d for d, i in info.items() if i.storage is not None and i.kind != "other")
    return _grid(axes, lambda a, b: "yes" if can(a, b) else "·")


@generator("promotion")
def gen_promotion() -> str:
    """Every rule set of dtypes.RULE_SETS, each under its own heading."""
    return "\n\n".join(f"#### Promotion, rule set `{name}`\n\n{promotion_table(name)}"
                        for name in _rule_sets())


@generator("conversion")
def gen_conversion() -> str:
    return "\n\n".join(f"#### Result conversion, rule set `{name}`\n\n{conversion_table(name)}"
                        for name in _rule_sets())


# Blocks named after a rule set: `promotion-NAME`, `conversion-NAME` (one rule set's table).
PER_RULE_SET: dict[str, Callable[[str], str]] = {"promotion-": promotion_table,
                                                 "conversion-": conversion_table}


def generator_for(name: str) -> Callable[[], str]:
    if name in GENERATORS:
        return GENERATORS[name]
    for prefix, make in PER_RULE_SET.items():
        if name.startswith(prefix):
            return lambda: make(name[len(prefix):])
    raise DocgenError(f"unknown generated block {name!r}; known: {', '.join(sorted(GENERATORS))}, "
                      f"and {', '.join(p + 'RULESET' for p in PER_RULE_SET)}")


@generator("hif8-decode")
def gen_hif8_decode() -> str:
    import numpy as np
    decode = _need("npu_emu.dtypes", "decode")
    codes = [0x00, 0x01, 0x07, 0x08, 0x09, 0x10, 0x18, 0x20, 0x30, 0x40, 0x50, 0x60, 0x67, 0x68,
             0x6E, 0x6F, 0x80, 0x88, 0xEE, 0xEF]
    values = decode(np.array(codes, dtype=np.uint8), "hif8")
    rows = [[f"`0x{c:02X}`", f"`{c >> 7:b} {(c >> 3) & 0xF:04b} {c & 7:03b}`", _num(v)]
            for c, v in zip(codes, values)]
    return md_table(["code", "bits (S dot-and-rest)", "value (exact)"], rows)


@generator("hif8-encode")
def gen_hif8_encode() -> str:
    import numpy as np
    encode = _need("npu_emu.dtypes", "encode")
    decode = _need("npu_emu.dtypes", "decode")
    xs = [0.0, -0.0, 1.0, 1.0625, 1.1875, -3.3, 7.5, 100.0, 32768.0, 36864.0, 40959.0, 40960.0,
          float("inf"), float("nan"), 2.0**-22, 2.0**-23 * 1.5, 2.0**-23, 2.0**-24]
    codes = encode(np.array(xs, dtype=np.float32), "hif8")
    back = decode(codes, "hif8")
    rows = [[_num(np.float32(x)), f"`0x{int(c):02X}`", _num(v)] for x, c, v in zip(xs, codes, back)]
    return md_table(["float32 input", "HiFloat8 code", "decodes to"], rows)


def _num(v: Any) -> str:
    import math
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == 0:
        return "-0" if math.copysign(1, v) < 0 else "0"
    m, e = math.frexp(abs(v))
    if abs(v) < 2.0**-10:                    # small powers of two read better as 2^e
        mant = m * 2
        text = f"2^{e - 1}" if mant == 1 else f"{mant:g} x 2^{e - 1}"
        return ("-" if v < 0 else "") + text
    return f"{v:g}"


# -------------------------------------------------------------------------- formats

@generator("formats")
def gen_formats() -> str:
    fmt = _need("npu_emu.formats", "aclFormat")
    ranks = _need("npu_emu.formats", "PUBLIC_FORMAT_RANKS")
    private = _need("npu_emu.formats", "PRIVATE_FORMATS")
    rows = []
    for f in sorted(fmt, key=int):
        if f in ranks:
            kind = "public, any rank" if ranks[f] is None else f"public, {ranks[f]}-D"
        elif f in private:
            kind = "private (NPU layout)"
        else:
            kind = "-"
        rows.append([f"`{f.name}`", int(f), kind])
    return md_table(["aclFormat", "value", "kind"], rows)


def _fmt(f: Any) -> str:
    return f.name.removeprefix("ACL_FORMAT_").removeprefix("ACL_")


@generator("format-cast")
def gen_format_cast() -> str:
    groups = _need("npu_emu.ops.format_cast", "SOC_GROUP")
    dtypes = _need("npu_emu.ops.format_cast", "DTYPES")
    conversions = _need("npu_emu.ops.format_cast", "CONVERSIONS")
    out = []
    for group, pairs in conversions.items():
        socs = ", ".join(s for s, g in groups.items() if g == group)
        out.append(f"#### {group} ({socs})\n")
        out.append(f"Dtypes: {_dtype_list(dtypes[group])}.\n")
        by_src: dict[str, list[str]] = {}
        for src, dst in sorted(pairs, key=lambda p: (int(p[0]), int(p[1]))):
            by_src.setdefault(_fmt(src), []).append(_fmt(dst))
        out.append(md_table(["from", "to"], [[s, ", ".join(d)] for s, d in by_src.items()]))
        out.append("")
    return "\n".join(out).rstrip()


# ----------------------------------------------------------------------------- SoCs

def _socs() -> dict:
    return _need("npu_emu.arch", "SOCS")


@generator("socs")
def gen_socs() -> str:
    default = _need("npu_emu.arch", "DEFAULT_SOC")
    rows = []
    for name, s in _socs().items():
        rows.append([f"`{name}`" + (" (default)" if name == default else ""), s.products,
                     s.npu_arch, "yes" if s.bf16 else "no", s.matmul_convention,
                     f"{s.c0_bytes} B", f"{s.fractal_rows} x C0",
                     ", ".join(f"aclnn{o}" for o in sorted(s.unsupported_ops)) or "-"])
    return md_table(["SoC", "products", "NpuArch", "BF16", "matmul operands", "C0",
                     "fractal", "without"], rows)


def _operators() -> dict:
    return _need("npu_emu.aclnn", "OPERATORS")


def _supported(op_name: str, soc: Any) -> str:
    """How an operator answers on a SoC (from the SoC record and the FormatCast groups)."""
    if op_name == "NpuFormatCast":
        groups = _need("npu_emu.ops.format_cast", "SOC_GROUP")
        return "yes" if soc.name in groups else "no (361001)"
    return "yes" if soc.supports(op_name) else "no (161002)"


@generator("ops-per-soc")
def gen_ops_per_soc() -> str:
    socs = _socs()
    rows = [[f"`{aclnn}`", *[_supported(op.name, s) for s in socs.values()]]
            for aclnn, op in _operators().items()]
    return md_table(["operator", *socs], rows)


def _dtype_source(op_name: str) -> Callable[[Any], frozenset] | None:
    """Where an operator's dtype list lives, per SoC. None: documented by hand
    (CubeMatmul, whose list is not a public table)."""
    base = op_name.removeprefix("Inplace") if op_name in ("InplaceAdd", "InplaceMul") else op_name
    if base in ("Expand", "Cast", "Add", "Mul"):
        return lambda soc: soc.dtypes_for(base)
    if op_name == "InplaceCopy":
        table = _need("npu_emu.ops.inplace_copy", "DTYPES")
        return lambda soc: table
    if op_name == "Matmul":
        return _need("npu_emu.ops.matmul", "matmul_dtypes")
    if op_name == "NpuFormatCast":
        groups = _need("npu_emu.ops.format_cast", "SOC_GROUP")
        table = _need("npu_emu.ops.format_cast", "DTYPES")
        return lambda soc: table[groups[soc.name]] if soc.name in groups else frozenset()
    if op_name == "CubeMatmul":
        return None
    raise DocgenError(f"npu_emu._docgen does not know where aclnn{op_name}'s dtype list lives: "
                      f"add it to _dtype_source")


@generator("op-dtypes")
def gen_op_dtypes() -> str:
    socs = _socs()
    rows = []
    for aclnn, op in _operators().items():
        source = _dtype_source(op.name)
        if source is None:
            rows.append([f"`{aclnn}`", "all", "see [aclnnCubeMatmul](operators.md#aclnncubematmul)"])
            continue
        groups: dict[str, list[str]] = {}
        for name, soc in socs.items():
            if _supported(op.name, soc) != "yes":
                text = "not supported"
            else:
                text = _dtype_list(source(soc))
            groups.setdefault(text, []).append(name)
        for text, names in groups.items():
            rows.append([f"`{aclnn}`", ", ".join(names) if len(names) < len(socs) else "all", text])
    return md_table(["operator", "SoCs", "dtypes"], rows)


@generator("operators")
def gen_operators() -> str:
    """Every operator of the C-style layer: its first phase's parameters, as CANN orders
    them (aclnn.OPERATORS and each OpDef's params)."""
    roles = {"in": "input", "out": "output", "inout": "input and output", "attr": "attribute"}
    rows = []
    for aclnn, op in _operators().items():
        params = ", ".join(p.name for p in op.params)
        kinds = "; ".join(f"{p.name}: {p.ctype} {roles.get(p.role, p.role)}" for p in op.params)
        rows.append([f"[`{aclnn}`](#{aclnn.lower()})", f"`{aclnn}GetWorkspaceSize({params})`",
                     kinds, op.summary or "-"])
    return md_table(["operator", "phase one", "parameters", "what it does"], rows)


@generator("matmul-math")
def gen_matmul_math() -> str:
    rules = _need("npu_emu.ops.matmul", "MATH_RULES")
    names = _need("npu_emu.ops.matmul", "MATH_NAMES")
    kinds = {_need("npu_emu.ops.matmul", "KIND_F16"): "fp16",
             _need("npu_emu.ops.matmul", "KIND_BF16"): "bf16",
             _need("npu_emu.ops.matmul", "KIND_F32"): "fp32",
             _need("npu_emu.ops.matmul", "KIND_F32_AS_F16"): "fp32 rounded to fp16",
             _need("npu_emu.ops.matmul", "KIND_F32_AS_HF32"): "fp32 rounded to HF32"}
    groups: dict[tuple, list[str]] = {}
    for soc, table in rules.items():
        key = tuple((dt, tuple(modes.get(m) for m in names)) for dt, modes in table.items())
        groups.setdefault(key, []).append(soc)
    rows = []
    for key, socs in groups.items():
        for dt, modes in key:
            rows.append([", ".join(socs), _short(dt),
                         *["refused" if k is None else kinds[k] for k in modes]])
    return md_table(["SoCs", "computed dtype", *[f"{v} {n}" for v, n in names.items()]], rows)


# --------------------------------------------------------------------- status codes

# What each code means in npu_emu: documentation of the code, kept beside the generator so a
# new status code cannot appear without a line here.
MEANINGS = {
    "ACLNN_SUCCESS": "success",
    "ACLNN_ERR_PARAM_NULLPTR": "a required parameter (tensor, array, scalar, executor, workspace) is None",
    "ACLNN_ERR_PARAM_INVALID": "a parameter breaks a rule: dtype, format, shape, rank, stride, "
                               "promotion, conversion, memory",
    "ACLNN_ERR_RUNTIME_ERROR": "the runtime refused: not initialized, a launch failed, an "
                               "operator the SoC does not offer (NpuFormatCast)",
    "ACLNN_ERR_INNER": "an unexpected failure inside npu_emu (a bug: the log says where)",
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": "shape inference failed inside npu_emu (CANN's code; unused)",
    "ACLNN_ERR_INNER_TILING_ERROR": "tiling failed (CANN's code; unused)",
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": "a kernel could not be built or loaded (compiler, NVRTC)",
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": "the executor could not be created (CANN's code; unused)",
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": "phase two called again with an executor that is not "
                                          "repeatable",
    "ACLNN_ERR_INNER_NULLPTR": "an internal null pointer (CANN's code; unused)",
    "ACL_SUCCESS": "success",
    "ACL_ERROR_INVALID_PARAM": "a parameter of an acl / acl.rt call is invalid",
    "ACL_ERROR_UNINITIALIZE": "acl.rt called before acl.init or after acl.finalize",
    "ACL_ERROR_REPEAT_INITIALIZE": "acl.init called twice without acl.finalize",
    "ACL_ERROR_RT_CONTEXT_NULL": "a memory, stream or event call with no current device",
    "ACL_ERROR_BAD_ALLOC": "device (or, on the cpu backend, host) memory is exhausted",
    "ACL_ERROR_INVALID_DEVICE": "a device id other than 0, or no usable backend",
    "ACL_ERROR_INTERNAL_ERROR": "an unexpected failure inside npu_emu's runtime",
}


def _raised_as(code: int) -> str:
    error = _need("npu_emu.status", "AclnnError")
    e = error(code, "")
    also = _need("npu_emu.status", "ALSO_RAISED_AS").get(code)
    for kind in (TypeError, ValueError, MemoryError, RuntimeError):
        if isinstance(e, kind):
            return kind.__name__ + (f" (also {also[0].__name__} {also[1]})" if also else "")
    return "-"


@generator("status")
def gen_status() -> str:
    names = _need("npu_emu.status", "STATUS_NAMES")
    family = _need("npu_emu.status", "FAMILY")
    by_name = {name: code for code, name in names.items()}
    # Both families' success is 0, which STATUS_NAMES (value -> name) holds once.
    by_name.update({n: _need("npu_emu.status", n) for n in ("ACLNN_SUCCESS", "ACL_SUCCESS")})
    if set(MEANINGS) != set(by_name):
        missing = sorted(set(by_name) - set(MEANINGS))
        gone = sorted(set(MEANINGS) - set(by_name))
        raise DocgenError("npu_emu._docgen.MEANINGS does not match npu_emu.status: "
                          + (f"no meaning for {missing}" if missing else "")
                          + (f"; gone: {gone}" if gone else ""))
    rows = []
    for prefix, fam in (("ACLNN_", "aclnn"), ("ACL_", "acl")):
        for name, code in sorted(by_name.items(), key=lambda kv: kv[1]):
            if name.startswith(prefix) and not (prefix == "ACL_" and name.startswith("ACLNN_")):
                got = family.get(code, fam) if code else fam
                rows.append([f"`{name}`", code, got, "-" if code == 0 else _raised_as(code),
                             MEANINGS[name]])
    return md_table(["status", "value", "family", "raised as (Python layers)", "meaning"], rows)


@generator("status-translate")
def gen_status_translate() -> str:
    translate = _need("npu_emu.status", "TRANSLATE")
    internal = _need("npu_emu.status", "INTERNAL")
    names = _need("npu_emu.status", "STATUS_NAMES")
    rows = [[f"an {fam} function", f"`{names[code]}` ({code})", f"`{names[to]}` ({to})"]
            for (fam, code), to in sorted(translate.items(), key=lambda kv: (kv[0][0], kv[0][1]))]
    rows += [[f"an {fam} function", "any other code of the other family",
              f"`{names[code]}` ({code})"] for fam, code in sorted(internal.items())]
    return md_table(["returned by", "a failure carrying", "is returned as"], rows)


# --------------------------------------------------------------------------- bench

@generator("bench-ops")
def gen_bench_ops() -> str:
    ops = _need("npu_emu.bench.cases", "OPS")
    count = _need("npu_emu.bench.common", "format_count")
    rows = [[f"`{o.name}`", o.summary, ", ".join(f"`{v}`" for v in o.variants),
             ", ".join(o.dtypes), ", ".join(o.stress_dtypes), o.traffic,
             ", ".join(f"{b} {count(n)}" for b, n in (o.numel_cap or {}).items()) or "-"]
            for o in ops.values()]
    return md_table(["op", "one run", "variants", "dtypes", "--stress dtypes", "GB/s counts",
                     "size cap (unless --ops names it)"], rows)


@generator("bench-goals")
def gen_bench_goals() -> str:
    goals = _need("npu_emu.bench.report", "GOALS")
    fmt = _need("npu_emu.bench.common", "format_bytes")
    rows = [[g.backend, g.text, ", ".join(g.ops) + (f" ({', '.join(g.variants)})" if g.variants else ""),
             "of the device copy" if g.metric == "ceiling" else f"x {g.metric}",
             f"{g.target:g}", fmt(g.min_out_bytes)] for g in goals]
    return md_table(["backend", "goal", "cases", "metric", "target", "cases from (output)"], rows)


@generator("bench-summary")
def gen_bench_summary() -> str:
    """README's table: representative cases of the newest run in benchmarks/results/."""
    import json
    results = DOCS.parent / "benchmarks" / "results"
    runs = sorted(p for p in results.glob("*.json") if "history" not in p.name) if results.is_dir() else []
    # the newest run, by its own date, of the whole bench at its full sizes (a run of one op,
    # as the math functions', is not, nor a --quick run)
    whole = []
    for path in runs:
        run = json.loads(path.read_text())
        if (any(c.get("op") == "expand" for c in run.get("cases", []))
                and not run.get("settings", {}).get("quick")):
            whole.append((run.get("provenance", {}).get("date", ""), path.name, run))
    if not whole:
        raise DocgenError(f"no benchmark JSON of a whole run in {results}")
    _, name, data = max(whole, key=lambda w: w[:2])
    goal_lines = _need("npu_emu.bench.report", "goal_lines")
    prov = data.get("provenance", {})
    wanted = [("expand", "broadcast", "f32"), ("view_copy", "contiguous", "f32"),
              ("view_copy", "transposed", "f32"), ("cast", "f32->x", "f16"),
              ("cast", "f32->x", "hif8"), ("format_cast", "ND->NZ", "f16"),
              ("add", "contiguous", "f32"), ("array_api", "add", "f32")]
    largest: dict[tuple, dict] = {}
    for case in data.get("cases", []):
        key = (case.get("op"), case.get("variant"), case.get("dtype"))
        if key in wanted and (key not in largest or case["numel"] > largest[key]["numel"]):
            largest[key] = case
    rows = []
    for key in wanted:
        c = largest.get(key)
        if c is None:
            continue
        ratios = c.get("ratios") or {}
        cell = lambda k: f"{ratios[k]:.2f}" if ratios.get(k) else "-"   # noqa: E731
        rows.append([f"{key[0]} {key[1]} {key[2]}", _need("npu_emu.bench.common", "format_count")(c["numel"]),
                     f"{c['ours']['gbps']:.1f}", cell("numpy"), cell("torch")])
    head = (f"{prov.get('backend')} backend, {str(prov.get('date'))[:10]}, {prov.get('cpu_model')} "
            f"({prov.get('cpu_count')} CPUs), the largest size of each case from "
            f"`benchmarks/results/{name}` (full table: "
            f"[benchmarks/RESULTS.md](benchmarks/RESULTS.md)):")
    table = md_table(["case", "elements", "GB/s", "x NumPy", "x PyTorch"], rows)
    goals = "\n".join(f"- {line}" for line in goal_lines(data))
    return f"{head}\n\n{table}\n\nGoals, as measured in that run:\n\n{goals}"


@generator("math-speed")
def gen_math_speed() -> str:
    """docs/math.md's table: every math library function against NumPy (and PyTorch) at one
    and at the most threads, from the newest run in benchmarks/results/ that has the
    array_api op's math cases at two thread counts or more."""
    import json
    results = DOCS.parent / "benchmarks" / "results"
    unary = _need("npu_emu.bench.cases", "MATH_UNARY")
    binary = _need("npu_emu.bench.cases", "MATH_BINARY")
    functions = [*unary, *binary]
    chosen = None
    for path in sorted(results.glob("*.json")) if results.is_dir() else []:
        data = json.loads(path.read_text())
        cases = [c for c in data.get("cases", []) if c.get("op") == "array_api"
                 and c.get("variant") in functions and c.get("threads")]
        # the newest by the run's own date (two runs of a day sort by name in any order)
        when = data.get("provenance", {}).get("date", "")
        if len({c["threads"] for c in cases}) >= 2 and (chosen is None or when >= chosen[0]):
            chosen = when, path, data, cases
    if chosen is None:
        raise DocgenError(f"no run of the array_api op's math cases at two thread counts in {results}")
    _, path, data, cases = chosen
    prov = data.get("provenance", {})
    fewest = min(c["threads"] for c in cases)
    most = max(c["threads"] for c in cases)
    by = {(c["variant"], c["dtype"], c["threads"]): c for c in cases}
    dtypes = [d for d in ("f32", "f64", "f16", "bf16") if any(k[1] == d for k in by)]

    def ms(c: dict | None) -> str:
        return f"{c['ours']['median_s'] * 1e3:.2f}" if c else "-"

    def ratio(c: dict | None, peer: str) -> str:
        r = (c or {}).get("ratios", {}).get(peer)
        return f"{r:.2f}" if r else "-"
    rows = []
    for dt in dtypes:
        for f in functions:
            one, many = by.get((f, dt, fewest)), by.get((f, dt, most))
            if one is None and many is None:
                continue
            numpy = (one or many)["peers"].get("numpy", {}).get("median_s")
            rows.append([f, dt, ms(one), ms(many), f"{numpy * 1e3:.2f}" if numpy else "-",
                         ratio(one, "numpy"), ratio(many, "numpy"), ratio(one, "torch"),
                         ratio(many, "torch")])
    size = _need("npu_emu.bench.common", "format_count")(cases[0]["numel"])
    head = (f"{prov.get('backend')} backend, {str(prov.get('date'))[:10]}, {prov.get('cpu_model')} "
            f"({prov.get('cpu_count')} CPUs), {size} elements, from "
            f"`benchmarks/results/{path.name}` (`npu-emu bench --ops array_api --threads`; "
            f"ratios are the peer's time over ours, timed in turns: above 1, ours is faster; "
            f"NumPy on one thread with `out=`, PyTorch on as many threads as ours):")
    table = md_table(["function", "dtype", f"ours, {fewest} thread ms", f"ours, {most} threads ms",
                      "NumPy ms", f"x NumPy, {fewest}", f"x NumPy, {most}",
                      f"x PyTorch, {fewest}", f"x PyTorch, {most}"], rows)
    return f"{head}\n\n{table}"


# ----------------------------------------------------------------------------- C ABI

@generator("capi-exports")
def gen_capi_exports() -> str:
    """Every function the C libraries export (the headers' declarations), with its header
    and the facade function it forwards to."""
    exported = _need("npu_emu.capi._gen", "exported")
    counterpart = _need("npu_emu.capi._gen", "python_counterpart")
    rows = [[f"`{name}`", f"`{header}`", f"`npu_emu.{counterpart(name)}`"]
            for name, header in exported()]
    return md_table(["C function", "header", "forwards to"], rows)


# --------------------------------------------------------------------------- driver

def render(text: str, where: str = "") -> str:
    """`text` with every generated block filled in again."""
    def fill(m: re.Match) -> str:
        try:
            make = generator_for(m.group(2))
        except DocgenError as exc:
            raise DocgenError(f"{where}: {exc}") from None
        # Blank lines around the table: markdown then never reads a marker as part of it.
        return m.group(1) + "\n" + make().strip() + "\n\n" + m.group(4)
    return BLOCK.sub(fill, text)


def doc_files(docs: Path = DOCS) -> list[Path]:
    """The pages with generated blocks: docs/*.md, and the README beside docs/."""
    if not docs.is_dir():
        raise DocgenError(f"{docs} does not exist: run from a source checkout of npu_emu")
    readme = docs.parent / "README.md"
    return sorted(docs.glob("*.md")) + ([readme] if readme.is_file() else [])


def stale(docs: Path = DOCS) -> list[str]:
    """The blocks whose text differs from what the generators give now ("file: block")."""
    out = []
    for path in doc_files(docs):
        text = path.read_text()
        fresh = render(text, path.name)
        if fresh != text:
            old = {m.group(2): m.group(3) for m in BLOCK.finditer(text)}
            new = {m.group(2): m.group(3) for m in BLOCK.finditer(fresh)}
            out += [f"{path.name}: {name}" for name in new if old.get(name) != new[name]]
    return out


def used_blocks(docs: Path = DOCS) -> dict[str, list[str]]:
    """Block name -> files that hold it."""
    out: dict[str, list[str]] = {}
    for path in doc_files(docs):
        for m in BLOCK.finditer(path.read_text()):
            out.setdefault(m.group(2), []).append(path.name)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m npu_emu._docgen", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale blocks (exit 1)")
    args = ap.parse_args(argv)
    try:
        if args.check:
            bad = stale()
            for line in bad:
                print(f"stale: {line}")
            if bad:
                print("run: python -m npu_emu._docgen", file=sys.stderr)
            return 1 if bad else 0
        for path in doc_files():
            text = path.read_text()
            fresh = render(text, path.name)
            if fresh != text:
                path.write_text(fresh)
                print(f"updated {path.relative_to(DOCS.parent)}")
        return 0
    except DocgenError as exc:
        print(f"npu_emu._docgen: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
