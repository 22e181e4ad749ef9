/* npu_emu's acl.h: what CANN programs include first. aclInit / aclFinalize here, the base
 * types in acl_base.h, the runtime in acl_rt.h. Graph mode (acl_mdl.h, acl_op.h) is not
 * part of npu_emu. */
#ifndef NPU_EMU_ACL_ACL_H_
#define NPU_EMU_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* configPath: NULL, or a path (npu_emu reads no configuration file). */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/* Waits for all streams; acl calls then return ACL_ERROR_UNINITIALIZE until aclInit. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif
#endif /* NPU_EMU_ACL_ACL_H_ */
