"""`npu-emu bench` and the command line: --quick runs every op through the public API and
writes JSON whose ratios are positive numbers, the checks can fail, sizes that do not fit
are a message, RESULTS.md is what its JSON gives, and `npu-emu info` / `--version` work."""
from __future__ import annotations

import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from npu_emu import bench
from npu_emu.bench import cases, common, report

ROOT = Path(__file__).resolve().parent.parent
# Blocks an import in a child process, to run the bench as on a machine without it.
BLOCK_IMPORT = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError('blocked for the test: ' + name)
sys.meta_path.insert(0, _Block())
from npu_emu.cli import main
sys.exit(main({argv!r}))
"""


def run_cli(args: list[str], blocked: tuple[str, ...] = (), timeout: int = 600,
            env: dict | None = None) -> subprocess.CompletedProcess:
    code = BLOCK_IMPORT.format(blocked=set(blocked), argv=args)
    full_env = dict(os.environ, NPU_EMU_DEVICE="cpu")
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=full_env)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    r = run_cli(["bench", "--quick", "--device", "cpu", "--json", str(out)])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return json.loads(out.read_text()), r


def _positive(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def _timing_ok(t: dict, nbytes: int) -> None:
    assert t["samples_s"] and all(_positive(s) for s in t["samples_s"])
    assert t["median_s"] == pytest.approx(statistics.median(t["samples_s"]))
    assert t["gbps"] == pytest.approx(nbytes / t["median_s"] / 1e9)
    assert isinstance(t["inner"], int) and t["inner"] >= 1


def test_quick_covers_every_op_and_checks_every_result(quick):
    data, _ = quick
    assert data["schema"] == bench.SCHEMA
    assert {c["op"] for c in data["cases"]} == set(bench.OPS)
    for name, op in bench.OPS.items():
        assert {c["variant"] for c in data["cases"] if c["op"] == name} == set(op.variants)
    assert data["skipped"] == []
    for c in data["cases"]:
        assert c["check"]["ok"] and c["check"]["mismatches"] == 0 and c["check"]["positions"] > 0


def test_quick_json_schema(quick):
    data, _ = quick
    p = data["provenance"]
    for key in ("npu_emu", "git_commit", "backend", "device", "cpu_model", "cpu_count",
                "kernel_threads", "versions", "date", "command", "soc"):
        assert key in p, key
    assert p["backend"] == "cpu" and p["npu_emu"] == __import__("npu_emu").__version__
    assert {"python", "numpy", "ml_dtypes", "torch", "cupy"} <= set(p["versions"])
    assert p["versions"]["numpy"] == np.__version__
    assert p["env"]["OMP_PROC_BIND"]                      # pinned by the bench when unset
    assert p["command"].startswith("npu-emu bench") and "--quick" in p["command"]
    for c in data["cases"]:
        for key in ("op", "variant", "dtype", "numel", "shapes", "bytes", "out_bytes", "soc",
                    "index_path", "memory", "ours", "ceiling", "of_ceiling", "peers", "ratios"):
            assert key in c, (key, c["op"])
        _timing_ok(c["ours"], c["bytes"])
        _timing_ok(c["ceiling"], 2 * (c["bytes"] // 2))
        assert "numpy" in c["peers"] and "numpy" in c["ratios"]
        for name, peer in c["peers"].items():
            if "error" not in peer:
                _timing_ok(peer, c["bytes"])
                # measured in turns with ours: the ratio of those two medians
                assert _positive(peer["ours_median_s"])
                assert c["ratios"][name] == pytest.approx(peer["median_s"] / peer["ours_median_s"])
        assert c["memory"]["pool_peak_bytes"] >= c["memory"]["pool_bytes_in_use"] > 0
        if c["op"] == "matmul":
            side = c["shapes"]["out"][0]
            assert c["flops"] == 2 * side ** 3 and _positive(c["ours"]["gflops"])


def test_every_ratio_is_a_positive_number(quick):
    data, _ = quick
    for c in data["cases"]:
        assert _positive(c["of_ceiling"])
        assert c["ratios"] and all(_positive(v) for v in c["ratios"].values())
    layer = data["array_layer"]        # the array API against the aclnn path, same work
    assert [c["aclnn"] for c in layer["cases"]] == ["aclnnExpand", "aclnnCast", "aclnnNpuFormatCast"]
    for c in layer["cases"]:
        assert _positive(c["array_api_s"]) and _positive(c["aclnn_s"])
        assert c["ratio"] == pytest.approx(c["array_api_s"] / c["aclnn_s"])
    assert all(_positive(v) for v in layer["dlpack_round_trip_s"].values())


def test_hifloat8_and_fp8_casts_run_where_the_soc_has_them(quick):
    data, _ = quick
    hif8 = [c for c in data["cases"] if c["op"] == "cast" and c["dtype"] == "hif8"]
    assert hif8 and all(c["soc"] == "Ascend950" for c in hif8)       # only Ascend950 lists it
    f16 = [c for c in data["cases"] if c["op"] == "cast" and c["dtype"] == "f16"]
    assert f16 and all(c["soc"] == data["provenance"]["soc"] for c in f16)


def test_summary_and_goals_are_printed(quick):
    data, r = quick
    assert "of copy" in r.stdout and "x NumPy" in r.stdout
    assert "Traceback" not in r.stderr
    assert [g["goal"] for g in data["goals"]] == [g.text for g in bench.GOALS if g.backend == "cpu"]
    for g in data["goals"]:                       # --quick is far below the goals' sizes
        assert g["met"] is None and g["cases"] == []
        assert f"{g['goal']}: not measured" in r.stdout


def test_host_overhead_is_measured(quick):
    data, r = quick
    h = data["host_overhead"]
    assert _positive(h["median_us"]) and len(h["samples_us"]) >= 3
    assert _positive(h["cold_median_us"]) and len(h["cold_samples_us"]) >= 3
    c = h["c_abi"]                                   # the C ABI's call, against the facade's
    if "skipped" not in c:
        assert _positive(c["c_us"]) and _positive(c["python_us"])
        assert c["ratio"] == pytest.approx(c["c_us"] / c["python_us"])
        assert "from C (the C ABI)" in r.stdout


def test_tiny_calls_are_measured_with_their_synchronize_against_the_goals(quick):
    data, r = quick
    tiny = {t["key"]: t for t in data["host_overhead"]["tiny"]}
    assert set(tiny) == {"aclnn", "array_api"}
    assert tiny["aclnn"]["goal_us"] == 10 and tiny["array_api"]["goal_us"] == 8
    for t in tiny.values():
        for side in ("warm", "cold"):
            m = t[side]
            assert len(m["wall_samples_us"]) == len(m["cpu_samples_us"]) >= 3
            assert all(_positive(v) for v in m["wall_samples_us"] + m["cpu_samples_us"])
            assert m["wall_us"] == pytest.approx(statistics.median(m["wall_samples_us"]))
            assert m["cpu_us"] == pytest.approx(statistics.median(m["cpu_samples_us"]))
        assert t["met"] == (t["warm"]["cpu_us"] <= t["goal_us"])
        verdict = "met" if t["met"] else "NOT met"
        assert f"tiny call: {t['what']}: " in r.stdout
        assert f"goal <= {t['goal_us']:g} us: {verdict}" in r.stdout
    assert "Synchronize" in tiny["aclnn"]["what"] and "xp.add" in tiny["array_api"]["what"]


def test_the_client_benchmark_compares_with_numpy_in_the_same_run(quick):
    data, r = quick
    c = data["clients"]
    pytest.importorskip("sklearn")     # installed here; absent, the run says why (below)
    assert "skipped" not in c, c
    assert [k["what"] for k in c["cases"]] == ["StandardScaler().fit_transform",
                                               "LogisticRegression().fit"]
    # The other array libraries go through the same dispatch when they are installed.
    peers = {name for name in ("torch", "array_api_strict") if importlib.util.find_spec(name)}
    assert {k for k, v in c["peers"].items() if v is not None} == peers
    for case in c["cases"]:
        ms = case["cpu_ms"]
        assert set(ms) == set(case["wall_ms"]) == {"numpy", "numpy_dispatch", "npu_emu", *peers}
        assert all(_positive(v) for v in [*ms.values(), *case["wall_ms"].values()])
        assert case["ratio"] == pytest.approx(ms["npu_emu"] / ms["numpy"])
        assert case["met"] == (case["ratio"] <= c["goal"] == 2.0)
        line = next(ln for ln in r.stdout.splitlines()
                    if ln.startswith(f"client: {case['what']} on 300 x 8 float64"))
        if "torch" in peers:
            assert f"PyTorch {ms['torch']:.2f} ms" in line
        if "array_api_strict" in peers:
            assert f"array_api_strict {ms['array_api_strict']:.2f} ms" in line


def test_the_client_benchmark_without_scikit_learn_says_so(cpu_backend, monkeypatch):
    b = bench.Bench(bench.Settings(["array_api"], {}, {}, bench.TimingPolicy(), quick=True),
                    bench.Output(0, quiet=True))
    monkeypatch.setitem(sys.modules, "sklearn", None)     # import sklearn: ImportError
    c = b.clients()
    assert c["skipped"].startswith("scikit-learn is not installed")
    assert report.client_lines({"clients": c}) == [f"not measured: {c['skipped']}"]


def test_report_renders_the_run(quick, tmp_path):
    data, _ = quick
    md = bench.render_report([data])
    assert data["provenance"]["command"] in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| ")][1:]
    assert len(rows) == len(data["cases"])
    assert all(ln.endswith("| ok |") for ln in rows)


def test_results_md_is_generated_from_its_json():
    files = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    assert files, "benchmarks/results/ holds the JSON RESULTS.md is made from"
    datasets = [json.loads(f.read_text()) for f in files]
    want = bench.render_report(datasets)
    assert (ROOT / "benchmarks" / "RESULTS.md").read_text() == want, \
        f"RESULTS.md is stale: {bench.REPORT_COMMAND}"


def test_plot(quick, tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs the plot extra (matplotlib)")
    data, _ = quick
    path = tmp_path / "bench.png"
    bench.plot(data, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_plot_draws_every_peer_and_the_device_copy_visibly(quick):
    """Every panel has the device copy and, per series, NumPy and PyTorch (both run on the
    cpu backend): each line with a marker, so one-size series (all of --quick) show."""
    data, _ = quick
    from npu_emu.bench import report
    panels = report.plot_lines(data)
    assert list(panels) == list(dict.fromkeys(c["op"] for c in data["cases"]))
    for op, lines in panels.items():
        assert all(ln.marker and ln.points for ln in lines), op
        copy = [ln for ln in lines if ln.label == "device copy"]
        assert len(copy) == 1 and copy[0].color == "black"
        cases = [c for c in data["cases"] if c["op"] == op]
        series = {f"{c['variant']} {c['dtype']}" for c in cases}
        ours = [ln for ln in lines if ln.label in series]
        assert len(ours) == len(series)
        for ln in ours:
            peers = [p for p in lines if p.label is None and p.color == ln.color]
            drawn = {(p.linestyle, p.marker) for p in peers}
            want = {report.PEER_STYLES[name] for name in ("numpy", "torch")
                    if any("gbps" in c["peers"].get(name, {}) for c in cases
                           if f"{c['variant']} {c['dtype']}" == ln.label)}
            assert drawn == want and ("--", "s") in drawn, (op, ln.label)
        # every measured GB/s of ours and of the peers is a point of the panel
        points = {y for ln in lines for _, y in ln.points}
        for c in cases:
            assert c["ours"]["gbps"] in points
            for peer in c["peers"].values():
                assert "gbps" not in peer or peer["gbps"] in points


def test_zero_or_negative_repeats_are_refused_naming_the_option():
    import argparse
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    for args, words in ((["--repeat", "0"], "--repeat 0: must be at least 1"),
                        (["--repeat", "-3"], "--repeat -3: must be at least 1"),
                        (["--warmup", "0"], "--warmup 0: must be at least 1"),
                        (["--quick", "--repeat", "0"], "--repeat 0"),
                        (["--budget", "0"], "--budget 0: must be a positive"),
                        (["--max-gib", "-1"], "--max-gib -1: must be a positive")):
        with pytest.raises(bench.BenchError, match=words):
            bench.make_settings(p.parse_args(args), "cpu")
    # an explicit value is used as given, not replaced by the default
    assert bench.make_settings(p.parse_args(["--repeat", "1"]), "cpu").policy.repeat == 1
    assert bench.make_settings(p.parse_args(["--quick", "--repeat", "9"]), "cpu").policy.repeat == 9
    assert bench.make_settings(p.parse_args([]), "cpu").policy.repeat == 7


def test_plot_without_matplotlib_is_a_message(tmp_path):
    r = run_cli(["bench", "--quick", "--plot", str(tmp_path / "x.png")], blocked=("matplotlib",))
    assert r.returncode == 2
    assert "pip install 'npu-emu[plot]'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_runs_without_rich(tmp_path):
    out = tmp_path / "plain.json"
    r = run_cli(["bench", "--quick", "--ops", "expand", "--json", str(out)], blocked=("rich",))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "[1/1] expand broadcast f32 256K" in r.stderr       # the plain progress line
    assert "expand" in r.stdout and json.loads(out.read_text())["cases"][0]["check"]["ok"]


def test_a_size_that_does_not_fit_is_a_message(tmp_path):
    out = tmp_path / "nofit.json"
    # 1024G and 2048G elements (2 and 4 TiB of f16): more memory than any test machine has.
    r = run_cli(["bench", "--ops", "expand,cast", "--dtypes", "f16", "--sizes", "64K,1024G,2048G",
                 "--json", str(out), "--repeat", "1", "--warmup", "1"])
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert "does not fit" in r.stderr and "not trying the 1 larger size(s)" in r.stderr
    data = json.loads(out.read_text())
    assert [c["numel"] for c in data["cases"]] == [65536] * 4   # expand, cast x3
    skipped = data["skipped"]
    assert len(skipped) == 4 and all(s["kind"] == "does not fit" for s in skipped)
    assert all(s["numel"] == 2**40 and s["larger_sizes_skipped"] == 1 for s in skipped)
    assert all("available" in s["reason"] for s in skipped)


def test_bad_arguments_are_messages():
    for args, words in ((["--ops", "nonsense"], "choose from expand"),
                        (["--sizes", "12Q"], "--sizes: '12Q' is not a size"),
                        (["--dtypes", "f17"], "--dtypes: 'f17' is not a dtype"),
                        (["--repeat", "0"], "--repeat 0: must be at least 1")):
        r = run_cli(["bench", *args], timeout=120)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_parse_and_format_sizes():
    assert bench.parse_size("4096") == 4096
    assert bench.parse_size("1M") == 2**20 and bench.parse_size("16m") == 2**24
    assert bench.parse_size("2G") == 2**31 and bench.parse_size("1.5K") == 1536
    with pytest.raises(bench.BenchError):
        bench.parse_size("0")
    assert bench.format_count(2**31) == "2G" and bench.format_count(2**31 + 2**26) == "2.06G"
    assert bench.format_count(1000) == "1000"


def test_stress_sizes_pass_the_32_bit_limits():
    ladder = bench.stress_ladder()
    assert ladder == sorted(ladder)
    assert any(2**31 < n < 2**32 for n in ladder) and any(n > 2**32 for n in ladder)


def test_sample_positions_cover_the_ends_and_the_64_bit_boundaries():
    n = 2**32 + 1000
    idx = bench.sample_positions(n)
    assert idx[0] == 0 and idx[-1] == n - 1 and np.all(np.diff(idx) > 0)
    for edge in (2**31, 2**32):
        assert edge - 1 in idx and edge in idx
    small = bench.sample_positions(100)
    assert np.array_equal(small, np.arange(100))


def test_layout_reference_is_numpys_pad_reshape_transpose():
    """The bench's reference for private layouts (from the layout's axes) equals the
    textbook NZ and NC1HWC0 construction."""
    from npu_emu import fractal
    rng = np.random.default_rng(0)
    m, n = 37, 45
    host = rng.integers(1, 1000, m * n).astype(np.uint16)
    spec = fractal.layout_spec("FRACTAL_NZ", (m, n), "f16")
    n1, m1, m0, n0 = spec.storage_shape
    want = np.pad(host.reshape(m, n), [(0, m1 * m0 - m), (0, n1 * n0 - n)]) \
        .reshape(m1, m0, n1, n0).transpose(2, 0, 1, 3).reshape(-1)
    got = cases.layout_expected(spec, host)(np.arange(spec.storage_numel))
    assert np.array_equal(got, want)
    shape = (2, 50, 3, 5)
    host = rng.integers(1, 1000, int(np.prod(shape))).astype(np.uint16)
    spec = fractal.layout_spec("NC1HWC0", shape, "f16", origin="NCHW")
    _, c1, _, _, c0 = spec.storage_shape
    want = np.pad(host.reshape(shape), [(0, 0), (0, c1 * c0 - 50), (0, 0), (0, 0)]) \
        .reshape(2, c1, c0, 3, 5).transpose(0, 1, 3, 4, 2).reshape(-1)
    assert np.array_equal(cases.layout_expected(spec, host)(np.arange(spec.storage_numel)), want)


def test_the_check_catches_a_wrong_result(cpu_backend):
    """A result that differs from the reference at one position is reported, with where."""
    b = bench.Bench(bench.Settings(["expand"], {}, {}, bench.TimingPolicy()), bench.Output(0, quiet=True))
    op = bench.OPS["expand"]
    spec = op.spec("broadcast", common.dtype_of("f32"), 4096)
    with b.built(op, spec, "Ascend910B") as built:
        built.run()
        assert bench.check_result(built, b.stream)["ok"]
        honest = built.expected
        built.expected = lambda idx: np.where(idx == 4095, np.float32(-1), honest(idx))
        result = bench.check_result(built, b.stream)
    assert not result["ok"] and result["mismatches"] == 1
    assert result["first_mismatch"]["position"] == 4095


def test_every_math_library_function_is_an_array_api_case_held_to_an_ulp(cpu_backend):
    """The array_api op times every function of our math library (the catalog's math
    entries), on inputs inside its domain, and holds a float64 result to the reference of a
    wider type: a result two ulps off is caught."""
    from npu_emu.bench import cases
    from npu_emu.kernels import ufunc
    math_functions = {u.name for u in ufunc.UFUNCS if u.math}
    assert math_functions <= set(cases.ARRAY_API_CASES) and math_functions <= cases._WITHIN_AN_ULP
    b = bench.Bench(bench.Settings(["array_api"], {}, {}, bench.TimingPolicy()), bench.Output(0, quiet=True))
    op = bench.OPS["array_api"]
    for name in ("acos", "acosh", "logaddexp"):
        spec = op.spec(name, common.dtype_of("f64"), 4096)
        with b.built(op, spec, "Ascend910B") as built:
            built.run()
            assert bench.check_result(built, b.stream)["ok"], name
            honest = built.expected

            def two_ulps_off(idx):
                want = honest(idx).view(np.float64).copy()
                want[idx == 7] = np.nextafter(np.nextafter(want[idx == 7], np.inf), np.inf)
                return want
            built.expected = two_ulps_off
            result = bench.check_result(built, b.stream)
        assert not result["ok"] and result["mismatches"] == 1, name


def test_whole_array_cases_check_their_results(cpu_backend):
    """Each array_api_whole case passes its check, and a result off at one place is caught:
    a bit flipped where equal bits are asked (sort, unique_values, the running sum, clip),
    a sum 10 off where a bound holds it (vecdot, vector_norm: theirs are about 0.1 here)."""
    b = bench.Bench(bench.Settings(["array_api_whole"], {}, {}, bench.TimingPolicy()),
                    bench.Output(0, quiet=True))
    op = bench.OPS["array_api_whole"]
    for name in op.variants:
        spec = op.spec(name, common.dtype_of("f32"), 4 * 4096)
        with b.built(op, spec, "Ascend910B") as built:
            built.run()
            assert bench.check_result(built, b.stream)["ok"], name
            honest = built.expected

            def off_at_1(idx, honest=honest, name=name):
                want = np.array(honest(idx), copy=True)
                if name in ("vecdot", "vector_norm"):
                    want[idx == 1] += 10.0
                else:
                    want.view(np.uint32)[idx == 1] ^= 1
                return want
            built.expected = off_at_1
            result = bench.check_result(built, b.stream)
        assert not result["ok"] and result["mismatches"] == 1, name
    # vecdot's other dtypes (our gemm kernels; x1 conjugated), held to their sums' bound:
    # float64's is far below 10 here, complex64's about 400 (three roundings a step over
    # 4096 steps, times the sum of the magnitudes), so the error there is 10^4 (a sum that
    # forgot x1's conjugation is off by thousands)
    for short_name in cases.VECDOT_ALSO:
        spec = op.spec("vecdot", common.dtype_of(short_name), 4 * 4096)
        with b.built(op, spec, "Ascend910B") as built:
            built.run()
            assert bench.check_result(built, b.stream)["ok"], short_name
            honest = built.expected

            def off_at_1(idx, honest=honest, by=10.0 if short_name == "f64" else 1e4):
                want = np.array(honest(idx), copy=True)
                want[idx == 1] += by
                return want
            built.expected = off_at_1
            result = bench.check_result(built, b.stream)
        assert not result["ok"] and result["mismatches"] == 1, short_name


def test_the_gemm_matmul_cases_check_their_bits(cpu_backend):
    """The matmul op's float64 and complex128 cases (xp.matmul on our gemm kernels) pass
    their bit-for-bit check against the order of sums, and one bit off at one place is
    caught; GFLOP/s count 8 n^3 for complex."""
    b = bench.Bench(bench.Settings(["matmul"], {}, {}, bench.TimingPolicy()),
                    bench.Output(0, quiet=True))
    op = bench.OPS["matmul"]
    for short_name in ("f64", "c128"):
        spec = op.spec("square", common.dtype_of(short_name), 96 * 96)
        assert spec.flops == (8 if short_name == "c128" else 2) * 96 ** 3
        with b.built(op, spec, "Ascend910B") as built:
            built.run()
            assert bench.check_result(built, b.stream)["ok"], short_name
            honest = built.expected

            def off_at_5(idx, honest=honest):
                want = np.array(honest(idx), copy=True)
                want.view(np.uint64)[np.flatnonzero(idx == 5)[:1] * (want.itemsize // 8)] ^= 1
                return want
            built.expected = off_at_5
            result = bench.check_result(built, b.stream)
        assert not result["ok"] and result["mismatches"] == 1, short_name


def test_version_and_python_dash_m():
    import npu_emu
    for cmd in (["npu-emu", "--version"], [sys.executable, "-m", "npu_emu", "--version"]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert r.returncode == 0 and r.stdout.strip() == f"npu-emu {npu_emu.__version__}"


def test_info_without_a_compiler_is_a_line(tmp_path):
    r = run_cli(["info"], timeout=120, env={"CXX": str(tmp_path / "no-such-g++"),
                                             "NPU_EMU_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    line = next(ln for ln in r.stdout.splitlines() if "kernel build" in ln)
    assert "unavailable" in line and "no-such-g++" in line
    assert "SoC" in r.stdout and "promotion rules" in r.stdout


def test_info_with_a_bad_device_choice_is_a_line():
    r = run_cli(["info"], timeout=120, env={"NPU_EMU_DEVICE": "tpu"})
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert "backend          unavailable" in r.stdout and "'tpu'" in r.stdout


def test_a_compute_bound_op_keeps_to_its_cap_unless_named():
    import argparse
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    cap = bench.OPS["matmul"].numel_cap["cuda"]
    s = bench.make_settings(p.parse_args(["--sizes", "16M,1G"]), "cuda")
    assert s.sizes["expand"] == [2**24, 2**30] and s.sizes["matmul"] == [min(cap, 2**24)]
    s = bench.make_settings(p.parse_args(["--ops", "matmul", "--sizes", "1G"]), "cuda")
    assert s.sizes["matmul"] == [2**30]


def test_a_cluster_of_two_workers_runs_a_case_larger_than_one_workers_memory():
    """--scheduler's runner on a LocalCluster of 2 worker processes (cpu backend) with a
    memory_limit of 64 MiB each: a cast of a 100 MiB float32 array completes, every block's
    checksum equals NumPy's cast of the same input (NumPy 2.x float16 rounding: to nearest
    even) and the one-process run's."""
    pytest.importorskip("distributed", reason="--scheduler needs the dask extra")
    import zlib

    import dask

    from npu_emu.bench import cluster, common

    # The nanny's pause and restart act on the process's whole memory, which an idle worker
    # with NumPy, Dask and npu_emu loaded already holds most of 64 MiB: off. The limit still
    # bounds the data a worker keeps (past it, to disk).
    with dask.config.set({"distributed.worker.memory.pause": False,
                          "distributed.worker.memory.terminate": False}):
        c = cluster.connect("local:2", "cpu", memory_limit="64MiB")
    try:
        assert len(c.workers) == 2
        assert all(w["memory_limit"] == 64 * 2**20 for w in c.workers.values())
        f16, numel, chunk = common.dtype_of("f16"), 25 * 2**20, 4 * 2**20
        case = cluster.run_case(c, "cast", "f32->x", f16, numel, chunk)
    finally:
        c.close()
    assert numel * 4 > 64 * 2**20                     # the input: 100 MiB
    assert case["check"]["ok"] and case["blocks"] == 25
    assert len(case["per_worker"]) == 2                # both workers took blocks
    assert sum(w["op_blocks"] for w in case["per_worker"].values()) == 25
    # The reference: each block's input made again here, cast by NumPy.
    want = []
    for i in range(25):
        raw = cases.random_storage(common.dtype_of("f32"), 2**20, seed=cluster._seed(3, (i,)))
        want.append(zlib.crc32(raw.view(np.float32).astype(np.float16).view(np.uint8)))
    assert case["checksums"] == want
    for key in ("gbps", "one_process_gbps", "speedup", "cluster_s", "one_process_s"):
        assert _positive(case[key]), key
    assert case["overhead_per_task_ms"] == pytest.approx(
        (2 * case["cluster_s"] - case["one_process_s"]) / case["tasks"] * 1e3)


