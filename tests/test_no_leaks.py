"""Operators never leak pool memory: after many successful and failing calls, and after the
tensors made for them are gone, the pool is back where it started."""
from __future__ import annotations

import gc

import numpy as np

import npu_emu
from npu_emu import aclnn, device
from npu_emu.dtypes import aclDataType as DT


def _cycle():
    a = device.from_numpy(np.arange(64, dtype=np.float32).reshape(8, 8))
    b = device.from_numpy(np.ones((1, 8), np.float16))
    out = device.empty([8, 8], DT.ACL_FLOAT)
    calls = [
        (aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, (a, b, aclnn.aclCreateScalar(2.0, DT.ACL_FLOAT), out)),
        (aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, (a, b, out)),
        (aclnn.aclnnExpandGetWorkspaceSize, aclnn.aclnnExpand, (b, aclnn.aclCreateIntArray([8, 8]), device.empty([8, 8], DT.ACL_FLOAT16))),
        (aclnn.aclnnInplaceCopyGetWorkspaceSize, aclnn.aclnnInplaceCopy, (out, b)),
        (aclnn.aclnnCastGetWorkspaceSize, aclnn.aclnnCast, (a, DT.ACL_BF16, device.empty([8, 8], DT.ACL_BF16))),
        (aclnn.aclnnAddGetWorkspaceSize, aclnn.aclnnAdd, (a, b, None, out)),             # fails: null alpha
        (aclnn.aclnnMulGetWorkspaceSize, aclnn.aclnnMul, (a, device.empty([3], DT.ACL_FLOAT), out)),  # fails: shape
    ]
    for first, second, args in calls:
        ws, ex, ret = first(*args)
        if ret == 0:
            wsp = device.empty([ws], DT.ACL_UINT8) if ws else None
            assert second(wsp.data if wsp else None, ws, ex, None) == 0
    npu_emu.format_cast(a, "FRACTAL_NZ")


def test_operators_leave_the_pool_as_they_found_it(backend):
    _cycle()  # warm up: kernel modules, caches
    gc.collect()
    backend.synchronize()
    before = npu_emu.memory_stats()
    for _ in range(20):
        _cycle()
    gc.collect()
    backend.synchronize()
    after = npu_emu.memory_stats()
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["allocations"] == before["allocations"]
    # cached blocks are reused, not piled up
    assert after["bytes_cached"] <= before["bytes_cached"] + 64 * 1024
