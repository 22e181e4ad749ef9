"""One operator's trip through npu_emu's layers, printed step by step:

  aclTensor descriptors -> the operator's checks (CANN's, in CANN's order) -> the plan
  (kernel launches with their grid, block and parameters, the workspace) -> the backend that
  enqueues them -> the result, checked against NumPy.

The operator is aclnnAdd on a broadcast, non-contiguous, mixed-dtype case, the kind of call
where the NPU's rules (promotion, conversion, strides) decide the bits.
Run: python examples/walkthrough.py
"""
from __future__ import annotations

import numpy as np

import npu_emu
from npu_emu import aclnn, device
from npu_emu import aclDataType as DT
from npu_emu.ops._core import current_context, prepare
from npu_emu.runtime.base import Workspace


def section(title: str) -> None:
    print(f"\n--- {title} " + "-" * max(0, 66 - len(title)))


# 1. Descriptors. `self` is a transposed (non-contiguous) float16 view; `other` a float32 row
#    that broadcasts; out is float32. Device memory comes from the pool.
a_host = np.arange(12, dtype=np.float16).reshape(4, 3)
b_host = np.array([[10.0, 20.0, 30.0, 40.0]], dtype=np.float32)
a_dev = device.from_numpy(a_host)                           # (4, 3), contiguous
self = device.view(a_dev, [3, 4], [1, 3], 0)                # its transpose: strides (1, 3)
other = device.from_numpy(b_host)                           # (1, 4)
out = device.empty([3, 4], DT.ACL_FLOAT)
alpha = aclnn.aclCreateScalar(2.0, DT.ACL_FLOAT)
section("1. aclTensor descriptors")
for name, t in (("self", self), ("other", other), ("out", out)):
    print(f"{name:>5}: {t}")

# 2. The operator's definition and the context its plan depends on.
op = aclnn.OPERATORS["aclnnAdd"]
ctx = current_context()
section("2. the operator and its context")
print(f"aclnn{op.name}GetWorkspaceSize({', '.join(p.name for p in op.params)}): {op.summary}")
print(f"context: backend={ctx.backend.name}, SoC={ctx.soc.name}, rules={ctx.rules.name!r}")
shape, dtype = op.infer((self, other), {"alpha": alpha}, ctx)
print(f"infer: out shape {list(shape)}, computed in {dtype.name} "
      f"(float16 with float32 promotes to float32)")

# 3. Phase one: checks then plan. Every launch names its kernel, grid, block and the packed
#    parameter struct (sizes and strides after coalescing, innermost dim first).
section("3. phase one: checks, then the plan")
plan = prepare(op, (self, other), (out,), {"alpha": alpha}, ctx)
print(f"workspace: {plan.workspace_size} bytes; memory checked: "
      + ", ".join(f"{t.name} ({t.nbytes} B)" for t, _ in plan.memory))
for i, launch in enumerate(plan.launches):
    print(f"launch {i}: kernel {launch.kernel.name}, grid {launch.grid}, block {launch.block}")
    params = launch.args[0]
    if params.dtype.names and "ndim" in params.dtype.names:
        nd = int(params["ndim"])
        print(f"          numel {int(params['numel'])}, sizes {params['size'][:nd].tolist()}, "
              f"strides per operand {[s[:nd].tolist() for s in params['stride']]}")
    pointers = ["workspace+%d" % a.offset if isinstance(a, Workspace) else hex(int(a))
                for a in launch.args[1:] if isinstance(a, (Workspace, np.uint64))]
    print(f"          pointers {pointers}")
print("(self is float16, so it is first converted into the workspace: the NPU computes in the "
      "promoted type)")

# 4. The same through the C-style facade: the pair aclnn builds from the same table, then
#    phase two enqueues on the default stream of the backend.
section("4. the C-style facade and the backend")
ws_size, executor, ret = aclnn.aclnnAddGetWorkspaceSize(self, other, alpha, out)
print(f"aclnnAddGetWorkspaceSize -> workspace {ws_size}, {executor}, ret {ret}")
workspace = device.empty([max(ws_size, 1)], DT.ACL_UINT8)
ret = aclnn.aclnnAdd(workspace.data if ws_size else None, ws_size, executor, None)
print(f"aclnnAdd -> ret {ret}, enqueued on the {ctx.backend.name} backend's default stream")
for key, value in ctx.backend.info().items():
    if key in ("backend", "device", "compiler", "cache_dir"):
        print(f"  {key}: {value}")

# 5. The result, against NumPy's reading of the same rules.
section("5. the result")
result = device.to_numpy(out)              # synchronizes the stream, copies the view
expected = a_host.T.astype(np.float32) + np.float32(2.0) * b_host
print(result)
assert np.array_equal(result, expected), (result, expected)
print("equal to NumPy's a.T.astype(float32) + 2 * b, bit for bit")
print(f"pool: {npu_emu.memory_stats()}")
aclnn.aclDestroyScalar(alpha)