def test_scheduler_arguments_are_messages():
    for args, words in ((["--scheduler", "local:0"], "local:N takes a number of workers"),
                        (["--scheduler", "nonsense"], "give local:N"),
                        (["--chunk-mib", "4"], "give --scheduler"),
                        (["--scheduler", "local:2", "--report", "x.json"], "--report take")):
        r = run_cli(["bench", *args], timeout=120)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_threads_measures_each_case_at_each_count_and_the_scaling(tmp_path):
    out = tmp_path / "threads.json"
    r = run_cli(["bench", "--quick", "--device", "cpu", "--ops", "view_copy", "--threads", "2,1",
                 "--json", str(out)])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["settings"]["threads"] == [1, 2]
    variants = set(bench.OPS["view_copy"].variants)
    assert sorted((c["variant"], c["threads"]) for c in data["cases"]) == \
        sorted((v, n) for v in variants for n in (1, 2))
    assert all(c["check"]["ok"] for c in data["cases"])
    by = {(c["variant"], c["threads"]): c for c in data["cases"]}
    assert {s["case"].split()[1] for s in data["scaling"]} == variants
    for s in data["scaling"]:
        v = s["case"].split()[1]
        one, two = by[(v, 1)]["ours"]["gbps"], by[(v, 2)]["ours"]["gbps"]
        assert s["gbps"] == {"1": pytest.approx(one), "2": pytest.approx(two)}
        # The ratio is the paired one: both counts in turns on one build, kept on the case
        # at the most threads.
        assert "paired" not in by[(v, 1)]
        paired = by[(v, 2)]["paired"]
        assert paired["threads"] == [1, 2] and all(_positive(g) for g in paired["gbps"])
        assert paired["ratio"] == pytest.approx(paired["gbps"][1] / paired["gbps"][0])
        assert s["paired_gbps"] == {"1": pytest.approx(paired["gbps"][0]),
                                    "2": pytest.approx(paired["gbps"][1])}
        assert s["ratio"] == pytest.approx(paired["ratio"]) and s["target"] == pytest.approx(1.7)
        host_target = 0.85 * data["host_scaling"]["ratio"]
        assert s["host_target"] == pytest.approx(host_target)
        assert s["met"] == (s["ratio"] >= 1.7 or two >= by[(v, 2)]["ceiling"]["gbps"]
                            or s["ratio"] >= host_target)
        if "torch" in by[(v, 1)]["ratios"]:
            assert _positive(s["torch_ratio"])
    assert "scaling: view_copy transposed f32" in r.stdout and "1 -> 2 threads" in r.stdout
    host = data["host_scaling"]                    # the host's own ceiling, beside the cases
    assert host["threads"] == [1, 2] and 0.3 < host["ratio"] < 3.0
    assert f"this host, 1 -> 2 threads: {host['ratio']:.2f}x on register-only" in r.stdout
    report = run_cli(["bench", "--report", str(out)], timeout=120)
    assert report.returncode == 0 and "Scaling (`--threads`):" in report.stdout
    assert "| threads |" in report.stdout


