/* unitensor._xla: an XLA FFI handler that runs a bridged call's body on XLA's own
 * buffers, under jax.jit on the CPU (unitensor/_wrap/jax.py registers and calls it).
 *
 * Ownership rules (everything below relies on them):
 *
 * 1. The handler borrows everything in XLA's call frame: XLA owns the buffers and
 *    lends them for the call only. The runner, a Python callable named by the
 *    address in the call's "runner" attribute, is borrowed too: the jax executable
 *    holds it (jax's list of host callbacks) as long as it can run.
 * 2. Each buffer reaches Python as a Lent: a copy of the buffer's metadata (shape,
 *    strides, dtype) and its address, never its memory. When the runner returns,
 *    the handler expires every Lent of the call: a Lent that outlives the call
 *    (kept by a body) refuses every export, as the memory is XLA's again.
 * 3. Every __dlpack__() mallocs an Export whose manager_ctx holds a strong
 *    reference to its Lent (whose metadata the managed tensor points into). The
 *    Export's deleter runs exactly once, from the consumer or from the capsule
 *    destructor; it takes the GIL itself and does nothing once the interpreter
 *    is finalizing (leaking at exit beats crashing).
 * 4. The handler takes the GIL with PyGILState_Ensure (XLA may call it from a
 *    thread of its own) and releases it before it returns; it never runs Python
 *    once the interpreter is finalizing.
 * 5. A Python exception of the runner becomes an XLA error (its code from the
 *    exception's type, its text the formatted exception), which jax raises from
 *    the jitted call; the runner's exception itself is dropped with the GIL held.
 *
 * Errors of the handler itself are XLA errors whose text names unitensor.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlpack.h"
#include "xla_ffi.h"

static const char CAPSULE_VERSIONED[] = "dltensor_versioned";
static const char CAPSULE_LEGACY[] = "dltensor";
static const char RUNNER_ATTRIBUTE[] = "runner";

static bool
interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return !Py_IsInitialized() || Py_IsFinalizing();
#else
    return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

/* ------------------------------------------------------------- dtypes --- */

/* XLA's element type -> DLPack's dtype (bits 0: a type a bridge does not hold). */
static const DLDataType DTYPES[] = {
    [UT_XLA_PRED] = {kDLBool, 8, 1},      [UT_XLA_S8] = {kDLInt, 8, 1},
    [UT_XLA_S16] = {kDLInt, 16, 1},       [UT_XLA_S32] = {kDLInt, 32, 1},
    [UT_XLA_S64] = {kDLInt, 64, 1},       [UT_XLA_U8] = {kDLUInt, 8, 1},
    [UT_XLA_U16] = {kDLUInt, 16, 1},      [UT_XLA_U32] = {kDLUInt, 32, 1},
    [UT_XLA_U64] = {kDLUInt, 64, 1},      [UT_XLA_F16] = {kDLFloat, 16, 1},
    [UT_XLA_F32] = {kDLFloat, 32, 1},     [UT_XLA_F64] = {kDLFloat, 64, 1},
    [UT_XLA_C64] = {kDLComplex, 64, 1},   [UT_XLA_BF16] = {kDLBfloat, 16, 1},
    [UT_XLA_C128] = {kDLComplex, 128, 1},
};
#define N_DTYPES ((int)(sizeof(DTYPES) / sizeof(DTYPES[0])))

/* ---------------------------------------------------------------- Lent --- */

/* Rule 2. Its variable part: the shape, then the strides (in elements). */
typedef struct {
    PyObject_VAR_HEAD void *data;
    DLDataType dtype;
    int32_t ndim;
    bool writeable; /* a result; an argument is XLA's immutable array */
    bool expired;   /* the call returned: the memory is XLA's again */
    int64_t dims[1];
} Lent;

static PyTypeObject LentType;

