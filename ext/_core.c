/* unitensor._core: the Buffer, one owner of foreign array memory.
 *
 * Ownership rules (everything below relies on them):
 *
 * 1. A Buffer owns exactly one source of memory, chosen at import and never
 *    changed: a DLPack managed tensor (versioned or legacy), a strong reference
 *    to an __array_interface__ / __cuda_array_interface__ exporter (`base`), a
 *    buffer-protocol view of `base`, or memory it allocated itself (`owned`).
 * 2. An imported DLPack deleter is called in exactly one place, release_source(),
 *    which runs once, from the Buffer's deallocation, with the GIL held. A
 *    capsule is renamed to "used_*" only after every validation has passed, so a
 *    rejected capsule still belongs to its producer, who frees it.
 * 3. Every export (__dlpack__) allocates a new Export whose manager_ctx holds a
 *    strong reference to the Buffer; one import can thus serve any number of
 *    consumers. The Export's deleter runs exactly once: from the consumer, or
 *    from the capsule destructor if nobody consumed the capsule. It takes the
 *    GIL itself (a consumer may call it from any thread) and, once the
 *    interpreter is finalizing, does nothing: leaking at exit beats crashing.
 * 4. Buffer protocol exports and __array_interface__ dicts point into the
 *    Buffer's own metadata and memory; numpy and memoryview keep the Buffer
 *    alive through view->obj / the array's base.
 * 5. The metadata (shape, strides, dtype, device) is copied out at import, so
 *    it never depends on the producer's structs after validation.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlpack.h"

#define MAX_NDIM 64
#define MAX_ALIGNMENT 4096

static const char CAPSULE_VERSIONED[] = "dltensor_versioned";
static const char CAPSULE_LEGACY[] = "dltensor";
static const char CAPSULE_USED_VERSIONED[] = "used_dltensor_versioned";
static const char CAPSULE_USED_LEGACY[] = "used_dltensor";

typedef enum {
    SOURCE_DLPACK_VERSIONED,
    SOURCE_DLPACK,
    SOURCE_ARRAY_INTERFACE,
    SOURCE_CUDA_ARRAY_INTERFACE,
    SOURCE_BUFFER,
    SOURCE_OWNED,
} Source;

static const char *const SOURCE_NAMES[] = {
    "dlpack_versioned", "dlpack", "array_interface", "cuda_array_interface",
    "buffer", "owned",
};

typedef struct {
    PyObject_HEAD
    /* What is owned (rule 1): exactly one of these is in use. */
    Source source;
    DLManagedTensorVersioned *managed_versioned;
    DLManagedTensor *managed_legacy;
    PyObject *base;
    Py_buffer view;
    bool has_view;
    void *owned;
    /* Metadata, copied at import (rule 5). */
    char *data; /* address of element [0, ..., 0] */
    uint64_t byte_offset;
    int ndim;
    DLDataType dtype;
    DLDevice device;
    bool readonly;
    bool is_copied;
    int version_major; /* -1 when the source had no DLPack version */
    int version_minor;
    PyObject *stream;
    int64_t shape[MAX_NDIM];
    int64_t strides[MAX_NDIM]; /* in elements */
    Py_ssize_t view_shape[MAX_NDIM];
    Py_ssize_t view_strides[MAX_NDIM]; /* in bytes, for the buffer protocol */
    PyObject *weakreflist;
} Buffer;

/* One export: the managed tensor handed to a consumer (rule 3). */
typedef struct {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } managed;
    Buffer *owner;
    int64_t dims[]; /* shape, then strides */
} Export;

static PyTypeObject BufferType;

static struct {
    Py_ssize_t buffers_alive;
    Py_ssize_t capsules_exported;
    Py_ssize_t exported_alive;
    Py_ssize_t imported_deleters_run;
} stats;

/* ---------------------------------------------------------------- errors --- */

/* The one error helper: "{func}(): {arg}: expected {accepted}, got {received}". */
static PyObject *
arg_error(PyObject *exc, const char *func, const char *arg, const char *accepted,
          const char *received_fmt, ...)
{
    va_list va;
    va_start(va, received_fmt);
    PyObject *received = PyUnicode_FromFormatV(received_fmt, va);
    va_end(va);
    if (received == NULL) {
        return NULL;
    }
    PyErr_Format(exc, "%s(): %s: expected %s, got %U", func, arg, accepted, received);
    Py_DECREF(received);
    return NULL;
}

static bool
interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return !Py_IsInitialized() || Py_IsFinalizing();
#else
    return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

/* ----------------------------------------------------------------- dtypes --- */

static bool
dtype_supported(DLDataType dt)
{
    if (dt.lanes != 1) {
        return false;
    }
    switch (dt.code) {
    case kDLInt:
    case kDLUInt:
        return dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
    case kDLFloat:
        return dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
    case kDLBfloat:
        return dt.bits == 16;
    case kDLComplex:
        return dt.bits == 64 || dt.bits == 128;
    case kDLBool:
        return dt.bits == 8;
    default:
        return false;
    }
}

static const char DTYPES_ACCEPTED[] =
    "a dtype of bool8, int/uint 8-64, float 16-64, bfloat16 or complex 64/128 with "
    "lanes=1";

static int
check_dtype(DLDataType dt, PyObject *exc, const char *func, const char *arg)
{
    if (dt.lanes != 1) {
        arg_error(exc, func, arg, DTYPES_ACCEPTED, "lanes=%d (code=%d, bits=%d)",
                  (int)dt.lanes, (int)dt.code, (int)dt.bits);
        return -1;
    }
    if (!dtype_supported(dt)) {
        arg_error(exc, func, arg, DTYPES_ACCEPTED, "dtype code=%d, bits=%d",
                  (int)dt.code, (int)dt.bits);
        return -1;
    }
    return 0;
}

/* The struct-module format of a dtype (NULL for bfloat16, which has none). */
static const char *
struct_format(DLDataType dt)
{
    switch (dt.code) {
    case kDLBool:
        return "?";
    case kDLInt:
        return dt.bits == 8 ? "b" : dt.bits == 16 ? "h" : dt.bits == 32 ? "i" : "q";
    case kDLUInt:
        return dt.bits == 8 ? "B" : dt.bits == 16 ? "H" : dt.bits == 32 ? "I" : "Q";
    case kDLFloat:
        return dt.bits == 16 ? "e" : dt.bits == 32 ? "f" : "d";
    case kDLComplex:
        return dt.bits == 64 ? "Zf" : "Zd";
    default:
        return NULL;
    }
}

