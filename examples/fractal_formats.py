"""Fractal layouts, from the Ascend C document 《关键分形格式详解》 (docs/formats.md#private-layouts, docs/operators.md#aclnnmatmul):

1. its 20 x 28 float16 ND -> FRACTAL_NZ example through aclnnNpuFormatCast (the three calls
   of CANN's API), printing the 2 x 2 fractals as the document does, and back to ND;
2. the same matrix through Zz and Zn (the cube's L0A / L0B layouts, which have no aclFormat);
3. a cube matmul on fractal operands for the two SoC conventions (Zz x Zn -> Nz, and
   Ascend950's Nz x Zn -> Nz), checked against NumPy.

    python examples/fractal_formats.py
"""
import numpy as np

import npu_emu
import npu_emu.acl as acl
from npu_emu import aclnn, device
from npu_emu.aclnn import aclDataType, aclFormat
from npu_emu.ops.format_cast import format_cast
from npu_emu.ops.matmul import cube_matmul, left_layout


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed. ERROR: {ret} ({aclnn.aclGetRecentErrMsg()})")


def show(title, array):
    print(f"\n{title}")
    with np.printoptions(linewidth=110, edgeitems=3, threshold=50):
        print(array)


def nd_to_nz_with_aclnn(tensor_a, stream):
    """aclnnNpuFormatCastCalculateSizeAndFormat -> aclCreateTensor -> the two phases."""
    src = aclnn.aclCreateTensor([20, 28], aclDataType.ACL_FLOAT16, [28, 1], 0,
                                aclFormat.ACL_FORMAT_ND, [20, 28], tensor_a.data)
    dst_shape, actual_format, ret = aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(
        src, aclFormat.ACL_FORMAT_FRACTAL_NZ, -1)       # -1: C0 from the source's dtype
    check(ret, "aclnnNpuFormatCastCalculateSizeAndFormat")
    print(f"\naclnnNpuFormatCastCalculateSizeAndFormat: dstShape {dst_shape}, actualFormat "
          f"{aclFormat(actual_format).name}")
    nbytes = int(np.prod(dst_shape)) * 2
    dst_dev, ret = acl.rt.malloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc")
    dst = aclnn.aclCreateTensor([20, 28], aclDataType.ACL_FLOAT16, [28, 1], 0, actual_format,
                                dst_shape, dst_dev)
    ws_size, executor, ret = aclnn.aclnnNpuFormatCastGetWorkspaceSize(src, dst)
    check(ret, "aclnnNpuFormatCastGetWorkspaceSize")
    check(aclnn.aclnnNpuFormatCast(None, ws_size, executor, stream), "aclnnNpuFormatCast")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")
    host = np.zeros(int(np.prod(dst_shape)), np.float16)
    check(acl.rt.memcpy(host, nbytes, dst_dev, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
    check(aclnn.aclDestroyTensor(src), "aclDestroyTensor")
    return dst, dst_dev, host.reshape(dst_shape)


def main():
    check(acl.init(), "aclInit")
    check(acl.rt.set_device(0), "aclrtSetDevice")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream")
    print(f"npu_emu on the {npu_emu.runtime.current().name} backend, SoC {npu_emu.current_soc().name}")

    # 1. The document's example: data = range(20 * 28) as float16, shape (20, 28).
    a = np.arange(20 * 28).astype(np.float16).reshape(20, 28)
    show("ND tensor_a (20, 28):", a)
    tensor_a = device.from_numpy(a)
    nz, nz_dev, fractals = nd_to_nz_with_aclnn(tensor_a, stream)
    show("FRACTAL_NZ (N1, M1, M0, N0) = (2, 2, 16, 16), as the document prints it:", fractals)
    for n1 in range(2):
        for m1 in range(2):
            f = fractals[n1, m1]
            print(f"fractal (N1={n1}, M1={m1}): rows start {f[:3, 0].tolist()} ..., "
                  f"first row {f[0, :4].tolist()} ... {f[0, -4:].tolist()}")
    doc = np.pad(a, [[0, 12], [0, 4]]).reshape(2, 16, 2, 16).transpose(2, 0, 1, 3)
    print("equal to the document's pad -> reshape -> transpose:", np.array_equal(fractals, doc))
    back = format_cast(nz, "ND")          # aclnnNpuFormatCast NZ -> ND drops the padding
    print("NZ -> ND gives tensor_a back:", np.array_equal(device.to_numpy(back), a))

    # 2. Zz and Zn: layouts aclFormat has no value for; npu_emu names them "Zz", "Zn".
    for name in ("Zz", "Zn"):
        t = format_cast(tensor_a, name)
        raw = device.storage_to_numpy(t).reshape(t.storage_shape)
        print(f"\n{name}: storage shape {list(t.storage_shape)}; fractal (0, 0) row 1 starts "
              f"{raw[0, 0, 1, :4].astype(int).tolist()}; ND -> {name} -> ND identity: "
              f"{np.array_equal(device.to_numpy(format_cast(t, 'ND')), a)}")

    # 3. The cube: A (20 x 28) x B (28 x 45), fp16 in, fp32 accumulated, result in Nz.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 28)).astype(np.float16)
    y = rng.standard_normal((28, 45)).astype(np.float16)
    exact = x.astype(np.float64) @ y.astype(np.float64)
    for soc in ("Ascend910B", "Ascend950"):
        with npu_emu.soc(soc) as s:
            fa = format_cast(device.from_numpy(x), left_layout(s))
            fb = format_cast(device.from_numpy(y), "Zn")
            c = cube_matmul(fa, fb)
            result = device.to_numpy(format_cast(c, "ND"))
        print(f"\n{soc} ({s.matmul_convention}): A {fa.layout} {list(fa.storage_shape)} x "
              f"B {fb.layout} {list(fb.storage_shape)} -> C {c.layout} {list(c.storage_shape)} "
              f"(L0C 16x16 fractals, {c.dtype.name})")
        print(f"  max |C - A@B (float64)| = {np.abs(result - exact).max():.3g}; C[0, :4] = "
              f"{' '.join(f'{v:.4f}' for v in result[0, :4])}")

    check(aclnn.aclDestroyTensor(nz), "aclDestroyTensor")
    check(acl.rt.free(nz_dev), "aclrtFree")
    check(acl.rt.destroy_stream(stream), "aclrtDestroyStream")
    check(acl.rt.reset_device(0), "aclrtResetDevice")
    check(acl.finalize(), "aclFinalize")


if __name__ == "__main__":
    main()