/* A Lent of `buffer`, or NULL with a Python exception set. */
static Lent *
lent_new(const UtXlaBuffer *buffer, bool writeable)
{
    int code = buffer->element_type;
    if (code <= 0 || code >= N_DTYPES || DTYPES[code].bits == 0) {
        PyErr_Format(PyExc_TypeError,
                     "wrap(): args: expected arrays of a dtype the bridge holds, got "
                     "XLA element type %d",
                     code);
        return NULL;
    }
    int64_t ndim = buffer->rank;
    Lent *self = PyObject_NewVar(Lent, &LentType, ndim > 0 ? 2 * ndim : 1);
    if (self == NULL) {
        return NULL;
    }
    self->data = buffer->data;
    self->dtype = DTYPES[code];
    self->ndim = (int32_t)ndim;
    self->writeable = writeable;
    self->expired = false;
    int64_t stride = 1;
    for (int64_t i = ndim - 1; i >= 0; i--) { /* XLA's buffers are compact */
        self->dims[i] = buffer->dims[i];
        self->dims[ndim + i] = stride;
        stride *= buffer->dims[i] > 0 ? buffer->dims[i] : 1;
    }
    return self;
}

static void
lent_dealloc(Lent *self)
{
    PyObject_Free(self);
}

/* ------------------------------------------------------- DLPack export --- */

/* Rule 3: one struct for both formats; the managed tensor comes first. */
typedef struct {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } managed;
    Lent *owner;
} Export;

static void
export_free(Export *e)
{
    if (interpreter_finalizing()) {
        return; /* touching Python objects now could crash: leak instead */
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(e->owner);
    free(e);
    PyGILState_Release(gil);
}

/* The deleters of the two formats differ only in their argument's type. */
static void
export_deleter_versioned(DLManagedTensorVersioned *m)
{
    export_free((Export *)m);
}

static void
export_deleter_legacy(DLManagedTensor *m)
{
    export_free((Export *)m);
}

/* A capsule no consumer took: its destructor runs the deleter (rule 3). */
static void
capsule_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
        export_free(PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED));
    }
    else if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
        export_free(PyCapsule_GetPointer(capsule, CAPSULE_LEGACY));
    }
}

static PyObject *
buffer_error(const char *what, PyObject *got)
{
    PyErr_Format(PyExc_BufferError, "__dlpack__(): %s, got %R", what, got);
    return NULL;
}

/* A new Export of `self`'s memory (rule 3: it holds a reference to self), or
 * NULL with a MemoryError. An argument's versioned export is marked read-only. */
static Export *
export_new(Lent *self, bool versioned)
{
    Export *e = calloc(1, sizeof(Export));
    if (e == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    DLTensor *t =
        versioned ? &e->managed.versioned.dl_tensor : &e->managed.legacy.dl_tensor;
    t->data = self->data;
    t->device = (DLDevice){kDLCPU, 0};
    t->ndim = self->ndim;
    t->dtype = self->dtype;
    t->shape = self->ndim > 0 ? self->dims : NULL;
    t->strides = self->ndim > 0 ? self->dims + self->ndim : NULL;
    t->byte_offset = 0;
    if (versioned) {
        e->managed.versioned.version =
            (DLPackVersion){UT_DLPACK_MAJOR, UT_DLPACK_MINOR};
        e->managed.versioned.manager_ctx = e;
        e->managed.versioned.deleter = export_deleter_versioned;
        e->managed.versioned.flags =
            self->writeable ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
    }
    else {
        e->managed.legacy.manager_ctx = e;
        e->managed.legacy.deleter = export_deleter_legacy;
    }
    Py_INCREF(self);
    e->owner = self;
    return e;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) */
static PyObject *
lent_dlpack(Lent *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs != 0) {
        PyErr_SetString(PyExc_TypeError,
                        "__dlpack__(): expected keyword arguments only");
        return NULL;
    }
    bool versioned = false;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        PyObject *value = args[i];
        if (name == NULL) {
            return NULL;
        }
        if (strcmp(name, "max_version") == 0) {
            if (value == Py_None) {
                continue;
            }
            PyObject *major = PySequence_GetItem(value, 0);
            if (major == NULL) {
                return NULL;
            }
            long m = PyLong_AsLong(major);
            Py_DECREF(major);
            if (m == -1 && PyErr_Occurred()) {
                return NULL;
            }
            versioned = m >= 1;
        }
        else if (strcmp(name, "dl_device") == 0) {
            if (value == Py_None) {
                continue;
            }
            PyObject *here = Py_BuildValue("(ii)", kDLCPU, 0);
            if (here == NULL) {
                return NULL;
            }
            int same = PyObject_RichCompareBool(value, here, Py_EQ);
            Py_DECREF(here);
            if (same < 0) {
                return NULL;
            }
            if (!same) {
                return buffer_error("expected dl_device (1, 0), the CPU where XLA "
                                    "lent this buffer",
                                    value);
            }
        }
        else if (strcmp(name, "copy") == 0) {
            if (value == Py_True) {
                return buffer_error("expected copy None or False (a buffer XLA lends "
                                    "is shared, never copied)",
                                    value);
            }
        }
        else if (strcmp(name, "stream") != 0) { /* CPU memory: no stream to order */
            PyErr_Format(PyExc_TypeError,
                         "__dlpack__(): unexpected keyword argument '%s'", name);
            return NULL;
        }
    }
    if (self->expired) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__(): expected a buffer XLA lends for the current "
                        "call, got one whose call has returned (its memory is "
                        "XLA's again)");
        return NULL;
    }
    Export *e = export_new(self, versioned);
    if (e == NULL) {
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(e, versioned ? CAPSULE_VERSIONED : CAPSULE_LEGACY,
                                      capsule_destructor);
    if (capsule == NULL) {
        Py_DECREF(self);
        free(e);
    }
    return capsule;
}

