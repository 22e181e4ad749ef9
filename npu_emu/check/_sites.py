"""Call sites of the sanitizer's findings: the first stack frame outside the npu_emu package
(the user's file and line), or the C symbol when the call came through the C ABI."""
from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def site(hint: str | None = None) -> str:
    """Where the user made the current call: "path:line (function)"; "symbol (C ABI)" when
    `hint` (or the bridge's c_call) names the C function that was called."""
    from . import current_c_symbol
    symbol = hint or current_c_symbol()
    if symbol:
        return f"{symbol} (C ABI)"
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE):
            return f"{_short(path)}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back
    return "(inside npu_emu)"


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
