"""Host side of the kernel families, one module each: its catalog (kernel names x storage
types, declared once; the .cu instantiation lists are generated from it) and the launches
and geometry it plans. The backends that run them live in npu_emu.runtime.

A family that instantiates its templates from its catalog owns the generated files of
kernels_cuda/ that its GENERATED globs match (each starts with the banner unit_text writes),
and `generated()` gives their text (file name -> text, every file it owns).
`python -m npu_emu.kernels` rewrites those that differ and removes the files a catalog no
longer names (`--check`: only says which differ); a test keeps them fresh.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Iterable, Sequence

# The families whose units are generated from their catalogs (strided copy, layout and the
# cube's matmul.cu are written by hand; tests/test_kernel_catalog.py checks them against
# their catalogs).
GENERATORS = ("cast", "clip", "elementwise", "gemm", "reduce", "select", "triangle", "ufunc")


_BANNER = "// Generated from "


def unit_text(family: str, catalog: str, lines: Iterable[str], about: Sequence[str] = (),
              includes: Sequence[str] = ()) -> str:
    """The text of a generated file of `family`: where it comes from (the family's `catalog`),
    `about` (comment lines), the headers it includes, then its instantiation lines."""
    head = [f"{_BANNER}{catalog} in npu_emu/kernels/{family}.py by `python -m npu_emu.kernels`;",
            "// do not edit (tests/test_kernel_catalog.py checks that it is fresh).",
            *(f"// {line}" for line in about), *(f'#include "{h}"' for h in includes)]
    return "\n".join([*head, *lines]) + "\n"


def _changes(folder: Path) -> list[tuple[str, Path, str | None]]:
    """(what, path, text) for each generated file of `folder` that differs from its family's
    catalog: "stale" or "missing" with the text it should have, or "not in the <family>
    family's catalog" (text None: a file the family's globs own, with the banner, that
    its catalog no longer names; a hand-written file beside them, cast_any.cu, has none)."""
    found: list[tuple[str, Path, str | None]] = []
    for name in GENERATORS:
        family = importlib.import_module(f"{__name__}.{name}")
        want = family.generated()
        owned = {p.name for g in family.GENERATED for p in folder.glob(g)
                 if p.read_text().startswith(_BANNER)}
        found += [(f"not in the {name} family's catalog", folder / file, None)
                  for file in sorted(owned - set(want))]
        for file, text in want.items():
            path = folder / file
            if not path.is_file():
                found.append(("missing", path, text))
            elif path.read_text() != text:
                found.append(("stale", path, text))
    return found


def differences(folder: Path) -> list[str]:
    """A line per generated file of `folder` (kernels_cuda/) that differs from the catalogs;
    [] when every one is fresh."""
    return [f"{path.name}: {what}" for what, path, _ in _changes(folder)]


def write_generated(folder: Path) -> list[str]:
    """Write every generated file that differs into `folder` and remove those no catalog
    names; a line for each change."""
    said = []
    for _, path, text in _changes(folder):
        if text is None:
            path.unlink()
            said.append(f"removed {path}")
        else:
            path.write_text(text)
            said.append(f"wrote {path}")
    return said


def main(argv: Sequence[str]) -> int:
    from ..runtime.base import kernels_dir
    if "--check" in argv:
        said = differences(kernels_dir())
        for line in said:
            print(line, file=sys.stderr)
        if said:
            print("run python -m npu_emu.kernels", file=sys.stderr)
        return 1 if said else 0
    for line in write_generated(kernels_dir()):
        print(line)
    return 0
