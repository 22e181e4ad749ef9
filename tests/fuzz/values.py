"""Tagged JSON values -> the Python objects a hostile caller passes (worker side).

Plain JSON values stand for themselves (lists stay lists). Tags: {"$": "f", "v": "inf"} a
float; {"$": "np", "t": "int64", "v": 3} a NumPy scalar; {"$": "a0", ...} a 0-d array;
{"$": "arr", ...} an array; "tuple", "bytes", "bytearray", "set", "dict", "complex",
"np_void", "np_dt64"; {"$": "obj", "v": name} an object the harness supplies (a live stream,
a destroyed tensor, a freed pointer...), resolved through `objects`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def decode(value: object, objects: Callable[[str], object] | None = None) -> object:
    if isinstance(value, list):
        return [decode(v, objects) for v in value]
    if not isinstance(value, dict) or "$" not in value:
        return value
    tag, v = value["$"], value.get("v")
    if tag == "f":
        return float(v)
    if tag == "np":
        return np.dtype(value["t"]).type(decode(v))
    if tag == "a0":
        return np.array(decode(v), dtype=value["t"])
    if tag == "arr":
        return np.array(v if v is not None else [2, 3], dtype=value["t"])
    if tag == "tuple":
        return tuple(decode(v, objects)) if v is not None else (2, 3)
    if tag == "bytes":
        return bytes(v)
    if tag == "bytearray":
        return bytearray(v)
    if tag == "set":
        return set(v)
    if tag == "dict":
        return {"a": 1}
    if tag == "complex":
        return complex(v[0], v[1])
    if tag == "np_void":
        return np.void(b"ab")
    if tag == "np_dt64":
        return np.datetime64(v, "D")
    if tag == "obj":
        if v == "object":
            return object()
        if objects is None:
            raise KeyError(f"no object {v!r} outside a case")
        return objects(v)
    raise ValueError(f"unknown tag {tag!r}")


def describe(value: object) -> str:
    """A short readable form of a tagged value (for defect lines)."""
    if isinstance(value, dict) and "$" in value:
        tag = value["$"]
        if tag == "f":
            return f"float({value['v']!r})"
        if tag in ("np", "a0"):
            inner = describe(value["v"])
            return f"np.array({inner}, {value['t']})" if tag == "a0" else f"np.{value['t']}({inner})"
        if tag == "obj":
            return f"<{value['v']}>"
        return f"{tag}({value.get('v')!r})"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    return repr(value)


def kind_of(value: object) -> str:
    """What sort of value a tagged value is, without its magnitude (for defect signatures, so
    one defect shows once however many values show it)."""
    if isinstance(value, dict) and "$" in value:
        tag, v = value["$"], value.get("v")
        if tag == "f":
            return "float" + (f"({v})" if isinstance(v, str) else "")
        if tag == "np":
            return f"np.{value['t']}"
        if tag == "a0":
            return f"0-d {value['t']} array"
        if tag == "arr":
            return f"{value['t']} array"
        if tag == "obj":
            return f"<{v}>"
        if tag == "tuple":
            return "tuple of " + _kinds(v or [])
        return tag
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if value >= 2**63:
            return "int >= 2**63"
        if value < -2**63:
            return "int < -2**63"
        return "int -2**63" if value == -2**63 else "int"
    if isinstance(value, list):
        return "list of " + _kinds(value)
    return type(value).__name__


def _kinds(items: list) -> str:
    return "[" + ", ".join(sorted({kind_of(v) for v in items})) + "]"
