"""Smoke checks of the cuda backend's known risks on a real GPU, which the fake-GPU tests
(tests/test_cuda_fake_gpu.py) can only show in logic: stream destroy and the pool, event
errors, out of memory, pinned copies, the hand-over ordering with CuPy, subnormals through
CuPy, complex FMA. Each prints one line: PASS / FAIL / INFO <name>: detail; exit 0 always
(benchmarks/run_gpu_check.sh counts the lines). NPU_EMU_DEVICE=cuda; ~30-60 s on an H200."""
from __future__ import annotations

import ctypes
import os
import time
import weakref
import traceback
import warnings

import numpy as np

os.environ.setdefault("NPU_EMU_DEVICE", "cuda")
RESULTS = []


def report(status, name, detail=""):
    line = f"{status:4s} {name}: {detail}"
    RESULTS.append(line)
    print(line, flush=True)


def check(name):
    def deco(fn):
        t0 = time.time()
        try:
            fn()
        except Exception as exc:
            report("FAIL", name, f"raised {type(exc).__name__}: {str(exc)[:300]}")
            traceback.print_exc()
        finally:
            print(f"      ({name}: {time.time() - t0:.2f} s)", flush=True)
        return fn
    return deco


from npu_emu import runtime                                   # noqa: E402
from npu_emu.kernels.copy import View, plan_copy             # noqa: E402
from npu_emu.status import AclnnError, ACL_ERROR_INVALID_PARAM, ACL_ERROR_BAD_ALLOC  # noqa: E402

t0 = time.time()
be = runtime.use("cuda")
report("INFO", "backend", f"{be.info()} (created in {time.time() - t0:.2f} s)")
import cupy  # noqa: E402

GiB = 1 << 30


def u8(ptr, n):
    return View(ptr, (n,), (1,), 1)


@check("probe arch")
def _():
    arch = be.info()["device"]
    report("PASS" if "sm_90" in arch else "FAIL", "probe arch", f"{arch} (want a real sm_90 cubin on H200)")


@check("destroy_stream waits for queued work (as cpu, acl.rt docstring)")
def _():
    n = GiB
    src, dst = be.malloc(n), be.malloc(n)
    be.memset(src, 7, n)
    be.memset(dst, 0, n)
    s = be.create_stream()
    ev = be.create_event()
    for _ in range(8):
        be.enqueue(plan_copy(be, u8(dst, n), u8(src, n)), s)
    ev.record(s)
    s.destroy()
    pending = not ev.query()
    h = np.empty(64, np.uint8)
    be.copy_to_host(h, dst + n - 64)          # stream None: the default stream only
    ok = bool((h == 7).all())
    be.synchronize()
    report("PASS" if ok else "FAIL", "destroy_stream waits",
           f"work still pending after destroy: {pending}; a read right after saw "
           f"{'the result' if ok else 'STALE bytes ' + str(h[:4])}")
    # the pool after destroy: is the block handed out again while the destroyed stream runs?
    s2 = be.create_stream()
    ev2 = be.create_event()
    for _ in range(8):
        be.enqueue(plan_copy(be, u8(dst, n), u8(src, n)), s2)
    ev2.record(s2)
    s2.destroy()
    be.free(dst)                               # stream None: fences only live streams
    q = be.malloc(n)
    hazard = (q == dst) and not ev2.query()
    be.synchronize()
    report("FAIL" if hazard else "PASS", "free after destroy_stream",
           "block reused while the destroyed stream's kernels still ran (write-after-free hazard)"
           if hazard else f"block reused: {q == dst}, work done by then: {ev2.query()}")
    be.free(q)
    be.free(src)


@check("event elapsed before record")
def _():
    a, b = be.create_event(timing=True), be.create_event(timing=True)
    try:
        a.elapsed_ms(b)
        report("FAIL", "event elapsed before record", "no error")
    except AclnnError as err:
        report("PASS" if err.code == ACL_ERROR_INVALID_PARAM else "FAIL", "event elapsed before record",
               f"code {err.code} (cpu backend and tests/test_acl.py expect {ACL_ERROR_INVALID_PARAM}): "
               f"{err.message[:120]}")


@check("stream-ordered reuse across streams")
def _():
    n = GiB
    src = be.malloc(n)
    be.memset(src, 3, n)
    s1, s2 = be.create_stream(), be.create_stream()
    blk = be.malloc(n, s1)
    for _ in range(6):
        be.enqueue(plan_copy(be, u8(blk, n), u8(src, n)), s1)
    be.free(blk, s1)
    other = be.malloc(n, s2)                  # must not be blk while s1 still works on it
    same_s1 = be.malloc(n, s1)                # may be blk at once (stream order)
    report("PASS" if other != blk else "FAIL", "stream-ordered reuse",
           f"other stream got the block: {other == blk}; same stream got it: {same_s1 == blk}")
    be.synchronize()
    for p in (other, same_s1, src):
        be.free(p)
    s1.destroy()
    s2.destroy()


