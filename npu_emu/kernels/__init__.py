"""Kernel families and their host side: each module declares one family's kernels (names,
arities, dtypes) once, generates the .cu instantiation list from that declaration, and plans
launches over tensor views."""
