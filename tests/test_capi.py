"""The C ABI (npu_emu/capi): CANN-style C++ programs compiled against the headers and
libraries, run as their own processes (an embedded interpreter) and in this process through
ctypes. Every result is compared byte for byte with the Python C-style facade's for the same
inputs; status codes and aclGetRecentErrMsg() texts with the facade's for the same misuse.

The libraries are built once per session and the programs compiled in parallel (a fixture).
"""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn, capi
from npu_emu.capi import _bridge, _gen
from npu_emu.dtypes import aclDataType as DT
from npu_emu.formats import aclFormat as F

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "c"
TIMEOUT = 120

# A C++ program of misuses: each line is "what|code|aclGetRecentErrMsg()".
ERRORS_CPP = r"""
#include <cstdio>
#include "acl/acl.h"
#include "aclnnop/aclnn_expand.h"
static void report(const char* what, long ret) { printf("%s|%ld|%s\n", what, ret, aclGetRecentErrMsg()); }
int main() {
  void *a = nullptr, *b = nullptr;
  report("malloc_before_init", aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclInit(nullptr);
  report("init_twice", aclInit(nullptr));
  aclrtSetDevice(0);
  report("bad_device", aclrtSetDevice(3));
  aclrtStream s;
  aclrtCreateStream(&s);
  aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST);
  int64_t shp[2] = {2, 4}, st[2] = {4, 1};
  aclTensor* x = aclCreateTensor(shp, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, shp, 2, a);
  aclTensor* y = aclCreateTensor(shp, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, shp, 2, b);
  aclTensor* xd = aclCreateTensor(shp, 2, ACL_DOUBLE, st, 0, ACL_FORMAT_ND, shp, 2, a);
  aclTensor* yd = aclCreateTensor(shp, 2, ACL_DOUBLE, st, 0, ACL_FORMAT_ND, shp, 2, b);
  aclIntArray* size = aclCreateIntArray(shp, 2);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  report("null_self", aclnnExpandGetWorkspaceSize(nullptr, size, y, &ws, &ex));
  report("null_size", aclnnExpandGetWorkspaceSize(x, nullptr, y, &ws, &ex));
  report("double", aclnnExpandGetWorkspaceSize(xd, size, yd, &ws, &ex));
  report("first_run", aclnnExpandGetWorkspaceSize(x, size, y, &ws, &ex) + aclnnExpand(nullptr, ws, ex, s));
  report("second_run", aclnnExpand(nullptr, ws, ex, s));
  report("null_executor", aclnnExpand(nullptr, 0, nullptr, s));
  aclDestroyTensor(x);
  report("destroyed_tensor", aclnnExpandGetWorkspaceSize(x, size, y, &ws, &ex));
  report("destroy_twice", aclDestroyTensor(x));
  report("bad_dtype_create", aclCreateTensor(shp, 2, (aclDataType)999, st, 0, ACL_FORMAT_ND, shp, 2, a) ? 0 : -1);
  report("free_twice", aclrtFree(b) + aclrtFree(b));
  /* C only: no Python counterpart */
  report("c_null_output", aclnnExpandGetWorkspaceSize(y, size, y, nullptr, &ex));
  report("c_null_malloc_output", aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  report("c_stale_handle", aclnnExpandGetWorkspaceSize((aclTensor*)0x1234, size, y, &ws, &ex));
  report("c_null_stream_out", aclrtCreateStream(nullptr));
  aclrtSynchronizeStream(s);
  return aclFinalize();
}
"""

