/* npu_emu's C ABI (libascendcl.so; docs/c-api.md#the-c-abi): every exported function forwards
 * its arguments, as integers, to the function of the same name in npu_emu.capi._bridge, which
 * calls the Python C-style facade. No semantics live here: only argument passing, the writing
 * of output parameters, and the start of the interpreter.
 *
 * Loaded into a C program, the library starts an embedded interpreter (the one npu_emu was
 * built with, NPU_EMU_PYTHON) on the first call; loaded into a Python process it uses the
 * running one. Every call takes the GIL (PyGILState_Ensure), so any thread may call.
 * The interpreter is never finalized (numpy cannot start twice in one process, and device
 * work may still reference it at exit): at exit, Python's exit handlers run and its output is
 * flushed, then the GIL stays taken so no Python runs while the process ends. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "npu_emu_capi_ops.inc" /* the operator list */

#ifndef NPU_EMU_PYTHON
#error "build with -DNPU_EMU_PYTHON=\"/path/to/python\" (npu-emu build-capi does)"
#endif
#ifndef NPU_EMU_ROOT
#error "build with -DNPU_EMU_ROOT=\"/folder/holding/npu_emu\" (npu-emu build-capi does)"
#endif

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "the C ABI assumes 64-bit size_t");
_Static_assert(sizeof(aclDataType) == sizeof(int32_t), "enums are int32");

#define CAPI_H(p) ((unsigned long long)(uintptr_t)(p))
enum { FAMILY_ACL, FAMILY_ACLNN };

/* The bridge functions, by name (the C functions of the same name call them). */
#define CAPI_BRIDGE(X) \
    X(_start) X(null_output) X(at_exit) X(phase_one) X(phase_two) \
    X(aclGetRecentErrMsg) X(aclrtGetSocName) X(aclnnNpuFormatCastCalculateSizeAndFormat) \
    X(aclCreateTensor) X(aclCreateScalar) X(aclCreateIntArray) X(aclCreateFloatArray) \
    X(aclCreateBoolArray) X(aclCreateTensorList) \
    X(aclDestroyTensor) X(aclDestroyScalar) X(aclDestroyIntArray) X(aclDestroyFloatArray) \
    X(aclDestroyBoolArray) X(aclDestroyTensorList) \
    X(aclGetViewShape) X(aclGetViewStrides) X(aclGetViewOffset) X(aclGetStorageShape) \
    X(aclGetFormat) X(aclGetDataType) \
    X(aclSetAclOpExecutorRepeatable) X(aclDestroyAclOpExecutor) X(aclSetInputTensorAddr) \
    X(aclSetOutputTensorAddr) \
    X(aclInit) X(aclFinalize) X(aclrtSetDevice) X(aclrtResetDevice) X(aclrtGetDevice) \
    X(aclrtGetDeviceCount) X(aclrtSynchronizeDevice) X(aclrtCreateContext) \
    X(aclrtDestroyContext) X(aclrtSetCurrentContext) X(aclrtGetCurrentContext) \
    X(aclrtCreateStream) X(aclrtDestroyStream) X(aclrtSynchronizeStream) X(aclrtCreateEvent) \
    X(aclrtDestroyEvent) X(aclrtRecordEvent) X(aclrtSynchronizeEvent) X(aclrtQueryEventStatus) \
    X(aclrtStreamWaitEvent) X(aclrtEventElapsedTime) X(aclrtMalloc) X(aclrtFree) \
    X(aclrtMallocHost) X(aclrtFreeHost) X(aclrtMemcpy) X(aclrtMemcpyAsync) X(aclrtMemset) \
    X(aclrtMemsetAsync) X(aclrtGetMemInfo)

#define CAPI_ENUM(n) B_##n,
#define CAPI_NAME(n) #n,
#define CAPI_OP_ENUM(n) CAPI_OP_##n,
enum { CAPI_BRIDGE(CAPI_ENUM) B_COUNT };
enum { CAPI_OPERATORS(CAPI_OP_ENUM) CAPI_OP_COUNT };
static const char *const bridge_names[] = {CAPI_BRIDGE(CAPI_NAME)};
static const char *const op_names[] = {CAPI_OPERATORS(CAPI_NAME)};

static PyObject *bridge_fn[B_COUNT];
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int started;               /* 1: ready; -1: the start failed (start_error says why) */
static char start_error[2048];

