"""The fuzz worker: a persistent process that runs cases one at a time.

Protocol (runner.py): the worker reads JSON lines {"id": n, "case": {...}} on stdin and
answers on its own channel (the original stdout; the library's prints go to stderr):
{"ready": ...} once, then for each case {"start": n} before running it and {"done": n,
"result": {...}} after. A crash or a hang therefore leaves the runner knowing which case.

Run one case by hand (the reproducer line the suite prints):

    NPU_EMU_DEVICE=cpu python tests/fuzz/worker.py --case '{"entry": ...}'
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
os.environ.setdefault("NPU_EMU_DEVICE", "cpu")

import npu_emu  # noqa: E402
import npu_emu.acl as acl  # noqa: E402

from fuzz import acl_cases, create_cases, exec_cases, op_cases, selftest_cases  # noqa: E402
from fuzz import spec as S  # noqa: E402
from fuzz.harness import Ctx, leak_check, pool_balance  # noqa: E402

DISPATCH = {
    "aclCreateTensor": create_cases.create_tensor,
    "aclCreateScalar": create_cases.create_scalar,
    **{name: create_cases.create_array for name in create_cases.ARRAYS},
    **{"aclnn" + op: op_cases.run for op in S.OPS},
    "aclnnNpuFormatCastCalculateSizeAndFormat": None,   # set below
    "executor": exec_cases.executor_case,
    "rebind": exec_cases.rebind_case,
    "acl.init/finalize": acl_cases.lifecycle_case,
    "acl.rt.set_device/reset_device": acl_cases.device_case,
    "acl.rt.malloc": acl_cases.malloc_case,
    "acl.rt.memcpy": acl_cases.memcpy_case,
    "acl.rt.memcpy_async": acl_cases.memcpy_case,
    "acl.rt.memset": acl_cases.memset_case,
    "acl.rt.stream": acl_cases.stream_case,
    "acl.rt.event": acl_cases.event_case,
    "_selftest": selftest_cases.selftest_case,
}


def _calc_case(ctx: Ctx) -> None:
    from fuzz.calc_cases import calc_case
    calc_case(ctx)


DISPATCH["aclnnNpuFormatCastCalculateSizeAndFormat"] = _calc_case


def restore() -> None:
    """Every case starts from an initialized runtime on device 0 and the default SoC."""
    npu_emu.set_soc(S.DEFAULT_SOC)
    acl.init()
    acl.rt.set_device(0)


def run_case(case: dict) -> dict:
    ctx = Ctx(case)
    before = pool_balance()
    try:
        DISPATCH[case["entry"]](ctx)
    except BaseException as exc:  # noqa: BLE001 -- a bug of the harness, reported as such
        ctx.defect("harness_error", case["entry"], f"{ctx.mut_kind}: {type(exc).__name__}",
                   traceback.format_exc()[-1500:])
    finally:
        ctx.finish()
        try:
            restore()
        except BaseException as exc:  # noqa: BLE001
            ctx.defect("harness_error", "restore", type(exc).__name__, repr(exc))
    leak_check(ctx, before)
    return {"defects": [d.__dict__ for d in ctx.defects], "calls": dict(ctx.calls),
            "values_compared": ctx.values_compared}


WARM_UP = [  # one valid call of each kernel module, so the first real case is not a compile
    {"entry": "aclnnAdd", "soc": "Ascend910B", "seed": 1, "mut": None, "args": {
        "tensors": {n: {"dtype": S.F16 if n == "other" else S.F32, "shape": [2, 3], "strides": None,
                        "offset": 0, "storage": [2, 3], "format": S.ND, "guard": 64}
                    for n in ("self", "other", "out")},
        "alpha": {"value": 2, "dtype": S.S32}, "values": "small", "stream": "none"}},
    {"entry": "aclnnExpand", "soc": "Ascend910B", "seed": 1, "mut": None, "args": {
        "tensors": {"self": {"dtype": S.F32, "shape": [1, 3], "strides": None, "offset": 0, "storage": [1, 3],
                             "format": S.ND, "guard": 64},
                    "out": {"dtype": S.F32, "shape": [2, 3], "strides": None, "offset": 0, "storage": [2, 3],
                            "format": S.ND, "guard": 64}}, "size": [2, 3], "stream": "none"}},
    {"entry": "aclnnMatmul", "soc": "Ascend910B", "seed": 1, "mut": None, "args": {
        "tensors": {n: {"dtype": S.F16, "shape": [4, 4], "strides": None, "offset": 0, "storage": [4, 4],
                        "format": S.ND, "guard": 64} for n in ("self", "mat2", "out")},
        "math": 0, "stream": "none"}},
]


def serve() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                              # stray prints must not corrupt the protocol
    sys.stdout = sys.stderr
    restore()
    for case in WARM_UP:
        run_case(case)
    proto.write(json.dumps({"ready": True, "pid": os.getpid(), "backend": npu_emu.runtime.current().name}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        proto.write(json.dumps({"start": msg["id"]}) + "\n")
        result = run_case(msg["case"])
        proto.write(json.dumps({"done": msg["id"], "result": result}) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "--case":
        restore()
        result = run_case(json.loads(argv[1]))
        for d in result["defects"]:
            print(f"{d['kind']}: {d['sig']}\n    {d['detail']}")
        print(json.dumps({"calls": result["calls"], "defects": len(result["defects"])}))
        return 1 if result["defects"] else 0
    serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
