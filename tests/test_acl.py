"""The pyACL-style runtime facade (docs/c-api.md#python-conventions, docs/two-phase.md#the-two-phase-interface): values first, aclError last, never raises."""
from __future__ import annotations

import numpy as np
import pytest

import npu_emu
import npu_emu.acl as acl
from npu_emu.status import (ACL_ERROR_INVALID_DEVICE, ACL_ERROR_INVALID_PARAM, ACL_SUCCESS)


@pytest.fixture(autouse=True)
def _current_backend(backend):
    assert acl.init() == ACL_SUCCESS
    assert acl.rt.set_device(0) == ACL_SUCCESS
    yield
    assert acl.rt.reset_device(0) == ACL_SUCCESS


def test_the_spec_sample_round_trips():
    stream, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS
    host = np.arange(8, dtype=np.float32)
    dev, ret = acl.rt.malloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS and dev
    assert acl.rt.memcpy(dev, host.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    back = np.zeros_like(host)
    assert acl.rt.memcpy(back, back.nbytes, dev, host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    np.testing.assert_array_equal(back, host)
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.free(dev) == 0


def test_memcpy_kinds_and_default():
    a = np.arange(64, dtype=np.uint8)
    d1, _ = acl.rt.malloc(64)
    d2, _ = acl.rt.malloc(64)
    assert acl.rt.memcpy(d1, 64, a, 64, acl.ACL_MEMCPY_DEFAULT) == 0          # -> H2D
    assert acl.rt.memcpy(d2, 64, d1, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
    h = np.zeros(64, np.uint8)
    assert acl.rt.memcpy(h, 64, d2, 64, acl.ACL_MEMCPY_DEFAULT) == 0          # -> D2H
    np.testing.assert_array_equal(h, a)
    h2 = np.zeros(64, np.uint8)
    assert acl.rt.memcpy(h2, 64, a, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == 0
    np.testing.assert_array_equal(h2, a)
    assert acl.rt.memset(d2, 64, 7, 32) == 0
    assert acl.rt.memcpy(h, 64, d2, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert (h[:32] == 7).all() and (h[32:] == a[32:]).all()
    acl.rt.free(d1)
    acl.rt.free(d2)


@pytest.mark.parametrize("args", [
    ("dst", 4, "src", 8, acl.ACL_MEMCPY_HOST_TO_DEVICE),       # count > destMax
    ("dst", 64, "src", 8, 9),                                   # bad kind
    ("dst", 64, "src", 65, acl.ACL_MEMCPY_HOST_TO_DEVICE),      # past the allocation
    ("dst", 64, "src", -1, acl.ACL_MEMCPY_HOST_TO_DEVICE),
    (12345, 64, "src", 8, acl.ACL_MEMCPY_HOST_TO_DEVICE),       # foreign device pointer
    ("dst", 64, None, 8, acl.ACL_MEMCPY_HOST_TO_DEVICE),
])
def test_memcpy_refuses_bad_arguments(args):
    dev, _ = acl.rt.malloc(64)
    src = np.zeros(128, np.uint8)
    before = np.zeros(64, np.uint8)
    acl.rt.memcpy(dev, 64, np.full(64, 9, np.uint8), 64, acl.ACL_MEMCPY_HOST_TO_DEVICE)
    real = [dev if a == "dst" else src if a == "src" else a for a in args]
    assert acl.rt.memcpy(*real) == ACL_ERROR_INVALID_PARAM
    assert acl.get_recent_err_msg()
    acl.rt.memcpy(before, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    assert (before == 9).all()  # nothing was written
    acl.rt.free(dev)


def test_free_and_malloc_errors():
    assert acl.rt.free(0xDEAD0) == ACL_ERROR_INVALID_PARAM
    assert "not allocated" in acl.get_recent_err_msg()
    assert acl.rt.malloc(0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.rt.malloc(-5)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.rt.malloc(16, 9)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_device(3) == ACL_ERROR_INVALID_DEVICE


def test_events_through_the_facade():
    stream, _ = acl.rt.create_stream()
    event, ret = acl.rt.create_event()
    assert ret == 0
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.synchronize_event(event) == 0
    done, ret = acl.rt.query_event_status(event)
    assert ret == 0 and done
    assert acl.rt.stream_wait_event(None, event) == 0
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_stream(stream) == 0


@pytest.mark.parametrize("call", [
    lambda: acl.rt.memcpy("x", "y", "z", "w", "v"),
    lambda: acl.rt.memset(None, 1, 1, 1),
    lambda: acl.rt.synchronize_stream("not a stream"),
    lambda: acl.rt.record_event(None, None),
    lambda: acl.rt.destroy_stream(None),
    lambda: acl.rt.free("abc"),
    lambda: acl.rt.malloc("big"),
])
def test_garbage_gets_a_code_not_an_exception(call):
    result = call()
    code = result if isinstance(result, int) else result[-1]
    assert code != ACL_SUCCESS


def test_pool_statistics_follow_the_facade():
    npu_emu.empty_cache()
    before = npu_emu.memory_stats()
    dev, _ = acl.rt.malloc(1 << 16)
    assert npu_emu.memory_stats()["bytes_in_use"] >= before["bytes_in_use"] + (1 << 16)
    acl.rt.free(dev)
    assert npu_emu.memory_stats()["bytes_in_use"] == before["bytes_in_use"]
    assert npu_emu.memory_stats()["bytes_cached"] >= 1 << 16


def test_event_elapsed_time_and_peak_reset():
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    stream, _ = acl.rt.create_stream()
    assert acl.rt.event_elapsed_time(start, end)[1] == ACL_ERROR_INVALID_PARAM   # not recorded
    assert acl.rt.record_event(start, stream) == 0
    dev, _ = acl.rt.malloc(1 << 20)
    assert acl.rt.memset_async(dev, 1 << 20, 1, 1 << 20, stream) == 0
    assert acl.rt.record_event(end, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == 0 and ms >= 0.0
    npu_emu.reset_peak_memory_stats()
    stats = npu_emu.memory_stats()
    assert stats["peak_bytes_in_use"] == stats["bytes_in_use"]
    assert acl.rt.free(dev) == 0
    assert npu_emu.memory_stats()["peak_bytes_in_use"] == stats["peak_bytes_in_use"]
    assert acl.rt.destroy_stream(stream) == 0


def test_handles_released_by_reset_device_say_so():
    """Streams and events acl.rt.reset_device released are refused (100000) with a message
    that names reset_device, not a destroy call the program never made; destroyed ones name
    their destroy call."""
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    gone_stream, _ = acl.rt.create_stream()
    gone_event, _ = acl.rt.create_event()
    assert acl.rt.destroy_stream(gone_stream) == ACL_SUCCESS
    assert acl.rt.destroy_event(gone_event) == ACL_SUCCESS
    assert acl.rt.reset_device(0) == ACL_SUCCESS
    assert acl.rt.set_device(0) == ACL_SUCCESS
    for call in (lambda: acl.rt.synchronize_stream(stream), lambda: acl.rt.record_event(event, None),
                 lambda: acl.rt.record_event(acl.rt.create_event()[0], stream)):
        assert call() == ACL_ERROR_INVALID_PARAM
        assert "(acl.rt.reset_device released it)" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(gone_stream) == ACL_ERROR_INVALID_PARAM
    assert "(acl.rt.destroy_stream)" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_event(gone_event) == ACL_ERROR_INVALID_PARAM
    assert "(acl.rt.destroy_event)" in acl.get_recent_err_msg()
