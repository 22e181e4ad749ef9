"""A seeded corpus of small NPU programs for the sanitizer's tests: each buggy program has one
bug of one kind (its name says which) and is otherwise correct (it frees what it made); the
`ok_` programs have none. Run as `python corpus.py NAME...` under NPU_EMU_CHECK: it runs
each program in turn and prints, last, one line `CORPUS {json}` with the findings of each
(kind, message, sites), taken from the checker between programs."""
from __future__ import annotations

import json
import sys

import numpy as np

import npu_emu.acl as acl
from npu_emu import aclnn, check, device
from npu_emu import aclDataType as DT
from npu_emu import aclFormat as F

FLOAT, ND, H2D, D2H = DT.ACL_FLOAT, F.ACL_FORMAT_ND, 1, 2
rng = np.random.default_rng(21)


def ok(ret: object) -> None:
    assert ret == 0, (ret, aclnn.aclGetRecentErrMsg())


def start() -> None:
    ok(acl.init())
    ok(acl.rt.set_device(0))


def stop() -> None:
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


def malloc(nbytes: int) -> int:
    p, ret = acl.rt.malloc(nbytes, 0)
    ok(ret)
    return p


def upload(host: np.ndarray, stream=None) -> int:
    p = malloc(host.nbytes)
    if stream is None:
        ok(acl.rt.memcpy(p, host.nbytes, host, host.nbytes, H2D))
    else:
        ok(acl.rt.memcpy_async(p, host.nbytes, host, host.nbytes, H2D, stream))
    return p


def tensor(ptr: int, shape: list[int]):
    t = aclnn.aclCreateTensor(shape, FLOAT, None, 0, ND, shape, ptr)
    assert t is not None, aclnn.aclGetRecentErrMsg()
    return t


def download(ptr: int, n: int) -> np.ndarray:
    out = np.zeros(n, np.float32)
    ok(acl.rt.memcpy(out, out.nbytes, ptr, out.nbytes, D2H))
    return out


class Vectors:
    """x, y (uploaded, seeded) and out (n float32 each) with their tensors and alpha."""

    def __init__(self, n: int = 64, stream=None) -> None:
        self.n = n
        self.hx = rng.standard_normal(n).astype(np.float32)
        self.hy = rng.standard_normal(n).astype(np.float32)
        self.px, self.py = upload(self.hx, stream), upload(self.hy, stream)
        self.pout = malloc(4 * n)
        self.x, self.y, self.out = (tensor(p, [n]) for p in (self.px, self.py, self.pout))
        self.alpha = aclnn.aclCreateScalar(1.0, FLOAT)

    def add(self, stream, out=None) -> None:
        ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(self.x, self.y, self.alpha, out or self.out)
        ok(ret)
        assert ws == 0
        ok(aclnn.aclnnAdd(None, 0, ex, stream))

    def mul(self, stream, a, b, out) -> None:
        ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(a, b, out)
        ok(ret)
        ok(aclnn.aclnnMul(None, 0, ex, stream))

    def free(self) -> None:
        for t in (self.x, self.y, self.out):
            ok(aclnn.aclDestroyTensor(t))
        ok(aclnn.aclDestroyScalar(self.alpha))
        for p in (self.px, self.py, self.pout):
            ok(acl.rt.free(p))


def streams(k: int) -> list:
    out = []
    for _ in range(k):
        s, ret = acl.rt.create_stream()
        ok(ret)
        out.append(s)
    return out


# ---------------------------------------------------------------------------- correct

def ok_two_streams_with_event():
    start()
    s1, s2 = streams(2)
    v = Vectors()
    ev, ret = acl.rt.create_event()
    ok(ret)
    v.add(s1)
    ok(acl.rt.record_event(ev, s1))
    ok(acl.rt.stream_wait_event(s2, ev))
    v.mul(s2, v.out, v.y, v.x)                 # reads out after the event: ordered
    ok(acl.rt.synchronize_stream(s2))
    got = download(v.px, v.n)
    assert np.array_equal(got, (v.hx + v.hy) * v.hy)
    ok(acl.rt.destroy_event(ev))
    v.free()
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    stop()


