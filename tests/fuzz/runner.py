"""The parent side of the fuzz suite: a persistent worker process (worker.py) fed one case
at a time, a per-case timeout, and a report of what happened.

A case that kills the worker (a signal, an abort) is recorded as a crash and one that does
not finish in time as a hang; either way the worker is restarted and the next case goes on.
Once a (entry, mutation) pair has hung or crashed MAX_REPEATS times its further cases are
skipped and counted: one known defect must not eat the whole time budget.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

WORKER = Path(__file__).resolve().parent / "worker.py"
TESTS = WORKER.parent.parent
STARTUP_TIMEOUT = float(os.environ.get("NPU_EMU_FUZZ_STARTUP", "600"))   # a cold kernel cache compiles
CASE_TIMEOUT = float(os.environ.get("NPU_EMU_FUZZ_TIMEOUT", "6"))
MAX_REPEATS = 2

# report columns: defect kind -> counter name
COLUMNS = {"crash": "crashes", "hang": "hangs", "escaped_exception": "escaped_exceptions",
           "out_of_view_write": "out_of_view_writes", "leak": "leaks", "wrong_result": "wrong_results",
           "wrong_code": "wrong_codes", "no_err_msg": "missing_err_msgs", "bad_return": "bad_returns",
           "harness_error": "harness_errors"}


class WorkerDied(Exception):
    pass


class Worker:
    def __init__(self, env: dict[str, str]) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-u", str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=str(TESTS))
        self.buffer = b""
        line = self.readline(STARTUP_TIMEOUT)
        if not line or not json.loads(line).get("ready"):
            tail = self.stderr_tail()
            self.close()
            raise RuntimeError(f"the fuzz worker did not start: {line!r}\n{tail}")

    def readline(self, timeout: float) -> str | None:
        """A line of the protocol; None on timeout, "" when the worker is gone."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return ""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def send(self, msg: dict) -> None:
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(str(exc)) from None

    def stderr_tail(self, n: int = 1500) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - n))
            return self.stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.stderr.close()


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


