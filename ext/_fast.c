/* unitensor._fast: the Tensor's C base and the hot paths, in C.
 *
 * Python decides everything; this module only repeats, at C speed, what the
 * Python code already decided once. Each fast path reads tables the Python side
 * fills (type -> backend, backend -> function) and, on anything it does not
 * recognise, calls the Python function it stands for (`slow`) with the same
 * arguments. So a fast path can only ever be a shortcut to the answer the
 * Python path gives: tests run both (tests/test_fast.py).
 *
 * - Memory: what every Tensor aliasing one memory shares (Buffer, view cache).
 * - TensorBase: the storage of unitensor.Tensor (a Python subclass with every
 *   method): its owner backend, its native array, and the shared memory record.
 *   Made only by make_tensor() and the fast paths below.
 * - FastPath: a callable standing for one Python function:
 *     ASARRAY  asarray(obj) of an array whose type and dtype were seen before;
 *     UNARY    f(x) on a Tensor whose backend has a function in the table (or
 *              two: one for complex dtypes, one for the rest);
 *     BINARY   f(x1, x2) on two Tensors of one backend and dtype;
 *     VIEW     tensor.torch() etc.: the cached view, the native, or the target
 *              adapter's route from the owner (ROUTES[owner name]), cached as
 *              Python caches it;
 *     GETITEM  x[key] with a basic key (ints, slices, None, Ellipsis);
 *     CALL     f(x, ...) for a Tensor x and plain Python arguments (numbers,
 *              strings, None, tuples of them): sum(x, axis=0), reshape(x, s).
 *   It binds like a function (so it can be a method or an operator of Tensor)
 *   and has a __dict__ for functools.update_wrapper (__wrapped__ gives
 *   inspect.signature the Python function's signature).
 *
 * This module imports no framework and owns no memory but Python references.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* ---------------------------------------------------------- TensorBase --- */

typedef struct {
    PyObject_HEAD
    PyObject *backend; /* the owner's adapter module */
    PyObject *native;  /* the owner's array */
    PyObject *memory;  /* the shared memory record, or NULL/None until needed */
    PyObject *dtype;   /* native.dtype, read once (NULL until then): a native's
                          dtype never changes, and assigning _native clears it */
    PyObject *weakreflist;
} TensorObject;

static PyTypeObject TensorBaseType;
/* unitensor.Tensor (the Python subclass), registered by configure(). */
static PyTypeObject *tensor_type = NULL;
/* _dispatch._forcing_now: a one-item list, 0 while no owner() block is open. */
static PyObject *forcing_now = NULL;
static PyObject *zero = NULL;
static PyObject *str_dtype, *str_name, *str_routes, *str_result;
/* _backends._loaded: framework name -> its adapter module, once imported. */
static PyObject *loaded_backends = NULL;

static PyObject *
new_tensor(PyObject *backend, PyObject *native, PyObject *memory)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "unitensor._fast: configure() was not called");
        return NULL;
    }
    TensorObject *t = (TensorObject *)tensor_type->tp_alloc(tensor_type, 0);
    if (t == NULL) {
        return NULL;
    }
    t->backend = Py_NewRef(backend);
    t->native = Py_NewRef(native);
    t->memory = memory == Py_None ? NULL : Py_XNewRef(memory);
    return (PyObject *)t;
}

static int
tensor_traverse(TensorObject *t, visitproc visit, void *arg)
{
    Py_VISIT(t->backend);
    Py_VISIT(t->native);
    Py_VISIT(t->memory);
    Py_VISIT(t->dtype);
    return 0;
}

static int
tensor_clear(TensorObject *t)
{
    Py_CLEAR(t->backend);
    Py_CLEAR(t->native);
    Py_CLEAR(t->memory);
    Py_CLEAR(t->dtype);
    return 0;
}

static void
tensor_dealloc(TensorObject *t)
{
    PyObject_GC_UnTrack(t);
    if (t->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)t);
    }
    tensor_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *
tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyErr_SetString(PyExc_TypeError, "Tensor(): use unitensor.asarray(obj) or "
                                     "unitensor.from_dlpack(obj) to make a Tensor");
    return NULL;
}

static PyObject *
tensor_get_native(TensorObject *t, void *Py_UNUSED(closure))
{
    if (t->native == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_native");
        return NULL;
    }
    return Py_NewRef(t->native);
}

static int
tensor_set_native(TensorObject *t, PyObject *value, void *Py_UNUSED(closure))
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_native cannot be deleted");
        return -1;
    }
    Py_XSETREF(t->native, Py_NewRef(value));
    Py_CLEAR(t->dtype); /* another array: its dtype is read again */
    return 0;
}

static PyGetSetDef tensor_getset[] = {
    {"_native", (getter)tensor_get_native, (setter)tensor_set_native,
     "The owner's array.", NULL},
    {NULL},
};

static PyMemberDef tensor_members[] = {
    {"_backend", T_OBJECT_EX, offsetof(TensorObject, backend), 0,
     "The owner's adapter module."},
    {"_memory", T_OBJECT, offsetof(TensorObject, memory), 0,
     "The record shared by every Tensor aliasing this memory, or None."},
    {NULL},
};

static PyTypeObject TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The storage of unitensor.Tensor.",
    .tp_new = tensor_new,
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_traverse = (traverseproc)tensor_traverse,
    .tp_clear = (inquiry)tensor_clear,
    .tp_members = tensor_members,
    .tp_getset = tensor_getset,
    .tp_weaklistoffset = offsetof(TensorObject, weakreflist),
};

/* ------------------------------------------------------------- Memory --- */

/* What every Tensor aliasing the same memory shares: the _core.Buffer over it
 * (made the first time the memory crosses to another framework) and the views
 * already made for other frameworks, so that .torch() twice converts once. */
typedef struct {
    PyObject_HEAD
    PyObject *buffer; /* NULL until exported (reads as None) */
    PyObject *views;  /* dict: framework name -> that framework's array */
} MemoryObject;

static PyTypeObject MemoryType;

static PyObject *
new_memory(PyTypeObject *type, PyObject *buffer)
{
    MemoryObject *m = (MemoryObject *)type->tp_alloc(type, 0);
    if (m == NULL) {
        return NULL;
    }
    m->buffer = Py_XNewRef(buffer);
    m->views = PyDict_New();
    if (m->views == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return (PyObject *)m;
}

static PyObject *
memory_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"buffer", NULL};
    PyObject *buffer = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Memory", keywords, &buffer)) {
        return NULL;
    }
    return new_memory(type, buffer == Py_None ? NULL : buffer);
}

static int
memory_traverse(MemoryObject *m, visitproc visit, void *arg)
{
    Py_VISIT(m->buffer);
    Py_VISIT(m->views);
    return 0;
}

static int
memory_clear(MemoryObject *m)
{
    Py_CLEAR(m->buffer);
    Py_CLEAR(m->views);
    return 0;
}

