"""The array API's elementwise functions and reductions run on our own kernel families
(npu_emu/kernels/ufunc.py, npu_emu/kernels/reduce.py), not on the backend's library: each
routed call gives the family's own bits (the same call through its apply_numpy), the same
bytes under OMP_NUM_THREADS=1 and 2, and never reaches the library path on the cpu backend."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import npu_emu.array_api as xp
from npu_emu.array_api._engine import library, ufunc as engine
from npu_emu.kernels import reduce as reduce_family, ufunc as ufunc_family

from ._support import float32_defaults  # noqa: F401 (the fixture)

pytestmark = pytest.mark.usefixtures("float32_defaults")

ROOT = Path(__file__).resolve().parents[2]


def sample(dtype: str, n: int, seed: int = 3) -> np.ndarray:
    """Values of a dtype for every routed function: specials and a seeded sample."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("complex"):
        part = "float32" if dtype == "complex64" else "float64"
        z = np.empty(n, dtype)   # parts set apart: inf * 1j would make a NaN real part
        z.real, z.imag = sample(part, n, seed), np.roll(sample(part, n, seed + 1), 3)
        return z
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dtype)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e-40, 3.0], dtype)
    return np.resize(np.concatenate([special, (rng.standard_normal(n) * 4).astype(dtype)]), n)


def routed_cases() -> list[tuple[str, str]]:
    """(function, dtype) for every elementwise function of the engine's tables that our ufunc
    kernels compute in that dtype (float32, int32 or bool: the first the function takes;
    add / multiply in uint32, which aclnnAdd / aclnnMul lack)."""
    cases = []
    for name in sorted({**engine.UNARY, **engine.BINARY}):
        for dtype in ("uint32",) if name in ("add", "multiply") else ("float32", "int32", "bool"):
            acl = getattr(xp, dtype).acl_dtype
            if name in ufunc_family.BY_NAME and acl in ufunc_family.supported_dtypes(name):
                cases.append((name, dtype))
                break
    # The complex kernels (our math library's complex functions among them; complex
    # subtract is aclnnAdd's) and integer pow.
    for name in sorted({**engine.UNARY, **engine.BINARY}.keys() - {"subtract"}):
        if name in ufunc_family.BY_NAME and xp.complex64.acl_dtype in ufunc_family.BY_NAME[name].dtypes:
            cases += [(name, "complex64"), (name, "complex128")]
    return cases + [("pow", "int32"), ("pow", "uint8")]


REDUCTIONS = [("sum", "float32"), ("prod", "float32"), ("mean", "float32"), ("var", "float32"),
              ("std", "float32"), ("min", "float32"), ("max", "float32"),
              ("argmin", "float32"), ("argmax", "float32"), ("all", "float32"),
              ("any", "bool"), ("cumulative_sum", "float32"), ("cumulative_prod", "float32"),
              ("sum", "int32")]


