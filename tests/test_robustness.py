"""The C-style layer under hostile input (the reproducers of the robustness issue, as tests):
every call returns its documented code and a message naming the parameter, never raises,
never crashes or hangs the process, never writes outside the output view.

Cases that crashed or hung before run in a subprocess, so a regression is a failed test, not
a dead test run."""
from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn, device
from npu_emu import aclDataType as DT
from npu_emu import aclFormat as F
from npu_emu.fractal import Layout, LayoutTensor
from npu_emu.status import (AclnnError, ACL_ERROR_BAD_ALLOC, ACL_ERROR_INVALID_PARAM,
                            ACL_ERROR_REPEAT_INITIALIZE, ACL_ERROR_RT_CONTEXT_NULL,
                            ACL_ERROR_UNINITIALIZE, ACLNN_ERR_PARAM_INVALID,
                            ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_RUNTIME_ERROR)

ND = F.ACL_FORMAT_ND


@pytest.fixture(autouse=True)
def _runtime(cpu_backend):
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    aclnn.aclGetRecentErrMsg()          # start with no messages kept
    yield


def _malloc(n: int) -> int:
    ptr, ret = acl.rt.malloc(n)
    assert ret == 0
    return ptr


def _upload(values: np.ndarray) -> int:
    ptr = _malloc(max(values.nbytes, 1))
    assert acl.rt.memcpy(ptr, values.nbytes, values, values.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    return ptr


def _download(ptr: int, nbytes: int) -> np.ndarray:
    out = np.empty(nbytes, np.uint8)
    assert acl.rt.memcpy(out, nbytes, ptr, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return out


def _tensor(shape, ptr, dtype=DT.ACL_FLOAT, strides=None, offset=0, fmt=ND, storage=None):
    t = aclnn.aclCreateTensor(list(shape), dtype, strides, offset, fmt,
                              list(storage if storage is not None else shape), ptr)
    assert t is not None, aclnn.aclGetRecentErrMsg()
    return t


def _run_child(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run a script in a fresh interpreter on the cpu backend; a crash is a negative exit."""
    env = dict(os.environ, NPU_EMU_DEVICE="cpu")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env)


# ------------------------------------------------------------- 1. acl.rt.memset

def test_memset_bad_counts_and_values_are_refused_without_a_crash():
    r = _run_child("""
        import json, npu_emu.acl as acl
        acl.init(); acl.rt.set_device(0)
        d, _ = acl.rt.malloc(64)
        codes = {"count=1.5": acl.rt.memset(d, 64, 7, 1.5), "value='a'": acl.rt.memset(d, 64, "a", 4),
                 "count=None": acl.rt.memset(d, 64, 0, None), "count=-1": acl.rt.memset(d, 64, 0, -1),
                 "value=256": acl.rt.memset(d, 64, 256, 4), "count>maxCount": acl.rt.memset(d, 8, 0, 16),
                 "past the block": acl.rt.memset(d, 1 << 20, 0, 1 << 20)}
        print(json.dumps(codes))
    """)
    assert r.returncode == 0, r.stderr
    codes = json.loads(r.stdout)
    assert codes == {k: ACL_ERROR_INVALID_PARAM for k in codes}, codes


def test_memset_sets_exactly_count_bytes():
    d = _upload(np.zeros(64, np.uint8))
    assert acl.rt.memset(d, 64, 0xAB, 10) == 0
    back = _download(d, 64)
    assert (back[:10] == 0xAB).all() and not back[10:].any()
    assert acl.rt.memset(d, 64, np.uint8(3), np.int64(2)) == 0     # NumPy integers are ints
    assert (_download(d, 64)[:2] == 3).all()


# ----------------------------------------------------- 2. use after free in phase two

def test_phase_two_refuses_memory_freed_and_handed_to_someone_else():
    n = 1024
    src = _upload(np.arange(1, n + 1, dtype=np.float32))
    dst = _malloc(4 * n)
    x, y = _tensor([n], src), _tensor([n], dst)
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(y, x)
    assert ret == 0
    assert acl.rt.free(dst) == 0
    victim = _upload(np.zeros(n, np.float32))
    assert victim == dst                      # the pool gave the freed block to another user
    assert aclnn.aclnnInplaceCopy(None, ws, ex, None) == ACLNN_ERR_PARAM_INVALID
    msg = aclnn.aclGetRecentErrMsg()
    assert "selfRef" in msg and "freed" in msg
    assert acl.rt.synchronize_device() == 0
    assert not _download(victim, 4 * n).any()  # the victim's data is untouched


def test_phase_two_after_free_and_empty_cache_does_not_crash():
    r = _run_child("""
        import npu_emu, npu_emu.acl as acl
        from npu_emu import aclnn, aclDataType as DT, aclFormat as F
        acl.init(); acl.rt.set_device(0)
        n = 1 << 22
        src, _ = acl.rt.malloc(4 * n); dst, _ = acl.rt.malloc(4 * n)
        x = aclnn.aclCreateTensor([n], DT.ACL_FLOAT, None, 0, F.ACL_FORMAT_ND, [n], src)
        y = aclnn.aclCreateTensor([n], DT.ACL_FLOAT, None, 0, F.ACL_FORMAT_ND, [n], dst)
        ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(y, x)
        acl.rt.free(dst); npu_emu.empty_cache()
        print(aclnn.aclnnInplaceCopy(None, ws, ex, None), acl.rt.synchronize_device())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(ACLNN_ERR_PARAM_INVALID), "0"]


def test_a_rebound_executor_runs_on_its_new_memory_after_the_old_is_freed():
    n = 16
    src = _upload(np.arange(n, dtype=np.float32))
    old, new = _malloc(4 * n), _malloc(4 * n)
    x, y = _tensor([n], src), _tensor([n], old)
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(y, x)
    assert aclnn.aclSetAclOpExecutorRepeatable(ex) == 0
    assert acl.rt.free(old) == 0
    assert aclnn.aclSetOutputTensorAddr(ex, 0, y, new) == 0
    assert aclnn.aclnnInplaceCopy(None, ws, ex, None) == 0
    assert acl.rt.synchronize_device() == 0
    np.testing.assert_array_equal(_download(new, 4 * n).view(np.float32), np.arange(n, dtype=np.float32))


# ----------------------------------------------------- 3. outputs whose elements alias

def test_an_output_with_stride_zero_is_refused_naming_it():
    p, q = _malloc(4), _malloc(64)
    x = _tensor([1], p)
    small = _tensor([4, 4], q, strides=[4, 0], storage=[16])
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(x, aclnn.aclCreateIntArray([4, 4]), small)
    assert (ex, ret) == (None, ACLNN_ERR_PARAM_INVALID)
    msg = aclnn.aclGetRecentErrMsg()
    assert "Tensor out" in msg and "stride 0" in msg


def test_interleaved_strides_that_alias_are_refused_and_disjoint_ones_accepted():
    q = _malloc(4 * 64)
    src = device.from_numpy(np.ones((2, 3), np.float32))
    aliasing = _tensor([2, 3], q, strides=[1, 1], storage=[64])   # (0,1) and (1,0) share
    assert aclnn.aclnnInplaceCopyGetWorkspaceSize(aliasing, src)[2] == ACLNN_ERR_PARAM_INVALID
    assert "overlap" in aclnn.aclGetRecentErrMsg()
    disjoint = _tensor([2, 3], q, strides=[3, 2], storage=[64])   # 0,2,4 and 3,5,7: disjoint
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(disjoint, src)
    assert ret == 0
    assert aclnn.aclnnInplaceCopy(None, ws, ex, None) == 0


def test_a_huge_aliasing_output_is_refused_at_once_not_run():
    r = _run_child("""
        import npu_emu.acl as acl
        from npu_emu import aclnn, aclDataType as DT, aclFormat as F
        acl.init(); acl.rt.set_device(0)
        p, _ = acl.rt.malloc(4); q, _ = acl.rt.malloc(4)
        x = aclnn.aclCreateTensor([1], DT.ACL_FLOAT, None, 0, F.ACL_FORMAT_ND, [1], p)
        for n in (2**20, 2**32):
            y = aclnn.aclCreateTensor([n, n], DT.ACL_FLOAT, [0, 0], 0, F.ACL_FORMAT_ND, [1], q)
            print(aclnn.aclnnExpandGetWorkspaceSize(x, aclnn.aclCreateIntArray([n, n]), y)[2])
    """, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(ACLNN_ERR_PARAM_INVALID)] * 2


# ----------------------------------------------------- 4. private formats with an offset

def test_a_private_format_with_a_storage_offset_is_refused_and_nothing_is_written():
    src = _upload(np.ones(16, np.float16))
    blk = _upload(np.full(576, 0xCD, np.uint8))
    s = _tensor([1, 16], src, DT.ACL_FLOAT16)
    shape, fmt, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(s, F.ACL_FORMAT_FRACTAL_NZ, -1)
    assert (shape, fmt, ret) == ([1, 1, 16, 16], F.ACL_FORMAT_FRACTAL_NZ, 0)
    assert isinstance(fmt, F) and str(fmt) == "ACL_FORMAT_FRACTAL_NZ"
    dst = _tensor([1, 16], blk, DT.ACL_FLOAT16, offset=4, fmt=fmt, storage=shape)
    ws, ex, ret = aclnn.aclnnNpuFormatCastGetWorkspaceSize(s, dst)
    assert ret == ACLNN_ERR_PARAM_INVALID
    assert "storage_offset" in aclnn.aclGetRecentErrMsg()
    assert (_download(blk, 576) == 0xCD).all()


def test_format_cast_refuses_a_public_format_of_another_rank():
    src = _upload(np.ones(16, np.float16))
    s = _tensor([4, 4], src, DT.ACL_FLOAT16, fmt=F.ACL_FORMAT_NCHW)   # NCHW needs 4 dims
    assert aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(s, F.ACL_FORMAT_FRACTAL_NZ, -1)[2] == ACLNN_ERR_PARAM_INVALID
    assert "NCHW" in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------- 5. escaped exceptions

@pytest.mark.parametrize("fmt", [29.7, float("inf"), np.float64("-inf"), "29", None, [29]])
def test_calculate_size_refuses_a_format_that_is_not_an_acl_format(fmt):
    x = aclnn.aclCreateTensor([16, 16], DT.ACL_FLOAT16, None, 0, ND, [16, 16], None)
    assert aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(x, fmt, -1) == (None, None, ACLNN_ERR_PARAM_INVALID)
    assert "dstFormat" in aclnn.aclGetRecentErrMsg()


def test_rebind_with_bad_index_or_address_returns_codes_and_keeps_the_executor_usable():
    p = _upload(np.arange(4, dtype=np.float32))
    q = _malloc(16)
    x, y = _tensor([4], p), _tensor([4], q)
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(x, x, aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT), y)
    assert aclnn.aclSetAclOpExecutorRepeatable(ex) == 0
    cases = [("0", p, ACLNN_ERR_PARAM_INVALID), (None, p, ACLNN_ERR_PARAM_INVALID),
             (0, "0x10", ACLNN_ERR_PARAM_INVALID), (0, float("inf"), ACLNN_ERR_PARAM_INVALID),
             (5, p, ACLNN_ERR_PARAM_INVALID), (-1, p, ACLNN_ERR_PARAM_INVALID),
             (0, 0x1234, ACLNN_ERR_PARAM_INVALID), (True, p, ACLNN_ERR_PARAM_INVALID)]
    for index, addr, code in cases:
        assert aclnn.aclSetInputTensorAddr(ex, index, x, addr) == code, (index, addr)
        assert aclnn.aclGetRecentErrMsg()
    assert ex.inputs[0].data == p              # a refused rebind changes nothing
    assert aclnn.aclSetOutputTensorAddr(ex, 0, y, "x") == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclSetInputTensorAddr(ex, 1, x, p) == 0
    assert aclnn.aclnnAdd(None, ws, ex, None) == 0
    assert acl.rt.synchronize_device() == 0
    np.testing.assert_array_equal(_download(q, 16).view(np.float32), 2 * np.arange(4, dtype=np.float32))


def test_rebind_refuses_a_tensor_of_another_geometry():
    p, q = _upload(np.ones(4, np.float32)), _malloc(16)
    x, y = _tensor([4], p), _tensor([4], q)
    ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(x, x, y)
    aclnn.aclSetAclOpExecutorRepeatable(ex)
    other = _tensor([2, 2], p)
    assert aclnn.aclSetInputTensorAddr(ex, 0, other, p) == ACLNN_ERR_PARAM_INVALID
    assert "input 0" in aclnn.aclGetRecentErrMsg()


# ------------------------------------------------------------------ 6. code families

@pytest.mark.parametrize("stream", [5, "abc", 1.5, object()])
def test_phase_two_with_a_non_stream_is_an_aclnn_code(stream):
    p, q = _upload(np.ones(4, np.float32)), _malloc(16)
    x, y = _tensor([4], p), _tensor([4], q)
    ws, ex, _ = aclnn.aclnnAddGetWorkspaceSize(x, x, aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT), y)
    assert aclnn.aclnnAdd(None, ws, ex, stream) == ACLNN_ERR_PARAM_INVALID
    assert "stream" in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("workspace, size, name", [("abc", 0, "workspace"), (None, "abc", "workspaceSize"),
                                                   (None, float("inf"), "workspaceSize"),
                                                   (None, -1, "workspaceSize"), (1.5, 0, "workspace")])