/* The __array_interface__ typestr; bfloat16 travels as opaque '|V2'. */
static void
typestr(DLDataType dt, char out[8])
{
    const char order = PY_LITTLE_ENDIAN ? '<' : '>';
    int itemsize = dt.bits / 8;
    switch (dt.code) {
    case kDLBool:
        strcpy(out, "|b1");
        return;
    case kDLBfloat:
        strcpy(out, "|V2");
        return;
    case kDLInt:
        snprintf(out, 8, "%ci%d", itemsize == 1 ? '|' : order, itemsize);
        return;
    case kDLUInt:
        snprintf(out, 8, "%cu%d", itemsize == 1 ? '|' : order, itemsize);
        return;
    case kDLFloat:
        snprintf(out, 8, "%cf%d", order, itemsize);
        return;
    default:
        snprintf(out, 8, "%cc%d", order, itemsize);
        return;
    }
}

static bool
device_known(int32_t type)
{
    switch (type) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLOpenCL:
    case kDLVulkan:
    case kDLMetal:
    case kDLVPI:
    case kDLROCM:
    case kDLROCMHost:
    case kDLExtDev:
    case kDLCUDAManaged:
    case kDLOneAPI:
    case kDLWebGPU:
    case kDLHexagon:
    case kDLMAIA:
        return true;
    default:
        return false;
    }
}

static bool
cpu_readable(DLDevice dev)
{
    return dev.device_type == kDLCPU || dev.device_type == kDLCUDAHost ||
           dev.device_type == kDLROCMHost || dev.device_type == kDLCUDAManaged;
}

static bool
cuda_readable(DLDevice dev)
{
    return dev.device_type == kDLCUDA || dev.device_type == kDLCUDAManaged;
}

/* --------------------------------------------------------------- layout --- */

static int64_t
itemsize_of(const Buffer *b)
{
    return b->dtype.bits / 8;
}

static int64_t
size_of(const Buffer *b)
{
    int64_t n = 1;
    for (int i = 0; i < b->ndim; i++) {
        n *= b->shape[i];
    }
    return n;
}

static bool
is_c_contiguous(const Buffer *b)
{
    int64_t expected = 1;
    for (int i = b->ndim - 1; i >= 0; i--) {
        if (b->shape[i] == 0) {
            return true;
        }
        if (b->shape[i] != 1 && b->strides[i] != expected) {
            return false;
        }
        expected *= b->shape[i];
    }
    return true;
}

static bool
is_f_contiguous(const Buffer *b)
{
    int64_t expected = 1;
    for (int i = 0; i < b->ndim; i++) {
        if (b->shape[i] == 0) {
            return true;
        }
        if (b->shape[i] != 1 && b->strides[i] != expected) {
            return false;
        }
        expected *= b->shape[i];
    }
    return true;
}

/* Check shape/strides of b (already copied in) for overflow and fill the
 * buffer-protocol arrays. `data_is_null` makes a non-empty tensor an error. */
static int
finish_layout(Buffer *b, bool data_is_null, const char *func)
{
    int64_t itemsize = itemsize_of(b);
    int64_t size = 1;
    for (int i = 0; i < b->ndim; i++) {
        if (b->shape[i] < 0) {
            arg_error(PyExc_BufferError, func, "shape", "non-negative dimensions",
                      "dimension %d of size %lld", i, (long long)b->shape[i]);
            return -1;
        }
        if (__builtin_mul_overflow(size, b->shape[i], &size)) {
            arg_error(PyExc_BufferError, func, "shape", "a size that fits in int64",
                      "an overflowing shape");
            return -1;
        }
    }
    int64_t nbytes, extent = 0;
    if (__builtin_mul_overflow(size, itemsize, &nbytes) || nbytes > PY_SSIZE_T_MAX) {
        arg_error(PyExc_BufferError, func, "shape", "a byte size that fits in memory",
                  "an overflowing size");
        return -1;
    }
    if (size > 0) {
        for (int i = 0; i < b->ndim; i++) {
            int64_t span, stride = b->strides[i];
            if (stride == INT64_MIN ||
                __builtin_mul_overflow(b->shape[i] - 1, stride < 0 ? -stride : stride,
                                       &span) ||
                __builtin_mul_overflow(span, itemsize, &span) ||
                __builtin_add_overflow(extent, span, &extent) ||
                span > PY_SSIZE_T_MAX || extent > PY_SSIZE_T_MAX) {
                arg_error(PyExc_BufferError, func, "strides",
                          "strides whose extent fits in memory",
                          "stride %lld on dimension %d", (long long)stride, i);
                return -1;
            }
        }
        if (data_is_null) {
            arg_error(PyExc_BufferError, func, "data",
                      "a non-NULL data pointer for a non-empty tensor",
                      "NULL data with %lld elements", (long long)size);
            return -1;
        }
    }
    for (int i = 0; i < b->ndim; i++) {
        b->view_shape[i] = (Py_ssize_t)b->shape[i];
        b->view_strides[i] = (Py_ssize_t)(b->strides[i] * itemsize);
    }
    return 0;
}

static void
compact_strides(Buffer *b)
{
    int64_t stride = 1;
    for (int i = b->ndim - 1; i >= 0; i--) {
        b->strides[i] = stride;
        stride *= b->shape[i] > 0 ? b->shape[i] : 1;
    }
}

/* ---------------------------------------------------------- Buffer life --- */

static Buffer *
buffer_new(Source source)
{
    Buffer *b = PyObject_GC_New(Buffer, &BufferType);
    if (b == NULL) {
        return NULL;
    }
    b->source = source;
    b->managed_versioned = NULL;
    b->managed_legacy = NULL;
    b->base = NULL;
    b->has_view = false;
    b->owned = NULL;
    b->data = NULL;
    b->byte_offset = 0;
    b->ndim = 0;
    b->dtype = (DLDataType){kDLFloat, 64, 1};
    b->device = (DLDevice){kDLCPU, 0};
    b->readonly = false;
    b->is_copied = false;
    b->version_major = -1;
    b->version_minor = -1;
    b->stream = Py_NewRef(Py_None);
    b->weakreflist = NULL;
    stats.buffers_alive++;
    PyObject_GC_Track(b);
    return b;
}

/* The only place an imported DLPack deleter runs (rule 2). */
static void
release_source(Buffer *b)
{
    if (b->managed_versioned != NULL) {
        DLManagedTensorVersioned *m = b->managed_versioned;
        b->managed_versioned = NULL;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
        stats.imported_deleters_run++;
    }
    if (b->managed_legacy != NULL) {
        DLManagedTensor *m = b->managed_legacy;
        b->managed_legacy = NULL;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
        stats.imported_deleters_run++;
    }
    if (b->has_view) {
        b->has_view = false;
        PyBuffer_Release(&b->view);
    }
    if (b->owned != NULL) {
        free(b->owned);
        b->owned = NULL;
    }
    Py_CLEAR(b->base);
}

static int
buffer_traverse(Buffer *b, visitproc visit, void *arg)
{
    Py_VISIT(b->base);
    if (b->has_view) {
        Py_VISIT(b->view.obj);
    }
    Py_VISIT(b->stream);
    return 0;
}

