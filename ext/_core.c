/* unitensor._core: the Buffer, one owner of foreign array memory.
 *
 * Ownership rules (everything below relies on them):
 *
 * 1. All lifetime state lives in the Buffer struct. A Buffer owns exactly one
 *    source of memory, chosen at import and never changed: a DLPack managed
 *    tensor (versioned or legacy; a CapsuleKind tells which), a strong
 *    reference to an __array_interface__ / __cuda_array_interface__ exporter
 *    (`base`), a buffer-protocol view of `base`, or memory it allocated itself
 *    (`owned`). An importer takes it; release_source(), called from
 *    buffer_dealloc() only, gives it back.
 * 2. managed_delete() is the only code that calls a DLPack deleter. For an
 *    imported tensor it runs once, from release_source(), with the GIL held,
 *    and a NULL deleter is legal (nothing is called). A capsule is renamed
 *    "used_*" only after every validation has passed, so a rejected capsule
 *    still belongs to its producer, whose capsule destructor frees it.
 * 3. Every __dlpack__() call mallocs a new Export (the managed struct plus its
 *    own shape and strides) whose manager_ctx holds a strong reference to the
 *    Buffer: one import serves any number of consumers. export_capsule() takes
 *    that reference and export_free() drops it. (numpy's routes to torch and
 *    TensorFlow, exchange_from_ndarray and ndarray_import, make Exports whose
 *    reference is to the numpy array itself: no Buffer.) The Export's deleter runs
 *    exactly once: from the consumer that renamed the capsule, or from the
 *    capsule destructor if nobody did. A consumer may call it from any thread,
 *    so it takes the GIL itself; once the interpreter is finalizing (or gone)
 *    it does nothing at all: leaking at exit beats crashing.
 * 4. Buffer-protocol views and __array_interface__ dicts point into the
 *    Buffer's memory and its own metadata arrays (view_shape, view_strides);
 *    memoryview and numpy keep the Buffer alive through view->obj or the
 *    array's base, so those arrays outlive every view.
 * 5. The metadata (shape, strides, dtype, device) is copied out at import:
 *    nothing reads the producer's structs after validation.
 * 6. tp_clear (the cyclic GC) drops only the Python references; a Buffer whose
 *    memory went with them is marked `released` and refuses every export.
 * 7. Every Buffer is on one list of live Buffers (`live`), linked by
 *    buffer_new() and unlinked by buffer_dealloc() only, under the GIL. It
 *    owns nothing: it answers exposed(), "does unitensor point into this
 *    memory?", asked before a framework moves memory it owns (torch's pickler
 *    moves a storage into shared memory and frees the old block).
 * 8. unitensor.Tensor's DLPack C exchange API (the "Tensor as producer" block)
 *    adds no ownership of its own: a managed tensor it hands out is an Export
 *    (rule 3), one it takes in is a Buffer's source at once (rule 1), and its
 *    allocator's memory is an owned Buffer held by an Export.
 *
 * Every error message comes from arg_error(), in one format:
 * "{func}(): {arg}: expected {what is accepted}, got {what was received}".
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlpack.h"
#include "spare.h"

/* numpy's C API is imported on first use (numpy_api()), never at import. */
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>

#define MAX_NDIM 64
/* Dimensions a Buffer holds inline; more take one allocation of their own. */
#define INLINE_NDIM 6
#define MAX_ALIGNMENT 4096
#define DEFAULT_ALIGNMENT 64

/* ------------------------------------------------------ capsule formats --- */

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
    [SOURCE_DLPACK_VERSIONED] = "dlpack_versioned",
    [SOURCE_DLPACK] = "dlpack",
    [SOURCE_ARRAY_INTERFACE] = "array_interface",
    [SOURCE_CUDA_ARRAY_INTERFACE] = "cuda_array_interface",
    [SOURCE_BUFFER] = "buffer",
    [SOURCE_OWNED] = "owned",
};

/* The two DLPack capsule formats as data: import, export and deletion take a
 * CapsuleKind instead of having one copy of the code per format. Only the
 * managed_*() accessors below and export_managed() look inside the two structs. */
typedef struct {
    const char *name;      /* the capsule's name while nobody owns the tensor */
    const char *used_name; /* the name once a consumer took ownership */
    Source source;
    bool versioned;
} CapsuleKind;

static const CapsuleKind CAPSULE_KINDS[] = {
    {CAPSULE_VERSIONED, CAPSULE_USED_VERSIONED, SOURCE_DLPACK_VERSIONED, true},
    {CAPSULE_LEGACY, CAPSULE_USED_LEGACY, SOURCE_DLPACK, false},
};
#define KIND_VERSIONED (&CAPSULE_KINDS[0])
#define KIND_LEGACY (&CAPSULE_KINDS[1])
#define N_KINDS (sizeof(CAPSULE_KINDS) / sizeof(CAPSULE_KINDS[0]))

/* The kind whose unconsumed (used=false) or consumed name is `name`. */
static const CapsuleKind *
kind_named(const char *name, bool used)
{
    for (size_t i = 0; name != NULL && i < N_KINDS; i++) {
        const CapsuleKind *kind = &CAPSULE_KINDS[i];
        if (strcmp(name, used ? kind->used_name : kind->name) == 0) {
            return kind;
        }
    }
    return NULL;
}

static DLTensor *
managed_tensor(const CapsuleKind *kind, void *managed)
{
    return kind->versioned ? &((DLManagedTensorVersioned *)managed)->dl_tensor
                           : &((DLManagedTensor *)managed)->dl_tensor;
}

/* The version and flags of a managed tensor; legacy ones carry neither. */
static void
managed_header(const CapsuleKind *kind, void *managed, DLPackVersion *version,
               uint64_t *flags)
{
    *version = (DLPackVersion){0, 0};
    *flags = 0;
    if (kind->versioned) {
        const DLManagedTensorVersioned *m = managed;
        *version = m->version;
        *flags = m->flags;
    }
}

/* Rule 2: the only call of a DLPack deleter. */
static void
managed_delete(const CapsuleKind *kind, void *managed)
{
    if (kind->versioned) {
        DLManagedTensorVersioned *m = managed;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
    }
    else {
        DLManagedTensor *m = managed;
        if (m->deleter != NULL) {
            m->deleter(m);
        }
    }
}

/* ---------------------------------------------------------------- state --- */

typedef struct Buffer {
    PyObject_HEAD
        /* What is owned (rule 1): exactly one source, per `source`. */
        Source source;
    const CapsuleKind *kind; /* DLPack sources: the format of `managed` */
    void *managed;           /* DLPack sources: the managed tensor */
    PyObject *base;          /* the exporter (interface and buffer sources) */
    Py_buffer view;          /* buffer source: valid while has_view */
    bool has_view;
    void *owned;   /* owned source: the allocation; data is aligned inside */
    bool released; /* rule 6: the GC took the memory's owner away */
    /* Metadata, copied at import (rule 5). */
    char *data; /* address of element [0, ..., 0]: the byte offset included */
    uint64_t byte_offset;
    int ndim;
    DLDataType dtype;
    DLDevice device;
    bool readonly;
    bool is_copied;
    int version_major; /* -1 when the source had no DLPack version */
    int version_minor;
    PyObject *stream;   /* the CUDA array interface's stream, else None */
    PyObject *producer; /* CUDA: whose work a consumer's stream waits for, or None */
    /* ndim entries each, set by buffer_set_ndim(): in `dims` below, or for more
     * than INLINE_NDIM dimensions in one PyMem block that shape points to. */
    int64_t *shape;
    int64_t *strides;         /* in elements */
    Py_ssize_t *view_shape;   /* for the buffer protocol (rule 4) */
    Py_ssize_t *view_strides; /* in bytes */
    PyObject *weakreflist;
    struct Buffer *live_prev, *live_next; /* rule 7 */
    int64_t dims[4 * INLINE_NDIM];
} Buffer;

/* A Buffer fits Python's small-object allocator (requests of 512 bytes at most,
 * the GC's header included): made and freed there in a tenth of what malloc
 * takes for the 2 KB that 64 inline dimensions would need. */
_Static_assert(sizeof(Buffer) + 16 <= 512, "a Buffer fits pymalloc's small blocks");
_Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "view arrays share dims");

/* One export: the managed tensor handed to one consumer (rule 3). */
typedef struct {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } managed;
    PyObject *owner; /* the Buffer; or, numpy -> exchange (exchange_from_ndarray),
                        the numpy array itself */
    /* Read-only memory lent to a framework that cannot mark it (exchange_export
     * with `lent`): the LentTable recording it and this export's address in it,
     * whose count the deleter takes back; NULL otherwise. */
    PyObject *lent_table;
    uintptr_t lent_address;
    bool spare_sized; /* made with room for INLINE_NDIM dimensions */
    int64_t dims[];   /* shape, then strides */
} Export;

/* Exports of at most INLINE_NDIM dimensions are all made with room for that
 * many, and the freed ones kept for the next (spare.h): a conversion makes and
 * frees one, without malloc and free then. Read and written under the GIL only
 * (export_free holds it). */
#define EXPORT_SIZE(ndim) (sizeof(Export) + 2 * (size_t)(ndim) * sizeof(int64_t))
static Export *spare_exports[UT_SPARES + 1];
static int n_spare_exports = 0;

static PyTypeObject BufferType;

/* Rule 7: every live Buffer, newest first. */
static Buffer *live = NULL;

/* C-side counters (under the GIL): tests prove exactly-once deletion with them. */
static struct {
    Py_ssize_t buffers_alive;
    Py_ssize_t capsules_exported;
    Py_ssize_t exported_alive;
    Py_ssize_t imported_deleters_run;
} stats;

/* --------------------------------------------------------------- errors --- */

/* The one error helper: "{func}(): {arg}: expected {accepted}, got {received}".
 * The exception also carries its four parts as attributes (func, arg, accepted,
 * received), as unitensor/_errors.py's arg_error() sets them: code that renames or
 * recognises a refusal reads those, never the text.
 * Always returns NULL, so that `return arg_error(...)` reads naturally. */
static PyObject *
arg_error(PyObject *exc, const char *func, const char *arg, const char *accepted,
          const char *received_fmt, ...)
{
    va_list va;
    va_start(va, received_fmt);
    PyObject *received = PyUnicode_FromFormatV(received_fmt, va);
    va_end(va);
    PyObject *error = NULL;
    if (received == NULL) {
        return NULL;
    }
    PyObject *message = PyUnicode_FromFormat("%s(): %s: expected %s, got %U", func, arg,
                                             accepted, received);
    if (message == NULL) {
        goto done;
    }
    error = PyObject_CallOneArg(exc, message);
    Py_DECREF(message);
    if (error == NULL) {
        goto done;
    }
    const char *names[] = {"func", "arg", "accepted"};
    const char *values[] = {func, arg, accepted};
    for (size_t i = 0; i < 3; i++) {
        PyObject *value = PyUnicode_FromString(values[i]);
        int failed =
            value == NULL || PyObject_SetAttrString(error, names[i], value) < 0;
        Py_XDECREF(value);
        if (failed) {
            goto done;
        }
    }
    if (PyObject_SetAttrString(error, "received", received) < 0) {
        goto done;
    }
    PyErr_SetObject((PyObject *)Py_TYPE(error), error);
done:
    Py_XDECREF(error);
    Py_DECREF(received);
    return NULL;
}

/* The importers' calling convention, (obj, *, func=..., arg=...): `func` and
 * `arg` are the public function and argument their errors are reported under
 * (unitensor's asarray passes func="asarray", arg="obj"), so that a message
 * names what the user called; by default, the importer's own names. The strings
 * stay alive with the call's arguments. */
static int
parse_importer_args(const char *entry, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, PyObject **obj, const char **func,
                    const char **arg)
{
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes exactly one positional argument (%zd given)", entry,
                     nargs);
        return -1;
    }
    *obj = args[0];
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        const char **slot = PyUnicode_CompareWithASCIIString(key, "func") == 0  ? func
                            : PyUnicode_CompareWithASCIIString(key, "arg") == 0 ? arg
                                                                                : NULL;
        if (slot == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                         entry, key);
            return -1;
        }
        PyObject *value = args[nargs + i];
        if (!PyUnicode_Check(value)) {
            arg_error(PyExc_TypeError, entry, PyUnicode_AsUTF8(key), "a str",
                      "an object of type '%s'", Py_TYPE(value)->tp_name);
            return -1;
        }
        *slot = PyUnicode_AsUTF8(value);
        if (*slot == NULL) {
            return -1;
        }
    }
    return 0;
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

/* --------------------------------------------------------------- dtypes --- */

static const char *const DTYPE_CODE_NAMES[] = {
    [kDLInt] = "int",
    [kDLUInt] = "uint",
    [kDLFloat] = "float",
    [kDLOpaqueHandle] = "handle",
    [kDLBfloat] = "bfloat",
    [kDLComplex] = "complex",
    [kDLBool] = "bool",
    [kDLFloat8_e3m4] = "float8_e3m4",
    [kDLFloat8_e4m3] = "float8_e4m3",
    [kDLFloat8_e4m3b11fnuz] = "float8_e4m3b11fnuz",
    [kDLFloat8_e4m3fn] = "float8_e4m3fn",
    [kDLFloat8_e4m3fnuz] = "float8_e4m3fnuz",
    [kDLFloat8_e5m2] = "float8_e5m2",
    [kDLFloat8_e5m2fnuz] = "float8_e5m2fnuz",
    [kDLFloat8_e8m0fnu] = "float8_e8m0fnu",
};

#define N_DTYPE_CODE_NAMES                                                             \
    ((int)(sizeof(DTYPE_CODE_NAMES) / sizeof(DTYPE_CODE_NAMES[0])))

static const char DTYPES_ACCEPTED[] =
    "a dtype of bool8, int/uint 8-64, float 16-64, bfloat16, the 8-bit floats "
    "(DLPack codes 7-14) or complex 64/128 with lanes=1";

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
    /* The float8 kinds are whole bytes, so a Buffer can hold and pass them on
     * like bfloat16. The float6/float4 kinds (15-17) are sub-byte: their
     * strides and sizes are not in bytes, which nothing here reckons with. */
    case kDLFloat8_e3m4:
    case kDLFloat8_e4m3:
    case kDLFloat8_e4m3b11fnuz:
    case kDLFloat8_e4m3fn:
    case kDLFloat8_e4m3fnuz:
    case kDLFloat8_e5m2:
    case kDLFloat8_e5m2fnuz:
    case kDLFloat8_e8m0fnu:
        return dt.bits == 8;
    default:
        return false;
    }
}

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

/* The struct-module format of a dtype (NULL for bfloat16, which has none).
 * 64-bit integers are 'l'/'L' where a C long has 64 bits: numpy reads the
 * format as the dtype of that C type, and its canonical int64 is the long one
 * there ('q' would make an int64 array that compiled code checking the dtype's
 * type number, such as scipy.ndimage's, refuses or misreads). */
static const char *
struct_format(DLDataType dt)
{
    const int long64 = sizeof(long) == 8;
    switch (dt.code) {
    case kDLBool:
        return "?";
    case kDLInt:
        return dt.bits == 8    ? "b"
               : dt.bits == 16 ? "h"
               : dt.bits == 32 ? "i"
               : long64        ? "l"
                               : "q";
    case kDLUInt:
        return dt.bits == 8    ? "B"
               : dt.bits == 16 ? "H"
               : dt.bits == 32 ? "I"
               : long64        ? "L"
                               : "Q";
    case kDLFloat:
        return dt.bits == 16 ? "e" : dt.bits == 32 ? "f" : "d";
    case kDLComplex:
        return dt.bits == 64 ? "Zf" : "Zd";
    default:
        return NULL;
    }
}

/* The __array_interface__ typestr, native byte order; bfloat16 travels as
 * opaque '|V2' and the float8 kinds as '|V1' (numpy can wrap them; the Python
 * layer views them as ml_dtypes' types). */
static void
typestr_of(DLDataType dt, char out[8])
{
    const char order = PY_LITTLE_ENDIAN ? '<' : '>';
    int itemsize = dt.bits / 8;
    char kind;
    switch (dt.code) {
    case kDLBool:
        snprintf(out, 8, "|b1");
        return;
    case kDLBfloat:
        snprintf(out, 8, "|V2");
        return;
    case kDLInt:
        kind = 'i';
        break;
    case kDLUInt:
        kind = 'u';
        break;
    case kDLFloat:
        kind = 'f';
        break;
    case kDLComplex:
        kind = 'c';
        break;
    default: /* the float8 kinds (dtype_supported admits no others) */
        snprintf(out, 8, "|V1");
        return;
    }
    snprintf(out, 8, "%c%c%d", itemsize == 1 ? '|' : order, kind, itemsize);
}

/* -------------------------------------------------------------- devices --- */

/* The DLPack device types, one row each; NULL marks codes that are unused. */
static const char *const DEVICE_NAMES[] = {
    [kDLCPU] = "CPU",
    [kDLCUDA] = "CUDA",
    [kDLCUDAHost] = "CUDAHost",
    [kDLOpenCL] = "OpenCL",
    [kDLVulkan] = "Vulkan",
    [kDLMetal] = "Metal",
    [kDLVPI] = "VPI",
    [kDLROCM] = "ROCM",
    [kDLROCMHost] = "ROCMHost",
    [kDLExtDev] = "ExtDev",
    [kDLCUDAManaged] = "CUDAManaged",
    [kDLOneAPI] = "OneAPI",
    [kDLWebGPU] = "WebGPU",
    [kDLHexagon] = "Hexagon",
    [kDLMAIA] = "MAIA",
};
#define N_DEVICE_TYPES ((int)(sizeof(DEVICE_NAMES) / sizeof(DEVICE_NAMES[0])))

