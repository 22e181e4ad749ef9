// The helpers every CANN aclnn sample spells out (CHECK_RET, LOG_PRINT, Init, CreateAclTensor),
// once for the examples of this folder, plus Dump: with a folder as the program's argument,
// each example writes its results there as raw bytes (tests/test_capi.py compares them with
// the Python facade's).
#pragma once
#include <cstdio>
#include <string>
#include <vector>
#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

#define CHECK_ACL(expr)                                                                       \
  do {                                                                                        \
    auto ret_ = (expr);                                                                       \
    CHECK_RET(ret_ == 0, LOG_PRINT("%s failed. ERROR: %d (%s)\n", #expr, (int)ret_,            \
                                   aclGetRecentErrMsg()); return (int)ret_);                  \
  } while (0)

inline int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) shapeSize *= i;
  return shapeSize;
}

inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
  return strides;
}

inline int Init(int32_t deviceId, aclrtStream* stream) {
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(deviceId));
  CHECK_ACL(aclrtCreateStream(stream));
  return 0;
}

// Device memory holding hostData, and an ND tensor over it: `shape` contiguous, or the view
// (viewShape, strides, offset) when given, over storage of hostData's size.
template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor, const std::vector<int64_t>* strides = nullptr,
                    int64_t offset = 0) {
  auto size = hostData.size() * sizeof(T);
  CHECK_ACL(aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<int64_t> viewStrides = strides ? *strides : ContiguousStrides(shape);
  std::vector<int64_t> storage = {(int64_t)hostData.size()};
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, viewStrides.data(), offset,
                            aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
  return 0;
}

// Copy `bytes` of device memory back; write them to <dumpDir>/<name>.bin when dumpDir is set.
inline int FetchAndDump(const char* dumpDir, const char* name, void* deviceAddr, size_t bytes,
                        std::vector<uint8_t>* host) {
  host->assign(bytes, 0);
  CHECK_ACL(aclrtMemcpy(host->data(), bytes, deviceAddr, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  if (dumpDir != nullptr) {
    std::string path = std::string(dumpDir) + "/" + name + ".bin";
    FILE* f = fopen(path.c_str(), "wb");
    CHECK_RET(f != nullptr, LOG_PRINT("cannot write %s\n", path.c_str()); return 1);
    fwrite(host->data(), 1, bytes, f);
    fclose(f);
  }
  return 0;
}

// Phase two with a workspace of the size phase one asked for.
template <typename Launch>
int RunWithWorkspace(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, Launch launch) {
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) CHECK_ACL(aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(launch(workspaceAddr, workspaceSize, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  return 0;
}
