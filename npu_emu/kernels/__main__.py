"""python -m npu_emu.kernels [--check]: the generated kernel units, from the catalogs."""
import sys

from . import main

raise SystemExit(main(sys.argv[1:]))
