"""Programs run side by side, their outputs printed whole and in order: `npu-emu demo`'s
examples (Python and C++), each in its own process as a user runs it."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
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
    `header(i)` then its output, as soon as it and every one before it have finished; their
    exit statuses. Each program's stdout goes to our stdout and its stderr to our stderr (so
    `2>file` and NPU_EMU_CHECK's reports on stderr keep working), replayed in the order its
    pieces arrived (Python programs run unbuffered), so on a terminal its lines interleave as
    they would live. jobs=1 runs them one after another with their output live."""
    if jobs <= 1:
        codes = []
        for i, argv in enumerate(commands):
            print(header(i))
            sys.stdout.flush()
            codes.append(subprocess.call(list(argv)))
        return codes

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    codes = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_captured, argv, env) for argv in commands]
        try:
            for i, future in enumerate(futures):
                rc, pieces = future.result()
                print(header(i))
                sys.stdout.flush()
                for to_stderr, data in pieces:
                    stream = sys.stderr if to_stderr else sys.stdout
                    stream.buffer.write(data)
                    stream.buffer.flush()
                codes.append(rc)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return codes


def _captured(argv: Sequence[str], env: dict) -> tuple[int, list[tuple[bool, bytes]]]:
    """Run `argv`; its exit status and its output as (from stderr, bytes) pieces in the
    order they arrived."""
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    pieces: list[tuple[bool, bytes]] = []
    lock = threading.Lock()

    def drain(pipe, to_stderr: bool) -> None:
        with pipe:
            for data in iter(lambda: pipe.read1(65536), b""):
                with lock:
                    pieces.append((to_stderr, data))

    readers = [threading.Thread(target=drain, args=(proc.stdout, False), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, True), daemon=True)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    return proc.wait(), pieces