static PyObject *
lent_dlpack_device(Lent *self, PyObject *unused)
{
    return Py_BuildValue("(ii)", kDLCPU, 0);
}

static PyObject *
lent_shape(Lent *self, void *closure)
{
    PyObject *shape = PyTuple_New(self->ndim);
    if (shape == NULL) {
        return NULL;
    }
    for (int32_t i = 0; i < self->ndim; i++) {
        PyObject *n = PyLong_FromLongLong(self->dims[i]);
        if (n == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, i, n);
    }
    return shape;
}

static PyObject *
lent_writeable(Lent *self, void *closure)
{
    return PyBool_FromLong(self->writeable);
}

static PyObject *
lent_expired(Lent *self, void *closure)
{
    return PyBool_FromLong(self->expired);
}

static uint64_t
    fills; /* results written in C, Lent.fill or fill() (tests count them) */

/* The size of the buffer's memory in bytes (it is compact). */
static long long
lent_nbytes(const Lent *self)
{
    long long size = (self->dtype.bits * self->dtype.lanes + 7) / 8;
    for (int32_t i = 0; i < self->ndim; i++) {
        size *= self->dims[i];
    }
    return size;
}

/* The size of the buffer's memory in bytes, or -1 with a BufferError naming
 * `method` where it may not be written now: an argument (XLA's immutable array),
 * or after the call returned. */
static long long
writable_bytes(Lent *self, const char *method)
{
    if (self->expired || !self->writeable) {
        PyErr_Format(PyExc_BufferError, "Lent.%s(): %s", method,
                     self->expired ? "the call has returned"
                                   : "an argument is read-only");
        return -1;
    }
    return lent_nbytes(self);
}

/* Copy `nbytes` from `address` into a result: the body's output, compact and of
   the result's dtype and shape (the caller checked both), written without a
   DLPack import and a tensor's copy_. Refused for an argument (XLA's immutable
   array), after the call returned, or for a size other than the buffer's. */
static PyObject *
lent_fill(Lent *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "Lent.fill(): expected (address, nbytes)");
        return NULL;
    }
    uintptr_t address = (uintptr_t)PyLong_AsVoidPtr(args[0]);
    if (address == 0 && PyErr_Occurred()) {
        return NULL;
    }
    long long nbytes = PyLong_AsLongLong(args[1]);
    if (nbytes == -1 && PyErr_Occurred()) {
        return NULL;
    }
    long long size = writable_bytes(self, "fill");
    if (size < 0) {
        return NULL;
    }
    if (nbytes != size || (size > 0 && address == 0)) {
        PyErr_Format(PyExc_ValueError,
                     "Lent.fill(): expected %lld bytes at a valid address, got %lld",
                     size, nbytes);
        return NULL;
    }
    if (size > 0) {
        memcpy(self->data, (const void *)address, (size_t)size);
    }
    fills++;
    Py_RETURN_NONE;
}

/* The buffer's address, for a launch that writes a kernel's arguments itself (a
 * replayed Warp kernel): while the call runs only. */
