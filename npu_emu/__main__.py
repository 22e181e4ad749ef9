"""`python -m npu_emu`: the `npu-emu` command line."""
import sys

from .cli import main

sys.exit(main())