def test_phase_two_with_a_bad_workspace_is_161002(workspace, size, name):
    p, q = _upload(np.ones(4, np.float32)), _malloc(16)
    x, y = _tensor([4], p), _tensor([4], q)
    ws, ex, _ = aclnn.aclnnAddGetWorkspaceSize(x, x, aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT), y)
    assert aclnn.aclnnAdd(workspace, size, ex, None) == ACLNN_ERR_PARAM_INVALID
    assert name in aclnn.aclGetRecentErrMsg()


def test_destroyed_streams_are_refused_with_acl_codes():
    s, ret = acl.rt.create_stream()
    assert ret == 0
    assert acl.rt.destroy_stream(s) == 0
    assert acl.rt.destroy_stream(s) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream(s) == ACL_ERROR_INVALID_PARAM
    p = _malloc(16)
    h = np.zeros(4, np.float32)
    assert acl.rt.memcpy_async(p, 16, h, 16, acl.ACL_MEMCPY_HOST_TO_DEVICE, s) == ACL_ERROR_INVALID_PARAM
    ev, _ = acl.rt.create_event()
    assert acl.rt.record_event(ev, s) == ACL_ERROR_INVALID_PARAM
    x = _tensor([4], p)
    ws, ex, _ = aclnn.aclnnMulGetWorkspaceSize(x, x, _tensor([4], _malloc(16)))
    assert aclnn.aclnnMul(None, ws, ex, s) == ACLNN_ERR_PARAM_INVALID   # the aclnn family's code