def ours(name: str, dtype: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(the array API's result, the kernel family's own) for one routed call on n values."""
    a = sample(dtype, n)
    if name in engine.BINARY:
        b = np.roll(sample(dtype, n, seed=4), 1)
        if name.startswith("bitwise_") and "shift" in name:
            b = np.abs(b) % 31
        if name == "pow" and dtype.startswith(("int", "uint")):
            b = np.abs(b) % 9   # a negative integer exponent is refused
        got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
        return np.asarray(got), ufunc_family.apply_numpy(name, a, b)
    if name in engine.UNARY:
        return np.asarray(getattr(xp, name)(xp.asarray(a))), ufunc_family.apply_numpy(name, a)
    m = a.reshape(-1, 64)
    x = xp.asarray(m)
    if name.startswith("cumulative"):
        return np.asarray(getattr(xp, name)(x, axis=1)), reduce_family.apply_numpy(name, m, 1)
    if name in ("var", "std"):
        return (np.asarray(getattr(xp, name)(x, axis=0, correction=1)),
                reduce_family.apply_numpy(name, m, 0, correction=1))
    if name in ("argmin", "argmax"):
        m = np.nan_to_num(m)
        return (np.asarray(getattr(xp, name)(xp.asarray(m), axis=0)),
                reduce_family.apply_numpy(name, m, 0))
    dtype_kw = {"dtype": reduce_family.default_dtype(name, getattr(xp, dtype).acl_dtype)}
    want = reduce_family.apply_numpy(name, m, None, **dtype_kw)
    return np.asarray(getattr(xp, name)(x)), want


THREAD_SCRIPT = """
import hashlib, sys, warnings
sys.path[:0] = [sys.argv[1]]
warnings.simplefilter("ignore")
import numpy as np
import npu_emu.array_api as xp
from tests.array_api.test_own_kernels import REDUCTIONS, ours, routed_cases
h = hashlib.sha256()
bad = []
for name, dtype in routed_cases() + REDUCTIONS:
    got, want = ours(name, dtype, 1 << 17)   # several blocks and leaves per launch
    if got.dtype != want.dtype or got.tobytes() != want.tobytes():
        bad.append(f"{name}({dtype})")
    h.update(got.tobytes())
print(h.hexdigest(), ",".join(bad) or "-")
"""


def test_routed_results_are_the_families_bits_under_one_and_two_threads():
    """Every routed function: the array API's bytes are the kernel family's, and the same
    under OMP_NUM_THREADS=1 and 2 (one subprocess each, every function in it)."""
    outputs = set()
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        run = subprocess.run([sys.executable, "-c", THREAD_SCRIPT, str(ROOT)],
                             capture_output=True, text=True, env=env, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        digest, bad = run.stdout.split()
        assert bad == "-", f"OMP_NUM_THREADS={threads}: not the family's bits: {bad}"
        outputs.add(digest)
    assert len(outputs) == 1


@pytest.fixture
def no_library(monkeypatch):
    """The library path of elementwise calls and reductions made unreachable: a call that
    reaches it fails (returns the list of what tried)."""
    reached = []

    def refuse(*args, **kwargs):
        reached.append(args[:1])
        raise AssertionError("the library path was reached")
    monkeypatch.setattr(library, "apply", refuse)
    monkeypatch.setattr(library, "computing", refuse)
    return reached


@pytest.mark.parametrize("name,dtype", routed_cases() + REDUCTIONS,
                         ids=[f"{n}-{d}" for n, d in routed_cases() + REDUCTIONS])
def test_routed_functions_never_reach_the_library(no_library, name, dtype):
    got, want = ours(name, dtype, 256)
    assert got.tobytes() == want.tobytes()
    assert no_library == []


def test_the_spy_sees_what_stays_on_the_library(no_library):
    """The control: arrays of more than 8 dims have no kernel of ours, and are caught."""
    with pytest.raises(AssertionError, match="library path"):
        xp.abs(xp.asarray(np.ones((1,) * 9, np.complex64)))
    with pytest.raises(AssertionError, match="library path"):
        xp.pow(xp.asarray(np.ones((1,) * 9, np.int32)), 2)


def test_integer_pow_refuses_a_negative_exponent_on_our_kernels(no_library):
    """NumPy's rule, kept on our kernels: ValueError, for an array or a Python scalar."""
    x = xp.asarray([2, 3], dtype=xp.int32)
    for exponent in (xp.asarray([1, -1], dtype=xp.int32), -2):
        with pytest.raises(ValueError, match="negative integer powers"):
            x ** exponent
    with pytest.raises(ValueError, match="negative integer powers"):
        x **= -1
    assert np.asarray(x ** 3).tolist() == [8, 27] and no_library == []


def test_every_catalog_function_of_the_engine_is_routed():
    """The engine's functions that the ufunc catalog has all take the kernel path for their
    catalog dtypes (the catalog is the one list)."""
    names = sorted(n for n in {**engine.UNARY, **engine.BINARY} if n in ufunc_family.BY_NAME)
    assert len(names) >= 60
    for name in names:
        for acl in ufunc_family.supported_dtypes(name):
            assert library.own_elementwise(name, acl, 1) == acl, (name, acl)
