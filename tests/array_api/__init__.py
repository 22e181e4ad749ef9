"""Tests of npu_emu.array_api (a package, so its module names do not collide with tests/)."""