def test_sizes_past_int64_are_invalid_parameters_not_internal_errors():
    p, q = _malloc(64), _malloc(1024)
    src = _tensor([3], p)
    ref = _tensor([2**32, 2**32, 3], q, strides=[0, 0, 1], storage=[3])
    assert aclnn.aclnnInplaceCopyGetWorkspaceSize(ref, src)[2] == ACLNN_ERR_PARAM_INVALID
    assert "selfRef" in aclnn.aclGetRecentErrMsg()
    k = 2**62
    s = _tensor([1, k], p, DT.ACL_FLOAT16, strides=[0, 0], storage=[1])
    m = _tensor([k, 1], p, DT.ACL_FLOAT16, strides=[0, 0], storage=[1])
    o = _tensor([1, 1], q, DT.ACL_FLOAT16)
    assert aclnn.aclnnMatmulGetWorkspaceSize(s, m, o, 0)[2] == ACLNN_ERR_PARAM_INVALID
    assert "fit in int64" in aclnn.aclGetRecentErrMsg()
    a = LayoutTensor((16, 0), DT.ACL_FLOAT16, (0, 1), 0, F.ACL_FORMAT_UNDEFINED, (1, 0, 16, 16), -4096,
                     None, layout=Layout.ZZ)
    b = LayoutTensor((0, 16), DT.ACL_FLOAT16, (16, 1), 0, F.ACL_FORMAT_UNDEFINED, (0, 1, 16, 16), -4096,
                     None, layout=Layout.ZN)
    c = _tensor([16, 16], q, DT.ACL_FLOAT, fmt=F.ACL_FORMAT_FRACTAL_NZ, storage=[1, 1, 16, 16])
    assert aclnn.aclnnCubeMatmulGetWorkspaceSize(a, b, c)[2] == ACLNN_ERR_PARAM_INVALID
    assert "pointer" in aclnn.aclGetRecentErrMsg()


