"""Elementwise functions (the standard's chapter): each is a row of the elementwise engine's
tables (npu_emu/array_api/_engine/ufunc.py: the dtype category it takes, the library function,
the kind of result, our operator where there is one), called through its binary or unary
entry. Which path a call takes, and promotion: docs/array-api.md.
"""
from __future__ import annotations

from ._engine.array import Array
from ._engine.ufunc import binary, unary


def add(x1: object, x2: object, /) -> Array:
    """Elementwise add of x1 and x2, broadcast; numeric dtypes, promoted by the array_api
    rule set (aclnnAdd/aclnnMul where the SoC's dtype list has both inputs). The operator +."""
    return binary("add", x1, x2)


def subtract(x1: object, x2: object, /) -> Array:
    """Elementwise subtract of x1 and x2, broadcast; numeric dtypes, promoted by the
    array_api rule set (aclnnAdd/aclnnMul where the SoC's dtype list has both inputs). The
    operator -."""
    return binary("subtract", x1, x2)


def multiply(x1: object, x2: object, /) -> Array:
    """Elementwise multiply of x1 and x2, broadcast; numeric dtypes, promoted by the
    array_api rule set (aclnnAdd/aclnnMul where the SoC's dtype list has both inputs). The
    operator *."""
    return binary("multiply", x1, x2)


def divide(x1: object, x2: object, /) -> Array:
    """Elementwise true_divide of x1 and x2, broadcast; numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion). The operator /."""
    return binary("divide", x1, x2)


def floor_divide(x1: object, x2: object, /) -> Array:
    """Elementwise floor_divide of x1 and x2, broadcast; real numeric dtypes, promoted by
    the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion). The operator //."""
    return binary("floor_divide", x1, x2)


def remainder(x1: object, x2: object, /) -> Array:
    """Elementwise remainder of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion). The operator %."""
    return binary("remainder", x1, x2)


def pow(x1: object, x2: object, /) -> Array:
    """Elementwise power of x1 and x2, broadcast; numeric dtypes, promoted by the array_api
    rule set (on our kernels; narrow floats in float32, rounded back by our
    conversion). The operator **."""
    return binary("pow", x1, x2)


def atan2(x1: object, x2: object, /) -> Array:
    """Elementwise arctan2 of x1 and x2, broadcast; real floating-point dtypes, promoted by the
    array_api rule set, and integer dtypes in the default real floating dtype (on our kernels;
    narrow floats in float32, rounded back by our conversion)."""
    return binary("atan2", x1, x2)


def copysign(x1: object, x2: object, /) -> Array:
    """Elementwise copysign of x1 and x2, broadcast; real floating-point dtypes, promoted by
    the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion)."""
    return binary("copysign", x1, x2)


def hypot(x1: object, x2: object, /) -> Array:
    """Elementwise hypot of x1 and x2, broadcast; real floating-point dtypes, promoted by the
    array_api rule set, and integer dtypes in the default real floating dtype (on our kernels;
    narrow floats in float32, rounded back by our conversion)."""
    return binary("hypot", x1, x2)


def logaddexp(x1: object, x2: object, /) -> Array:
    """Elementwise logaddexp of x1 and x2, broadcast; real floating-point dtypes, promoted by
    the array_api rule set, and integer dtypes in the default real floating dtype (on our
    kernels; narrow floats in float32, rounded back by our conversion)."""
    return binary("logaddexp", x1, x2)


def nextafter(x1: object, x2: object, /) -> Array:
    """Elementwise nextafter of x1 and x2, broadcast; real floating-point dtypes, promoted
    by the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion)."""
    return binary("nextafter", x1, x2)


def maximum(x1: object, x2: object, /) -> Array:
    """Elementwise maximum of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion)."""
    return binary("maximum", x1, x2)


def minimum(x1: object, x2: object, /) -> Array:
    """Elementwise minimum of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion)."""
    return binary("minimum", x1, x2)


def equal(x1: object, x2: object, /) -> Array:
    """Elementwise equal of x1 and x2, broadcast; all dtypes, promoted by the array_api rule set
    (on our kernels; narrow floats compared in float32); the result is bool. The operator ==."""
    return binary("equal", x1, x2)


