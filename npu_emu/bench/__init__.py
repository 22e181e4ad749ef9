"""`npu-emu bench`: operator throughput on large shapes, through the public API, against the
device's own copy and against NumPy / PyTorch / CuPy doing the same work in the same run.

Every case plans one aclnn executor (phase one), marks it repeatable, and times phase two
only: medians over repeats after warm-up, CUDA events on the GPU, enqueue + stream synchronize
on the cpu backend. GB/s counts each case's minimal traffic (bytes read + written, padding of
private layouts included). The ceiling is a plain device-to-device `acl.rt.memcpy_async` of the
same traffic, measured in the same run. Results are checked against a host reference on a
sample of positions (the first, the last, around 2^31 and 2^32, and random ones).

One module per job: `cases` (one entry of `OPS` per operator: its variants, dtypes, case
geometry and builder), `timing`, `peers`, `provenance` (and the memory budget), `runner`,
`report` (goals, summary, RESULTS.md, plots), `cli`; `common` holds what they share and
`cluster` runs the stress cases on a Dask cluster (`--scheduler`). The JSON schema is
`SCHEMA` (docs/benchmarks.md describes it).
"""
from __future__ import annotations

from .cases import OPS, Built, CaseSpec, Op
from .cli import add_arguments, main, make_settings
from .common import LEGACY_SCHEMA, SCHEMA, BenchError, DoesNotFit, Refused, format_bytes, \
    format_count, parse_size, stress_ladder
from .report import GOALS, REPORT_COMMAND, Goal, goal_lines, plot, render_report
from .runner import Bench, Output, Settings, check_result, sample_positions
from .timing import Timing, TimingPolicy, measure

__all__ = ["OPS", "Built", "CaseSpec", "Op", "add_arguments", "main", "make_settings",
           "LEGACY_SCHEMA", "SCHEMA", "BenchError", "DoesNotFit", "Refused", "format_bytes",
           "format_count", "parse_size", "stress_ladder", "GOALS", "REPORT_COMMAND", "Goal",
           "goal_lines", "plot", "render_report", "Bench", "Output", "Settings", "check_result",
           "sample_positions", "Timing", "TimingPolicy", "measure"]
