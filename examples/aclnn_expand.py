"""The CANN documentation's aclnnExpand sample (aclnnExpand.md), ported line by line: the
seven steps of every aclnn call -- init, tensors, two-phase call, sync, copy back, print, free.
"""
import numpy as np

import npu_emu.acl as acl
from npu_emu import aclnn
from npu_emu.aclnn import aclDataType, aclFormat


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed. ERROR: {ret} ({aclnn.aclGetRecentErrMsg()})")


def create_acl_tensor(host_data, shape, data_type):
    size = host_data.nbytes
    dev, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)          # aclrtMalloc
    check(ret, "aclrtMalloc")
    check(acl.rt.memcpy(dev, size, host_data, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]    # contiguous strides
    tensor = aclnn.aclCreateTensor(shape, data_type, strides, 0, aclFormat.ACL_FORMAT_ND, shape, dev)
    return dev, tensor


def main():
    # 1. device/stream init
    device_id = 0
    check(acl.init(), "aclInit")
    check(acl.rt.set_device(device_id), "aclrtSetDevice")
    stream, ret = acl.rt.create_stream()
    check(ret, "aclrtCreateStream")

    # 2. inputs and outputs
    self_shape, out_shape = [4, 2], [4, 2]
    self_host = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.float32)
    out_host = np.zeros(8, dtype=np.float32)
    size = aclnn.aclCreateIntArray([4, 2])
    self_dev, self_t = create_acl_tensor(self_host, self_shape, aclDataType.ACL_FLOAT)
    out_dev, out_t = create_acl_tensor(out_host, out_shape, aclDataType.ACL_FLOAT)

    # 3. the two-phase call
    workspace_size, executor, ret = aclnn.aclnnExpandGetWorkspaceSize(self_t, size, out_t)
    check(ret, "aclnnExpandGetWorkspaceSize")
    workspace = None
    if workspace_size > 0:
        workspace, ret = acl.rt.malloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "allocate workspace")
    check(aclnn.aclnnExpand(workspace, workspace_size, executor, stream), "aclnnExpand")

    # 4. wait for the stream
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")

    # 5. copy the result back and print it
    result = np.zeros(int(np.prod(out_shape)), dtype=np.float32)
    check(acl.rt.memcpy(result, result.nbytes, out_dev, result.nbytes,
                        acl.ACL_MEMCPY_DEVICE_TO_HOST), "copy result from device to host")
    for i, value in enumerate(result):
        print(f"resultData[{i}] is: {value:f}")

    # Broadcasting for real: (1, 4) -> (3, 2, 4), -1 keeps a dimension (docs/operators.md#aclnnexpand).
    row_dev, row_t = create_acl_tensor(np.arange(4, dtype=np.float32), [1, 4], aclDataType.ACL_FLOAT)
    big_dev, big_t = create_acl_tensor(np.zeros(24, np.float32), [3, 2, 4], aclDataType.ACL_FLOAT)
    big_size = aclnn.aclCreateIntArray([3, 2, -1])
    ws, ex, ret = aclnn.aclnnExpandGetWorkspaceSize(row_t, big_size, big_t)
    check(ret, "aclnnExpandGetWorkspaceSize")
    check(aclnn.aclnnExpand(None, ws, ex, stream), "aclnnExpand")
    check(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream")
    big = np.zeros((3, 2, 4), np.float32)
    check(acl.rt.memcpy(big, big.nbytes, big_dev, big.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST), "memcpy")
    print("expand [1,4] with size [3,2,-1]:\n", big)

    # And a refusal, as the NPU gives it: [2,2] cannot expand to [2,3].
    bad_size = aclnn.aclCreateIntArray([2, 3])
    _, _, ret = aclnn.aclnnExpandGetWorkspaceSize(self_t, bad_size, out_t)
    print(f"size [2,3] for a [4,2] self -> {ret}: {aclnn.aclGetRecentErrMsg()}")

    # 6. destroy tensors and arrays; 7. free device resources
    for t in (self_t, out_t, row_t, big_t):
        aclnn.aclDestroyTensor(t)
    for a in (size, big_size, bad_size):
        aclnn.aclDestroyIntArray(a)
    for ptr in (self_dev, out_dev, row_dev, big_dev):
        acl.rt.free(ptr)
    if workspace_size > 0:
        acl.rt.free(workspace)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()


if __name__ == "__main__":
    main()
