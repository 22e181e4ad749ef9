"""Host side of the kernel families, one module each: its catalog (kernel names x storage
types, declared once; the .cu instantiation lists are generated from it) and the launches
and geometry it plans. The backends that run them live in npu_emu.runtime."""

from pathlib import Path


def write_sources(folder: Path, sources: dict[str, str]) -> list[Path]:
    """Write each generated unit (file name -> its text) into `folder`; the paths written."""
    paths = []
    for name, text in sources.items():
        path = folder / name
        path.write_text(text)
        paths.append(path)
    return paths