/* ------------------------------------------------------------------ the interpreter */

static void keep_python_error(const char *what)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *s = text ? PyUnicode_AsUTF8(text) : NULL;
    snprintf(start_error, sizeof start_error, "npu_emu C ABI: %s: %s", what, s ? s : "unknown error");
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
}

static void at_exit(void)
{
    PyGILState_Ensure(); /* never released: no Python runs while the process ends */
    PyObject *r = PyObject_CallNoArgs(bridge_fn[B_at_exit]);
    Py_XDECREF(r);
    PyErr_Clear();
}

static int load_bridge(int embedded)
{
    if (embedded) { /* the npu_emu this library was built from comes first */
        PyObject *path = PySys_GetObject("path"); /* borrowed */
        PyObject *root = PyUnicode_FromString(NPU_EMU_ROOT);
        int present = path && root ? PySequence_Contains(path, root) : -1;
        if (present == 0)
            PyList_Insert(path, 0, root);
        Py_XDECREF(root);
        PyErr_Clear();
    }
    PyObject *mod = PyImport_ImportModule("npu_emu.capi._bridge");
    if (!mod) {
        keep_python_error("cannot import npu_emu.capi._bridge (" NPU_EMU_PYTHON ", " NPU_EMU_ROOT ")");
        return -1;
    }
    for (int i = 0; i < B_COUNT; i++) {
        bridge_fn[i] = PyObject_GetAttrString(mod, bridge_names[i]);
        if (!bridge_fn[i]) {
            Py_DECREF(mod);
            keep_python_error("npu_emu.capi._bridge lacks a function (rebuild: npu-emu build-capi)");
            return -1;
        }
    }
    Py_DECREF(mod);
    PyObject *ops = PyTuple_New(CAPI_OP_COUNT);
    for (int i = 0; ops && i < CAPI_OP_COUNT; i++)
        PyTuple_SET_ITEM(ops, i, PyUnicode_FromString(op_names[i]));
    PyObject *r = ops ? PyObject_CallFunction(bridge_fn[B__start], "Oi", ops, embedded) : NULL;
    Py_XDECREF(ops);
    if (!r) {
        keep_python_error("the library does not match npu_emu");
        return -1;
    }
    Py_DECREF(r);
    return 1;
}

static void start(void)
{
    int embedded = !Py_IsInitialized();
    if (embedded) {
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        config.install_signal_handlers = 0; /* signals stay the C program's */
        config.parse_argv = 0;
        PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, NPU_EMU_PYTHON);
        if (!PyStatus_Exception(st))
            st = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(st)) {
            snprintf(start_error, sizeof start_error,
                     "npu_emu C ABI: cannot start the Python interpreter " NPU_EMU_PYTHON ": %s",
                     st.err_msg ? st.err_msg : "unknown error");
            started = -1;
            fprintf(stderr, "%s\n", start_error);
            return;
        }
    }
    PyGILState_STATE g = PyGILState_Ensure();
    started = load_bridge(embedded);
    PyGILState_Release(g);
    if (started < 0)
        fprintf(stderr, "%s\n", start_error);
    if (embedded) {
        PyEval_SaveThread(); /* the GIL is taken per call from now on */
        if (started > 0)
            atexit(at_exit);
    }
}

static int ready(void)
{
    pthread_once(&start_once, start);
    return started > 0;
}

/* --------------------------------------------------------------------- the calls */

/* An output parameter: where to write value `kind` ('K' uint64/size_t, 'L' int64, 'i' int32
 * or enum, 'u' uint32, 'f' float, 'H' a pointer or handle, 'A' an int64 array allocated with
 * malloc, whose count goes to the next output, 'N'). */
typedef struct {
    char kind;
    const char *ctype;
    const char *name;
    void *ptr;
} capi_out;

#define OUT(kind, ctype, p) {kind, ctype, #p, (void *)(p)}
#define N_OUT(outs) ((int)(sizeof(outs) / sizeof((outs)[0])))

static int32_t internal_code(int family)
{
    return family == FAMILY_ACLNN ? ACLNN_ERR_INNER : ACL_ERROR_INTERNAL_ERROR;
}

