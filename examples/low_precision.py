"""Low-precision types bit for bit (docs/conversions.md#hifloat8): host encode/decode, and aclnnCast to
float16, bfloat16, FP8 and HiFloat8 on the device (Ascend950 lists them), with the same bits
on the host and on the device."""
import numpy as np

import npu_emu
from npu_emu import aclnn, device, dtypes
from npu_emu.aclnn import aclDataType as DT

values = np.array([1.0, 0.1, -2.75, 300.0, 40000.0, 1e-7, 65519.0, np.inf, np.nan], np.float32)
print("float32 values:", values)

with npu_emu.soc("Ascend950"):
    src = device.from_numpy(values)
    for dt in (DT.ACL_FLOAT16, DT.ACL_BF16, DT.ACL_FLOAT8_E5M2, DT.ACL_FLOAT8_E4M3FN, DT.ACL_HIFLOAT8):
        out = device.empty([values.size], dt)
        ws, ex, ret = aclnn.aclnnCastGetWorkspaceSize(src, dt, out)
        assert ret == 0, aclnn.aclGetRecentErrMsg()
        assert aclnn.aclnnCast(None, ws, ex, None) == 0
        codes = device.to_numpy(out, raw=True)
        codes = codes.view(f"u{codes.itemsize}")
        host = dtypes.encode(values, dt)
        assert np.array_equal(codes, host.view(codes.dtype)), dt  # device and host: same bits
        back = dtypes.decode(codes, dt).astype(np.float32)
        width = 2 * codes.itemsize
        print(f"{dt.name:<18} codes {' '.join(f'{int(c):0{width}x}' for c in codes)}")
        print(f"{'':<18} value {back}")

print("HiFloat8 0x6e (largest finite):", dtypes.decode(np.uint8([0x6E]), DT.ACL_HIFLOAT8)[0],
      "| 0x6f:", dtypes.decode(np.uint8([0x6F]), DT.ACL_HIFLOAT8)[0],
      "| 0x80:", dtypes.decode(np.uint8([0x80]), DT.ACL_HIFLOAT8)[0])