class Runner:
    """Runs cases in a worker, restarting it after a crash or hang, and keeps the report."""

    def __init__(self, env: dict[str, str] | None = None, timeout: float = CASE_TIMEOUT,
                 max_repeats: int = MAX_REPEATS) -> None:
        self.env = {**os.environ, "NPU_EMU_DEVICE": "cpu", **(env or {})}
        self.timeout = timeout
        self.max_repeats = max_repeats
        self.in_flight: tuple[int, dict, tuple[str, str]] | None = None
        self.env["PYTHONPATH"] = os.pathsep.join([str(TESTS), self.env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.worker: Worker | None = None
        self.next_id = 0
        self.report = Report()
        self.repeats: Counter = Counter()

    def ensure_worker(self) -> Worker:
        if self.worker is None:
            self.worker = Worker(self.env)
        return self.worker

    def restart(self) -> None:
        if self.worker is not None:
            self.worker.close()
        self.worker = None

    def run(self, case: dict) -> dict:
        """Run one case and wait for its outcome ({"status": "done" | "crash" | "hang" |
        "skipped", ...}); it is recorded in the report."""
        self.submit(case)
        return self.collect() or {"status": "skipped"}

    def submit(self, case: dict) -> None:
        """Hand a case to the worker without waiting (the outcome of the previous one is
        collected first): the next case is drawn while this one runs."""
        self.collect()
        key = (case["entry"], (case.get("mut") or {}).get("kind") or "valid")
        if self.repeats[key] >= self.max_repeats:
            self.report.add(case, {"status": "skipped"})
            return
        self.next_id += 1
        for _ in range(2):
            try:
                self.ensure_worker().send({"id": self.next_id, "case": case})
                break
            except WorkerDied:
                self.restart()
        self.in_flight = (self.next_id, case, key)

    def collect(self) -> dict | None:
        """Wait for the case in flight (if any) and record its outcome."""
        if self.in_flight is None:
            return None
        cid, case, key = self.in_flight
        self.in_flight = None
        outcome = self._await(cid)
        if outcome["status"] in ("crash", "hang"):
            self.repeats[key] += 1
        self.report.add(case, outcome)
        return outcome

    def _await(self, cid: int) -> dict:
        worker = self.ensure_worker()
        started = False
        while True:
            line = worker.readline(self.timeout if started else STARTUP_TIMEOUT)
            if line is None:                           # no answer in time: a hang
                tail = worker.stderr_tail()
                self.restart()
                return {"status": "hang", "detail": f"no answer within {self.timeout:g} s", "stderr": tail}
            if line == "":                             # the worker died: a crash
                code = worker.proc.wait()
                tail = worker.stderr_tail()
                self.restart()
                when = "" if started else " before the case started"
                return {"status": "crash", "detail": f"{_exit_reason(code)}{when}", "stderr": tail}
            msg = json.loads(line)
            if msg.get("start") == cid:
                started = True
            elif msg.get("done") == cid:
                return {"status": "done", "result": msg["result"]}

    def close(self) -> None:
        self.collect()
        self.restart()


def reproducer(case: dict) -> str:
    return f"NPU_EMU_DEVICE=cpu python tests/fuzz/worker.py --case '{json.dumps(case, separators=(',', ':'))}'"


class Report:
    """Counts per entry point, calls per C-style function, and distinct defects (grouped by
    signature, each with its smallest case as the reproducer)."""

    def __init__(self) -> None:
        self.stats: dict[str, Counter] = defaultdict(Counter)
        self.calls: Counter = Counter()
        self.defects: dict[tuple[str, str, str], dict] = {}

    def add(self, case: dict, outcome: dict) -> None:
        entry = case["entry"]
        st = self.stats[entry]
        st["cases"] += 1
        mut = (case.get("mut") or {}).get("kind") or "valid"
        found: list[dict] = []
        if outcome["status"] == "skipped":
            st["skipped_after_repeats"] += 1
            return
        if outcome["status"] in ("crash", "hang"):
            found.append({"kind": outcome["status"], "where": entry,
                          "sig": f"{entry}: {mut}: {outcome['detail'].split('(')[0].strip()}",
                          "detail": outcome["detail"] + ("\n" + outcome["stderr"][-600:] if outcome.get("stderr") else "")})
        else:
            self.calls.update(outcome["result"]["calls"])
            found = outcome["result"]["defects"]
            st["values_compared"] += bool(outcome["result"].get("values_compared"))
        for kind in {d["kind"] for d in found}:
            st[COLUMNS.get(kind, kind)] += 1
        for d in found:
            key = (entry, d["kind"], d["sig"])
            size = len(json.dumps(case))
            cur = self.defects.get(key)
            if cur is None:
                self.defects[key] = {"entry": entry, "kind": d["kind"], "sig": d["sig"], "detail": d["detail"],
                                     "count": 1, "case": case, "size": size}
            else:
                cur["count"] += 1
                if size < cur["size"]:
                    cur.update(case=case, size=size, detail=d["detail"])

    def entry_defects(self, entry: str) -> list[dict]:
        return [d for (e, _, _), d in sorted(self.defects.items()) if e == entry]

    def summary_line(self, entry: str) -> str:
        st = self.stats[entry]
        cols = ["cases", "values_compared"] + list(COLUMNS.values()) + ["skipped_after_repeats"]
        return f"{entry}: " + ", ".join(f"{c}={st[c]}" for c in cols if st[c] or c == "cases")

    def failure_text(self, entry: str) -> str:
        lines = [self.summary_line(entry), f"{len(self.entry_defects(entry))} distinct defects:"]
        for d in self.entry_defects(entry):
            detail = d["detail"].strip().splitlines()[0][:300] if d["detail"].strip() else ""
            lines.append(f"- [{d['kind']}] {d['sig']} (x{d['count']})\n    {detail}\n    {reproducer(d['case'])}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        totals = Counter()
        for st in self.stats.values():
            totals.update(st)
        return {"totals": dict(totals), "per_entry": {e: dict(st) for e, st in sorted(self.stats.items())},
                "calls": dict(sorted(self.calls.items())),
                "defects": [{k: v for k, v in d.items() if k != "size"} | {"reproducer": reproducer(d["case"])}
                            for _, d in sorted(self.defects.items())]}

    def table(self) -> str:
        cols = ["cases", "values_compared"] + list(COLUMNS.values()) + ["skipped_after_repeats"]
        width = max([len(e) for e in self.stats] + [5])
        head = f"{'entry':<{width}} " + " ".join(f"{c[:8]:>8}" for c in cols)
        rows = [head] + [f"{e:<{width}} " + " ".join(f"{st[c]:>8}" for c in cols)
                         for e, st in sorted(self.stats.items())]
        return "\n".join(rows)


# ------------------------------------------------------------------------- the pytest side

FUZZ = os.environ.get("NPU_EMU_FUZZ") == "1"
CASES = int(os.environ.get("NPU_EMU_FUZZ_CASES", "3000" if FUZZ else "250"))
SEED = os.environ.get("NPU_EMU_FUZZ_SEED")     # set: explore other cases than the derandomized ones


def fuzz_entry(runner: Runner, entry: str, strategy: Any, cases: int = CASES) -> None:
    """Run `cases` cases of one entry point, print its counts, and fail listing each distinct
    defect with a reproducer line. Hypothesis only draws the cases (derandomized, or seeded
    by NPU_EMU_FUZZ_SEED); the oracles are the worker's, so nothing shrinks or stops early."""
    import zlib

    from hypothesis import HealthCheck, Phase, given, seed, settings

    @settings(max_examples=cases, database=None, deadline=None, derandomize=SEED is None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def drive(case: dict) -> None:
        runner.submit(case)

    if SEED is not None:
        drive = seed(int(SEED) + zlib.crc32(entry.encode()))(drive)
    drive()
    runner.collect()
    print(runner.report.summary_line(entry))
    assert not runner.report.entry_defects(entry), runner.report.failure_text(entry)
