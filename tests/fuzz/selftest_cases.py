"""Cases that misbehave on purpose (worker side), so the suite's own machinery is tested:
each oracle must fire on its defect, and the runner must survive a crash and a hang."""
from __future__ import annotations

import ctypes
import os
import time

import numpy as np

from npu_emu import status

from .harness import Block, Ctx


def _failing(code: int):
    """A function that fails with `code` and a message, as a C-style function does."""
    def fn() -> int:
        status.set_recent_error(f"selftest failure {code}")
        return code
    return fn


def selftest_case(ctx: Ctx) -> None:
    do = ctx.case["args"]["do"]
    if do == "segfault":
        ctypes.string_at(0)
    elif do == "abort":
        os.abort()
    elif do == "hang":
        time.sleep(3600)
    elif do == "escape":
        ctx.call("selftest.raises", lambda: 1 // 0)
    elif do == "no_msg":
        ctx.call("selftest.silent", lambda: 161002)      # fails without a message
    elif do == "bad_family":
        code = ctx.call("selftest.family", _failing(100000))  # an aclError from an aclnn function
        ctx.expect("selftest.family", code, {161002}, "selftest")
    elif do == "internal":
        ctx.call("selftest.internal", _failing(561000))  # no expect(): flushed at the end
    elif do == "leak":
        ctx.be.malloc(100)                               # never freed
    elif do in ("guard_write", "view_write", "clean"):
        blk = Block(ctx, 64, 64, "selftest block")
        blk.upload()
        blk.view_mask[64:128] = True
        blk.expect = blk.image.copy()
        blk.expect[64:128] = 7
        ctx.be.copy_from_host(blk.data, np.full(64, 7, np.uint8))
        if do == "guard_write":
            ctx.be.copy_from_host(blk.ptr + 3, np.full(1, blk.image[3] ^ 0xFF, np.uint8))
        elif do == "view_write":
            ctx.be.copy_from_host(blk.data + 5, np.zeros(1, np.uint8))
        ctx.synchronize()
        ctx.check_blocks()
    else:
        raise ValueError(do)
