"""The plan cache of the operator core: a call seen before skips the checks and the planning
(the launches are shared), and nothing a fresh plan would refuse is let through."""
from __future__ import annotations

import numpy as np

import npu_emu.acl as acl
from npu_emu import aclnn, device
from npu_emu import aclDataType as DT
from npu_emu.ops import _core
from npu_emu.status import ACLNN_ERR_PARAM_INVALID


def _add(x, y, out, alpha):
    return aclnn.aclnnAddGetWorkspaceSize(x, y, aclnn.aclCreateScalar(alpha, DT.ACL_FLOAT), out)


def test_a_repeated_call_shares_the_launches_but_not_the_plan(cpu_backend):
    x = device.from_numpy(np.ones(8, np.float32))
    out = device.empty([8], DT.ACL_FLOAT)
    _, ex1, r1 = _add(x, x, out, 2.0)
    _, ex2, r2 = _add(x, x, out, 2.0)
    assert r1 == r2 == 0
    assert ex1.plan is not ex2.plan and ex1.plan.launches is ex2.plan.launches
    assert aclnn.aclnnAdd(None, 0, ex2, None) == 0
    np.testing.assert_array_equal(device.to_numpy(out), np.full(8, 3, np.float32))


def test_signed_zero_attributes_are_different_keys(cpu_backend):
    x = device.from_numpy(np.array([-0.0, -0.0], np.float32))
    y = device.from_numpy(np.array([1.0, 1.0], np.float32))
    out = device.empty([2], DT.ACL_FLOAT)
    for alpha in (0.0, -0.0):          # x + alpha*y: -0 + 0*1 = +0, -0 + -0*1 = -0
        ws, ex, ret = _add(x, y, out, alpha)
        assert ret == 0 and aclnn.aclnnAdd(None, ws, ex, None) == 0
        got = device.to_numpy(out)
        assert np.signbit(got).tolist() == [np.signbit(np.float32(-0.0) + np.float32(alpha))] * 2


def test_a_hit_refuses_destroyed_handles_and_freed_memory(cpu_backend):
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    p, _ = acl.rt.malloc(32)
    q, _ = acl.rt.malloc(32)
    x = aclnn.aclCreateTensor([8], DT.ACL_FLOAT, None, 0, 2, [8], p)
    y = aclnn.aclCreateTensor([8], DT.ACL_FLOAT, None, 0, 2, [8], q)
    assert aclnn.aclnnMulGetWorkspaceSize(x, x, y)[2] == 0        # cached
    aclnn.aclDestroyTensor(x)
    assert aclnn.aclnnMulGetWorkspaceSize(x, x, y)[2] == ACLNN_ERR_PARAM_INVALID
    x2 = aclnn.aclCreateTensor([8], DT.ACL_FLOAT, None, 0, 2, [8], p)
    _, ex_a, ret = aclnn.aclnnMulGetWorkspaceSize(x2, x2, y)
    assert ret == 0
    assert acl.rt.free(q) == 0
    assert aclnn.aclnnMulGetWorkspaceSize(x2, x2, y)[2] == ACLNN_ERR_PARAM_INVALID   # freed
    q2, _ = acl.rt.malloc(32)
    assert q2 == q                                                # the same block, reused
    _, ex_b, ret = aclnn.aclnnMulGetWorkspaceSize(x2, x2, y)     # a hit on the new block
    assert ret == 0
    assert aclnn.aclnnMul(None, 0, ex_b, None) == 0
    assert aclnn.aclnnMul(None, 0, ex_a, None) == ACLNN_ERR_PARAM_INVALID   # A's block is gone
    assert "freed" in aclnn.aclGetRecentErrMsg()


def test_the_cache_is_bounded_and_can_be_cleared(cpu_backend):
    x = device.from_numpy(np.ones(4, np.float32))
    for n in range(_core.PLAN_CACHE_SIZE + 10):
        out = device.empty([4], DT.ACL_FLOAT)
        assert aclnn.aclnnMulGetWorkspaceSize(x, x, out)[2] == 0
    assert len(_core._plan_cache) <= _core.PLAN_CACHE_SIZE
    _core.clear_plan_cache()
    assert not _core._plan_cache