static PyObject *
lent_address(Lent *self, void *closure)
{
    if (self->expired) {
        PyErr_SetString(PyExc_BufferError, "Lent.address: the call has returned");
        return NULL;
    }
    return PyLong_FromVoidPtr(self->data);
}

/* The result's bytes set to zero (XLA's result buffers are not), as an eager
 * kernel's outputs are made: refused for an argument and after the call. */
static PyObject *
lent_zero(Lent *self, PyObject *unused)
{
    long long size = writable_bytes(self, "zero");
    if (size < 0) {
        return NULL;
    }
    if (size > 0) {
        memset(self->data, 0, (size_t)size);
    }
    Py_RETURN_NONE;
}

static PyMethodDef lent_methods[] = {
    {"zero", (PyCFunction)lent_zero, METH_NOARGS,
     "zero(): set this result's bytes to zero."},
    {"fill", (PyCFunction)(void (*)(void))lent_fill, METH_FASTCALL,
     "fill(address, nbytes): copy nbytes at address into this result (its "
     "whole size)."},
    {"__dlpack__", (PyCFunction)(void (*)(void))lent_dlpack,
     METH_FASTCALL | METH_KEYWORDS,
     "A DLPack capsule of the buffer (versioned where max_version allows; an "
     "argument's is marked read-only)."},
    {"__dlpack_device__", (PyCFunction)lent_dlpack_device, METH_NOARGS,
     "(1, 0): XLA's CPU."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef lent_getset[] = {
    {"shape", (getter)lent_shape, NULL, "The buffer's shape.", NULL},
    {"address", (getter)lent_address, NULL,
     "The buffer's address (while the call runs).", NULL},
    {"writeable", (getter)lent_writeable, NULL,
     "Whether it is a result (an argument is XLA's immutable array).", NULL},
    {"expired", (getter)lent_expired, NULL,
     "Whether its call has returned (it exports nothing then).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject LentType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._xla.Lent",
    .tp_basicsize = offsetof(Lent, dims),
    .tp_itemsize = sizeof(int64_t),
    .tp_dealloc = (destructor)lent_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A buffer XLA lends to a bridged call, for that call only.",
    .tp_methods = lent_methods,
    .tp_getset = lent_getset,
};

/* ------------------------------------------------------------- handler --- */

static UtXlaError *
xla_error(const UtXlaCallFrame *frame, int code, const char *message)
{
    UtXlaErrorArgs args = {UT_XLA_SIZE_TO(UtXlaErrorArgs, code), NULL, message, code};
    return frame->api->make_error(&args);
}

/* The XLA error code of a Python exception, by its type. */
static int
error_code(PyObject *exc)
{
    if (PyErr_GivenExceptionMatches(exc, PyExc_NotImplementedError)) {
        return UT_XLA_UNIMPLEMENTED;
    }
    if (PyErr_GivenExceptionMatches(exc, PyExc_IndexError)) {
        return UT_XLA_OUT_OF_RANGE;
    }
    if (PyErr_GivenExceptionMatches(exc, PyExc_BufferError)) {
        return UT_XLA_FAILED_PRECONDITION;
    }
    if (PyErr_GivenExceptionMatches(exc, PyExc_ValueError) ||
        PyErr_GivenExceptionMatches(exc, PyExc_TypeError)) {
        return UT_XLA_INVALID_ARGUMENT;
    }
    return UT_XLA_UNKNOWN;
}

/* Rule 5: the pending Python exception as an XLA error (the GIL held). */
static UtXlaError *
exception_error(const UtXlaCallFrame *frame)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL) {
        PyException_SetTraceback(value, tb);
    }
    int code = value != NULL ? error_code(value) : UT_XLA_UNKNOWN;
    PyObject *text = NULL;
    PyObject *traceback = PyImport_ImportModule("traceback");
    if (traceback != NULL && value != NULL) {
        PyObject *lines = PyObject_CallMethod(traceback, "format_exception", "OOO",
                                              type, value, tb ? tb : Py_None);
        if (lines != NULL) {
            PyObject *empty = PyUnicode_FromString("");
            if (empty != NULL) {
                text = PyUnicode_Join(empty, lines);
                Py_DECREF(empty);
            }
            Py_DECREF(lines);
        }
    }
    Py_XDECREF(traceback);
    const char *utf8 = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
    PyErr_Clear(); /* a failure to format: the fixed text below */
    UtXlaError *error =
        xla_error(frame, code,
                  utf8 != NULL ? utf8
                               : "unitensor: the bridged body raised an "
                                 "exception that could not be formatted");
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return error;
}

/* The runner named by the call's attribute (rule 1), or NULL. */
static PyObject *
find_runner(const UtXlaCallFrame *frame)
{
    const UtXlaAttributes *attributes = &frame->attributes;
    size_t length = sizeof(RUNNER_ATTRIBUTE) - 1;
    for (int64_t i = 0; i < attributes->count; i++) {
        const UtXlaName *name = attributes->names[i];
        if (attributes->kinds[i] != UT_XLA_ATTR_SCALAR || name->length != length ||
            memcmp(name->text, RUNNER_ATTRIBUTE, length) != 0) {
            continue;
        }
        const UtXlaScalar *scalar = attributes->values[i];
        if (scalar->element_type != UT_XLA_U64) {
            return NULL;
        }
        return (PyObject *)(uintptr_t)*(const uint64_t *)scalar->value;
    }
    return NULL;
}

/* A tuple of Lents for `list` (XLA's arguments or results), or NULL (exception). */
static PyObject *
lend_all(const UtXlaList *list, bool writeable)
{
    PyObject *tuple = PyTuple_New((Py_ssize_t)list->count);
    if (tuple == NULL) {
        return NULL;
    }
    for (int64_t i = 0; i < list->count; i++) {
        if (list->kinds[i] != UT_XLA_KIND_BUFFER) {
            PyErr_SetString(PyExc_TypeError, "unitensor: XLA passed the bridged "
                                             "call something other than a buffer");
            Py_DECREF(tuple);
            return NULL;
        }
        Lent *lent = lent_new(list->items[i], writeable);
        if (lent == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, (PyObject *)lent);
    }
    return tuple;
}

static void
expire_all(PyObject *tuple)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++) {
        ((Lent *)PyTuple_GET_ITEM(tuple, i))->expired = true;
    }
}

