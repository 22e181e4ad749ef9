"""Moved to `npu-emu bench --ops expand,view_copy` (it also reports the host overhead of one
call pair; docs/benchmarks.md); this keeps the old command line:
python benchmarks/bench_ops.py [--mib 64] [--json out.json] [--device cpu|cuda]"""
import _harness

raise SystemExit(_harness.forward("expand,view_copy", 4, 64, "f32", __doc__))