/* The name of a device type, or NULL for a code DLPack does not define. */
static const char *
device_name(int32_t type)
{
    return type >= 0 && type < N_DEVICE_TYPES ? DEVICE_NAMES[type] : NULL;
}

/* Memory the CPU can read and write directly. */
static bool
cpu_readable(DLDevice dev)
{
    return dev.device_type == kDLCPU || dev.device_type == kDLCUDAHost ||
           dev.device_type == kDLROCMHost || dev.device_type == kDLCUDAManaged;
}

/* Memory a CUDA kernel can address (__cuda_array_interface__ speaks for it). */
static bool
cuda_readable(DLDevice dev)
{
    return dev.device_type == kDLCUDA || dev.device_type == kDLCUDAManaged;
}

/* Memory without a stream: __dlpack__(stream=...) must be None there. */
static bool
streamless(DLDevice dev)
{
    return cpu_readable(dev) && !cuda_readable(dev);
}

/* --------------------------------------------------------------- streams --- */

static const char CUDA_STREAMS[] =
    "None, -1 (no synchronisation), 1 (the legacy default stream), 2 (the "
    "per-thread default stream) or a CUDA stream handle";

/* A consumer's stream, as __dlpack__ takes it (the DLPack/Array API rules).
 * Sets *wait to the stream the consumer reads on, or to 0 where nothing must
 * wait: CPU memory, or -1 ("no synchronisation"). None is the legacy default
 * stream on CUDA. */
static int
parse_consumer_stream(DLDevice dev, PyObject *stream, long long *wait, const char *func)
{
    *wait = 0;
    if (stream != Py_None && (!PyLong_Check(stream) || PyBool_Check(stream))) {
        arg_error(PyExc_TypeError, func, "stream", "None or an int",
                  "an object of type '%s'", Py_TYPE(stream)->tp_name);
        return -1;
    }
    if (streamless(dev)) {
        if (stream != Py_None) {
            arg_error(PyExc_ValueError, func, "stream", "None for memory on the CPU",
                      "%R", stream);
            return -1;
        }
        return 0;
    }
    if (!cuda_readable(dev)) {
        return 0; /* another device's streams: nothing is ordered here */
    }
    long long value = stream == Py_None ? 1 : PyLong_AsLongLong(stream);
    if (value == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        value = 0; /* beyond 64 bits: no stream handle, refused below */
    }
    if (value == 0 || value < -1) {
        arg_error(PyExc_ValueError, func, "stream", CUDA_STREAMS, "%R", stream);
        return -1;
    }
    *wait = value == -1 ? 0 : value;
    return 0;
}

/* Make the consumer's stream `wait` (0: none) wait for the producer's work. */
static int
wait_for_producer(Buffer *b, long long wait)
{
    if (wait == 0 || b->producer == NULL || b->producer == Py_None) {
        return 0;
    }
    PyObject *r = PyObject_CallMethod(b->producer, "wait", "L", wait);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
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

/* Compact row-major strides (in elements) for b's shape. The shape may not be
 * validated yet: a product that overflows saturates (finish_layout() refuses
 * such a shape anyway). */
static void
compact_strides(const Buffer *b, int64_t *out)
{
    int64_t stride = 1;
    for (int i = b->ndim - 1; i >= 0; i--) {
        out[i] = stride;
        if (__builtin_mul_overflow(stride, b->shape[i] > 0 ? b->shape[i] : 1,
                                   &stride)) {
            stride = INT64_MAX;
        }
    }
}

static bool
is_contiguous(const Buffer *b, bool row_major)
{
    int64_t expected = 1;
    for (int k = 0; k < b->ndim; k++) {
        int i = row_major ? b->ndim - 1 - k : k;
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

/* Validate b's shape and strides (already copied in) and normalise what is
 * never used: the stride of a size-1 dimension, and every stride of an empty
 * tensor, become the compact row-major value, so that consumers that check
 * strides strictly accept them [numpy#20336, pytorch#83069]. Fills the
 * buffer-protocol arrays. `data` (NULL for none) must hold every element;
 * it becomes b->data. */
static int
finish_layout(Buffer *b, char *data, PyObject *exc, const char *func)
{
    int64_t itemsize = itemsize_of(b), size = 1, nbytes;
    for (int i = 0; i < b->ndim; i++) {
        if (b->shape[i] < 0) {
            arg_error(exc, func, "shape", "non-negative dimensions",
                      "dimension %d of size %lld", i, (long long)b->shape[i]);
            return -1;
        }
        if (__builtin_mul_overflow(size, b->shape[i], &size)) {
            arg_error(exc, func, "shape", "a size that fits in int64",
                      "an overflowing shape");
            return -1;
        }
    }
    if (__builtin_mul_overflow(size, itemsize, &nbytes) || nbytes > PY_SSIZE_T_MAX) {
        arg_error(exc, func, "shape", "a byte size that fits in memory",
                  "an overflowing size");
        return -1;
    }
    int64_t compact[MAX_NDIM];
    compact_strides(b, compact);
    int64_t low = 0, high = 0; /* byte offsets of the extreme elements */
    for (int i = 0; i < b->ndim; i++) {
        if (size == 0 || b->shape[i] == 1) {
            b->strides[i] = compact[i]; /* never stepped: any value was valid */
            continue;
        }
        int64_t span, stride = b->strides[i];
        if (stride == INT64_MIN ||
            __builtin_mul_overflow(b->shape[i] - 1, stride < 0 ? -stride : stride,
                                   &span) ||
            __builtin_mul_overflow(span, itemsize, &span) ||
            span > PY_SSIZE_T_MAX - (high - low)) {
            arg_error(exc, func, "strides", "strides whose extent fits in memory",
                      "stride %lld on dimension %d", (long long)stride, i);
            return -1;
        }
        if (stride < 0) {
            low -= span;
        }
        else {
            high += span;
        }
    }
    if (size > 0) {
        if (data == NULL) {
            arg_error(exc, func, "data",
                      "a non-NULL data pointer for a non-empty tensor",
                      "NULL data with %lld elements", (long long)size);
            return -1;
        }
        uintptr_t address = (uintptr_t)data, end;
        if (address < (uintptr_t)-low ||
            __builtin_add_overflow(address, (uintptr_t)(high + itemsize), &end)) {
            arg_error(exc, func, "strides", "an extent inside the address space",
                      "data at %p with elements from byte %lld to %lld", data,
                      (long long)low, (long long)(high + itemsize));
            return -1;
        }
    }
    for (int i = 0; i < b->ndim; i++) {
        b->view_shape[i] = (Py_ssize_t)b->shape[i];
        b->view_strides[i] = (Py_ssize_t)(b->strides[i] * itemsize);
    }
    b->data = data;
    return 0;
}

/* ---------------------------------------------------------- Buffer life --- */

/* Buffers freed, kept for the next ones made (spare.h): an import from an
 * immutable framework makes and frees one per conversion. */
static Buffer *spare_buffers[UT_SPARES + 1];
static int n_spare_buffers = 0;

static Buffer *
buffer_new(Source source)
{
    Buffer *b;
    if (n_spare_buffers > 0) { /* every field is set below, as after GC_New */
        b = spare_buffers[--n_spare_buffers];
        PyObject_Init((PyObject *)b, &BufferType);
    }
    else {
        b = PyObject_GC_New(Buffer, &BufferType);
        if (b == NULL) {
            return NULL;
        }
    }
    b->source = source;
    b->kind = NULL;
    b->managed = NULL;
    b->base = NULL;
    b->has_view = false;
    b->owned = NULL;
    b->released = false;
    b->data = NULL;
    b->byte_offset = 0;
    b->ndim = 0;
    b->shape = b->dims;
    b->strides = b->dims + INLINE_NDIM;
    b->view_shape = (Py_ssize_t *)(b->dims + 2 * INLINE_NDIM);
    b->view_strides = (Py_ssize_t *)(b->dims + 3 * INLINE_NDIM);
    b->dtype = (DLDataType){kDLFloat, 64, 1};
    b->device = (DLDevice){kDLCPU, 0};
    b->readonly = false;
    b->is_copied = false;
    b->version_major = -1;
    b->version_minor = -1;
    b->stream = Py_NewRef(Py_None);
    b->producer = Py_NewRef(Py_None);
    b->weakreflist = NULL;
    b->live_prev = NULL;
    b->live_next = live;
    if (live != NULL) {
        live->live_prev = b;
    }
    live = b;
    stats.buffers_alive++;
    PyObject_GC_Track(b);
    return b;
}

/* Give b room for ndim dimensions (0 <= ndim <= MAX_NDIM, checked by the
 * caller) and set its ndim; -1 with a MemoryError. Called once per Buffer,
 * before any dimension is written. */
static int
buffer_set_ndim(Buffer *b, int ndim)
{
    if (ndim > INLINE_NDIM) {
        int64_t *dims = PyMem_Malloc(4 * sizeof(int64_t) * (size_t)ndim);
        if (dims == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->shape = dims;
        b->strides = dims + ndim;
        b->view_shape = (Py_ssize_t *)(dims + 2 * ndim);
        b->view_strides = (Py_ssize_t *)(dims + 3 * ndim);
    }
    b->ndim = ndim;
    return 0;
}

/* Rule 1: gives back whatever source the Buffer owns; from dealloc only. */
static void
release_source(Buffer *b)
{
    if (b->managed != NULL) {
        void *managed = b->managed;
        b->managed = NULL;
        managed_delete(b->kind, managed);
        stats.imported_deleters_run++;
    }
    if (b->has_view) {
        b->has_view = false;
        PyBuffer_Release(&b->view);
    }
    free(b->owned);
    b->owned = NULL;
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
    Py_VISIT(b->producer);
    return 0;
}

static int
buffer_clear(Buffer *b)
{
    /* Rule 6: only the Python references. The memory may go with them, so the
     * Buffer refuses every export from now on (CPython's memoryview does the
     * same when it is released). */
    if (b->has_view || b->base != NULL) {
        b->released = true;
    }
    if (b->has_view) {
        b->has_view = false;
        PyBuffer_Release(&b->view);
    }
    Py_CLEAR(b->base);
    Py_CLEAR(b->stream);
    Py_CLEAR(b->producer);
    return 0;
}

static void
buffer_dealloc(Buffer *b)
{
    PyObject_GC_UnTrack(b);
    /* off the live list first: its memory may go in release_source() */
    if (b->live_prev != NULL) {
        b->live_prev->live_next = b->live_next;
    }
    else {
        live = b->live_next;
    }
    if (b->live_next != NULL) {
        b->live_next->live_prev = b->live_prev;
    }
    if (b->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)b);
    }
    release_source(b);
    Py_CLEAR(b->stream);
    Py_CLEAR(b->producer);
    stats.buffers_alive--;
    if (b->shape != b->dims) {
        PyMem_Free(b->shape);
    }
    if (n_spare_buffers < UT_SPARES) {
        spare_buffers[n_spare_buffers++] = b;
    }
    else {
        PyObject_GC_Del(b);
    }
}

/* The memory is still there (rule 6). */
static int
check_usable(Buffer *b, const char *func)
{
    if (b->released) {
        arg_error(PyExc_BufferError, func, "self", "a Buffer whose memory is alive",
                  "one released by the garbage collector");
        return -1;
    }
    return 0;
}

/* -------------------------------------------------------- DLPack import --- */

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
    if (device_name(t->device.device_type) == NULL) {
        arg_error(PyExc_BufferError, func, "device", "a DLPack device type",
                  "unknown device type %d", (int)t->device.device_type);
        return -1;
    }
    if (t->device.device_id < 0) { /* no device has one */
        arg_error(PyExc_BufferError, func, "device", "a device id of 0 or more",
                  "device %s (%d, %d)", device_name(t->device.device_type),
                  (int)t->device.device_type, (int)t->device.device_id);
        return -1;
    }
    if (t->ndim > 0 && t->shape == NULL) {
        arg_error(PyExc_BufferError, func, "shape", "a shape array for ndim > 0",
                  "NULL shape with ndim=%d", (int)t->ndim);
        return -1;
    }
    if (buffer_set_ndim(b, t->ndim) < 0) {
        return -1;
    }
    b->dtype = t->dtype;
    b->device = t->device;
    /* CPU memory is one device, id 0. JAX's virtual CPU devices
     * (--xla_force_host_platform_device_count) put their own index in the
     * capsule (while __dlpack_device__ says 0): the memory is the same. */
    if (b->device.device_type == kDLCPU) {
        b->device.device_id = 0;
    }
    b->byte_offset = t->byte_offset;
    for (int i = 0; i < b->ndim; i++) {
        b->shape[i] = t->shape[i];
    }
    if (t->strides == NULL) {
        compact_strides(b, b->strides); /* NULL strides: compact row-major */
    }
    else {
        for (int i = 0; i < b->ndim; i++) {
            b->strides[i] = t->strides[i];
        }
    }
    uintptr_t address = (uintptr_t)t->data;
    if (address != 0 && __builtin_add_overflow(address, t->byte_offset, &address)) {
        arg_error(PyExc_BufferError, func, "byte_offset",
                  "an offset inside the address space", "%llu past %p",
                  (unsigned long long)t->byte_offset, t->data);
        return -1;
    }
    return finish_layout(b, (char *)address, PyExc_BufferError, func);
}

/* Validate a managed tensor of the given kind and copy its metadata into b. */
static int
load_managed(Buffer *b, const CapsuleKind *kind, void *managed, const char *func)
{
    DLPackVersion version;
    uint64_t flags;
    managed_header(kind, managed, &version, &flags);
    if (kind->versioned) {
        if (version.major != UT_DLPACK_MAJOR) {
            arg_error(PyExc_BufferError, func, "capsule", "DLPack major version 1",
                      "version %u.%u", version.major, version.minor);
            return -1;
        }
        b->version_major = (int)version.major;
        b->version_minor = (int)version.minor;
    }
    if (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) {
        arg_error(PyExc_BufferError, func, "capsule", "whole-byte dtypes",
                  "the IS_SUBBYTE_TYPE_PADDED flag");
        return -1;
    }
    if (load_dltensor(b, managed_tensor(kind, managed), func) < 0) {
        return -1;
    }
    b->readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    b->is_copied = (flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0;
    return 0;
}

static PyObject *
from_capsule(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames)
{
    static const char accepted[] =
        "a PyCapsule named 'dltensor_versioned' or 'dltensor'";
    PyObject *capsule;
    const char *func = "from_capsule", *arg = "capsule";
    if (parse_importer_args(func, args, nargs, kwnames, &capsule, &func, &arg) < 0) {
        return NULL;
    }
    PyObject *result = NULL;
    Buffer *b = NULL;
    const CapsuleKind *kind = NULL;
    const char *name = NULL;
    void *managed = NULL;

    if (!PyCapsule_CheckExact(capsule)) {
        arg_error(PyExc_TypeError, func, arg, accepted, "an object of type '%s'",
                  Py_TYPE(capsule)->tp_name);
        goto done;
    }
    name = PyCapsule_GetName(capsule);
    kind = kind_named(name, false);
    if (kind == NULL) {
        if (kind_named(name, true) != NULL) {
            arg_error(PyExc_ValueError, func, arg, accepted,
                      "a capsule that was already consumed (named '%s')", name);
        }
        else if (name == NULL) {
            arg_error(PyExc_TypeError, func, arg, accepted, "an unnamed capsule");
        }
        else {
            arg_error(PyExc_TypeError, func, arg, accepted, "a capsule named '%s'",
                      name);
        }
        goto done;
    }
    managed = PyCapsule_GetPointer(capsule, name);
    if (managed == NULL) {
        goto done;
    }
    b = buffer_new(kind->source);
    if (b == NULL || load_managed(b, kind, managed, func) < 0) {
        goto done;
    }
    /* Every check passed: only now take ownership (rule 2). */
    if (PyCapsule_SetName(capsule, kind->used_name) < 0) {
        goto done;
    }
    b->kind = kind;
    b->managed = managed;
    result = (PyObject *)b;
    b = NULL;
done:
    Py_XDECREF(b);
    return result;
}

/* ---------------------------------------------- array interface imports --- */

/* Read a typestr such as '<f8' into b->dtype; `override` (bfloat16, which the
 * typestr can only call '|V2') replaces the kind, and the item sizes must agree. */
static int
parse_typestr(Buffer *b, PyObject *typestr, const DLDataType *override,
              const char *func)
{
    static const char accepted[] =
        "a typestr of kind b, i, u, f or c in native byte order";
    if (!PyUnicode_Check(typestr)) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "%R", typestr);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(typestr);
    if (s == NULL) {
        return -1;
    }
    long itemsize = 0;
    bool well_formed =
        strlen(s) >= 3 && strlen(s) <= 5 && strchr("<>|=", s[0]) && s[1] != '\0';
    for (const char *p = s + 2; well_formed && *p != '\0'; p++) {
        well_formed = *p >= '0' && *p <= '9';
        itemsize = itemsize * 10 + (*p - '0');
    }
    if (!well_formed || itemsize == 0 || itemsize > 16) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    if (s[0] == (PY_LITTLE_ENDIAN ? '>' : '<') && itemsize > 1) {
        arg_error(PyExc_BufferError, func, "typestr",
                  "native byte order (swap it first)", "byte order of '%s'", s);
        return -1;
    }
    if (override != NULL) {
        if (itemsize * 8 != override->bits) {
            arg_error(PyExc_BufferError, func, "dtype",
                      "a dtype of the typestr's item size", "'%s' for %d bits", s,
                      (int) override->bits);
            return -1;
        }
        b->dtype = *override;
        return 0;
    }
    const char *kinds = "iufcb"; /* in DLPack code order, bool last */
    const char *kind = strchr(kinds, s[1]);
    DLDataType dt = {0, (uint8_t)(itemsize * 8), 1};
    if (kind == NULL) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    static const uint8_t codes[] = {kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool};
    dt.code = codes[kind - kinds];
    if (!dtype_supported(dt)) {
        arg_error(PyExc_BufferError, func, "typestr", accepted, "'%s'", s);
        return -1;
    }
    b->dtype = dt;
    return 0;
}

/* Read a tuple of at most MAX_NDIM ints into out[]; returns its length or -1. */
static int
int_tuple(PyObject *obj, int64_t *out, const char *func, const char *arg)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) > MAX_NDIM) {
        arg_error(PyExc_BufferError, func, arg, "a tuple of at most 64 ints", "%R",
                  obj);
        return -1;
    }
    int n = (int)PyTuple_GET_SIZE(obj);
    for (int i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(obj, i);
        long long v = PyLong_Check(item) ? PyLong_AsLongLong(item) : -1;
        if (!PyLong_Check(item) || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            arg_error(PyExc_BufferError, func, arg, "a tuple of ints in int64", "%R",
                      obj);
            return -1;
        }
        out[i] = v;
    }
    return n;
}

