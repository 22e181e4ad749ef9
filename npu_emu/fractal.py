"""Shape math of the NPU's private layouts (docs/formats.md#private-layouts): for a view shape, dtype and SoC, the
storage shape, the padding, and the storage axes each layout is made of.

Every layout is pad (zeros) -> reshape -> transpose. A `LayoutSpec` records the result as a
list of *storage axes*, outermost first: axis (dim, mult, size) walks view dim `dim` in steps
of `mult` (a dim split into blocks of b gives an outer axis (dim, b, ceil(n/b)) and an inner
axis (dim, 1, b)). Element (i_0, ..., i_k) of the storage holds view element
[sum of i_a * mult_a over the axes of each dim], or zero where that index passes the view's
size (the padding). The conversion kernels (`npu_emu/kernels/layout.py`) read nothing else.

Naming: every layout is a `Layout` member. Those with an aclFormat (FRACTAL_NZ, NC1HWC0, ...)
may also be named by it; Zz, Zn and DN have no aclFormat, so users name them with the enum or
a string: "Zz" (also "FRACTAL_ZZ", CANN's ge::FORMAT_FRACTAL_ZZ = 28), "Zn" ("FRACTAL_ZN"),
"DN". Strings are case-insensitive ("NZ", "nz", "FRACTAL_NZ" are the same layout).
"""
from __future__ import annotations

import enum
import math
import numbers
from dataclasses import dataclass
from typing import Sequence

from . import dtypes as _dt
from .arch import SocInfo, current_soc, get_soc
from .dtypes import aclDataType
from .formats import aclFormat, fmt_name
from ._params import as_int
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID
from .tensor import Tensor

F = aclFormat

M0 = 16                 # rows of every fractal (docs/formats.md#private-layouts)
N0_CUBE = 16            # the N side of Zn and of conv weights (FRACTAL_Z): 16
L0C_FRACTAL = (16, 16)  # the cube's result buffer holds 16x16 fractals whatever the dtype
C04 = 4                 # NC1HWC0_C04: C0 fixed at 4


class Layout(enum.Enum):
    """Every layout npu_emu converts between. The value is the name used in messages."""
    ND = "ND"
    DN = "DN"
    FRACTAL_NZ = "FRACTAL_NZ"
    ZZ = "Zz"
    ZN = "Zn"
    NC1HWC0 = "NC1HWC0"
    NC1HWC0_C04 = "NC1HWC0_C04"
    NDC1HWC0 = "NDC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"
    FRACTAL_Z_3D = "FRACTAL_Z_3D"

    @property
    def acl_format(self) -> aclFormat | None:
        """The aclFormat that names this layout, or None (Zz, Zn, DN have none)."""
        return _ACL_FORMAT.get(self)

    @property
    def is_matrix(self) -> bool:
        """Layouts over the last two dims, any leading dims kept as batch."""
        return self in MATRIX_LAYOUTS

    @property
    def is_private(self) -> bool:
        return self is not Layout.ND

    def __str__(self) -> str:
        return self.value


L = Layout
MATRIX_LAYOUTS = frozenset({L.DN, L.FRACTAL_NZ, L.ZZ, L.ZN})
FRACTAL_LAYOUTS = frozenset({L.FRACTAL_NZ, L.ZZ, L.ZN})
_ACL_FORMAT = {
    L.ND: F.ACL_FORMAT_ND, L.FRACTAL_NZ: F.ACL_FORMAT_FRACTAL_NZ, L.NC1HWC0: F.ACL_FORMAT_NC1HWC0,
    L.NC1HWC0_C04: F.ACL_FORMAT_NC1HWC0_C04, L.NDC1HWC0: F.ACL_FORMAT_NDC1HWC0,
    L.FRACTAL_Z: F.ACL_FORMAT_FRACTAL_Z, L.FRACTAL_Z_3D: F.ACL_FRACTAL_Z_3D,
}
# FRACTAL_NZ with its C0 in the format's name (Ascend950's aclnnNpuFormatCast reports these).
NZ_C0_FORMATS = {F.ACL_FORMAT_FRACTAL_NZ_C0_2: 2, F.ACL_FORMAT_FRACTAL_NZ_C0_4: 4,
                 F.ACL_FORMAT_FRACTAL_NZ_C0_8: 8, F.ACL_FORMAT_FRACTAL_NZ_C0_16: 16,
                 F.ACL_FORMAT_FRACTAL_NZ_C0_32: 32}
