#!/usr/bin/env bash
# The GPU check for a short GPU lease, in under 8 minutes on one H200, from the source tree (no
# install: PYTHONPATH). Steps, each with its own time limit and log:
#   1. the full test suite with the cuda backend current (NPU_EMU_DEVICE=cuda; kernel tests run
#      on both backends), minus step 2's file
#   2. the CPU-vs-GPU bit-identity tests (tests/test_cpu_gpu_identity.py)
#   3. compute-sanitizer memcheck over the kernel tests' cuda cases
#   4. compute-sanitizer racecheck over the kernels with shared-memory tiles
#   5. the benchmarks
# then a short table, last. Everything it writes goes under OUTDIR: logs, junit reports, the
# kernel caches (NPU_EMU_CACHE_DIR), Hypothesis' database (pytest runs from OUTDIR), no bytecode.
#
#   benchmarks/run_gpu_check.sh OUTDIR                        # on a GPU machine
#   NPU_EMU_DEVICE=cpu benchmarks/run_gpu_check.sh OUTDIR     # dry run of the same steps on
#       the CPU: step 3 becomes the cpu backend's AddressSanitizer run, step 4 is skipped
#
# What the GPU machine needs (it has no network; nothing here installs anything): python3 with
# numpy, ml_dtypes, pytest and hypothesis; cupy-cuda13x >= 14.1 with NVRTC (nvidia-cuda-nvrtc);
# g++ with OpenMP (the cpu backend the identity tests compare with); compute-sanitizer on PATH
# or in the CUDA toolkit (steps 3-4 say "unavailable" without it, or on a runtime whose GPU it
# refuses); optionally pytest-xdist (step 1 then runs on several workers). array-api-compat is
# optional (its tests skip). All of these are in the H200 image this project's leases get.
#
# Time limits (seconds), overridable: SUITE_S IDENTITY_S MEMCHECK_S RACECHECK_S BENCH_S;
# BENCH_SIZES, BENCH_BUDGET (npu-emu bench --sizes / --budget);
# SUITE_ARGS (default "tests") narrows step 1 for a quick try of the script itself.
set -u
OUT=${1:?usage: run_gpu_check.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export NPU_EMU_DEVICE="${NPU_EMU_DEVICE:-cuda}"
export NPU_EMU_CACHE_DIR="${NPU_EMU_CACHE_DIR:-$OUT/cache}"
PY=${PYTHON:-python3}
if [ "$NPU_EMU_DEVICE" = cuda ]; then GPU=1; else GPU=0; fi
SUITE_S=${SUITE_S:-$([ $GPU = 1 ] && echo 200 || echo 900)}
IDENTITY_S=${IDENTITY_S:-60}
MEMCHECK_S=${MEMCHECK_S:-$([ $GPU = 1 ] && echo 75 || echo 400)}
RACECHECK_S=${RACECHECK_S:-45}
KERNEL_TESTS="tests/test_strided_copy.py tests/test_cast_kernel.py tests/test_add_mul.py
              tests/test_fractal.py tests/test_inplace_copy.py tests/test_format_cast.py tests/test_matmul.py"
ASAN_TESTS="tests/test_strided_copy.py tests/test_add_mul.py tests/test_fractal.py tests/test_pool.py"
read -r -a SUITE_ARGS <<< "${SUITE_ARGS:-tests}"   # e.g. SUITE_ARGS=tests/test_runtime.py for a quick try
start=$(date +%s)
: > "$OUT/steps.tsv"

step() {   # step NAME RC NOTE: one row of the table
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$OUT/steps.tsv"
}

CFG=(-q -p no:cacheprovider -c "$REPO/pyproject.toml" --rootdir "$REPO")
in_repo() {   # paths relative to the repo, made absolute (pytest runs from OUTDIR)
    local a
    # shellcheck disable=SC2048
    for a in $*; do case $a in /*) echo "$a" ;; *) echo "$REPO/$a" ;; esac; done
}

run_pytest() {   # run_pytest LIMIT LOG ARGS...: from OUTDIR (Hypothesis' database lands there)
    local limit=$1 log=$2
    shift 2
    (cd "$OUT" && timeout "$limit" "$PY" -m pytest "${CFG[@]}" "$@") > "$log" 2>&1
}

# 0. what is here, and every kernel module compiled once, in parallel (both caches)
$PY -m npu_emu.cli info > "$OUT/info.txt" 2>&1
info_rc=$?
timeout 300 $PY -c "
from npu_emu import runtime
for name in ('cpu', 'cuda') if runtime.current().name == 'cuda' else ('cpu',):
    runtime.backend(name)._modules.build_all()
" > "$OUT/build.log" 2>&1
step build $? "kernels for $NPU_EMU_DEVICE (build.log)"

# 1. the full suite
XDIST=()
if [ $GPU = 1 ] && $PY -c "import xdist" 2>/dev/null; then XDIST=(-n 8); fi
# shellcheck disable=SC2046
run_pytest "$SUITE_S" "$OUT/suite.log" "${XDIST[@]}" $(in_repo "${SUITE_ARGS[@]}") \
    --ignore="$REPO/tests/test_cpu_gpu_identity.py" --junitxml="$OUT/junit_suite.xml"
step suite $? "suite.log"

# 2. CPU vs GPU bit identity (skips, saying why, without a GPU)
run_pytest "$IDENTITY_S" "$OUT/identity.log" "$REPO/tests/test_cpu_gpu_identity.py" \
    --junitxml="$OUT/junit_identity.xml"
step identity $? "identity.log"

# 3-4. sanitizers
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
sanitize() {   # sanitize TOOL LIMIT "TESTS" EXPR
    local tool=$1 limit=$2 expr=$4 log="$OUT/$1.log"
    # shellcheck disable=SC2046
    (cd "$OUT" && timeout "$limit" "$SANITIZER" --tool "$tool" --target-processes all \
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
        step "$tool" 0 "no errors in the first ${limit} s (its time limit; $tool.log)"
    else
        step "$tool" $rc "no errors ($tool.log)"
    fi
}
if [ $GPU = 1 ] && [ -n "$SANITIZER" ]; then
    sanitize memcheck "$MEMCHECK_S" "$KERNEL_TESTS" "cuda"
    sanitize racecheck "$RACECHECK_S" "tests/test_strided_copy.py tests/test_fractal.py tests/test_matmul.py" \
        "cuda and (tiled or transposes or layouts or matmul or fractal)"
elif [ $GPU = 1 ]; then
    step memcheck skip "compute-sanitizer not found"
    step racecheck skip "compute-sanitizer not found"
else   # the cpu backend's memory checker: its kernels under AddressSanitizer
    LIBASAN=$(g++ -print-file-name=libasan.so 2>/dev/null)
    if [ -f "$LIBASAN" ]; then
        # shellcheck disable=SC2046
        NPU_EMU_SANITIZE=address LD_PRELOAD="$LIBASAN" ASAN_OPTIONS=detect_leaks=0 \
            run_pytest "$MEMCHECK_S" "$OUT/memcheck.log" -x $(in_repo "$ASAN_TESTS") -k "not 64bit"
        rc=$?
        if grep -q "ERROR: AddressSanitizer" "$OUT/memcheck.log"; then
            step memcheck 1 "AddressSanitizer found errors (memcheck.log)"
        elif [ $rc -eq 124 ]; then
            step memcheck 0 "cpu kernels under AddressSanitizer: no errors in the first ${MEMCHECK_S} s"
        else
            step memcheck $rc "cpu kernels under AddressSanitizer (memcheck.log)"
        fi
    else
        step memcheck skip "no libasan for the cpu analog"
    fi
    step racecheck skip "no cpu analog (the cpu model runs one thread per block)"
fi

# 5. the benchmarks: npu-emu bench on this device (64M elements: the goals' 256 MiB of f32),
#    then its RESULTS.md section, generated from the JSON
bench_rc=0
PLOT=(); $PY -c "import matplotlib" 2>/dev/null && PLOT=(--plot "$OUT/bench.png")
timeout "${BENCH_S:-150}" $PY -m npu_emu bench --device "$NPU_EMU_DEVICE" \
    --sizes "${BENCH_SIZES:-64M}" --budget "${BENCH_BUDGET:-5}" "${PLOT[@]}" --json "$OUT/bench.json" \
    --note "run_gpu_check.sh" > "$OUT/bench.log" 2>&1 || bench_rc=1
$PY -m npu_emu bench --report "$OUT/bench.json" > "$OUT/RESULTS-section.md" 2>>"$OUT/bench.log" || bench_rc=1
step benchmarks $bench_rc "bench.json bench.log RESULTS-section.md"

$PY - "$OUT" "$info_rc" "$(( $(date +%s) - start ))" <<'PYEOF'
import json, os, sys
import xml.etree.ElementTree as ET
out, info_rc, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def junit(name):
    try:
        root = ET.parse(os.path.join(out, name)).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root)
    t, fl, er, sk = (sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped"))
    bad = [f"{c.get('classname')}::{c.get('name')}: {(b.get('message') or '')[:120]}"
           for s in suites for c in s.iter("testcase") for b in [*c.findall("failure"), *c.findall("error")]]
    return f"{t - fl - er - sk} passed, {fl} failed, {er} errors, {sk} skipped", bad


print("\n===== run_gpu_check summary =====")
try:
    with open(os.path.join(out, "info.txt")) as f:
        for line in f:
            if line.strip().startswith(("backend", "device", "nvrtc ", "cupy")):
                print(line.rstrip())
except OSError:
    pass
if info_rc:
    print(f"npu-emu info failed (rc {info_rc}): see info.txt")
failed = []
with open(os.path.join(out, "steps.tsv")) as f:
    for line in f:
        name, rc, note = line.rstrip("\n").split("\t")
        report = junit(f"junit_{name}.xml") if name in ("suite", "identity") else None
        status = "ok" if rc == "0" else "skip" if rc == "skip" else f"FAIL (rc {rc})"
        if rc not in ("0", "skip"):
            failed.append(name)
        print(f"{name:<11} {status:<12} {report[0] if report else note}")
        for b in (report[1][:8] if report else []):
            print(f"    FAILED {b}")
path = os.path.join(out, "bench.json")
if os.path.exists(path):
    sys.path.insert(0, os.environ.get("PYTHONPATH", "").split(":")[0])
    from npu_emu import bench
    with open(path) as f:
        data = json.load(f)
    print("benchmarks (GB/s, x the device copy, x peers):")
    for case in data.get("cases", []):
        ours = (case.get("ours") or {}).get("gbps")
        ratios = "  ".join(f"{k} {v:.2f}x" for k, v in (case.get("ratios") or {}).items() if v)
        ok = (case.get("check") or {}).get("ok")
        print(f"  {case.get('op')} {case.get('variant')} {case.get('dtype')} {case.get('numel')}: "
              f"{ours:.1f} GB/s  {ratios}  check {'ok' if ok else ok}" if ours else f"  {case}"[:160])
    for line in bench.goal_lines(data):
        print("goal", line)
print(f"total {secs} s; logs, junit and JSON in {out}")
sys.exit(1 if failed or info_rc else 0)
PYEOF
