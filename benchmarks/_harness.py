"""The old benchmark scripts' command line (`--mib N --repeat N --device D --json FILE`),
forwarded to `npu-emu bench`, which replaced them (docs/benchmarks.md)."""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def forward(ops: str, itemsize: int, default_mib: int, dtypes: str | None = None,
            description: str = "") -> int:
    """Run `npu-emu bench --ops OPS` at the size the old --mib meant (MiB of an element of
    `itemsize` bytes), printing the equivalent command first."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--mib", type=int, default=int(os.environ.get("BENCH_MIB", default_mib)))
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--types", default=dtypes, help="comma-separated dtypes")
    args = ap.parse_args()
    argv = ["bench", "--ops", ops, "--sizes", f"{args.mib * 2**20 // itemsize}"]
    for flag, value in (("--dtypes", args.types), ("--repeat", args.repeat),
                        ("--device", args.device), ("--json", args.json)):
        if value is not None:
            argv += [flag, str(value)]
    print("npu-emu " + " ".join(argv), file=sys.stderr)
    from npu_emu.cli import main
    return main(argv)
