"""Moved to `npu-emu bench --ops view_copy,expand` (docs/benchmarks.md); this keeps the old
command line: python benchmarks/bench_copy.py [--mib 64] [--json out.json] [--device cpu|cuda]"""
import _harness

raise SystemExit(_harness.forward("view_copy,expand", 4, 64, "f32", __doc__))