static void
memory_dealloc(MemoryObject *m)
{
    PyObject_GC_UnTrack(m);
    memory_clear(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyMemberDef memory_members[] = {
    {"buffer", T_OBJECT, offsetof(MemoryObject, buffer), 0,
     "The _core.Buffer over the memory, or None until it is exported."},
    {"views", T_OBJECT_EX, offsetof(MemoryObject, views), READONLY,
     "framework name -> the zero-copy array already made for it."},
    {NULL},
};

static PyTypeObject MemoryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.Memory",
    .tp_basicsize = sizeof(MemoryObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Memory(buffer=None): what every Tensor aliasing one memory shares.",
    .tp_new = memory_new,
    .tp_dealloc = (destructor)memory_dealloc,
    .tp_traverse = (traverseproc)memory_traverse,
    .tp_clear = (inquiry)memory_clear,
    .tp_members = memory_members,
};

static inline bool
is_tensor(PyObject *obj)
{
    return Py_TYPE(obj) == tensor_type;
}

static inline bool
no_memory(TensorObject *t)
{
    return t->memory == NULL || t->memory == Py_None;
}

/* ------------------------------------------------------------ FastPath --- */

typedef enum { ASARRAY, UNARY, BINARY, VIEW, GETITEM, CALL, N_FAST_KINDS } FastKind;
static const char *const FAST_KIND_NAMES[] = {"asarray", "unary", "binary",
                                              "view",    "getitem", "call"};

typedef struct {
    PyObject_HEAD
    FastKind kind;
    PyObject *slow;  /* the Python function this one stands for */
    PyObject *table; /* ASARRAY: {type: (backend, dtypes)}; UNARY, BINARY,
                        GETITEM, CALL: {backend: (function, array type)};
                        UNARY also {backend: (function, array type, function
                        for non-complex dtypes, frozenset of complex dtypes)};
                        VIEW: the framework's name */
    PyObject *wrap;  /* wrap(backend, result) for results that are not the
                        backend's array type (scalars, tuples); NULL: slow path */
    PyObject *keywords; /* CALL: {keyword: default} of the signature */
    Py_ssize_t max_positional; /* CALL: positional parameters, x included */
    PyObject *dict;
    vectorcallfunc vectorcall;
} FastPath;

static PyObject *
call_slow(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return PyObject_Vectorcall(f->slow, args, nargsf, kwnames);
}

/* A framework raised: Python's `except Exception` takes the general path, which
 * raises it properly; anything else (KeyboardInterrupt) goes on up. */
static bool
retry_slowly(void)
{
    if (!PyErr_ExceptionMatches(PyExc_Exception)) {
        return false;
    }
    PyErr_Clear();
    return true;
}

static inline bool
forcing(void)
{
    return PyList_GET_ITEM(forcing_now, 0) != zero;
}

/* Every keyword argument given is None (the defaults of asarray and views). */
static bool
keywords_all_none(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t n = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (args[nargs + i] != Py_None) {
            return false;
        }
    }
    return true;
}

/* table[key] as a 2-tuple, borrowed; NULL (no error) when absent. */
static PyObject *
entry(PyObject *table, PyObject *key)
{
    PyObject *found = PyDict_GetItemWithError(table, key);
    if (found == NULL || !PyTuple_CheckExact(found) || PyTuple_GET_SIZE(found) != 2) {
        PyErr_Clear(); /* a type that cannot be hashed: the slow path says so */
        return NULL;
    }
    return found;
}

/* ut.asarray(obj): a Tensor already, or an array of a type and dtype seen before. */
static PyObject *
fast_asarray(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || !keywords_all_none(args, nargs, kwnames)) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *obj = args[0];
    if (is_tensor(obj)) {
        return Py_NewRef(obj);
    }
    PyObject *seen = entry(f->table, (PyObject *)Py_TYPE(obj));
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *dtype = PyObject_GetAttr(obj, str_dtype);
    if (dtype == NULL) {
        PyErr_Clear();
        return call_slow(f, args, nargsf, kwnames);
    }
    /* Identity, not equality: the dtype objects a framework hands out are its
     * singletons; any other object (byte-swapped numpy) takes the slow path. */
    PyObject *dtypes = PyTuple_GET_ITEM(seen, 1);
    bool known = false;
    for (Py_ssize_t i = 0; PyTuple_Check(dtypes) && i < PyTuple_GET_SIZE(dtypes); i++) {
        known = known || PyTuple_GET_ITEM(dtypes, i) == dtype;
    }
    if (!known) {
        Py_DECREF(dtype);
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *t = (TensorObject *)new_tensor(PyTuple_GET_ITEM(seen, 0), obj, NULL);
    if (t != NULL) {
        t->dtype = dtype; /* read already: the binary fast path reuses it */
    }
    else {
        Py_DECREF(dtype);
    }
    return (PyObject *)t;
}

/* The framework's function ran: its array as a Tensor, or the slow path. */
static PyObject *
wrap_result(FastPath *f, PyObject *backend, PyObject *result, PyObject *array_type,
            PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (result == NULL) {
        return retry_slowly() ? call_slow(f, args, nargsf, kwnames) : NULL;
    }
    if ((PyObject *)Py_TYPE(result) != array_type && !PyTuple_Check(result) &&
        !PyList_Check(result)) {
        /* a scalar (numpy's 0-d results): the adapter's result() makes it an
         * array, as the Python wrap does */
        Py_SETREF(result, PyObject_CallMethodOneArg(backend, str_result, result));
        if (result == NULL) {
            return NULL;
        }
    }
    if ((PyObject *)Py_TYPE(result) != array_type) { /* a tuple, a list */
        if (f->wrap != NULL) {
            PyObject *wrap_args[2] = {backend, result};
            PyObject *wrapped = PyObject_Vectorcall(f->wrap, wrap_args, 2, NULL);
            Py_DECREF(result);
            return wrapped;
        }
        Py_DECREF(result);
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *t = new_tensor(backend, result, NULL);
    Py_DECREF(result);
    return t;
}

/* t's native dtype object, borrowed: read once per native. */
static PyObject *
native_dtype(TensorObject *t)
{
    if (t->dtype == NULL) {
        t->dtype = PyObject_GetAttr(t->native, str_dtype);
    }
    return t->dtype;
}

static PyObject *
fast_unary(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL || !is_tensor(args[0]) ||
        forcing()) {
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *x = (TensorObject *)args[0];
    PyObject *seen = PyDict_GetItemWithError(f->table, x->backend);
    Py_ssize_t size = seen != NULL && PyTuple_CheckExact(seen) ? PyTuple_GET_SIZE(seen) : 0;
    if (size != 2 && size != 4) {
        PyErr_Clear();
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *func = PyTuple_GET_ITEM(seen, 0);
    if (size == 4) { /* (func, array type, real_path, complex dtypes) */
        PyObject *dtype = native_dtype(x);
        int is_complex =
            dtype == NULL ? -1 : PySet_Contains(PyTuple_GET_ITEM(seen, 3), dtype);
        if (is_complex < 0) {
            PyErr_Clear();
            return call_slow(f, args, nargsf, kwnames);
        }
        func = is_complex ? func : PyTuple_GET_ITEM(seen, 2);
    }
    PyObject *result = PyObject_Vectorcall(func, &x->native, 1, NULL);
    return wrap_result(f, x->backend, result, PyTuple_GET_ITEM(seen, 1), args, nargsf,
                       NULL);
}

/* Both natives have the same dtype object (so no promotion is involved). */
static int
same_dtype(TensorObject *a, TensorObject *b)
{
    PyObject *da = native_dtype(a), *db = native_dtype(b);
    if (da == NULL || db == NULL) {
        return -1;
    }
    return da == db;
}

static PyObject *
fast_binary(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != NULL || !is_tensor(args[0]) ||
        !is_tensor(args[1]) || forcing()) {
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *x1 = (TensorObject *)args[0], *x2 = (TensorObject *)args[1];
    if (x1->backend != x2->backend) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *seen = entry(f->table, x1->backend);
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    int same = same_dtype(x1, x2);
    if (same != 1) {
        PyErr_Clear();
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *natives[2] = {x1->native, x2->native};
    PyObject *result = PyObject_Vectorcall(PyTuple_GET_ITEM(seen, 0), natives, 2, NULL);
    return wrap_result(f, x1->backend, result, PyTuple_GET_ITEM(seen, 1), args, nargsf,
                       NULL);
}

/* A Python number, string or None: what needs no conversion for any framework. */
static bool
is_simple(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v) || PyFloat_CheckExact(v) ||
           PyBool_Check(v) || PyUnicode_CheckExact(v) || PyComplex_CheckExact(v);
}

/* Simple, or a tuple of simple values (axes, shapes): passed on as they are. */
static bool
is_plain(PyObject *v)
{
    if (PyTuple_CheckExact(v)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
            if (!is_simple(PyTuple_GET_ITEM(v, i))) {
                return false;
            }
        }
        return true;
    }
    return is_simple(v);
}

/* An index every framework reads alike: an int, None, Ellipsis, or a slice of
 * ints with no negative step (torch needs its adapter's fix for those). */
static bool
is_basic_index(PyObject *k)
{
    if (PyLong_CheckExact(k) || k == Py_None || k == Py_Ellipsis) {
        return true;
    }
    if (!PySlice_Check(k)) {
        return false;
    }
    PySliceObject *slice = (PySliceObject *)k;
    PyObject *parts[3] = {slice->start, slice->stop, slice->step};
    for (int i = 0; i < 3; i++) {
        if (parts[i] != Py_None && !PyLong_CheckExact(parts[i])) {
            return false;
        }
    }
    if (slice->step == Py_None) {
        return true;
    }
    int negative = PyObject_RichCompareBool(slice->step, zero, Py_LT);
    if (negative < 0) {
        PyErr_Clear();
    }
    return negative == 0;
}

/* x[key] with a basic key on a Tensor whose backend computes its own arrays. */
static PyObject *
fast_getitem(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != NULL || !is_tensor(args[0])) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *key = args[1];
    bool basic = is_basic_index(key);
    for (Py_ssize_t i = 0; !basic && PyTuple_CheckExact(key); i++) {
        if (i == PyTuple_GET_SIZE(key)) {
            basic = true;
            break;
        }
        if (!is_basic_index(PyTuple_GET_ITEM(key, i))) {
            break;
        }
    }
    TensorObject *x = (TensorObject *)args[0];
    PyObject *seen = basic ? entry(f->table, x->backend) : NULL;
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *call_args[2] = {x->native, key};
    PyObject *result = PyObject_Vectorcall(PyTuple_GET_ITEM(seen, 0), call_args, 2, NULL);
    return wrap_result(f, x->backend, result, PyTuple_GET_ITEM(seen, 1), args, nargsf,
                       NULL);
}

#define MAX_CALL_ARGS 16

/* f(x, *plain, **plain) for a Tensor x: the framework's function on x's array,
 * keyword arguments equal to the signature's defaults left out (as the Python
 * function leaves them out, so each framework applies its own defaults). */
static PyObject *
fast_call(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs < 1 || nargs > f->max_positional || nargs + nkw > MAX_CALL_ARGS ||
        !is_tensor(args[0]) || forcing()) {
        return call_slow(f, args, nargsf, kwnames);
    }
    for (Py_ssize_t i = 1; i < nargs + nkw; i++) {
        if (!is_plain(args[i])) {
            return call_slow(f, args, nargsf, kwnames);
        }
    }
    TensorObject *x = (TensorObject *)args[0];
    PyObject *seen = entry(f->table, x->backend);
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *call_args[MAX_CALL_ARGS], *kept_names[MAX_CALL_ARGS];
    Py_ssize_t n_kept = 0;
    call_args[0] = x->native;
    for (Py_ssize_t i = 1; i < nargs; i++) {
        call_args[i] = args[i];
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        PyObject *fallback = PyDict_GetItemWithError(f->keywords, name);
        if (fallback == NULL) { /* not a keyword of the signature: Python raises */
            PyErr_Clear();
            return call_slow(f, args, nargsf, kwnames);
        }
        int is_default = fallback == Py_None || PyBool_Check(fallback)
                             ? value == fallback
                             : PyObject_RichCompareBool(value, fallback, Py_EQ);
        if (is_default < 0) {
            PyErr_Clear();
            return call_slow(f, args, nargsf, kwnames);
        }
        if (!is_default) {
            call_args[nargs + n_kept] = value;
            kept_names[n_kept++] = name;
        }
    }
    PyObject *names = NULL;
    if (n_kept > 0) {
        names = PyTuple_New(n_kept);
        if (names == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n_kept; i++) {
            PyTuple_SET_ITEM(names, i, Py_NewRef(kept_names[i]));
        }
    }
    PyObject *result = PyObject_Vectorcall(PyTuple_GET_ITEM(seen, 0), call_args,
                                           (size_t)nargs, names);
    Py_XDECREF(names);
    return wrap_result(f, x->backend, result, PyTuple_GET_ITEM(seen, 1), args, nargsf,
                       kwnames);
}

