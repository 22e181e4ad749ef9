// aclnnMatmul: a [16, 32] x [32, 8] float16 product with fp32 accumulation, as the cube unit
// computes it (cubeMathType 1, ALLOW_FP32_DOWN_PRECISION). Run with a folder argument to dump
// the result.
#include "aclnnop/aclnn_matmul.h"
#include "sample_util.h"

int main(int argc, char** argv) {
  const char* dumpDir = argc > 1 ? argv[1] : nullptr;
  int32_t deviceId = 0;
  aclrtStream stream;
  CHECK_RET(Init(deviceId, &stream) == 0, return 1);

  const int64_t m = 16, k = 32, n = 8;
  std::vector<_Float16> a(m * k), b(k * n), c(m * n, (_Float16)0.0f);
  for (int64_t i = 0; i < m * k; i++) a[i] = (_Float16)((float)((i * 7) % 13) * 0.125f - 0.75f);
  for (int64_t i = 0; i < k * n; i++) b[i] = (_Float16)((float)((i * 5) % 11) * 0.25f - 1.25f);
  void *aAddr = nullptr, *bAddr = nullptr, *cAddr = nullptr;
  aclTensor *self = nullptr, *mat2 = nullptr, *out = nullptr;
  CHECK_RET(CreateAclTensor(a, {m, k}, &aAddr, ACL_FLOAT16, &self) == 0, return 1);
  CHECK_RET(CreateAclTensor(b, {k, n}, &bAddr, ACL_FLOAT16, &mat2) == 0, return 1);
  CHECK_RET(CreateAclTensor(c, {m, n}, &cAddr, ACL_FLOAT16, &out) == 0, return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnMatmulGetWorkspaceSize(self, mat2, out, 1, &workspaceSize, &executor));
  LOG_PRINT("aclnnMatmul workspace: %lu bytes\n", (unsigned long)workspaceSize);
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnMatmul) == 0, return 1);
  std::vector<uint8_t> bytes;
  CHECK_RET(FetchAndDump(dumpDir, "out", cAddr, m * n * sizeof(_Float16), &bytes) == 0, return 1);
  const _Float16* r = reinterpret_cast<const _Float16*>(bytes.data());
  for (int64_t i = 0; i < 2; i++) {
    LOG_PRINT("out[%ld, :] =", (long)i);
    for (int64_t j = 0; j < n; j++) LOG_PRINT(" %g", (float)r[i * n + j]);
    LOG_PRINT("\n");
  }

  for (aclTensor* t : {self, mat2, out}) aclDestroyTensor(t);
  for (void* p : {aAddr, bAddr, cAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