static int
buffer_clear(Buffer *b)
{
    /* Only the Python references: the memory they keep alive may go with them,
     * but the Buffer is unreachable garbage by then (CPython's memoryview does
     * the same). */
    if (b->has_view) {
        b->has_view = false;
        PyBuffer_Release(&b->view);
    }
    Py_CLEAR(b->base);
    Py_CLEAR(b->stream);
    return 0;
}

static void
buffer_dealloc(Buffer *b)
{
    PyObject_GC_UnTrack(b);
    if (b->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)b);
    }
    release_source(b);
    Py_CLEAR(b->stream);
    stats.buffers_alive--;
    PyObject_GC_Del(b);
}

/* ------------------------------------------------------ DLPack import --- */

/* Validate a DLTensor and copy its metadata into b; b takes no ownership. */
static int
load_dltensor(Buffer *b, const DLTensor *t, const char *func)
{
    if (t->ndim < 0 || t->ndim > MAX_NDIM) {
        arg_error(PyExc_BufferError, func, "ndim", "0 <= ndim <= 64", "ndim=%d",
                  (int)t->ndim);
        return -1;
    }
    if (check_dtype(t->dtype, PyExc_BufferError, func, "dtype") < 0) {
        return -1;
    }
    if (!device_known(t->device.device_type)) {
        arg_error(PyExc_BufferError, func, "device", "a DLPack device type",
                  "unknown device type %d", (int)t->device.device_type);
        return -1;
    }
    if (t->ndim > 0 && t->shape == NULL) {
        arg_error(PyExc_BufferError, func, "shape", "a shape array for ndim > 0",
                  "NULL shape with ndim=%d", (int)t->ndim);
        return -1;
    }
    b->ndim = t->ndim;
    b->dtype = t->dtype;
    b->device = t->device;
    b->byte_offset = t->byte_offset;
    for (int i = 0; i < b->ndim; i++) {
        b->shape[i] = t->shape[i];
    }
    if (t->strides == NULL || b->ndim == 0) {
        compact_strides(b); /* legacy producers may omit strides */
    }
    else {
        memcpy(b->strides, t->strides, sizeof(int64_t) * (size_t)b->ndim);
    }
    if (finish_layout(b, t->data == NULL, func) < 0) {
        return -1;
    }
    b->data = t->data == NULL ? NULL : (char *)t->data + t->byte_offset;
    return 0;
}

static PyObject *
from_capsule(PyObject *module, PyObject *capsule)
{
    static const char func[] = "from_capsule";
    static const char accepted[] =
        "a PyCapsule named 'dltensor_versioned' or 'dltensor'";
    if (!PyCapsule_CheckExact(capsule)) {
        return arg_error(PyExc_TypeError, func, "capsule", accepted,
                         "an object of type '%s'", Py_TYPE(capsule)->tp_name);
    }
    const char *name = PyCapsule_GetName(capsule);
    bool versioned = name != NULL && strcmp(name, CAPSULE_VERSIONED) == 0;
    bool legacy = name != NULL && strcmp(name, CAPSULE_LEGACY) == 0;
    if (!versioned && !legacy) {
        if (name != NULL && (strcmp(name, CAPSULE_USED_VERSIONED) == 0 ||
                             strcmp(name, CAPSULE_USED_LEGACY) == 0)) {
            return arg_error(PyExc_ValueError, func, "capsule", accepted,
                             "a capsule that was already consumed (named '%s')",
                             name);
        }
        return arg_error(PyExc_TypeError, func, "capsule", accepted,
                         "a capsule named '%s'", name == NULL ? "NULL" : name);
    }
    void *pointer = PyCapsule_GetPointer(capsule, name);
    if (pointer == NULL) {
        return NULL;
    }
    Buffer *b = buffer_new(versioned ? SOURCE_DLPACK_VERSIONED : SOURCE_DLPACK);
    if (b == NULL) {
        return NULL;
    }
    const DLTensor *tensor;
    uint64_t flags = 0;
    if (versioned) {
        DLManagedTensorVersioned *m = pointer;
        if (m->version.major != UT_DLPACK_MAJOR) {
            arg_error(PyExc_BufferError, func, "capsule", "DLPack major version 1",
                      "version %u.%u", m->version.major, m->version.minor);
            goto fail;
        }
        flags = m->flags;
        b->version_major = (int)m->version.major;
        b->version_minor = (int)m->version.minor;
        tensor = &m->dl_tensor;
    }
    else {
        tensor = &((DLManagedTensor *)pointer)->dl_tensor;
    }
    if (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) {
        arg_error(PyExc_BufferError, func, "capsule", "whole-byte dtypes",
                  "the IS_SUBBYTE_TYPE_PADDED flag");
        goto fail;
    }
    if (load_dltensor(b, tensor, func) < 0) {
        goto fail;
    }
    /* Every check passed: only now take ownership (rule 2). */
    if (PyCapsule_SetName(capsule, versioned ? CAPSULE_USED_VERSIONED
                                             : CAPSULE_USED_LEGACY) < 0) {
        goto fail;
    }
    if (versioned) {
        b->managed_versioned = pointer;
    }
    else {
        b->managed_legacy = pointer;
    }
    b->readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    b->is_copied = (flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0;
    return (PyObject *)b;
fail:
    Py_DECREF(b);
    return NULL;
}

/* ------------------------------------------- array interface imports --- */

static int
parse_typestr(Buffer *b, PyObject *typestr_obj, const char *func)
{
    const char *accepted = "a typestr of kind b, i, u, f or c in native byte order";
    if (!PyUnicode_Check(typestr_obj)) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "%R", typestr_obj);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(typestr_obj);
    if (s == NULL) {
        return -1;
    }
    char order = s[0], kind = s[0] ? s[1] : 0;
    char *end = NULL;
    long itemsize = kind ? strtol(s + 2, &end, 10) : 0;
    if (!kind || end == s + 2 || *end != '\0' || itemsize <= 0 || itemsize > 16) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    char foreign = PY_LITTLE_ENDIAN ? '>' : '<';
    if (order == foreign && itemsize > 1) {
        arg_error(PyExc_BufferError, func, "typestr",
                  "native byte order (swap it first)", "byte order of '%s'", s);
        return -1;
    }
    DLDataType dt = {0, (uint8_t)(itemsize * 8), 1};
    switch (kind) {
    case 'b':
        dt.code = kDLBool;
        break;
    case 'i':
        dt.code = kDLInt;
        break;
    case 'u':
        dt.code = kDLUInt;
        break;
    case 'f':
        dt.code = kDLFloat;
        break;
    case 'c':
        dt.code = kDLComplex;
        break;
    default:
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    if (!dtype_supported(dt)) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    b->dtype = dt;
    return 0;
}

/* Read an int tuple into out[]; returns its length or -1. */
static int
int_tuple(PyObject *obj, int64_t *out, int max, const char *func, const char *arg)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) > max) {
        arg_error(PyExc_BufferError, func, arg, "a tuple of at most 64 ints", "%R",
                  obj);
        return -1;
    }
    int n = (int)PyTuple_GET_SIZE(obj);
    for (int i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(obj, i));
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            arg_error(PyExc_BufferError, func, arg, "a tuple of ints", "%R", obj);
            return -1;
        }
        out[i] = v;
    }
    return n;
}

