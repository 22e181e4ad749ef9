"""aclFormat (docs/formats.md#formats): values, public formats' rank rules, private formats, as_format."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import npu_emu
from npu_emu import aclFormat
from npu_emu.formats import (as_format, check_public_format_rank, is_private,
                             public_formats_for_rank)

F = aclFormat

# docs/formats.md#formats, transcribed literally.
SPEC_FORMATS = {
    "ACL_FORMAT_UNDEFINED": -1,
    "ACL_FORMAT_NCHW": 0,
    "ACL_FORMAT_NHWC": 1,
    "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_FRACTAL_Z": 4,
    "ACL_FORMAT_NC1HWC0_C04": 12,
    "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_FORMAT_NCDHW": 30,
    "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FRACTAL_Z_3D": 33,
    "ACL_FORMAT_NC": 35,
    "ACL_FORMAT_NCL": 47,
    "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
    "ACL_FORMAT_FRACTAL_NZ_C0_2": 52,
    "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
}

# "Public formats and their ranks": rank -> the formats a tensor of that rank may carry.
SPEC_PUBLIC_BY_RANK = {
    5: {"NCDHW", "NDHWC", "ND"},
    4: {"NCHW", "NHWC", "HWCN", "ND"},
    3: {"NCL", "ND"},
    2: {"NC", "ND"},
}
PUBLIC = ["ND", "NCDHW", "NDHWC", "NCHW", "NHWC", "HWCN", "NCL", "NC"]
SPEC_PRIVATE = {"NC1HWC0", "FRACTAL_Z", "NC1HWC0_C04", "FRACTAL_NZ", "NDC1HWC0",
                "FRACTAL_Z_3D"}


def fmt(short: str) -> aclFormat:
    # CANN spells FRACTAL_Z_3D without FORMAT_ (sic)
    return F["ACL_" + short] if short == "FRACTAL_Z_3D" else F["ACL_FORMAT_" + short]


def allowed_for_rank(rank: int) -> set[str]:
    return SPEC_PUBLIC_BY_RANK.get(rank, {"ND"})


def test_enum_values():
    assert {m.name: int(m) for m in aclFormat} == SPEC_FORMATS
    assert npu_emu.aclFormat is aclFormat
    assert issubclass(aclFormat, int)


@pytest.mark.parametrize("rank", range(9))
def test_public_formats_for_rank(rank):
    assert {f.name.removeprefix("ACL_FORMAT_") for f in public_formats_for_rank(rank)} \
        == allowed_for_rank(rank)


@pytest.mark.parametrize("rank, name", list(itertools.product(range(9), PUBLIC)))
def test_rank_rule(rank, name):
    if name in allowed_for_rank(rank):
        check_public_format_rank(fmt(name), rank)
        check_public_format_rank(int(fmt(name)), rank)      # plain ints are formats too
    else:
        with pytest.raises(npu_emu.AclnnError) as err:
            check_public_format_rank(fmt(name), rank, "self")
        assert err.value.code == 161002
        msg = err.value.message
        assert name in msg and str(rank) in msg and "self" in msg


def test_rank_mismatch_message_example():
    with pytest.raises(npu_emu.AclnnError) as err:
        check_public_format_rank(F.ACL_FORMAT_NCHW, 3)
    assert "NCHW" in err.value.message and "3" in err.value.message and "4" in err.value.message


@pytest.mark.parametrize("name", sorted(SPEC_PRIVATE))
def test_private_formats(name):
    assert is_private(fmt(name))
    # Private layouts are not subject to the public rank rules (their storage is fractal).
    for rank in range(9):
        check_public_format_rank(fmt(name), rank)


def test_fractal_nz_c0_variants_are_private_and_public_ones_are_not():
    # Decision in the code: the FRACTAL_NZ_C0_x variants are private layouts too.
    for c0 in (16, 32, 2, 4, 8):
        assert is_private(F[f"ACL_FORMAT_FRACTAL_NZ_C0_{c0}"])
    for name in PUBLIC:
        assert not is_private(fmt(name))


def test_undefined_format_is_refused_by_the_rank_check():
    with pytest.raises(npu_emu.AclnnError) as err:
        check_public_format_rank(F.ACL_FORMAT_UNDEFINED, 2)
    assert err.value.code == 161002 and "UNDEFINED" in err.value.message


@pytest.mark.parametrize("value, expected", [
    (F.ACL_FORMAT_ND, F.ACL_FORMAT_ND),
    (2, F.ACL_FORMAT_ND),
    (np.int64(29), F.ACL_FORMAT_FRACTAL_NZ),
    ("ND", F.ACL_FORMAT_ND),
    ("nchw", F.ACL_FORMAT_NCHW),
    ("ACL_FORMAT_NHWC", F.ACL_FORMAT_NHWC),
    ("FORMAT_NC", F.ACL_FORMAT_NC),
    ("FRACTAL_NZ", F.ACL_FORMAT_FRACTAL_NZ),
    ("FRACTAL_Z_3D", F.ACL_FRACTAL_Z_3D),
    ("ACL_FRACTAL_Z_3D", F.ACL_FRACTAL_Z_3D),
    (33, F.ACL_FRACTAL_Z_3D),
])
def test_as_format_accepts(value, expected):
    got = as_format(value)
    assert got is expected


@pytest.mark.parametrize("name, value", sorted(SPEC_FORMATS.items()))
def test_as_format_round_trips(name, value):
    assert as_format(value) is F[name]
    assert as_format(name) is F[name]


@pytest.mark.parametrize("value", [None, 999, -2, 5, "nope", "", True, np.bool_(False), 2.0,
                                   [2], (), object()])
def test_as_format_refuses(value):
    with pytest.raises(npu_emu.AclnnError) as err:
        as_format(value, "my_format")
    assert err.value.code == 161002
    assert "my_format" in err.value.message


def test_rank_check_with_a_bad_format_raises_aclnn_error():
    with pytest.raises(npu_emu.AclnnError) as err:
        check_public_format_rank("nope", 2)
    assert err.value.code == 161002
