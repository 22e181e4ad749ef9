"""A tour of npu_emu.array_api: the NPU's operators behind the array API standard.

Arrays live in the device pool; operations are eager and raise; promotion follows the NPU's
table (the "array_api" rule set); NumPy, PyTorch and any array-API library share the memory
without copies. See docs/array-api.md."""
import numpy as np

import npu_emu.array_api as xp


def main():
    x = xp.asarray([[1.0, 2.0, 3.0]], dtype=xp.float16)
    print("x =", x, "on", x.device)

    y = xp.expand(x, (2, 3))                          # aclnnExpand (CANN's checks apply)
    z = y + xp.asarray([[0.5], [1.5]])                # aclnnAdd: f16 + f64 computes in f64
    print("expand + add ->", z.dtype, "\n", np.asarray(z))

    print("astype to the NPU's low-precision types (bit-exact conversions):")
    for dt in (xp.bfloat16, xp.float8_e4m3fn, xp.hifloat8):
        print(f"  {dt.name:14s}", np.asarray(xp.astype(xp.asarray([0.1, 300.0, -7.3]), dt)))

    r = z[:, ::-1]                                    # a view with a negative step, no copy
    r[0] = xp.asarray([7.0, 8.0, 9.0])               # InplaceCopy through the reversed view
    print("z after writing z[:, ::-1][0]:\n", np.asarray(z))

    if z.device == "cpu":                             # device memory is host memory here
        n = np.asarray(z)                             # a view, not a copy
        n[1, 0] = -1.0
        print("written by NumPy, read by npu_emu:", float(z[1, 0]))

    nz = xp.format_cast(xp.asarray(np.arange(20 * 28, dtype=np.float16).reshape(20, 28)), "NZ")
    print("format_cast to NZ: storage shape", nz.shape, "format", nz.format,
          "-> back to ND", xp.format_cast(nz, "ND").shape)

    a = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    print("matmul on the cube emulation:\n", np.asarray(a @ a.T))

    u = xp.asarray([7, 9], dtype=xp.uint16) - xp.asarray([9, 7], dtype=xp.int32)
    print("uint16 - int32 ->", u.dtype, np.asarray(u), "(the standard's promotion, NumPy's loop)")

    try:
        import array_api_compat
        print("array_api_compat finds", array_api_compat.array_namespace(a).__name__)
    except ImportError:
        pass


if __name__ == "__main__":
    main()
