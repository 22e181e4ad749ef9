// aclnnAdd with alpha on mixed dtypes (int32 + 2.5 * float16, broadcast, into float32), then
// aclnnInplaceAdd and aclnnMul on the result. Run with a folder argument to dump the results.
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "sample_util.h"

int main(int argc, char** argv) {
  const char* dumpDir = argc > 1 ? argv[1] : nullptr;
  int32_t deviceId = 0;
  aclrtStream stream;
  CHECK_RET(Init(deviceId, &stream) == 0, return 1);

  std::vector<int32_t> selfHost = {-3, -1, 0, 2, 5, 7};                      // int32 [2, 3]
  std::vector<uint16_t> otherHost = {0x3800, 0xbd00, 0x4000};                // float16 [3]: 0.5, -1.25, 2
  std::vector<float> outHost(6, 0.0f);                                       // float32 [2, 3]
  void *selfAddr = nullptr, *otherAddr = nullptr, *outAddr = nullptr;
  aclTensor *self = nullptr, *other = nullptr, *out = nullptr;
  CHECK_RET(CreateAclTensor(selfHost, {2, 3}, &selfAddr, ACL_INT32, &self) == 0, return 1);
  CHECK_RET(CreateAclTensor(otherHost, {3}, &otherAddr, ACL_FLOAT16, &other) == 0, return 1);
  CHECK_RET(CreateAclTensor(outHost, {2, 3}, &outAddr, ACL_FLOAT, &out) == 0, return 1);
  float alphaValue = 2.5f;
  aclScalar* alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
  CHECK_RET(alpha != nullptr, LOG_PRINT("aclCreateScalar failed: %s\n", aclGetRecentErrMsg()); return 1);

  // out = self + 2.5 * other
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnAdd) == 0, return 1);
  std::vector<uint8_t> bytes;
  CHECK_RET(FetchAndDump(dumpDir, "add", outAddr, 6 * sizeof(float), &bytes) == 0, return 1);
  const float* r = reinterpret_cast<const float*>(bytes.data());
  LOG_PRINT("self + 2.5 * other: %g %g %g / %g %g %g\n", r[0], r[1], r[2], r[3], r[4], r[5]);

  // out += 2.5 * other, then out = out * other
  CHECK_ACL(aclnnInplaceAddGetWorkspaceSize(out, other, alpha, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnInplaceAdd) == 0, return 1);
  CHECK_ACL(aclnnInplaceMulGetWorkspaceSize(out, other, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnInplaceMul) == 0, return 1);
  CHECK_RET(FetchAndDump(dumpDir, "inplace", outAddr, 6 * sizeof(float), &bytes) == 0, return 1);
  LOG_PRINT("(out + 2.5 * other) * other: %g %g %g / %g %g %g\n", r[0], r[1], r[2], r[3], r[4], r[5]);

  // mul = self * other (int32 x float16 -> float32)
  std::vector<float> mulHost(6, 0.0f);
  void* mulAddr = nullptr;
  aclTensor* mul = nullptr;
  CHECK_RET(CreateAclTensor(mulHost, {2, 3}, &mulAddr, ACL_FLOAT, &mul) == 0, return 1);
  CHECK_ACL(aclnnMulGetWorkspaceSize(self, other, mul, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnMul) == 0, return 1);
  CHECK_RET(FetchAndDump(dumpDir, "mul", mulAddr, 6 * sizeof(float), &bytes) == 0, return 1);
  LOG_PRINT("self * other: %g %g %g / %g %g %g\n", r[0], r[1], r[2], r[3], r[4], r[5]);

  aclDestroyScalar(alpha);
  for (aclTensor* t : {self, other, out, mul}) aclDestroyTensor(t);
  for (void* p : {selfAddr, otherAddr, outAddr, mulAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
