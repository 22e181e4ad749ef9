"""The C ABI's cost per call: a tiny aclnnExpand pair plus aclrtSynchronizeStream from C
against the Python facade (npu_emu.capi.bench; goal: C within 1.5x).

    python benchmarks/bench_capi.py [--n 500] [--reps 7] [--json]
"""
import sys

from npu_emu.capi.bench import main

if __name__ == "__main__":
    sys.exit(main())
