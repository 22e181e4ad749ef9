// aclnnCast from float32 to BF16 and to HiFloat8, bit for bit: ties, subnormals, overflow,
// infinities and NaN included. HiFloat8 exists on Ascend950: the SoC is chosen as in Python,
// with NPU_EMU_SOC (read when the runtime starts). Run with a folder argument to dump both results.
#include <cmath>
#include <cstdlib>
#include <limits>
#include "aclnnop/aclnn_cast.h"
#include "sample_util.h"

static int CastTo(aclTensor* self, aclDataType dtype, const char* name, size_t itemSize, size_t n,
                  aclrtStream stream, const char* dumpDir) {
  std::vector<int64_t> shape = {(int64_t)n};
  std::vector<uint8_t> zeros(n * itemSize, 0);
  void* outAddr = nullptr;
  aclTensor* out = nullptr;
  CHECK_RET(CreateAclTensor(zeros, shape, &outAddr, dtype, &out) == 0, return 1);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnCastGetWorkspaceSize(self, dtype, out, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnCast) == 0, return 1);
  std::vector<uint8_t> bytes;
  CHECK_RET(FetchAndDump(dumpDir, name, outAddr, n * itemSize, &bytes) == 0, return 1);
  LOG_PRINT("%-9s", name);
  for (size_t i = 0; i < n; i++) {
    if (itemSize == 2) LOG_PRINT(" %04x", bytes[2 * i] | (bytes[2 * i + 1] << 8));
    else LOG_PRINT(" %02x", bytes[i]);
  }
  LOG_PRINT("\n");
  aclDestroyTensor(out);
  aclrtFree(outAddr);
  return 0;
}

int main(int argc, char** argv) {
  const char* dumpDir = argc > 1 ? argv[1] : nullptr;
  setenv("NPU_EMU_SOC", "Ascend950", 0);  // unless the user chose another SoC
  int32_t deviceId = 0;
  aclrtStream stream;
  CHECK_RET(Init(deviceId, &stream) == 0, return 1);
  LOG_PRINT("SoC: %s\n", aclrtGetSocName());

  std::vector<float> values = {0.0f, 1.0f, -1.0f, 0.1f, 1.0f / 3.0f, 65504.0f, 1e-8f, 3.14159265f,
                               1.00390625f, 1.01171875f, -2.5f, 100.7f, 1e30f, -1e-30f,
                               std::numeric_limits<float>::infinity(), std::nanf("")};
  void* selfAddr = nullptr;
  aclTensor* self = nullptr;
  CHECK_RET(CreateAclTensor(values, {(int64_t)values.size()}, &selfAddr, ACL_FLOAT, &self) == 0, return 1);
  LOG_PRINT("float32  ");
  for (float v : values) LOG_PRINT(" %g", v);
  LOG_PRINT("\n");
  CHECK_RET(CastTo(self, ACL_BF16, "bf16", 2, values.size(), stream, dumpDir) == 0, return 1);
  CHECK_RET(CastTo(self, ACL_HIFLOAT8, "hifloat8", 1, values.size(), stream, dumpDir) == 0, return 1);

  aclDestroyTensor(self);
  aclrtFree(selfAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
