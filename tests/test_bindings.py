"""The eager layers' plan cache (npu_emu.ops._bindings): plans kept by geometry and moved to
each call's memory. A client's loop makes new results every round; each round must give
what planning afresh gives (references: NumPy's results for the same float64 inputs, where
add, multiply and copies are exact or correctly rounded in both), without planning again,
and a plan must never be moved where the planner would have decided otherwise: other
alignment, other aliasing, memory of different arrays that overlaps."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu import device
from npu_emu.kernels import reduce as reduce_family
from npu_emu.kernels import ufunc as ufunc_family
from npu_emu.ops import _bindings, _core
from npu_emu.runtime.base import ALIGN, Launch, Pointer
from npu_emu.tensor import Tensor

from helpers import count_calls


@pytest.fixture
def planning(cpu_backend, monkeypatch):
    """A counter of every planner call of the eager layers: operators, ufunc, reduce."""
    calls = {"n": 0}

    def counted(fn):
        def wrapper(*a, **k):
            calls["n"] += 1
            return fn(*a, **k)
        return wrapper

    monkeypatch.setattr(_core, "_prepare", counted(_core._prepare))
    monkeypatch.setattr(ufunc_family, "plan", counted(ufunc_family.plan))
    monkeypatch.setattr(reduce_family, "plan", counted(reduce_family.plan))
    _core.clear_plan_cache()
    return calls


def _data(seed: int, shape=(30, 8)) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def test_a_loop_with_new_results_each_round_plans_only_its_first_round(planning):
    a, b = _data(1), _data(2)
    x, y = xp.asarray(a), xp.asarray(b)
    want_w = np.asarray(xp.exp(xp.asarray(a * b + a))) / b
    kept, planned = [], []
    for _ in range(6):
        z = x * y + x                     # Mul, Add: operators
        w = xp.exp(z) / y                 # ufunc family
        s = xp.sum(w, axis=0)             # reduce family
        z += y                            # InplaceAdd: one tensor both read and written
        kept += [z, w, s]                 # kept alive: every round's results are new memory
        planned.append(planning["n"])
        np.testing.assert_array_equal(np.asarray(z), a * b + a + b)
        np.testing.assert_array_equal(np.asarray(w), want_w)
    assert planned[0] >= 5
    assert planned[-1] == planned[0], planned
    assert len({int(k._t.data) for k in kept}) == len(kept)   # the memory did move


def test_a_loop_whose_temporaries_are_freed_out_of_order_is_bound_from_its_second_round(
        cpu_backend, monkeypatch):
    # The pool hands out its lowest free block (runtime.base.Allocator.free), so the same
    # steps get the same addresses each round and find their plans bound: no move at all.
    moves = count_calls(monkeypatch, _bindings, "moved")
    a, b = _data(3), _data(4)
    x, y = xp.asarray(a), xp.asarray(b)
    per_round, addresses = [], []
    for _ in range(5):
        before = moves["moved"]
        t1, t2, t3 = x * y, x + y, x - y
        t4 = t1 * t2 + t3
        np.testing.assert_array_equal(np.asarray(t4), (a * b) * (a + b) + (a - b))
        addresses.append(tuple(int(t._t.data) for t in (t1, t2, t3, t4)))
        del t1, t2, t3, t4                # freed in the order they were made
        per_round.append(moves["moved"] - before)
    # The first round may take fresh memory; from the second on, the same addresses (the
    # freed-last-first pool alternated them) and every plan found bound.
    assert len(set(addresses[1:])) == 1, addresses
    assert per_round[2:] == [0, 0, 0], per_round


def test_moved_results_equal_freshly_planned_ones_bit_for_bit(cpu_backend):
    a, b = _data(3, (257, 5)), _data(4, (257, 5))
    x, y = xp.asarray(a), xp.asarray(b)
    kept = [x * 0.0 for _ in range(3)]    # later results land elsewhere
    moved = [np.asarray(f(x, y)) for f in (xp.add, xp.hypot, xp.atan2, lambda p, q: xp.mean(p * q, axis=1))]
    _core.clear_plan_cache()
    fresh = [np.asarray(f(x, y)) for f in (xp.add, xp.hypot, xp.atan2, lambda p, q: xp.mean(p * q, axis=1))]
    for m, f in zip(moved, fresh):
        assert m.tobytes() == f.tobytes()
    np.testing.assert_array_equal(moved[0], a + b)
    assert kept


def test_a_copy_between_overlapping_imports_is_staged_after_a_disjoint_one(cpu_backend):
    """The plan of dst[...] = src for two arrays whose memory is apart is moved to no call
    whose arrays overlap: that call's source must be staged first (as NumPy's copy is)."""
    buf = np.arange(2048, dtype=np.float64)
    # Two pairs at the same offsets in a 256-byte block: one apart, one overlapping by 7.
    far_src, far_dst = buf[512:520], buf[1025:1033]
    near_src, near_dst = buf[0:8], buf[1:9]
    assert far_src.ctypes.data % ALIGN == near_src.ctypes.data % ALIGN
    assert far_dst.ctypes.data % ALIGN == near_dst.ctypes.data % ALIGN
    want = buf.copy()
    want[1025:1033] = want[512:520]
    want[1:9] = want[0:8].copy()
    xp.from_dlpack(far_dst)[...] = xp.from_dlpack(far_src)
    xp.from_dlpack(near_dst)[...] = xp.from_dlpack(near_src)
    np.testing.assert_array_equal(buf, want)


def test_views_of_one_array_are_moved_with_their_aliasing(planning):
    a = _data(5, (16, 16))
    for _ in range(3):
        x = xp.asarray(a, copy=True)      # new memory each round
        x[1:, :] += x[:-1, :]             # reads a shifted view of what it writes
        want = a.copy()
        want[1:, :] += a[:-1, :]
        np.testing.assert_array_equal(np.asarray(x), want)


def test_a_copy_within_one_array_is_staged_after_one_between_two(cpu_backend):
    """y[1:9] = x[0:8] (two arrays) and x[1:9] = x[0:8] (one) have the same geometry; only
    the second reads what it writes, and its plan must be its own."""
    a = np.arange(16.0)
    x, y = xp.asarray(a, copy=True), xp.asarray(a, copy=True)
    y[1:9] = x[0:8]
    x[1:9] = x[0:8]
    want = a.copy()
    want[1:9] = a[0:8]
    np.testing.assert_array_equal(np.asarray(y), want)
    np.testing.assert_array_equal(np.asarray(x), want)


# ----------------------------------------------------------------------- the pieces

def _tensor(data: int, n: int = 8) -> Tensor:
    from npu_emu.dtypes import aclDataType as DT
    from npu_emu.tensor import aclFormat
    return Tensor.trusted((n,), DT.ACL_FLOAT, (1,), 0, aclFormat.ACL_FORMAT_ND, (n,), data)


def test_signature_reads_alignment_nullness_and_aliasing():
    assert _bindings.signature((4096, 8192, 4096)) == ((0, 0, 0), (0, 1, 0))
    assert _bindings.signature((4096 + 16, 0)) == ((16, -1), (0, 1))
    assert _bindings.signature((4096, 8192)) != _bindings.signature((4096, 8192 + 8))


def test_overlapping_storages_of_different_bases_are_not_disjoint():
    t, u, v = _tensor(4096), _tensor(4096 + 16), _tensor(4096 + 32)   # 32 bytes each
    ranges = _bindings.spans([t, u])
    assert ranges == [(4096, 4128), (4112, 4144)]
    assert not _bindings.disjoint(ranges, (4096, 4112))
    assert _bindings.disjoint(_bindings.spans([t, v]), (4096, 4128))
    assert _bindings.disjoint(_bindings.spans([t, t]), (4096, 4096))   # one array twice


def test_a_pointer_outside_every_tensor_keeps_the_plan_to_its_addresses():
    kernel = object()
    inside = Launch(kernel, (1, 1, 1), (1, 1, 1), (np.int64(3), Pointer(4096 + 8), Pointer(8192)))
    ranges = _bindings.spans([_tensor(4096), _tensor(8192)])
    moves = _bindings.moves_of([inside], ranges)
    assert moves == (((1, 0, 8), (2, 1, 0)),)
    [moved] = _bindings.moved([inside], moves, (65536, 131072))
    assert [int(a) for a in moved.args] == [3, 65536 + 8, 131072]
    assert moved.args[1].__class__ is Pointer and moved.args[0].__class__ is np.int64
    outside = Launch(kernel, (1, 1, 1), (1, 1, 1), (Pointer(1 << 40),))
    assert _bindings.moves_of([outside], ranges) is None
    null = Launch(kernel, (1, 1, 1), (1, 1, 1), (np.uint64(0), Pointer(4096)))
    assert _bindings.moves_of([null], ranges) == (((1, 0, 0),),)   # a null is no Pointer


def test_the_cache_serves_a_kept_binding_moves_to_new_ones_and_refuses_others():
    kernel = object()
    cache = _bindings.BoundPlans(lambda p: p, lambda p, launches: launches)
    t = _tensor(4096)
    plan = [Launch(kernel, (1, 1, 1), (1, 1, 1), (Pointer(4096 + 4),))]
    cache.put("k", [t], (4096,), plan)
    assert cache.get("k", [t], (4096,)) is plan
    u = _tensor(8192)
    got = cache.get("k", [u], (8192,))
    assert int(got[0].args[0]) == 8192 + 4
    assert cache.get("k", [u], (8192,)) is got              # now kept for those addresses
    assert cache.get("k", [_tensor(8200)], (8200,)) is None  # other alignment: plan again
    assert cache.get("other", [u], (8192,)) is None
    for k in range(_bindings.BINDINGS_KEPT + 5):              # many bindings kept, not all
        base = (100 + k) * ALIGN
        assert int(cache.get("k", [_tensor(base)], (base,))[0].args[0]) == base + 4
    assert len(cache._entries["k"].bound) == _bindings.BINDINGS_KEPT
    cache.clear()
    assert not cache


def test_a_moved_launch_on_the_cpu_runs_on_its_new_memory(cpu_backend):
    """The cpu backend's packed form of a moved launch: the origin's cells but the
    pointers', which point at the new memory (a copy kernel run both ways)."""
    from npu_emu.kernels.copy import View, plan_copy
    be = cpu_backend
    src = device.from_numpy(np.arange(64, dtype=np.float32))
    dst = device.empty([64], "f32")
    src2 = device.from_numpy(np.arange(64, 128, dtype=np.float32))
    dst2 = device.empty([64], "f32")
    launches = plan_copy(be, View(dst.data, (64,), (1,), 4), View(src.data, (64,), (1,), 4))
    be.enqueue(launches, None)
    be.synchronize()
    np.testing.assert_array_equal(device.to_numpy(dst), np.arange(64, dtype=np.float32))
    moves = _bindings.moves_of(launches, _bindings.spans([src, dst]))
    assert moves is not None
    be.enqueue(_bindings.moved(launches, moves, (src2.data, dst2.data)), None)
    be.synchronize()
    np.testing.assert_array_equal(device.to_numpy(dst2), np.arange(64, 128, dtype=np.float32))
    np.testing.assert_array_equal(device.to_numpy(dst), np.arange(64, dtype=np.float32))