NZ_FORMAT_FOR_C0 = {c0: f for f, c0 in NZ_C0_FORMATS.items()}
_FROM_FORMAT = {f: l for l, f in _ACL_FORMAT.items()}
_ALIASES = {"NZ": L.FRACTAL_NZ, "FRACTAL_ZZ": L.ZZ, "FRACTAL_ZN": L.ZN}

# The public formats that name an axis order for the conv layouts (docs/formats.md#private-layouts; CANN's
# aclnnNpuFormatCast table). The first of each list is the default for an ND source.
ORIGINS: dict[Layout, tuple[str, ...]] = {
    L.NC1HWC0: ("NCHW", "NHWC"),
    L.NC1HWC0_C04: ("NCHW", "NHWC"),
    L.NDC1HWC0: ("NCDHW", "NDHWC"),
    L.FRACTAL_Z: ("NCHW", "HWCN", "NHWC"),
    L.FRACTAL_Z_3D: ("NCDHW", "DHWCN", "NDHWC"),
}
ALL_ORIGINS = frozenset(o for choices in ORIGINS.values() for o in choices)


def _invalid(message: str) -> AclnnError:
    return AclnnError(ACLNN_ERR_PARAM_INVALID, message)


def parse_layout(value: object, param: str = "format") -> tuple[Layout, int | None]:
    """(layout, c0 named by the format or None) from a Layout, an aclFormat (or its value),
    or a name: "NZ", "FRACTAL_NZ", "Zz", "Zn", "DN", "NC1HWC0", "ACL_FORMAT_NCHW"...
    Public formats (NCHW, NHWC, ...) all mean ND here."""
    if isinstance(value, Layout):
        return value, None
    fmt: aclFormat | None = None
    if isinstance(value, aclFormat):
        fmt = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        try:
            fmt = aclFormat(int(value))
        except ValueError:
            pass
    elif isinstance(value, str):
        key = value.strip().upper().removeprefix("ACL_").removeprefix("FORMAT_")
        for member in Layout:
            if member.value.upper() == key or member.name == key:
                return member, None
        if key in _ALIASES:
            return _ALIASES[key], None
        for candidate in ("ACL_FORMAT_" + key, "ACL_" + key):
            if candidate in aclFormat.__members__:
                fmt = aclFormat[candidate]
    if fmt is not None:
        if fmt in NZ_C0_FORMATS:
            return L.FRACTAL_NZ, NZ_C0_FORMATS[fmt]
        if fmt in _FROM_FORMAT:
            return _FROM_FORMAT[fmt], None
        if fmt != F.ACL_FORMAT_UNDEFINED:
            return L.ND, None          # NCHW, NHWC, NCL, ...: public formats, row-major
    raise _invalid(f"{param}={value!r} is not a layout: give a npu_emu.fractal.Layout, an "
                   f"aclFormat, or a name such as 'ND', 'NZ', 'Zz', 'Zn', 'DN', 'NC1HWC0', "
                   f"'FRACTAL_Z'")