static uint64_t calls; /* execute-stage calls that ran a runner (tests count them) */

static UtXlaError *
handler(UtXlaCallFrame *frame)
{
    UtXlaExtension *extension = frame->extensions;
    if (extension != NULL && extension->kind == UT_XLA_EXTENSION_METADATA) {
        /* XLA asks which API version the handler follows, before any call */
        UtXlaMetadata *metadata = ((UtXlaMetadataQuery *)extension)->metadata;
        metadata->api_version.major = UT_XLA_API_MAJOR;
        metadata->api_version.minor = UT_XLA_API_MINOR;
        metadata->traits = 0;
        return NULL;
    }
    if (frame->api->size < UT_XLA_SIZE_TO(UtXlaApi, make_error)) {
        /* an XLA older than FFI API 0.1 (jax.ffi, which registers the handler,
         * came later): unreachable, and nothing can be reported without the
         * error maker; stopping beats leaving the results unwritten */
        abort();
    }
    if (frame->size < UT_XLA_SIZE_TO(UtXlaCallFrame, attributes)) {
        return xla_error(frame, UT_XLA_INTERNAL,
                         "unitensor: XLA's call frame is older than the FFI ABI "
                         "unitensor was built for (API 0.1)");
    }
    if (frame->stage != UT_XLA_STAGE_EXECUTE) {
        return NULL; /* nothing to prepare */
    }
    PyObject *runner = find_runner(frame);
    if (runner == NULL) {
        return xla_error(frame, UT_XLA_INTERNAL,
                         "unitensor: a bridged call without its runner attribute (a "
                         "uint64 'runner')");
    }
    if (interpreter_finalizing()) {
        return xla_error(frame, UT_XLA_INTERNAL,
                         "unitensor: the Python interpreter is shutting down");
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    UtXlaError *error = NULL;
    PyObject *args = lend_all(&frame->args, false);
    PyObject *results = args == NULL ? NULL : lend_all(&frame->results, true);
    PyObject *out = NULL;
    if (results != NULL) {
        calls++;
        out = PyObject_CallFunctionObjArgs(runner, args, results, NULL);
        expire_all(args);
        expire_all(results);
    }
    if (out == NULL) {
        error = exception_error(frame);
    }
    Py_XDECREF(out);
    Py_XDECREF(args);
    Py_XDECREF(results);
    PyGILState_Release(gil);
    return error;
}

/* ------------------------------------------------------ watched bytes --- */
/* A body whose framework cannot mark memory read-only (torch) may write into an
 * argument, XLA's immutable array. Instead of guarding every operation it runs,
 * the runner may keep a copy of the arguments' bytes (snapshot) and, once the
 * body returned, put back those it changed (restore), then refuse the call. */

/* Item `i` of the tuple `lents` as a live Lent, or NULL with an exception. */
static Lent *
live_lent(PyObject *lents, Py_ssize_t i, const char *func)
{
    PyObject *item = PyTuple_GET_ITEM(lents, i);
    if (!PyObject_TypeCheck(item, &LentType)) {
        PyErr_Format(PyExc_TypeError, "%s(): lents: expected a tuple of Lents, got %R",
                     func, item);
        return NULL;
    }
    Lent *lent = (Lent *)item;
    if (lent->expired) {
        PyErr_Format(PyExc_BufferError, "%s(): lents[%zd]: the call has returned", func,
                     i);
        return NULL;
    }
    return lent;
}

/* The bytes of every Lent in the tuple `lents` in all, or -1 with an exception
 * naming `func` where one is not a live Lent. */
static long long
live_bytes(PyObject *lents, const char *func)
{
    long long total = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lents); i++) {
        Lent *lent = live_lent(lents, i, func);
        if (lent == NULL) {
            return -1;
        }
        total += lent_nbytes(lent);
    }
    return total;
}