# Two threads, each on its own stream, run Expand then InplaceAdd 30 times on their own data
# and check every result; the program prints "ok <n>" with the number of checked results.
THREADS_CPP = r"""
#include <cstdio>
#include <thread>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_expand.h"
static int worker(int id, int* checked) {
  aclrtStream s;
  if (aclrtCreateStream(&s)) return 1;
  std::vector<float> row(16);
  for (int i = 0; i < 16; i++) row[i] = id * 100.0f + i;
  void *src, *dst;
  aclrtMalloc(&src, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&dst, 256, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(src, 64, row.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE);
  int64_t rs[2] = {1, 16}, os[2] = {4, 16}, st[2] = {16, 1};
  aclTensor* a = aclCreateTensor(rs, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, rs, 2, src);
  aclTensor* b = aclCreateTensor(os, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, os, 2, dst);
  aclIntArray* size = aclCreateIntArray(os, 2);
  float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  for (int it = 0; it < 30; it++) {
    uint64_t ws; aclOpExecutor* ex;
    if (aclnnExpandGetWorkspaceSize(a, size, b, &ws, &ex) || aclnnExpand(nullptr, ws, ex, s)) return 2;
    if (aclnnInplaceAddGetWorkspaceSize(b, b, alpha, &ws, &ex) || aclnnInplaceAdd(nullptr, ws, ex, s)) return 3;
    std::vector<float> out(64);
    if (aclrtMemcpyAsync(out.data(), 256, dst, 256, ACL_MEMCPY_DEVICE_TO_HOST, s) || aclrtSynchronizeStream(s)) return 4;
    for (int i = 0; i < 64; i++) if (out[i] != 2 * row[i % 16]) { printf("thread %d: out[%d] = %g\n", id, i, out[i]); return 5; }
    ++*checked;
  }
  aclDestroyTensor(a); aclDestroyTensor(b); aclDestroyIntArray(size); aclDestroyScalar(alpha);
  aclrtFree(src); aclrtFree(dst);
  return aclrtDestroyStream(s) ? 6 : 0;
}
int main() {
  if (aclInit(nullptr) || aclrtSetDevice(0)) return 10;
  int rc[2] = {0, 0}, checked[2] = {0, 0};
  std::thread t1([&] { rc[0] = worker(1, &checked[0]); });
  std::thread t2([&] { rc[1] = worker(2, &checked[1]); });
  t1.join(); t2.join();
  if (rc[0] || rc[1]) { printf("failed %d %d: %s\n", rc[0], rc[1], aclGetRecentErrMsg()); return 1; }
  printf("ok %d\n", checked[0] + checked[1]);
  aclrtResetDevice(0);
  return aclFinalize();
}
"""

# A program that never calls aclFinalize (nor frees anything): it must still exit with 0.
NO_FINALIZE_CPP = r"""
#include <cstdio>
#include "acl/acl.h"
#include "aclnnop/aclnn_expand.h"
int main() {
  aclInit(nullptr); aclrtSetDevice(0);
  aclrtStream s; aclrtCreateStream(&s);
  void *a, *b; aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST); aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST);
  int64_t rs[2] = {1, 16}, os[2] = {4, 16}, st[2] = {16, 1};
  aclTensor* x = aclCreateTensor(rs, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, rs, 2, a);
  aclTensor* y = aclCreateTensor(os, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, os, 2, b);
  uint64_t ws; aclOpExecutor* ex;
  int ret = aclnnExpandGetWorkspaceSize(x, aclCreateIntArray(os, 2), y, &ws, &ex) + aclnnExpand(nullptr, ws, ex, s);
  printf("enqueued %d, exiting without aclFinalize\n", ret);
  return ret;
}
"""

