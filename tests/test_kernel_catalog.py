"""The kernel catalogs: each family declares its kernels once, and the .cu instantiation lists
generated from that declaration are fresh; every kernel the catalog names is exported by the
compiled module, and a call builds only the unit its dtype needs."""
from __future__ import annotations

import re

import pytest

from npu_emu.dtypes import aclDataType as DT
from npu_emu.kernels import elementwise, reduce
from npu_emu.runtime import kernels_dir


def test_elementwise_units_are_generated_from_the_catalog():
    for unit in elementwise.UNITS:
        path = kernels_dir() / (unit[:-3] + ".inc")
        assert path.read_text() == elementwise.instantiations(unit), (
            f"{path.name} is stale: run python -m npu_emu.kernels.elementwise")
        assert (kernels_dir() / unit).read_text() == elementwise.unit_source(unit)
    made = {p.name for p in kernels_dir().glob("elementwise_*.cu")}
    assert made == set(elementwise.UNITS), "a unit no longer in the catalog: delete its files"


def test_every_storage_type_is_in_exactly_one_unit():
    for index in elementwise.INDEX:
        placed = [dt for types, i in elementwise.UNITS.values() if i == index for dt in types]
        assert sorted(placed) == sorted(elementwise.TYPES), index


def test_every_catalogued_kernel_is_exported(cpu_backend):
    for op, (_enum, types) in elementwise.CATALOG.items():
        for dt in types:
            for index in elementwise.INDEX:
                module, name = elementwise.kernel(op, dt, index)
                assert cpu_backend.function(module, name).name == name


def test_kernel_refuses_what_the_catalog_lacks():
    assert elementwise.supports("axpy", DT.ACL_FLOAT) and not elementwise.supports("axpy", DT.ACL_DOUBLE)
    with pytest.raises(ValueError, match="no axpy kernel for ACL_DOUBLE"):
        elementwise.kernel("axpy", DT.ACL_DOUBLE, "i32")


def test_a_float_add_builds_only_the_float_unit(tmp_path):
    """Cold start: the first float add compiles the modules it needs (the copy kernels and
    the float32 arithmetic unit), not every module."""
    import os, subprocess, sys
    proc = subprocess.run([sys.executable, "-c",
                           "import numpy as np, npu_emu.array_api as xp; "
                           "a = xp.asarray([1.0, 2.0], dtype=xp.float32); "
                           "print(float(np.asarray(a + a).sum()))"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NPU_EMU_CACHE_DIR": str(tmp_path), "NPU_EMU_DEVICE": "cpu"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "6.0"
    built = sorted(re.sub(r"-[0-9a-f]{24}\.so$", "", p.name) for p in tmp_path.glob("*.so"))
    assert "elementwise_f32" in built
    assert not {"elementwise_f64", "elementwise_f32_i64", "elementwise_s32", "elementwise_complex", "layout",
                "matmul", *(m.removesuffix(".cu") for m in reduce.MODULES.values())} & set(built), built


def test_cast_kernel_types_are_the_catalog():
    """cast.cu's NPU_EMU_CAST_TYPES list names exactly the catalog's types, with their
    aclDataType values (the dtype argument the kernels dispatch on)."""
    from npu_emu.kernels.cast import CAST_DTYPES, KERNEL_NAMES
    text = (kernels_dir() / "cast.cu").read_text()
    block = text[text.index("#define NPU_EMU_CAST_TYPES(X)"):]
    block = block[:block.index("\n\n")]
    listed = {name: int(value) for name, value in re.findall(r"X\([^,]+, (\w+), (\d+)\)", block)}
    assert listed == {KERNEL_NAMES[dt]: int(dt) for dt in CAST_DTYPES}
