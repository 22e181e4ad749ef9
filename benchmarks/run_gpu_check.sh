#!/usr/bin/env bash
# The GPU check, for a short lease of one GPU with no network (written for one H200: about 9
# minutes), from the source tree. Steps, each with its own time limit and log, all under one
# deadline; a short table last:
#   env        nvidia-smi; the python's CuPy, CUDA runtime, driver, NVRTC; g++ (env.txt)
#   install    the package installed offline into a venv over the image's packages (pip
#              --no-index; wheels the image may lack from WHEELS); used when its cuda backend
#              starts, else the image's python with PYTHONPATH (INSTALL=0 skips this step)
#   info       npu-emu info, and what NPU_EMU_DEVICE=auto picks (info.txt, auto.txt)
#   build      both kernel caches, cold (NPU_EMU_CACHE_DIR under OUTDIR), concurrently
#   bitexact   the same aclnn calls on cpu and on cuda in separate processes, every output
#              storage compared byte for byte (benchmarks/gpu_bitexact.py)
#   smoke      the known risks on the device (benchmarks/gpu_smoke.py: PASS/FAIL/INFO lines)
#   cuda-tests the cuda backend's own test files
#   identity   tests/test_cpu_gpu_identity.py
#   suite      the rest of the test suite with the cuda backend current (until its limit)
#   memcheck, racecheck   compute-sanitizer over the kernel tests' cuda cases
#   benchmarks npu-emu bench --device cuda --quick (BENCH_ARGS to change), the float64 and
#              complex128 matmuls (our gemm kernels against cuBLAS), and their RESULTS.md
#              section generated from the JSON
# Everything goes under OUTDIR (default $OUT): logs, junit reports, the kernel caches,
# Hypothesis' database, summary.txt; no bytecode.
#
#   benchmarks/run_gpu_check.sh OUTDIR                        # on a GPU machine
#   NPU_EMU_DEVICE=cpu benchmarks/run_gpu_check.sh OUTDIR     # dry run of the same steps on
#       the CPU: bitexact compares two cpu processes, smoke is skipped, memcheck is the cpu
#       backend's AddressSanitizer run, racecheck is skipped
#
# What the machine needs (nothing here reaches a network): python3 with numpy, ml_dtypes,
# pytest and hypothesis; cupy-cuda12x/13x >= 14.1 with NVRTC; g++ with OpenMP (the cpu
# backend the identity checks compare with); compute-sanitizer on PATH or in the CUDA toolkit
# (else memcheck/racecheck say "unavailable"); optionally pytest-xdist, pytest-timeout,
# array-api-compat (offered offline from WHEELS: a folder of wheels; default the first of
# shared/gpu-first-contact/whl in the tree, /work/shared/gpu-first-contact/whl).
#
# Limits (seconds), overridable: DEADLINE_S (the whole run) INSTALL_S BUILD_S BITEXACT_S
# SMOKE_S CUDA_TESTS_S IDENTITY_S SUITE_S MEMCHECK_S RACECHECK_S BENCH_S; BIG=1 adds the
# bitexact cases past 2^31 elements (~7 GB host and device); SUITE_ARGS (default "tests")
# narrows the suite for a quick try of the script itself.
set -u
OUT=${1:-${OUT:?usage: run_gpu_check.sh OUTDIR}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export NPU_EMU_DEVICE="${NPU_EMU_DEVICE:-cuda}"
export NPU_EMU_CACHE_DIR="${NPU_EMU_CACHE_DIR:-$OUT/cache}"
export HYPOTHESIS_STORAGE_DIRECTORY="$OUT/hypothesis"
PY=${PYTHON:-python3}
if [ "$NPU_EMU_DEVICE" = cuda ]; then GPU=1; else GPU=0; fi
start=$(date +%s)
DEADLINE=$(( start + ${DEADLINE_S:-$([ $GPU = 1 ] && echo 560 || echo 3600)} ))
SUITE_S=${SUITE_S:-$([ $GPU = 1 ] && echo 150 || echo 900)}
MEMCHECK_S=${MEMCHECK_S:-$([ $GPU = 1 ] && echo 60 || echo 400)}
CUDA_TESTS_S=${CUDA_TESTS_S:-$([ $GPU = 1 ] && echo 90 || echo 900)}   # cpu: NVRTC builds the cubins
KERNEL_TESTS="tests/test_strided_copy.py tests/test_cast_kernel.py tests/test_add_mul.py
              tests/test_fractal.py tests/test_inplace_copy.py tests/test_format_cast.py tests/test_matmul.py"
ASAN_TESTS="tests/test_strided_copy.py tests/test_add_mul.py tests/test_fractal.py tests/test_pool.py"
CUDA_TESTS="tests/test_cuda_backend.py tests/test_cuda_fake_gpu.py tests/test_kernels_compile.py
            tests/array_api/test_interop.py tests/array_api/test_dlpack_codec.py"
read -r -a SUITE_ARGS <<< "${SUITE_ARGS:-tests}"
: > "$OUT/steps.tsv"

step() {   # step NAME RC NOTE: one row of the table
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$OUT/steps.tsv"
}

limit() {   # limit SECONDS: that, or what the deadline leaves (0: no time left)
    local left=$(( DEADLINE - $(date +%s) - 15 ))
    if [ "$left" -lt 10 ]; then echo 0; elif [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}

CFG=(-q -p no:cacheprovider -c "$REPO/pyproject.toml" --rootdir "$REPO")
in_repo() {   # paths relative to the repo, made absolute (pytest runs from OUTDIR)
    local a
    # shellcheck disable=SC2048
    for a in $*; do case $a in /*) echo "$a" ;; *) echo "$REPO/$a" ;; esac; done
}

run_pytest() {   # run_pytest NAME LIMIT ARGS...: from OUTDIR, junit_NAME.xml and NAME.log
    local name=$1 t
    t=$(limit "$2")
    shift 2
    if [ "$t" = 0 ]; then step "$name" skip "no time left"; return; fi
    local tmo=()
    "$PY" -c "import pytest_timeout" 2>/dev/null && tmo=(--timeout=120)
    (cd "$OUT" && timeout "$t" "$PY" -m pytest "${CFG[@]}" "${tmo[@]}" -rfE \
        --junitxml="$OUT/junit_$name.xml" "$@") > "$OUT/$name.log" 2>&1
    local rc=$?
    step "$name" "$rc" "$([ $rc = 124 ] && echo "cut at its ${t} s limit; ")$name.log"
}

# ---------------------------------------------------------------------------- env
{
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap \
        --format=csv,noheader
    "$PY" - <<'PYEOF'
import sys
print("python", sys.version.split()[0], sys.executable)
try:
    import cupy
    from cupy.cuda import nvrtc, runtime
    print("cupy", cupy.__version__, "runtime", runtime.runtimeGetVersion(), "driver", runtime.driverGetVersion(),
          "nvrtc", nvrtc.getVersion())
    print("devices", runtime.getDeviceCount())
except Exception as exc:
    print("cupy problem:", type(exc).__name__, exc)
for m in ("numpy", "ml_dtypes", "pytest", "hypothesis", "xdist", "pytest_timeout", "array_api_compat", "torch"):
    try:
        print("has", m, getattr(__import__(m), "__version__", "?"))
    except Exception as exc:
        print("lacks", m, type(exc).__name__)
PYEOF
    echo "g++ $(command -v "${CXX:-g++}" || echo MISSING); host avx512f: $(grep -c avx512f /proc/cpuinfo | head -1)"
} > "$OUT/env.txt" 2>&1
step env 0 "$(grep -E '^(cupy|devices|lacks)' "$OUT/env.txt" | tr '\n' ';' | cut -c1-150)"

# ------------------------------------------------------------------------ install
WHL=""
for w in "${WHEELS:-}" "$REPO/shared/gpu-first-contact/whl" /work/shared/gpu-first-contact/whl; do
    if [ -n "$w" ] && [ -d "$w" ]; then WHL=$w; break; fi
done
if [ "${INSTALL:-1}" = 0 ]; then
    step install skip "INSTALL=0: the image's python with PYTHONPATH"
elif [ "$(limit "${INSTALL_S:-120}")" = 0 ]; then
    step install skip "no time left"
else
    VENV="$OUT/venv"
    FIND=(); [ -n "$WHL" ] && FIND=(--find-links "$WHL")
    {
        # A venv over the image's packages: --system-site-packages, and where the image's
        # python is itself a venv, a .pth to its site folders (CUDA_PATH for cuda.pathfinder,
        # which looks for CUDA's wheels only in the site folders it knows).
        "$PY" -m venv --system-site-packages "$VENV" &&
        "$PY" - "$VENV" <<'PYEOF'
import os, subprocess, sys, sysconfig
venv = sys.argv[1]
if sys.prefix != sys.base_prefix:
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    site = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    with open(os.path.join(site, "_image_site.pth"), "w") as f:
        f.write("\n".join(paths) + "\n")
    for cand in (os.path.join(paths[0], "nvidia", "cu13"), os.path.join(paths[0], "nvidia", "cu12"), "/usr/local/cuda"):
        if os.path.isdir(os.path.join(cand, "lib")) or os.path.isdir(os.path.join(cand, "lib64")):
            print("CUDA_PATH", cand)
            break
PYEOF
    } > "$OUT/install.log" 2>&1
    VPY="$VENV/bin/python"
    CUDA_PATH_GUESS=$(awk '/^CUDA_PATH /{print $2}' "$OUT/install.log")
    EXTRA=$("$PY" -c "from cupy.cuda import runtime; print(f'[cuda{runtime.runtimeGetVersion() // 1000}]')" 2>/dev/null)
    how=FAILED
    if [ -x "$VPY" ]; then
        PIP=(timeout "$(limit "${INSTALL_S:-120}")" "$VPY" -m pip install --disable-pip-version-check
             --no-index "${FIND[@]}")
        # Build isolation takes setuptools/wheel from WHEELS; the image's (no isolation) next;
        # without the dependencies last (the image has them, or the steps say what lacks).
        for try in "-e $REPO$EXTRA" "--no-build-isolation -e $REPO$EXTRA" "--no-deps -e $REPO" \
                   "--no-deps --no-build-isolation -e $REPO"; do
            # shellcheck disable=SC2086
            if "${PIP[@]}" $try >> "$OUT/install.log" 2>&1; then how="pip install $try"; break; fi
        done
        for opt in pytest_timeout array_api_compat; do   # optional: offered from WHEELS
            "$VPY" -c "import $opt" 2>/dev/null || "${PIP[@]}" --no-deps "${opt//_/-}" >> "$OUT/install.log" 2>&1
        done
    fi
    [ -n "$CUDA_PATH_GUESS" ] && [ -z "${CUDA_PATH:-}" ] && export CUDA_PATH="$CUDA_PATH_GUESS"
    if [ "$how" != FAILED ] && "$VPY" -c "from npu_emu import runtime; print(runtime.current().name)" \
            > "$OUT/install_check.txt" 2>&1 && grep -qx "$NPU_EMU_DEVICE" "$OUT/install_check.txt"; then
        PY=$VPY
        step install 0 "${how/$REPO/.}; the steps run in the venv (install.log)"
    else
        step install 1 "${how/$REPO/.}; the venv's $NPU_EMU_DEVICE backend did not start, so the image's python runs the steps (install.log, install_check.txt)"
    fi
fi

# --------------------------------------------------------------------------- info
"$PY" -m npu_emu.cli info > "$OUT/info.txt" 2>&1
step info $? "info.txt"
NPU_EMU_DEVICE=auto "$PY" -c "import logging; logging.basicConfig(level=logging.INFO)
from npu_emu import runtime; print('auto picks', runtime.current().name)" > "$OUT/auto.txt" 2>&1
step auto $? "$(grep -E 'auto picks|npu_emu:' "$OUT/auto.txt" | sed 's/.*because the cuda backend is //' | tr '\n' ' ' | cut -c1-160)"

# -------------------------------------------------------------------------- build
t=$(limit "${BUILD_S:-240}")
if [ "$t" = 0 ]; then step build skip "no time left"; else
    b0=$(date +%s)
    pids=()
    for b in cpu $([ $GPU = 1 ] && echo cuda); do
        timeout "$t" "$PY" -c "from npu_emu import runtime; runtime.backend('$b')._modules.build_all()" \
            > "$OUT/build_$b.log" 2>&1 &
        pids+=($!)
    done
    rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
    step build $rc "cold caches in $(( $(date +%s) - b0 )) s: $(grep -h 'kernels ready\|failed' "$OUT"/build_*.log | tr '\n' ' ' | cut -c1-120)"
fi

# ----------------------------------------------------------------------- bitexact
t=$(limit "${BITEXACT_S:-150}")
if [ "$t" = 0 ]; then step bitexact skip "no time left"; else
    OTHER=$([ $GPU = 1 ] && echo cuda || echo cpu)    # the dry run compares two cpu processes
    BIG=${BIG:-0} timeout "$t" "$PY" benchmarks/gpu_bitexact.py run cpu "$OUT/bitexact_a.npz" > "$OUT/bitexact_cpu.log" 2>&1 &
    pa=$!
    BIG=${BIG:-0} timeout "$t" "$PY" benchmarks/gpu_bitexact.py run "$OTHER" "$OUT/bitexact_b.npz" > "$OUT/bitexact_$OTHER.log" 2>&1
    rb=$?
    wait $pa; ra=$?
    "$PY" benchmarks/gpu_bitexact.py compare "$OUT/bitexact_a.npz" "$OUT/bitexact_b.npz" > "$OUT/bitexact.log" 2>&1
    rc=$?
    [ $ra = 0 ] && [ $rb = 0 ] || rc=1
    step bitexact $rc "cpu vs $OTHER: $(grep -h 'bit-exact:' "$OUT/bitexact.log") (bitexact*.log)"
fi

# -------------------------------------------------------------------------- smoke
if [ $GPU = 0 ]; then
    step smoke skip "needs a GPU (the fake-GPU tests check the same logic)"
elif [ "$(limit "${SMOKE_S:-90}")" = 0 ]; then
    step smoke skip "no time left"
else
    timeout "$(limit "${SMOKE_S:-90}")" "$PY" benchmarks/gpu_smoke.py > "$OUT/smoke.log" 2>&1
    rc=$?
    fails=$(grep -c '^FAIL' "$OUT/smoke.log")
    [ "$rc" = 0 ] && [ "$fails" -gt 0 ] && rc=1
    step smoke $rc "$(grep -c '^PASS' "$OUT/smoke.log") PASS, $fails FAIL (smoke.log)"
fi

# -------------------------------------------------------------------------- tests
# shellcheck disable=SC2046
run_pytest cuda-tests "$CUDA_TESTS_S" $(in_repo "$CUDA_TESTS")
run_pytest identity "${IDENTITY_S:-60}" "$REPO/tests/test_cpu_gpu_identity.py"
XDIST=()
if [ $GPU = 1 ] && "$PY" -c "import xdist" 2>/dev/null; then XDIST=(-n 8); fi
IGNORE=(); for f in $CUDA_TESTS tests/test_cpu_gpu_identity.py; do IGNORE+=(--ignore="$REPO/$f"); done
# shellcheck disable=SC2046
run_pytest suite "$SUITE_S" "${XDIST[@]}" $(in_repo "${SUITE_ARGS[@]}") "${IGNORE[@]}"

# ---------------------------------------------------------------------- sanitizers
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
sanitize() {   # sanitize TOOL LIMIT "TESTS" EXPR
    local tool=$1 t expr=$4 log="$OUT/$1.log"
    t=$(limit "$2")
    if [ "$t" = 0 ]; then step "$tool" skip "no time left"; return; fi
    # shellcheck disable=SC2046
    (cd "$OUT" && timeout "$t" "$SANITIZER" --tool "$tool" --target-processes all \
        --print-limit 20 --error-exitcode 86 "$PY" -m pytest "${CFG[@]}" -x $(in_repo "$3") \
        -k "$expr") > "$log" 2>&1
    local rc=$?
    local errors
    errors=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" | awk '{s += $3} END {print s + 0}')
    if grep -q -E "Device not supported|Unable to find injection library|error 999" "$log"; then
        step "$tool" skip "unavailable: the sanitizer refused this GPU or runtime ($tool.log)"
    elif [ "$errors" -gt 0 ] || [ $rc -eq 86 ]; then
        step "$tool" 1 "$errors errors ($tool.log)"
    elif [ $rc -eq 124 ]; then
        step "$tool" 0 "no errors in the first ${t} s (its time limit; $tool.log)"
    else
        step "$tool" $rc "no errors ($tool.log)"
    fi
}
if [ $GPU = 1 ] && [ -n "$SANITIZER" ]; then
    sanitize memcheck "$MEMCHECK_S" "$KERNEL_TESTS" "cuda"
    sanitize racecheck "${RACECHECK_S:-30}" "tests/test_strided_copy.py tests/test_fractal.py tests/test_matmul.py" \
        "cuda and (tiled or transposes or layouts or matmul or fractal)"
elif [ $GPU = 1 ]; then
    step memcheck skip "compute-sanitizer not found"
    step racecheck skip "compute-sanitizer not found"
else   # the cpu backend's memory checker: its kernels under AddressSanitizer
    LIBASAN=$(g++ -print-file-name=libasan.so 2>/dev/null)
    t=$(limit "$MEMCHECK_S")
    if [ "$t" = 0 ]; then
        step memcheck skip "no time left"
    elif [ -f "$LIBASAN" ]; then
        # shellcheck disable=SC2046
        (cd "$OUT" && NPU_EMU_SANITIZE=address LD_PRELOAD="$LIBASAN" ASAN_OPTIONS=detect_leaks=0 \
            timeout "$t" "$PY" -m pytest "${CFG[@]}" -x $(in_repo "$ASAN_TESTS") -k "not 64bit") \
            > "$OUT/memcheck.log" 2>&1
        rc=$?
        if grep -q "ERROR: AddressSanitizer" "$OUT/memcheck.log"; then
            step memcheck 1 "AddressSanitizer found errors (memcheck.log)"
        elif [ $rc -eq 124 ]; then
            step memcheck 0 "cpu kernels under AddressSanitizer: no errors in the first ${t} s"
        else
            step memcheck $rc "cpu kernels under AddressSanitizer (memcheck.log)"
        fi
    else
        step memcheck skip "no libasan for the cpu analog"
    fi
    step racecheck skip "no cpu analog (the cpu model runs one thread per block)"
fi

# --------------------------------------------------------------------- benchmarks
t=$(limit "${BENCH_S:-90}")
if [ "$t" = 0 ]; then step benchmarks skip "no time left"; else
    bench_rc=0
    read -r -a BENCH <<< "${BENCH_ARGS:---quick}"
    timeout "$t" "$PY" -m npu_emu bench --device "$NPU_EMU_DEVICE" "${BENCH[@]}" --json "$OUT/bench.json" \
        --note "run_gpu_check.sh" > "$OUT/bench.log" 2>&1 || bench_rc=1
    # the array API's float64 and complex128 matmuls (our gemm kernels) against cuBLAS
    t=$(limit 60)
    [ "$t" = 0 ] || timeout "$t" "$PY" -m npu_emu bench --device "$NPU_EMU_DEVICE" --ops matmul \
        --dtypes f64,c128 --sizes "$([ $GPU = 1 ] && echo 1M,16M || echo 64K)" \
        --json "$OUT/bench-gemm.json" --note "run_gpu_check.sh: gemm" \
        >> "$OUT/bench.log" 2>&1 || bench_rc=1
    "$PY" -m npu_emu bench --report "$OUT"/bench*.json > "$OUT/RESULTS-section.md" 2>>"$OUT/bench.log" || bench_rc=1
    step benchmarks $bench_rc "bench.json bench-gemm.json bench.log RESULTS-section.md"
fi

# -------------------------------------------------------------------------- table
"$PY" - "$OUT" "$(( $(date +%s) - start ))" <<'PYEOF' | tee "$OUT/summary.txt"
import json, os, sys
import xml.etree.ElementTree as ET
out, secs = sys.argv[1], int(sys.argv[2])


def junit(name):
    try:
        root = ET.parse(os.path.join(out, f"junit_{name}.xml")).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root)
    t, fl, er, sk = (sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped"))
    bad = [f"{c.get('classname')}::{c.get('name')}: {(b.get('message') or '')[:120]}"
           for s in suites for c in s.iter("testcase") for b in [*c.findall("failure"), *c.findall("error")]]
    return f"{t - fl - er - sk} passed, {fl} failed, {er} errors, {sk} skipped", bad


def lines(name, prefix):
    try:
        with open(os.path.join(out, name), errors="replace") as f:
            return [l.rstrip() for l in f if l.startswith(prefix)]
    except OSError:
        return []


print("\n===== run_gpu_check summary =====")
for line in lines("info.txt", "  "):
    if line.strip().startswith(("backend", "device", "cupy", "cuda", "nvrtc ")):
        print(line)
failed = []
with open(os.path.join(out, "steps.tsv")) as f:
    for row in f:
        name, rc, note = row.rstrip("\n").split("\t")
        report = junit(name)
        status = "ok" if rc == "0" else "skip" if rc == "skip" else f"FAIL (rc {rc})"
        if rc not in ("0", "skip"):
            failed.append(name)
        print(f"{name:<11} {status:<12} {report[0] + ' (' + note + ')' if report else note}")
        for b in (report[1][:8] if report else []):
            print(f"    FAILED {b}")
        if name == "smoke":
            for l in lines("smoke.log", ("FAIL", "INFO")):
                print(f"    {l[:200]}")
        if name == "bitexact":
            for l in lines("bitexact.log", "  DIFF")[:8] + lines("bitexact.log", "  MISSING")[:4]:
                print(f"    {l[:200]}")
for name in ("bench.json", "bench-gemm.json"):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        continue
    sys.path.insert(0, os.environ.get("PYTHONPATH", "").split(":")[0])
    from npu_emu import bench
    with open(path) as f:
        data = json.load(f)
    print(f"benchmarks, {name} (GB/s, x the device copy, x peers; GFLOP/s):")
    for case in data.get("cases", []):
        ours = (case.get("ours") or {}).get("gbps")
        flops = (case.get("ours") or {}).get("gflops")
        ratios = "  ".join(f"{k} {v:.2f}x" for k, v in (case.get("ratios") or {}).items() if v)
        ok = (case.get("check") or {}).get("ok")
        print(f"  {case.get('op')} {case.get('variant')} {case.get('dtype')} {case.get('numel')}: "
              f"{ours:.1f} GB/s{f'  {flops:.0f} GFLOP/s' if flops else ''}  {ratios}  "
              f"check {'ok' if ok else ok}" if ours else f"  {case}"[:160])
    if name == "bench.json":
        for line in bench.goal_lines(data):
            print("goal", line)
print(f"total {secs} s; logs, junit, JSON and summary.txt in {out}")
sys.exit(1 if failed else 0)
PYEOF
exit "${PIPESTATUS[0]}"