/* dtype_override (code, bits) replaces the typestr's kind for dtypes that the
 * array interface cannot name (ml_dtypes' bfloat16 is '|V2'); the item sizes
 * must agree. */
static PyObject *
import_interface(PyObject *obj, const char *attr, Source source, DLDevice device,
                 const DLDataType *dtype_override, const char *func)
{
    PyObject *iface = PyObject_GetAttrString(obj, attr);
    if (iface == NULL) {
        return NULL;
    }
    Buffer *b = NULL;
    if (!PyDict_Check(iface)) {
        arg_error(PyExc_BufferError, func, attr, "a dict", "%R", iface);
        goto fail;
    }
    b = buffer_new(source);
    if (b == NULL) {
        goto fail;
    }
    b->device = device;
    PyObject *typestr_obj = PyDict_GetItemString(iface, "typestr");
    PyObject *shape = PyDict_GetItemString(iface, "shape");
    PyObject *data = PyDict_GetItemString(iface, "data");
    PyObject *strides = PyDict_GetItemString(iface, "strides");
    PyObject *mask = PyDict_GetItemString(iface, "mask");
    PyObject *stream = PyDict_GetItemString(iface, "stream");
    if (typestr_obj == NULL || shape == NULL || data == NULL) {
        arg_error(PyExc_BufferError, func, attr,
                  "a dict with 'typestr', 'shape' and 'data'", "%R", iface);
        goto fail;
    }
    if (mask != NULL && mask != Py_None) {
        arg_error(PyExc_BufferError, func, attr, "no mask", "a masked array");
        goto fail;
    }
    if (dtype_override != NULL) {
        const char *ts = PyUnicode_Check(typestr_obj) ? PyUnicode_AsUTF8(typestr_obj)
                                                      : NULL;
        if (ts == NULL || strlen(ts) < 3 || atoi(ts + 2) * 8 != dtype_override->bits) {
            PyErr_Clear();
            arg_error(PyExc_BufferError, func, "dtype",
                      "a dtype of the typestr's item size", "%R", typestr_obj);
            goto fail;
        }
        b->dtype = *dtype_override;
    }
    else if (parse_typestr(b, typestr_obj, func) < 0) {
        goto fail;
    }
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
        arg_error(PyExc_BufferError, func, "data", "a (pointer, read-only) tuple",
                  "%R", data);
        goto fail;
    }
    void *pointer = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (pointer == NULL && PyErr_Occurred()) {
        goto fail;
    }
    int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (readonly < 0) {
        goto fail;
    }
    int ndim = int_tuple(shape, b->shape, MAX_NDIM, func, "shape");
    if (ndim < 0) {
        goto fail;
    }
    b->ndim = ndim;
    if (strides == NULL || strides == Py_None) {
        compact_strides(b);
    }
    else {
        int64_t itemsize = itemsize_of(b);
        if (int_tuple(strides, b->strides, MAX_NDIM, func, "strides") != ndim) {
            if (!PyErr_Occurred()) {
                arg_error(PyExc_BufferError, func, "strides",
                          "one stride per dimension", "%R", strides);
            }
            goto fail;
        }
        for (int i = 0; i < ndim; i++) {
            if (b->shape[i] <= 1) {
                b->strides[i] = 1; /* never stepped: any value is valid */
                continue;
            }
            if (b->strides[i] % itemsize != 0) {
                arg_error(PyExc_BufferError, func, "strides",
                          "byte strides that are multiples of the item size",
                          "%R", strides);
                goto fail;
            }
            b->strides[i] /= itemsize;
        }
    }
    if (finish_layout(b, pointer == NULL, func) < 0) {
        goto fail;
    }
    b->data = pointer;
    b->readonly = readonly;
    if (stream != NULL) {
        Py_SETREF(b->stream, Py_NewRef(stream));
    }
    b->base = Py_NewRef(obj);
    Py_DECREF(iface);
    return (PyObject *)b;
fail:
    Py_XDECREF(b);
    Py_DECREF(iface);
    return NULL;
}

static PyObject *
from_array_interface(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "from_array_interface";
    static char *keywords[] = {"obj", "dtype", NULL};
    PyObject *obj, *dtype_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O:from_array_interface",
                                     keywords, &obj, &dtype_obj)) {
        return NULL;
    }
    DLDataType dtype = {0, 0, 1};
    if (dtype_obj != Py_None) {
        int code, bits, lanes;
        if (!PyArg_ParseTuple(dtype_obj, "iii", &code, &bits, &lanes)) {
            return NULL;
        }
        dtype = (DLDataType){(uint8_t)code, (uint8_t)bits, (uint16_t)lanes};
        if (code < 0 || code > 255 || bits < 0 || bits > 255 || lanes < 0 ||
            lanes > 65535 || check_dtype(dtype, PyExc_TypeError, func, "dtype") < 0) {
            if (!PyErr_Occurred()) {
                arg_error(PyExc_TypeError, func, "dtype", DTYPES_ACCEPTED, "%R",
                          dtype_obj);
            }
            return NULL;
        }
    }
    return import_interface(obj, "__array_interface__", SOURCE_ARRAY_INTERFACE,
                            (DLDevice){kDLCPU, 0},
                            dtype_obj == Py_None ? NULL : &dtype, func);
}

static PyObject *
from_cuda_array_interface(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"obj", "device_id", NULL};
    PyObject *obj;
    int device_id = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|i:from_cuda_array_interface",
                                     keywords, &obj, &device_id)) {
        return NULL;
    }
    return import_interface(obj, "__cuda_array_interface__",
                            SOURCE_CUDA_ARRAY_INTERFACE,
                            (DLDevice){kDLCUDA, device_id}, NULL,
                            "from_cuda_array_interface");
}

