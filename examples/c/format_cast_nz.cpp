// aclnnNpuFormatCast ND -> FRACTAL_NZ -> ND: aclnnNpuFormatCastCalculateSizeAndFormat sizes
// the destination, the second cast comes back to the original bytes. Run with a folder
// argument to dump the FRACTAL_NZ storage and the round trip.
#include <cstdlib>
#include <cstring>
#include "aclnnop/aclnn_npu_format_cast.h"
#include "sample_util.h"

int main(int argc, char** argv) {
  const char* dumpDir = argc > 1 ? argv[1] : nullptr;
  int32_t deviceId = 0;
  aclrtStream stream;
  CHECK_RET(Init(deviceId, &stream) == 0, return 1);

  // A 20 x 28 float16 matrix holding 0, 1, 2, ... (exact up to 2048).
  std::vector<int64_t> shape = {20, 28};
  std::vector<_Float16> host(20 * 28);
  for (size_t i = 0; i < host.size(); i++) host[i] = (_Float16)(float)i;
  void* ndAddr = nullptr;
  aclTensor* nd = nullptr;
  CHECK_RET(CreateAclTensor(host, shape, &ndAddr, ACL_FLOAT16, &nd) == 0, return 1);

  int64_t* nzShape = nullptr;
  uint64_t nzRank = 0;
  int actualFormat = 0;
  CHECK_ACL(aclnnNpuFormatCastCalculateSizeAndFormat(nd, ACL_FORMAT_FRACTAL_NZ, -1, &nzShape, &nzRank,
                                                     &actualFormat));
  std::vector<int64_t> storage(nzShape, nzShape + nzRank);
  free(nzShape);
  LOG_PRINT("FRACTAL_NZ storage shape:");
  for (auto d : storage) LOG_PRINT(" %ld", (long)d);
  LOG_PRINT(" (actual format %d)\n", actualFormat);

  size_t nzBytes = GetShapeSize(storage) * sizeof(_Float16);
  void* nzAddr = nullptr;
  CHECK_ACL(aclrtMalloc(&nzAddr, nzBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemset(nzAddr, nzBytes, 0, nzBytes));
  std::vector<int64_t> strides = ContiguousStrides(shape);
  aclTensor* nz = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT16, strides.data(), 0,
                                  (aclFormat)actualFormat, storage.data(), storage.size(), nzAddr);
  CHECK_RET(nz != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnNpuFormatCastGetWorkspaceSize(nd, nz, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnNpuFormatCast) == 0, return 1);
  std::vector<uint8_t> nzHost;
  CHECK_RET(FetchAndDump(dumpDir, "nz", nzAddr, nzBytes, &nzHost) == 0, return 1);
  const _Float16* f = reinterpret_cast<const _Float16*>(nzHost.data());
  LOG_PRINT("first fractal row: %g %g %g ... (row 0, columns 0-15)\n", (float)f[0], (float)f[1], (float)f[2]);
  LOG_PRINT("second fractal row: %g %g %g ... (row 1)\n", (float)f[16], (float)f[17], (float)f[18]);

  // ... and back to ND
  std::vector<_Float16> zeros(host.size(), (_Float16)0.0f);
  void* backAddr = nullptr;
  aclTensor* back = nullptr;
  CHECK_RET(CreateAclTensor(zeros, shape, &backAddr, ACL_FLOAT16, &back) == 0, return 1);
  CHECK_ACL(aclnnNpuFormatCastGetWorkspaceSize(nz, back, &workspaceSize, &executor));
  CHECK_RET(RunWithWorkspace(workspaceSize, executor, stream, aclnnNpuFormatCast) == 0, return 1);
  std::vector<uint8_t> backHost;
  CHECK_RET(FetchAndDump(dumpDir, "nd", backAddr, host.size() * sizeof(_Float16), &backHost) == 0, return 1);
  bool same = memcmp(backHost.data(), host.data(), backHost.size()) == 0;
  LOG_PRINT("ND -> FRACTAL_NZ -> ND gives back the same bytes: %s\n", same ? "yes" : "NO");

  for (aclTensor* t : {nd, nz, back}) aclDestroyTensor(t);
  for (void* p : {ndAddr, nzAddr, backAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return same ? 0 : 1;
}