/* snapshot(lents) -> bytes: the bytes of every Lent in `lents`, one after another. */
static PyObject *
xla_snapshot(PyObject *module, PyObject *lents)
{
    if (!PyTuple_Check(lents)) {
        PyErr_Format(PyExc_TypeError,
                     "snapshot(): lents: expected a tuple of Lents, "
                     "got %R",
                     lents);
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(lents);
    long long total = live_bytes(lents, "snapshot");
    if (total < 0) {
        return NULL;
    }
    PyObject *copy = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (copy == NULL) {
        return NULL;
    }
    char *at = PyBytes_AS_STRING(copy);
    for (Py_ssize_t i = 0; i < n; i++) {
        Lent *lent = (Lent *)PyTuple_GET_ITEM(lents, i);
        long long size = lent_nbytes(lent);
        if (size > 0) {
            memcpy(at, lent->data, (size_t)size);
        }
        at += size;
    }
    return copy;
}

/* restore(lents, snapshot) -> int: every Lent whose bytes differ from its part of
 * `snapshot` (taken from the same lents) set back to it; the index of the first
 * one, or -1 where none changed. */
static PyObject *
xla_restore(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyTuple_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "restore(): expected (lents: a tuple of "
                                         "Lents, snapshot: bytes)");
        return NULL;
    }
    PyObject *lents = args[0];
    Py_ssize_t n = PyTuple_GET_SIZE(lents);
    long long total = live_bytes(lents, "restore");
    if (total < 0) {
        return NULL;
    }
    if (total != (long long)PyBytes_GET_SIZE(args[1])) {
        PyErr_Format(PyExc_ValueError,
                     "restore(): snapshot: expected the %lld bytes snapshot() took of "
                     "these lents, got %zd",
                     total, PyBytes_GET_SIZE(args[1]));
        return NULL;
    }
    const char *at = PyBytes_AS_STRING(args[1]);
    Py_ssize_t first = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Lent *lent = (Lent *)PyTuple_GET_ITEM(lents, i);
        long long size = lent_nbytes(lent);
        if (size > 0 && memcmp(lent->data, at, (size_t)size) != 0) {
            memcpy(lent->data, at, (size_t)size);
            if (first < 0) {
                first = i;
            }
        }
        at += size;
    }
    return PyLong_FromSsize_t(first);
}

/* ------------------------------------------- the body's framework, in C --- */
/* Where the body's array type publishes a DLPack C exchange API (torch), the
 * runner lends the arguments (lend), fills the results (fill) and finds an
 * argument the body kept (held) without a Python call per array. */