static int
parse_format(Buffer *b, const char *format, Py_ssize_t itemsize, const char *func)
{
    const char *accepted =
        "a buffer of bool, integers, float16/32/64 or complex in native byte order";
    const char *f = format == NULL ? "B" : format;
    if (*f == '>' || *f == '!') {
        if (PY_LITTLE_ENDIAN && itemsize > 1) {
            arg_error(PyExc_BufferError, func, "obj", "native byte order",
                      "byte order of format '%s'", f);
            return -1;
        }
        f++;
    }
    else if (*f == '@' || *f == '=' || *f == '<') {
        f++;
    }
    DLDataType dt = {0, (uint8_t)(itemsize * 8), 1};
    if (strcmp(f, "?") == 0) {
        dt.code = kDLBool;
    }
    else if (strlen(f) == 1 && strchr("bhilqn", f[0]) != NULL) {
        dt.code = kDLInt;
    }
    else if (strlen(f) == 1 && strchr("BHILQN", f[0]) != NULL) {
        dt.code = kDLUInt;
    }
    else if (strlen(f) == 1 && strchr("efd", f[0]) != NULL) {
        dt.code = kDLFloat;
    }
    else if (strcmp(f, "Zf") == 0 || strcmp(f, "Zd") == 0) {
        dt.code = kDLComplex;
    }
    else {
        arg_error(PyExc_BufferError, func, "obj", accepted, "format '%s'", format);
        return -1;
    }
    if (itemsize > 16 || !dtype_supported(dt)) {
        arg_error(PyExc_BufferError, func, "obj", accepted,
                  "format '%s' of item size %zd", format, itemsize);
        return -1;
    }
    b->dtype = dt;
    return 0;
}

static PyObject *
from_buffer(PyObject *module, PyObject *obj)
{
    static const char func[] = "from_buffer";
    Buffer *b = buffer_new(SOURCE_BUFFER);
    if (b == NULL) {
        return NULL;
    }
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_RECORDS_RO) < 0) {
        goto fail;
    }
    b->has_view = true;
    Py_buffer *v = &b->view;
    if (v->ndim > MAX_NDIM || v->suboffsets != NULL) {
        arg_error(PyExc_BufferError, func, "obj",
                  "a strided buffer of at most 64 dimensions", "ndim=%d", v->ndim);
        goto fail;
    }
    if (parse_format(b, v->format, v->itemsize, func) < 0) {
        goto fail;
    }
    b->ndim = v->ndim;
    for (int i = 0; i < v->ndim; i++) {
        b->shape[i] = v->shape[i];
        if (v->shape[i] <= 1) {
            b->strides[i] = 1; /* never stepped: any value is valid */
            continue;
        }
        if (v->strides[i] % v->itemsize != 0) {
            arg_error(PyExc_BufferError, func, "obj",
                      "strides that are multiples of the item size", "stride %zd",
                      v->strides[i]);
            goto fail;
        }
        b->strides[i] = v->strides[i] / v->itemsize;
    }
    if (finish_layout(b, v->buf == NULL && v->len > 0, func) < 0) {
        goto fail;
    }
    b->data = v->buf;
    b->readonly = v->readonly != 0;
    b->base = Py_NewRef(obj);
    return (PyObject *)b;
fail:
    Py_DECREF(b);
    return NULL;
}

/* ------------------------------------------------------ owned memory --- */

static int
parse_alignment(PyObject *obj, size_t *out, const char *func)
{
    Py_ssize_t a = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (a == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (a < (Py_ssize_t)sizeof(void *) || a > MAX_ALIGNMENT || (a & (a - 1)) != 0) {
        arg_error(PyExc_ValueError, func, "alignment",
                  "a power of two between 8 and 4096", "%zd", a);
        return -1;
    }
    *out = (size_t)a;
    return 0;
}

/* A writable, zero-filled, C-contiguous CPU Buffer with b's shape and dtype. */
static Buffer *
owned_like(int ndim, const int64_t *shape, DLDataType dtype, size_t alignment,
           const char *func)
{
    Buffer *b = buffer_new(SOURCE_OWNED);
    if (b == NULL) {
        return NULL;
    }
    b->ndim = ndim;
    b->dtype = dtype;
    memcpy(b->shape, shape, sizeof(int64_t) * (size_t)ndim);
    compact_strides(b);
    if (finish_layout(b, false, func) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    size_t nbytes = (size_t)(size_of(b) * itemsize_of(b));
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void *memory = NULL;
    if (posix_memalign(&memory, alignment, rounded ? rounded : alignment) != 0) {
        Py_DECREF(b);
        PyErr_NoMemory();
        return NULL;
    }
    memset(memory, 0, rounded);
    b->owned = memory;
    b->data = memory;
    return b;
}

static PyObject *
empty(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "empty";
    static char *keywords[] = {"shape", "code", "bits", "alignment", NULL};
    PyObject *shape_obj, *alignment_obj = NULL;
    int code, bits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oii|O:empty", keywords, &shape_obj,
                                     &code, &bits, &alignment_obj)) {
        return NULL;
    }
    size_t alignment = 64;
    if (alignment_obj != NULL && parse_alignment(alignment_obj, &alignment, func) < 0) {
        return NULL;
    }
    if (!PyTuple_Check(shape_obj) || PyTuple_GET_SIZE(shape_obj) > MAX_NDIM) {
        return arg_error(PyExc_TypeError, func, "shape",
                         "a tuple of at most 64 non-negative ints", "%R", shape_obj);
    }
    int64_t shape[MAX_NDIM];
    int ndim = (int)PyTuple_GET_SIZE(shape_obj);
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyTuple_GET_ITEM(shape_obj, i);
        if (!PyLong_Check(item)) {
            return arg_error(PyExc_TypeError, func, "shape", "a tuple of ints", "%R",
                             shape_obj);
        }
        shape[i] = PyLong_AsLongLong(item);
        if (shape[i] < 0) {
            if (!PyErr_Occurred()) {
                arg_error(PyExc_ValueError, func, "shape", "non-negative ints", "%R",
                          shape_obj);
            }
            return NULL;
        }
    }
    if (code < 0 || code > 255 || bits < 0 || bits > 255) {
        return arg_error(PyExc_TypeError, func, "dtype", DTYPES_ACCEPTED,
                         "code=%d, bits=%d", code, bits);
    }
    DLDataType dtype = {(uint8_t)code, (uint8_t)bits, 1};
    if (check_dtype(dtype, PyExc_TypeError, func, "dtype") < 0) {
        return NULL;
    }
    return (PyObject *)owned_like(ndim, shape, dtype, alignment, func);
}

/* Copy src's elements, in row-major order, into the compact memory at dst. */
static void
copy_strided(const Buffer *src, char *dst)
{
    int64_t itemsize = itemsize_of(src), size = size_of(src);
    if (size == 0) {
        return;
    }
    if (is_c_contiguous(src)) {
        memcpy(dst, src->data, (size_t)(size * itemsize));
        return;
    }
    int64_t index[MAX_NDIM] = {0};
    int last = src->ndim - 1; /* ndim >= 1 here: 0-d tensors are contiguous */
    int64_t inner = src->shape[last], inner_step = src->strides[last] * itemsize;
    const char *row = src->data;
    for (;;) {
        const char *p = row;
        for (int64_t k = 0; k < inner; k++, p += inner_step, dst += itemsize) {
            memcpy(dst, p, (size_t)itemsize);
        }
        int d = last - 1;
        for (; d >= 0; d--) { /* advance the outer index like an odometer */
            row += src->strides[d] * itemsize;
            if (++index[d] < src->shape[d]) {
                break;
            }
            row -= src->strides[d] * itemsize * src->shape[d];
            index[d] = 0;
        }
        if (d < 0) {
            return;
        }
    }
}

