/* npu_emu's acl_base.h: the base types of CANN's acl runtime API (aclError, the opaque
 * runtime handles, aclDataType, aclFormat, the status codes). Names and values are CANN's;
 * the enum and code blocks are generated from npu_emu's Python tables (npu_emu.capi._gen). */
#ifndef NPU_EMU_ACL_ACL_BASE_H_
#define NPU_EMU_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;

/* Opaque handles: npu_emu hands out tokens, never addresses of its objects. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;

/* generated: acl-status */
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
/* end generated */

/* generated: aclDataType */
typedef enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41
} aclDataType;
/* end generated */

/* generated: aclFormat */
typedef enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;
/* end generated */

/* The messages of this thread's failed calls since the last read, latest first ("" if
 * none); reading clears them. The string stays valid until this thread's next call. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif
#endif /* NPU_EMU_ACL_ACL_BASE_H_ */