def test_malloc_sizes():
    assert acl.rt.malloc(2**63)[1] == ACL_ERROR_INVALID_PARAM          # not an int64 size
    assert acl.rt.malloc(2**62)[1] == ACL_ERROR_BAD_ALLOC               # no such memory
    assert acl.rt.malloc(1.5)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.rt.reset_device(np.array([0, 0])) == ACL_ERROR_INVALID_PARAM


def test_memcpy_default_with_a_freed_device_pointer_is_refused_without_a_crash():
    r = _run_child("""
        import numpy as np, npu_emu, npu_emu.acl as acl
        acl.init(); acl.rt.set_device(0)
        d, _ = acl.rt.malloc(1 << 22)
        acl.rt.free(d); npu_emu.empty_cache()
        h = np.ones(1 << 22, np.uint8)
        print(acl.rt.memcpy(d, 1 << 22, h, 1 << 22, acl.ACL_MEMCPY_DEFAULT),
              acl.rt.memcpy(h, 1 << 22, d, 1 << 22, acl.ACL_MEMCPY_DEFAULT))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(ACL_ERROR_INVALID_PARAM)] * 2


def test_memcpy_with_an_unmapped_host_address_is_refused():
    d = _malloc(64)
    assert acl.rt.memcpy(d, 64, 0x10, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM
    assert "host memory" in acl.get_recent_err_msg()
    host = np.arange(64, dtype=np.uint8)                       # a mapped int address is trusted
    assert acl.rt.memcpy(d, 64, acl.util.numpy_to_ptr(host), 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    np.testing.assert_array_equal(_download(d, 64), host)


# ---------------------------------------------------------------- 7. lenient constructors

@pytest.mark.parametrize("value, dtype", [
    (np.str_("a"), DT.ACL_BOOL), (np.str_("1"), DT.ACL_COMPLEX128), (np.void(b"ab"), DT.ACL_BOOL),
    (np.datetime64(1, "D"), DT.ACL_INT8), (np.timedelta64(1), DT.ACL_INT32), (1e300, DT.ACL_INT8),
    (float("inf"), DT.ACL_UINT16), (float("nan"), DT.ACL_INT32), (300, DT.ACL_UINT8),
    (-1, DT.ACL_UINT64), (np.array([1.0]), DT.ACL_FLOAT), (b"1", DT.ACL_INT8),
])
def test_create_scalar_refuses_what_the_dtype_cannot_hold(value, dtype):
    assert aclnn.aclCreateScalar(value, dtype) is None
    assert "value" in aclnn.aclGetRecentErrMsg()


def test_create_scalar_takes_a_zero_d_array_as_cs_pointer_to_value():
    s = aclnn.aclCreateScalar(np.array(2.5), DT.ACL_FLOAT)
    assert s is not None and s.to_python() == 2.5
    s = aclnn.aclCreateScalar(np.array(7, dtype=np.int16), DT.ACL_INT64)
    assert s is not None and s.to_python() == 7
    # float dtypes round as the NPU converts: overflow is infinity (NaN for E4M3FN)
    assert aclnn.aclCreateScalar(1e300, DT.ACL_FLOAT).to_python() == float("inf")


@pytest.mark.parametrize("position, value, param", [
    (0, bytearray(b"\x02\x03"), "view_shape"), (1, np.float32(2.0), "dtype"),
    (1, "float", "dtype"), (1, np.dtype(">f4"), "dtype"), (5, {2: 3}, "storage_shape"),
    (6, -4096, "tensorData"), (6, 2**64, "tensorData"), (0, [2**63, 1], "view_shape"),
])
def test_create_tensor_refuses_lenient_spellings(position, value, param):
    args = [[2, 3], DT.ACL_FLOAT, None, 0, ND, [2, 3], 0x2000]
    args[position] = value
    assert aclnn.aclCreateTensor(*args) is None
    assert param in aclnn.aclGetRecentErrMsg()


# ------------------------------------------------------------------ 8. object lifetimes

def test_a_destroyed_tensor_is_refused_everywhere():
    p = _upload(np.ones(4, np.float32))
    x, y = _tensor([4], p), _tensor([4], _malloc(16))
    assert aclnn.aclDestroyTensor(x) == 0
    assert aclnn.aclDestroyTensor(x) == ACLNN_ERR_PARAM_INVALID
    assert "destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclGetViewShape(x) == (None, ACLNN_ERR_PARAM_INVALID)
    assert aclnn.aclnnMulGetWorkspaceSize(x, y, y)[2] == ACLNN_ERR_PARAM_INVALID
    assert "self" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclCreateTensorList([x]) is None


@pytest.mark.parametrize("make, destroy", [
    (lambda: aclnn.aclCreateScalar(1.0, DT.ACL_FLOAT), aclnn.aclDestroyScalar),
    (lambda: aclnn.aclCreateIntArray([4]), aclnn.aclDestroyIntArray),
    (lambda: aclnn.aclCreateFloatArray([1.0]), aclnn.aclDestroyFloatArray),
    (lambda: aclnn.aclCreateBoolArray([True]), aclnn.aclDestroyBoolArray),
])
def test_other_handles_are_destroyed_once(make, destroy):
    h = make()
    assert destroy(h) == 0
    assert destroy(h) == ACLNN_ERR_PARAM_INVALID
    assert destroy(None) == 0


def test_a_destroyed_scalar_or_int_array_is_refused_by_operators():
    p = _upload(np.ones(4, np.float32))
    x, y = _tensor([4], p), _tensor([4], _malloc(16))
    alpha = aclnn.aclCreateScalar(2.0, DT.ACL_FLOAT)
    aclnn.aclDestroyScalar(alpha)
    assert aclnn.aclnnAddGetWorkspaceSize(x, x, alpha, y)[2] == ACLNN_ERR_PARAM_INVALID
    size = aclnn.aclCreateIntArray([4])
    aclnn.aclDestroyIntArray(size)
    assert aclnn.aclnnExpandGetWorkspaceSize(x, size, y)[2] == ACLNN_ERR_PARAM_INVALID
    assert "size" in aclnn.aclGetRecentErrMsg()


def test_executor_lifetimes():
    p = _upload(np.ones(4, np.float32))
    x, y = _tensor([4], p), _tensor([4], _malloc(16))
    ws, ex, _ = aclnn.aclnnMulGetWorkspaceSize(x, x, y)
    assert aclnn.aclnnMul(None, ws, ex, None) == 0
    assert aclnn.aclnnMul(None, ws, ex, None) == 561102      # a one-shot executor ran already
    assert aclnn.aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID   # released by its run
    ws, ex, _ = aclnn.aclnnMulGetWorkspaceSize(x, x, y)
    assert aclnn.aclSetAclOpExecutorRepeatable(ex) == 0
    assert aclnn.aclnnMul(None, ws, ex, None) == 0
    assert aclnn.aclnnMul(None, ws, ex, None) == 0
    assert aclnn.aclDestroyAclOpExecutor(ex) == 0
    assert aclnn.aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID
    assert "already destroyed (aclDestroyAclOpExecutor)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnMul(None, ws, ex, None) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclSetInputTensorAddr(ex, 0, x, p) == ACLNN_ERR_PARAM_INVALID
    assert "destroyed" in aclnn.aclGetRecentErrMsg()
    assert repr(ex).count("\n") == 0 and "aclnnMul" in repr(ex)


def test_the_runtime_state_machine():
    assert acl.init() == ACL_ERROR_REPEAT_INITIALIZE       # the fixture initialized already
    p = _malloc(16)
    assert acl.finalize() == 0
    assert acl.rt.malloc(16)[1] == ACL_ERROR_UNINITIALIZE
    assert acl.rt.free(p) == ACL_ERROR_UNINITIALIZE
    assert acl.rt.create_stream()[1] == ACL_ERROR_UNINITIALIZE
    assert acl.finalize() == ACL_ERROR_UNINITIALIZE
    x = aclnn.aclCreateTensor([4], DT.ACL_FLOAT, None, 0, ND, [4], p)   # descriptors need no runtime
    assert x is not None
    assert aclnn.aclnnMulGetWorkspaceSize(x, x, x)[2] == ACLNN_ERR_RUNTIME_ERROR
    assert "acl.init" in aclnn.aclGetRecentErrMsg()
    with pytest.raises(AclnnError) as err:                 # the Python layer refuses too
        device.from_numpy(np.ones(2, np.float32))
    assert isinstance(err.value, RuntimeError)
    assert acl.init() == 0
    assert acl.rt.malloc(16)[1] == ACL_ERROR_RT_CONTEXT_NULL   # no device set yet
    assert acl.rt.set_device(0) == 0
    assert acl.rt.free(p) == ACL_ERROR_INVALID_PARAM   # acl.finalize released it, as CANN does
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.create_stream()[1] == ACL_ERROR_RT_CONTEXT_NULL
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0 and acl.rt.get_context() == (ctx, 0)
    assert acl.rt.create_stream()[1] == 0
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.destroy_context(ctx) == ACL_ERROR_INVALID_PARAM


def test_recent_error_messages_are_read_once_latest_first():
    assert aclnn.aclCreateIntArray("x") is None
    assert aclnn.aclCreateScalar(None, DT.ACL_FLOAT) is None
    lines = aclnn.aclGetRecentErrMsg().splitlines()
    assert len(lines) == 2 and "None" in lines[0] and "'x'" in lines[1]
    assert aclnn.aclGetRecentErrMsg() == ""


def test_wrong_argument_counts_name_the_signature():
    p = _upload(np.ones(4, np.float32))
    x = _tensor([4], p)
    assert aclnn.aclnnMulGetWorkspaceSize(x, x) == (0, None, ACLNN_ERR_PARAM_INVALID)
    assert "aclnnMulGetWorkspaceSize(self, other, out)" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnMul(None, 0) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclCreateTensor([4], DT.ACL_FLOAT) is None
    assert "aclCreateTensor(viewDims, dataType" in aclnn.aclGetRecentErrMsg()
    assert acl.rt.malloc() == (None, ACL_ERROR_INVALID_PARAM)
    assert acl.rt.memcpy(1, 2) == ACL_ERROR_INVALID_PARAM
    assert aclnn.aclnnMulGetWorkspaceSize(x, x, x, extra=1)[2] == ACLNN_ERR_PARAM_INVALID


# ---------------------------------------------------------- misaligned device pointers

def test_a_misaligned_device_pointer_is_refused_in_phase_one():
    p = _malloc(64)
    x = _tensor([4], p + 2)                   # float32 elements need 4-byte alignment
    y = _tensor([4], _malloc(16))
    assert aclnn.aclnnMulGetWorkspaceSize(x, x, y)[2] == ACLNN_ERR_PARAM_INVALID
    assert "aligned" in aclnn.aclGetRecentErrMsg()
    c = _tensor([2], p + 4, DT.ACL_COMPLEX64)   # complex64 moves as 8-byte units
    assert aclnn.aclnnInplaceCopyGetWorkspaceSize(c, c)[2] == ACLNN_ERR_PARAM_INVALID


# ---------------------------------------------------- the wrapper: internal errors, logs

def test_an_internal_failure_is_a_code_logged_once_without_traceback(monkeypatch, caplog):
    from npu_emu.ops import mul
    p = _upload(np.ones(4, np.float32))
    x, y = _tensor([4], p), _tensor([4], _malloc(16))

    def broken(*args):
        raise RuntimeError("planner exploded")
    object.__setattr__(aclnn.OPERATORS["aclnnMul"], "plan", broken)
    try:
        monkeypatch.delenv("NPU_EMU_LOG", raising=False)
        with caplog.at_level(logging.ERROR, logger="npu_emu"):
            assert aclnn.aclnnMulGetWorkspaceSize(x, x, y)[2] == 561000
        records = [r for r in caplog.records if "planner exploded" in r.getMessage()]
        assert len(records) == 1 and records[0].exc_info is None
        assert "internal error" in aclnn.aclGetRecentErrMsg()
        caplog.clear()
        monkeypatch.setenv("NPU_EMU_LOG", "debug")
        with caplog.at_level(logging.ERROR, logger="npu_emu"):
            assert aclnn.aclnnMulGetWorkspaceSize(x, x, y)[2] == 561000
        assert [r for r in caplog.records if r.exc_info]
    finally:
        object.__setattr__(aclnn.OPERATORS["aclnnMul"], "plan", mul.plan)


def test_aclnn_errors_are_the_python_exception_kinds():
    assert isinstance(AclnnError(ACLNN_ERR_PARAM_NULLPTR, "x"), TypeError)
    assert isinstance(AclnnError(ACLNN_ERR_PARAM_INVALID, "x"), ValueError)
    assert isinstance(AclnnError(ACLNN_ERR_PARAM_INVALID, "x", TypeError), TypeError)
    assert isinstance(AclnnError(ACL_ERROR_BAD_ALLOC, "x"), MemoryError)
    assert isinstance(AclnnError(ACLNN_ERR_RUNTIME_ERROR, "x"), RuntimeError)
    err = pickle.loads(pickle.dumps(AclnnError(ACLNN_ERR_PARAM_INVALID, "why", TypeError)))
    assert isinstance(err, TypeError) and err.code == ACLNN_ERR_PARAM_INVALID and err.message == "why"
    with pytest.raises(TypeError):            # an unsupported dtype, raised by the Python layer
        npu_emu.format_cast(device.from_numpy(np.ones((2, 2), np.float32)), "NZ", c0=1.5)
    with pytest.raises(TypeError):            # a None where a tensor goes (161001)
        npu_emu.format_cast(None, "NZ")
    with pytest.raises(ValueError):           # a bad value
        npu_emu.format_cast(device.from_numpy(np.ones(4, np.float32)), "NZ")


# ----------------------------------------------------------- the pyACL calls of samples

def test_pyacl_helpers_round_trip():
    host, ret = acl.rt.malloc_host(64)
    assert ret == 0 and host % 256 == 0
    view = acl.util.ptr_to_numpy(host, (16,), np.float32)
    view[:] = np.arange(16)
    d = _malloc(64)
    assert acl.rt.memcpy(d, 64, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    np.testing.assert_array_equal(_download(d, 64).view(np.float32), np.arange(16))
    assert acl.util.ptr_to_bytes(host, 8) == np.arange(2, dtype=np.float32).tobytes()
    assert acl.util.ptr_to_numpy(host, (2,), 11).dtype == np.float32   # NPY_FLOAT, as pyACL
    assert acl.rt.free_host(host) == 0
    assert acl.rt.free_host(host) == ACL_ERROR_INVALID_PARAM
    data = bytearray(b"abcd")
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), 4) == b"abcd"
    assert acl.rt.get_device_count() == (1, 0)
    assert acl.get_soc_name() == npu_emu.current_soc().name
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(0x10, (4,), np.float32)
    assert str(acl.ACL_FLOAT) == "ACL_FLOAT" and f"{acl.ACL_FORMAT_ND}" == "ACL_FORMAT_ND"
    assert int(acl.ACL_MEMCPY_DEVICE_TO_HOST) == 2


def test_aclnn_functions_show_their_signature_and_return_tuple():
    import inspect
    sig = inspect.signature(aclnn.aclnnAddGetWorkspaceSize)
    assert list(sig.parameters) == ["self", "other", "alpha", "out"]
    assert "workspace_size, executor, ret" in aclnn.aclnnAddGetWorkspaceSize.__doc__
    assert list(inspect.signature(aclnn.aclnnMatmulGetWorkspaceSize).parameters) == [
        "self", "mat2", "out", "cubeMathType"]
    assert list(inspect.signature(aclnn.aclnnAdd).parameters) == [
        "workspace", "workspaceSize", "executor", "stream"]
    assert set(aclnn.OPERATORS) <= {n for n in dir(aclnn)}
