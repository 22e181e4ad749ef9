"""Status codes (docs/two-phase.md#the-two-phase-interface) and the AclnnError exception."""
from __future__ import annotations

import pytest

import npu_emu
from npu_emu import acl, status
from npu_emu.status import AclnnError

# docs/two-phase.md#the-two-phase-interface, transcribed literally.
ACLNN_CODES = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
}
ACL_CODES = {
    "ACL_SUCCESS": 0,
    "ACL_ERROR_INVALID_PARAM": 100000,
    "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_BAD_ALLOC": 200000,
    "ACL_ERROR_INVALID_DEVICE": 200002,
    "ACL_ERROR_INTERNAL_ERROR": 500000,
}
MEMCPY_KINDS = {
    "ACL_MEMCPY_HOST_TO_HOST": 0,
    "ACL_MEMCPY_HOST_TO_DEVICE": 1,
    "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    "ACL_MEMCPY_DEFAULT": 4,
}
MALLOC_POLICIES = {
    "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    "ACL_MEM_MALLOC_HUGE_ONLY": 1,
    "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
}


@pytest.mark.parametrize("name, value", sorted(ACLNN_CODES.items()))
def test_aclnn_codes(name, value):
    assert getattr(status, name) == value
    assert getattr(npu_emu, name) == value   # re-exported at the top level
    assert type(getattr(npu_emu, name)) is int


@pytest.mark.parametrize("name, value", sorted(ACL_CODES.items()))
def test_acl_runtime_codes(name, value):
    assert getattr(status, name) == value
    assert getattr(npu_emu, name) == value
    assert getattr(acl, name) == value       # pyACL style: acl.ACL_ERROR_...


@pytest.mark.parametrize("name, value", sorted({**MEMCPY_KINDS, **MALLOC_POLICIES}.items()))
def test_memcpy_kinds_and_malloc_policies(name, value):
    assert getattr(acl, name) == value


def test_aclnn_error_attributes():
    err = AclnnError(161002, "the reason")
    assert isinstance(err, Exception)
    assert err.code == 161002 and type(err.code) is int
    assert err.message == "the reason"
    assert "the reason" in str(err) and "161002" in str(err)
    assert err.name == "ACLNN_ERR_PARAM_INVALID"
    assert AclnnError(561102, "x").name == "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR"
    assert AclnnError(100000, "x").name == "ACL_ERROR_INVALID_PARAM"
    assert npu_emu.AclnnError is AclnnError


def test_aclnn_error_can_be_raised_and_caught():
    with pytest.raises(npu_emu.AclnnError) as info:
        raise AclnnError(npu_emu.ACLNN_ERR_PARAM_NULLPTR, "self is null")
    assert info.value.code == 161001
    assert info.value.message == "self is null"


def test_nullptr_message_follows_canns_template():
    err = status.nullptr("aclTensor", "self")
    assert err.code == 161001
    assert err.message == ("Expected a value of type [aclTensor] for argument [self] but "
                           "instead found nullptr.")


def test_recent_error_message_is_per_thread():
    import threading

    status.set_recent_error("")            # clears what earlier calls left on this thread
    status.set_recent_error("main thread message")
    seen = []
    worker = threading.Thread(target=lambda: seen.append(status.recent_error()))
    worker.start()
    worker.join()
    assert seen == [""]
    assert status.recent_error() == "main thread message"


def _documented_kinds() -> dict[int, tuple[str, ...]]:
    """code -> the exception kinds docs/status-codes.md's table says the Python layers raise."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "status-codes.md").read_text()
    out = {}
    for row in re.findall(r"^\| `\w+` \| (\d+) \| \w+ \| ([^|]+) \|", text, re.M):
        out[int(row[0])] = tuple(re.findall(r"\b(TypeError|ValueError|RuntimeError|MemoryError)\b", row[1]))
    return out


KINDS = {k.__name__: k for k in (TypeError, ValueError, RuntimeError, MemoryError)}


def test_every_code_raises_the_kinds_its_row_documents():
    import pickle
    from npu_emu.status import ALSO_RAISED_AS, STATUS_NAMES
    documented = _documented_kinds()
    assert set(documented) >= set(STATUS_NAMES) - {0}
    for code, kinds in documented.items():
        if code == 0:
            continue
        assert isinstance(status.AclnnError(code, "x"), KINDS[kinds[0]]), code
        if code in ALSO_RAISED_AS:
            both = status.AclnnError(code, "x", ALSO_RAISED_AS[code][0])
            assert all(isinstance(both, KINDS[k]) for k in kinds), (code, kinds)
            again = pickle.loads(pickle.dumps(both))
            assert type(again) is type(both) and again.code == code


def test_a_dtype_refusal_is_caught_as_the_documented_value_error():
    # issue 23: `except ValueError` (161002's row) must catch Expand's refusal of float64.
    import npu_emu.array_api as xp
    x = xp.asarray([[1.0]], dtype=xp.float64)
    with pytest.raises(ValueError, match="DT_DOUBLE") as info:
        xp.expand(x, (2, 2))
    assert isinstance(info.value, TypeError) and info.value.code == status.ACLNN_ERR_PARAM_INVALID
    with pytest.raises(TypeError):
        xp.expand(x, (2, 2))