static Buffer *
copy_buffer(Buffer *self, size_t alignment, const char *func)
{
    if (!cpu_readable(self->device)) {
        arg_error(PyExc_BufferError, func, "self", "memory the CPU can read",
                  "memory on device type %d", (int)self->device.device_type);
        return NULL;
    }
    Buffer *copy = owned_like(self->ndim, self->shape, self->dtype, alignment, func);
    if (copy == NULL) {
        return NULL;
    }
    copy_strided(self, copy->data);
    copy->is_copied = true;
    return copy;
}

static PyObject *
buffer_copy(Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"alignment", NULL};
    PyObject *alignment_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:copy", keywords,
                                     &alignment_obj)) {
        return NULL;
    }
    size_t alignment = 64;
    if (alignment_obj != NULL &&
        parse_alignment(alignment_obj, &alignment, "copy") < 0) {
        return NULL;
    }
    return (PyObject *)copy_buffer(self, alignment, "copy");
}

/* ------------------------------------------------------ DLPack export --- */

static void
export_free(Export *e)
{
    /* Rule 3: after finalization has begun, touching Python objects could
     * crash; the memory is leaked instead. */
    if (interpreter_finalizing()) {
        return;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    stats.exported_alive--;
    Py_DECREF(e->owner);
    free(e);
    PyGILState_Release(gil);
}

static void
export_deleter_versioned(DLManagedTensorVersioned *m)
{
    export_free((Export *)m->manager_ctx);
}

static void
export_deleter_legacy(DLManagedTensor *m)
{
    export_free((Export *)m->manager_ctx);
}

/* Unconsumed capsules free their tensor; consumed ones belong to the consumer. */
static void
capsule_destructor(PyObject *capsule)
{
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL) {
        PyErr_Clear();
        return;
    }
    void *pointer = PyCapsule_GetPointer(capsule, name);
    if (pointer == NULL) {
        PyErr_Clear();
        return;
    }
    if (strcmp(name, CAPSULE_VERSIONED) == 0) {
        DLManagedTensorVersioned *m = pointer;
        m->deleter(m);
    }
    else if (strcmp(name, CAPSULE_LEGACY) == 0) {
        DLManagedTensor *m = pointer;
        m->deleter(m);
    }
}

static PyObject *
make_capsule(Buffer *owner, bool versioned, bool copied)
{
    size_t dims_bytes = sizeof(int64_t) * 2 * (size_t)owner->ndim;
    Export *e = malloc(sizeof(Export) + dims_bytes);
    if (e == NULL) {
        return PyErr_NoMemory();
    }
    int64_t *shape = e->dims, *strides = e->dims + owner->ndim;
    memcpy(shape, owner->shape, sizeof(int64_t) * (size_t)owner->ndim);
    memcpy(strides, owner->strides, sizeof(int64_t) * (size_t)owner->ndim);
    /* Rule: always export strides; data already includes the byte offset, since
     * some consumers mishandle a nonzero byte_offset. */
    DLTensor tensor = {owner->data, owner->device, owner->ndim, owner->dtype,
                       shape,       strides,       0};
    e->owner = (Buffer *)Py_NewRef(owner);
    void *pointer;
    if (versioned) {
        DLManagedTensorVersioned *m = &e->managed.versioned;
        m->version = (DLPackVersion){UT_DLPACK_MAJOR, UT_DLPACK_MINOR};
        m->manager_ctx = e;
        m->deleter = export_deleter_versioned;
        m->flags = (owner->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                   (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
        m->dl_tensor = tensor;
        pointer = m;
    }
    else {
        DLManagedTensor *m = &e->managed.legacy;
        m->manager_ctx = e;
        m->deleter = export_deleter_legacy;
        m->dl_tensor = tensor;
        pointer = m;
    }
    PyObject *capsule = PyCapsule_New(pointer, versioned ? CAPSULE_VERSIONED
                                                         : CAPSULE_LEGACY,
                                      capsule_destructor);
    if (capsule == NULL) {
        Py_DECREF(e->owner);
        free(e);
        return NULL;
    }
    stats.capsules_exported++;
    stats.exported_alive++;
    return capsule;
}

static int
int_pair(PyObject *obj, long long out[2])
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(obj, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(obj, 1))) {
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(obj, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
    }
    return 0;
}

static PyObject *
buffer_dlpack(Buffer *self, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "__dlpack__";
    static char *keywords[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None,
             *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", keywords,
                                     &stream, &max_version, &dl_device, &copy)) {
        return NULL;
    }
    if (stream != Py_None && !PyLong_Check(stream)) {
        return arg_error(PyExc_TypeError, func, "stream", "None or an int",
                         "an object of type '%s'", Py_TYPE(stream)->tp_name);
    }
    if (stream != Py_None && cpu_readable(self->device) &&
        !cuda_readable(self->device)) {
        return arg_error(PyExc_ValueError, func, "stream",
                         "None for memory on the CPU", "%R", stream);
    }
    long long version[2] = {0, 0};
    if (max_version != Py_None && int_pair(max_version, version) < 0) {
        return arg_error(PyExc_TypeError, func, "max_version",
                         "None or a (major, minor) tuple of ints", "%R", max_version);
    }
    long long device[2];
    if (dl_device != Py_None) {
        if (int_pair(dl_device, device) < 0) {
            return arg_error(PyExc_TypeError, func, "dl_device",
                             "None or a (device_type, device_id) tuple of ints", "%R",
                             dl_device);
        }
        bool same = device[0] == self->device.device_type &&
                    (device[0] == kDLCPU || device[1] == self->device.device_id);
        if (!same) {
            char own[96];
            snprintf(own, sizeof(own),
                     "the tensor's own device (%d, %d); unitensor never copies "
                     "across devices here",
                     (int)self->device.device_type, (int)self->device.device_id);
            return arg_error(PyExc_BufferError, func, "dl_device", own,
                             "(%lld, %lld)", device[0], device[1]);
        }
    }
    if (copy != Py_None && copy != Py_True && copy != Py_False) {
        return arg_error(PyExc_TypeError, func, "copy", "True, False or None",
                         "an object of type '%s'", Py_TYPE(copy)->tp_name);
    }
    bool versioned = max_version != Py_None && version[0] >= 1;
    Buffer *owner = self;
    if (copy == Py_True) {
        owner = copy_buffer(self, 64, func);
        if (owner == NULL) {
            return NULL;
        }
    }
    else {
        Py_INCREF(owner);
    }
    PyObject *capsule = NULL;
    if (!versioned && owner->readonly) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__(): max_version: expected (1, 0) or newer for "
                        "read-only memory, got a legacy request: the legacy DLPack "
                        "format cannot carry the read-only flag");
    }
    else {
        capsule = make_capsule(owner, versioned, copy == Py_True);
    }
    Py_DECREF(owner);
    return capsule;
}

