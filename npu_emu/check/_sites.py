"""Call sites of the sanitizer's findings: the first stack frame outside the npu_emu package
(the user's file and line), or the C symbol when the call came through the C ABI."""
from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_API = tuple(_PACKAGE + p for p in ("check", "acl", "aclnn.py", "_capi.py", "executor.py",
                                    "ops", "_state.py", "runtime", "tensor.py"))
_ROOT = os.path.dirname(os.path.dirname(_PACKAGE))
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep   # contextlib, runpy...
_files: dict[str, str | None] = {}   # co_filename -> its short name, None inside npu_emu


def site(hint: str | None = None) -> str:
    """Where the user made the current call: "path:line (function)"; "symbol (C ABI)" when
    `hint` (or the bridge's c_call) names the C function that was called."""
    from . import current_c_symbol
    symbol = hint or current_c_symbol()
    if symbol:
        return f"{symbol} (C ABI)"
    frame = sys._getframe(1)
    inner = None                 # npu_emu's own caller of the API (a program inside npu_emu)
    while frame is not None:
        code = frame.f_code
        path = code.co_filename
        short = _files.get(path, "")
        if short == "":
            short = _files[path] = _short(path)
        if short is not None and not path.startswith("<"):
            return f"{short}:{frame.f_lineno} ({code.co_name})"
        if inner is None and path.startswith(_PACKAGE) and not path.startswith(_API):
            inner = f"{os.path.relpath(path, _ROOT)}:{frame.f_lineno} ({code.co_name})"
        frame = frame.f_back
    return inner or "(inside npu_emu)"


def _short(path: str) -> str | None:
    """The name a site shows for a file, or None for npu_emu's own files and the standard
    library's (a user's call through contextlib is the user's)."""
    full = os.path.abspath(path)
    if full.startswith(_PACKAGE) or (full.startswith(_STDLIB) and "-packages" not in full):
        return None
    try:
        rel = os.path.relpath(full)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