static int write_out(const capi_out *o, PyObject *v)
{
    if (o->kind == 'A') {
        Py_ssize_t n = v == Py_None ? 0 : PySequence_Size(v);
        int64_t *a = n > 0 ? malloc((size_t)n * sizeof(int64_t)) : NULL;
        if (n < 0 || (n > 0 && !a)) {
            free(a);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PySequence_GetItem(v, i);
            a[i] = item ? PyLong_AsLongLong(item) : 0;
            Py_XDECREF(item);
        }
        if (PyErr_Occurred()) {
            free(a);
            return -1;
        }
        *(int64_t **)o->ptr = a;
        *(uint64_t *)o[1].ptr = (uint64_t)n;
        return 0;
    }
    int none = v == Py_None;
    switch (o->kind) {
    case 'K': *(uint64_t *)o->ptr = none ? 0 : PyLong_AsUnsignedLongLongMask(v); break;
    case 'L': *(int64_t *)o->ptr = none ? 0 : PyLong_AsLongLong(v); break;
    case 'i': *(int32_t *)o->ptr = none ? 0 : (int32_t)PyLong_AsLong(v); break;
    case 'u': *(uint32_t *)o->ptr = none ? 0 : (uint32_t)PyLong_AsUnsignedLongMask(v); break;
    case 'f': *(float *)o->ptr = none ? 0.0f : (float)PyFloat_AsDouble(v); break;
    case 'H': *(void **)o->ptr = none ? NULL : (void *)(uintptr_t)PyLong_AsUnsignedLongLongMask(v); break;
    default: return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* The status of a bridge result, `code` or (code, values...), writing the values to `outs`
 * when the code is 0. */
static int32_t take(PyObject *res, int family, int n_out, const capi_out *outs)
{
    if (!res) {
        PyErr_Print();
        return internal_code(family);
    }
    int is_tuple = PyTuple_Check(res);
    PyObject *code_obj = is_tuple ? (PyTuple_GET_SIZE(res) ? PyTuple_GET_ITEM(res, 0) : NULL) : res;
    long code = code_obj ? PyLong_AsLong(code_obj) : -1;
    if (PyErr_Occurred() || !code_obj) {
        PyErr_Print();
        return internal_code(family);
    }
    if (code != 0 || n_out == 0)
        return (int32_t)code;
    Py_ssize_t j = 1;
    for (int i = 0; i < n_out; i++) {
        if (!is_tuple || j >= PyTuple_GET_SIZE(res) || write_out(&outs[i], PyTuple_GET_ITEM(res, j)) < 0) {
            PyErr_Clear();
            fprintf(stderr, "npu_emu C ABI: a bridge result does not fit its C outputs\n");
            return internal_code(family);
        }
        j++;
        if (outs[i].kind == 'A')
            i++; /* the count was written with the array */
    }
    return (int32_t)code;
}

/* Call bridge function `fn` with the arguments `fmt` builds (Py_BuildValue, a tuple),
 * preceded by `lead` when it is >= 0; null output pointers are refused by the bridge's
 * null_output (CANN's message) before anything runs. */
static int32_t vinvoke(int family, int fn, int lead, int n_out, const capi_out *outs,
                       const char *fmt, va_list ap)
{
    if (!ready())
        return internal_code(family);
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *res = NULL;
    int null_out = -1;
    for (int i = 0; i < n_out && null_out < 0; i++)
        if (!outs[i].ptr)
            null_out = i;
    if (null_out >= 0) {
        char fname[128]; /* the C function's name (phase one: the operator's) */
        if (fn == B_phase_one)
            snprintf(fname, sizeof fname, "%sGetWorkspaceSize", op_names[lead]);
        else
            snprintf(fname, sizeof fname, "%s", bridge_names[fn]);
        res = PyObject_CallFunction(bridge_fn[B_null_output], "sss", fname, outs[null_out].ctype,
                                    outs[null_out].name);
    } else {
        PyObject *args = Py_VaBuildValue(fmt, ap);
        if (args && lead >= 0) {
            Py_ssize_t n = PyTuple_GET_SIZE(args);
            PyObject *all = PyTuple_New(n + 1);
            if (all) {
                PyTuple_SET_ITEM(all, 0, PyLong_FromLong(lead));
                for (Py_ssize_t i = 0; i < n; i++) {
                    PyObject *item = PyTuple_GET_ITEM(args, i);
                    Py_INCREF(item);
                    PyTuple_SET_ITEM(all, i + 1, item);
                }
            }
            Py_DECREF(args);
            args = all;
        }
        if (args)
            res = PyObject_Call(bridge_fn[fn], args, NULL);
        Py_XDECREF(args);
    }
    int32_t code = take(res, family, n_out, outs);
    Py_XDECREF(res);
    PyGILState_Release(g);
    return code;
}

static int32_t invoke(int family, int fn, int n_out, const capi_out *outs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int32_t code = vinvoke(family, fn, -1, n_out, outs, fmt, ap);
    va_end(ap);
    return code;
}

#define ACL_CALL(fn, ...) invoke(FAMILY_ACL, B_##fn, 0, NULL, __VA_ARGS__)
#define ACL_CALL_OUT(fn, outs, ...) invoke(FAMILY_ACL, B_##fn, N_OUT(outs), outs, __VA_ARGS__)
#define NN_CALL(fn, ...) invoke(FAMILY_ACLNN, B_##fn, 0, NULL, __VA_ARGS__)
#define NN_CALL_OUT(fn, outs, ...) invoke(FAMILY_ACLNN, B_##fn, N_OUT(outs), outs, __VA_ARGS__)

/* A constructor: the handle, or NULL (the reason kept for aclGetRecentErrMsg). */
static void *construct(int fn, const char *fmt, ...)
{
    void *handle = NULL;
    capi_out outs[] = {OUT('H', "void *", &handle)};
    va_list ap;
    va_start(ap, fmt);
    int32_t code = vinvoke(FAMILY_ACLNN, fn, -1, 1, outs, fmt, ap);
    va_end(ap);
    return code == 0 ? handle : NULL;
}

static aclnnStatus capi_phase_one(int op, uint64_t *workspaceSize, aclOpExecutor **executor,
                                  const char *fmt, ...)
{
    capi_out outs[] = {OUT('K', "uint64_t *", workspaceSize), OUT('H', "aclOpExecutor **", executor)};
    va_list ap;
    va_start(ap, fmt);
    int32_t code = vinvoke(FAMILY_ACLNN, B_phase_one, op, N_OUT(outs), outs, fmt, ap);
    va_end(ap);
    return code;
}

static aclnnStatus capi_phase_two(int op, void *workspace, uint64_t workspaceSize,
                                  aclOpExecutor *executor, aclrtStream stream)
{
    return NN_CALL(phase_two, "(iKKKK)", op, CAPI_H(workspace), (unsigned long long)workspaceSize,
                   CAPI_H(executor), CAPI_H(stream));
}

/* A string result, kept per thread until that thread's next call of `fn`. */
static const char *string_call(int fn, char **keep, const char *fallback)
{
    if (!ready())
        return fn == B_aclGetRecentErrMsg ? start_error : NULL;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *res = PyObject_CallNoArgs(bridge_fn[fn]);
    const char *s = res ? PyUnicode_AsUTF8(res) : NULL;
    free(*keep);
    *keep = s ? strdup(s) : NULL;
    if (!s)
        PyErr_Print();
    Py_XDECREF(res);
    PyGILState_Release(g);
    return *keep ? *keep : fallback;
}

static __thread char *recent_message, *soc_name;

/* ------------------------------------------------------------------ aclnn base */

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void)
{
    return string_call(B_aclGetRecentErrMsg, &recent_message, "");
}

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData)
{
    return construct(B_aclCreateTensor, "(KKiKLiKKK)", CAPI_H(viewDims), (unsigned long long)viewDimsNum,
                     (int)dataType, CAPI_H(stride), (long long)offset, (int)format, CAPI_H(storageDims),
                     (unsigned long long)storageDimsNum, CAPI_H(tensorData));
}

ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    return construct(B_aclCreateScalar, "(Ki)", CAPI_H(value), (int)dataType);
}

