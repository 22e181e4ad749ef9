"""`npu-emu`: the command line (also `python -m npu_emu`).

  npu-emu demo    run the examples (the CANN documentation's samples, ported)
  npu-emu info    backend, device, compiler/NVRTC versions, cache dir, SoC in use
  npu-emu bench   operator throughput against the device copy and NumPy/PyTorch/CuPy
  npu-emu bitcheck  one digest per case of a seeded battery over every kernel family
  npu-emu build-capi / config --cflags --libs   the C ABI: CANN's C++ programs, unchanged
  npu-emu check -- CMD  run a program under the sanitizer (races, uninitialized reads, misuse, leaks)
  npu-emu --version
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ._ordered import default_jobs, run_in_order


def examples_dir() -> Path | None:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "examples", here / "examples"):
        if candidate.is_dir():
            return candidate
    return None


DEMO_ORDER = ["core_model.py", "aclnn_expand.py", "walkthrough.py", "inplace_copy_views.py",
              "add_mixed_dtypes.py", "low_precision.py", "fractal_formats.py", "array_api_tour.py"]


def demo_modules() -> list[str]:
    """The kernel modules the examples load, and no other (tests/test_docs_and_examples.py
    traces the Python examples' loads against this list)."""
    from .dtypes import aclDataType as DT
    from .kernels import cast, elementwise, ufunc
    arithmetic = [elementwise.kernel("add", dt, "i32")[0]
                  for dt in (DT.ACL_FLOAT, DT.ACL_DOUBLE, DT.ACL_INT16)]
    # casts from float32 / float16, int8 / uint8 / uint16 and float64
    casts = sorted({cast.kernel(dt)[0] for dt in (DT.ACL_FLOAT, DT.ACL_INT8, DT.ACL_DOUBLE)})
    return ["strided_copy.cu", *casts, "layout.cu", "matmul.cu", *arithmetic,
            ufunc.lookup("subtract").module(DT.ACL_INT32),   # array_api_tour: uint16 - int32
            *c_example_modules()]


def c_example_modules() -> list[str]:
    """The modules only the C++ examples load (examples/c/add_mixed_dtypes.cpp: the float16
    Axpy of aclnnAdd's alpha)."""
    from .dtypes import aclDataType as DT
    from .kernels import elementwise
    return [elementwise.kernel("axpy", DT.ACL_FLOAT16, "i32")[0]]


def prebuild_demo() -> None:
    """On a cold cache, build what the examples will need before they run, in parallel (the
    kernel modules they load; beside them the C ABI's libraries, then the C++ examples'
    programs), rather than one module at a time inside each example's interpreter. A module
    the list misses is still built when an example needs it; a failure here is left to that
    example to report."""
    import threading

    from . import runtime

    def c_programs() -> None:
        try:
            from .capi import build, compile_example, cxx_compiler, examples_dir as c_examples
            if cxx_compiler() is not None:
                build()
                folder = c_examples()
                for source in sorted(folder.glob("*.cpp")) if folder else ():
                    compile_example(source)   # cached: run_examples finds it built
        except Exception:
            pass
    libraries = threading.Thread(target=c_programs, daemon=True)
    libraries.start()
    try:
        be = runtime.current()
        if be.is_cpu:
            be._modules.build_all(demo_modules())
    except Exception:
        pass
    libraries.join()


def demo(args: argparse.Namespace) -> int:
    folder = examples_dir()
    if folder is None:
        print("npu-emu demo: the examples folder is not installed (use an editable install "
              "from the source tree: pip install -e .)", file=sys.stderr)
        return 1
    names = [n for n in DEMO_ORDER if (folder / n).is_file()]
    if args.only:
        chosen = [n for n in names if args.only in n]
        if not chosen:
            print(f"npu-emu demo: --only {args.only!r} matches no example; the examples are "
                  f"{', '.join(n.removesuffix('.py') for n in names)}", file=sys.stderr)
            return 2
        names = chosen
    else:
        prebuild_demo()
    jobs = args.jobs if args.jobs is not None else default_jobs()
    # Each example in its own interpreter, as a user runs it (the CANN samples end with
    # acl.finalize, after which the runtime refuses work until acl.init), several at once;
    # each one's output is printed whole, in this order.
    codes = run_in_order([[sys.executable, str(folder / n)] for n in names],
                         lambda i: f"\n===== examples/{names[i]} " + "=" * max(0, 60 - len(names[i])),
                         jobs)
    failed = 0
    for name, rc in zip(names, codes):
        if rc != 0:
            print(f"examples/{name} exited with {rc}")
            failed += 1
    print(f"\nnpu-emu demo: {len(names) - failed}/{len(names)} examples ran")
    from .capi import run_examples as _run_c_examples       # examples/c, with a C++ compiler
    _, c_failed = _run_c_examples(args.only, jobs)
    return 1 if failed or c_failed else 0


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def info(args: argparse.Namespace) -> int:
    """What runs where. Never a traceback: a part that is missing (a compiler, CuPy, a GPU)
    is one line saying so, and the exit status is 1 when the backend cannot run kernels."""
    import npu_emu
    from npu_emu import runtime
    print(f"npu_emu {npu_emu.__version__}")
    print(f"  NPU_EMU_DEVICE   {os.environ.get('NPU_EMU_DEVICE', 'auto')}")
    status = 0
    try:
        be = runtime.current()
    except Exception as exc:
        print(f"  backend          unavailable: {_one_line(exc)}")
        be, status = None, 1
    if be is not None:
        try:
            details = be.info()
        except Exception as exc:   # e.g. no C++ compiler: the cpu backend cannot build kernels
            details = {"backend": be.name, "kernel build": f"unavailable: {_one_line(exc)}"}
            status = 1
        for key, value in details.items():
            print(f"  {key:<16} {value}")
        if be.name != "cuda":
            ok, why = runtime.cuda_available()
            print(f"  cuda             {'available' if ok else 'unavailable: ' + why.splitlines()[0]}")
    try:
        soc = npu_emu.current_soc()
        print(f"  SoC              {soc.name} ({soc.products}, {soc.npu_arch}); "
              f"NPU_EMU_SOC={os.environ.get('NPU_EMU_SOC', '(unset)')}")
    except Exception as exc:
        print(f"  SoC              unavailable: {_one_line(exc)}")
        status = 1
    print(f"  promotion rules  {npu_emu.get_promotion_rules()}")
    try:
        print(f"  kernels          {runtime.kernels_dir()}")
    except Exception as exc:
        print(f"  kernels          unavailable: {_one_line(exc)}")
        status = 1
    return status


def bench(args: argparse.Namespace) -> int:
    from . import bench as _bench
    return _bench.main(args)


def main(argv: list[str] | None = None) -> int:
    from . import __version__
    from . import bench as _bench
    parser = argparse.ArgumentParser(
        prog="npu-emu",
        description="Ascend NPU (CANN aclnn) operator semantics on NVIDIA GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"npu-emu {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="run the examples (the main job)")
    p_demo.add_argument("--only", help="run only the examples whose file name contains this")
    p_demo.add_argument("--jobs", type=int, metavar="N",
                        help="examples run at once, each printed whole and in order (default: "
                             "the CPUs, at most 4; 1: one after another, output live)")
    p_demo.set_defaults(func=demo)
    p_info = sub.add_parser("info", help="show the backend, device, compilers, cache and SoC")
    p_info.set_defaults(func=info)
    p_bench = sub.add_parser(
        "bench", help="operator throughput on large shapes (GB/s, vs the device copy and peers)",
        description=_bench.__doc__.split("\n\n")[0].replace("\n", " "))
    _bench.add_arguments(p_bench)
    p_bench.set_defaults(func=bench)
    from .capi import add_subcommands as _capi_subcommands   # build-capi, config (the C ABI)
    _capi_subcommands(sub)
    sub.add_parser(   # its own parser: `npu-emu bitcheck ARGS` is `python -m npu_emu.bitcheck ARGS`
        "bitcheck", add_help=False,
        help="digests of a seeded battery over every kernel family (compare hosts, threads, backends)")
    sub.add_parser("check", add_help=False, help="run a program under the sanitizer "
                   "(npu-emu check [--tools T] [--json FILE] -- CMD...)")
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        parser.print_help()      # a bare `npu-emu` asks what there is: the help, not an error
        return 0
    if words[0] == "check":
        from .check import cli as check_cli
        return check_cli.main(words[1:])
    if words[0] == "bitcheck":
        from . import bitcheck
        return bitcheck.main(words[1:])
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)   # what the user typed (bench's JSON)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
