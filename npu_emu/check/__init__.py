"""The sanitizer's switch (docs/sanitizer.md): NPU_EMU_CHECK=race,init,misuse,leak (or all),
read once at import. Off, every call site tests `check.ON` and does nothing else; on, `hook`
is the one Checker (npu_emu.check._checker) that the call sites report to.

A C ABI bridge names the C symbol a call came through with `c_call("aclnnAdd")` (a context
manager) or passes it as the `hint` of `site()`, so findings name the C function.
"""
from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator

TOOL_NAMES = ("race", "init", "misuse", "leak")
DEFAULT_EXITCODE = 86
ENV, ENV_JSON, ENV_EXITCODE = "NPU_EMU_CHECK", "NPU_EMU_CHECK_JSON", "NPU_EMU_CHECK_EXITCODE"
H2D, D2H, D2D = "host-to-device", "device-to-host", "device-to-device"   # copy kinds of the hooks


def parse_tools(text: str) -> frozenset[str]:
    """The tools a NPU_EMU_CHECK / --tools value names ("" or "0" or "off": none)."""
    words = [w.strip().lower() for w in text.replace(";", ",").split(",") if w.strip()]
    if words in ([], ["0"], ["off"], ["none"]):
        return frozenset()
    if "all" in words or words == ["1"]:
        return frozenset(TOOL_NAMES)
    unknown = [w for w in words if w not in TOOL_NAMES]
    if unknown:
        raise ValueError(f"{ENV}={text!r}: unknown tool {unknown[0]!r}; choose from "
                         f"{', '.join(TOOL_NAMES)} or all")
    return frozenset(words)


TOOLS: frozenset[str] = parse_tools(os.environ.get(ENV, ""))
ON: bool = bool(TOOLS)
hook = None   # the Checker, only when ON

_c_symbol = threading.local()


@contextlib.contextmanager
def c_call(symbol: str) -> Iterator[None]:
    """Calls made inside are attributed to the C function `symbol` (the C ABI bridge)."""
    previous = getattr(_c_symbol, "name", None)
    _c_symbol.name = symbol
    try:
        yield
    finally:
        _c_symbol.name = previous


def current_c_symbol() -> str | None:
    return getattr(_c_symbol, "name", None)


if ON:
    import atexit

    from ._checker import Checker
    hook = Checker(TOOLS)
    atexit.register(hook.at_exit)   # leaks at exit, the summary, the JSON, the exit status

__all__ = ["D2D", "D2H", "H2D", "DEFAULT_EXITCODE", "ON", "TOOLS", "TOOL_NAMES", "c_call",
           "current_c_symbol", "hook", "parse_tools"]