#define CAPI_ARRAY_CONSTRUCTOR(ret_t, name, elem_t)                                    \
    ACL_FUNC_VISIBILITY ret_t *name(elem_t value, uint64_t size)                       \
    {                                                                                   \
        return construct(B_##name, "(KK)", CAPI_H(value), (unsigned long long)size);   \
    }
CAPI_ARRAY_CONSTRUCTOR(aclIntArray, aclCreateIntArray, const int64_t *)
CAPI_ARRAY_CONSTRUCTOR(aclFloatArray, aclCreateFloatArray, const float *)
CAPI_ARRAY_CONSTRUCTOR(aclBoolArray, aclCreateBoolArray, const bool *)
CAPI_ARRAY_CONSTRUCTOR(aclTensorList, aclCreateTensorList, const aclTensor *const *)

#define CAPI_DESTROYER(name, obj_t)                                \
    ACL_FUNC_VISIBILITY aclnnStatus name(const obj_t *obj)         \
    {                                                              \
        return NN_CALL(name, "(K)", CAPI_H(obj));                  \
    }
CAPI_DESTROYER(aclDestroyTensor, aclTensor)
CAPI_DESTROYER(aclDestroyScalar, aclScalar)
CAPI_DESTROYER(aclDestroyIntArray, aclIntArray)
CAPI_DESTROYER(aclDestroyFloatArray, aclFloatArray)
CAPI_DESTROYER(aclDestroyBoolArray, aclBoolArray)
CAPI_DESTROYER(aclDestroyTensorList, aclTensorList)

#define CAPI_ARRAY_GETTER(name, values, count)                                          \
    ACL_FUNC_VISIBILITY aclnnStatus name(const aclTensor *tensor, int64_t **values,     \
                                         uint64_t *count)                               \
    {                                                                                   \
        capi_out outs[] = {OUT('A', "int64_t **", values), OUT('N', "uint64_t *", count)}; \
        return NN_CALL_OUT(name, outs, "(K)", CAPI_H(tensor));                          \
    }
CAPI_ARRAY_GETTER(aclGetViewShape, viewDims, viewDimsNum)
CAPI_ARRAY_GETTER(aclGetViewStrides, stridesValue, stridesNum)
CAPI_ARRAY_GETTER(aclGetStorageShape, storageDims, storageDimsNum)

#define CAPI_VALUE_GETTER(name, kind, value_t, value)                                 \
    ACL_FUNC_VISIBILITY aclnnStatus name(const aclTensor *tensor, value_t *value)      \
    {                                                                                  \
        capi_out outs[] = {OUT(kind, #value_t " *", value)};                           \
        return NN_CALL_OUT(name, outs, "(K)", CAPI_H(tensor));                         \
    }
CAPI_VALUE_GETTER(aclGetViewOffset, 'L', int64_t, offset)
CAPI_VALUE_GETTER(aclGetFormat, 'i', aclFormat, format)
CAPI_VALUE_GETTER(aclGetDataType, 'i', aclDataType, dataType)

ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    return NN_CALL(aclSetAclOpExecutorRepeatable, "(K)", CAPI_H(executor));
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    return NN_CALL(aclDestroyAclOpExecutor, "(K)", CAPI_H(executor));
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                      aclTensor *tensor, void *addr)
{
    return NN_CALL(aclSetInputTensorAddr, "(KKKK)", CAPI_H(executor), (unsigned long long)index,
                   CAPI_H(tensor), CAPI_H(addr));
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                       aclTensor *tensor, void *addr)
{
    return NN_CALL(aclSetOutputTensorAddr, "(KKKK)", CAPI_H(executor), (unsigned long long)index,
                   CAPI_H(tensor), CAPI_H(addr));
}

/* ------------------------------------------------------------------------ operators */

ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(
    const aclTensor *srcTensor, const int dstFormat, int additionalDtype, int64_t **dstShape,
    uint64_t *dstShapeSize, int *actualFormat)
{
    capi_out outs[] = {OUT('A', "int64_t **", dstShape), OUT('N', "uint64_t *", dstShapeSize),
                       OUT('i', "int *", actualFormat)};
    return NN_CALL_OUT(aclnnNpuFormatCastCalculateSizeAndFormat, outs, "(Kii)", CAPI_H(srcTensor),
                       dstFormat, additionalDtype);
}

#include "npu_emu_capi_ops.inc" /* the two-phase forwarders of every operator */

/* -------------------------------------------------------------------------- runtime */

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath)
{
    return ACL_CALL(aclInit, "(y)", configPath); /* NULL -> None */
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void) { return ACL_CALL(aclFinalize, "()"); }
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) { return ACL_CALL(aclrtSetDevice, "(i)", deviceId); }
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) { return ACL_CALL(aclrtResetDevice, "(i)", deviceId); }
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) { return ACL_CALL(aclrtSynchronizeDevice, "()"); }

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId)
{
    capi_out outs[] = {OUT('i', "int32_t *", deviceId)};
    return ACL_CALL_OUT(aclrtGetDevice, outs, "()");
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count)
{
    capi_out outs[] = {OUT('u', "uint32_t *", count)};
    return ACL_CALL_OUT(aclrtGetDeviceCount, outs, "()");
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    capi_out outs[] = {OUT('H', "aclrtContext *", context)};
    return ACL_CALL_OUT(aclrtCreateContext, outs, "(i)", deviceId);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context)
{
    return ACL_CALL(aclrtDestroyContext, "(K)", CAPI_H(context));
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context)
{
    return ACL_CALL(aclrtSetCurrentContext, "(K)", CAPI_H(context));
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context)
{
    capi_out outs[] = {OUT('H', "aclrtContext *", context)};
    return ACL_CALL_OUT(aclrtGetCurrentContext, outs, "()");
}

ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void)
{
    return string_call(B_aclrtGetSocName, &soc_name, NULL);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream)
{
    capi_out outs[] = {OUT('H', "aclrtStream *", stream)};
    return ACL_CALL_OUT(aclrtCreateStream, outs, "()");
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream)
{
    return ACL_CALL(aclrtDestroyStream, "(K)", CAPI_H(stream));
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return ACL_CALL(aclrtSynchronizeStream, "(K)", CAPI_H(stream));
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event)
{
    capi_out outs[] = {OUT('H', "aclrtEvent *", event)};
    return ACL_CALL_OUT(aclrtCreateEvent, outs, "()");
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event)
{
    return ACL_CALL(aclrtDestroyEvent, "(K)", CAPI_H(event));
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return ACL_CALL(aclrtRecordEvent, "(KK)", CAPI_H(event), CAPI_H(stream));
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return ACL_CALL(aclrtSynchronizeEvent, "(K)", CAPI_H(event));
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    capi_out outs[] = {OUT('i', "aclrtEventRecordedStatus *", status)};
    return ACL_CALL_OUT(aclrtQueryEventStatus, outs, "(K)", CAPI_H(event));
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return ACL_CALL(aclrtStreamWaitEvent, "(KK)", CAPI_H(stream), CAPI_H(event));
}

ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    capi_out outs[] = {OUT('f', "float *", ms)};
    return ACL_CALL_OUT(aclrtEventElapsedTime, outs, "(KK)", CAPI_H(startEvent), CAPI_H(endEvent));
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    capi_out outs[] = {OUT('H', "void **", devPtr)};
    return ACL_CALL_OUT(aclrtMalloc, outs, "(Ki)", (unsigned long long)size, (int)policy);
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr) { return ACL_CALL(aclrtFree, "(K)", CAPI_H(devPtr)); }

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    capi_out outs[] = {OUT('H', "void **", hostPtr)};
    return ACL_CALL_OUT(aclrtMallocHost, outs, "(K)", (unsigned long long)size);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr) { return ACL_CALL(aclrtFreeHost, "(K)", CAPI_H(hostPtr)); }

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind)
{
    return ACL_CALL(aclrtMemcpy, "(KKKKi)", CAPI_H(dst), (unsigned long long)destMax, CAPI_H(src),
                    (unsigned long long)count, (int)kind);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream)
{
    return ACL_CALL(aclrtMemcpyAsync, "(KKKKiK)", CAPI_H(dst), (unsigned long long)destMax, CAPI_H(src),
                    (unsigned long long)count, (int)kind, CAPI_H(stream));
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    return ACL_CALL(aclrtMemset, "(KKiK)", CAPI_H(devPtr), (unsigned long long)maxCount, (int)value,
                    (unsigned long long)count);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream)
{
    return ACL_CALL(aclrtMemsetAsync, "(KKiKK)", CAPI_H(devPtr), (unsigned long long)maxCount, (int)value,
                    (unsigned long long)count, CAPI_H(stream));
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    capi_out outs[] = {OUT('K', "size_t *", free), OUT('K', "size_t *", total)};
    return ACL_CALL_OUT(aclrtGetMemInfo, outs, "(i)", (int)attr);
}