def public_origin(value: object) -> str | None:
    """The axis letters a public format names ("NCHW"), or None (ND and private formats)."""
    if isinstance(value, str):
        key = value.strip().upper().removeprefix("ACL_").removeprefix("FORMAT_")
        return key if key in ALL_ORIGINS else None
    try:
        fmt = aclFormat(int(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    name = fmt_name(fmt).removeprefix("FORMAT_")
    return name if fmt in (F.ACL_FORMAT_NCHW, F.ACL_FORMAT_NHWC, F.ACL_FORMAT_HWCN,
                           F.ACL_FORMAT_NCDHW, F.ACL_FORMAT_NDHWC) else None


# ------------------------------------------------------------------------------ fractal sizes

def element_bits(dtype: object) -> int:
    info = _dt.info(dtype)
    if info.bits <= 0:
        raise _invalid(f"{_dt.dt_name(info.dtype)} has no element width")
    return info.bits


def default_c0(dtype: object, soc: object = None) -> int:
    """C0 = 32 bytes / element size (docs/formats.md#private-layouts): fp32 8, fp16/bf16 16, 8-bit 32, int4 64."""
    s = current_soc() if soc is None else get_soc(soc, "soc")
    return s.c0(element_bits(dtype))


def fractal_shape(dtype: object, soc: object = None) -> tuple[int, int]:
    """A fractal of GM/L1/L0A/L0B: 16 rows x C0 columns = 512 bytes (fp32 16x8, fp16/bf16
    16x16, int8/fp8/hif8 16x32, int4 16x64). L0C's result fractal is L0C_FRACTAL (16x16)."""
    s = current_soc() if soc is None else get_soc(soc, "soc")
    return s.fractal_rows, default_c0(dtype, s)


# ---------------------------------------------------------------------------------- the spec

Axis = tuple[int, int, int]  # (view dim, multiplier, size)


@dataclass(frozen=True)
class LayoutSpec:
    """One private layout of one view shape: storage shape and the axes that make it."""
    layout: Layout
    view_shape: tuple[int, ...]
    c0: int
    origin: str | None                 # axis letters of the view shape (conv layouts), else None
    axes: tuple[Axis, ...]             # storage axes, outermost first
    storage_shape: tuple[int, ...]     # the axes, some merged (FRACTAL_Z's C1*H*W)

    @property
    def padded_shape(self) -> tuple[int, ...]:
        """The view shape after padding: each dim's extent over its storage axes."""
        ext = [1] * len(self.view_shape)
        for d, mult, size in self.axes:
            ext[d] += (size - 1) * mult
        return tuple(e if n else 0 for e, n in zip(ext, self.view_shape))

    @property
    def padding(self) -> tuple[int, ...]:
        """Zeros appended to each view dim (pad "after" only, as in docs/formats.md#private-layouts)."""
        return tuple(p - n for p, n in zip(self.padded_shape, self.view_shape))

    @property
    def storage_numel(self) -> int:
        return math.prod(self.storage_shape)

    @property
    def acl_format(self) -> aclFormat | None:
        return self.layout.acl_format

    @property
    def fractal(self) -> tuple[int, int] | None:
        """(rows, cols) of one fractal for the fractal layouts, else None."""
        if self.layout is L.FRACTAL_NZ or self.layout is L.ZZ:
            return (M0, self.c0)
        if self.layout is L.ZN:
            return (N0_CUBE, self.c0)
        return None


def _ceil(n: int, b: int) -> int:
    return -(-n // b)


def _split(n: int, b: int, dim: int) -> tuple[Axis, Axis]:
    """A dim of size n padded to a multiple of b: outer axis, inner axis."""
    return (dim, b, _ceil(n, b)), (dim, 1, b)


def _check_shape(shape: Sequence[int]) -> tuple[int, ...]:
    out = tuple(int(n) for n in shape)
    if any(n < 0 for n in out):
        raise _invalid(f"shape {list(out)} has a negative size")
    return out


def layout_spec(layout: object, view_shape: Sequence[int], dtype: object, c0: int | None = None,
                origin: str | None = None, soc: object = None) -> LayoutSpec:
    """The storage of `view_shape` (dtype `dtype`) in `layout` on `soc` (default: current).

    c0 overrides C0 (torch_npu's convention, or FRACTAL_NZ_C0_x); origin names the axis
    order of a conv layout's view ("NCHW", "NHWC", "HWCN", "NCDHW", "NDHWC", "DHWCN"),
    default the first of ORIGINS[layout]."""
    lay, named_c0 = parse_layout(layout, "layout")
    shape = _check_shape(view_shape)
    s: SocInfo = current_soc() if soc is None else get_soc(soc, "soc")
    if lay is L.NC1HWC0_C04:
        want_c0 = C04
    elif named_c0 is not None:
        want_c0 = named_c0
    else:
        want_c0 = s.c0(element_bits(dtype))
    if c0 is not None:
        c0 = as_int(c0, "c0", 1, what="a positive int (elements per C0)")
        if lay is L.NC1HWC0_C04 and c0 != C04:
            raise _invalid(f"NC1HWC0_C04 has C0 = 4, not c0={c0}")
        want_c0 = int(c0)
    if lay is L.ND:
        axes = tuple((d, 1, n) for d, n in enumerate(shape)) if shape else ()
        return LayoutSpec(lay, shape, want_c0, None, axes, shape)
    if lay.is_matrix:
        return _matrix_spec(lay, shape, want_c0)
    return _conv_spec(lay, shape, want_c0, origin)


def _matrix_spec(lay: Layout, shape: tuple[int, ...], c0: int) -> LayoutSpec:
    if len(shape) < 2:
        raise _invalid(f"{lay} needs at least 2 dims (..., rows, cols); the view has "
                       f"{len(shape)}")
    r, c = len(shape) - 2, len(shape) - 1
    R, C = shape[r], shape[c]
    batch = tuple((d, 1, n) for d, n in enumerate(shape[:-2]))
    if lay is L.DN:
        axes = batch + ((c, 1, C), (r, 1, R))
    elif lay is L.FRACTAL_NZ:       # (..., M, N) -> (..., N1, M1, M0, N0)
        (mo, mi), (no, ni) = _split(R, M0, r), _split(C, c0, c)
        axes = batch + (no, mo, mi, ni)
    elif lay is L.ZZ:               # (..., M, K) -> (..., M1, K1, M0, K0)
        (mo, mi), (ko, ki) = _split(R, M0, r), _split(C, c0, c)
        axes = batch + (mo, ko, mi, ki)
    else:                           # Zn: (..., K, N) -> (..., K1, N1, N0, K0)
        (ko, ki), (no, ni) = _split(R, c0, r), _split(C, N0_CUBE, c)
        axes = batch + (ko, no, ni, ki)
    return LayoutSpec(lay, shape, c0, None, axes, tuple(a[2] for a in axes))


def _conv_spec(lay: Layout, shape: tuple[int, ...], c0: int, origin: str | None) -> LayoutSpec:
    choices = ORIGINS[lay]
    org = choices[0] if origin is None else str(origin).strip().upper()
    if org not in choices:
        raise _invalid(f"{lay} converts from {', '.join(choices)}, not from {origin!r}")
    if len(shape) != len(org):
        raise _invalid(f"{lay} from {org} needs a {len(org)}-D view; it has {len(shape)} dims "
                       f"{list(shape)}")
    pos = {letter: i for i, letter in enumerate(org)}
    size = {letter: shape[i] for letter, i in pos.items()}

    def whole(letter: str) -> Axis:
        return (pos[letter], 1, size[letter])

    co, ci = _split(size["C"], c0, pos["C"])
    if lay in (L.NC1HWC0, L.NC1HWC0_C04):          # (N, C1, H, W, C0)
        axes = (whole("N"), co, whole("H"), whole("W"), ci)
        groups = (1, 1, 1, 1, 1)
    elif lay is L.NDC1HWC0:                        # (N, D, C1, H, W, C0)
        axes = (whole("N"), whole("D"), co, whole("H"), whole("W"), ci)
        groups = (1, 1, 1, 1, 1, 1)
    elif lay is L.FRACTAL_Z:                       # (C1*H*W, N1, N0, C0)
        no, ni = _split(size["N"], N0_CUBE, pos["N"])
        axes = (co, whole("H"), whole("W"), no, ni, ci)
        groups = (3, 1, 1, 1)
    else:                                          # FRACTAL_Z_3D: (D*C1*H*W, N1, N0, C0)
        no, ni = _split(size["N"], N0_CUBE, pos["N"])
        axes = (whole("D"), co, whole("H"), whole("W"), no, ni, ci)
        groups = (4, 1, 1, 1)
    storage, i = [], 0
    for g in groups:
        storage.append(math.prod(a[2] for a in axes[i:i + g]))
        i += g
    return LayoutSpec(lay, shape, c0, org, axes, tuple(storage))


def storage_shape(layout: object, view_shape: Sequence[int], dtype: object,
                  c0: int | None = None, origin: str | None = None,
                  soc: object = None) -> tuple[int, ...]:
    """Shortcut: layout_spec(...).storage_shape."""
    return layout_spec(layout, view_shape, dtype, c0, origin, soc).storage_shape


# ------------------------------------------------------------------- tensors in a layout

@dataclass(frozen=True, eq=False)
class LayoutTensor(Tensor):
    """A device tensor in a private layout, as `npu_emu.format_cast` returns it: view shape
    the logical shape, storage shape the layout's, plus the layout and the axis order of the
    view (conv layouts), which a plain aclTensor cannot carry.

    `format` is the layout's aclFormat; Zz, Zn and DN have none, so theirs is
    ACL_FORMAT_UNDEFINED, which every ND operator refuses with 161002."""
    layout: Layout = L.ND
    origin: str | None = None

    @property
    def c0(self) -> int:
        return self.storage_shape[-1] if self.storage_shape else 1

    def __repr__(self) -> str:
        return (f"LayoutTensor(layout={self.layout}, view_shape={list(self.view_shape)}, "
                f"dtype={_dt.dt_name(self.dtype)}, storage_shape={list(self.storage_shape)}"
                + (f", origin={self.origin}" if self.origin else "") + f", data=0x{self.data:x})")


def tensor_layout(t: Tensor) -> tuple[Layout, str | None]:
    """(layout, view axis order) of a tensor: a LayoutTensor says both; a plain aclTensor
    has its format (public formats are ND, with their letters as the axis order)."""
    if isinstance(t, LayoutTensor):
        return t.layout, t.origin
    lay, _ = parse_layout(t.format, "format")
    return lay, public_origin(t.format) if lay is L.ND else None


def tensor_spec(t: Tensor, origin: str | None = None, soc: object = None) -> LayoutSpec:
    """The LayoutSpec a tensor's storage follows. For a private layout C0 is read from the
    storage shape (its last dim in every layout), and the storage shape must be the one the
    layout gives for the view shape: AclnnError(161002) otherwise."""
    lay, org = tensor_layout(t)
    if lay is L.ND:
        return layout_spec(lay, t.view_shape, t.dtype, soc=soc)
    org = origin or org
    _, named_c0 = parse_layout(t.format, "format") if not isinstance(t, LayoutTensor) else (lay, None)
    c0 = t.storage_shape[-1] if t.storage_shape else None
    if named_c0 is not None and c0 != named_c0:
        raise _invalid(f"the tensor has format {fmt_name(t.format)} but its storage shape "
                       f"{list(t.storage_shape)} ends in {c0}")
    spec = layout_spec(lay, t.view_shape, t.dtype, c0=c0, origin=org, soc=soc)
    if spec.storage_shape != tuple(t.storage_shape):
        raise _invalid(
            f"a {lay} tensor of view shape {list(t.view_shape)} has storage shape "
            f"{list(spec.storage_shape)} (C0 = {c0}"
            + (f", axis order {spec.origin}" if spec.origin else "")
            + f"), but this tensor's is {list(t.storage_shape)}")
    return spec


def make_layout_tensor(spec: LayoutSpec, dtype: aclDataType, data: int, owner: object = None,
                       storage_offset: int = 0) -> Tensor:
    """A tensor whose storage follows `spec`: a LayoutTensor for private layouts, a plain
    contiguous ND tensor for ND."""
    from .tensor import contiguous_strides, make_tensor
    if spec.layout is L.ND:
        return make_tensor(list(spec.view_shape), dtype, None, storage_offset,
                           F.ACL_FORMAT_ND, list(spec.view_shape), data, owner)
    fmt = spec.acl_format if spec.acl_format is not None else F.ACL_FORMAT_UNDEFINED
    return LayoutTensor(spec.view_shape, _dt.as_dtype(dtype), contiguous_strides(spec.view_shape),
                        storage_offset, fmt, spec.storage_shape, int(data), owner,
                        layout=spec.layout, origin=spec.origin)

