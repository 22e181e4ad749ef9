"""Moved to `npu-emu bench --ops format_cast` (docs/benchmarks.md); this keeps the old command
line: python benchmarks/bench_formats.py [--mib 256] [--json out.json] [--device cpu|cuda]"""
import _harness

raise SystemExit(_harness.forward("format_cast", 2, 256, "f16", __doc__))