def not_equal(x1: object, x2: object, /) -> Array:
    """Elementwise not_equal of x1 and x2, broadcast; all dtypes, promoted by the array_api rule
    set (on our kernels; narrow floats compared in float32); the result is bool. The operator
    !=."""
    return binary("not_equal", x1, x2)


def less(x1: object, x2: object, /) -> Array:
    """Elementwise less of x1 and x2, broadcast; real numeric dtypes, promoted by the array_api
    rule set (on our kernels; narrow floats compared in float32); the result is bool. The
    operator <."""
    return binary("less", x1, x2)


def less_equal(x1: object, x2: object, /) -> Array:
    """Elementwise less_equal of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats compared in float32); the result is bool.
    The operator <=."""
    return binary("less_equal", x1, x2)


def greater(x1: object, x2: object, /) -> Array:
    """Elementwise greater of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats compared in float32); the result is bool.
    The operator >."""
    return binary("greater", x1, x2)


def greater_equal(x1: object, x2: object, /) -> Array:
    """Elementwise greater_equal of x1 and x2, broadcast; real numeric dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats compared in float32); the result is bool.
    The operator >=."""
    return binary("greater_equal", x1, x2)


def logical_and(x1: object, x2: object, /) -> Array:
    """Elementwise logical_and of x1 and x2, broadcast; all dtypes, promoted by the array_api
    rule set (on our kernels; narrow floats compared in float32); the result is bool."""
    return binary("logical_and", x1, x2)


def logical_or(x1: object, x2: object, /) -> Array:
    """Elementwise logical_or of x1 and x2, broadcast; all dtypes, promoted by the array_api
    rule set (on our kernels; narrow floats compared in float32); the result is bool."""
    return binary("logical_or", x1, x2)


def logical_xor(x1: object, x2: object, /) -> Array:
    """Elementwise logical_xor of x1 and x2, broadcast; all dtypes, promoted by the array_api
    rule set (on our kernels; narrow floats compared in float32); the result is bool."""
    return binary("logical_xor", x1, x2)


def bitwise_and(x1: object, x2: object, /) -> Array:
    """Elementwise bitwise_and of x1 and x2, broadcast; integer or boolean dtypes, promoted
    by the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion). The operator &."""
    return binary("bitwise_and", x1, x2)


def bitwise_or(x1: object, x2: object, /) -> Array:
    """Elementwise bitwise_or of x1 and x2, broadcast; integer or boolean dtypes, promoted
    by the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion). The operator |."""
    return binary("bitwise_or", x1, x2)


def bitwise_xor(x1: object, x2: object, /) -> Array:
    """Elementwise bitwise_xor of x1 and x2, broadcast; integer or boolean dtypes, promoted
    by the array_api rule set (on our kernels; narrow floats in float32,
    rounded back by our conversion). The operator ^."""
    return binary("bitwise_xor", x1, x2)


def bitwise_left_shift(x1: object, x2: object, /) -> Array:
    """Elementwise left_shift of x1 and x2, broadcast; integer dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion). The operator <<."""
    return binary("bitwise_left_shift", x1, x2)


def bitwise_right_shift(x1: object, x2: object, /) -> Array:
    """Elementwise right_shift of x1 and x2, broadcast; integer dtypes, promoted by the
    array_api rule set (on our kernels; narrow floats in float32, rounded
    back by our conversion). The operator >>."""
    return binary("bitwise_right_shift", x1, x2)


def abs(x: Array, /) -> Array:
    """Elementwise absolute of x; numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("abs", x)


def negative(x: Array, /) -> Array:
    """Elementwise negative of x; numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("negative", x)


def positive(x: Array, /) -> Array:
    """Elementwise positive of x; numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("positive", x)


def bitwise_invert(x: Array, /) -> Array:
    """Elementwise invert of x; integer or boolean dtypes (narrow floats in float32, rounded
    back by our conversion)."""
    return unary("bitwise_invert", x)


def logical_not(x: Array, /) -> Array:
    """Elementwise logical_not of x; all dtypes (narrow floats read in float32); the result is
    bool."""
    return unary("logical_not", x)


def acos(x: Array, /) -> Array:
    """Elementwise arccos of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("acos", x)


def acosh(x: Array, /) -> Array:
    """Elementwise arccosh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("acosh", x)


def asin(x: Array, /) -> Array:
    """Elementwise arcsin of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("asin", x)


