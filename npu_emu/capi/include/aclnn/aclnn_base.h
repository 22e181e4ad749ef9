/* npu_emu's aclnn_base.h: the status type and codes of the aclnn operator API. */
#ifndef NPU_EMU_ACLNN_ACLNN_BASE_H_
#define NPU_EMU_ACLNN_ACLNN_BASE_H_

#include <stdint.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

/* generated: aclnn-status */
static const int ACLNN_SUCCESS = 0;
static const int ACLNN_ERR_PARAM_NULLPTR = 161001;
static const int ACLNN_ERR_PARAM_INVALID = 161002;
static const int ACLNN_ERR_RUNTIME_ERROR = 361001;
static const int ACLNN_ERR_INNER = 561000;
static const int ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
static const int ACLNN_ERR_INNER_TILING_ERROR = 561002;
static const int ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
static const int ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
static const int ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102;
static const int ACLNN_ERR_INNER_NULLPTR = 561103;
/* end generated */

#ifdef __cplusplus
}
#endif
#endif /* NPU_EMU_ACLNN_ACLNN_BASE_H_ */
