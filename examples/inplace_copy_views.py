"""aclnnInplaceCopy on non-contiguous views (docs/views.md#tensors-and-views, docs/operators.md#aclnninplacecopy): copy a transposed, strided block
of one tensor into a strided window of another, converting float32 -> float16 and
broadcasting a row, exactly as the NPU's ViewCopy path does."""
import numpy as np

import npu_emu.acl as acl
from npu_emu import aclnn
from npu_emu.aclnn import aclDataType, aclFormat


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed: {ret} ({aclnn.aclGetRecentErrMsg()})")


def device_array(host):
    dev, ret = acl.rt.malloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "aclrtMalloc")
    check(acl.rt.memcpy(dev, host.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE), "memcpy")
    return dev


def run_copy(self_ref, src, stream):
    ws, ex, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(self_ref, src)
    check(ret, "aclnnInplaceCopyGetWorkspaceSize")
    workspace = None
    if ws:
        workspace, ret = acl.rt.malloc(ws, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "workspace")
    check(aclnn.aclnnInplaceCopy(workspace, ws, ex, stream), "aclnnInplaceCopy")
    check(acl.rt.synchronize_stream(stream), "sync")
    if workspace:
        acl.rt.free(workspace)


def main():
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()

    # src: a 10x10 float32 storage; the view is docs/views.md#tensors-and-views's second example, rows 2,4,6,8 and
    # columns 2,4,6 (shape (4,3), strides (20,2), offset 22).
    src_host = np.arange(100, dtype=np.float32).reshape(10, 10)
    src_dev = device_array(src_host)
    src = aclnn.aclCreateTensor([4, 3], aclDataType.ACL_FLOAT, [20, 2], 22, aclFormat.ACL_FORMAT_ND,
                                [10, 10], src_dev)
    # selfRef: an 8x8 float16 storage of -1; the view is columns 1..4 of rows 0..2, transposed
    # (shape (4,3), strides (1,8), offset 1): element (i, j) lives at row j, column 1 + i.
    dst_host = np.full((8, 8), -1, dtype=np.float16)
    dst_dev = device_array(dst_host)
    self_ref = aclnn.aclCreateTensor([4, 3], aclDataType.ACL_FLOAT16, [1, 8], 1,
                                     aclFormat.ACL_FORMAT_ND, [8, 8], dst_dev)
    run_copy(self_ref, src, stream)
    result = np.zeros((8, 8), np.float16)
    check(acl.rt.memcpy(result, result.nbytes, dst_dev, result.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST), "memcpy")
    print("src view (rows 2,4,6,8; cols 2,4,6):\n", src_host[2:9:2, 2:7:2])
    print("selfRef storage after the copy (float16; the view is transposed into rows 0-2, cols 1-4):\n", result)
    expect = np.full((8, 8), -1, np.float16)
    expect[0:3, 1:5] = src_host[2:9:2, 2:7:2].T.astype(np.float16)
    assert np.array_equal(result, expect)

    # Broadcasting src -> selfRef: a (1, 3) row fills every row of the view.
    row_dev = device_array(np.array([[7, 8, 9]], dtype=np.float32))
    row = aclnn.aclCreateTensor([1, 3], aclDataType.ACL_FLOAT, [3, 1], 0, aclFormat.ACL_FORMAT_ND, [1, 3], row_dev)
    run_copy(self_ref, row, stream)
    check(acl.rt.memcpy(result, result.nbytes, dst_dev, result.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST), "memcpy")
    print("after copying the row [7, 8, 9] broadcast to (4, 3):\n", result[0:3, 1:5])

    # src that does not broadcast: the NPU's status and message.
    bad = aclnn.aclCreateTensor([2, 3], aclDataType.ACL_FLOAT, [3, 1], 0, aclFormat.ACL_FORMAT_ND, [10, 10], src_dev)
    _, _, ret = aclnn.aclnnInplaceCopyGetWorkspaceSize(self_ref, bad)
    print(f"src [2,3] into selfRef [4,3] -> {ret}: {aclnn.aclGetRecentErrMsg()}")

    for t in (src, self_ref, row, bad):
        aclnn.aclDestroyTensor(t)
    for ptr in (src_dev, dst_dev, row_dev):
        acl.rt.free(ptr)
    acl.rt.destroy_stream(stream)
    acl.finalize()


if __name__ == "__main__":
    main()
