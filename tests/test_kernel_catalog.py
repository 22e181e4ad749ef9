"""The kernel catalogs: each family declares its kernels once, and the .cu instantiation lists
generated from that declaration are fresh; every kernel the catalog names is exported by the
compiled module, and a call builds only the unit its dtype needs."""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from npu_emu import kernels
from npu_emu.dtypes import aclDataType as DT
from npu_emu.kernels import elementwise, reduce
from npu_emu.runtime import kernels_dir


@pytest.mark.parametrize("name", kernels.GENERATORS)
def test_generated_units_are_fresh(name):
    """Each family's generated files in kernels_cuda/ are its catalog's text, and no other
    file its globs own is left over."""
    family = importlib.import_module(f"npu_emu.kernels.{name}")
    want = family.generated()
    folder = kernels_dir()
    on_disk = {p.name for g in family.GENERATED for p in folder.glob(g)
               if p.read_text().startswith("// Generated from ")}
    assert on_disk == set(want), "run python -m npu_emu.kernels"
    for file, text in want.items():
        assert (folder / file).read_text() == text, f"{file} is stale: run python -m npu_emu.kernels"
        assert text.startswith("// Generated from ") and f"npu_emu/kernels/{name}.py" in text


def test_the_generator_writes_what_differs_and_removes_what_no_catalog_names(tmp_path):
    """`python -m npu_emu.kernels` over a copy of kernels_cuda/: --check says nothing when the
    copy is fresh; a stale unit, a missing one and a left-over generated file are reported,
    then written or removed; a hand-written file beside them is left alone."""
    folder = tmp_path / "kernels_cuda"
    shutil.copytree(kernels_dir(), folder)
    assert kernels.differences(folder) == []
    (folder / "select.cu").write_text("// edited\n")
    (folder / "gemm_real.cu").unlink()
    (folder / "ufunc_gone.cu").write_text(kernels.unit_text("ufunc", "the catalog UFUNCS", []))
    hand = (folder / "cast_any.cu").read_text()
    assert kernels.differences(folder) == ["gemm_real.cu: missing", "select.cu: stale",
                                           "ufunc_gone.cu: not in the ufunc family's catalog"]
    said = kernels.write_generated(folder)
    assert sorted(said) == sorted([f"wrote {folder / 'gemm_real.cu'}", f"wrote {folder / 'select.cu'}",
                                   f"removed {folder / 'ufunc_gone.cu'}"])
    assert kernels.differences(folder) == [] and (folder / "cast_any.cu").read_text() == hand
    check = subprocess.run([sys.executable, "-m", "npu_emu.kernels", "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0 and check.stderr == "", check.stderr


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


def _cold_run(cache: Path, code: str) -> tuple[str, set[str]]:
    """(stdout, the modules built) of `code` run after `import numpy as np,
    npu_emu.array_api as xp` in a new process on the cpu backend with an empty kernel cache."""
    import os, subprocess, sys
    proc = subprocess.run([sys.executable, "-c", "import numpy as np, npu_emu.array_api as xp; " + code],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NPU_EMU_CACHE_DIR": str(cache), "NPU_EMU_DEVICE": "cpu"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip(), {re.sub(r"-[0-9a-f]{24}\.so$", "", p.name) for p in cache.glob("*.so")}


def test_a_float_add_builds_only_the_float_unit(tmp_path):
    """Cold start: the first float add compiles the modules it needs (the copy kernels and
    the float32 arithmetic unit), not every module."""
    out, built = _cold_run(tmp_path, "a = xp.asarray([1.0, 2.0], dtype=xp.float32); "
                                     "print(float(np.asarray(a + a).sum()))")
    assert out == "6.0"
    assert "elementwise_f32" in built
    assert not {"elementwise_f64", "elementwise_f32_i64", "elementwise_s32", "elementwise_complex", "layout",
                "matmul", *(m.removesuffix(".cu") for m in reduce.MODULES)} & set(built), built


def test_cast_kernel_types_are_the_catalog():
    """cast.cuh's NPU_EMU_CAST_TYPES list names exactly the catalog's types, with their C++
    types and aclDataType values (the dtype argument the kernels dispatch on)."""
    from npu_emu.kernels.cast import CAST_TYPES, KERNEL_NAMES
    text = (kernels_dir() / "cast.cuh").read_text()
    block = text[text.index("#define NPU_EMU_CAST_TYPES(X)"):]
    block = block[:block.index("\n\n")]
    listed = {name: (ctype, int(value)) for ctype, name, value in re.findall(r"X\(([^,]+), (\w+), (\d+)\)", block)}
    assert listed == {KERNEL_NAMES[dt]: (ctype, int(dt)) for dt, ctype in CAST_TYPES.items()}


def test_every_cast_source_type_is_in_one_unit():
    from npu_emu.kernels import cast
    placed = [dt for types in cast.UNITS.values() for dt in types]
    assert sorted(placed) == sorted(cast.CAST_DTYPES)        # every source type in one unit
    with pytest.raises(ValueError, match="no cast kernel for ACL_INT4"):
        cast.kernel(DT.ACL_INT4)


def test_every_cast_kernel_is_exported(cpu_backend):
    from npu_emu.kernels import cast
    for dt in cast.CAST_DTYPES:
        module, name = cast.kernel(dt)
        assert cpu_backend.function(module, name).name == name
    assert cpu_backend.function(cast.ANY_MODULE, "cast_any").name == "cast_any"


def test_a_float16_cast_builds_only_its_unit(tmp_path):
    """Cold start: a first float16 -> float32 cast compiles the copy kernels' module and the
    cast unit of its source type, no other cast unit."""
    from npu_emu.kernels import cast
    out, built = _cold_run(tmp_path, "a = xp.asarray(np.array([1.5, 2.0], np.float16)); "
                                     "print(float(np.asarray(xp.astype(a, xp.float32)).sum()))")
    assert out == "3.5"
    assert "cast_float" in built
    assert not {m.removesuffix(".cu") for m in [*cast.UNITS, cast.ANY_MODULE]} - {"cast_float"} & built, built
