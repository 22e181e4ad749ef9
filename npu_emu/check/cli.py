"""`npu-emu check [--tools T] [--error-exitcode N] [--json FILE] -- CMD...`: run a program
(a .py file, `-m module`, or any command) with the sanitizer switched on; its exit status is
the program's (NPU_EMU_CHECK_EXITCODE, default 86, when there were findings)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

from . import DEFAULT_EXITCODE, ENV, ENV_EXITCODE, ENV_JSON, parse_tools


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="npu-emu check", description=__doc__.split("\n\n")[0].replace("\n", " "),
        usage="npu-emu check [--tools race,init,misuse,leak] [--error-exitcode N] "
              "[--json FILE] -- CMD...")
    p.add_argument("--tools", default="all",
                   help="comma-separated: race, init, misuse, leak, or all (default)")
    p.add_argument("--error-exitcode", type=int, default=DEFAULT_EXITCODE,
                   help=f"exit status when there are findings (default {DEFAULT_EXITCODE})")
    p.add_argument("--json", metavar="FILE", help="write the findings and a summary as JSON")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the program: FILE.py [ARGS], "
                   "-m MODULE [ARGS], or any command")
    return p


def command_line(words: list[str]) -> list[str]:
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise SystemExit("npu-emu check: no program given (npu-emu check -- prog.py)")
    if words[0].endswith(".py") or words[0] == "-m":
        return [sys.executable, *words]
    return list(words)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        tools = parse_tools(args.tools)
    except ValueError as exc:
        print(f"npu-emu check: --tools: {exc}", file=sys.stderr)
        return 2
    if not tools:
        print("npu-emu check: --tools names no tool", file=sys.stderr)
        return 2
    env = dict(os.environ, **{ENV: ",".join(sorted(tools)),
                              ENV_EXITCODE: str(args.error_exitcode)})
    if args.json:
        env[ENV_JSON] = os.path.abspath(args.json)
    program = command_line(args.command)
    try:
        return subprocess.call(program, env=env)
    except (FileNotFoundError, PermissionError) as exc:
        print(f"npu-emu check: cannot run {program[0]}: {exc.strerror}", file=sys.stderr)
        return 127
