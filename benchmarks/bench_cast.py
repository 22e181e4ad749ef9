"""Moved to `npu-emu bench --ops cast` (docs/benchmarks.md); this keeps the old command line:
python benchmarks/bench_cast.py [--mib 256] [--types f16,bf16,...] [--json out.json]
[--device cpu|cuda]"""
import _harness

raise SystemExit(_harness.forward("cast", 4, 256, None, __doc__))