static PyObject *
buffer_export_legacy(Buffer *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"allow_readonly", NULL};
    int allow_readonly = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$p:export_legacy", keywords,
                                     &allow_readonly)) {
        return NULL;
    }
    if (self->readonly && !allow_readonly) {
        PyErr_SetString(PyExc_BufferError,
                        "export_legacy(): allow_readonly: expected True for "
                        "read-only memory, got False");
        return NULL;
    }
    return make_capsule(self, false, false);
}

static PyObject *
buffer_dlpack_device(Buffer *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(ii)", (int)self->device.device_type,
                         (int)self->device.device_id);
}

static PyObject *
buffer_mark_readonly(Buffer *self, PyObject *Py_UNUSED(ignored))
{
    self->readonly = true; /* one way: nothing may make memory writable again */
    Py_RETURN_NONE;
}

/* ------------------------------------------- array interface exports --- */

static PyObject *
interface_dict(Buffer *self, bool cuda)
{
    char ts[8];
    typestr(self->dtype, ts);
    PyObject *shape = PyTuple_New(self->ndim);
    PyObject *strides = PyTuple_New(self->ndim);
    if (shape == NULL || strides == NULL) {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return NULL;
    }
    for (int i = 0; i < self->ndim; i++) {
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(self->shape[i]));
        PyTuple_SET_ITEM(strides, i, PyLong_FromSsize_t(self->view_strides[i]));
    }
    PyObject *d = Py_BuildValue(
        "{s:N,s:s,s:(NO),s:N,s:i}", "shape", shape, "typestr", ts, "data",
        PyLong_FromVoidPtr(self->data), self->readonly ? Py_True : Py_False,
        "strides", strides, "version", 3);
    if (d != NULL && cuda && PyDict_SetItemString(d, "stream", Py_None) < 0) {
        Py_CLEAR(d);
    }
    return d;
}

static PyObject *
buffer_array_interface(Buffer *self, void *Py_UNUSED(closure))
{
    if (!cpu_readable(self->device)) {
        PyErr_SetString(PyExc_AttributeError,
                        "__array_interface__: the memory is not on the CPU");
        return NULL;
    }
    return interface_dict(self, false);
}

static PyObject *
buffer_cuda_array_interface(Buffer *self, void *Py_UNUSED(closure))
{
    if (!cuda_readable(self->device)) {
        PyErr_SetString(PyExc_AttributeError,
                        "__cuda_array_interface__: the memory is not CUDA memory");
        return NULL;
    }
    return interface_dict(self, true);
}

static int
buffer_getbuffer(Buffer *self, Py_buffer *view, int flags)
{
    const char *format = struct_format(self->dtype);
    const char *problem = NULL;
    if (!cpu_readable(self->device)) {
        problem = "the memory is not on the CPU";
    }
    else if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && self->readonly) {
        problem = "the memory is read-only";
    }
    else if ((flags & PyBUF_FORMAT) == PyBUF_FORMAT && format == NULL) {
        problem = "bfloat16 has no buffer-protocol format";
    }
    else if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS &&
             !is_c_contiguous(self)) {
        problem = "the memory is not C-contiguous";
    }
    else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS &&
             !is_f_contiguous(self)) {
        problem = "the memory is not Fortran-contiguous";
    }
    else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS &&
             !is_c_contiguous(self) && !is_f_contiguous(self)) {
        problem = "the memory is not contiguous";
    }
    else if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !is_c_contiguous(self)) {
        problem = "the memory is strided and the consumer did not ask for strides";
    }
    if (problem != NULL) {
        arg_error(PyExc_BufferError, "Buffer.__buffer__", "flags",
                  "a request the memory can satisfy", "one it cannot: %s", problem);
        view->obj = NULL;
        return -1;
    }
    view->buf = self->data;
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)(size_of(self) * itemsize_of(self));
    view->readonly = self->readonly;
    view->itemsize = (Py_ssize_t)itemsize_of(self);
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)format : NULL;
    view->ndim = self->ndim;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? self->view_shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->view_strides
                                                             : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

/* ------------------------------------------------------- attributes --- */