/* The interface's 'data': an (int address, bool read-only) tuple. */
static int
parse_data(PyObject *data, char **pointer, bool *readonly, const char *func)
{
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(data, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(data, 1))) {
        arg_error(PyExc_BufferError, func, "data", "a (pointer, read-only) tuple", "%R",
                  data);
        return -1;
    }
    unsigned long long address = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if ((address == (unsigned long long)-1 && PyErr_Occurred()) ||
        address > UINTPTR_MAX) {
        PyErr_Clear();
        arg_error(PyExc_BufferError, func, "data",
                  "an address inside the address space", "%R", data);
        return -1;
    }
    *pointer = (char *)(uintptr_t)address;
    *readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1; /* an int: no error */
    return 0;
}

/* Shared by __array_interface__ and __cuda_array_interface__ (v3). */
/* d[name] (borrowed; NULL where absent), its key a str made once per name and
 * kept (`*key`): PyDict_GetItemString makes and frees one per call, a third of
 * an import through Warp's array interface. */
static PyObject *
item_named(PyObject *d, PyObject **key, const char *name)
{
    if (*key == NULL && (*key = PyUnicode_InternFromString(name)) == NULL) {
        PyErr_Clear();
        return PyDict_GetItemString(d, name);
    }
    PyObject *found = PyDict_GetItemWithError(d, *key);
    PyErr_Clear(); /* (str keys: no error can arise but memory's) */
    return found;
}

static PyObject *
import_interface(PyObject *obj, Source source, DLDevice device,
                 const DLDataType *dtype_override, const char *func, const char *arg)
{
    const bool cuda = source == SOURCE_CUDA_ARRAY_INTERFACE;
    const char *attr = cuda ? "__cuda_array_interface__" : "__array_interface__";
    PyObject *result = NULL, *iface = NULL, *d = NULL;
    Buffer *b = NULL;

    static PyObject *attr_names[2];
    iface = attr_names[cuda] != NULL ||
                    (attr_names[cuda] = PyUnicode_InternFromString(attr)) != NULL
                ? PyObject_GetAttr(obj, attr_names[cuda])
                : NULL;
    if (iface == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            arg_error(PyExc_TypeError, func, arg,
                      cuda ? "an object with __cuda_array_interface__"
                           : "an object with __array_interface__",
                      "an object of type '%s'", Py_TYPE(obj)->tp_name);
        }
        goto done;
    }
    if (!PyDict_Check(iface)) {
        arg_error(PyExc_BufferError, func, attr, "a dict", "an object of type '%s'",
                  Py_TYPE(iface)->tp_name);
        goto done;
    }
    d = PyDict_Copy(iface); /* a private copy: its items stay alive while read */
    if (d == NULL) {
        goto done;
    }
    static PyObject *keys[7];
    PyObject *typestr = item_named(d, &keys[0], "typestr");
    PyObject *shape = item_named(d, &keys[1], "shape");
    PyObject *data = item_named(d, &keys[2], "data");
    PyObject *strides = item_named(d, &keys[3], "strides");
    PyObject *mask = item_named(d, &keys[4], "mask");
    PyObject *stream = item_named(d, &keys[5], "stream");
    PyObject *version = item_named(d, &keys[6], "version");
    if (typestr == NULL || shape == NULL || data == NULL) {
        arg_error(PyExc_BufferError, func, attr,
                  "a dict with 'typestr', 'shape' and 'data'", "%R", iface);
        goto done;
    }
    if (cuda && (version == NULL || !PyLong_Check(version))) {
        arg_error(PyExc_BufferError, func, "version",
                  "an int (the interface's version, 3 at most)", "%R",
                  version == NULL ? Py_None : version);
        goto done;
    }
    if (mask != NULL && mask != Py_None) {
        arg_error(PyExc_BufferError, func, "mask", "None (no masked arrays)",
                  "an object of type '%s'", Py_TYPE(mask)->tp_name);
        goto done;
    }
    b = buffer_new(source);
    if (b == NULL || parse_typestr(b, typestr, dtype_override, func) < 0) {
        goto done;
    }
    b->device = device;
    char *pointer;
    bool readonly;
    if (parse_data(data, &pointer, &readonly, func) < 0) {
        goto done;
    }
    int64_t dims[MAX_NDIM];
    int ndim = int_tuple(shape, dims, func, "shape");
    if (ndim < 0 || buffer_set_ndim(b, ndim) < 0) {
        goto done;
    }
    memcpy(b->shape, dims, sizeof(int64_t) * (size_t)ndim);
    if (strides == NULL || strides == Py_None) {
        compact_strides(b, b->strides);
    }
    else {
        int n = int_tuple(strides, dims, func, "strides");
        if (n >= 0 && n != ndim) {
            arg_error(PyExc_BufferError, func, "strides", "one stride per dimension",
                      "%R for shape %R", strides, shape);
        }
        if (n != ndim) {
            goto done;
        }
        memcpy(b->strides, dims, sizeof(int64_t) * (size_t)ndim);
        int64_t itemsize = itemsize_of(b);
        for (int i = 0; i < ndim; i++) {
            if (b->shape[i] <= 1) {
                continue; /* never stepped: finish_layout() normalises it */
            }
            if (b->strides[i] % itemsize != 0) {
                arg_error(PyExc_BufferError, func, "strides",
                          "byte strides that are multiples of the item size", "%R",
                          strides);
                goto done;
            }
            b->strides[i] /= itemsize;
        }
    }
    if (finish_layout(b, pointer, PyExc_BufferError, func) < 0) {
        goto done;
    }
    b->readonly = readonly;
    if (stream != NULL && stream != Py_None) {
        long long value = PyLong_Check(stream) && !PyBool_Check(stream)
                              ? PyLong_AsLongLong(stream)
                              : 0;
        if (value <= 0) { /* 0 is ambiguous: v3 refuses it */
            PyErr_Clear();
            arg_error(PyExc_BufferError, func, "stream",
                      "None, 1 (the legacy default stream), 2 (the per-thread "
                      "default stream) or a CUDA stream handle",
                      "%R", stream);
            goto done;
        }
        Py_SETREF(b->stream, Py_NewRef(stream));
    }
    b->base = Py_NewRef(obj);
    result = (PyObject *)b;
    b = NULL;
done:
    Py_XDECREF(b);
    Py_XDECREF(d);
    Py_XDECREF(iface);
    return result;
}

static PyObject *
from_array_interface(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"obj", "dtype", "func", "arg", NULL};
    PyObject *obj, *dtype_obj = Py_None;
    const char *func = "from_array_interface", *arg = "obj";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$Oss:from_array_interface",
                                     keywords, &obj, &dtype_obj, &func, &arg)) {
        return NULL;
    }
    DLDataType dtype = {0, 0, 0};
    if (dtype_obj != Py_None) {
        long long v[3] = {-1, -1, -1};
        bool ok = PyTuple_Check(dtype_obj) && PyTuple_GET_SIZE(dtype_obj) == 3;
        for (int i = 0; ok && i < 3; i++) {
            PyObject *item = PyTuple_GET_ITEM(dtype_obj, i);
            ok = PyLong_Check(item);
            v[i] = ok ? PyLong_AsLongLong(item) : -1;
        }
        PyErr_Clear();
        if (!ok || v[0] < 0 || v[0] > 255 || v[1] < 0 || v[1] > 255 || v[2] < 0 ||
            v[2] > 65535) {
            return arg_error(PyExc_TypeError, func, "dtype",
                             "None or a DLPack (code, bits, lanes) tuple", "%R",
                             dtype_obj);
        }
        dtype = (DLDataType){(uint8_t)v[0], (uint8_t)v[1], (uint16_t)v[2]};
        if (check_dtype(dtype, PyExc_TypeError, func, "dtype") < 0) {
            return NULL;
        }
    }
    return import_interface(obj, SOURCE_ARRAY_INTERFACE, (DLDevice){kDLCPU, 0},
                            dtype_obj == Py_None ? NULL : &dtype, func, arg);
}

static PyObject *
from_cuda_array_interface(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"obj", "device_id", "func", "arg", NULL};
    PyObject *obj;
    int device_id = 0;
    const char *func = "from_cuda_array_interface", *arg = "obj";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|i$ss:from_cuda_array_interface",
                                     keywords, &obj, &device_id, &func, &arg)) {
        return NULL;
    }
    return import_interface(obj, SOURCE_CUDA_ARRAY_INTERFACE,
                            (DLDevice){kDLCUDA, device_id}, NULL, func, arg);
}

/* ------------------------------------------------------ buffer protocol --- */

/* Map a struct-module format to b->dtype, by the view's item size. */
static int
parse_format(Buffer *b, const char *format, Py_ssize_t itemsize, const char *func,
             const char *arg)
{
    static const char accepted[] =
        "a buffer of bool, integers, float16/32/64 or complex in native byte order";
    const char *f = format == NULL ? "B" : format; /* NULL means unsigned bytes */
    bool foreign = PY_LITTLE_ENDIAN ? (*f == '>' || *f == '!') : *f == '<';
    if (foreign && itemsize > 1) {
        arg_error(PyExc_BufferError, func, arg, "native byte order",
                  "byte order of format '%s'", f);
        return -1;
    }
    if (*f != '\0' && strchr("@=<>!", *f) != NULL) {
        f++; /* a single byte has no byte order */
    }
    /* (format, DLPack code, its item size or 0 for the platform's own) */
    static const struct {
        const char *format;
        uint8_t code;
        Py_ssize_t itemsize;
    } formats[] = {
        {"?", kDLBool, 1},  {"b", kDLInt, 0},      {"h", kDLInt, 0},
        {"i", kDLInt, 0},   {"l", kDLInt, 0},      {"q", kDLInt, 0},
        {"n", kDLInt, 0},   {"B", kDLUInt, 0},     {"H", kDLUInt, 0},
        {"I", kDLUInt, 0},  {"L", kDLUInt, 0},     {"Q", kDLUInt, 0},
        {"N", kDLUInt, 0},  {"e", kDLFloat, 2},    {"f", kDLFloat, 4},
        {"d", kDLFloat, 8}, {"Zf", kDLComplex, 8}, {"Zd", kDLComplex, 16},
    };
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        if (strcmp(f, formats[i].format) != 0) {
            continue;
        }
        DLDataType dt = {formats[i].code, (uint8_t)(itemsize * 8), 1};
        if ((formats[i].itemsize != 0 && itemsize != formats[i].itemsize) ||
            itemsize > 16 || !dtype_supported(dt)) {
            break;
        }
        b->dtype = dt;
        return 0;
    }
    arg_error(PyExc_BufferError, func, arg, accepted, "format '%s' of item size %zd",
              format == NULL ? "B" : format, itemsize);
    return -1;
}

static PyObject *
from_buffer(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames)
{
    PyObject *obj;
    const char *func = "from_buffer", *arg = "obj";
    if (parse_importer_args(func, args, nargs, kwnames, &obj, &func, &arg) < 0) {
        return NULL;
    }
    PyObject *result = NULL;
    Buffer *b = NULL;

    if (!PyObject_CheckBuffer(obj)) {
        arg_error(PyExc_TypeError, func, arg,
                  "an object supporting the buffer protocol", "an object of type '%s'",
                  Py_TYPE(obj)->tp_name);
        goto done;
    }
    b = buffer_new(SOURCE_BUFFER);
    if (b == NULL || PyObject_GetBuffer(obj, &b->view, PyBUF_RECORDS_RO) < 0) {
        goto done;
    }
    b->has_view = true;
    const Py_buffer *v = &b->view;
    if (v->ndim < 0 || v->ndim > MAX_NDIM || v->suboffsets != NULL ||
        (v->ndim > 1 && v->shape == NULL)) {
        arg_error(PyExc_BufferError, func, arg,
                  "a strided buffer of at most 64 dimensions", "ndim=%d%s", v->ndim,
                  v->suboffsets != NULL ? " with suboffsets" : "");
        goto done;
    }
    if (v->itemsize <= 0 || parse_format(b, v->format, v->itemsize, func, arg) < 0) {
        if (!PyErr_Occurred()) {
            arg_error(PyExc_BufferError, func, arg, "a positive item size", "%zd",
                      v->itemsize);
        }
        goto done;
    }
    if (buffer_set_ndim(b, v->ndim) < 0) {
        goto done;
    }
    for (int i = 0; i < v->ndim; i++) {
        b->shape[i] = v->shape != NULL ? v->shape[i] : v->len / v->itemsize;
    }
    if (v->strides == NULL) {
        compact_strides(b, b->strides);
    }
    for (int i = 0; v->strides != NULL && i < v->ndim; i++) {
        if (b->shape[i] <= 1) {
            continue; /* never stepped: finish_layout() normalises it */
        }
        if (v->strides[i] % v->itemsize != 0) {
            arg_error(PyExc_BufferError, func, arg,
                      "strides that are multiples of the item size", "stride %zd",
                      v->strides[i]);
            goto done;
        }
        b->strides[i] = v->strides[i] / v->itemsize;
    }
    if (finish_layout(b, v->buf, PyExc_BufferError, func) < 0) {
        goto done;
    }
    b->readonly = v->readonly != 0;
    b->base = Py_NewRef(obj);
    result = (PyObject *)b;
    b = NULL;
done:
    Py_XDECREF(b);
    return result;
}

/* --------------------------------------------------------- owned memory --- */