def ok_synchronized_host_read():
    start()
    s1, = streams(1)
    v = Vectors(stream=s1)
    v.add(s1)
    ok(acl.rt.synchronize_stream(s1))
    assert np.array_equal(download(v.pout, v.n), v.hx + v.hy)
    v.free()
    ok(acl.rt.destroy_stream(s1))
    stop()


def ok_workspace_and_repeatable():
    start()
    m = Staged()
    ws = malloc(m.ws_size)
    ok(aclnn.aclSetAclOpExecutorRepeatable(m.ex))
    for _ in range(2):
        ok(aclnn.aclnnMul(ws, m.ws_size, m.ex, None))
    ok(acl.rt.synchronize_device())
    np.testing.assert_array_equal(download(m.pout, m.n), m.ha.astype(np.float32) * m.hb)
    ok(aclnn.aclDestroyAclOpExecutor(m.ex))
    ok(acl.rt.free(ws))
    m.free()
    stop()


def ok_copies_and_events():
    start()
    s1, s2 = streams(2)
    ev, ret = acl.rt.create_event()
    ok(ret)
    a, b = malloc(256), malloc(256)
    ok(acl.rt.memset_async(a, 256, 7, 256, s1))
    ok(acl.rt.record_event(ev, s1))
    ok(acl.rt.stream_wait_event(s2, ev))
    ok(acl.rt.memcpy_async(b, 256, a, 256, 3, s2))       # D2D on s2, after the memset on s1
    ok(acl.rt.record_event(ev, s2))
    ok(acl.rt.synchronize_event(ev))
    out = np.zeros(256, np.uint8)
    ok(acl.rt.memcpy(out, 256, b, 256, D2H))               # the host waited for the event
    assert (out == 7).all()
    ok(acl.rt.memset_async(a, 256, 1, 256, s2))            # s2 is after s1's memset (the event)
    ok(acl.rt.synchronize_device())
    ok(acl.rt.memcpy(out, 256, a, 256, D2H))
    assert (out == 1).all()
    ok(acl.rt.destroy_event(ev))
    for p in (a, b):
        ok(acl.rt.free(p))
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    stop()


def ok_array_api():
    import npu_emu.array_api as xp
    start()
    a = xp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = xp.ones((3, 4), dtype=xp.float32)
    c = xp.sum(a * b + a, axis=1)
    assert np.array_equal(np.asarray(c), (2 * np.arange(12, dtype=np.float32)).reshape(3, 4).sum(1))
    d = xp.empty((4,), dtype=xp.float32)
    d[...] = 3.0
    assert np.array_equal(np.asarray(d + c[0]), np.full(4, 3.0 + 2 * 6, np.float32))
    stop()


def ok_python_layer():
    start()
    x = device.from_numpy(np.arange(8, dtype=np.float32))
    y = device.empty([8], FLOAT)
    ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(x, x, y)
    ok(ret)
    ok(aclnn.aclnnMul(None, 0, ex, None))
    assert np.array_equal(device.to_numpy(y), np.arange(8, dtype=np.float32) ** 2)
    stop()


class Staged:
    """out[n] float32 = a[n] (float16) * b[n] (float32) through aclnnMul, which needs a
    workspace: a is staged there as float32."""

    def __init__(self, n: int = 256) -> None:
        self.n = n
        self.ha = rng.standard_normal(n).astype(np.float16)
        self.hb = rng.standard_normal(n).astype(np.float32)
        self.pa, self.pb, self.pout = upload(self.ha), upload(self.hb), malloc(4 * n)
        self.a = aclnn.aclCreateTensor([n], DT.ACL_FLOAT16, None, 0, ND, [n], self.pa)
        self.b, self.out = tensor(self.pb, [n]), tensor(self.pout, [n])
        self.ws_size, self.ex, ret = aclnn.aclnnMulGetWorkspaceSize(self.a, self.b, self.out)
        ok(ret)
        assert self.ws_size > 0

    def free(self) -> None:
        for t in (self.a, self.b, self.out):
            ok(aclnn.aclDestroyTensor(t))
        for p in (self.pa, self.pb, self.pout):
            ok(acl.rt.free(p))


