"""aclFormat (docs/formats.md#formats): CANN's values, the rank rules of the public formats, and the list of
the NPU's private layouts. The shape math of the private layouts (docs/formats.md#private-layouts) lives in
`npu_emu.fractal`.
"""
from __future__ import annotations

import numbers

import numpy as np

from .dtypes import NamedIntEnum
from .status import AclnnError, ACLNN_ERR_PARAM_INVALID


class aclFormat(NamedIntEnum):
    ACL_FORMAT_UNDEFINED = -1
    ACL_FORMAT_NCHW = 0
    ACL_FORMAT_NHWC = 1
    ACL_FORMAT_ND = 2
    ACL_FORMAT_NC1HWC0 = 3
    ACL_FORMAT_FRACTAL_Z = 4
    ACL_FORMAT_NC1HWC0_C04 = 12
    ACL_FORMAT_HWCN = 16
    ACL_FORMAT_NDHWC = 27
    ACL_FORMAT_FRACTAL_NZ = 29
    ACL_FORMAT_NCDHW = 30
    ACL_FORMAT_NDC1HWC0 = 32
    ACL_FRACTAL_Z_3D = 33
    ACL_FORMAT_NC = 35
    ACL_FORMAT_NCL = 47
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54


F = aclFormat

# docs/formats.md#formats: the public formats and the ranks they name; ND is valid at every rank.
PUBLIC_FORMAT_RANKS: dict[aclFormat, int | None] = {
    F.ACL_FORMAT_ND: None,
    F.ACL_FORMAT_NCDHW: 5, F.ACL_FORMAT_NDHWC: 5,
    F.ACL_FORMAT_NCHW: 4, F.ACL_FORMAT_NHWC: 4, F.ACL_FORMAT_HWCN: 4,
    F.ACL_FORMAT_NCL: 3,
    F.ACL_FORMAT_NC: 2,
}

PRIVATE_FORMATS = frozenset({
    F.ACL_FORMAT_NC1HWC0, F.ACL_FORMAT_FRACTAL_Z, F.ACL_FORMAT_NC1HWC0_C04,
    F.ACL_FORMAT_FRACTAL_NZ, F.ACL_FORMAT_NDC1HWC0, F.ACL_FRACTAL_Z_3D,
    F.ACL_FORMAT_FRACTAL_NZ_C0_16, F.ACL_FORMAT_FRACTAL_NZ_C0_32, F.ACL_FORMAT_FRACTAL_NZ_C0_2,
    F.ACL_FORMAT_FRACTAL_NZ_C0_4, F.ACL_FORMAT_FRACTAL_NZ_C0_8,
})


def fmt_name(fmt: aclFormat) -> str:
    """CANN's spelling in messages: FORMAT_ND, FORMAT_FRACTAL_NZ, ..."""
    return aclFormat(fmt).name.removeprefix("ACL_")


def as_format(value: object, param: str = "format") -> aclFormat:
    """An aclFormat from a member, its integer value or its name ("ND", "ACL_FORMAT_ND")."""
    if isinstance(value, aclFormat):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):  # NumPy ints too
        try:
            return aclFormat(int(value))
        except ValueError:
            pass
    elif isinstance(value, str):
        key = value.strip().upper()
        for candidate in (key, "ACL_FORMAT_" + key, "ACL_" + key):
            if candidate in aclFormat.__members__:
                return aclFormat[candidate]
    raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                     f"{param}={value!r} is not an aclFormat (give a member of "
                     f"npu_emu.aclFormat, its value or its name)")


def is_private(fmt: aclFormat) -> bool:
    return fmt in PRIVATE_FORMATS


def public_formats_for_rank(rank: int) -> list[aclFormat]:
    """The public formats a tensor of this rank may carry (docs/formats.md#formats)."""
    return [f for f, r in PUBLIC_FORMAT_RANKS.items() if r is None or r == rank]


def check_public_format_rank(fmt: aclFormat, rank: int, param: str = "tensor") -> None:
    """161002 when a public format names a rank other than the tensor's (NCHW needs 4-D)."""
    fmt = as_format(fmt, "format")
    if fmt in PUBLIC_FORMAT_RANKS:
        want = PUBLIC_FORMAT_RANKS[fmt]
        if want is not None and want != rank:
            allowed = ", ".join(fmt_name(f) for f in public_formats_for_rank(rank))
            raise AclnnError(
                ACLNN_ERR_PARAM_INVALID,
                f"{param} has format {fmt_name(fmt)}, which needs {want} dimensions, but its view "
                f"has {rank}; a {rank}-D tensor may be {allowed}.")
    elif fmt not in PRIVATE_FORMATS:
        raise AclnnError(ACLNN_ERR_PARAM_INVALID,
                         f"{param} has format {fmt_name(fmt)}, which is neither a public nor a "
                         f"private format.")