static int
parse_alignment(PyObject *obj, size_t *out, const char *func)
{
    Py_ssize_t a = PyNumber_AsSsize_t(obj, NULL); /* clamps instead of raising */
    if (a == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        arg_error(PyExc_TypeError, func, "alignment", "an int",
                  "an object of type '%s'", Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (a < (Py_ssize_t)sizeof(void *) || a > MAX_ALIGNMENT || (a & (a - 1)) != 0) {
        arg_error(PyExc_ValueError, func, "alignment",
                  "a power of two between 8 and 4096", "%R", obj);
        return -1;
    }
    *out = (size_t)a;
    return 0;
}

/* A writable, zero-filled, C-contiguous CPU Buffer of the given shape and dtype
 * whose data is aligned to `alignment` (a non-NULL pointer even for size 0). */
static Buffer *
owned_buffer(int ndim, const int64_t *shape, DLDataType dtype, size_t alignment,
             const char *func)
{
    Buffer *result = NULL, *b = buffer_new(SOURCE_OWNED);
    if (b == NULL) {
        goto done;
    }
    if (buffer_set_ndim(b, ndim) < 0) {
        goto done;
    }
    b->dtype = dtype;
    memcpy(b->shape, shape, sizeof(int64_t) * (size_t)ndim);
    compact_strides(b, b->strides);
    /* The layout is checked before memory exists: a stand-in address. */
    if (finish_layout(b, (char *)(uintptr_t)alignment, PyExc_ValueError, func) < 0) {
        goto done;
    }
    size_t nbytes = (size_t)(size_of(b) * itemsize_of(b)), total;
    if (__builtin_add_overflow(nbytes, alignment, &total)) {
        PyErr_NoMemory();
        goto done;
    }
    /* calloc: large blocks come as fresh zero pages, never written twice. */
    char *memory = calloc(1, total);
    if (memory == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    b->owned = memory;
    b->data = memory + (alignment - (uintptr_t)memory % alignment) % alignment;
    result = b;
    b = NULL;
done:
    Py_XDECREF(b);
    return result;
}

static PyObject *
empty(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "empty";
    static const char accepted[] = "a tuple of at most 64 non-negative ints";
    static char *keywords[] = {"shape", "code", "bits", "alignment", NULL};
    PyObject *shape_obj, *alignment_obj = NULL;
    int code, bits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oii|O:empty", keywords, &shape_obj,
                                     &code, &bits, &alignment_obj)) {
        return NULL;
    }
    size_t alignment = DEFAULT_ALIGNMENT;
    if (alignment_obj != NULL && parse_alignment(alignment_obj, &alignment, func) < 0) {
        return NULL;
    }
    if (!PyTuple_Check(shape_obj) || PyTuple_GET_SIZE(shape_obj) > MAX_NDIM) {
        return arg_error(PyExc_TypeError, func, "shape", accepted, "%R", shape_obj);
    }
    int64_t shape[MAX_NDIM];
    int ndim = (int)PyTuple_GET_SIZE(shape_obj);
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyTuple_GET_ITEM(shape_obj, i);
        if (!PyIndex_Check(item)) {
            return arg_error(PyExc_TypeError, func, "shape", accepted, "%R", shape_obj);
        }
        Py_ssize_t n = PyNumber_AsSsize_t(item, NULL);
        if (n == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (n < 0 || n == PY_SSIZE_T_MAX) {
            return arg_error(PyExc_ValueError, func, "shape", accepted, "%R",
                             shape_obj);
        }
        shape[i] = n;
    }
    DLDataType dtype = {(uint8_t)code, (uint8_t)bits, 1};
    if (code < 0 || code > 255 || bits < 0 || bits > 255) {
        return arg_error(PyExc_TypeError, func, "dtype", DTYPES_ACCEPTED,
                         "dtype code=%d, bits=%d", code, bits);
    }
    if (check_dtype(dtype, PyExc_TypeError, func, "dtype") < 0) {
        return NULL;
    }
    return (PyObject *)owned_buffer(ndim, shape, dtype, alignment, func);
}

/* Copy src's elements, in row-major order, into the compact memory at dst. */
static void
copy_strided(const Buffer *src, char *dst)
{
    int64_t itemsize = itemsize_of(src), size = size_of(src);
    if (size == 0) {
        return;
    }
    if (is_contiguous(src, true)) {
        memcpy(dst, src->data, (size_t)(size * itemsize));
        return;
    }
    int64_t index[MAX_NDIM] = {0};
    const int last = src->ndim - 1; /* >= 0: a 0-d tensor is contiguous */
    const int64_t inner = src->shape[last], step = src->strides[last] * itemsize;
    const char *row = src->data;
    for (;;) {
        if (step == itemsize) {
            memcpy(dst, row, (size_t)(inner * itemsize));
            dst += inner * itemsize;
        }
        else {
            const char *p = row;
            for (int64_t k = 0; k < inner; k++, p += step, dst += itemsize) {
                memcpy(dst, p, (size_t)itemsize);
            }
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

/* A C-contiguous, writable, aligned copy of self's memory (CPU-readable only). */
static Buffer *
copy_buffer(Buffer *self, size_t alignment, const char *func)
{
    if (check_usable(self, func) < 0) {
        return NULL;
    }
    if (!cpu_readable(self->device)) {
        arg_error(PyExc_BufferError, func, "self", "memory the CPU can read",
                  "memory on device %s (%d, %d)", device_name(self->device.device_type),
                  (int)self->device.device_type, (int)self->device.device_id);
        return NULL;
    }
    Buffer *copy = owned_buffer(self->ndim, self->shape, self->dtype, alignment, func);
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
    size_t alignment = DEFAULT_ALIGNMENT;
    if (alignment_obj != NULL &&
        parse_alignment(alignment_obj, &alignment, "copy") < 0) {
        return NULL;
    }
    return (PyObject *)copy_buffer(self, alignment, "copy");
}

/* -------------------------------------------------------- DLPack export --- */

/* ------------------------------------------------------------ LentTable --- */

/* Memory lent read-only to a framework that cannot mark its arrays read-only
 * (torch): the address the memory starts at -> how many of that framework's
 * arrays' storages are alive over it, counted when an export is made
 * (record_lent) and taken back by its deleter (export_free). Open addressing
 * over machine words, linear probing, deletion by shifting back: counting makes
 * no Python object (a dict of ints cost ~1,500 instructions a conversion, a
 * tenth of TensorFlow -> torch). Python reads it as a set of addresses
 * (`address in table`, len()) and counts() as a dict. */
typedef struct {
    PyObject_HEAD uintptr_t *addresses; /* 0: an empty slot */
    Py_ssize_t *counts;
    int bits; /* 2**bits slots; 0: none allocated yet */
    Py_ssize_t filled;
} LentTable;

static PyTypeObject LentTableType;

static inline size_t
lent_home(const LentTable *t, uintptr_t address)
{
    /* Fibonacci hashing: addresses are aligned, their low bits alike */
    return (size_t)(((uint64_t)address * 0x9E3779B97F4A7C15ull) >> (64 - t->bits));
}

/* The slot of `address`, or the empty one where it would go. */
static size_t
lent_slot(const LentTable *t, uintptr_t address)
{
    size_t mask = ((size_t)1 << t->bits) - 1, i = lent_home(t, address);
    while (t->addresses[i] != 0 && t->addresses[i] != address) {
        i = (i + 1) & mask;
    }
    return i;
}

/* Room for one more address (at most half the slots filled); -1 with
 * MemoryError. */
static int
lent_reserve(LentTable *t)
{
    if (t->bits > 0 && 2 * (t->filled + 1) <= ((Py_ssize_t)1 << t->bits)) {
        return 0;
    }
    LentTable grown = {.bits = t->bits > 0 ? t->bits + 1 : 4, .filled = t->filled};
    grown.addresses = PyMem_Calloc((size_t)1 << grown.bits, sizeof(uintptr_t));
    grown.counts = PyMem_Calloc((size_t)1 << grown.bits, sizeof(Py_ssize_t));
    if (grown.addresses == NULL || grown.counts == NULL) {
        PyMem_Free(grown.addresses);
        PyMem_Free(grown.counts);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; t->bits > 0 && i < ((size_t)1 << t->bits); i++) {
        if (t->addresses[i] != 0) {
            size_t j = lent_slot(&grown, t->addresses[i]);
            grown.addresses[j] = t->addresses[i];
            grown.counts[j] = t->counts[i];
        }
    }
    PyMem_Free(t->addresses);
    PyMem_Free(t->counts);
    t->addresses = grown.addresses;
    t->counts = grown.counts;
    t->bits = grown.bits;
    return 0;
}

/* One more export alive over the memory at `address`. 0, or -1 with an error. */
static int
lent_add(LentTable *t, uintptr_t address)
{
    if (lent_reserve(t) < 0) {
        return -1;
    }
    size_t i = lent_slot(t, address);
    if (t->addresses[i] == 0) {
        t->addresses[i] = address;
        t->filled++;
    }
    t->counts[i]++;
    return 0;
}

/* One export fewer over the memory at `address`; its slot emptied at 0, the
 * addresses after it in its run shifted back so that no search stops short. */
static void
lent_remove(LentTable *t, uintptr_t address)
{
    if (t->bits == 0) {
        return;
    }
    size_t mask = ((size_t)1 << t->bits) - 1, i = lent_slot(t, address);
    if (t->addresses[i] != address || --t->counts[i] > 0) {
        return;
    }
    for (size_t j = (i + 1) & mask; t->addresses[j] != 0; j = (j + 1) & mask) {
        size_t home = lent_home(t, t->addresses[j]);
        /* stays where its home lies cyclically in (i, j] */
        bool stays = i < j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            t->addresses[i] = t->addresses[j];
            t->counts[i] = t->counts[j];
            i = j;
        }
    }
    t->addresses[i] = 0;
    t->counts[i] = 0;
    t->filled--;
}

static PyObject *
lent_table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0 ||
        (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "LentTable() takes no arguments");
        return NULL;
    }
    return type->tp_alloc(type, 0); /* zeroed: no slots yet */
}

static void
lent_table_dealloc(LentTable *t)
{
    PyMem_Free(t->addresses);
    PyMem_Free(t->counts);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t
lent_table_length(LentTable *t)
{
    return t->filled;
}

static int
lent_table_contains(LentTable *t, PyObject *key)
{
    uintptr_t address = (uintptr_t)PyLong_AsVoidPtr(key);
    if (address == 0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError) &&
            !PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return -1;
        }
        PyErr_Clear(); /* not an address: not in the table */
        return 0;
    }
    return address != 0 && t->bits > 0 &&
           t->addresses[lent_slot(t, address)] == address;
}

static PyObject *
lent_table_counts(LentTable *t, PyObject *Py_UNUSED(ignored))
{
    PyObject *counts = PyDict_New();
    for (size_t i = 0; counts != NULL && t->bits > 0 && i < ((size_t)1 << t->bits);
         i++) {
        if (t->addresses[i] == 0) {
            continue;
        }
        PyObject *address = PyLong_FromVoidPtr((void *)t->addresses[i]);
        PyObject *count = address == NULL ? NULL : PyLong_FromSsize_t(t->counts[i]);
        if (count == NULL || PyDict_SetItem(counts, address, count) < 0) {
            Py_CLEAR(counts);
        }
        Py_XDECREF(address);
        Py_XDECREF(count);
    }
    return counts;
}

static PySequenceMethods lent_table_as_sequence = {
    .sq_length = (lenfunc)lent_table_length,
    .sq_contains = (objobjproc)lent_table_contains,
};

