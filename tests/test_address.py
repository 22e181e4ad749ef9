"""npu_emu._address.array_address reads element 0's address from NumPy's C-level array
interface; the reference is NumPy's own `__array_interface__["data"][0]` for the same array."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from npu_emu._address import array_address

_BASE = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5)


def _readonly() -> np.ndarray:
    a = np.arange(7, dtype=np.int16)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("make", [
    lambda: _BASE,
    lambda: _BASE[1:, 2:, 3:],                       # an offset view
    lambda: _BASE[::-1, :, ::-2],                     # negative strides: element 0 is not lowest
    lambda: _BASE.T,
    lambda: np.asfortranarray(_BASE),
    lambda: _BASE[2:3, 3, 4].reshape(()),              # 0-d
    lambda: _BASE[..., 1],
    lambda: np.zeros(5, dtype=ml_dtypes.bfloat16)[1:],
    lambda: np.zeros(3, dtype=ml_dtypes.float8_e4m3fn)[::2],
    lambda: np.zeros(4, dtype=np.complex64)[1:],
    lambda: np.zeros(9, dtype=bool)[3:],
    lambda: np.ones(3).view(np.recarray),
    _readonly,
], ids=["contiguous", "offset", "reversed", "transposed", "fortran", "0-d",
        "strided", "bfloat16", "float8", "complex64", "bool", "subclass", "readonly"])
def test_the_address_is_numpys_element_0(make):
    a = make()
    assert array_address(a) == a.__array_interface__["data"][0]


def test_many_calls_on_temporaries_read_live_memory():
    """The capsule is held while its struct is read: thousands of temporary views give their
    own addresses (a freed struct read would give stale or garbage values)."""
    base = np.arange(1000, dtype=np.float32)
    for k in range(2000):
        view = base[k % 997:]
        assert array_address(view) == base.__array_interface__["data"][0] + 4 * (k % 997)
