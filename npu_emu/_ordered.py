"""Programs run side by side, their outputs printed whole and in order: `npu-emu demo`'s
examples (Python and C++), each in its own process as a user runs it."""
from __future__ import annotations

import os
import selectors
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
                if any(not to_stderr for to_stderr, _ in pieces):
                    last = next(data for to_stderr, data in reversed(pieces) if not to_stderr)
                    if not last.endswith(b"\n"):     # the next header starts its own line
                        sys.stdout.buffer.write(b"\n")
                        sys.stdout.buffer.flush()
                codes.append(rc)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return codes


def _captured(argv: Sequence[str], env: dict) -> tuple[int, list[tuple[bool, bytes]]]:
    """Run `argv`; its exit status and its output as (from stderr, bytes) pieces of whole
    lines, in the order they arrived. One reader serves both pipes: a line is kept until its
    newline (an unbuffered print writes its text and its newline apart, and another stream's
    line must not land between them), and when both pipes are ready stdout is read first, so
    a program that prints a line then writes one to stderr is replayed in that order. Across
    the two pipes the order is the arrival order, which is all two pipes can tell."""
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    pieces: list[tuple[bool, bytes]] = []
    partial = {False: b"", True: b""}
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, False)
        selector.register(proc.stderr, selectors.EVENT_READ, True)
        while selector.get_map():
            ready = sorted(key.data for key, _ in selector.select())   # stdout (False) first
            for to_stderr in ready:
                pipe = proc.stderr if to_stderr else proc.stdout
                data = os.read(pipe.fileno(), 65536)
                if not data:
                    selector.unregister(pipe)
                    pipe.close()
                    if partial[to_stderr]:
                        pieces.append((to_stderr, partial[to_stderr]))
                    continue
                text = partial[to_stderr] + data
                cut = text.rfind(b"\n") + 1
                if cut:
                    pieces.append((to_stderr, text[:cut]))
                partial[to_stderr] = text[cut:]
    return proc.wait(), pieces
