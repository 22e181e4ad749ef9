"""The core model: the SoC in use, dtype promotion and conversion rules, a tensor descriptor
over a strided view (docs/dtypes.md, docs/views.md#tensors-and-views, docs/socs.md#socs)."""
import npu_emu
from npu_emu import aclDataType as DT, aclFormat

soc = npu_emu.current_soc()
print(f"SoC: {soc.name} ({soc.products}), BF16: {soc.bf16}, matmul: {soc.matmul_convention}")
for a, b in [(DT.ACL_FLOAT16, DT.ACL_FLOAT), (DT.ACL_FLOAT, DT.ACL_BOOL),
             (DT.ACL_INT8, DT.ACL_UINT8), (DT.ACL_BF16, DT.ACL_FLOAT16)]:
    print(f"promote({a.name}, {b.name}) = {npu_emu.promote_types(a, b).name}")
try:
    npu_emu.promote_types(DT.ACL_UINT16, DT.ACL_INT32)
except npu_emu.AclnnError as err:
    print(f"promote(ACL_UINT16, ACL_INT32) -> {err.code}: {err.message}")
print("can_cast(f32 -> s32):", npu_emu.can_cast(DT.ACL_FLOAT, DT.ACL_INT32),
      " can_cast(s32 -> f32):", npu_emu.can_cast(DT.ACL_INT32, DT.ACL_FLOAT))

# docs/views.md#tensors-and-views's second example: rows 2, 4, 6, 8 and columns 2, 4, 6 of a 10x10 storage.
from npu_emu.tensor import make_tensor
t = make_tensor([4, 3], DT.ACL_FLOAT, [20, 2], 22, aclFormat.ACL_FORMAT_ND, [10, 10], 0x1000)
print(t)
print("contiguous:", t.is_contiguous(), " elements:", t.numel,
      " addresses:", [(t.element_address((i, j)) - t.data) // 4 for i in range(4) for j in range(3)])