# ---------------------------------------------------------------------------- race

def race_kernels_on_two_streams():
    start()
    s1, s2 = streams(2)
    v = Vectors()
    v.add(s1)                                  # RACE-A: writes out on s1
    v.mul(s2, v.out, v.y, v.out)               # RACE-B: reads and writes out on s2, no event
    ok(acl.rt.synchronize_device())
    v.free()
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    stop()


def race_copy_and_kernel():
    start()
    s1, s2 = streams(2)
    v = Vectors()
    host = np.ones(v.n, np.float32)
    ok(acl.rt.memcpy_async(v.px, host.nbytes, host, host.nbytes, H2D, s1))   # writes x on s1
    v.add(s2)                                                                 # reads x on s2
    ok(acl.rt.synchronize_device())
    v.free()
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    stop()


def race_event_on_the_wrong_stream():
    start()
    s1, s2 = streams(2)
    v = Vectors()
    ev, ret = acl.rt.create_event()
    ok(ret)
    v.add(s1)
    ok(acl.rt.record_event(ev, s2))            # recorded on s2, not s1: orders nothing
    ok(acl.rt.stream_wait_event(s2, ev))
    ok(acl.rt.memset_async(v.pout, 4 * v.n, 0, 4 * v.n, s2))   # writes out on s2
    ok(acl.rt.synchronize_device())
    ok(acl.rt.destroy_event(ev))
    v.free()
    for s in (s1, s2):
        ok(acl.rt.destroy_stream(s))
    stop()


# ---------------------------------------------------------------------------- init

def init_kernel_reads_unwritten_memory():
    start()
    v = Vectors()
    p = malloc(4 * v.n)                        # never written
    z = tensor(p, [v.n])
    v.mul(None, v.x, z, v.out)
    ok(acl.rt.synchronize_device())
    ok(aclnn.aclDestroyTensor(z))
    ok(acl.rt.free(p))
    v.free()
    stop()


