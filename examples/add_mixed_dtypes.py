"""aclnnAdd with mixed dtypes (docs/dtypes.md, docs/operators.md): float16 + float32 computes in float32;
int8 + uint8 in int16; alpha follows CANN's branches; a result that may not be converted to
out's dtype is refused in phase one, as on the NPU."""
import numpy as np

import npu_emu
from npu_emu import aclnn, device
from npu_emu.aclnn import aclDataType as DT


def add(a, b, out, alpha=1.0, alpha_dtype=DT.ACL_FLOAT):
    scalar = aclnn.aclCreateScalar(alpha, alpha_dtype)
    try:
        ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(a, b, scalar, out)
        if ret != 0:
            return ret
        workspace = device.empty([ws], DT.ACL_UINT8) if ws else None
        return aclnn.aclnnAdd(workspace.data if ws else None, ws, ex, None)
    finally:
        aclnn.aclDestroyScalar(scalar)


def main():
    a = device.from_numpy(np.array([[1.5, 2.25, -3.0]], dtype=np.float16))     # (1, 3) f16
    b = device.from_numpy(np.array([[0.1], [1e-4], [65504.0]], dtype=np.float32))  # (3, 1) f32
    out32 = device.empty([3, 3], DT.ACL_FLOAT)
    out16 = device.empty([3, 3], DT.ACL_FLOAT16)
    print("promote(f16, f32) =", npu_emu.promote_types(DT.ACL_FLOAT16, DT.ACL_FLOAT).name)
    assert add(a, b, out32) == 0
    print("f16 (1,3) + f32 (3,1) -> f32 out:\n", device.to_numpy(out32))
    assert add(a, b, out16) == 0
    print("the same into an f16 out (computed in f32, rounded once to f16; 65504 + 2.25 rounds to 65504):\n",
          device.to_numpy(out16))
    assert add(a, b, out16, alpha=2.5) == 0
    print("with alpha = 2.5 (Axpy: f16 computed in f32):\n", device.to_numpy(out16))

    i8 = device.from_numpy(np.array([100, -100, 127], dtype=np.int8))
    u8 = device.from_numpy(np.array([200, 200, 255], dtype=np.uint8))
    out16i = device.empty([3], DT.ACL_INT16)
    ret = add(i8, u8, out16i)  # alpha is a float scalar here
    print(f"int8 + uint8 with a float alpha -> {ret}: {aclnn.aclGetRecentErrMsg()}")
    assert add(i8, u8, out16i, alpha=1, alpha_dtype=DT.ACL_INT64) == 0
    print("int8 + uint8 with an integer alpha -> int16:", device.to_numpy(out16i))

    out_i32 = device.empty([3, 3], DT.ACL_INT32)
    ret = add(a, b, out_i32)
    print(f"f32 result into an int32 out -> {ret}: {aclnn.aclGetRecentErrMsg()}")
    u16 = device.from_numpy(np.array([1, 2, 3], dtype=np.uint16))
    ret = add(i8, u16, out16i)
    print(f"int8 + uint16 -> {ret}: {aclnn.aclGetRecentErrMsg()}")


if __name__ == "__main__":
    main()
