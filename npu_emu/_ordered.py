"""Programs run side by side, their outputs printed whole and in order: `npu-emu demo`'s
examples (Python and C++), each in its own process as a user runs it."""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence


def default_jobs() -> int:
    """How many run at once by default: the CPUs this process may use, at most 4 (each
    example is mostly an interpreter starting; more would only share the same cores)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def run_in_order(commands: Sequence[Sequence[str]], header: Callable[[int], str],
                 jobs: int) -> list[int]:
    """Run `commands`, up to `jobs` at a time, and print for each, in the given order, its
    `header(i)` then its output (stdout and stderr together in one pipe; Python programs
    unbuffered, so their lines interleave as a terminal shows them), as soon as it and every
    one before it have finished; their exit statuses. jobs=1 runs them one after another
    with their output live."""
    if jobs <= 1:
        codes = []
        for i, argv in enumerate(commands):
            print(header(i))
            sys.stdout.flush()
            codes.append(subprocess.call(list(argv)))
        return codes

    def run(argv: Sequence[str]) -> tuple[int, bytes]:
        done = subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, env=env)
        return done.returncode, done.stdout

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    codes = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run, argv) for argv in commands]
        try:
            for i, future in enumerate(futures):
                rc, output = future.result()
                print(header(i))
                sys.stdout.flush()
                sys.stdout.buffer.write(output)
                sys.stdout.buffer.flush()
                codes.append(rc)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return codes