@check("out of memory: BAD_ALLOC, then the cache is released and reused")
def _():
    be.synchronize()
    be.empty_cache()
    cupy.get_default_memory_pool().free_all_blocks()
    free0, total = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    held = cupy.empty(16 * GiB, cupy.uint8)      # freed into CuPy's pool: ours must release it
    del held
    held = pool.total_bytes()
    chunk = 8 * GiB
    blocks, code, t = [], None, time.time()
    try:
        while len(blocks) < 40:
            blocks.append(be.malloc(chunk))
    except AclnnError as err:
        code = err.code
    took = time.time() - t
    cupy_after = pool.total_bytes()
    for p in blocks:
        be.free(p)
    t = time.time()
    try:
        big = be.malloc(12 * GiB)            # another size class: needs the cache released
        be.free(big)
        retry = "12 GiB after freeing into the cache: ok"
    except AclnnError as err:
        retry = f"12 GiB after freeing into the cache FAILED: {err.code} {err.message[:100]}"
    be.empty_cache()
    free1, _ = cupy.cuda.runtime.memGetInfo()
    ok = code == ACL_ERROR_BAD_ALLOC and "ok" in retry and abs(free1 - free0) < GiB and cupy_after == 0
    report("PASS" if ok else "FAIL", "OOM",
           f"CuPy's pool held {held / GiB:.0f} GiB, {cupy_after / GiB:.0f} GiB at the error; "
           f"{len(blocks)} x 8 GiB before the error (code {code}, {took:.2f} s; card {total / GiB:.0f} GiB, "
           f"{free0 / GiB:.0f} free); {retry} ({time.time() - t:.2f} s); free after empty_cache "
           f"{free1 / GiB:.1f} GiB")


@check("host copies: pageable vs pinned (acl.rt.malloc_host)")
def _():
    n = GiB
    dev = be.malloc(n)
    s = be.create_stream()
    host = np.ones(n, np.uint8)
    be.copy_from_host(dev, host)
    t = time.time()
    for _ in range(3):
        be.copy_from_host(dev, host)
    pageable = 3 * n / (time.time() - t) / 1e9
    hp = be.malloc_host(n)
    pinned = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(hp))
    pinned[:] = 5
    be.copy_from_host(dev, pinned, s)
    s.synchronize()
    t = time.time()
    be.copy_from_host(dev, pinned, s)             # on a stream: must return before it is done
    call = time.time() - t
    s.synchronize()
    total = time.time() - t
    back = np.empty(64, np.uint8)
    be.copy_to_host(back, dev + n - 64)
    ok = bool((back == 5).all()) and call < 0.5 * total
    report("PASS" if ok else "FAIL", "pinned copies",
           f"H2D pageable {pageable:.1f} GB/s; pinned {n / total / 1e9:.1f} GB/s, the call returned "
           f"after {call * 1e3:.2f} ms of {total * 1e3:.1f} ms (asynchronous: {call < 0.5 * total}); "
           f"data ok {bool((back == 5).all())}")
    be.free_host(hp)
    be.free(dev)
    s.destroy()


