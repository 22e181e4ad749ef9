// aclnnInplaceCopy between strided views: a float16 view with a step of 2 and an offset is
// copied into a transposed (column-major) float32 view; the elements outside the view keep
// their value. Run with a folder argument to dump the destination's storage.
#include "aclnnop/aclnn_copy.h"
#include "sample_util.h"

int main(int argc, char** argv) {
  const char* dumpDir = argc > 1 ? argv[1] : nullptr;
  int32_t deviceId = 0;
  aclrtStream stream;
  CHECK_RET(Init(deviceId, &stream) == 0, return 1);

  // src: 64 float16 values i * 0.25 - 4 (exact); the view [3, 4], strides [8, 2], offset 1.
  std::vector<uint16_t> srcHost(64);
  for (int i = 0; i < 64; i++) {
    float v = i * 0.25f - 4.0f;
    _Float16 h = (_Float16)v;
    srcHost[i] = *reinterpret_cast<uint16_t*>(&h);
  }
  std::vector<int64_t> srcStrides = {8, 2};
  // dst: 24 float32 storage elements of -1; the view [3, 4] with strides [1, 3] (transposed).
  std::vector<float> dstHost(24, -1.0f);
  std::vector<int64_t> dstStrides = {1, 3};
  void *srcAddr = nullptr, *dstAddr = nullptr;
  aclTensor *src = nullptr, *dst = nullptr;
  CHECK_RET(CreateAclTensor(srcHost, {3, 4}, &srcAddr, ACL_FLOAT16, &src, &srcStrides, 1) == 0, return 1);
  CHECK_RET(CreateAclTensor(dstHost, {3, 4}, &dstAddr, ACL_FLOAT, &dst, &dstStrides, 0) == 0, return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnInplaceCopyGetWorkspaceSize(dst, src, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnInplaceCopy) == 0, return 1);

  std::vector<uint8_t> bytes;
  CHECK_RET(FetchAndDump(dumpDir, "dst", dstAddr, 24 * sizeof(float), &bytes) == 0, return 1);
  const float* result = reinterpret_cast<const float*>(bytes.data());
  LOG_PRINT("dst storage after the copy (view [3,4] strides [1,3]):\n");
  for (int i = 0; i < 24; i++) LOG_PRINT("%6.2f%s", result[i], i % 12 == 11 ? "\n" : " ");

  aclDestroyTensor(src);
  aclDestroyTensor(dst);
  aclrtFree(srcAddr);
  aclrtFree(dstAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