def init_half_written_view():
    start()
    v = Vectors()
    p = malloc(4 * v.n)
    half = np.ones(v.n // 2, np.float32)
    ok(acl.rt.memcpy(p, half.nbytes, half, half.nbytes, H2D))   # the first half only
    # a strided view of every other element reads into the unwritten half
    z = aclnn.aclCreateTensor([v.n // 2], FLOAT, [2], 0, ND, [v.n], p)
    out = tensor(v.pout, [v.n // 2])
    v.mul(None, z, z, out)
    ok(acl.rt.synchronize_device())
    for t in (z, out):
        ok(aclnn.aclDestroyTensor(t))
    ok(acl.rt.free(p))
    v.free()
    stop()


def init_copy_back_unwritten():
    start()
    p = malloc(256)
    ok(acl.rt.memset(p, 256, 0, 128))          # the first 128 bytes only
    out = np.zeros(64, np.float32)
    ok(acl.rt.memcpy(out, 256, p, 256, D2H))
    ok(acl.rt.free(p))
    stop()


# ---------------------------------------------------------------------------- misuse

def misuse_executor_of_another_operator():
    start()
    v = Vectors()
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(v.x, v.y, v.alpha, v.out)
    ok(ret)
    ok(aclnn.aclnnMul(None, 0, ex, None))      # runs the add, returns 0 (as CANN does)
    ok(acl.rt.synchronize_device())
    assert np.array_equal(download(v.pout, v.n), v.hx + v.hy)
    v.free()
    stop()


def misuse_workspace_too_small():
    start()
    m = Staged()
    ws = malloc(m.ws_size)
    assert aclnn.aclnnMul(ws, m.ws_size // 2, m.ex, None) != 0
    ok(aclnn.aclDestroyAclOpExecutor(m.ex))
    ok(acl.rt.free(ws))
    m.free()
    stop()


def misuse_workspace_freed():
    start()
    m = Staged()
    ws = malloc(m.ws_size)
    ok(acl.rt.free(ws))
    assert aclnn.aclnnMul(ws, m.ws_size, m.ex, None) != 0   # refused: not live
    ok(aclnn.aclDestroyAclOpExecutor(m.ex))
    m.free()
    stop()


def misuse_workspace_overlaps_output():
    start()
    m = Staged()
    block = malloc(4 * m.n + m.ws_size)       # out's memory and the workspace in one block
    out = tensor(block, [m.n])
    ws_size, ex, ret = aclnn.aclnnMulGetWorkspaceSize(m.a, m.b, out)
    ok(ret)
    ok(aclnn.aclnnMul(block, ws_size, ex, None))   # accepted; the kernels clobber out
    ok(acl.rt.synchronize_device())
    ok(aclnn.aclDestroyTensor(out))
    ok(acl.rt.free(block))
    ok(aclnn.aclDestroyAclOpExecutor(m.ex))
    m.free()
    stop()


def misuse_repeatable_after_free():
    start()
    v = Vectors()
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(v.x, v.y, v.alpha, v.out)
    ok(ret)
    ok(aclnn.aclSetAclOpExecutorRepeatable(ex))
    ok(aclnn.aclnnAdd(None, 0, ex, None))
    ok(acl.rt.synchronize_device())
    ok(acl.rt.free(v.pout))
    assert aclnn.aclnnAdd(None, 0, ex, None) != 0   # refused: its output was freed
    ok(aclnn.aclDestroyAclOpExecutor(ex))
    v.pout = malloc(4)                         # so free() frees something
    v.free()
    stop()


def misuse_host_pointer_as_device_memory():
    start()
    hp, ret = acl.rt.malloc_host(256)
    ok(ret)
    t = aclnn.aclCreateTensor([64], FLOAT, None, 0, ND, [64], hp)   # accepted: a descriptor
    ok(aclnn.aclDestroyTensor(t))
    ok(acl.rt.free_host(hp))
    stop()


def misuse_destroyed_stream():
    start()
    s, = streams(1)
    p = malloc(256)
    ok(acl.rt.destroy_stream(s))
    assert acl.rt.memset_async(p, 256, 0, 256, s) != 0
    ok(acl.rt.free(p))
    stop()


def misuse_destroyed_event():
    start()
    s, = streams(1)
    ev, ret = acl.rt.create_event()
    ok(ret)
    ok(acl.rt.destroy_event(ev))
    assert acl.rt.record_event(ev, s) != 0
    ok(acl.rt.destroy_stream(s))
    stop()


def misuse_host_read_before_sync():
    start()
    s1, = streams(1)
    v = Vectors()
    v.add(s1)
    download(v.pout, v.n)                      # the D2H copy does not wait for s1
    ok(acl.rt.synchronize_stream(s1))
    v.free()
    ok(acl.rt.destroy_stream(s1))
    stop()


# ---------------------------------------------------------------------------- leak

def leak_device_memory():
    start()
    p = malloc(100)
    ok(acl.rt.memset(p, 100, 0, 100))
    stop()                                     # reset_device releases it: never freed


def leak_handles():
    start()
    v = Vectors()
    ws, ex, ret = aclnn.aclnnAddGetWorkspaceSize(v.x, v.y, v.alpha, v.out)   # never run
    ok(ret)
    arr = aclnn.aclCreateIntArray([1, 2])      # never destroyed
    for p in (v.px, v.py, v.pout):
        ok(acl.rt.free(p))
    ok(aclnn.aclDestroyTensor(v.x))
    ok(aclnn.aclDestroyTensor(v.y))
    ok(aclnn.aclDestroyScalar(v.alpha))
    # v.out never destroyed
    stop()
    del arr


def leak_stream_and_event():
    start()
    s, = streams(1)
    ev, ret = acl.rt.create_event()
    ok(ret)
    stop()


PROGRAMS = {name: fn for name, fn in dict(globals()).items()
            if callable(fn) and name.split("_")[0] in ("ok", "race", "init", "misuse", "leak")}


def main(names: list[str]) -> None:
    results = {}
    for name in names:
        before = len(check.hook.findings) if check.ON else 0
        PROGRAMS[name]()
        found = check.hook.findings[before:] if check.ON else []
        results[name] = [{"kind": f.kind, "message": f.message, "sites": f.sites} for f in found]
    print("CORPUS " + json.dumps({"on": check.ON, "results": results}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