@check("DLPack / CAI with CuPy")
def _():
    import npu_emu.array_api as xp
    x = xp.asarray(np.arange(1 << 20, dtype=np.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = cupy.from_dlpack(x)
        ok_d = bool((cupy.asnumpy(d) == np.arange(1 << 20, dtype=np.float32)).all())
        c = cupy.asarray(x)
        ok_c = bool((cupy.asnumpy(c) == np.arange(1 << 20, dtype=np.float32)).all())
        g = cupy.arange(1 << 20, dtype=cupy.float32) * 2
        y = xp.from_dlpack(g)
        ok_y = bool((np.asarray(y) == np.arange(1 << 20, dtype=np.float32) * 2).all())
    dep = sorted({str(w.message)[:60] for w in caught if issubclass(w.category, DeprecationWarning)})
    cai = x.__cuda_array_interface__
    same_mem = d.data.ptr == c.data.ptr == cai["data"][0]
    report("PASS" if ok_d and ok_c and ok_y and same_mem else "FAIL", "DLPack/CAI",
           f"cupy.from_dlpack ok={ok_d}, cupy.asarray(CAI) ok={ok_c}, xp.from_dlpack(cupy) ok={ok_y}, "
           f"zero-copy={same_mem}, CAI stream={cai.get('stream')} (ours {be.default_stream.ptr})")
    report("FAIL" if dep else "PASS", "no deprecation warnings in the handshakes", "; ".join(dep) or "none")


@check("ordering: we write, then CuPy reads on its own stream without a sync")
def _():
    import npu_emu.array_api as xp
    n = 256 << 20
    x = xp.zeros((n,), dtype=xp.float32)
    stale = {"CAI": 0, "DLPack": 0}
    for i in range(10):
        for how in stale:
            x = x + 1.0                               # our kernel, on our non-blocking stream
            c = cupy.asarray(x) if how == "CAI" else cupy.from_dlpack(x)
            v = float(c[n - 1])                       # CuPy: the legacy default stream
            stale[how] += v != float(2 * i + (1 if how == "CAI" else 2))
    cupy.cuda.Device().synchronize()
    report("FAIL" if any(stale.values()) else "PASS", "hand-over ordering",
           f"stale reads of 10: {stale} (the consumer's stream waits on an event of ours)")


@check("ordering: CuPy writes after the hand-over, then we read without a sync")
def _():
    import npu_emu.array_api as xp
    n = 256 << 20
    x = xp.zeros((n,), dtype=xp.float32)
    c = cupy.asarray(x)
    stale = 0
    for i in range(10):
        c.fill(float(i + 1))                      # async on the legacy null stream
        v = float(x[n - 1])                       # ours: the non-blocking default stream
        stale += v != i + 1
    cupy.cuda.Device().synchronize()
    report("INFO", "after the hand-over", f"{stale}/10 reads saw stale data (documented: work "
           f"another library queues later is the user's to order: synchronize it first)")


@check("dropping an imported array does not wait for our queued work")
def _():
    import npu_emu.array_api as xp
    n = GiB
    src, dst = be.malloc(n), be.malloc(n)
    g = cupy.ones(1 << 20, dtype=cupy.float32)
    y = xp.from_dlpack(g)
    z = y + 1.0
    gone = weakref.ref(y._st)                      # the imported storage, whose drop we time
    for _i in range(8):                            # ~ms of work queued on our default stream
        be.enqueue(plan_copy(be, u8(dst, n), u8(src, n)), None)
    t = time.time()
    del y, z
    dropped = time.time() - t
    t = time.time()
    be.default_stream.synchronize()
    left = time.time() - t
    be.free(src)
    be.free(dst)
    if gone() is not None:
        report("FAIL", "drop without a sync", "the imported storage was not dropped: nothing measured")
    else:
        report("PASS" if dropped < left else "FAIL", "drop without a sync",
               f"the drop took {dropped * 1e3:.2f} ms, the queued work then needed {left * 1e3:.1f} ms more")


@check("array API via CuPy: subnormals and reduction order")
def _():
    import npu_emu.array_api as xp
    sub = np.float32([1e-45, -1e-45, 1e-40, 5.877472e-39])
    out = []
    for name, f in (("sqrt", np.sqrt), ("abs", np.abs), ("negative", np.negative), ("sign", np.sign),
                    ("log", np.log), ("sin", np.sin), ("ceil", np.ceil)):
        with np.errstate(all="ignore"):
            want = f(sub)
        got = np.asarray(getattr(xp, name)(xp.asarray(sub)))
        both_nan = np.isnan(got) & np.isnan(want)
        bad = int(np.sum((got.view(np.uint32) != want.view(np.uint32)) & ~both_nan))
        if bad:
            out.append(f"{name}: {bad}/4 differ (e.g. {got[0]!r} vs {want[0]!r})")
    report("FAIL" if out else "PASS", "float32 subnormals through CuPy (-ftz=true)",
           "; ".join(out) or "kept")
    a = np.random.default_rng(5).standard_normal((64, 257)).astype(np.float32)
    diffs = []
    for name in ("sum", "mean", "prod"):
        for axis in (None, 0, 1):
            got = np.asarray(getattr(xp, name)(xp.asarray(a), axis=axis))
            want = getattr(np, name)(a, axis=axis)
            if not np.array_equal(np.atleast_1d(got).view(np.uint32), np.atleast_1d(want).view(np.uint32)):
                diffs.append(f"{name}(axis={axis})")
    report("FAIL" if diffs else "PASS", "float32 reductions bit-equal to NumPy (tests expect it)",
           ", ".join(diffs) or "equal")


@check("complex64 multiply: cpu backend vs cuda (FMA on AVX-512 hosts)")
def _():
    from npu_emu import aclnn, device
    from npu_emu.dtypes import aclDataType as DT
    r = np.random.default_rng(1)
    n = 1 << 16
    a = (r.normal(size=n) + 1j * r.normal(size=n)).astype(np.complex64)
    b = (r.normal(size=n) + 1j * r.normal(size=n)).astype(np.complex64)
    res = {}
    for name in ("cpu", "cuda"):
        runtime.use(name)
        out = device.empty([n], DT.ACL_COMPLEX64)
        ws, ex, ret = aclnn.aclnnMulGetWorkspaceSize(device.from_numpy(a), device.from_numpy(b), out)
        assert ret == 0 and aclnn.aclnnMul(None, ws, ex, None) == 0
        res[name] = device.storage_to_numpy(out).view(np.uint32)
    runtime.use("cuda")
    ref = np.empty_like(a)
    ref.real = a.real * b.real - a.imag * b.imag
    ref.imag = a.real * b.imag + a.imag * b.real
    ref = ref.view(np.uint32)
    avx512 = "avx512f" in open("/proc/cpuinfo").read()
    bad_cpu, bad_gpu = int((res["cpu"] != ref).sum()), int((res["cuda"] != ref).sum())
    report("PASS" if bad_cpu == bad_gpu == 0 else "FAIL", "complex64 mul",
           f"words differing from the textbook (unfused) result: cpu {bad_cpu}, cuda {bad_gpu} of {2 * n}"
           f" (host avx512f: {avx512})")


print("SMOKE-SUMMARY " + " | ".join(l.split(":")[0] for l in RESULTS if l.startswith("FAIL")), flush=True)
