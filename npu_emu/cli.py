"""`npu-emu`: the command line.

  npu-emu demo    run the examples (the CANN documentation's samples, ported)
  npu-emu info    backend, device, compiler/NVRTC versions, cache dir, SoC in use
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from pathlib import Path


def examples_dir() -> Path | None:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "examples", here / "examples"):
        if candidate.is_dir():
            return candidate
    return None


DEMO_ORDER = ["core_model.py", "aclnn_expand.py", "inplace_copy_views.py", "add_mixed_dtypes.py",
              "low_precision.py", "fractal_formats.py"]


def demo(args: argparse.Namespace) -> int:
    folder = examples_dir()
    if folder is None:
        print("npu-emu demo: the examples folder is not installed (use an editable install "
              "from the source tree: pip install -e .)", file=sys.stderr)
        return 1
    names = [n for n in DEMO_ORDER if (folder / n).is_file()]
    if args.only:
        names = [n for n in names if args.only in n]
    failed = 0
    for name in names:
        print(f"\n===== examples/{name} " + "=" * max(0, 60 - len(name)))
        sys.stdout.flush()
        try:
            runpy.run_path(str(folder / name), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                print(f"examples/{name} exited with {exc.code}")
                failed += 1
        except Exception:  # report and go on with the next example
            traceback.print_exc()
            failed += 1
    print(f"\nnpu-emu demo: {len(names) - failed}/{len(names)} examples ran")
    return 1 if failed else 0


def info(args: argparse.Namespace) -> int:
    import npu_emu
    from npu_emu import runtime
    print(f"npu_emu {npu_emu.__version__}")
    print(f"  NPU_EMU_DEVICE   {os.environ.get('NPU_EMU_DEVICE', 'auto')}")
    try:
        be = runtime.current()
    except Exception as exc:
        print(f"  backend          unavailable: {exc}")
        return 1
    for key, value in be.info().items():
        print(f"  {key:<16} {value}")
    ok, why = (True, "") if be.name == "cuda" else runtime.cuda_available()
    if be.name != "cuda":
        print(f"  cuda             {'available' if ok else 'unavailable: ' + why}")
    soc = npu_emu.current_soc()
    print(f"  SoC              {soc.name} ({soc.products}, {soc.npu_arch}); "
          f"NPU_EMU_SOC={os.environ.get('NPU_EMU_SOC', '(unset)')}")
    print(f"  promotion rules  {npu_emu.get_promotion_rules()}")
    print(f"  kernels          {runtime.kernels_dir()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="npu-emu",
        description="Ascend NPU (CANN aclnn) operator semantics on NVIDIA GPUs and CPUs.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="run the examples (the main job)")
    p_demo.add_argument("--only", help="run only the examples whose file name contains this")
    p_demo.set_defaults(func=demo)
    p_info = sub.add_parser("info", help="show the backend, device, compilers, cache and SoC")
    p_info.set_defaults(func=info)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