def _threaded_case(threads: int, gbps: float, paired: dict | None = None) -> dict:
    case = {"op": "view_copy", "variant": "transposed", "dtype": "f16", "numel": 1 << 24,
            "threads": threads, "ours": {"gbps": gbps}, "ceiling": {"gbps": 100.0}, "peers": {}}
    if paired:
        case["paired"] = paired
    return case


def test_scaling_takes_the_paired_ratio_and_falls_back_to_the_two_cases():
    # Two builds 3x apart (where the buffers landed) against the paired 1.9x of one build;
    # a run recorded before the pairing existed keeps the ratio of its two cases.
    from npu_emu.bench.report import scaling
    paired = {"threads": [1, 2], "gbps": [4.0, 7.6], "ratio": 1.9}
    (s,) = scaling([_threaded_case(1, 7.5), _threaded_case(2, 7.2, paired)])
    assert s["ratio"] == pytest.approx(1.9) and s["met"]
    assert s["paired_gbps"] == {"1": 4.0, "2": 7.6} and s["gbps"] == {"1": 7.5, "2": 7.2}
    (old,) = scaling([_threaded_case(1, 7.5), _threaded_case(2, 7.2)])
    assert old["ratio"] == pytest.approx(7.2 / 7.5) and not old["met"]
    assert old["paired_gbps"] is None