# The rest of the exported runtime and aclnn base, once each: "what|ret|value" per line.
TOUR_CPP = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_expand.h"
static void report(const char* what, long ret, const char* value = "") { printf("%s|%ld|%s\n", what, ret, value); }
static const char* ints(const int64_t* v, uint64_t n) {
  static char buf[256]; buf[0] = 0;
  for (uint64_t i = 0; i < n; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%ld", i ? "," : "", (long)v[i]);
  return buf;
}
int main() {
  char text[256];
  aclInit(nullptr);
  aclrtContext ctx = nullptr, cur = nullptr;
  report("create_context", aclrtCreateContext(&ctx, 0));
  int ret = aclrtGetCurrentContext(&cur);   /* (the call before its outputs are read) */
  report("get_context_same", ret, cur == ctx ? "same" : "other");
  report("set_context", aclrtSetCurrentContext(ctx));
  int32_t dev = -1; uint32_t count = 0;
  aclrtGetDevice(&dev); aclrtGetDeviceCount(&count);
  snprintf(text, sizeof text, "%d,%u", dev, count); report("device_and_count", 0, text);
  report("soc", 0, aclrtGetSocName());
  aclrtStream s1, s2; aclrtCreateStream(&s1); aclrtCreateStream(&s2);
  aclrtEvent e1, e2; aclrtCreateEvent(&e1); aclrtCreateEvent(&e2);
  void *a, *b, *h;
  aclrtMalloc(&a, 64, ACL_MEM_MALLOC_NORMAL_ONLY); aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_ONLY);
  report("malloc_host", aclrtMallocHost(&h, 64));
  float* hf = (float*)h;
  for (int i = 0; i < 16; i++) hf[i] = i * 1.5f;
  report("memset_async", aclrtMemsetAsync(b, 256, 0, 256, s1));
  report("memcpy_async", aclrtMemcpyAsync(a, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s1));
  report("record", aclrtRecordEvent(e1, s1));
  report("wait", aclrtStreamWaitEvent(s2, e1));
  int64_t rs[2] = {1, 16}, os[2] = {4, 16}, st[2] = {16, 1}, view[2] = {2, 3}, vst[2] = {1, 4};
  aclTensor* x = aclCreateTensor(rs, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, rs, 2, a);
  aclTensor* y = aclCreateTensor(os, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, os, 2, b);
  aclTensor* v = aclCreateTensor(view, 2, ACL_FLOAT16, vst, 5, ACL_FORMAT_ND, os, 2, b);
  aclIntArray* size = aclCreateIntArray(os, 2);
  uint64_t ws; aclOpExecutor* ex;
  report("expand_gws", aclnnExpandGetWorkspaceSize(x, size, y, &ws, &ex));
  report("repeatable", aclSetAclOpExecutorRepeatable(ex));
  report("run1", aclnnExpand(nullptr, ws, ex, s2));
  report("record2", aclrtRecordEvent(e2, s2));
  report("sync_event", aclrtSynchronizeEvent(e2));
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  ret = aclrtQueryEventStatus(e2, &status);
  report("query", ret, status == ACL_EVENT_RECORDED_STATUS_COMPLETE ? "complete" : "not ready");
  float ms = -1;
  ret = aclrtEventElapsedTime(&ms, e1, e2);
  report("elapsed", ret, ms >= 0 ? "non-negative" : "negative");
  void* b2; aclrtMalloc(&b2, 256, ACL_MEM_MALLOC_HUGE_FIRST);
  report("rebind_output", aclSetOutputTensorAddr(ex, 0, y, b2));
  report("run2", aclnnExpand(nullptr, ws, ex, s2));
  report("destroy_executor", aclDestroyAclOpExecutor(ex));
  report("sync_device", aclrtSynchronizeDevice());
  float back[64];
  aclrtMemcpy(back, sizeof back, b2, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST);
  snprintf(text, sizeof text, "%g,%g,%g", back[0], back[17], back[63]); report("rebound_result", 0, text);
  int64_t* dims = nullptr; uint64_t n = 0; int64_t off = -1; aclFormat fmt; aclDataType dt;
  ret = aclGetViewShape(v, &dims, &n); report("view_shape", ret, ints(dims, n)); free(dims);
  ret = aclGetViewStrides(v, &dims, &n); report("view_strides", ret, ints(dims, n)); free(dims);
  ret = aclGetStorageShape(v, &dims, &n); report("storage_shape", ret, ints(dims, n)); free(dims);
  aclGetViewOffset(v, &off); aclGetFormat(v, &fmt); aclGetDataType(v, &dt);
  snprintf(text, sizeof text, "%ld,%d,%d", (long)off, (int)fmt, (int)dt); report("offset_format_dtype", 0, text);
  float fv[3] = {1.5f, -2, 3}; bool bv[2] = {true, false}; const aclTensor* tl[2] = {x, y};
  aclFloatArray* fa = aclCreateFloatArray(fv, 3); aclBoolArray* ba = aclCreateBoolArray(bv, 2);
  aclTensorList* list = aclCreateTensorList(tl, 2);
  report("arrays", fa && ba && list ? 0 : -1);
  report("destroy_arrays", aclDestroyFloatArray(fa) + aclDestroyBoolArray(ba) + aclDestroyTensorList(list));
  size_t freeMem = 0, total = 0;
  ret = aclrtGetMemInfo(ACL_HBM_MEM, &freeMem, &total);
  report("mem_info", ret, total >= 256 * 3 ? "total covers the blocks" : "small");
  report("free_host", aclrtFreeHost(h));
  report("destroy_events", aclrtDestroyEvent(e1) + aclrtDestroyEvent(e2));
  report("destroy_streams", aclrtDestroyStream(s1) + aclrtDestroyStream(s2));
  report("destroyed_stream_again", aclrtSynchronizeStream(s1));
  report("destroy_context", aclrtDestroyContext(ctx));
  report("reset", aclrtResetDevice(0));
  report("finalize", aclFinalize());
  report("after_finalize", aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  return 0;
}
"""

# An executor of aclnnAdd run by aclnnMul's phase two: CANN runs the add and returns 0; the
# sanitizer reports it, naming the C functions.
WRONG_EXECUTOR_CPP = r"""
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include <cstdio>
int main() {
  aclInit(nullptr); aclrtSetDevice(0);
  aclrtStream stream; aclrtCreateStream(&stream);
  float host[4] = {1, 2, 3, 4};
  void* a; void* o;
  aclrtMalloc(&a, 16, ACL_MEM_MALLOC_HUGE_FIRST); aclrtMalloc(&o, 16, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(a, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE);
  int64_t shape[1] = {4}, strides[1] = {1};
  aclTensor* x = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a);
  aclTensor* out = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, o);
  float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0; aclOpExecutor* ex = nullptr;
  aclnnAddGetWorkspaceSize(x, x, alpha, out, &ws, &ex);
  int ret = aclnnMul(nullptr, ws, ex, stream);
  aclrtSynchronizeStream(stream);
  printf("aclnnMul returned %d\n", ret);
  aclDestroyTensor(x); aclDestroyTensor(out); aclDestroyScalar(alpha);
  aclrtFree(a); aclrtFree(o); aclrtDestroyStream(stream);
  aclrtResetDevice(0); aclFinalize();
  return 0;
}
"""

PROGRAMS = {"errors": ERRORS_CPP, "threads": THREADS_CPP, "no_finalize": NO_FINALIZE_CPP,
            "tour": TOUR_CPP, "wrong_executor": WRONG_EXECUTOR_CPP}


def _toolchain_missing() -> str:
    if capi.cxx_compiler() is None:
        return "no C++ compiler"
    try:
        capi._libpython()
    except capi.CapiBuildError as exc:
        return str(exc)
    return ""


pytestmark = pytest.mark.skipif(bool(_toolchain_missing()), reason=_toolchain_missing() or "-")


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> dict[str, Path]:
    """Every example and test program, compiled (two at a time) against the libraries (or
    found compiled from the same sources in the libraries' folder)."""
    capi.build()
    out = tmp_path_factory.mktemp("capi")
    sources = {p.stem: p for p in EXAMPLES.glob("*.cpp")}
    for name, text in PROGRAMS.items():
        sources[name] = out / f"{name}.cpp"
        sources[name].write_text(text)
    with ThreadPoolExecutor(2) as pool:
        exes = dict(zip(sources, pool.map(capi.compile_example, sources.values())))
    return exes


def run(exe: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=TIMEOUT,
                       env={**os.environ, **(env or {})})
    assert r.returncode == 0, f"{exe.name} exited with {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


# ------------------------------------------------------------- the facade, as in the programs

class Facade:
    """The Python C-style facade used the way the C++ programs use the C one."""

    def __init__(self) -> None:
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0

    def tensor(self, host: np.ndarray, shape, dtype, strides=None, offset=0, fmt=F.ACL_FORMAT_ND,
               storage=None):
        host = np.ascontiguousarray(host)
        dev, ret = acl.rt.malloc(max(host.nbytes, 1), 0)
        assert ret == 0
        assert acl.rt.memcpy(dev, host.nbytes, host, host.nbytes, 1) == 0
        storage = storage or [host.size]
        t = aclnn.aclCreateTensor(list(shape), dtype, strides, offset, fmt, storage, dev)
        assert t is not None, aclnn.aclGetRecentErrMsg()
        return t, dev

    def run(self, name: str, *args) -> None:
        ws, ex, ret = getattr(aclnn, name + "GetWorkspaceSize")(*args)
        assert ret == 0, aclnn.aclGetRecentErrMsg()
        workspace = None
        if ws:
            workspace, ret = acl.rt.malloc(ws, 0)
        assert getattr(aclnn, name)(workspace, ws, ex, self.stream) == 0
        assert acl.rt.synchronize_stream(self.stream) == 0

    def fetch(self, dev: int, nbytes: int) -> bytes:
        host = np.zeros(nbytes, np.uint8)
        assert acl.rt.memcpy(host, nbytes, dev, nbytes, 2) == 0
        return host.tobytes()


def ref_inplace_copy_views() -> dict[str, bytes]:
    f = Facade()
    src, _ = f.tensor((np.arange(64) * 0.25 - 4).astype(np.float16), [3, 4], DT.ACL_FLOAT16, [8, 2], 1)
    dst, dst_dev = f.tensor(np.full(24, -1, np.float32), [3, 4], DT.ACL_FLOAT, [1, 3], 0)
    f.run("aclnnInplaceCopy", dst, src)
    return {"dst": f.fetch(dst_dev, 96)}


def ref_cast_low_precision() -> dict[str, bytes]:
    values = np.array([0, 1, -1, 0.1, 1 / 3, 65504, 1e-8, 3.14159265, 1.00390625, 1.01171875, -2.5,
                       100.7, 1e30, -1e-30, np.inf, np.nan], np.float32)
    with npu_emu.soc("Ascend950"):
        f = Facade()
        self, _ = f.tensor(values, [16], DT.ACL_FLOAT)
        out = {}
        for name, dt, size in (("bf16", DT.ACL_BF16, 2), ("hifloat8", DT.ACL_HIFLOAT8, 1)):
            t, dev = f.tensor(np.zeros(16 * size, np.uint8), [16], dt, storage=[16])
            f.run("aclnnCast", self, dt, t)
            out[name] = f.fetch(dev, 16 * size)
    return out


def ref_add_mixed_dtypes() -> dict[str, bytes]:
    f = Facade()
    self, _ = f.tensor(np.array([-3, -1, 0, 2, 5, 7], np.int32), [2, 3], DT.ACL_INT32)
    other, _ = f.tensor(np.array([0.5, -1.25, 2], np.float16), [3], DT.ACL_FLOAT16)
    out, out_dev = f.tensor(np.zeros(6, np.float32), [2, 3], DT.ACL_FLOAT)
    mul, mul_dev = f.tensor(np.zeros(6, np.float32), [2, 3], DT.ACL_FLOAT)
    alpha = aclnn.aclCreateScalar(np.float32(2.5), DT.ACL_FLOAT)
    f.run("aclnnAdd", self, other, alpha, out)
    result = {"add": f.fetch(out_dev, 24)}
    f.run("aclnnInplaceAdd", out, other, alpha)
    f.run("aclnnInplaceMul", out, other)
    result["inplace"] = f.fetch(out_dev, 24)
    f.run("aclnnMul", self, other, mul)
    result["mul"] = f.fetch(mul_dev, 24)
    return result


def ref_format_cast_nz() -> dict[str, bytes]:
    f = Facade()
    nd, _ = f.tensor(np.arange(560).astype(np.float16), [20, 28], DT.ACL_FLOAT16)
    shape, actual, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(nd, F.ACL_FORMAT_FRACTAL_NZ, -1)
    assert ret == 0
    nz, nz_dev = f.tensor(np.zeros(int(np.prod(shape)), np.float16), [20, 28], DT.ACL_FLOAT16,
                          [28, 1], 0, actual, shape)
    f.run("aclnnNpuFormatCast", nd, nz)
    back, back_dev = f.tensor(np.zeros(560, np.float16), [20, 28], DT.ACL_FLOAT16)
    f.run("aclnnNpuFormatCast", nz, back)
    return {"nz": f.fetch(nz_dev, int(np.prod(shape)) * 2), "nd": f.fetch(back_dev, 1120)}


def ref_matmul() -> dict[str, bytes]:
    f = Facade()
    a = ((np.arange(16 * 32) * 7 % 13) * 0.125 - 0.75).astype(np.float16)
    b = ((np.arange(32 * 8) * 5 % 11) * 0.25 - 1.25).astype(np.float16)
    self, _ = f.tensor(a, [16, 32], DT.ACL_FLOAT16)
    mat2, _ = f.tensor(b, [32, 8], DT.ACL_FLOAT16)
    out, out_dev = f.tensor(np.zeros(128, np.float16), [16, 8], DT.ACL_FLOAT16)
    f.run("aclnnMatmul", self, mat2, out, 1)
    return {"out": f.fetch(out_dev, 256)}


REFERENCES = {"inplace_copy_views": ref_inplace_copy_views, "cast_low_precision": ref_cast_low_precision,
              "add_mixed_dtypes": ref_add_mixed_dtypes, "format_cast_nz": ref_format_cast_nz,
              "matmul": ref_matmul}


# ------------------------------------------------------------------------------ the tests

def test_generated_c_parts_are_fresh():
    assert _gen.stale() == [], "run python -m npu_emu.capi._gen"


def test_every_example_has_a_reference():
    assert set(REFERENCES) | {"aclnn_expand"} == {p.stem for p in EXAMPLES.glob("*.cpp")}


def test_seed_expand_program_prints_the_facades_result(programs):
    r = run(programs["aclnn_expand"])
    f = Facade()
    self, _ = f.tensor(np.arange(8, dtype=np.float32), [4, 2], DT.ACL_FLOAT)
    out, dev = f.tensor(np.zeros(8, np.float32), [4, 2], DT.ACL_FLOAT)
    f.run("aclnnExpand", self, aclnn.aclCreateIntArray([4, 2]), out)
    values = np.frombuffer(f.fetch(dev, 32), np.float32)
    assert r.stdout == "".join(f"resultData[{i}] is: {v:f}\n" for i, v in enumerate(values))
    assert r.stderr == ""


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_example_bytes_equal_the_facades(programs, name, tmp_path):
    run(programs[name], str(tmp_path))
    expected = REFERENCES[name]()
    got = {p.stem: p.read_bytes() for p in tmp_path.glob("*.bin")}
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == expected[key], f"{name}: {key} differs from the Python facade's"


def _python_errors() -> list[tuple[str, int, str]]:
    """The misuses of ERRORS_CPP through the Python facade, in the same order."""
    out = []

    def report(what, ret):
        out.append((what, int(ret), aclnn.aclGetRecentErrMsg()))

    report("malloc_before_init", acl.rt.malloc(64, 0)[1])
    acl.init()
    report("init_twice", acl.init())
    acl.rt.set_device(0)
    report("bad_device", acl.rt.set_device(3))
    s, _ = acl.rt.create_stream()
    a, _ = acl.rt.malloc(256, 0)
    b, _ = acl.rt.malloc(256, 0)
    x = aclnn.aclCreateTensor([2, 4], DT.ACL_FLOAT, [4, 1], 0, F.ACL_FORMAT_ND, [2, 4], a)
    y = aclnn.aclCreateTensor([2, 4], DT.ACL_FLOAT, [4, 1], 0, F.ACL_FORMAT_ND, [2, 4], b)
    xd = aclnn.aclCreateTensor([2, 4], DT.ACL_DOUBLE, [4, 1], 0, F.ACL_FORMAT_ND, [2, 4], a)
    yd = aclnn.aclCreateTensor([2, 4], DT.ACL_DOUBLE, [4, 1], 0, F.ACL_FORMAT_ND, [2, 4], b)
    size = aclnn.aclCreateIntArray([2, 4])
    report("null_self", aclnn.aclnnExpandGetWorkspaceSize(None, size, y)[2])
    report("null_size", aclnn.aclnnExpandGetWorkspaceSize(x, None, y)[2])
    report("double", aclnn.aclnnExpandGetWorkspaceSize(xd, size, yd)[2])
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(x, size, y)
    report("first_run", ret + aclnn.aclnnExpand(None, ws, ex, s))
    report("second_run", aclnn.aclnnExpand(None, ws, ex, s))
    report("null_executor", aclnn.aclnnExpand(None, 0, None, s))
    aclnn.aclDestroyTensor(x)
    report("destroyed_tensor", aclnn.aclnnExpandGetWorkspaceSize(x, size, y)[2])
    report("destroy_twice", aclnn.aclDestroyTensor(x))
    t = aclnn.aclCreateTensor([2, 4], 999, [4, 1], 0, F.ACL_FORMAT_ND, [2, 4], a)
    report("bad_dtype_create", 0 if t is not None else -1)
    report("free_twice", acl.rt.free(b) + acl.rt.free(b))
    acl.rt.synchronize_stream(s)
    return out


def _no_address(message: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x...", message)   # the two processes' pools differ


def test_misuse_gives_the_facades_codes_and_messages(programs):
    lines = run(programs["errors"]).stdout.splitlines()
    got = [tuple(line.split("|", 2)) for line in lines]
    got = [(w, int(c), _no_address(m)) for w, c, m in got]
    python = [(w, c, _no_address(m)) for w, c, m in _python_errors()]
    c_only = {w: (c, m) for w, c, m in got if w.startswith("c_")}
    assert [g for g in got if not g[0].startswith("c_")] == python
    assert dict((w, c) for w, c, _ in python)["second_run"] == 561102
    # What only C has: null output pointers (CANN's nullptr template) and tokens that are no
    # handle (refused by the facade's type check).
    assert c_only["c_null_output"] == (
        161001, "aclnnExpandGetWorkspaceSize: Expected a value of type [uint64_t *] for argument "
                "[workspaceSize] but instead found nullptr.")
    assert c_only["c_null_malloc_output"][0] == 100000
    assert "[devPtr]" in c_only["c_null_malloc_output"][1]
    assert c_only["c_null_stream_out"][0] == 100000
    assert c_only["c_stale_handle"] == (
        161002, "Expected a value of type [aclTensor] for argument [self] but instead found StaleHandle.")


def test_two_threads_on_two_streams(programs):
    assert run(programs["threads"]).stdout.strip() == "ok 60"


def test_a_program_without_acl_finalize_exits_cleanly(programs):
    r = run(programs["no_finalize"])
    assert r.stdout == "enqueued 0, exiting without aclFinalize\n"
    assert r.stderr == ""


def test_ctypes_in_this_process():
    """Loaded into a Python process, the library uses the running interpreter (and this very
    npu_emu: the handles it hands out are in npu_emu.capi._bridge.HANDLES)."""
    lib = ctypes.CDLL(str(capi.build() / "libascendcl.so"))
    vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
    lib.aclCreateTensor.restype = vp
    lib.aclCreateTensor.argtypes = [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64,
                                    ctypes.c_int, i64p, ctypes.c_uint64, vp]
    lib.aclCreateIntArray.restype = vp
    lib.aclCreateIntArray.argtypes = [i64p, ctypes.c_uint64]
    lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
    for fn in ("aclnnExpandGetWorkspaceSize", "aclnnExpand", "aclDestroyTensor", "aclrtMemcpy",
               "aclrtMalloc", "aclrtFree", "aclrtSynchronizeStream"):
        getattr(lib, fn).argtypes = None
    assert lib.aclInit(None) == 0 and lib.aclrtSetDevice(0) == 0
    src, dst = vp(), vp()
    assert lib.aclrtMalloc(ctypes.byref(src), ctypes.c_size_t(16), 0) == 0
    assert lib.aclrtMalloc(ctypes.byref(dst), ctypes.c_size_t(48), 0) == 0
    host = np.array([1.5, -2, 3, 4], np.float32)
    assert lib.aclrtMemcpy(src, ctypes.c_size_t(16), host.ctypes.data_as(vp), ctypes.c_size_t(16), 1) == 0
    dims = lambda *v: (ctypes.c_int64 * len(v))(*v)
    x = lib.aclCreateTensor(dims(1, 4), 2, 0, dims(4, 1), 0, 2, dims(1, 4), 2, src)
    y = lib.aclCreateTensor(dims(3, 4), 2, 0, dims(4, 1), 0, 2, dims(3, 4), 2, dst)
    size = lib.aclCreateIntArray(dims(3, 4), 2)
    assert _bridge.H(x).view_shape == (1, 4) and len(_bridge.HANDLES) == 3
    ws, ex = ctypes.c_uint64(), vp()
    assert lib.aclnnExpandGetWorkspaceSize(vp(x), vp(size), vp(y), ctypes.byref(ws), ctypes.byref(ex)) == 0
    assert lib.aclnnExpand(None, ws, ex, None) == 0
    assert lib.aclrtSynchronizeStream(None) == 0
    out = np.zeros(12, np.float32)
    assert lib.aclrtMemcpy(out.ctypes.data_as(vp), ctypes.c_size_t(48), dst, ctypes.c_size_t(48), 2) == 0
    assert out.tolist() == np.tile(host, 3).tolist()
    assert lib.aclDestroyTensor(vp(x)) == 0
    assert lib.aclDestroyTensor(vp(x)) == 161002
    assert b"already destroyed" in lib.aclGetRecentErrMsg()
    assert lib.aclFinalize() == 0
    assert len(_bridge.HANDLES) == 0 and not _bridge.HANDLES.dead   # nothing left behind


def test_config_and_pkgconfig_flags():
    cmd = [sys.executable, "-m", "npu_emu", "config", "--cflags", "--libs"]
    flags = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=TIMEOUT).stdout.split()
    libdir = capi.build()
    assert flags == [f"-I{capi.INCLUDE}", f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-lascendcl",
                     "-lnnopbase", "-lopapi"]
    assert sorted(p.name for p in libdir.glob("*.so")) == sorted(capi.LIBRARIES)
    if shutil.which("pkg-config"):
        env = {**os.environ, "PKG_CONFIG_PATH": str(libdir / "pkgconfig")}
        pc = subprocess.run(["pkg-config", "--cflags", "--libs", capi.PC_NAME], capture_output=True,
                            text=True, env=env, check=True).stdout.split()
        assert sorted(pc) == sorted(flags)


def test_the_library_exports_exactly_the_headers_functions():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) to read the library's symbols")
    out = subprocess.run([nm, "-D", "--defined-only", str(capi.build() / "libascendcl.so")],
                         capture_output=True, text=True, check=True).stdout
    symbols = {line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]}
    assert symbols == {name for name, _ in _gen.exported()}


