"""Host side of the kernel families, one module each: its catalog (kernel names x storage
types, declared once; the .cu instantiation lists are generated from it) and the launches
and geometry it plans. The backends that run them live in npu_emu.runtime."""