def test_the_core_probe_does_its_work_and_one_thread_is_the_unit(cpu_backend):
    """npu_emu_core_probe (the host's own thread scaling) is not optimized away: twice the
    rounds take about twice the time; core_scaling(1) is 1 by definition."""
    import ctypes
    probe = cpu_backend._lib("strided_copy.cu").npu_emu_core_probe
    probe.argtypes, probe.restype = (ctypes.c_int, ctypes.c_longlong), ctypes.c_double
    probe(1, 1 << 16)
    # fractions of a millisecond, the least of several: a loaded host preempts longer runs
    short = min(probe(1, 1 << 17) for _ in range(9))
    long = min(probe(1, 1 << 18) for _ in range(9))
    assert short > 0 and 1.3 < long / short < 3.0, (short, long)
    assert cpu_backend.core_scaling(1) == 1.0
    assert 0.3 < cpu_backend.core_scaling(2) < 3.0


def test_bad_thread_counts_are_messages():
    for value in ("0", "two", "1,-2", ""):
        r = run_cli(["bench", "--quick", "--threads", value], timeout=120)
        assert r.returncode == 2 and "--threads" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_set_threads_keeps_the_bits_and_shapes_the_geometry(cpu_backend):
    from npu_emu.kernels.copy import View, plan_copy
    be = cpu_backend
    rng = np.random.default_rng(7)
    src = rng.integers(0, 2**32, 300 * 200, dtype=np.uint32)
    sp, dp = be.malloc(src.nbytes), be.malloc(src.nbytes)
    before = be.threads
    try:
        be.copy_from_host(sp, src)
        got = {}
        for n in (1, 2):
            be.set_threads(n)
            assert be.threads == n and be.parallelism == n
            # a transpose (tiled kernel) and 16*n blocks of a contiguous copy
            be.enqueue(plan_copy(be, View(dp, (200, 300), (300, 1), 4), View(sp, (200, 300), (1, 200), 4)),
                       be.default_stream)
            be.default_stream.synchronize()
            out = np.empty_like(src)
            be.copy_to_host(out, dp)
            got[n] = out
            assert be.elementwise_geometry(2**24, 4)[0] == 16 * n
        want = src.reshape(300, 200).T.ravel()
        assert np.array_equal(got[1], want) and np.array_equal(got[2], want)
        for bad in (0, -1, 1.5, True):
            with pytest.raises(ValueError, match="set_threads: n="):
                be.set_threads(bad)
    finally:
        be.set_threads(before)
        be.free(sp)
        be.free(dp)