/* t's memory as the `target` framework's array by that framework's own route
 * (its adapter's ROUTES[source](native), e.g. torch.from_numpy), cached in t's
 * Memory as the Python path caches it; NULL without an error where there is
 * none (the adapter is not loaded yet, has no route from source, or the route
 * returned None). */
static PyObject *
framework_route(TensorObject *t, PyObject *source, PyObject *target)
{
    PyObject *adapter = PyDict_GetItemWithError(loaded_backends, target);
    if (adapter == NULL) {
        return NULL;
    }
    PyObject *routes = PyObject_GetAttr(adapter, str_routes);
    if (routes == NULL) {
        return NULL;
    }
    PyObject *route = PyDict_Check(routes) ? PyDict_GetItemWithError(routes, source)
                                           : NULL;
    Py_XINCREF(route); /* the call may change ROUTES */
    Py_DECREF(routes);
    if (route == NULL) {
        return NULL;
    }
    PyObject *view = PyObject_Vectorcall(route, &t->native, 1, NULL);
    Py_DECREF(route);
    if (view == NULL || view == Py_None) {
        Py_XDECREF(view);
        return NULL;
    }
    if (no_memory(t)) {
        Py_XSETREF(t->memory, new_memory(&MemoryType, NULL));
        if (t->memory == NULL) {
            Py_DECREF(view);
            return NULL;
        }
    }
    if (Py_TYPE(t->memory) != &MemoryType ||
        PyDict_SetItem(((MemoryObject *)t->memory)->views, target, view) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

/* tensor.torch() (etc.): the cached view, the native array of that owner, or
 * the target framework's own route from the owner's array. */
static PyObject *
fast_view(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || !is_tensor(args[0]) || !keywords_all_none(args, nargs, kwnames)) {
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *t = (TensorObject *)args[0];
    if (!no_memory(t) && Py_TYPE(t->memory) == &MemoryType) {
        PyObject *views = ((MemoryObject *)t->memory)->views;
        PyObject *cached = views == NULL ? NULL : PyDict_GetItemWithError(views, f->table);
        if (cached != NULL) {
            return Py_NewRef(cached);
        }
        PyErr_Clear();
    }
    PyObject *name = PyObject_GetAttr(t->backend, str_name);
    if (name == NULL || !PyUnicode_Check(name)) {
        PyErr_Clear();
        Py_XDECREF(name);
        return call_slow(f, args, nargsf, kwnames);
    }
    if (PyUnicode_Compare(name, f->table) == 0) {
        Py_DECREF(name);
        return Py_NewRef(t->native);
    }
    PyObject *view = framework_route(t, name, f->table);
    Py_DECREF(name);
    if (view == NULL && (PyErr_Occurred() == NULL || retry_slowly())) {
        return call_slow(f, args, nargsf, kwnames);
    }
    return view;
}

static const vectorcallfunc FAST_CALLS[] = {
    [ASARRAY] = (vectorcallfunc)fast_asarray,
    [UNARY] = (vectorcallfunc)fast_unary,
    [BINARY] = (vectorcallfunc)fast_binary,
    [VIEW] = (vectorcallfunc)fast_view,
    [GETITEM] = (vectorcallfunc)fast_getitem,
    [CALL] = (vectorcallfunc)fast_call,
};

static PyObject *
fastpath_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kind", "slow", "table", "wrap", "keywords",
                               "max_positional", NULL};
    const char *kind_name;
    PyObject *slow, *table, *wrap = Py_None, *keyword_defaults = Py_None;
    Py_ssize_t max_positional = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOO|$OOn:FastPath", keywords,
                                     &kind_name, &slow, &table, &wrap,
                                     &keyword_defaults, &max_positional)) {
        return NULL;
    }
    int kind = 0;
    while (kind < N_FAST_KINDS && strcmp(FAST_KIND_NAMES[kind], kind_name) != 0) {
        kind++;
    }
    if (kind == N_FAST_KINDS) {
        return PyErr_Format(PyExc_ValueError,
                            "FastPath(): kind: expected 'asarray', 'unary', 'binary', "
                            "'view', 'getitem' or 'call', got '%s'", kind_name);
    }
    if (!PyCallable_Check(slow)) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): slow: expected a callable, got %R", slow);
    }
    if (kind == VIEW ? !PyUnicode_CheckExact(table) : !PyDict_CheckExact(table)) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): table: expected %s, got %R",
                            kind == VIEW ? "a framework name (str)" : "a dict", table);
    }
    if (wrap != Py_None && !PyCallable_Check(wrap)) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): wrap: expected None or a callable, got %R", wrap);
    }
    if (kind == CALL ? !PyDict_CheckExact(keyword_defaults) : keyword_defaults != Py_None) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): keywords: expected %s, got %R",
                            kind == CALL ? "a dict of keyword defaults" : "None",
                            keyword_defaults);
    }
    if (max_positional < 1 || max_positional > MAX_CALL_ARGS) {
        return PyErr_Format(PyExc_ValueError,
                            "FastPath(): max_positional: expected 1 to %d, got %zd",
                            MAX_CALL_ARGS, max_positional);
    }
    FastPath *f = (FastPath *)type->tp_alloc(type, 0);
    if (f == NULL) {
        return NULL;
    }
    f->kind = (FastKind)kind;
    f->slow = Py_NewRef(slow);
    f->table = Py_NewRef(table);
    f->wrap = wrap == Py_None ? NULL : Py_NewRef(wrap);
    f->keywords = keyword_defaults == Py_None ? NULL : Py_NewRef(keyword_defaults);
    f->max_positional = max_positional;
    f->vectorcall = FAST_CALLS[kind];
    return (PyObject *)f;
}

