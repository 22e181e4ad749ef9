"""Host memory given as a raw int address: C trusts such a pointer; the emulator checks that
the range is mapped (readable, or writable for a destination) before it touches it, so a
stale or mistyped address is refused instead of crashing the process. Linux reads
/proc/self/maps; elsewhere the address is trusted, as in C."""
from __future__ import annotations

import bisect
import os

_MAPS = "/proc/self/maps"


def _regions(write: bool) -> list[tuple[int, int]]:
    out = []
    with open(_MAPS) as f:
        for line in f:
            span, perms = line.split(None, 2)[:2]
            if perms[0] != "r" or (write and perms[1] != "w"):
                continue
            lo, hi = span.split("-")
            out.append((int(lo, 16), int(hi, 16)))
    out.sort()
    # merge neighbours so a buffer spanning two mappings counts as one range
    merged: list[tuple[int, int]] = []
    for lo, hi in out:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def is_mapped(addr: int, nbytes: int, write: bool) -> bool:
    """Whether [addr, addr + nbytes) is mapped in this process (with write permission)."""
    if nbytes <= 0:
        return True
    if not os.path.exists(_MAPS):
        return True
    regions = _regions(write)
    i = bisect.bisect_right(regions, (addr, float("inf"))) - 1
    return i >= 0 and regions[i][0] <= addr and addr + nbytes <= regions[i][1]