/* The exchange table `type` declares itself, or NULL with a TypeError. */
static const DLPackExchangeAPI *
declared_api(PyObject *type, const char *func)
{
    PyObject *capsule = NULL;
    if (PyType_Check(type) && ((PyTypeObject *)type)->tp_dict != NULL) {
        capsule = PyDict_GetItemString(((PyTypeObject *)type)->tp_dict,
                                       "__dlpack_c_exchange_api__");
    }
    const DLPackExchangeAPI *api =
        capsule == NULL ? NULL : PyCapsule_GetPointer(capsule, UT_EXCHANGE_API_CAPSULE);
    if (api == NULL || api->header.version.major != UT_DLPACK_MAJOR ||
        api->managed_tensor_to_py_object_no_sync == NULL ||
        api->dltensor_from_py_object_no_sync == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s(): type: expected an array type declaring a DLPack 1.x C "
                     "exchange API (__dlpack_c_exchange_api__), got %R",
                     func, type);
        return NULL;
    }
    return api;
}

/* lend(lents, type) -> list: an array of `type`'s framework over each argument,
 * made by its exchange API from an Export (as __dlpack__() would hand it). */
static PyObject *
xla_lend(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyTuple_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "lend(): expected (lents: a tuple of Lents, "
                                         "type: an array type)");
        return NULL;
    }
    const DLPackExchangeAPI *api = declared_api(args[1], "lend");
    if (api == NULL) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args[0]);
    PyObject *arrays = PyList_New(n);
    if (arrays == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Lent *lent = live_lent(args[0], i, "lend");
        Export *e = lent == NULL ? NULL : export_new(lent, true);
        if (e == NULL) {
            Py_DECREF(arrays);
            return NULL;
        }
        /* whether the framework ran the deleter when it fails is not specified:
         * the Export's reference to its Lent tells */
        Py_ssize_t holders = Py_REFCNT(lent);
        void *array = NULL;
        if (api->managed_tensor_to_py_object_no_sync(&e->managed.versioned, &array) !=
            0) {
            if (Py_REFCNT(lent) == holders) {
                Py_DECREF(lent);
                free(e);
            }
            Py_DECREF(arrays);
            return NULL;
        }
        PyList_SET_ITEM(arrays, i, (PyObject *)array);
    }
    return arrays;
}

/* Whether `t` is compact (row-major, no gaps) and on the CPU. */
static bool
compact_on_cpu(const DLTensor *t)
{
    if (t->device.device_type != kDLCPU) {
        return false;
    }
    if (t->strides == NULL) {
        return true;
    }
    int64_t expected = 1;
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->strides[i] != expected) {
            return false;
        }
        expected *= t->shape[i];
    }
    return true;
}

/* fill(outs, ys, type, most) -> bool: each result in `outs` written from the
 * array in `ys` at its place, where every one is an array of exactly `type` (its
 * exchange API reads it), compact on the CPU, of its result's dtype and shape and
 * of fewer than `most` elements: one memcpy each. False, nothing refused, where
 * one is not (the caller's general path checks and writes them all). */
static PyObject *
xla_fill(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyTuple_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "fill(): expected (outs: a tuple of Lents, "
                                         "ys: a list of arrays, type, most: int)");
        return NULL;
    }
    const DLPackExchangeAPI *api = declared_api(args[2], "fill");
    long long most = PyLong_AsLongLong(args[3]);
    if (api == NULL || (most == -1 && PyErr_Occurred())) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args[0]);
    if (PyList_GET_SIZE(args[1]) != n) {
        Py_RETURN_FALSE;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *y = PyList_GET_ITEM(args[1], i);
        Lent *out = live_lent(args[0], i, "fill");
        if (out == NULL) {
            return NULL;
        }
        if ((PyObject *)Py_TYPE(y) != args[2] || !out->writeable) {
            Py_RETURN_FALSE;
        }
        DLTensor t;
        if (api->dltensor_from_py_object_no_sync(y, &t) != 0) {
            if (!PyErr_ExceptionMatches(PyExc_Exception)) {
                return NULL;
            }
            PyErr_Clear(); /* (one torch will not export: the general path) */
            Py_RETURN_FALSE;
        }
        if (t.ndim != out->ndim || t.dtype.code != out->dtype.code ||
            t.dtype.bits != out->dtype.bits || t.dtype.lanes != out->dtype.lanes ||
            !compact_on_cpu(&t)) {
            Py_RETURN_FALSE;
        }
        long long elements = 1;
        for (int32_t d = 0; d < t.ndim; d++) {
            if (t.shape[d] != out->dims[d]) {
                Py_RETURN_FALSE;
            }
            elements *= t.shape[d];
        }
        if (elements >= most) {
            Py_RETURN_FALSE;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) { /* all can be written: each one memcpy */
        Lent *out = (Lent *)PyTuple_GET_ITEM(args[0], i);
        DLTensor t;
        if (api->dltensor_from_py_object_no_sync(PyList_GET_ITEM(args[1], i), &t) !=
            0) {
            return NULL; /* it just read: unreachable */
        }
        long long size = lent_nbytes(out);
        if (size > 0) {
            memcpy(out->data, (const char *)t.data + t.byte_offset, (size_t)size);
        }
        fills++;
    }
    Py_RETURN_TRUE;
}