def test_every_operator_but_the_python_only_ones_is_in_the_c_abi():
    """aclnnCubeMatmul's operands (Zz, Zn) have no aclFormat, so no C program could call it:
    it is left out of the headers, and every other operator is declared in both phases."""
    from npu_emu import aclnn
    declared = {name for name, _ in _gen.exported()}
    assert set(_gen.PYTHON_ONLY) == {"aclnnCubeMatmul"}
    for op in aclnn.OPERATORS:
        phases = {op + "GetWorkspaceSize", op}
        assert (phases <= declared) != (op in _gen.PYTHON_ONLY), op
        assert not (op in _gen.PYTHON_ONLY and phases & declared), op


def test_demo_hook_compiles_and_runs_the_c_examples(capfd):
    assert capi.run_examples(only="matmul") == (1, 0)
    out = capfd.readouterr().out
    assert "===== examples/c/matmul.cpp" in out and "out[0, :] =" in out
    assert "npu-emu demo: 1/1 C++ examples ran (examples/c)" in out


def test_the_rest_of_the_runtime_and_base_from_c(programs):
    got = {w: (int(c), v) for w, c, v in (line.split("|", 2) for line in run(programs["tour"]).stdout.splitlines())}
    t = aclnn.aclCreateTensor([2, 3], DT.ACL_FLOAT16, [1, 4], 5, F.ACL_FORMAT_ND, [4, 16], 0)
    facade = lambda getter: ",".join(str(d) for d in getter(t)[0])   # noqa: E731
    expected = {
        "get_context_same": (0, "same"), "device_and_count": (0, "0,1"), "soc": (0, npu_emu.arch.get_soc(os.environ.get("NPU_EMU_SOC") or npu_emu.arch.DEFAULT_SOC).name),
        "query": (0, "complete"), "elapsed": (0, "non-negative"),
        "rebound_result": (0, "0,1.5,22.5"),   # row [0, 1.5, ... 22.5] expanded into the new block
        "view_shape": (0, facade(aclnn.aclGetViewShape)),
        "view_strides": (0, facade(aclnn.aclGetViewStrides)),
        "storage_shape": (0, facade(aclnn.aclGetStorageShape)),
        "offset_format_dtype": (0, f"5,{int(F.ACL_FORMAT_ND)},{int(DT.ACL_FLOAT16)}"),
        "mem_info": (0, "total covers the blocks"),
        "destroyed_stream_again": (100000, ""), "after_finalize": (100001, ""),
    }
    for what, value in expected.items():
        assert got.pop(what) == value, what
    assert {w: c for w, (c, _) in got.items() if c != 0} == {}