static int
fastpath_traverse(FastPath *f, visitproc visit, void *arg)
{
    Py_VISIT(f->slow);
    Py_VISIT(f->table);
    Py_VISIT(f->wrap);
    Py_VISIT(f->keywords);
    Py_VISIT(f->dict);
    return 0;
}

static PyObject *fastpath_cleared(PyObject *, PyObject *const *, size_t, PyObject *);

static int
fastpath_clear(FastPath *f)
{
    f->vectorcall = fastpath_cleared; /* nothing below may be read any more */
    Py_CLEAR(f->slow);
    Py_CLEAR(f->table);
    Py_CLEAR(f->wrap);
    Py_CLEAR(f->keywords);
    Py_CLEAR(f->dict);
    return 0;
}

static void
fastpath_dealloc(FastPath *f)
{
    PyObject_GC_UnTrack(f);
    fastpath_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* Cleared by the GC (tp_clear): refuses instead of reading what is gone. */
static PyObject *
fastpath_cleared(PyObject *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyErr_SetString(PyExc_RuntimeError, "unitensor: a fast path used after teardown");
    return NULL;
}

/* Binds like a Python function: obj.method() passes obj first. */
static PyObject *
fastpath_get(PyObject *f, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(f);
    }
    return PyMethod_New(f, obj);
}