/* held(lents) -> int: the index of the first argument something still holds
 * besides `lents` (an export of it alive: a view of it the body kept, or the Lent
 * itself), or -1. */
static PyObject *
xla_held(PyObject *module, PyObject *lents)
{
    if (!PyTuple_Check(lents)) {
        PyErr_Format(PyExc_TypeError,
                     "held(): lents: expected a tuple of Lents, got %R", lents);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lents); i++) {
        if (!PyObject_TypeCheck(PyTuple_GET_ITEM(lents, i), &LentType)) {
            PyErr_Format(PyExc_TypeError,
                         "held(): lents: expected a tuple of Lents, got %R",
                         PyTuple_GET_ITEM(lents, i));
            return NULL;
        }
        if (Py_REFCNT(PyTuple_GET_ITEM(lents, i)) > 1) {
            return PyLong_FromSsize_t(i);
        }
    }
    return PyLong_FromSsize_t(-1);
}

/* -------------------------------------------------------------- module --- */

static PyObject *
xla_calls(PyObject *module, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(calls);
}

static PyObject *
xla_fills(PyObject *module, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(fills);
}

static PyMethodDef module_methods[] = {
    {"calls", xla_calls, METH_NOARGS,
     "How many bridged calls the handler has run (its execute stage)."},
    {"fills", xla_fills, METH_NOARGS, "How many results Lent.fill has written."},
    {"snapshot", xla_snapshot, METH_O,
     "snapshot(lents): the bytes of the arguments lents, one after another."},
    {"lend", (PyCFunction)(void (*)(void))xla_lend, METH_FASTCALL,
     "lend(lents, type): an array of type's framework over each argument, "
     "through its DLPack C exchange API."},
    {"fill", (PyCFunction)(void (*)(void))xla_fill, METH_FASTCALL,
     "fill(outs, ys, type, most): write each result from ys in C where all are "
     "compact CPU arrays of type, of the results' dtypes and shapes and of fewer "
     "than most elements; False where not."},
    {"held", xla_held, METH_O,
     "held(lents): the index of the first argument still held besides lents, or "
     "-1."},
    {"restore", (PyCFunction)(void (*)(void))xla_restore, METH_FASTCALL,
     "restore(lents, snapshot): set back every argument whose bytes changed since "
     "snapshot(lents); the index of the first, or -1."},
    {NULL, NULL, 0, NULL},
};

static int
module_exec(PyObject *module)
{
    if (PyType_Ready(&LentType) < 0 ||
        PyModule_AddObjectRef(module, "Lent", (PyObject *)&LentType) < 0) {
        return -1;
    }
    /* jax.ffi.register_ffi_target takes the handler as a capsule of its address */
    PyObject *capsule = PyCapsule_New((void *)(uintptr_t)handler, NULL, NULL);
    if (capsule == NULL) {
        return -1;
    }
    int failed = PyModule_AddObjectRef(module, "handler", capsule);
    Py_DECREF(capsule);
    if (failed < 0 ||
        PyModule_AddIntConstant(module, "API_MAJOR", UT_XLA_API_MAJOR) < 0 ||
        PyModule_AddIntConstant(module, "API_MINOR", UT_XLA_API_MINOR) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "unitensor._xla",
    .m_doc = "An XLA FFI handler that runs a bridged call's body on XLA's buffers.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__xla(void)
{
    return PyModuleDef_Init(&module_def);
}