def test_npu_emu_device_reaches_the_c_program(programs):
    """NPU_EMU_DEVICE=cuda in a C program does what it does in Python: with a GPU the seed
    program prints the cpu backend's result; without one, aclrtSetDevice fails with the code
    Python's acl.rt.set_device gives there."""
    env = {**os.environ, "NPU_EMU_DEVICE": "cuda"}
    code = "import npu_emu.acl as acl; acl.init(); print(acl.rt.set_device(0))"
    python_ret = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    env=env, timeout=TIMEOUT).stdout.split()[-1])
    r = subprocess.run([str(programs["aclnn_expand"])], capture_output=True, text=True, env=env,
                       timeout=TIMEOUT)
    if python_ret == 0:
        assert r.returncode == 0 and r.stdout == run(programs["aclnn_expand"]).stdout
    else:
        assert r.stdout.startswith(f"aclrtSetDevice failed. ERROR: {python_ret}\n")


def test_the_sanitizer_names_the_c_function(programs, tmp_path):
    """Under NPU_EMU_CHECK a finding in a C program names the C symbol it came through."""
    import json
    report = tmp_path / "check.json"
    r = subprocess.run([str(programs["wrong_executor"])], capture_output=True, text=True,
                       timeout=TIMEOUT, env={**os.environ, "NPU_EMU_CHECK": "misuse",
                                             "NPU_EMU_CHECK_JSON": str(report)})
    assert "aclnnMul returned 0" in r.stdout              # CANN's behaviour is kept
    assert r.returncode == 86, r.stderr
    findings = json.loads(report.read_text())["findings"]
    assert [f["kind"] for f in findings] == ["misuse"], findings
    assert "aclnnMul (C ABI)" in findings[0]["sites"], findings[0]
