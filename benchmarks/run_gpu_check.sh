#!/usr/bin/env bash
# The GPU check for a short GPU lease: the cuda-marked tests and the benchmarks, in under
# 8 minutes, from the source tree (no install: PYTHONPATH), full logs and JSON in OUTDIR,
# a short table printed last.
#
#   benchmarks/run_gpu_check.sh OUTDIR            # on a GPU machine (NPU_EMU_DEVICE=cuda)
#   NPU_EMU_DEVICE=cpu benchmarks/run_gpu_check.sh OUTDIR   # dry run of the same steps on the CPU
#
# The GPU machine has cupy-cuda13x, numpy, ml_dtypes, pytest and hypothesis but not
# array-api-compat and no network: nothing here may install anything.
set -u
OUT=${1:?usage: run_gpu_check.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export NPU_EMU_DEVICE="${NPU_EMU_DEVICE:-cuda}"
export NPU_EMU_CACHE_DIR="${NPU_EMU_CACHE_DIR:-$OUT/cache}"
PY=${PYTHON:-python3}
BENCH_MIB=${BENCH_MIB:-64}
start=$(date +%s)

$PY -m npu_emu.cli info > "$OUT/info.txt" 2>&1
info_rc=$?

if [ "$NPU_EMU_DEVICE" = cuda ]; then MARK="cuda"; else MARK="not cuda"; fi
timeout 300 $PY -m pytest -q -p no:cacheprovider -m "$MARK" tests \
    --junitxml="$OUT/junit.xml" > "$OUT/pytest.log" 2>&1
tests_rc=$?

bench_rc=0
for bench in bench_copy bench_ops bench_cast bench_formats; do
    [ -f "benchmarks/$bench.py" ] || continue
    timeout 120 $PY "benchmarks/$bench.py" --device "$NPU_EMU_DEVICE" --mib "$BENCH_MIB" \
        --json "$OUT/$bench.json" > "$OUT/$bench.log" 2>&1 || bench_rc=1
done

$PY - "$OUT" "$info_rc" "$tests_rc" "$bench_rc" "$(( $(date +%s) - start ))" <<'PYEOF'
import json, os, sys
import xml.etree.ElementTree as ET
out, info_rc, tests_rc, bench_rc, secs = sys.argv[1], *map(int, sys.argv[2:])
print("\n===== run_gpu_check summary =====")
try:
    with open(os.path.join(out, "info.txt")) as f:
        for line in f:
            if line.strip().startswith(("backend", "device")):
                print(line.rstrip())
except OSError:
    pass
try:
    suite = ET.parse(os.path.join(out, "junit.xml")).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    t, fl, er, sk = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    print(f"tests: {t - fl - er - sk} passed, {fl} failed, {er} errors, {sk} skipped (rc {tests_rc})")
    for case in suite.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            print(f"  FAILED {case.get('classname')}::{case.get('name')}: {bad.get('message', '')[:150]}")
except (OSError, ET.ParseError, IndexError) as exc:
    print(f"tests: no junit report ({exc}); rc {tests_rc}")
for name in ("bench_copy", "bench_ops", "bench_cast", "bench_formats"):
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        continue
    with open(path) as f:
        data = json.load(f)
    print(f"{name}:")
    for row in data.get("results", []):
        cells = [f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()]
        print("  " + "  ".join(cells))
print(f"total {secs} s; logs and JSON in {out}")
PYEOF
[ $tests_rc -eq 0 ] && [ $bench_rc -eq 0 ] && [ $info_rc -eq 0 ]