static PyObject *
fastpath_repr(FastPath *f)
{
    PyObject *name = f->dict == NULL ? NULL : PyDict_GetItemString(f->dict, "__qualname__");
    if (name != NULL) {
        return PyUnicode_FromFormat("<unitensor function %U>", name);
    }
    return PyUnicode_FromFormat("<unitensor FastPath %s for %R>",
                                FAST_KIND_NAMES[f->kind], f->slow);
}

static PyObject *
get_slow(FastPath *f, void *Py_UNUSED(closure))
{
    return Py_NewRef(f->slow ? f->slow : Py_None);
}

static PyObject *
get_table(FastPath *f, void *Py_UNUSED(closure))
{
    return Py_NewRef(f->table ? f->table : Py_None);
}

static PyObject *
get_kind(FastPath *f, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(FAST_KIND_NAMES[f->kind]);
}

static PyGetSetDef fastpath_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"slow", (getter)get_slow, NULL, "The Python function this one stands for.", NULL},
    {"table", (getter)get_table, NULL, "What the fast path reads.", NULL},
    {"kind", (getter)get_kind, NULL, "asarray, unary, binary, view, getitem or call.",
     NULL},
    {NULL},
};

static PyTypeObject FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.FastPath",
    .tp_basicsize = sizeof(FastPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "FastPath(kind, slow, table): a C shortcut standing for `slow`.",
    .tp_new = fastpath_new,
    .tp_dealloc = (destructor)fastpath_dealloc,
    .tp_traverse = (traverseproc)fastpath_traverse,
    .tp_clear = (inquiry)fastpath_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastPath, vectorcall),
    .tp_descr_get = fastpath_get,
    .tp_repr = (reprfunc)fastpath_repr,
    .tp_getset = fastpath_getset,
    .tp_dictoffset = offsetof(FastPath, dict),
};