def asinh(x: Array, /) -> Array:
    """Elementwise arcsinh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("asinh", x)


def atan(x: Array, /) -> Array:
    """Elementwise arctan of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("atan", x)


def atanh(x: Array, /) -> Array:
    """Elementwise arctanh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("atanh", x)


def cos(x: Array, /) -> Array:
    """Elementwise cos of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("cos", x)


def cosh(x: Array, /) -> Array:
    """Elementwise cosh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("cosh", x)


def sin(x: Array, /) -> Array:
    """Elementwise sin of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("sin", x)


def sinh(x: Array, /) -> Array:
    """Elementwise sinh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("sinh", x)


def tan(x: Array, /) -> Array:
    """Elementwise tan of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("tan", x)


def tanh(x: Array, /) -> Array:
    """Elementwise tanh of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("tanh", x)


def exp(x: Array, /) -> Array:
    """Elementwise exp of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("exp", x)


def expm1(x: Array, /) -> Array:
    """Elementwise expm1 of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("expm1", x)


def log(x: Array, /) -> Array:
    """Elementwise log of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("log", x)


def log1p(x: Array, /) -> Array:
    """Elementwise log1p of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("log1p", x)


def log2(x: Array, /) -> Array:
    """Elementwise log2 of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("log2", x)


def log10(x: Array, /) -> Array:
    """Elementwise log10 of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("log10", x)


def sqrt(x: Array, /) -> Array:
    """Elementwise sqrt of x; floating-point dtypes, and integer dtypes in the default real
    floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("sqrt", x)


def square(x: Array, /) -> Array:
    """Elementwise square of x; numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("square", x)


def reciprocal(x: Array, /) -> Array:
    """Elementwise reciprocal of x; floating-point dtypes, and integer dtypes in the default
    real floating dtype (narrow floats in float32, rounded back by our conversion)."""
    return unary("reciprocal", x)


def sign(x: Array, /) -> Array:
    """Elementwise sign of x; numeric dtypes (narrow floats in float32, rounded back by our
    conversion)."""
    return unary("sign", x)


def ceil(x: Array, /) -> Array:
    """Elementwise ceil of x; real numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("ceil", x)


def floor(x: Array, /) -> Array:
    """Elementwise floor of x; real numeric dtypes (narrow floats in float32, rounded back
    by our conversion)."""
    return unary("floor", x)


def trunc(x: Array, /) -> Array:
    """Elementwise trunc of x; real numeric dtypes (narrow floats in float32, rounded back
    by our conversion)."""
    return unary("trunc", x)


def round(x: Array, /) -> Array:
    """Elementwise rint of x; numeric dtypes (narrow floats in float32, rounded back by our
    conversion)."""
    return unary("round", x)


def conj(x: Array, /) -> Array:
    """Elementwise conjugate of x; numeric dtypes (narrow floats in float32, rounded back by
    our conversion)."""
    return unary("conj", x)


def real(x: Array, /) -> Array:
    """Elementwise real of x; numeric dtypes (narrow floats in float32, rounded back by our
    conversion)."""
    return unary("real", x)


def imag(x: Array, /) -> Array:
    """Elementwise imag of x; complex floating-point dtypes (narrow floats in float32,
    rounded back by our conversion)."""
    return unary("imag", x)


def isfinite(x: Array, /) -> Array:
    """Elementwise isfinite of x; numeric dtypes (narrow floats read in float32); the result is
    bool."""
    return unary("isfinite", x)


def isinf(x: Array, /) -> Array:
    """Elementwise isinf of x; numeric dtypes (narrow floats read in float32); the result is
    bool."""
    return unary("isinf", x)


def isnan(x: Array, /) -> Array:
    """Elementwise isnan of x; numeric dtypes (narrow floats read in float32); the result is
    bool."""
    return unary("isnan", x)


def signbit(x: Array, /) -> Array:
    """Elementwise signbit of x; real floating-point dtypes (narrow floats read in float32); the
    result is bool."""
    return unary("signbit", x)


__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "ceil", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp",
    "expm1", "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag",
    "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log10", "log1p", "log2",
    "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
    "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real",
    "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square",
    "subtract", "tan", "tanh", "trunc",
]
