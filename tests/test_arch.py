"""SoC records (docs/socs.md#socs), per-SoC dtype lists (docs/operators.md#aclnnexpand, docs/operators.md), SoC selection."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import npu_emu
from npu_emu import aclDataType as DT
from npu_emu import arch

# docs/socs.md#socs, transcribed literally: name -> (NpuArch, BF16, matmul convention)
SPEC_SOCS = {
    "Ascend910": ("DAV_1001", False, "Zz x Zn -> Nz"),
    "Ascend910B": ("DAV_2201", True, "Zz x Zn -> Nz"),
    "Ascend910_93": ("DAV_2201", True, "Zz x Zn -> Nz"),
    "Ascend310P": ("DAV_2002", False, "Zz x Zn -> Nz"),
    "Ascend310B": ("DAV_3002", False, "Zz x Zn -> Nz"),
    "Ascend950": ("DAV_3510", True, "Nz x Zn -> Nz"),
}

# docs/operators.md#aclnnexpand: Expand's list on 910B, 910_93 and 950; every other SoC: the same without BF16.
EXPAND_WITH_BF16 = {DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_UINT8, DT.ACL_INT8, DT.ACL_INT32,
                    DT.ACL_INT64, DT.ACL_BOOL, DT.ACL_BF16}
EXPAND_LISTS = {
    "Ascend910": EXPAND_WITH_BF16 - {DT.ACL_BF16},
    "Ascend910B": EXPAND_WITH_BF16,
    "Ascend910_93": EXPAND_WITH_BF16,
    "Ascend310P": EXPAND_WITH_BF16 - {DT.ACL_BF16},
    "Ascend310B": EXPAND_WITH_BF16 - {DT.ACL_BF16},
    "Ascend950": EXPAND_WITH_BF16,
}

# docs/operators.md: Cast's list on Ascend910; "later SoCs add BF16"; Ascend950 adds four more.
CAST_910 = {DT.ACL_FLOAT16, DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_INT8, DT.ACL_UINT8,
            DT.ACL_INT16, DT.ACL_INT32, DT.ACL_INT64, DT.ACL_UINT16, DT.ACL_UINT32,
            DT.ACL_UINT64, DT.ACL_BOOL, DT.ACL_COMPLEX64, DT.ACL_COMPLEX128}
CAST_LISTS = {
    "Ascend910": CAST_910,
    # The documents are silent on which SoCs are "later"; read together with docs/socs.md#socs's BF16 column, the SoCs
    # without BF16 (310P, 310B) keep the 910 list.
    "Ascend310P": CAST_910,
    "Ascend310B": CAST_910,
    "Ascend910B": CAST_910 | {DT.ACL_BF16},
    "Ascend910_93": CAST_910 | {DT.ACL_BF16},
    "Ascend950": CAST_910 | {DT.ACL_BF16, DT.ACL_HIFLOAT8, DT.ACL_FLOAT8_E5M2,
                             DT.ACL_FLOAT8_E4M3FN, DT.ACL_COMPLEX32},
}


@pytest.fixture(autouse=True)
def _restore_soc():
    before = arch._current
    yield
    arch._current = before


def test_exactly_the_six_socs():
    assert set(arch.SOCS) == set(SPEC_SOCS)
    assert npu_emu.SOCS is arch.SOCS


@pytest.mark.parametrize("name", sorted(SPEC_SOCS))
def test_soc_record(name):
    npu_arch, bf16, convention = SPEC_SOCS[name]
    soc = arch.get_soc(name)
    assert soc.name == name
    assert soc.npu_arch == npu_arch
    assert soc.bf16 is bf16
    assert soc.matmul_convention == convention
    assert soc.dtypes_for("Expand") == EXPAND_LISTS[name]
    assert soc.dtypes_for("Cast") == CAST_LISTS[name]
    assert (DT.ACL_BF16 in soc.dtypes_for("Cast")) is bf16


@pytest.mark.parametrize("name", sorted(SPEC_SOCS))
def test_expand_support(name):
    assert arch.get_soc(name).supports("Expand") is (name != "Ascend310B")


@pytest.mark.parametrize("name", sorted(SPEC_SOCS))
def test_c0_follows_element_width(name):
    # docs/formats.md#private-layouts: C0 = 32 bytes / itemsize: fp32 8, fp16/bf16 16, 8-bit 32, int4 64.
    soc = arch.get_soc(name)
    assert [soc.c0(bits) for bits in (32, 16, 8, 4)] == [8, 16, 32, 64]


def test_default_soc_is_ascend910b():
    env = {k: v for k, v in os.environ.items() if k != "NPU_EMU_SOC"}
    out = subprocess.run([sys.executable, "-c", "import npu_emu; print(npu_emu.current_soc().name)"],
                         capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "Ascend910B"
    assert arch.DEFAULT_SOC == "Ascend910B"


def _soc_from_env(value: str) -> subprocess.CompletedProcess:
    code = ("import npu_emu\n"
            "try:\n"
            "    print('OK', npu_emu.current_soc().name)\n"
            "except npu_emu.AclnnError as e:\n"
            "    print('ERR', e.code, e.message)\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "NPU_EMU_SOC": value}, check=True)


@pytest.mark.parametrize("value, expected", [("Ascend950", "Ascend950"),
                                             ("ascend310p", "Ascend310P"),
                                             ("ASCEND910_93", "Ascend910_93")])
def test_soc_from_environment(value, expected):
    assert _soc_from_env(value).stdout.strip() == f"OK {expected}"


def test_unknown_soc_from_environment():
    out = _soc_from_env("Ascend999").stdout.strip()
    assert out.startswith("ERR 161002")
    assert "NPU_EMU_SOC" in out and "Ascend999" in out


def test_set_soc_and_current_soc():
    soc = npu_emu.set_soc("Ascend950")
    assert soc.name == "Ascend950"
    assert npu_emu.current_soc() is soc
    npu_emu.set_soc("Ascend910")
    assert npu_emu.current_soc().name == "Ascend910"


@pytest.mark.parametrize("spelling", ["ascend950", "ASCEND950", " Ascend950 ", "AsCeNd950"])
def test_names_are_case_insensitive(spelling):
    assert npu_emu.set_soc(spelling).name == "Ascend950"
    assert npu_emu.current_soc().name == "Ascend950"


def test_soc_context_manager_restores():
    npu_emu.set_soc("Ascend310P")
    with npu_emu.soc("Ascend950") as selected:
        assert selected.name == "Ascend950"
        assert npu_emu.current_soc().name == "Ascend950"
        with npu_emu.soc("Ascend910"):
            assert npu_emu.current_soc().name == "Ascend910"
        assert npu_emu.current_soc().name == "Ascend950"
    assert npu_emu.current_soc().name == "Ascend310P"


def test_soc_context_manager_restores_on_exception():
    npu_emu.set_soc("Ascend910B")
    with pytest.raises(KeyError):
        with npu_emu.soc("Ascend310B"):
            raise KeyError("boom")
    assert npu_emu.current_soc().name == "Ascend910B"


@pytest.mark.parametrize("value", ["Ascend999", "", "910B", None, 910, ["Ascend910B"]])
def test_unknown_soc_names_are_refused(value):
    npu_emu.set_soc("Ascend910_93")
    with pytest.raises(npu_emu.AclnnError) as err:
        npu_emu.set_soc(value)
    assert err.value.code == 161002
    assert repr(value) in err.value.message
    with pytest.raises(npu_emu.AclnnError):
        with npu_emu.soc(value):
            pass
    assert npu_emu.current_soc().name == "Ascend910_93"   # unchanged