/* --------------------------------------------------------------- module --- */

static PyObject *
configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyType_Check(args[0]) ||
        !PyType_IsSubtype((PyTypeObject *)args[0], &TensorBaseType) ||
        !PyList_CheckExact(args[1]) || PyList_GET_SIZE(args[1]) != 1 ||
        !PyDict_CheckExact(args[2])) {
        return PyErr_Format(PyExc_TypeError,
                            "configure(): expected (a TensorBase subclass, a one-item "
                            "list, a dict), got %zd arguments", nargs);
    }
    Py_XSETREF(tensor_type, (PyTypeObject *)Py_NewRef(args[0]));
    Py_XSETREF(forcing_now, Py_NewRef(args[1]));
    Py_XSETREF(loaded_backends, Py_NewRef(args[2]));
    Py_RETURN_NONE;
}

static PyObject *
make_tensor(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        return PyErr_Format(PyExc_TypeError,
                            "make_tensor(): expected (backend, native[, memory]), got "
                            "%zd arguments", nargs);
    }
    return new_tensor(args[0], args[1], nargs == 3 ? args[2] : NULL);
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(Tensor, forcing_now, loaded)\nRegister unitensor.Tensor, the owner() "
     "counter and the loaded adapters."},
    {"make_tensor", (PyCFunction)(void (*)(void))make_tensor, METH_FASTCALL,
     "make_tensor(backend, native, memory=None)\nA Tensor, without any checks."},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "unitensor._fast",
    .m_doc = "The Tensor's C base and the hot paths.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__fast(void)
{
    if (PyType_Ready(&TensorBaseType) < 0 || PyType_Ready(&FastPathType) < 0 ||
        PyType_Ready(&MemoryType) < 0) {
        return NULL;
    }
    zero = PyLong_FromLong(0);
    str_dtype = PyUnicode_InternFromString("dtype");
    str_name = PyUnicode_InternFromString("NAME");
    str_routes = PyUnicode_InternFromString("ROUTES");
    str_result = PyUnicode_InternFromString("result");
    if (zero == NULL || str_dtype == NULL || str_name == NULL || str_routes == NULL ||
        str_result == NULL) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL ||
        PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&TensorBaseType) < 0 ||
        PyModule_AddObjectRef(m, "FastPath", (PyObject *)&FastPathType) < 0 ||
        PyModule_AddObjectRef(m, "Memory", (PyObject *)&MemoryType) < 0) {
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