static PyMethodDef lent_table_methods[] = {
    {"counts", (PyCFunction)lent_table_counts, METH_NOARGS,
     "counts()\nA dict of every address recorded and its count of live exports."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LentTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._core.LentTable",
    .tp_basicsize = sizeof(LentTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "LentTable()\nThe addresses of memory lent read-only, each with its count "
        "of live exports (record_lent, export_free).",
    .tp_new = lent_table_new,
    .tp_dealloc = (destructor)lent_table_dealloc,
    .tp_as_sequence = &lent_table_as_sequence,
    .tp_methods = lent_table_methods,
};

/* Rule 3: the one place an Export's reference to its Buffer is dropped. */
static void
export_free(Export *e)
{
    if (interpreter_finalizing()) {
        return; /* touching Python objects now could crash: leak instead */
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    stats.exported_alive--;
    if (e->lent_table != NULL) {
        /* The framework freed its array's memory record: one export fewer of
         * that memory (nothing here can raise). */
        lent_remove((LentTable *)e->lent_table, e->lent_address);
        Py_DECREF(e->lent_table);
    }
    Py_DECREF(e->owner);
    if (e->spare_sized && n_spare_exports < UT_SPARES) {
        spare_exports[n_spare_exports++] = e;
    }
    else {
        free(e);
    }
    PyGILState_Release(gil);
}

/* The deleters of the two formats differ only in their argument's type. */
static void
export_deleter_versioned(DLManagedTensorVersioned *m)
{
    export_free(m->manager_ctx);
}

static void
export_deleter_legacy(DLManagedTensor *m)
{
    export_free(m->manager_ctx);
}

/* Fill e's managed struct of the given kind; returns its address. */
static void *
export_managed(Export *e, const CapsuleKind *kind, DLTensor tensor, uint64_t flags)
{
    if (kind->versioned) {
        e->managed.versioned = (DLManagedTensorVersioned){
            .version = {UT_DLPACK_MAJOR, UT_DLPACK_MINOR},
            .manager_ctx = e,
            .deleter = export_deleter_versioned,
            .flags = flags,
            .dl_tensor = tensor,
        };
        return &e->managed.versioned;
    }
    e->managed.legacy = (DLManagedTensor){
        .dl_tensor = tensor,
        .manager_ctx = e,
        .deleter = export_deleter_legacy,
    };
    return &e->managed.legacy;
}

/* An unconsumed capsule frees its tensor; a consumed one (renamed "used_*")
 * belongs to its consumer. */
static void
capsule_destructor(PyObject *capsule)
{
    /* No call here may set an error: an exception may be propagating. */
    const char *name = PyCapsule_GetName(capsule);
    const CapsuleKind *kind = kind_named(name, false);
    if (kind != NULL && PyCapsule_IsValid(capsule, name)) {
        managed_delete(kind, PyCapsule_GetPointer(capsule, name));
    }
}

/* Rule 3: a new Export of the given kind over `tensor` (shape and strides
 * copied into it), holding a reference to `owner`, the object that keeps the
 * memory alive, until its deleter runs. */
static void *
new_export_of(PyObject *owner, const CapsuleKind *kind, DLTensor tensor, uint64_t flags)
{
    const size_t ndim = (size_t)tensor.ndim;
    Export *e = ndim > INLINE_NDIM    ? malloc(EXPORT_SIZE(ndim))
                : n_spare_exports > 0 ? spare_exports[--n_spare_exports]
                                      : malloc(EXPORT_SIZE(INLINE_NDIM));
    if (e == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t i = 0; i < ndim; i++) { /* (a handful: no memcpy call) */
        e->dims[i] = tensor.shape[i];
        e->dims[ndim + i] = tensor.strides[i];
    }
    tensor.shape = e->dims;
    tensor.strides = e->dims + ndim;
    void *managed = export_managed(e, kind, tensor, flags);
    e->owner = Py_NewRef(owner);
    e->lent_table = NULL;
    e->lent_address = 0;
    e->spare_sized = ndim <= INLINE_NDIM;
    stats.capsules_exported++;
    stats.exported_alive++;
    return managed;
}

/* Rule 3: a new managed tensor of the given kind over owner's memory, holding
 * a reference to owner until its deleter runs. */
static void *
new_export(Buffer *owner, const CapsuleKind *kind, bool copied)
{
    /* Strides always (DLPack 1.2 forbids NULL for ndim > 0); the byte offset is
     * folded into data, since some consumers mishandle a nonzero one. */
    DLTensor tensor = {
        .data = owner->data,
        .device = owner->device,
        .ndim = owner->ndim,
        .dtype = owner->dtype,
        .shape = owner->shape,
        .strides = owner->strides,
        .byte_offset = 0,
    };
    uint64_t flags = (owner->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                     (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    return new_export_of((PyObject *)owner, kind, tensor, flags);
}

/* Rule 3: a new capsule of the given kind over owner's memory. */
static PyObject *
export_capsule(Buffer *owner, const CapsuleKind *kind, bool copied)
{
    void *managed = new_export(owner, kind, copied);
    if (managed == NULL) {
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(managed, kind->name, capsule_destructor);
    if (capsule == NULL) {
        managed_delete(kind, managed);
    }
    return capsule;
}

/* A tuple of exactly two ints (in long long range) into out[]. */
static int
int_pair(PyObject *obj, long long out[2])
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *item = PyTuple_GET_ITEM(obj, i);
        out[i] = PyLong_Check(item) ? PyLong_AsLongLong(item) : -1;
        if (!PyLong_Check(item) || (out[i] == -1 && PyErr_Occurred())) {
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
    if (check_usable(self, func) < 0) {
        return NULL;
    }
    long long wait;
    if (parse_consumer_stream(self->device, stream, &wait, func) < 0) {
        return NULL;
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
                    device[1] == self->device.device_id;
        if (!same) {
            char own[96];
            snprintf(own, sizeof(own),
                     "the tensor's own device (%d, %d); unitensor never copies "
                     "across devices here",
                     (int)self->device.device_type, (int)self->device.device_id);
            return arg_error(PyExc_BufferError, func, "dl_device", own, "(%lld, %lld)",
                             device[0], device[1]);
        }
    }
    if (copy != Py_None && copy != Py_True && copy != Py_False) {
        return arg_error(PyExc_TypeError, func, "copy", "True, False or None",
                         "an object of type '%s'", Py_TYPE(copy)->tp_name);
    }
    const CapsuleKind *kind =
        max_version != Py_None && version[0] >= 1 ? KIND_VERSIONED : KIND_LEGACY;
    if (wait_for_producer(self, wait) < 0) {
        return NULL;
    }
    if (copy == Py_True) {
        Buffer *fresh = copy_buffer(self, DEFAULT_ALIGNMENT, func);
        if (fresh == NULL) {
            return NULL;
        }
        PyObject *capsule = export_capsule(fresh, kind, true);
        Py_DECREF(fresh); /* the capsule's Export holds it now */
        return capsule;
    }
    /* A legacy capsule of read-only memory loses the flag: exported all the same,
     * as JAX and TensorFlow export their immutable buffers (the consumer owns the
     * consequence, as with torch.from_dlpack; Tensor.__dlpack__ warns once). */
    return export_capsule(self, kind, false);
}

static PyObject *
buffer_export_legacy(Buffer *self, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "export_legacy";
    static char *keywords[] = {"allow_readonly", "stream", NULL};
    int allow_readonly = 0;
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$pO:export_legacy", keywords,
                                     &allow_readonly, &stream)) {
        return NULL;
    }
    if (check_usable(self, func) < 0) {
        return NULL;
    }
    long long wait;
    if (parse_consumer_stream(self->device, stream, &wait, func) < 0) {
        return NULL;
    }
    if (self->readonly && !allow_readonly) {
        return arg_error(PyExc_BufferError, func, "allow_readonly",
                         "True for read-only memory", "False");
    }
    if (wait_for_producer(self, wait) < 0) {
        return NULL;
    }
    return export_capsule(self, KIND_LEGACY, false);
}

/* For a consumer already holding a view (a cached one): its stream waits for
 * the producer's work now, as a new __dlpack__(stream=...) would make it. */
static PyObject *
buffer_order(Buffer *self, PyObject *args, PyObject *kwargs)
{
    static const char func[] = "order";
    static char *keywords[] = {"stream", NULL};
    PyObject *stream;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:order", keywords, &stream)) {
        return NULL;
    }
    long long wait;
    if (check_usable(self, func) < 0 ||
        parse_consumer_stream(self->device, stream, &wait, func) < 0 ||
        wait_for_producer(self, wait) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
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
    self->readonly = true; /* one way: nothing makes memory writable again */
    Py_RETURN_NONE;
}

/* ------------------------------------------- DLPack C exchange API --- */

/* The exchange table a framework publishes on its array type (DLPack 1.3), or
 * NULL with a TypeError naming `arg`. Only a type's own declaration counts: a
 * subclass inherits the attribute but may have changed what its data means
 * (torch's tensor subclasses, whose __dlpack__ they may override), so it takes
 * the Python protocol. Types seen are remembered: the table is static in the
 * framework for the life of the process (the spec's rule). */
#define N_EXCHANGE_TYPES 8
static struct {
    PyTypeObject *type; /* a strong reference */
    const DLPackExchangeAPI *api;
} exchange_types[N_EXCHANGE_TYPES];

static const DLPackExchangeAPI *
exchange_api(PyTypeObject *type, const char *func, const char *arg)
{
    for (int i = 0; i < N_EXCHANGE_TYPES && exchange_types[i].type != NULL; i++) {
        if (exchange_types[i].type == type) {
            return exchange_types[i].api;
        }
    }
    PyObject *capsule =
        type->tp_dict == NULL
            ? NULL
            : PyDict_GetItemString(type->tp_dict, "__dlpack_c_exchange_api__");
    const DLPackExchangeAPI *api =
        capsule == NULL ? NULL : PyCapsule_GetPointer(capsule, UT_EXCHANGE_API_CAPSULE);
    if (api == NULL) {
        PyErr_Clear();
        arg_error(PyExc_TypeError, func, arg,
                  "an array type declaring a DLPack C exchange API "
                  "(__dlpack_c_exchange_api__)",
                  "type '%s'", type->tp_name);
        return NULL;
    }
    if (api->header.version.major != UT_DLPACK_MAJOR ||
        api->managed_tensor_from_py_object_no_sync == NULL ||
        api->managed_tensor_to_py_object_no_sync == NULL) {
        arg_error(PyExc_TypeError, func, arg, "a DLPack 1.x C exchange API",
                  "version %u.%u from type '%s'", api->header.version.major,
                  api->header.version.minor, type->tp_name);
        return NULL;
    }
    for (int i = 0; i < N_EXCHANGE_TYPES; i++) {
        if (exchange_types[i].type == NULL) {
            exchange_types[i].type = (PyTypeObject *)Py_NewRef(type);
            exchange_types[i].api = api;
            break;
        }
    }
    return api;
}

/* A Buffer over the memory of `obj`, a framework array, through the framework's
 * C exchange API: what obj.__dlpack__() gives, without the Python calls. */
static PyObject *
exchange_import(PyObject *module, PyObject *obj)
{
    static const char func[] = "exchange_import";
    const DLPackExchangeAPI *api = exchange_api(Py_TYPE(obj), func, "obj");
    if (api == NULL) {
        return NULL;
    }
    DLManagedTensorVersioned *managed = NULL;
    if (api->managed_tensor_from_py_object_no_sync(obj, &managed) != 0) {
        return NULL; /* the framework set the error; nothing was made */
    }
    Buffer *b = buffer_new(SOURCE_DLPACK_VERSIONED);
    if (b == NULL || load_managed(b, KIND_VERSIONED, managed, func) < 0) {
        managed_delete(KIND_VERSIONED, managed); /* refused: ours to give back */
        Py_XDECREF(b);
        return NULL;
    }
    b->kind = KIND_VERSIONED;
    b->managed = managed;
    return (PyObject *)b;
}

/* An array of api's framework made from `managed`, an Export (rule 3): the
 * consumer owns it from the call on. Whether it has already run the deleter
 * when it fails is not specified: the count of live exports tells. */
static PyObject *
exchange_hand_over(const DLPackExchangeAPI *api, DLManagedTensorVersioned *managed)
{
    Py_ssize_t alive = stats.exported_alive;
    void *out = NULL;
    if (api->managed_tensor_to_py_object_no_sync(managed, &out) != 0) {
        if (stats.exported_alive == alive) {
            managed_delete(KIND_VERSIONED, managed);
        }
        return NULL;
    }
    return out;
}

/* Records the memory `managed` hands over as lent read-only in `table`: its
 * address, counted once per live export, is the key the framework's adapter
 * looks an array's memory up by (the address its storage starts at), and the
 * export's deleter takes its count back when the framework frees that memory.
 * Memory at no address (empty) has nothing to write and is not recorded.
 * 0, or -1 with an error. */
static int
record_lent(DLManagedTensorVersioned *managed, PyObject *table)
{
    char *data = (char *)managed->dl_tensor.data;
    if (data == NULL) {
        return 0;
    }
    uintptr_t address = (uintptr_t)(data + managed->dl_tensor.byte_offset);
    if (lent_add((LentTable *)table, address) < 0) {
        return -1;
    }
    Export *e = managed->manager_ctx;
    e->lent_table = Py_NewRef(table);
    e->lent_address = address;
    return 0;
}

/* NULL for an error that is not an Exception (KeyboardInterrupt goes on up);
 * None, the error cleared, for an Exception: the general path says why. */
static PyObject *
none_for_exceptions(void)
{
    if (!PyErr_ExceptionMatches(PyExc_Exception)) {
        return NULL;
    }
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* The first dimension whose stride is negative and stepped (its size over 1),
 * or -1: torch 2.13's exchange import throws a C++ exception through the C API
 * on such memory, which ends the process, so it is never handed to it. */
static int
stepped_negative_stride(const Buffer *b)
{
    for (int i = 0; i < b->ndim; i++) {
        if (b->strides[i] < 0 && b->shape[i] > 1) {
            return i;
        }
    }
    return -1;
}

/* buf's memory handed to api's framework (an Export it owns from the call on),
 * recorded first in `table` where it is read-only (record_lent). */
static PyObject *
hand_over_recorded(const DLPackExchangeAPI *api, Buffer *b, PyObject *table)
{
    DLManagedTensorVersioned *managed = new_export(b, KIND_VERSIONED, false);
    if (managed == NULL) {
        return NULL;
    }
    if (b->readonly && record_lent(managed, table) < 0) {
        managed_delete(KIND_VERSIONED, managed); /* not handed out */
        return NULL;
    }
    return exchange_hand_over(api, managed);
}

/* An array of the framework whose array type is `type`, over buf's memory,
 * through that framework's C exchange API. Read-only memory only with `lent`, a
 * dict: the exchange has no way to ask the framework for a read-only array, so
 * the memory is recorded in it (record_lent) before the framework sees it,
 * until the framework frees it. */
static PyObject *
exchange_export(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exchange_export";
    if ((nargs != 2 && nargs != 3) || !PyObject_TypeCheck(args[0], &BufferType) ||
        !PyType_Check(args[1])) {
        return arg_error(PyExc_TypeError, func, "args",
                         "(a Buffer, an array type[, lent])", "%zd arguments", nargs);
    }
    PyObject *table = NULL;
    if (nargs == 3 && args[2] != Py_None) {
        if (!Py_IS_TYPE(args[2], &LentTableType)) {
            return arg_error(PyExc_TypeError, func, "lent", "None or a LentTable", "%R",
                             args[2]);
        }
        table = args[2];
    }
    Buffer *b = (Buffer *)args[0];
    const DLPackExchangeAPI *api = exchange_api((PyTypeObject *)args[1], func, "type");
    if (api == NULL || check_usable(b, func) < 0) {
        return NULL;
    }
    if (b->readonly && table == NULL) {
        return arg_error(PyExc_BufferError, func, "buffer", "writable memory",
                         "read-only memory");
    }
    int negative = stepped_negative_stride(b);
    if (negative >= 0) {
        return arg_error(
            PyExc_BufferError, func, "buffer", "memory with non-negative strides",
            "stride %lld in dimension %d", (long long)b->strides[negative], negative);
    }
    return hand_over_recorded(api, b, table);
}

/* Whether unitensor's AliasWarning (read-only memory handed to a framework
 * that cannot mark it so) was given in this process: it is given once.
 * unitensor._errors.warn_read_only_alias reads and sets it; exchange_lend reads
 * it, so that a hand-over calls no Python once it was given. */
static bool alias_warned = false;

static PyObject *
get_alias_warned(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    return PyBool_FromLong(alias_warned);
}

static PyObject *
set_alias_warned(PyObject *module, PyObject *flag)
{
    int value = PyObject_IsTrue(flag);
    if (value < 0) {
        return NULL;
    }
    alias_warned = value;
    Py_RETURN_NONE;
}

/* exchange_lend(export, array_type, lent, warn, obj): the route from an
 * immutable framework (jax, TensorFlow) to one without read-only arrays
 * (torch), in one call: obj's memory as its adapter exports it (export(obj), a
 * read-only Buffer), handed to array_type's framework through its exchange
 * import and recorded in `lent` (exchange_export's record); warn() is called
 * after a hand-over while the alias warning was not given. None where it does
 * not apply and the general path decides: the export or the import refused (an
 * Exception), memory off the CPU, a negative stride. warn()'s exception (the
 * warning raised as an error) is raised, and the array is dropped. */
static PyObject *
exchange_lend(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exchange_lend";
    if (nargs != 5 || !PyCallable_Check(args[0]) || !PyType_Check(args[1]) ||
        !Py_IS_TYPE(args[2], &LentTableType) || !PyCallable_Check(args[3])) {
        return arg_error(PyExc_TypeError, func, "args",
                         "(export, array_type, lent, warn, obj): a callable, an "
                         "array type, a LentTable, a callable, an array",
                         "%zd arguments", nargs);
    }
    const DLPackExchangeAPI *api = exchange_api((PyTypeObject *)args[1], func, "type");
    if (api == NULL) {
        return NULL;
    }
    PyObject *exported = PyObject_CallOneArg(args[0], args[4]);
    if (exported == NULL) {
        return none_for_exceptions();
    }
    if (!PyObject_TypeCheck(exported, &BufferType)) {
        Py_DECREF(exported);
        return arg_error(PyExc_TypeError, func, "export",
                         "a function returning a Buffer", "one returning %R",
                         Py_TYPE(exported));
    }
    Buffer *b = (Buffer *)exported;
    PyObject *array = Py_None;
    if (b->readonly && b->device.device_type == kDLCPU &&
        stepped_negative_stride(b) < 0) {
        array = hand_over_recorded(api, b, args[2]);
        if (array == NULL) {
            array = none_for_exceptions();
        }
        else if (!alias_warned) {
            PyObject *warned = PyObject_CallNoArgs(args[3]);
            Py_XDECREF(warned);
            if (warned == NULL) {
                Py_CLEAR(array);
            }
        }
    }
    else {
        Py_INCREF(array);
    }
    Py_DECREF(b);
    return array;
}

/* A read-only Buffer over a capsule of an immutable framework's memory (its
 * legacy capsules cannot say read-only): from_capsule, marked. */
static PyObject *
immutable_from_capsule(PyObject *module, PyObject *capsule)
{
    Buffer *b = (Buffer *)from_capsule(module, &capsule, 1, NULL);
    if (b != NULL) {
        b->readonly = true;
    }
    return (PyObject *)b;
}

/* immutable_export(capsule_of, obj): immutable_from_capsule(capsule_of(obj)), an
 * immutable framework's export in one C call (TensorFlow's: its C function
 * making the capsule, then the read-only Buffer, no Python frame between). */
static PyObject *
immutable_export(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyCallable_Check(args[0])) {
        return arg_error(PyExc_TypeError, "immutable_export", "args",
                         "(capsule_of, obj): a callable making a DLPack capsule, "
                         "an array",
                         "%zd arguments", nargs);
    }
    PyObject *capsule = PyObject_CallOneArg(args[0], args[1]);
    if (capsule == NULL) {
        return NULL;
    }
    PyObject *b = immutable_from_capsule(module, capsule);
    Py_DECREF(capsule);
    return b;
}

/* Whether any of the refusals in `names` answers True for obj: 1, 0, or -1 with
 * an error. A refusal is the name of obj's method (called with no argument) or
 * attribute (read: torch's requires_grad), a callable (called with obj), or a
 * pair (table, callable): the callable asked only while the table is not empty
 * (memory lent read-only: none in the common case, where a Python call would
 * cost as much as the rest of the route's checks together). */
static int
any_method_true(PyObject *obj, PyObject *names)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i), *answer;
        if (PyTuple_CheckExact(name) && PyTuple_GET_SIZE(name) == 2) {
            Py_ssize_t filled = PyObject_Length(PyTuple_GET_ITEM(name, 0));
            if (filled <= 0) {
                if (filled < 0) {
                    return -1;
                }
                continue;
            }
            name = PyTuple_GET_ITEM(name, 1);
        }
        if (PyUnicode_Check(name)) {
            /* A method of the type (torch's is_neg): called without making a
             * bound method (PyObject_VectorcallMethod looks it up as
             * obj.name does, an instance attribute first). */
            PyObject *found = _PyType_Lookup(Py_TYPE(obj), name);
            if (found != NULL && Py_IS_TYPE(found, &PyMethodDescr_Type)) {
                answer = PyObject_VectorcallMethod(name, &obj, 1, NULL);
            }
            else {
                answer = PyObject_GetAttr(obj, name);
                if (answer != NULL && PyCallable_Check(answer)) {
                    Py_SETREF(answer, PyObject_CallNoArgs(answer));
                }
            }
        }
        else {
            answer = PyObject_CallOneArg(name, obj);
        }
        int yes = answer == NULL ? -1 : PyObject_IsTrue(answer);
        Py_XDECREF(answer);
        if (yes != 0) {
            return yes;
        }
    }
    return 0;
}

/* make(Buffer) over obj's host memory, through its type's C exchange API: the
 * whole of torch's route to numpy in one C call (a Python function doing the
 * same costs twice as much as Tensor.numpy()). None, with nothing kept, where
 * the route does not apply and the general path must decide: obj's type does
 * not declare an exchange API, one of the `refusals` answers True (asked of
 * complex data too: `complex_refusals`) - torch's lazy neg and conj bits, which
 * the exchange ignores, a tensor that requires grad or memory lent read-only,
 * which the general path refuses or marks - the framework cannot export it, or the
 * memory is not on the CPU or has no buffer-protocol format (what make reads it
 * through). */
static PyObject *
exchange_host_view(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exchange_host_view";
    if (nargs != 4 || !PyCallable_Check(args[0]) || !PyTuple_Check(args[1]) ||
        !PyTuple_Check(args[2])) {
        return arg_error(PyExc_TypeError, func, "args",
                         "(make, refusals, complex_refusals, obj): a callable, two "
                         "tuples of refusals (method names, callables, (table, "
                         "callable) pairs), an array",
                         "%zd arguments", nargs);
    }
    PyObject *make = args[0], *obj = args[3];
    if (exchange_api(Py_TYPE(obj), func, "obj") == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int refused = any_method_true(obj, args[1]);
    if (refused != 0) {
        return refused < 0 ? NULL : Py_NewRef(Py_None);
    }
    Buffer *b = (Buffer *)exchange_import(module, obj);
    if (b == NULL) { /* memory torch cannot export (meta, sparse) */
        return none_for_exceptions();
    }
    PyObject *result = NULL;
    refused = b->dtype.code == kDLComplex ? any_method_true(obj, args[2]) : 0;
    if (refused == 0) {
        result = !cpu_readable(b->device) || struct_format(b->dtype) == NULL
                     ? Py_NewRef(Py_None)
                     : PyObject_CallOneArg(make, (PyObject *)b);
    }
    else if (refused > 0) {
        result = Py_NewRef(Py_None);
    }
    Py_DECREF(b);
    return result;
}

/* exchange_host_capsule(refusals, complex_refusals, alignment, obj): a legacy
 * DLPack capsule over obj's memory through its type's C exchange API, for an
 * importer that takes CPU memory only row-major compact and `alignment`-byte
 * aligned (TensorFlow's C++ import): the whole of TF's route from torch in one C
 * call, as exchange_host_view is numpy's. None where it does not apply and the
 * general path decides: obj's type declares no exchange API, a refusal answers
 * True (torch's lazy neg and conj bits, which the exchange does not see), the
 * framework cannot export it, or the memory is not as the importer needs it.
 * The capsule's Export holds the Buffer (rule 3). */
static PyObject *
exchange_host_capsule(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exchange_host_capsule";
    Py_ssize_t alignment =
        nargs == 4 && PyLong_Check(args[2]) ? PyLong_AsSsize_t(args[2]) : -1;
    if (nargs != 4 || !PyTuple_Check(args[0]) || !PyTuple_Check(args[1]) ||
        alignment <= 0) {
        PyErr_Clear();
        return arg_error(PyExc_TypeError, func, "args",
                         "(refusals, complex_refusals, alignment, obj): two tuples of "
                         "refusals, a positive alignment in bytes, an array",
                         "%zd arguments", nargs);
    }
    PyObject *obj = args[3];
    if (exchange_api(Py_TYPE(obj), func, "obj") == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int refused = any_method_true(obj, args[0]);
    if (refused != 0) {
        return refused < 0 ? NULL : Py_NewRef(Py_None);
    }
    Buffer *b = (Buffer *)exchange_import(module, obj);
    if (b == NULL) { /* as in exchange_host_view */
        return none_for_exceptions();
    }
    PyObject *result = NULL;
    refused = b->dtype.code == kDLComplex ? any_method_true(obj, args[1]) : 0;
    if (refused == 0) {
        bool as_needed = cpu_readable(b->device) && is_contiguous(b, true) &&
                         (size_of(b) == 0 || (uintptr_t)b->data % alignment == 0);
        result = as_needed ? export_capsule(b, KIND_LEGACY, false) : Py_NewRef(Py_None);
    }
    else if (refused > 0) {
        result = Py_NewRef(Py_None);
    }
    Py_DECREF(b);
    return result;
}

/* ------------------------------ numpy's C API: the routes through numpy --- */

/* numpy's C API, imported on first use (`import unitensor` imports no
 * framework): these routes run only once numpy is loaded, with an ndarray or a
 * numpy-bound Buffer at hand. 0, or -1 with numpy's ImportError. */
static int
numpy_api(void)
{
    return PyArray_ImportNumPyAPI();
}

/* numpy's type number for a DLPack dtype, -1 for one numpy has no type for
 * (bfloat16, the float8 kinds, vectors): the dtypes struct_format() names. */
static int
numpy_type_of(DLDataType dt)
{
    if (dt.lanes != 1) {
        return -1;
    }
    switch (dt.code) {
    case kDLBool:
        return dt.bits == 8 ? NPY_BOOL : -1;
    case kDLInt:
        return dt.bits == 8    ? NPY_INT8
               : dt.bits == 16 ? NPY_INT16
               : dt.bits == 32 ? NPY_INT32
               : dt.bits == 64 ? NPY_INT64
                               : -1;
    case kDLUInt:
        return dt.bits == 8    ? NPY_UINT8
               : dt.bits == 16 ? NPY_UINT16
               : dt.bits == 32 ? NPY_UINT32
               : dt.bits == 64 ? NPY_UINT64
                               : -1;
    case kDLFloat:
        return dt.bits == 16   ? NPY_FLOAT16
               : dt.bits == 32 ? NPY_FLOAT32
               : dt.bits == 64 ? NPY_FLOAT64
                               : -1;
    case kDLComplex:
        return dt.bits == 64 ? NPY_COMPLEX64 : dt.bits == 128 ? NPY_COMPLEX128 : -1;
    default:
        return -1;
    }
}

/* ndarray_view(buffer): a numpy array over a Buffer's CPU memory, made by numpy's
 * C API, the Buffer its base (rule 4: the array keeps it alive; the cyclic GC
 * sees it). What np.asarray(buffer) gives through the buffer protocol - the same
 * memory, dtype, strides and read-only flag - without a memoryview and a format
 * string to parse: a third of its cost, the most of torch's route to numpy. */
static PyObject *
ndarray_view(PyObject *module, PyObject *arg)
{
    static const char func[] = "ndarray_view";
    if (!PyObject_TypeCheck(arg, &BufferType)) {
        return arg_error(PyExc_TypeError, func, "buffer", "a unitensor._core.Buffer",
                         "an object of type '%s'", Py_TYPE(arg)->tp_name);
    }
    Buffer *b = (Buffer *)arg;
    if (check_usable(b, func) < 0 || numpy_api() < 0) {
        return NULL;
    }
    int type_num = numpy_type_of(b->dtype);
    if (!cpu_readable(b->device) || type_num < 0) {
        return arg_error(PyExc_BufferError, func, "buffer",
                         "CPU memory of a dtype numpy has (bool, int, uint, float, "
                         "complex)",
                         "dtype (code %d, %d bits, %d lanes) on device %s",
                         (int)b->dtype.code, (int)b->dtype.bits, (int)b->dtype.lanes,
                         device_name(b->device.device_type));
    }
    npy_intp shape[MAX_NDIM], strides[MAX_NDIM];
    /* An empty array's strides are 0, as numpy's buffer-protocol import and
     * Tensor.numpy() give them (the values are never used). */
    const int64_t itemsize = size_of(b) == 0 ? 0 : (int64_t)itemsize_of(b);
    for (int i = 0; i < b->ndim; i++) {
        shape[i] = (npy_intp)b->shape[i];
        strides[i] = (npy_intp)(b->strides[i] * itemsize);
    }
    /* No memory (NULL) would make numpy allocate its own: an empty array over
     * none gets an address that is never read. */
    static char no_memory;
    void *data = b->data != NULL ? (void *)b->data : &no_memory;
    /* numpy derives the contiguity and alignment flags itself */
    PyObject *array = PyArray_NewFromDescr(
        &PyArray_Type, PyArray_DescrFromType(type_num), b->ndim, shape, strides, data,
        b->readonly ? 0 : NPY_ARRAY_WRITEABLE, NULL);
    if (array == NULL) {
        return NULL;
    }
    /* steals the reference, also when it fails */
    if (PyArray_SetBaseObject((PyArrayObject *)array, Py_NewRef(arg)) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

/* ndarray_lend(export, obj): numpy's array over obj's memory as export(obj) (a
 * framework adapter's export) gives it, by ndarray_view: a route to numpy in one
 * C call. None where the export is refused (any Exception: a tracer, a symbolic
 * tensor, a deleted array) or numpy cannot view the memory (off the CPU, a dtype
 * numpy has no name for): the general path says why. */
static PyObject *
ndarray_lend(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyCallable_Check(args[0])) {
        return arg_error(PyExc_TypeError, "ndarray_lend", "args",
                         "(export, obj): an adapter's export, an array",
                         "%zd arguments", nargs);
    }
    PyObject *b = PyObject_CallOneArg(args[0], args[1]);
    if (b == NULL) {
        return none_for_exceptions();
    }
    PyObject *array = ndarray_view(module, b);
    Py_DECREF(b);
    if (array == NULL && PyErr_ExceptionMatches(PyExc_BufferError)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return array;
}

/* The DLPack dtype of an ndarray's dtype: bool, the ints and uints, float16 to
 * float64, complex64 and complex128, in native byte order; false for any other
 * (the general path takes those). */
static bool
ndarray_dtype(PyArrayObject *a, DLDataType *out)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    const int64_t size = (int64_t)PyDataType_ELSIZE(d);
    if (PyArray_ISBYTESWAPPED(a) || PyDataType_HASFIELDS(d) ||
        PyDataType_HASSUBARRAY(d)) {
        return false;
    }
    switch (d->kind) {
    case 'b':
        *out = (DLDataType){kDLBool, 8, 1};
        return size == 1;
    case 'i':
    case 'u':
        *out = (DLDataType){d->kind == 'i' ? kDLInt : kDLUInt, (uint8_t)(8 * size), 1};
        return size == 1 || size == 2 || size == 4 || size == 8;
    case 'f':
        *out = (DLDataType){kDLFloat, (uint8_t)(8 * size), 1};
        return size == 2 || size == 4 || size == 8;
    case 'c':
        *out = (DLDataType){kDLComplex, (uint8_t)(8 * size), 1};
        return size == 8 || size == 16;
    default:
        return false;
    }
}

/* A legacy DLPack capsule ("dltensor") over a numpy array's memory, held by an
 * Export of the array itself (rule 3), for TensorFlow's C++ import: what
 * Buffer.export_legacy(allow_readonly=True) of from_buffer(array) gives (TF
 * never writes into a tensor), without the buffer protocol. Only memory TF can
 * alias as it is - row-major compact, `alignment`-byte aligned (unless empty),
 * a dtype above - else None (a new reference): the general path copies and
 * reports, or refuses. NULL with an error. */
static PyObject *
ndarray_capsule(PyObject *obj, Py_ssize_t alignment)
{
    DLDataType dtype;
    if (!PyArray_Check(obj) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) ||
        !ndarray_dtype((PyArrayObject *)obj, &dtype)) {
        Py_RETURN_NONE;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    const int ndim = PyArray_NDIM(a);
    const npy_intp size = PyArray_SIZE(a);
    if (ndim > MAX_NDIM || (size != 0 && (uintptr_t)PyArray_DATA(a) % alignment)) {
        Py_RETURN_NONE;
    }
    /* Compact row-major strides: numpy's may be anything on a dimension of
     * length 1 (numpy#20336), which describes the same memory. */
    int64_t shape[MAX_NDIM], strides[MAX_NDIM], step = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        shape[i] = (int64_t)PyArray_DIMS(a)[i];
        strides[i] = step;
        step *= shape[i] > 1 ? shape[i] : 1;
    }
    DLTensor tensor = {
        .data = PyArray_DATA(a),
        .device = {kDLCPU, 0},
        .ndim = ndim,
        .dtype = dtype,
        .shape = shape,
        .strides = strides,
        .byte_offset = 0,
    };
    void *managed = new_export_of(obj, KIND_LEGACY, tensor, 0);
    if (managed == NULL) {
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(managed, KIND_LEGACY->name, capsule_destructor);
    if (capsule == NULL) {
        managed_delete(KIND_LEGACY, managed);
    }
    return capsule;
}

/* ndarray_import(importer, handle, alignment, array): importer(capsule,
 * handle()) for the capsule above over a numpy array - TensorFlow's C++ DLPack
 * import and its eager context's handle - in one C call, the route from numpy
 * to TensorFlow without a Python frame. None where the capsule is declined, and
 * where handle() gives None or raises AttributeError (no context made or
 * initialised yet): the general path makes it. */
static PyObject *
ndarray_import(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "ndarray_import";
    Py_ssize_t alignment = nargs == 4 ? PyLong_AsSsize_t(args[2]) : -1;
    if (nargs != 4 || alignment <= 0 || !PyCallable_Check(args[0]) ||
        !PyCallable_Check(args[1])) {
        PyErr_Clear();
        return arg_error(PyExc_TypeError, func, "args",
                         "(an importer, a handle callable, a positive alignment in "
                         "bytes, an array)",
                         "%zd arguments", nargs);
    }
    if (numpy_api() < 0) {
        return NULL;
    }
    PyObject *capsule = ndarray_capsule(args[3], alignment);
    if (capsule == NULL || capsule == Py_None) {
        return capsule;
    }
    PyObject *handle = PyObject_CallNoArgs(args[1]);
    if (handle == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        handle = Py_NewRef(Py_None);
    }
    PyObject *result = NULL;
    if (handle == Py_None) {
        result = Py_NewRef(Py_None);
    }
    else if (handle != NULL) {
        PyObject *call_args[2] = {capsule, handle};
        result = PyObject_Vectorcall(args[0], call_args, 2, NULL);
    }
    Py_XDECREF(handle);
    Py_DECREF(capsule); /* (unconsumed: its destructor frees the Export) */
    return result;
}

/* exchange_from_ndarray(array_type, array): torch.from_numpy(array) in C - an
 * array of array_type's framework over a numpy array's memory, through that
 * framework's C exchange import (an Export holding the numpy array, rule 3).
 * The route from numpy: it shares only what torch.from_numpy shares exactly
 * and torch's adapter lets it share (writable memory, the dtypes above but
 * uint16-64, non-negative strides of whole elements);
 * None for anything else, and where the framework refuses the tensor, so the
 * general path decides (and reports a copy). A TypeError where array_type
 * declares no exchange API (the adapter checks that once, at import). */
static PyObject *
exchange_from_ndarray(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exchange_from_ndarray";
    if (nargs != 2 || !PyType_Check(args[0])) {
        return arg_error(PyExc_TypeError, func, "args", "(an array type, an array)",
                         "%zd arguments", nargs);
    }
    const DLPackExchangeAPI *api =
        exchange_api((PyTypeObject *)args[0], func, "array_type");
    if (api == NULL || numpy_api() < 0) {
        return NULL;
    }
    PyObject *obj = args[1];
    DLDataType dtype;
    if (!PyArray_Check(obj) || !PyArray_ISWRITEABLE((PyArrayObject *)obj) ||
        !ndarray_dtype((PyArrayObject *)obj, &dtype) ||
        (dtype.code == kDLUInt && dtype.bits != 8)) {
        /* (uint16-64: torch's are limited; unitensor's _from_numpy leaves them) */
        Py_RETURN_NONE;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    const int ndim = PyArray_NDIM(a);
    const npy_intp itemsize = PyArray_ITEMSIZE(a);
    int64_t shape[MAX_NDIM], strides[MAX_NDIM];
    if (ndim > MAX_NDIM) {
        Py_RETURN_NONE;
    }
    for (int i = 0; i < ndim; i++) {
        const npy_intp stride = PyArray_STRIDES(a)[i];
        if (stride < 0 || stride % itemsize != 0) { /* torch.from_numpy refuses */
            Py_RETURN_NONE;
        }
        shape[i] = (int64_t)PyArray_DIMS(a)[i];
        strides[i] = (int64_t)(stride / itemsize);
    }
    DLTensor tensor = {
        .data = PyArray_DATA(a),
        .device = {kDLCPU, 0},
        .ndim = ndim,
        .dtype = dtype,
        .shape = shape,
        .strides = strides,
        .byte_offset = 0,
    };
    DLManagedTensorVersioned *managed = new_export_of(obj, KIND_VERSIONED, tensor, 0);
    if (managed == NULL) {
        return NULL;
    }
    PyObject *out = exchange_hand_over(api, managed);
    return out != NULL ? out : none_for_exceptions(); /* the framework's refusal */
}

/* ------------------------ DLPack C exchange API: the Tensor as producer --- */

/* unitensor.Tensor publishes this table (DLPack 1.3) as its type's
 * __dlpack_c_exchange_api__, so that a consumer in C (tvm-ffi and the kernel
 * libraries built on it) takes a Tensor of any owner - numpy, JAX, TensorFlow,
 * CuPy, ... none of which publishes one - without a Python __dlpack__ call.
 *
 * Ownership (rules 1 and 3 hold unchanged): every managed tensor handed out is
 * an Export of the Tensor's Buffer, so it keeps the memory alive after the
 * Tensor is gone and its deleter runs exactly once, from the consumer; one
 * taken in (managed_tensor_to_py_object_no_sync) becomes the source of a new
 * Buffer at once, or is given back through managed_delete() if refused. What
 * needs Python - the owner's first export of a Tensor's memory, wrapping a
 * Buffer as a Tensor, a framework's current CUDA stream - goes through the
 * hooks provide_exchange() was given; the common case (a Tensor whose Buffer
 * exists) reads it through unitensor._fast's `_tensor_buffer` and calls no
 * Python at all. */
static struct {
    PyTypeObject *tensor_type; /* unitensor.Tensor */
    PyObject *buffer_of;       /* Tensor -> its Buffer (exported on first need) */
    PyObject *tensor_of;       /* Buffer -> a Tensor over it */
    PyObject *work_stream;     /* (device_type, device_id) -> a stream int or None */
    /* unitensor._fast: the Buffer a Tensor already holds (borrowed), or NULL */
    PyObject *(*cached_buffer)(PyObject *tensor);
} provider;

static int
provider_ready(const char *func)
{
    if (provider.tensor_type == NULL) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s(): unitensor._core.provide_exchange() was not called", func);
        return -1;
    }
    return 0;
}

/* The Buffer over a Tensor's memory (a new reference), or NULL with an error:
 * a TypeError for what is no Tensor, the owner's refusal (a symbolic tensor, a
 * layout DLPack cannot describe) as the Python path raises it. */
static Buffer *
provider_buffer(PyObject *obj, const char *func)
{
    if (provider_ready(func) < 0) {
        return NULL;
    }
    if (!PyObject_TypeCheck(obj, provider.tensor_type)) {
        arg_error(PyExc_TypeError, func, "py_object", "a unitensor.Tensor",
                  "an object of type '%s'", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyObject *buf = provider.cached_buffer(obj);
    buf = buf != NULL ? Py_NewRef(buf) : PyObject_CallOneArg(provider.buffer_of, obj);
    if (buf == NULL) {
        return NULL;
    }
    if (!PyObject_TypeCheck(buf, &BufferType)) {
        arg_error(PyExc_TypeError, func, "py_object",
                  "a Tensor whose memory is a unitensor._core.Buffer",
                  "an object of type '%s'", Py_TYPE(buf)->tp_name);
        Py_DECREF(buf);
        return NULL;
    }
    if (check_usable((Buffer *)buf, func) < 0) {
        Py_DECREF(buf);
        return NULL;
    }
    return (Buffer *)buf;
}

/* A new managed tensor over the Tensor's memory, flagged READ_ONLY where the
 * memory is (JAX, TensorFlow, a non-writable numpy array). */
static int
provide_managed(void *py_object, DLManagedTensorVersioned **out)
{
    Buffer *b = provider_buffer(py_object, "managed_tensor_from_py_object_no_sync");
    if (b == NULL) {
        return -1;
    }
    *out = new_export(b, KIND_VERSIONED, false);
    Py_DECREF(b); /* the Export holds its own reference */
    return *out == NULL ? -1 : 0;
}

/* A DLTensor over the Tensor's memory, pointing into its Buffer's metadata:
 * the Tensor holds that Buffer for as long as the Tensor lives, which the
 * caller guarantees until control returns to it. */
static int
provide_dltensor(void *py_object, DLTensor *out)
{
    Buffer *b = provider_buffer(py_object, "dltensor_from_py_object_no_sync");
    if (b == NULL) {
        return -1;
    }
    *out = (DLTensor){
        .data = b->data,
        .device = b->device,
        .ndim = b->ndim,
        .dtype = b->dtype,
        .shape = b->shape,
        .strides = b->strides,
        .byte_offset = 0, /* folded into data, as in every export */
    };
    Py_DECREF(b);
    return 0;
}

/* A Tensor over a managed tensor whose ownership the caller gives up: the
 * device's natural owner wraps it (numpy on the CPU), as from_dlpack would. */
static int
provide_tensor(DLManagedTensorVersioned *managed, void **out_py_object)
{
    static const char func[] = "managed_tensor_to_py_object_no_sync";
    if (managed == NULL) {
        arg_error(PyExc_ValueError, func, "tensor", "a managed tensor", "NULL");
        return -1;
    }
    Buffer *b = provider_ready(func) < 0 ? NULL : buffer_new(SOURCE_DLPACK_VERSIONED);
    if (b == NULL || load_managed(b, KIND_VERSIONED, managed, func) < 0) {
        managed_delete(KIND_VERSIONED, managed); /* refused: ours to give back */
        Py_XDECREF(b);
        return -1;
    }
    b->kind = KIND_VERSIONED;
    b->managed = managed;
    PyObject *tensor = PyObject_CallOneArg(provider.tensor_of, (PyObject *)b);
    Py_DECREF(b); /* the Tensor holds it, or the deleter has run */
    if (tensor == NULL) {
        return -1;
    }
    *out_py_object = tensor;
    return 0;
}

/* Hands the error set now to the consumer's set_error (kind: the exception's
 * type name), which may set its own; without one, the error stays set. */
static void
report_to_consumer(void *error_ctx,
                   void (*set_error)(void *, const char *, const char *))
{
    if (set_error == NULL) {
        return;
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    PyObject *exc = value;
#endif
    PyObject *text = exc == NULL ? NULL : PyObject_Str(exc);
    const char *message = text == NULL ? NULL : PyUnicode_AsUTF8(text);
    PyErr_Clear(); /* from str() or the UTF-8 conversion, if they failed */
    set_error(error_ctx, exc == NULL ? "RuntimeError" : Py_TYPE(exc)->tp_name,
              message == NULL ? "unitensor could not allocate the tensor" : message);
    Py_XDECREF(text);
    Py_XDECREF(exc);
}

/* New zero-filled host memory shaped like `prototype`, owned by a Buffer that
 * the managed tensor's Export holds: freed when the consumer's deleter runs.
 * Only CPU memory: other devices need a framework, which this C code never
 * imports. It may be called without the GIL (from a kernel): it takes it. */
static int
provide_allocation(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                   void (*set_error)(void *, const char *, const char *))
{
    static const char func[] = "managed_tensor_allocator";
    PyGILState_STATE gil = PyGILState_Ensure();
    Buffer *b = NULL;
    DLManagedTensorVersioned *managed = NULL;
    if (prototype == NULL || out == NULL) {
        arg_error(PyExc_ValueError, func, "prototype", "a DLTensor and an out pointer",
                  "NULL");
        goto done;
    }
    if (prototype->device.device_type != kDLCPU) {
        const char *name = device_name(prototype->device.device_type);
        arg_error(PyExc_ValueError, func, "prototype",
                  "a tensor on the CPU (device type 1): unitensor allocates host "
                  "memory only",
                  "device %s (%d, %d)", name == NULL ? "unknown" : name,
                  (int)prototype->device.device_type, (int)prototype->device.device_id);
        goto done;
    }
    if (prototype->ndim < 0 || prototype->ndim > MAX_NDIM ||
        (prototype->ndim > 0 && prototype->shape == NULL)) {
        arg_error(PyExc_ValueError, func, "prototype",
                  "0 <= ndim <= 64, with a shape array for ndim > 0", "ndim=%d%s",
                  (int)prototype->ndim, prototype->shape == NULL ? ", shape NULL" : "");
        goto done;
    }
    if (check_dtype(prototype->dtype, PyExc_TypeError, func, "prototype") < 0) {
        goto done;
    }
    b = owned_buffer(prototype->ndim, prototype->shape, prototype->dtype,
                     DEFAULT_ALIGNMENT, func);
    if (b != NULL) {
        managed = new_export(b, KIND_VERSIONED, false);
    }
done:
    Py_XDECREF(b); /* the Export holds it, or nobody does: freed */
    if (managed == NULL) {
        report_to_consumer(error_ctx, set_error);
    }
    else {
        *out = managed;
    }
    PyGILState_Release(gil);
    return managed == NULL ? -1 : 0;
}

/* The stream a consumer's kernels run on for memory on this device: none on the
 * CPU; on CUDA, unitensor's (the current stream of the framework that wraps
 * CUDA memory: cupy, else torch), from the `work_stream` hook. */
static int
provide_work_stream(DLDeviceType device_type, int32_t device_id, void **out_stream)
{
    static const char func[] = "current_work_stream";
    DLDevice device = {device_type, device_id};
    *out_stream = NULL;
    if (device_id < 0) {
        arg_error(PyExc_ValueError, func, "device_id", "a device id of 0 or more", "%d",
                  (int)device_id);
        return -1;
    }
    if (streamless(device)) {
        return 0;
    }
    if (!cuda_readable(device)) {
        const char *name = device_name(device_type);
        arg_error(PyExc_ValueError, func, "device_type",
                  "a device unitensor holds memory on: CPU (1), CUDA (2), CUDAHost "
                  "(3), ROCMHost (11) or CUDAManaged (13)",
                  "%d (%s)", (int)device_type, name == NULL ? "unknown" : name);
        return -1;
    }
    if (provider_ready(func) < 0) {
        return -1;
    }
    PyObject *stream = PyObject_CallFunction(provider.work_stream, "ii",
                                             (int)device_type, (int)device_id);
    if (stream == NULL) {
        return -1;
    }
    /* DLPack's stream numbers: 1 is CUDA's legacy default stream (handle 0),
     * 2 the per-thread default (cudaStreamPerThread, handle 2), else a handle. */
    unsigned long long handle =
        stream == Py_None ? 1 : PyLong_AsUnsignedLongLong(stream);
    Py_DECREF(stream);
    if (handle == (unsigned long long)-1 && PyErr_Occurred()) {
        return -1;
    }
    *out_stream = handle == 1 ? NULL : (void *)(uintptr_t)handle;
    return 0;
}

static const DLPackExchangeAPI provider_api = {
    .header = {.version = {UT_DLPACK_MAJOR, UT_EXCHANGE_MINOR}, .prev_api = NULL},
    .managed_tensor_allocator = provide_allocation,
    .managed_tensor_from_py_object_no_sync = provide_managed,
    .managed_tensor_to_py_object_no_sync = provide_tensor,
    .dltensor_from_py_object_no_sync = provide_dltensor,
    .current_work_stream = provide_work_stream,
};

/* provide_exchange(tensor_type, buffer_of, tensor_of, work_stream): installs
 * the hooks and gives the capsule that tensor_type publishes as
 * __dlpack_c_exchange_api__ (the table is static: it lives as long as the
 * process, as the spec requires). Called again, it replaces the hooks. */
static PyObject *
provide_exchange(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "provide_exchange";
    if (nargs != 4 || !PyType_Check(args[0]) || !PyCallable_Check(args[1]) ||
        !PyCallable_Check(args[2]) || !PyCallable_Check(args[3])) {
        return arg_error(PyExc_TypeError, func, "args",
                         "(tensor_type, buffer_of, tensor_of, work_stream): a type "
                         "and three callables",
                         "%zd arguments", nargs);
    }
    const struct {
        PyObject *(*buffer)(PyObject *tensor);
    } *fast = PyCapsule_Import("unitensor._fast._tensor_buffer", 0);
    if (fast == NULL) {
        return NULL;
    }
    provider.cached_buffer = fast->buffer;
    Py_XSETREF(provider.tensor_type, (PyTypeObject *)Py_NewRef(args[0]));
    Py_XSETREF(provider.buffer_of, Py_NewRef(args[1]));
    Py_XSETREF(provider.tensor_of, Py_NewRef(args[2]));
    Py_XSETREF(provider.work_stream, Py_NewRef(args[3]));
    return PyCapsule_New((void *)&provider_api, UT_EXCHANGE_API_CAPSULE, NULL);
}

/* ----------------------------------------------- array interface exports --- */

static PyObject *
int64_tuple(const int64_t *values, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* The stream on which the memory is ready, for an exported CUDA array
 * interface: the producer's current one; else the one imported with it. */
static PyObject *
ready_stream(Buffer *b)
{
    if (b->producer == NULL || b->producer == Py_None) {
        return Py_NewRef(b->stream != NULL ? b->stream : Py_None);
    }
    return PyObject_CallMethod(b->producer, "stream", NULL);
}

static PyObject *
interface_dict(Buffer *self, const char *func, bool cuda)
{
    PyObject *result = NULL, *d = NULL, *shape = NULL, *strides = NULL, *data = NULL;
    if (check_usable(self, func) < 0) {
        goto done;
    }
    int64_t byte_strides[MAX_NDIM];
    for (int i = 0; i < self->ndim; i++) {
        byte_strides[i] = self->view_strides[i];
    }
    char typestr[8];
    typestr_of(self->dtype, typestr);
    shape = int64_tuple(self->shape, self->ndim);
    strides = int64_tuple(byte_strides, self->ndim);
    data = Py_BuildValue("(NO)", PyLong_FromVoidPtr(self->data),
                         self->readonly ? Py_True : Py_False);
    if (shape == NULL || strides == NULL || data == NULL) {
        goto done;
    }
    d = Py_BuildValue("{s:O,s:s,s:O,s:O,s:i}", "shape", shape, "typestr", typestr,
                      "data", data, "strides", strides, "version", 3);
    if (d == NULL) {
        goto done;
    }
    if (cuda) {
        PyObject *stream = ready_stream(self);
        int failed = stream == NULL || PyDict_SetItemString(d, "stream", stream) < 0;
        Py_XDECREF(stream);
        if (failed) {
            goto done;
        }
    }
    result = d;
    d = NULL;
done:
    Py_XDECREF(d);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(data);
    return result;
}

/* Absent (AttributeError, so hasattr() is False) where the memory is not
 * CPU-readable. */
static PyObject *
buffer_array_interface(Buffer *self, void *Py_UNUSED(closure))
{
    static const char func[] = "__array_interface__";
    if (!cpu_readable(self->device)) {
        return arg_error(PyExc_AttributeError, func, "self", "memory the CPU can read",
                         "memory on device %s (%d, %d)",
                         device_name(self->device.device_type),
                         (int)self->device.device_type, (int)self->device.device_id);
    }
    return interface_dict(self, func, false);
}

static PyObject *
buffer_cuda_array_interface(Buffer *self, void *Py_UNUSED(closure))
{
    static const char func[] = "__cuda_array_interface__";
    if (!cuda_readable(self->device)) {
        return arg_error(PyExc_AttributeError, func, "self",
                         "CUDA or CUDA-managed memory", "memory on device %s (%d, %d)",
                         device_name(self->device.device_type),
                         (int)self->device.device_type, (int)self->device.device_id);
    }
    return interface_dict(self, func, true);
}

static int
buffer_getbuffer(Buffer *self, Py_buffer *view, int flags)
{
    static const char func[] = "Buffer.__buffer__";
    const char *format = struct_format(self->dtype);
    const char *problem = NULL;
    view->obj = NULL;
    if (check_usable(self, func) < 0) {
        return -1;
    }
    if (!cpu_readable(self->device)) {
        problem = "the memory is not on the CPU";
    }
    else if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && self->readonly) {
        problem = "the memory is read-only";
    }
    else if ((flags & PyBUF_FORMAT) == PyBUF_FORMAT && format == NULL) {
        problem = "bfloat16 and the float8 kinds have no buffer-protocol format";
    }
    else if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS &&
             !is_contiguous(self, true)) {
        problem = "the memory is not C-contiguous";
    }
    else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS &&
             !is_contiguous(self, false)) {
        problem = "the memory is not Fortran-contiguous";
    }
    else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS &&
             !is_contiguous(self, true) && !is_contiguous(self, false)) {
        problem = "the memory is not contiguous";
    }
    else if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !is_contiguous(self, true)) {
        problem = "the memory is strided and the consumer did not ask for strides";
    }
    if (problem != NULL) {
        arg_error(PyExc_BufferError, func, "flags", "a request the memory can satisfy",
                  "one it cannot: %s", problem);
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
    view->strides =
        (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->view_strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

/* ----------------------------------------------------------- attributes --- */

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
get_producer(Buffer *b, void *c)
{
    return Py_NewRef(b->producer != NULL ? b->producer : Py_None);
}

static int
set_producer(Buffer *b, PyObject *value, void *c)
{
    if (value == NULL || (value != Py_None && !PyObject_HasAttrString(value, "wait"))) {
        arg_error(PyExc_TypeError, "Buffer.producer", "value",
                  "None or an object with wait(stream) and stream()", "%s",
                  value == NULL ? "a deletion" : Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_XSETREF(b->producer, Py_NewRef(value));
    return 0;
}

static PyObject *
get_c_contiguous(Buffer *b, void *c)
{
    return PyBool_FromLong(is_contiguous(b, true));
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
    const char *code =
        b->dtype.code < N_DTYPE_CODE_NAMES && DTYPE_CODE_NAMES[b->dtype.code]
            ? DTYPE_CODE_NAMES[b->dtype.code]
            : "?";
    PyObject *r = PyUnicode_FromFormat(
        "<unitensor._core.Buffer shape=%R dtype=%s(%d) device=(%d, %d) "
        "readonly=%s source='%s'>",
        shape, code, (int)b->dtype.bits, (int)b->device.device_type,
        (int)b->device.device_id, b->readonly ? "True" : "False",
        SOURCE_NAMES[b->source]);
    Py_DECREF(shape);
    return r;
}

static PyGetSetDef buffer_getset[] = {
    {"shape", (getter)get_shape, NULL, "Shape, a tuple of ints.", NULL},
    {"strides", (getter)get_strides, NULL,
     "Strides in elements, always present (unused ones normalised).", NULL},
    {"ndim", (getter)get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)get_size, NULL, "Number of elements.", NULL},
    {"itemsize", (getter)get_itemsize, NULL, "Bytes per element.", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "size * itemsize.", NULL},
    {"dtype", (getter)get_dtype, NULL, "DLPack (code, bits, lanes).", NULL},
    {"device", (getter)get_device, NULL, "DLPack (device_type, device_id).", NULL},
    {"byte_offset", (getter)get_byte_offset, NULL, "Byte offset as imported.", NULL},
    {"data_ptr", (getter)get_data_ptr, NULL,
     "Address of element [0, ..., 0] (data + byte_offset).", NULL},
    {"readonly", (getter)get_readonly, NULL, "True if the memory must not be written.",
     NULL},
    {"is_copied", (getter)get_is_copied, NULL, "True if the memory is a copy.", NULL},
    {"version", (getter)get_version, NULL, "DLPack (major, minor) or None.", NULL},
    {"source", (getter)get_source, NULL, "What the Buffer owns.", NULL},
    {"base", (getter)get_base, NULL, "The Python object held, or None.", NULL},
    {"stream", (getter)get_stream, NULL, "The CUDA array interface's stream.", NULL},
    {"producer", (getter)get_producer, (setter)set_producer,
     "CUDA memory: the framework whose work consumers wait for (wait(stream) makes "
     "a consumer's stream wait; stream() is the one the memory is ready on).",
     NULL},
    {"c_contiguous", (getter)get_c_contiguous, NULL, "Row-major compact?", NULL},
    {"alignment", (getter)get_alignment, NULL,
     "Largest power of two dividing data_ptr (at most 4096).", NULL},
    {"__array_interface__", (getter)buffer_array_interface, NULL,
     "NumPy array interface v3 (CPU-readable memory only).", NULL},
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
     "export_legacy(*, allow_readonly=False, stream=None)\nA legacy 'dltensor' "
     "capsule; read-only memory only for consumers that never write (TensorFlow, "
     "JAX)."},
    {"order", (PyCFunction)(void (*)(void))buffer_order, METH_VARARGS | METH_KEYWORDS,
     "order(stream)\nMake a consumer's stream wait for the producer's work, as "
     "__dlpack__(stream=...) does, for a view made earlier."},
    {NULL},
};

static PyBufferProcs buffer_as_buffer = {
    .bf_getbuffer = (getbufferproc)buffer_getbuffer,
    .bf_releasebuffer = NULL, /* view->obj holds the Buffer: nothing else to free */
};

static PyObject *
buffer_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    return arg_error(PyExc_TypeError, "Buffer", "self",
                     "a Buffer made by from_capsule(), from_array_interface(), "
                     "from_cuda_array_interface(), from_buffer() or empty()",
                     "a direct call");
}

/* Final (no Py_TPFLAGS_BASETYPE), GC-aware, weak-referenceable. */
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

/* Rule 7: whether the memory of a live Buffer (host memory, still there) lies
 * in part within [address, address + nbytes). */
static PyObject *
exposed(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "exposed";
    if (nargs != 2 || !PyLong_Check(args[0]) || !PyLong_Check(args[1])) {
        return arg_error(PyExc_TypeError, func, "args", "(address, nbytes): two ints",
                         "%zd arguments", nargs);
    }
    uintptr_t start = (uintptr_t)PyLong_AsUnsignedLongLong(args[0]);
    Py_ssize_t nbytes = PyLong_AsSsize_t(args[1]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (nbytes <= 0) {
        Py_RETURN_FALSE;
    }
    uintptr_t end = start + (uintptr_t)nbytes;
    for (const Buffer *b = live; b != NULL; b = b->live_next) {
        if (b->released || b->data == NULL || !cpu_readable(b->device) ||
            size_of(b) == 0) {
            continue;
        }
        /* the bytes the Buffer's elements span, negative strides included */
        int64_t itemsize = (int64_t)itemsize_of(b);
        uintptr_t lo = (uintptr_t)b->data, hi = lo + (uintptr_t)itemsize;
        for (int i = 0; i < b->ndim; i++) {
            int64_t extent = (b->shape[i] - 1) * b->strides[i] * itemsize;
            if (extent >= 0) {
                hi += (uintptr_t)extent;
            }
            else {
                lo -= (uintptr_t)(-extent);
            }
        }
        if (lo < end && start < hi) {
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

static PyObject *
get_stats(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("{s:n,s:n,s:n,s:n}", "buffers_alive", stats.buffers_alive,
                         "capsules_exported", stats.capsules_exported, "exported_alive",
                         stats.exported_alive, "imported_deleters_run",
                         stats.imported_deleters_run);
}

/* ------------------------------------------- replayed kernel launches --- */

/* A CPU kernel's entry as Warp compiles it: (launch bounds, argument struct). */
typedef void (*cpu_kernel)(void *bounds, void *args);

/* replay_launches(function, bounds, args, moves, first, items): calls the
 * compiled CPU kernel at address `function` for launches first <= n < items,
 * launch n with each (offset, base, step) of `moves` setting the pointer at byte
 * `offset` of the argument struct at `args` to base + n * step: the items of a batch,
 * each launched on its own memory, without Python per launch (Warp's replay of
 * a recorded launch costs ~3.5 us an item in Python). The addresses are the
 * caller's to vouch for, as ctypes' are; the pointers are left as item 0's.
 * The GIL is released around the launches, as ctypes releases it. */
static PyObject *
replay_launches(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "replay_launches";
    if (nargs != 6 || !PyLong_Check(args[0]) || !PyLong_Check(args[1]) ||
        !PyLong_Check(args[2]) || !PyTuple_Check(args[3]) || !PyLong_Check(args[4]) ||
        !PyLong_Check(args[5])) {
        return arg_error(PyExc_TypeError, func, "args",
                         "(function, bounds, args, moves, first, items): three "
                         "addresses, a tuple of (offset, base, step), two counts",
                         "%zd arguments", nargs);
    }
    cpu_kernel kernel = (cpu_kernel)PyLong_AsVoidPtr(args[0]);
    void *bounds = PyLong_AsVoidPtr(args[1]);
    char *struct_at = PyLong_AsVoidPtr(args[2]);
    Py_ssize_t first = PyLong_AsSsize_t(args[4]);
    Py_ssize_t items = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (kernel == NULL || bounds == NULL || struct_at == NULL) {
        return arg_error(PyExc_ValueError, func, "args", "non-null addresses",
                         "a null address");
    }
    Py_ssize_t n_moves = PyTuple_GET_SIZE(args[3]);
    struct {
        Py_ssize_t offset;
        uintptr_t base;
        Py_ssize_t step;
    } moves[64];
    if (n_moves > 64) {
        return arg_error(PyExc_ValueError, func, "moves", "at most 64 moves", "%zd",
                         n_moves);
    }
    for (Py_ssize_t i = 0; i < n_moves; i++) {
        PyObject *move = PyTuple_GET_ITEM(args[3], i);
        if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 3) {
            return arg_error(PyExc_TypeError, func, "moves",
                             "a tuple of (offset, base, step) triples", "%R", move);
        }
        moves[i].offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(move, 0));
        moves[i].base = (uintptr_t)PyLong_AsVoidPtr(PyTuple_GET_ITEM(move, 1));
        moves[i].step = PyLong_AsSsize_t(PyTuple_GET_ITEM(move, 2));
        if (PyErr_Occurred()) {
            return NULL;
        }
        if (moves[i].offset < 0) {
            return arg_error(PyExc_ValueError, func, "moves", "non-negative offsets",
                             "%zd", moves[i].offset);
        }
    }
    PyThreadState *released = PyEval_SaveThread();
    for (Py_ssize_t n = first < 0 ? 0 : first; n < items; n++) {
        for (Py_ssize_t i = 0; i < n_moves; i++) {
            uintptr_t at = moves[i].base + (uintptr_t)(n * moves[i].step);
            memcpy(struct_at + moves[i].offset, &at, sizeof at);
        }
        kernel(bounds, struct_at);
    }
    for (Py_ssize_t i = 0; i < n_moves; i++) {
        memcpy(struct_at + moves[i].offset, &moves[i].base, sizeof moves[i].base);
    }
    PyEval_RestoreThread(released);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- Bound --- */

/* bound(func, *args): `func`, a function of this module, with its leading
 * arguments bound, as functools.partial binds them, but called in one step
 * (partial calls the builtin, which calls its C code): the routes
 * (unitensor/_backends/<name>/interop.py) are such functions, called on every
 * conversion. */
#define MAX_BOUND 4
/* Arguments of a call passed on from the stack; more take a block of memory. */
#define BOUND_STACK 8

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *func;       /* the module's builtin function */
    _PyCFunctionFast run; /* its C code (METH_FASTCALL, no keywords) */
    Py_ssize_t n;         /* arguments bound */
    PyObject *args[MAX_BOUND];
    PyObject *dict; /* attributes set on it (a route's lends_read_only) */
} Bound;

static PyObject *
bound_call(Bound *b, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), total = b->n + nargs;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        return PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments",
                            ((PyCFunctionObject *)b->func)->m_ml->ml_name);
    }
    if (b->n == 1 && (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET)) {
        /* the caller lent the slot before args (the vectorcall protocol): the
         * one bound argument goes there for the call, nothing is copied */
        PyObject **slot = (PyObject **)args - 1, *lent = *slot;
        *slot = b->args[0];
        PyObject *result = b->run(PyCFunction_GET_SELF(b->func), slot, total);
        *slot = lent;
        return result;
    }
    PyObject *small[BOUND_STACK];
    PyObject **stack =
        total <= BOUND_STACK ? small : PyMem_Malloc((size_t)total * sizeof *stack);
    if (stack == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < b->n; i++) { /* (a handful: no memcpy call) */
        stack[i] = b->args[i];
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        stack[b->n + i] = args[i];
    }
    /* (as one C function calls another: the functions bound call Python only
     * through calls that count their own depth) */
    PyObject *result = b->run(PyCFunction_GET_SELF(b->func), stack, total);
    if (stack != small) {
        PyMem_Free(stack);
    }
    return result;
}

static int
bound_traverse(Bound *b, visitproc visit, void *arg)
{
    Py_VISIT(b->func);
    for (Py_ssize_t i = 0; i < b->n; i++) {
        Py_VISIT(b->args[i]);
    }
    Py_VISIT(b->dict);
    return 0;
}

static PyObject *
bound_cleared(PyObject *b, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyErr_SetString(PyExc_RuntimeError, "bound(): called after it was cleared");
    return NULL;
}

static int
bound_clear(Bound *b)
{
    b->vectorcall = bound_cleared; /* nothing below may be read any more */
    Py_CLEAR(b->dict);
    for (Py_ssize_t i = 0; i < b->n; i++) {
        Py_CLEAR(b->args[i]);
    }
    b->n = 0;
    Py_CLEAR(b->func);
    return 0;
}

static void
bound_dealloc(Bound *b)
{
    PyObject_GC_UnTrack(b);
    bound_clear(b);
    PyObject_GC_Del(b);
}

static PyObject *
bound_repr(Bound *b)
{
    return b->func == NULL
               ? PyUnicode_FromString("<unitensor._core.bound (cleared)>")
               : PyUnicode_FromFormat("<unitensor._core.bound %s with %zd arguments>",
                                      ((PyCFunctionObject *)b->func)->m_ml->ml_name,
                                      b->n);
}

static PyObject *
bound_get_func(Bound *b, void *Py_UNUSED(closure))
{
    return Py_NewRef(b->func == NULL ? Py_None : b->func);
}

static PyObject *
bound_get_args(Bound *b, void *Py_UNUSED(closure))
{
    PyObject *args = PyTuple_New(b->n);
    for (Py_ssize_t i = 0; args != NULL && i < b->n; i++) {
        PyTuple_SET_ITEM(args, i, Py_NewRef(b->args[i]));
    }
    return args;
}

/* (read as functools.partial's are) */
static PyGetSetDef bound_getset[] = {
    {"func", (getter)bound_get_func, NULL, "The function.", NULL},
    {"args", (getter)bound_get_args, NULL, "The arguments bound (a tuple).", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};

static PyTypeObject BoundType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._core.bound",
    .tp_basicsize = sizeof(Bound),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A function of unitensor._core with its leading arguments bound "
              "(bound())",
    .tp_vectorcall_offset = offsetof(Bound, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_dictoffset = offsetof(Bound, dict),
    .tp_traverse = (traverseproc)bound_traverse,
    .tp_clear = (inquiry)bound_clear,
    .tp_dealloc = (destructor)bound_dealloc,
    .tp_repr = (reprfunc)bound_repr,
    .tp_getset = bound_getset,
};

static PyObject *
bound(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    static const char func[] = "bound";
    PyObject *f = nargs > 0 ? args[0] : NULL;
    if (f == NULL || !PyCFunction_Check(f) || PyCFunction_GET_SELF(f) != module ||
        (PyCFunction_GET_FLAGS(f) & ~METH_COEXIST) != METH_FASTCALL) {
        return arg_error(PyExc_TypeError, func, "func",
                         "a function of unitensor._core that takes positional "
                         "arguments (METH_FASTCALL)",
                         "%R", f == NULL ? Py_None : f);
    }
    if (nargs - 1 > MAX_BOUND) {
        return arg_error(PyExc_TypeError, func, "args", "at most 4 arguments", "%zd",
                         nargs - 1);
    }
    Bound *b = PyObject_GC_New(Bound, &BoundType);
    if (b == NULL) {
        return NULL;
    }
    b->vectorcall = (vectorcallfunc)bound_call;
    b->func = Py_NewRef(f);
    b->run = (_PyCFunctionFast)(void (*)(void))PyCFunction_GET_FUNCTION(f);
    b->n = nargs - 1;
    for (Py_ssize_t i = 0; i < b->n; i++) {
        b->args[i] = Py_NewRef(args[i + 1]);
    }
    b->dict = NULL;
    PyObject_GC_Track(b);
    return (PyObject *)b;
}

static PyMethodDef module_methods[] = {
    {"bound", (PyCFunction)(void (*)(void))bound, METH_FASTCALL,
     "bound(func, *args)\nfunc, a function of this module taking positional "
     "arguments, with its leading arguments (at most 4) bound, called in one step."},
    {"from_capsule", (PyCFunction)(void (*)(void))from_capsule,
     METH_FASTCALL | METH_KEYWORDS,
     "from_capsule(capsule, *, func='from_capsule', arg='capsule')\nConsume a "
     "'dltensor_versioned' or 'dltensor' capsule; errors name func and arg."},
    {"from_array_interface", (PyCFunction)(void (*)(void))from_array_interface,
     METH_VARARGS | METH_KEYWORDS,
     "from_array_interface(obj, *, dtype=None, func=..., arg='obj')\nWrap obj's "
     "__array_interface__ (kept alive); dtype (code, bits, lanes) names what the "
     "typestr cannot (bfloat16); errors name func and arg."},
    {"from_cuda_array_interface",
     (PyCFunction)(void (*)(void))from_cuda_array_interface,
     METH_VARARGS | METH_KEYWORDS,
     "from_cuda_array_interface(obj, device_id=0, *, func=..., arg='obj')\nWrap "
     "obj's __cuda_array_interface__ (v3; kept alive); errors name func and arg."},
    {"exchange_import", (PyCFunction)exchange_import, METH_O,
     "exchange_import(obj)\nA Buffer over a framework array through the DLPack C "
     "exchange API of its type."},
    {"exchange_export", (PyCFunction)(void (*)(void))exchange_export, METH_FASTCALL,
     "exchange_export(buffer, array_type, lent=None)\nAn array of array_type's "
     "framework over buffer's memory, through its DLPack C exchange API; read-only "
     "memory only with lent, a dict: its address counted there (table[address]) "
     "until the framework frees the array's memory."},
    {"exchange_lend", (PyCFunction)(void (*)(void))exchange_lend, METH_FASTCALL,
     "exchange_lend(export, array_type, lent, warn, obj)\nobj's memory, as "
     "export(obj) gives it read-only, as an array of array_type's framework through "
     "its exchange API, recorded in lent, warn() called while the alias warning was "
     "not given; None where that does not apply."},
    {"alias_warned", (PyCFunction)get_alias_warned, METH_NOARGS,
     "alias_warned()\nWhether the AliasWarning was given in this process."},
    {"set_alias_warned", (PyCFunction)set_alias_warned, METH_O,
     "set_alias_warned(flag)\nRecord whether the AliasWarning was given."},
    {"immutable_export", (PyCFunction)(void (*)(void))immutable_export, METH_FASTCALL,
     "immutable_export(capsule_of, obj)\nimmutable_from_capsule(capsule_of(obj))."},
    {"immutable_from_capsule", (PyCFunction)immutable_from_capsule, METH_O,
     "immutable_from_capsule(capsule)\nfrom_capsule(capsule), marked read-only."},
    {"exchange_host_capsule", (PyCFunction)(void (*)(void))exchange_host_capsule,
     METH_FASTCALL,
     "exchange_host_capsule(refusals, complex_refusals, alignment, obj)\nA legacy "
     "DLPack capsule over obj's CPU memory, row-major compact and aligned, through "
     "its type's DLPack C exchange API; None where that does not apply."},
    {"replay_launches", (PyCFunction)(void (*)(void))replay_launches, METH_FASTCALL,
     "replay_launches(function, bounds, args, moves, first, items)\nCall the compiled "
     "CPU kernel at address function (bounds, args) for items first..items-1, each "
     "move (offset, base, step) setting the pointer at args + offset to base + n * "
     "step."},
    {"ndarray_lend", (PyCFunction)(void (*)(void))ndarray_lend, METH_FASTCALL,
     "ndarray_lend(export, obj)\nnumpy's array over export(obj) (ndarray_view); None "
     "where the export is refused or numpy cannot view the memory."},
    {"ndarray_view", (PyCFunction)ndarray_view, METH_O,
     "ndarray_view(buffer)\nA numpy array over buffer's CPU memory (numpy's C API; "
     "the Buffer is its base): np.asarray(buffer) without the buffer protocol."},
    {"exchange_from_ndarray", (PyCFunction)(void (*)(void))exchange_from_ndarray,
     METH_FASTCALL,
     "exchange_from_ndarray(array_type, array)\nAn array of array_type's framework "
     "over a numpy array's memory through its DLPack C exchange import "
     "(torch.from_numpy in C); None where torch.from_numpy would not share it "
     "exactly or the framework refuses it."},
    {"ndarray_import", (PyCFunction)(void (*)(void))ndarray_import, METH_FASTCALL,
     "ndarray_import(importer, handle, alignment, array)\nimporter(capsule, "
     "handle()) for a legacy DLPack capsule over a numpy array's row-major "
     "compact, aligned memory, held by the array; None for any other array, and "
     "where handle() gives None or raises AttributeError."},
    {"exchange_host_view", (PyCFunction)(void (*)(void))exchange_host_view,
     METH_FASTCALL,
     "exchange_host_view(make, refusals, complex_refusals, obj)\nmake(Buffer) over "
     "obj's CPU memory through its type's DLPack C exchange API; None where obj's "
     "type has none, a refusal (complex_refusals, for complex data: a method's or "
     "attribute's name, a callable taking obj, or a pair (table, callable) whose "
     "callable is asked only while the table is not empty) answers True, or make "
     "cannot read the memory."},
    {"provide_exchange", (PyCFunction)(void (*)(void))provide_exchange, METH_FASTCALL,
     "provide_exchange(tensor_type, buffer_of, tensor_of, work_stream)\nThe "
     "'dlpack_exchange_api' capsule unitensor.Tensor publishes as "
     "__dlpack_c_exchange_api__ (DLPack 1.3); the hooks: Tensor -> Buffer, "
     "Buffer -> Tensor, (device_type, device_id) -> CUDA stream int or None."},
    {"from_buffer", (PyCFunction)(void (*)(void))from_buffer,
     METH_FASTCALL | METH_KEYWORDS,
     "from_buffer(obj, *, func='from_buffer', arg='obj')\nWrap obj's buffer-protocol "
     "export; errors name func and arg."},
    {"empty", (PyCFunction)(void (*)(void))empty, METH_VARARGS | METH_KEYWORDS,
     "empty(shape, code, bits, alignment=64)\nNew zero-filled aligned CPU memory."},
    {"exposed", (PyCFunction)(void (*)(void))exposed, METH_FASTCALL,
     "exposed(address, nbytes)\nWhether a live Buffer's host memory lies in part "
     "within [address, address + nbytes): memory unitensor has exported, which "
     "its owner must not move."},
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
    PyObject *result = NULL, *m = NULL, *version = NULL;
    if (PyType_Ready(&BufferType) < 0 || PyType_Ready(&LentTableType) < 0 ||
        PyType_Ready(&BoundType) < 0) {
        goto done;
    }
    m = PyModule_Create(&module_def);
    version = Py_BuildValue("(ii)", UT_DLPACK_MAJOR, UT_DLPACK_MINOR);
    if (m == NULL || version == NULL ||
        PyModule_AddObjectRef(m, "Buffer", (PyObject *)&BufferType) < 0 ||
        PyModule_AddObjectRef(m, "LentTable", (PyObject *)&LentTableType) < 0 ||
        PyModule_AddObjectRef(m, "DLPACK_VERSION", version) < 0 ||
        PyModule_AddIntConstant(m, "MAX_NDIM", MAX_NDIM) < 0 ||
        /* what DLPack capsules are (types.CapsuleType from Python 3.13 only) */
        PyModule_AddObjectRef(m, "CAPSULE_TYPE", (PyObject *)&PyCapsule_Type) < 0) {
        goto done;
    }
    result = m;
    m = NULL;
done:
    Py_XDECREF(m);
    Py_XDECREF(version);
    return result;
}
