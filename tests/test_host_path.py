"""The host path's fast paths give what the general code gives: the pool's size classes and
block lookups, trusted tensors and their plan keys, one Context per switch setting, the
cached attribute keys, the cpu backend's one-block grids for small work, and copies run in
the calling thread on an idle stream but queued, in order, behind a busy one."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import npu_emu
from npu_emu import aclnn, device
from npu_emu import aclDataType as DT
from npu_emu.dtypes import current_rules
from npu_emu.formats import aclFormat
from npu_emu.ops import _core
from npu_emu.runtime.base import size_class
from npu_emu.tensor import Tensor, make_scalar, make_int_array, make_tensor


def _size_class_by_the_rule(n: int) -> int:
    # The documented rule, written out: 512-byte steps to 1 MiB, then 8 classes per octave.
    n = max(int(n), 1)
    if n <= 1 << 20:
        return -(-n // 512) * 512
    step = 2 ** (n.bit_length() - 4)
    return -(-n // step) * step


@pytest.mark.parametrize("n", [0, 1, 511, 512, 513, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1,
                               3 << 22, np.int64(700), np.uint32(1 << 20), -5])
def test_size_classes_of_every_kind_of_count(n):
    assert size_class(n) == _size_class_by_the_rule(n)


def test_block_ids_is_block_id_for_each_range(cpu_backend):
    be = cpu_backend
    alloc = be.allocator
    p, q = be.malloc(1000), be.malloc(3000)
    host = np.zeros(64, np.uint8)
    ext = host.ctypes.data
    alloc.register_external(ext, 64, host)
    try:
        ranges = [(p, 1000), (p, 1001), (p + 8, 992), (p + 8, 993), (q, 0), (q + 2999, 1),
                  (ext, 64), (ext + 1, 63), (ext, 65), (12345, 4), (-1, 4), (p, -1)]
        got = alloc.block_ids(ranges)
        assert got == [alloc.block_id(ptr, n) for ptr, n in ranges]
        assert got[0] is not None and got[1] is None and got[6] is not None and got[9] is None
    finally:
        alloc.unregister_external(ext)
        be.free(p)
        be.free(q)


def test_a_trusted_tensor_is_the_validated_one(cpu_backend):
    buf = device.DeviceBuffer(64)
    made = make_tensor([2, 3], DT.ACL_FLOAT, [3, 1], 1, aclFormat.ACL_FORMAT_ND, [8], buf.ptr)
    trusted = Tensor.trusted((2, 3), DT.ACL_FLOAT, (3, 1), 1, aclFormat.ACL_FORMAT_ND, (8,),
                             buf.ptr)
    fields = ("view_shape", "dtype", "view_strides", "storage_offset", "format",
              "storage_shape", "data", "owner", "numel", "extent", "itemsize")
    assert [getattr(trusted, f) for f in fields] == [getattr(made, f) for f in fields]
    assert trusted.plan_key == made.plan_key
    trusted.mark_destroyed()            # a destroyed handle has no key: the full checks run
    assert trusted.destroyed and trusted.plan_key is None


def test_one_context_per_switch_setting(cpu_backend):
    ctx = _core.current_context()
    assert _core.current_context() is ctx
    assert (ctx.backend, ctx.soc, ctx.rules) == (cpu_backend, npu_emu.current_soc(),
                                                 current_rules())
    other = next(name for name in npu_emu.SOCS if name != ctx.soc.name)
    with npu_emu.soc(other):
        there = _core.current_context()
        assert there is not ctx and there.soc.name == other
        assert there.plan_key != ctx.plan_key
    assert _core.current_context() is ctx


def test_attribute_keys_are_kept_on_the_handles_and_tell_bits_apart():
    zero, minus_zero = make_scalar(0.0, DT.ACL_FLOAT), make_scalar(-0.0, DT.ACL_FLOAT)
    assert _core._attr_key(zero) != _core._attr_key(minus_zero)
    assert _core._attr_key(zero) is _core._attr_key(zero)          # made once
    sizes = make_int_array([4, 4])
    assert _core._attr_key(sizes) == ("IntArray", (4, 4))
    assert _core._attr_key(True) != _core._attr_key(1)             # bool is not int
    with pytest.raises(TypeError):
        _core._attr_key(object())
    sizes.mark_destroyed()
    with pytest.raises(TypeError):                                  # destroyed: no key
        _core._attr_key(sizes)


def test_a_destroyed_attribute_misses_the_cache_and_is_refused(cpu_backend):
    x = device.from_numpy(np.ones((1, 4), np.float32))
    out = device.empty([4, 4], DT.ACL_FLOAT)
    size = aclnn.aclCreateIntArray([4, 4])
    assert aclnn.aclnnExpandGetWorkspaceSize(x, size, out)[2] == 0    # cached now
    aclnn.aclDestroyIntArray(size)
    ret = aclnn.aclnnExpandGetWorkspaceSize(x, size, out)[2]
    assert ret == npu_emu.ACLNN_ERR_PARAM_INVALID
    assert "destroyed" in aclnn.aclGetRecentErrMsg()


def test_run_executes_the_cached_plan_and_checks_its_memory(cpu_backend):
    """The eager path runs the cache's own plan: a repeated call on memory freed and handed
    out again at the same address (a new block) works, and writes the new block."""
    from npu_emu.ops.add import ADD
    ctx = _core.current_context()
    x = device.from_numpy(np.arange(4, dtype=np.float32))
    alpha = make_scalar(1.0, DT.ACL_FLOAT)
    for value in (1.0, 2.0, 3.0):
        y = device.from_numpy(np.full(4, value, np.float32))
        out = device.empty([4], DT.ACL_FLOAT)
        _core.run(ADD, (x, y), (out,), {"alpha": alpha}, ctx)
        np.testing.assert_array_equal(device.to_numpy(out), np.arange(4) + value)
        del y, out                   # the blocks go back; the next loop reuses them


def test_small_elementwise_grids_are_one_block(cpu_backend):
    be = cpu_backend
    limit = be.MIN_BLOCK_BYTES
    assert be.elementwise_geometry(2400, 8)[0] == 1                   # a 300 x 8 float64
    assert be.elementwise_geometry(limit // 4, 4)[0] == 1
    blocks, _, run = be.elementwise_geometry(64 * limit, 1)
    assert blocks > 1 and run >= limit and blocks * run >= 64 * limit


def test_an_inline_task_wakes_what_came_while_it_ran_and_keeps_the_streams_order(cpu_backend):
    """A task run in the calling thread ends without the stream's lock unless something came
    meanwhile: a task queued behind it, a thread waiting for it, or destroy(). Each is woken
    (no hang), and the queued tasks run after it, in order."""
    stream = cpu_backend.create_stream()
    order: list[str] = []
    running, release = threading.Event(), threading.Event()

    def inline_task() -> None:
        order.append("inline")
        running.set()
        assert release.wait(10)

    def queue_and_wait() -> None:
        assert running.wait(10)
        stream.submit(lambda: order.append("queued"))    # behind the inline task
        stream.synchronize()                             # a waiter while it runs
        order.append("synchronized")

    other = threading.Thread(target=queue_and_wait, daemon=True)
    other.start()
    releaser = threading.Timer(0.2, release.set)
    releaser.start()
    assert stream.try_inline(inline_task)
    other.join(10)
    assert not other.is_alive()
    assert order == ["inline", "queued", "synchronized"]
    assert stream.idle
    # destroy() while an inline task runs: the worker, told to stop, is woken at its end.
    running.clear()
    release.clear()
    closer = threading.Thread(target=lambda: (running.wait(10), stream.destroy()), daemon=True)
    closer.start()
    threading.Timer(0.2, release.set).start()
    assert stream.try_inline(inline_task)
    closer.join(10)
    assert not closer.is_alive()
    for _ in range(200):               # repeated, quick: the end's lock-free path every time
        s = cpu_backend.create_stream()
        assert s.try_inline(lambda: None)
        s.submit(lambda: None)
        s.synchronize()
        s.destroy()


def test_an_upload_on_an_idle_stream_runs_at_once_and_behind_a_busy_one_waits(cpu_backend):
    be = cpu_backend
    stream = be.create_stream()
    ptr = be.malloc(8)
    try:
        be.copy_from_host(ptr, np.full(8, 7, np.uint8), stream)        # idle: done on return
        assert stream.idle
        got = np.empty(8, np.uint8)
        be.copy_to_host(got, ptr)
        assert got.tolist() == [7] * 8
        gate = threading.Event()
        stream.submit(gate.wait)
        be.copy_from_host(ptr, np.full(8, 9, np.uint8), stream)        # queued behind the gate
        be.copy_to_host(got, ptr)
        assert got.tolist() == [7] * 8
        gate.set()
        stream.synchronize()
        be.copy_to_host(got, ptr)
        assert got.tolist() == [9] * 8
    finally:
        be.free(ptr)
        stream.destroy()