static PyObject *
int64_tuple(const int64_t *values, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyObject *
get_shape(Buffer *b, void *c)
{
    return int64_tuple(b->shape, b->ndim);
}

static PyObject *
get_strides(Buffer *b, void *c)
{
    return int64_tuple(b->strides, b->ndim);
}

static PyObject *
get_ndim(Buffer *b, void *c)
{
    return PyLong_FromLong(b->ndim);
}

static PyObject *
get_size(Buffer *b, void *c)
{
    return PyLong_FromLongLong(size_of(b));
}

static PyObject *
get_itemsize(Buffer *b, void *c)
{
    return PyLong_FromLongLong(itemsize_of(b));
}

static PyObject *
get_nbytes(Buffer *b, void *c)
{
    return PyLong_FromLongLong(size_of(b) * itemsize_of(b));
}

static PyObject *
get_dtype(Buffer *b, void *c)
{
    return Py_BuildValue("(iii)", (int)b->dtype.code, (int)b->dtype.bits,
                         (int)b->dtype.lanes);
}

static PyObject *
get_device(Buffer *b, void *c)
{
    return buffer_dlpack_device(b, NULL);
}

static PyObject *
get_byte_offset(Buffer *b, void *c)
{
    return PyLong_FromUnsignedLongLong(b->byte_offset);
}

static PyObject *
get_data_ptr(Buffer *b, void *c)
{
    return PyLong_FromVoidPtr(b->data);
}

static PyObject *
get_readonly(Buffer *b, void *c)
{
    return PyBool_FromLong(b->readonly);
}

static PyObject *
get_is_copied(Buffer *b, void *c)
{
    return PyBool_FromLong(b->is_copied);
}

static PyObject *
get_version(Buffer *b, void *c)
{
    if (b->version_major < 0) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(ii)", b->version_major, b->version_minor);
}

static PyObject *
get_source(Buffer *b, void *c)
{
    return PyUnicode_FromString(SOURCE_NAMES[b->source]);
}

static PyObject *
get_base(Buffer *b, void *c)
{
    return Py_NewRef(b->base != NULL ? b->base : Py_None);
}

static PyObject *
get_stream(Buffer *b, void *c)
{
    return Py_NewRef(b->stream != NULL ? b->stream : Py_None);
}

static PyObject *
get_c_contiguous(Buffer *b, void *c)
{
    return PyBool_FromLong(is_c_contiguous(b));
}

static PyObject *
get_alignment(Buffer *b, void *c)
{
    uintptr_t address = (uintptr_t)b->data;
    long alignment = 1;
    while (alignment < MAX_ALIGNMENT && (address & (uintptr_t)alignment) == 0) {
        alignment <<= 1;
    }
    return PyLong_FromLong(address == 0 ? MAX_ALIGNMENT : alignment);
}

static PyObject *
buffer_repr(Buffer *b)
{
    PyObject *shape = get_shape(b, NULL);
    if (shape == NULL) {
        return NULL;
    }
    static const char *const codes[] = {"int", "uint", "float", "handle",
                                        "bfloat", "complex", "bool"};
    PyObject *r = PyUnicode_FromFormat(
        "<unitensor._core.Buffer shape=%R dtype=%s(%d) device=(%d, %d) "
        "readonly=%s source='%s'>",
        shape, b->dtype.code < 7 ? codes[b->dtype.code] : "?", (int)b->dtype.bits,
        (int)b->device.device_type, (int)b->device.device_id,
        b->readonly ? "True" : "False", SOURCE_NAMES[b->source]);
    Py_DECREF(shape);
    return r;
}

static PyGetSetDef buffer_getset[] = {
    {"shape", (getter)get_shape, NULL, "Shape, a tuple of ints.", NULL},
    {"strides", (getter)get_strides, NULL, "Strides in elements, always present.",
     NULL},
    {"ndim", (getter)get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)get_size, NULL, "Number of elements.", NULL},
    {"itemsize", (getter)get_itemsize, NULL, "Bytes per element.", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "size * itemsize.", NULL},
    {"dtype", (getter)get_dtype, NULL, "DLPack (code, bits, lanes).", NULL},
    {"device", (getter)get_device, NULL, "DLPack (device_type, device_id).", NULL},
    {"byte_offset", (getter)get_byte_offset, NULL, "Byte offset as imported.", NULL},
    {"data_ptr", (getter)get_data_ptr, NULL, "Address of the first element.", NULL},
    {"readonly", (getter)get_readonly, NULL, "True if the memory must not be written.",
     NULL},
    {"is_copied", (getter)get_is_copied, NULL, "True if the memory is a copy.", NULL},
    {"version", (getter)get_version, NULL, "DLPack (major, minor) or None.", NULL},
    {"source", (getter)get_source, NULL, "What the Buffer owns.", NULL},
    {"base", (getter)get_base, NULL, "The Python object held, or None.", NULL},
    {"stream", (getter)get_stream, NULL, "The CUDA array interface's stream.", NULL},
    {"c_contiguous", (getter)get_c_contiguous, NULL, "Row-major compact?", NULL},
    {"alignment", (getter)get_alignment, NULL,
     "Largest power of two dividing data_ptr (at most 4096).", NULL},
    {"__array_interface__", (getter)buffer_array_interface, NULL,
     "NumPy array interface v3 (CPU memory only).", NULL},
    {"__cuda_array_interface__", (getter)buffer_cuda_array_interface, NULL,
     "CUDA array interface v3 (CUDA memory only).", NULL},
    {NULL},
};

static PyMethodDef buffer_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))buffer_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n"
     "Export as a new DLPack capsule (Array API 2024.12)."},
    {"__dlpack_device__", (PyCFunction)buffer_dlpack_device, METH_NOARGS,
     "The (device_type, device_id) of the memory."},
    {"copy", (PyCFunction)(void (*)(void))buffer_copy, METH_VARARGS | METH_KEYWORDS,
     "copy(alignment=64)\nA writable, C-contiguous, aligned copy (CPU memory)."},
    {"mark_readonly", (PyCFunction)buffer_mark_readonly, METH_NOARGS,
     "Mark the memory read-only (one way), for immutable producers."},
    {"export_legacy", (PyCFunction)(void (*)(void))buffer_export_legacy,
     METH_VARARGS | METH_KEYWORDS,
     "export_legacy(*, allow_readonly=False)\nA legacy 'dltensor' capsule; read-only "
     "memory only for consumers that never write (TensorFlow)."},
    {NULL},
};

static PyBufferProcs buffer_as_buffer = {
    .bf_getbuffer = (getbufferproc)buffer_getbuffer,
    .bf_releasebuffer = NULL,
};

static PyObject *
buffer_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyErr_SetString(PyExc_TypeError,
                    "Buffer(): cannot be created directly; use from_capsule(), "
                    "from_array_interface(), from_buffer() or empty()");
    return NULL;
}

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._core.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Owner of one foreign array's memory; re-exports it zero-copy.",
    .tp_new = buffer_tp_new,
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_traverse = (traverseproc)buffer_traverse,
    .tp_clear = (inquiry)buffer_clear,
    .tp_repr = (reprfunc)buffer_repr,
    .tp_getset = buffer_getset,
    .tp_methods = buffer_methods,
    .tp_as_buffer = &buffer_as_buffer,
    .tp_weaklistoffset = offsetof(Buffer, weakreflist),
};

/* --------------------------------------------------------------- module --- */

static PyObject *
get_stats(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("{s:n,s:n,s:n,s:n}", "buffers_alive", stats.buffers_alive,
                         "capsules_exported", stats.capsules_exported,
                         "exported_alive", stats.exported_alive,
                         "imported_deleters_run", stats.imported_deleters_run);
}

static PyMethodDef module_methods[] = {
    {"from_capsule", (PyCFunction)from_capsule, METH_O,
     "from_capsule(capsule)\nConsume a 'dltensor_versioned' or 'dltensor' capsule."},
    {"from_array_interface", (PyCFunction)(void (*)(void))from_array_interface,
     METH_VARARGS | METH_KEYWORDS,
     "from_array_interface(obj, *, dtype=None)\nWrap obj's __array_interface__ (kept "
     "alive); dtype (code, bits, lanes) names what the typestr cannot."},
    {"from_cuda_array_interface", (PyCFunction)(void (*)(void))from_cuda_array_interface,
     METH_VARARGS | METH_KEYWORDS,
     "from_cuda_array_interface(obj, device_id=0)\nWrap obj's "
     "__cuda_array_interface__."},
    {"from_buffer", (PyCFunction)from_buffer, METH_O,
     "from_buffer(obj)\nWrap obj's buffer-protocol export."},
    {"empty", (PyCFunction)(void (*)(void))empty, METH_VARARGS | METH_KEYWORDS,
     "empty(shape, code, bits, alignment=64)\nNew zero-filled aligned CPU memory."},
    {"stats", (PyCFunction)get_stats, METH_NOARGS,
     "C-side counters proving exactly-once deletion."},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "unitensor._core",
    .m_doc = "The C Buffer: owner of one foreign array's memory.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&BufferType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    PyObject *version = Py_BuildValue("(ii)", UT_DLPACK_MAJOR, UT_DLPACK_MINOR);
    if (version == NULL ||
        PyModule_AddObjectRef(m, "Buffer", (PyObject *)&BufferType) < 0 ||
        PyModule_AddObjectRef(m, "DLPACK_VERSION", version) < 0) {
        Py_XDECREF(version);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(version);
    return m;
}
