/* unitensor._fast: the Tensor's C base and the hot paths, in C.
 *
 * Python decides everything; this module only repeats, at C speed, what the
 * Python code already decided once. Each fast path reads a table that
 * unitensor/_fastpath.py fills when the general path teaches it (type ->
 * TypeEntry, backend -> Entry) and, on anything it does not recognise, calls
 * the Python function it stands for (`slow`) with the same arguments. So a fast
 * path can only ever be a shortcut to the answer the Python path gives: tests
 * run both (tests/test_fast.py).
 *
 * - Aliases: what every Tensor aliasing one memory shares (Buffer, view cache).
 * - TensorBase: the storage of unitensor.Tensor (a Python subclass with every
 *   method): its owner backend, its native array, and the Aliases record.
 *   Made only by make_tensor() and the fast paths below.
 * - FastPath: a callable standing for one Python function:
 *     ASARRAY  asarray(obj) of an array whose type and dtype were seen before;
 *     UNARY    f(x) on a Tensor whose backend has a function in the table (or
 *              two: one for complex dtypes, one for the rest);
 *     BINARY   f(x1, x2) on two Tensors of one backend and dtype, or on a Tensor
 *              and a Python scalar (the general path's shortcut, its own table),
 *              or on x1 and an x2 carrying no autodiff state whose cached view
 *              for x1's owner has x1's dtype and device (lent_to_owner);
 *     VIEW     tensor.torch() etc.: the cached view, the native, or the target
 *              adapter's route from the owner (ROUTES[owner name]), cached as
 *              Python caches it;
 *     GETITEM  x[key] with a basic key (ints, slices, None, Ellipsis); on the
 *              base of an immutable owner's views, the view of it (a Link);
 *     CALL     f(x, ...) for a Tensor x and plain Python arguments (numbers,
 *              strings, None, tuples of them): sum(x, axis=0), reshape(x, s).
 *   It binds like a function (so it can be a method or an operator of Tensor)
 *   and has a __dict__ for functools.update_wrapper (__wrapped__ gives
 *   inspect.signature the Python function's signature).
 * - Entry, TypeEntry: the rows of those tables, immutable structs with named
 *   fields (a function and its array type; an array type's adapter and dtypes).
 * - set_refresh(hook): what re-derives a view of an immutable base (a Tensor
 *   whose `view` is set) when its _native is read; such a Tensor is no Tensor
 *   to the fast paths, so they never read a stale array.
 * - Base, Link: the storage of unitensor/_views.py's records (a base's version
 *   and shape; a view's tie to its base), so that GETITEM ties a view in C;
 *   set_unfold(hook) makes the steps of a Link taken so when first read.
 * - _tensor_buffer: a capsule through which unitensor._core's DLPack C exchange
 *   API reads the Buffer a Tensor already holds, without Python.
 * - enter_owner(), leave_owner(), owner_blocks(): the count of open
 *   unitensor.owner() blocks, held here; while it is 0 the fast paths need not
 *   ask Python which owner is forced.
 *
 * This module imports no framework and owns no memory but Python references.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>
#include "spare.h"

/* ---------------------------------------------------------- TensorBase --- */

typedef struct {
    PyObject_HEAD PyObject *backend; /* the owner's adapter module */
    PyObject *native;                /* the owner's array */
    PyObject *aliases;               /* the Aliases record, or NULL/None until needed */
    /* The first view made by the view fast path while there is no Aliases record:
     * the framework's name and its array. Making a record (and its dict) for it
     * would cost a third of the conversion; any other reader of `_aliases` gets
     * one with this view in it (materialize), and both go NULL then. Never set
     * while `aliases` is. */
    PyObject *first_target;
    PyObject *first_view;
    PyObject *dtype; /* native.dtype, read once (NULL until then): a native's
                        dtype never changes, and assigning _native clears it */
    PyObject *weakreflist;
    /* Views of a base whose arrays are immutable (unitensor/_views.py): */
    PyObject *view; /* a view's _views.Link (how it was taken, from which base
                       record), NULL otherwise: such a Tensor takes no fast path
                       but the binary one while current (is_current_view), and
                       reading its _native first re-derives it where the base
                       was written since (refresh_view) */
    PyObject *base; /* the _views.Base record of which this Tensor is the base,
                       NULL until a view is taken or it is written: the fast
                       paths never read it */
} TensorObject;

static PyTypeObject TensorBaseType;
/* unitensor.Tensor (the Python subclass), registered by configure(). */
static PyTypeObject *tensor_type = NULL;
/* How many unitensor.owner() blocks are open, in every thread together: while
 * none is, no call can have a forced owner and the fast paths apply. Changed
 * only by enter_owner() and leave_owner(), which hold the GIL throughout (so
 * the count needs no lock of its own). */
static Py_ssize_t owner_blocks_open = 0;
static PyObject *zero = NULL;
static PyObject *str_dtype, *str_name, *str_routes, *str_result, *str_autodiff,
    *str_autodiff_state, *str_device, *str_torch_function, *str_ndim;
/* _backends._loaded: framework name -> its adapter module, once imported. */
static PyObject *loaded_backends = NULL;
/* The class of the registry (_backends.Watched), a dict that tells of every
 * change to it (adapters_changed()): a fast path keeps what it read of a dict
 * of that class between calls, and reads any other dict afresh each time. NULL
 * where the registry is a plain dict. */
static PyTypeObject *watched_type = NULL;
/* The class of the adapters (unitensor/_backends/_adapter.py), whose members live
 * in each adapter's dict: attribute() reads that dict directly. */
static PyTypeObject *adapter_type = NULL;
/* Moves on whenever an attribute of an adapter of that class is set or deleted
 * (adapters_changed(), from its __setattr__ and __delattr__), a Watched dict
 * changes, and at configure(): what a fast path read of an adapter or a
 * Watched dict before is stale then. */
static uint64_t adapters_generation = 1;
/* _views.refresh(tensor): brings a view's _native up to its base (set_refresh). */
static PyObject *refresh_view = NULL;

static void tensor_subclass_dealloc(TensorObject *t);

/* unitensor.Tensors freed, kept for the next ones made (spare.h): kept while
 * tensor_subclass_dealloc is the class's dealloc, so every spare one is of its
 * size. */
static TensorObject *spare_tensors[UT_SPARES + 1];
static int n_spare_tensors = 0;

static PyObject *
new_tensor(PyObject *backend, PyObject *native, PyObject *aliases)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "unitensor._fast: configure() was not called");
        return NULL;
    }
    TensorObject *t;
    if (n_spare_tensors > 0) {
        t = spare_tensors[--n_spare_tensors];
        memset((char *)t + sizeof(PyObject), 0, sizeof *t - sizeof(PyObject));
        PyObject_Init((PyObject *)t, tensor_type); /* (holds the class, as tp_alloc) */
        PyObject_GC_Track(t);
    }
    else {
        t = (TensorObject *)tensor_type->tp_alloc(tensor_type, 0);
        if (t == NULL) {
            return NULL;
        }
    }
    t->backend = Py_NewRef(backend);
    t->native = Py_NewRef(native);
    t->aliases = aliases == Py_None ? NULL : Py_XNewRef(aliases);
    return (PyObject *)t;
}

static int
tensor_traverse(TensorObject *t, visitproc visit, void *arg)
{
    Py_VISIT(t->backend);
    Py_VISIT(t->native);
    Py_VISIT(t->aliases);
    Py_VISIT(t->first_target);
    Py_VISIT(t->first_view);
    Py_VISIT(t->dtype);
    Py_VISIT(t->view);
    Py_VISIT(t->base);
    return 0;
}

static int
tensor_clear(TensorObject *t)
{
    Py_CLEAR(t->backend);
    Py_CLEAR(t->native);
    Py_CLEAR(t->aliases);
    Py_CLEAR(t->first_target);
    Py_CLEAR(t->first_view);
    Py_CLEAR(t->dtype);
    Py_CLEAR(t->view);
    Py_CLEAR(t->base);
    return 0;
}

/* What every dealloc of a Tensor does before its memory goes. */
static void
tensor_release(TensorObject *t)
{
    PyObject_GC_UnTrack(t);
    if (t->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)t);
    }
    tensor_clear(t);
}

static void
tensor_dealloc(TensorObject *t)
{
    tensor_release(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* unitensor.Tensor's dealloc, in place of the one Python gives every class
 * statement (subtype_dealloc: finalizers, a __dict__ and slots this class has
 * none of, and tracking the object for the GC again only for tensor_dealloc to
 * untrack it); configure() sets it where the class adds nothing to TensorBase.
 * An instance of a class made at run time holds a reference to its class. */
static void
tensor_subclass_dealloc(TensorObject *t)
{
    PyTypeObject *type = Py_TYPE(t);
    tensor_release(t);
    if (type == tensor_type && n_spare_tensors < UT_SPARES) {
        spare_tensors[n_spare_tensors++] = t; /* (clear ran no code after this) */
    }
    else {
        type->tp_free((PyObject *)t);
    }
    Py_DECREF(type);
}

/* TensorBase's tp_new is object's (set in PyInit__fast), so that
 * object.__new__(unitensor.Tensor) allocates an empty Tensor, as a compiler
 * tracing Python (torch.compile's Dynamo) must do to stand for a Tensor made in
 * its graph and to remake it afterwards (unitensor/_backends/torch/compile.py);
 * its fields are then set by assignment. An empty Tensor (no backend or
 * native) is no Tensor to the fast paths (is_tensor). Calling the class refuses:
 * here for TensorBase, in unitensor.Tensor.__new__ for the subclass. */
static int
tensor_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyErr_SetString(PyExc_TypeError, "Tensor(): use unitensor.asarray(obj) or "
                                     "unitensor.from_dlpack(obj) to make a Tensor");
    return -1;
}

/* A view of an immutable base: re-derived if the base was written since. */
static int
refresh(TensorObject *t)
{
    if (t->view != NULL && refresh_view != NULL) {
        PyObject *done = PyObject_CallOneArg(refresh_view, (PyObject *)t);
        if (done == NULL) {
            return -1;
        }
        Py_DECREF(done);
    }
    return 0;
}

static PyObject *
tensor_get_native(TensorObject *t, void *Py_UNUSED(closure))
{
    if (refresh(t) < 0) {
        return NULL;
    }
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

static int materialize(TensorObject *t);

/* Its views for other frameworks are those of its current array. */
static PyObject *
tensor_get_aliases(TensorObject *t, void *Py_UNUSED(closure))
{
    if (refresh(t) < 0 || materialize(t) < 0) {
        return NULL;
    }
    return Py_NewRef(t->aliases == NULL ? Py_None : t->aliases);
}

/* Another record: the first view belonged to the one it replaces. */
static int
tensor_set_aliases(TensorObject *t, PyObject *value, void *Py_UNUSED(closure))
{
    Py_CLEAR(t->first_target);
    Py_CLEAR(t->first_view);
    Py_XSETREF(t->aliases, value == NULL || value == Py_None ? NULL : Py_NewRef(value));
    return 0;
}

static PyGetSetDef tensor_getset[] = {
    {"_aliases", (getter)tensor_get_aliases, (setter)tensor_set_aliases,
     "The record shared by every Tensor aliasing this memory, or None (a view "
     "of an immutable base: brought up to its base first).",
     NULL},
    {"_native", (getter)tensor_get_native, (setter)tensor_set_native,
     "The owner's array (a view of an immutable base: re-derived first where "
     "the base was written since; assigning stores it as it is).",
     NULL},
    {NULL},
};

static PyMemberDef tensor_members[] = {
    {"_backend", T_OBJECT_EX, offsetof(TensorObject, backend), 0,
     "The owner's adapter module."},
    {"_view", T_OBJECT, offsetof(TensorObject, view), 0,
     "A view's _views.Link (its base record and how it was taken), or None."},
    {"_base", T_OBJECT, offsetof(TensorObject, base), 0,
     "The _views.Base record of which this Tensor is the base, or None."},
    {NULL},
};

/* An attribute named by a C string (PyObject_GetAttrString): torch looks up
 * `__torch_function__` of every non-tensor argument of its functions this way,
 * two or three times a call, and without a tp_getattr makes, hashes and looks
 * up a new str each time (a miss of the type's attribute cache). That name is
 * answered with an interned str (the cache hits); every name goes through the
 * type's own tp_getattro, as PyObject_GetAttr would. unitensor.Tensor's slot,
 * set by configure(). */
static PyObject *
tensor_getattr(PyObject *obj, char *name)
{
    PyObject *str = strcmp(name, "__torch_function__") == 0
                        ? Py_NewRef(str_torch_function)
                        : PyUnicode_FromString(name);
    if (str == NULL) {
        return NULL;
    }
    PyObject *found = Py_TYPE(obj)->tp_getattro(obj, str);
    Py_DECREF(str);
    return found;
}

static PyTypeObject TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The storage of unitensor.Tensor.",
    .tp_init = tensor_init, /* tp_new: object's, set in PyInit__fast */
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_traverse = (traverseproc)tensor_traverse,
    .tp_clear = (inquiry)tensor_clear,
    .tp_members = tensor_members,
    .tp_getset = tensor_getset,
    .tp_weaklistoffset = offsetof(TensorObject, weakreflist),
};

/* ------------------------------------------------------------ Aliases --- */

/* What every Tensor aliasing the same memory shares: the _core.Buffer over it
 * (made the first time the memory crosses to another framework) and the views
 * already made for other frameworks, so that .torch() twice converts once. */
typedef struct {
    PyObject_HEAD PyObject *buffer; /* NULL until exported (reads as None) */
    PyObject *views;                /* dict: framework name -> that framework's array */
    char ordered;   /* CUDA memory: a cached view is handed out by the Python path,
                     * which makes the consumer's stream wait for the producer's */
    PyObject *lock; /* NULL (None) until the Python path fills `buffer`: the lock
                     * that makes it once under threads (_convert.buffer_of) */
} AliasesObject;

static PyTypeObject AliasesType;

static PyObject *
new_aliases(PyTypeObject *type, PyObject *buffer)
{
    AliasesObject *m = (AliasesObject *)type->tp_alloc(type, 0);
    if (m == NULL) {
        return NULL;
    }
    m->buffer = Py_XNewRef(buffer);
    m->ordered = 0;
    m->lock = NULL;
    m->views = PyDict_New();
    if (m->views == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return (PyObject *)m;
}

static PyObject *
aliases_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"buffer", NULL};
    PyObject *buffer = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Aliases", keywords, &buffer)) {
        return NULL;
    }
    return new_aliases(type, buffer == Py_None ? NULL : buffer);
}

static int
aliases_traverse(AliasesObject *m, visitproc visit, void *arg)
{
    Py_VISIT(m->buffer);
    Py_VISIT(m->views);
    Py_VISIT(m->lock);
    return 0;
}

static int
aliases_clear(AliasesObject *m)
{
    Py_CLEAR(m->buffer);
    Py_CLEAR(m->views);
    Py_CLEAR(m->lock);
    return 0;
}

static void
aliases_dealloc(AliasesObject *m)
{
    PyObject_GC_UnTrack(m);
    aliases_clear(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyMemberDef aliases_members[] = {
    {"buffer", T_OBJECT, offsetof(AliasesObject, buffer), 0,
     "The _core.Buffer over the memory, or None until it is exported."},
    {"views", T_OBJECT_EX, offsetof(AliasesObject, views), READONLY,
     "framework name -> the zero-copy array already made for it."},
    {"ordered", T_BOOL, offsetof(AliasesObject, ordered), 0,
     "True for CUDA memory: handing out a cached view orders the consumer's stream "
     "after the producer's work (_convert.py), so C leaves it to Python."},
    {"lock", T_OBJECT, offsetof(AliasesObject, lock), 0,
     "None, or the lock under which _convert.buffer_of fills `buffer` once."},
    {NULL},
};

static PyTypeObject AliasesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.Aliases",
    .tp_basicsize = sizeof(AliasesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Aliases(buffer=None): what every Tensor aliasing one memory shares.",
    .tp_new = aliases_new,
    .tp_dealloc = (destructor)aliases_dealloc,
    .tp_traverse = (traverseproc)aliases_traverse,
    .tp_clear = (inquiry)aliases_clear,
    .tp_members = aliases_members,
};

/* The Aliases record holding the view the fast path kept in the Tensor itself
 * (first_target, first_view), made where there is none: 0, or -1 with an error. */
static int
materialize(TensorObject *t)
{
    if (t->first_view == NULL) {
        return 0;
    }
    PyObject *fresh = new_aliases(&AliasesType, NULL);
    if (fresh == NULL) {
        return -1;
    }
    /* (the allocation may have run the GC's finalizers, which may have set
     * _aliases, and so dropped the first view with the record it belonged to) */
    if (t->first_view != NULL && PyDict_SetItem(((AliasesObject *)fresh)->views,
                                                t->first_target, t->first_view) < 0) {
        Py_DECREF(fresh);
        return -1;
    }
    if (t->first_view == NULL) {
        Py_DECREF(fresh);
        return 0;
    }
    Py_CLEAR(t->first_target);
    Py_CLEAR(t->first_view);
    Py_XSETREF(t->aliases, fresh);
    return 0;
}

static inline bool
is_tensor(PyObject *obj)
{
    /* An empty one (made by object.__new__, or cleared by the cyclic GC) has no
     * backend or native: the slow path raises for it. A view of an immutable base
     * (view set) goes to Python too, which re-derives it where its base moved. */
    return Py_TYPE(obj) == tensor_type && ((TensorObject *)obj)->backend != NULL &&
           ((TensorObject *)obj)->native != NULL && ((TensorObject *)obj)->view == NULL;
}

static inline bool
no_aliases(TensorObject *t)
{
    return t->aliases == NULL || t->aliases == Py_None;
}

/* obj.name, for the attributes the fast paths read of every array and adapter
 * (an array's dtype and layout; an adapter's NAME and ROUTES). Where obj's type
 * reads attributes the generic way and `name` is a C getter of the type (numpy's
 * and torch's dtype), that getter is called: a getter is a data descriptor, so
 * it is what obj.name finds whatever obj's own dict holds; a name the type
 * does not define at all is read from obj's dict (an adapter's NAME, ROUTES), and
 * an exact module's from its dict, as the generic lookup would. Anything else
 * is PyObject_GetAttr. New reference, or NULL with an error. */
static PyObject *
attribute(PyObject *obj, PyObject *name)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type == adapter_type) { /* its class has no member of the names read here
                                   (configure checked): only its dict can */
        PyObject **dict = _PyObject_GetDictPtr(obj);
        PyObject *found =
            dict != NULL && *dict != NULL ? PyDict_GetItemWithError(*dict, name) : NULL;
        if (found != NULL) {
            return Py_NewRef(found);
        }
    }
    else if (PyModule_CheckExact(obj)) {
        PyObject *found = PyDict_GetItemWithError(PyModule_GetDict(obj), name);
        if (found != NULL && _PyType_Lookup(type, name) == NULL) {
            return Py_NewRef(found);
        }
    }
    else if (type->tp_getattro == PyObject_GenericGetAttr) {
        PyObject *descr = _PyType_Lookup(type, name); /* borrowed */
        if (descr != NULL && Py_IS_TYPE(descr, &PyGetSetDescr_Type)) {
            PyGetSetDef *getset = ((PyGetSetDescrObject *)descr)->d_getset;
            if (getset->get != NULL) {
                return getset->get(obj, getset->closure);
            }
        }
        /* nothing of that name in the type (an adapter's members): its dict */
        PyObject **dict = descr == NULL ? _PyObject_GetDictPtr(obj) : NULL;
        PyObject *found =
            dict != NULL && *dict != NULL ? PyDict_GetItemWithError(*dict, name) : NULL;
        if (found != NULL) {
            return Py_NewRef(found);
        }
    }
    return PyErr_Occurred() ? NULL : PyObject_GetAttr(obj, name);
}

/* Two str objects are equal: by identity (interned names), else by content
 * where their (cached) hashes agree. */
static inline bool
same_str(PyObject *a, PyObject *b)
{
    return a == b ||
           (PyObject_Hash(a) == PyObject_Hash(b) && PyUnicode_Compare(a, b) == 0);
}

/* ---------------------------------------- the Buffer, for _core's C --- */

/* What unitensor._core's DLPack C exchange API (Tensor as a producer) reads of
 * a Tensor, published as the capsule `_tensor_buffer` so that it needs no
 * attribute lookup per argument: the Buffer the Tensor already holds, borrowed,
 * or NULL (no error set) where Python must decide - no Buffer yet, a view of an
 * immutable base (which may have to be re-derived first), an empty Tensor. */
static PyObject *
cached_buffer(PyObject *obj)
{
    if (!is_tensor(obj) || no_aliases((TensorObject *)obj)) {
        return NULL;
    }
    return ((AliasesObject *)((TensorObject *)obj)->aliases)->buffer;
}

/* The capsule's pointer: a struct, so that a function pointer never passes
 * through a void pointer. */
static const struct {
    PyObject *(*buffer)(PyObject *tensor);
} tensor_buffer_api = {cached_buffer};
#define TENSOR_BUFFER_CAPSULE "unitensor._fast._tensor_buffer"

/* ------------------------------------------------------ Entry, TypeEntry --- */

/* A row of a UNARY, BINARY, GETITEM or CALL table, for one backend: the
 * framework's function and the type of its arrays (a result of that type is
 * wrapped as it is). UNARY, BINARY and CALL rows may also carry `real_func`,
 * the framework's own function for every dtype (of the first array) not in
 * `complex_dtypes`, where `func` is a fix only those dtypes need (complex inputs;
 * integer inputs of floating-point functions and of means; bool inputs of
 * arithmetic and of counts); `complex_dtypes` without `real_func`: func for
 * those dtypes, the slow path for the others (torch's imag of a real array, which
 * the general path makes read-only). Immutable but for `last_real`, a memo
 * (needs_fix): the fast paths read it without checks. */
typedef struct {
    PyObject_HEAD PyObject *func;
    PyObject *array_type;
    PyObject *real_func;      /* NULL: func for every dtype, or the slow path */
    PyObject *complex_dtypes; /* a set or frozenset, or NULL: func for every dtype */
    PyObject *last_real;      /* the last dtype found not in complex_dtypes, or NULL */
    /* UNARY, CALL: tie(x, args, kwargs, result) -> what the call returns, for a
     * function whose result is a view in numpy (unitensor/_views.py ties it to
     * x's base); NULL: the result as it is. */
    PyObject *tie;
} EntryObject;

static PyTypeObject EntryType;

static PyObject *
entry_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"func",           "array_type", "real_func",
                               "complex_dtypes", "tie",        NULL};
    PyObject *func, *array_type, *real_func = Py_None, *complex_dtypes = Py_None;
    PyObject *tie = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO$O:Entry", keywords, &func,
                                     &array_type, &real_func, &complex_dtypes, &tie)) {
        return NULL;
    }
    if (tie != Py_None && !PyCallable_Check(tie)) {
        return PyErr_Format(PyExc_TypeError,
                            "Entry(): tie: expected None or a callable, got %R", tie);
    }
    if (!PyCallable_Check(func)) {
        return PyErr_Format(PyExc_TypeError,
                            "Entry(): func: expected a callable, "
                            "got %R",
                            func);
    }
    if (!PyType_Check(array_type)) {
        return PyErr_Format(PyExc_TypeError,
                            "Entry(): array_type: expected a type, "
                            "got %R",
                            array_type);
    }
    if (real_func != Py_None && !PyCallable_Check(real_func)) {
        return PyErr_Format(PyExc_TypeError,
                            "Entry(): real_func: expected None or a "
                            "callable, got %R",
                            real_func);
    }
    if (real_func == Py_None
            ? complex_dtypes != Py_None && !PyAnySet_Check(complex_dtypes)
            : !PyAnySet_Check(complex_dtypes)) {
        return PyErr_Format(PyExc_TypeError,
                            "Entry(): complex_dtypes: expected %s, got %R",
                            real_func == Py_None ? "None or a set of dtype objects"
                                                 : "a set of dtype objects",
                            complex_dtypes);
    }
    EntryObject *e = (EntryObject *)type->tp_alloc(type, 0);
    if (e == NULL) {
        return NULL;
    }
    e->func = Py_NewRef(func);
    e->array_type = Py_NewRef(array_type);
    e->real_func = real_func == Py_None ? NULL : Py_NewRef(real_func);
    e->complex_dtypes = complex_dtypes == Py_None ? NULL : Py_NewRef(complex_dtypes);
    e->tie = tie == Py_None ? NULL : Py_NewRef(tie);
    return (PyObject *)e;
}

static int
entry_traverse(EntryObject *e, visitproc visit, void *arg)
{
    Py_VISIT(e->func);
    Py_VISIT(e->array_type);
    Py_VISIT(e->real_func);
    Py_VISIT(e->complex_dtypes);
    Py_VISIT(e->last_real);
    Py_VISIT(e->tie);
    return 0;
}

static int
entry_clear(EntryObject *e)
{
    Py_CLEAR(e->func);
    Py_CLEAR(e->array_type);
    Py_CLEAR(e->real_func);
    Py_CLEAR(e->complex_dtypes);
    Py_CLEAR(e->last_real);
    Py_CLEAR(e->tie);
    return 0;
}

static void
entry_dealloc(EntryObject *e)
{
    PyObject_GC_UnTrack(e);
    entry_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *
entry_repr(EntryObject *e)
{
    if (e->complex_dtypes == NULL) {
        return PyUnicode_FromFormat("Entry(func=%R, array_type=%R)", e->func,
                                    e->array_type);
    }
    return PyUnicode_FromFormat("Entry(func=%R, array_type=%R, real_func=%R, "
                                "complex_dtypes=%R)",
                                e->func, e->array_type, e->real_func,
                                e->complex_dtypes);
}

static PyMemberDef entry_members[] = {
    {"func", T_OBJECT, offsetof(EntryObject, func), READONLY,
     "The framework's function the fast path calls."},
    {"array_type", T_OBJECT, offsetof(EntryObject, array_type), READONLY,
     "The type of the framework's arrays: results of it are wrapped as they are."},
    {"real_func", T_OBJECT, offsetof(EntryObject, real_func), READONLY,
     "UNARY, BINARY, CALL: the function for dtypes not in complex_dtypes, or None "
     "(with complex_dtypes: the slow path for them)."},
    {"complex_dtypes", T_OBJECT, offsetof(EntryObject, complex_dtypes), READONLY,
     "The dtype objects that need func, or None (func for every dtype)."},
    {"tie", T_OBJECT, offsetof(EntryObject, tie), READONLY,
     "UNARY, CALL: tie(x, args, kwargs, result), what makes the result of a view "
     "function a view of x's base, or None."},
    {NULL},
};

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.Entry",
    .tp_basicsize = sizeof(EntryObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Entry(func, array_type, real_func=None, complex_dtypes=None): a row "
              "of a fast path's table, for one backend.",
    .tp_new = entry_new,
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_traverse = (traverseproc)entry_traverse,
    .tp_clear = (inquiry)entry_clear,
    .tp_repr = (reprfunc)entry_repr,
    .tp_members = entry_members,
};

/* A row of the ASARRAY table, for one array type: the adapter whose arrays of
 * that type asarray wraps as they are, and the dtype objects it accepts
 * (compared by identity: a framework's dtype objects are its singletons). */
typedef struct {
    PyObject_HEAD PyObject *backend;
    PyObject *dtypes; /* a tuple */
    /* Optional: the attribute naming an array's layout and the one layout
     * wrapped here (torch: "layout", torch.strided); any other (sparse) takes
     * the slow path, which refuses it. NULL: every array of the type is dense. */
    PyObject *layout_attr;
    PyObject *layout;
    /* Optional: a method giving a code for an array's dtype, and the dict of
     * codes -> dtype objects (TensorFlow: "_datatype_enum", whose `dtype`
     * property costs 0.5 µs of Python). NULL: the `dtype` attribute is read. */
    PyObject *dtype_method;
    PyObject *dtype_codes;
} TypeEntryObject;

static PyTypeObject TypeEntryType;

static PyObject *
type_entry_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"backend",      "dtypes",      "layout_attr", "layout",
                               "dtype_method", "dtype_codes", NULL};
    PyObject *backend, *dtypes, *layout_attr = NULL, *layout = NULL,
                                *dtype_method = NULL, *dtype_codes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO$OO:TypeEntry", keywords,
                                     &backend, &dtypes, &layout_attr, &layout,
                                     &dtype_method, &dtype_codes)) {
        return NULL;
    }
    if (dtype_method == Py_None) {
        dtype_method = NULL;
    }
    if (dtype_method != NULL &&
        (!PyUnicode_Check(dtype_method) || dtype_codes == NULL ||
         !PyDict_CheckExact(dtype_codes))) {
        return PyErr_Format(PyExc_TypeError,
                            "TypeEntry(): dtype_method: expected a method name "
                            "given with dtype_codes, a dict, got %R",
                            dtype_method);
    }
    if (layout_attr == Py_None) {
        layout_attr = NULL;
    }
    if (layout_attr != NULL && (!PyUnicode_Check(layout_attr) || layout == NULL)) {
        return PyErr_Format(PyExc_TypeError,
                            "TypeEntry(): layout_attr: expected an attribute name "
                            "given with layout, got %R",
                            layout_attr);
    }
    if (!PyTuple_CheckExact(dtypes)) {
        return PyErr_Format(PyExc_TypeError,
                            "TypeEntry(): dtypes: expected a tuple "
                            "of dtype objects, got %R",
                            dtypes);
    }
    TypeEntryObject *e = (TypeEntryObject *)type->tp_alloc(type, 0);
    if (e == NULL) {
        return NULL;
    }
    e->backend = Py_NewRef(backend);
    e->dtypes = Py_NewRef(dtypes);
    e->layout_attr = Py_XNewRef(layout_attr);
    e->layout = layout_attr == NULL ? NULL : Py_NewRef(layout);
    e->dtype_method = Py_XNewRef(dtype_method);
    e->dtype_codes = dtype_method == NULL ? NULL : Py_NewRef(dtype_codes);
    return (PyObject *)e;
}

static int
type_entry_traverse(TypeEntryObject *e, visitproc visit, void *arg)
{
    Py_VISIT(e->backend);
    Py_VISIT(e->dtypes);
    Py_VISIT(e->layout_attr);
    Py_VISIT(e->layout);
    Py_VISIT(e->dtype_method);
    Py_VISIT(e->dtype_codes);
    return 0;
}

static int
type_entry_clear(TypeEntryObject *e)
{
    Py_CLEAR(e->backend);
    Py_CLEAR(e->dtypes);
    Py_CLEAR(e->layout_attr);
    Py_CLEAR(e->layout);
    Py_CLEAR(e->dtype_method);
    Py_CLEAR(e->dtype_codes);
    return 0;
}

static void
type_entry_dealloc(TypeEntryObject *e)
{
    PyObject_GC_UnTrack(e);
    type_entry_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *
type_entry_repr(TypeEntryObject *e)
{
    return PyUnicode_FromFormat("TypeEntry(backend=%R, dtypes=%R)", e->backend,
                                e->dtypes);
}

static PyMemberDef type_entry_members[] = {
    {"backend", T_OBJECT, offsetof(TypeEntryObject, backend), READONLY,
     "The adapter that owns arrays of this type."},
    {"dtypes", T_OBJECT, offsetof(TypeEntryObject, dtypes), READONLY,
     "The dtype objects whose arrays are wrapped without the Python path."},
    {NULL},
};

static PyTypeObject TypeEntryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.TypeEntry",
    .tp_basicsize = sizeof(TypeEntryObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "TypeEntry(backend, dtypes): a row of asarray's fast-path table, for "
              "one array type.",
    .tp_new = type_entry_new,
    .tp_dealloc = (destructor)type_entry_dealloc,
    .tp_traverse = (traverseproc)type_entry_traverse,
    .tp_clear = (inquiry)type_entry_clear,
    .tp_repr = (reprfunc)type_entry_repr,
    .tp_members = type_entry_members,
};

/* ---------------------------------------------------- Base, Link (views) --- */

/* The storage of unitensor/_views.py's records, in C so that the getitem fast
 * path can take a view of an immutable base (take_view) without Python. The
 * rules stay in _views.py; these types only hold what it decides.
 *
 * Base: what every view of one base shares. Python's _views.Base subclasses it
 * (adding the array, the lock, the base Tensor and mutable); C reads only the
 * version (moved by each write) and the base's shape (a tuple of ints, or None
 * where a size is unknown: then no view is taken in C). */
typedef struct {
    PyObject_HEAD Py_ssize_t version;
    PyObject *shape;
    char mutable; /* the base's array is written in place (torch) */
} BaseObject;

static int
base_traverse(BaseObject *b, visitproc visit, void *arg)
{
    Py_VISIT(b->shape);
    return 0;
}

static int
base_clear(BaseObject *b)
{
    Py_CLEAR(b->shape);
    return 0;
}

static void
base_dealloc(BaseObject *b)
{
    PyObject_GC_UnTrack(b);
    base_clear(b);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static PyMemberDef base_members[] = {
    {"version", T_PYSSIZET, offsetof(BaseObject, version), 0,
     "Moved by each write: a view derived at another version is re-derived."},
    {"shape", T_OBJECT, offsetof(BaseObject, shape), 0,
     "The base's shape (ints), or None where a size is unknown."},
    {"mutable", T_BOOL, offsetof(BaseObject, mutable), 0,
     "The base's array is written in place (torch), and its framework's own version "
     "counter moves too."},
    {NULL},
};

static PyTypeObject BaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.Base",
    .tp_basicsize = sizeof(BaseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C storage of unitensor._views.Base: its version and shape.",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)base_dealloc,
    .tp_traverse = (traverseproc)base_traverse,
    .tp_clear = (inquiry)base_clear,
    .tp_members = base_members,
};

/* _views._unfold(link): sets the steps and layout of a view taken in C from its
 * key (set_unfold). */
static PyObject *unfold_view = NULL;

/* Link: a view's tie to its base (unitensor/_views.py says what each field
 * means). A view taken in C (take_view) holds only its key, the backend and the
 * getitem function it was read with: its steps and layout (Python closures) are
 * made by unfold_view the first time either is read, which a view that is never
 * written, refreshed or viewed again never does. */
typedef struct {
    PyObject_HEAD PyObject *base; /* the Base record */
    PyObject *steps;              /* ((forward, backward), ...); NULL: not unfolded */
    PyObject *layout;             /* what makes the layout, the layout, or None */
    Py_ssize_t seen;              /* the base's version the view was derived at */
    Py_ssize_t counter;           /* a mutable base: its framework's counter then */
    PyObject *key, *backend, *getitem; /* taken in C: x[key] by getitem; else NULL */
} LinkObject;

static PyTypeObject LinkType;

/* A view of an immutable owner's base that no write has moved since its array
 * was derived (what _views.refresh would leave as it is): its array is current,
 * and a fast path whose results are new arrays may read it. (A mutable base's
 * views need its framework's counter read: Python's.) */
static inline bool
is_current_view(PyObject *obj)
{
    TensorObject *t = (TensorObject *)obj;
    if (Py_TYPE(obj) != tensor_type || t->backend == NULL || t->native == NULL ||
        t->view == NULL || !Py_IS_TYPE(t->view, &LinkType)) {
        return false;
    }
    LinkObject *link = (LinkObject *)t->view;
    BaseObject *base = (BaseObject *)link->base;
    return !base->mutable && link->seen == base->version;
}

/* An operand a fast path whose results are new arrays reads as it is. */
static inline bool
is_read_as_is(PyObject *obj)
{
    return is_tensor(obj) || is_current_view(obj);
}

static PyObject *
link_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"base", "steps", "layout", "seen", "counter", NULL};
    PyObject *base, *steps, *layout;
    Py_ssize_t seen = 0, counter = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!O|nn:Link", keywords, &base,
                                     &PyTuple_Type, &steps, &layout, &seen, &counter)) {
        return NULL;
    }
    if (!PyObject_TypeCheck(base, &BaseType)) {
        return PyErr_Format(PyExc_TypeError,
                            "Link(): base: expected a _views.Base, got %R", base);
    }
    LinkObject *link = (LinkObject *)type->tp_alloc(type, 0);
    if (link == NULL) {
        return NULL;
    }
    link->base = Py_NewRef(base);
    link->steps = Py_NewRef(steps);
    link->layout = Py_NewRef(layout);
    link->seen = seen;
    link->counter = counter;
    return (PyObject *)link;
}

/* A link taken in C (x[key] of base, read by getitem at base version seen). */
static PyObject *
link_taken(PyObject *base, Py_ssize_t seen, PyObject *key, PyObject *backend,
           PyObject *getitem)
{
    LinkObject *link = (LinkObject *)LinkType.tp_alloc(&LinkType, 0);
    if (link == NULL) {
        return NULL;
    }
    link->base = Py_NewRef(base);
    link->seen = seen;
    link->key = Py_NewRef(key);
    link->backend = Py_NewRef(backend);
    link->getitem = Py_NewRef(getitem);
    return (PyObject *)link;
}

static int
link_traverse(LinkObject *link, visitproc visit, void *arg)
{
    Py_VISIT(link->base);
    Py_VISIT(link->steps);
    Py_VISIT(link->layout);
    Py_VISIT(link->key);
    Py_VISIT(link->backend);
    Py_VISIT(link->getitem);
    return 0;
}

static int
link_clear(LinkObject *link)
{
    Py_CLEAR(link->base);
    Py_CLEAR(link->steps);
    Py_CLEAR(link->layout);
    Py_CLEAR(link->key);
    Py_CLEAR(link->backend);
    Py_CLEAR(link->getitem);
    return 0;
}

static void
link_dealloc(LinkObject *link)
{
    PyObject_GC_UnTrack(link);
    link_clear(link);
    Py_TYPE(link)->tp_free((PyObject *)link);
}

/* Steps and layout made from the key (a link taken in C), where not yet made:
 * 0, or -1 with an error. Two threads may both make them: alike, either stays. */
static int
unfold(LinkObject *link)
{
    if (link->steps != NULL && link->layout != NULL) {
        return 0;
    }
    if (link->key == NULL || unfold_view == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "unitensor._fast.Link: no steps (cleared, or set_unfold() "
                        "was not called)");
        return -1;
    }
    PyObject *done = PyObject_CallOneArg(unfold_view, (PyObject *)link);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    if (link->steps == NULL || link->layout == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "unitensor._fast.Link: the unfold hook set no steps or layout");
        return -1;
    }
    return 0;
}

static PyObject *
link_get_steps(LinkObject *link, void *Py_UNUSED(closure))
{
    return unfold(link) < 0 ? NULL : Py_NewRef(link->steps);
}

static int
link_set_steps(LinkObject *link, PyObject *value, void *Py_UNUSED(closure))
{
    if (value == NULL || !PyTuple_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "Link.steps: expected a tuple of steps");
        return -1;
    }
    Py_XSETREF(link->steps, Py_NewRef(value));
    return 0;
}

static PyObject *
link_get_layout(LinkObject *link, void *Py_UNUSED(closure))
{
    return unfold(link) < 0 ? NULL : Py_NewRef(link->layout);
}

static int
link_set_layout(LinkObject *link, PyObject *value, void *Py_UNUSED(closure))
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "Link.layout cannot be deleted");
        return -1;
    }
    Py_XSETREF(link->layout, Py_NewRef(value));
    return 0;
}

/* The layout, made on first need (a callable makes it) and kept. */
static PyObject *
link_shaped(LinkObject *link, PyObject *Py_UNUSED(ignored))
{
    if (unfold(link) < 0) {
        return NULL;
    }
    if (!PyCallable_Check(link->layout)) {
        return Py_NewRef(link->layout);
    }
    PyObject *made = PyObject_CallNoArgs(link->layout);
    if (made != NULL) {
        Py_XSETREF(link->layout, Py_NewRef(made));
    }
    return made;
}

static PyMemberDef link_members[] = {
    {"base", T_OBJECT, offsetof(LinkObject, base), READONLY, "The base's record."},
    {"seen", T_PYSSIZET, offsetof(LinkObject, seen), 0,
     "The base's version the view's array was derived at."},
    {"counter", T_PYSSIZET, offsetof(LinkObject, counter), 0,
     "A mutable base: its framework's version counter then (else 0)."},
    {"key", T_OBJECT, offsetof(LinkObject, key), READONLY,
     "A view taken in C: its key (x[key] of the base), else None."},
    {"backend", T_OBJECT, offsetof(LinkObject, backend), READONLY,
     "A view taken in C: the base's backend, else None."},
    {"getitem", T_OBJECT, offsetof(LinkObject, getitem), READONLY,
     "A view taken in C: the function that read it, getitem(array, key), else None."},
    {NULL},
};

static PyGetSetDef link_getset[] = {
    {"steps", (getter)link_get_steps, (setter)link_set_steps,
     "((forward, backward), ...): from the base's array to the view's and back.", NULL},
    {"layout", (getter)link_get_layout, (setter)link_set_layout,
     "The view's layout (a numpy array of no memory with its strides), what makes "
     "it, or None.",
     NULL},
    {NULL},
};

static PyMethodDef link_methods[] = {
    {"shaped", (PyCFunction)link_shaped, METH_NOARGS,
     "shaped()\nThe layout, made on first need and kept."},
    {NULL},
};

static PyTypeObject LinkType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "unitensor._fast.Link",
    .tp_basicsize = sizeof(LinkObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Link(base, steps, layout, seen=0, counter=0): a view's tie to its "
              "base (unitensor/_views.py).",
    .tp_new = link_new,
    .tp_dealloc = (destructor)link_dealloc,
    .tp_traverse = (traverseproc)link_traverse,
    .tp_clear = (inquiry)link_clear,
    .tp_members = link_members,
    .tp_getset = link_getset,
    .tp_methods = link_methods,
};

static PyObject *
set_unfold(PyObject *module, PyObject *hook)
{
    if (!PyCallable_Check(hook)) {
        return PyErr_Format(PyExc_TypeError,
                            "set_unfold(): hook: expected a callable, got %R", hook);
    }
    Py_XSETREF(unfold_view, Py_NewRef(hook));
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ FastPath --- */

typedef enum { ASARRAY, UNARY, BINARY, VIEW, GETITEM, CALL, N_FAST_KINDS } FastKind;
static const char *const FAST_KIND_NAMES[] = {"asarray", "unary",   "binary",
                                              "view",    "getitem", "call"};

typedef struct {
    PyObject_HEAD FastKind kind;
    PyObject *slow;       /* the Python function this one stands for */
    PyObject *table;      /* ASARRAY: {type: TypeEntry}; UNARY, BINARY, GETITEM,
                             CALL: {backend: Entry}; VIEW: the framework's name */
    PyObject *as_tensors; /* as_tensors(backend, result) for results that are not the
                             backend's array type (scalars, tuples); NULL: slow path */
    PyObject *keywords;   /* CALL: {keyword: default} of the signature */
    PyObject *named;      /* CALL: {name: position} of the positional parameters a
                             caller may also name (`axis` of expand_dims); NULL:
                             none */
    /* CALL: {name: (position, -1 keyword-only; whether it takes an int; whether it
     * takes a tuple)} of the integer parameters (axes, counts, offsets), whose
     * values other than a Python int or a tuple of them, where taken, take the
     * slow path (unitensor/_integers.py reads them); NULL: none */
    PyObject *integers;
    uint32_t
        integer_positions;     /* CALL: bit i set where positional parameter i is one */
    uint32_t int_positions;    /* CALL: bit i set where that one takes an int */
    uint32_t tuple_positions;  /* CALL: bit i set where that one takes a tuple */
    Py_ssize_t max_positional; /* CALL: positional parameters, x included */
    Py_ssize_t least_ndim;     /* CALL: x of fewer dimensions takes the slow path, whose
                                  rule answers it as numpy does (sort of a 0-d array:
                                  refused; owners differ there); 0: any x */
    PyObject *scalars; /* BINARY: {backend: Entry} for a Tensor and a Python scalar
                          (the general path's shortcut); NULL: none */
    PyObject *finish;  /* BINARY, with scalars: finish(x, scalar, result), what the
                          shortcut does with a result whose dtype is not x's */
    PyObject *views;   /* GETITEM: {backend: Entry} for x[key] of an immutable
                          owner's base, taken as a view of it (take_view); NULL:
                          none */
    PyObject *copies;  /* GETITEM: {backend: Entry} of the owners whose x[i, j] of
                          as many ints as axes is a 0-d view (torch), where numpy's
                          is a scalar, a copy: the function copying it; NULL: none */
    /* VIEW: the route taken last, so that the next conversion from the same
     * owner reads no attribute and one dict: the owner's adapter (`source`) and
     * its NAME, the target's adapter and its ROUTES dict (mutated in place, so
     * never stale itself). Read while `generation` is adapters_generation and
     * the registry still holds that target adapter; all NULL until then. Where
     * the registry and that ROUTES are Watched, `route` is the route itself,
     * and such a conversion reads no dict at all. */
    PyObject *source, *source_name, *target, *routes, *route;
    /* ASARRAY: the type seen last and its TypeEntry, kept while `table` is
     * Watched and `generation` is adapters_generation; NULL until then. Where
     * that type is immutable and its dtype a C getter (numpy's), the getter:
     * no class can change what it is, nor can an instance's own dict. */
    PyObject *seen_type, *seen;
    getter seen_dtype;
    void *seen_closure;
    uint64_t generation;
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
    return owner_blocks_open != 0;
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

/* table[key] if it is a row of `type`, as a new reference (the calls it leads
 * to may change the table); NULL (no error) when absent or anything else. */
static PyObject *
row(PyObject *table, PyObject *key, PyTypeObject *type)
{
    PyObject *found = PyDict_GetItemWithError(table, key);
    if (found == NULL || Py_TYPE(found) != type) {
        PyErr_Clear(); /* a type that cannot be hashed: the slow path says so */
        return NULL;
    }
    return Py_NewRef(found);
}

static inline EntryObject *
entry(PyObject *table, PyObject *key)
{
    return (EntryObject *)row(table, key, &EntryType);
}

/* obj's dtype object (a new reference), by its type's dtype_method where it has
 * one; NULL, maybe with an error, where it cannot be read or its code is not
 * known. */
static PyObject *
array_dtype(TypeEntryObject *seen, PyObject *obj)
{
    if (seen->dtype_method == NULL) {
        return attribute(obj, str_dtype);
    }
    /* The type's own method called with obj as self: binding it first (what
     * a method call does, TensorFlow's class having a __getattr__) would cost
     * two thirds of this. Anything else there, or in obj's own dict, is
     * called as Python calls it. */
    PyObject *method = _PyType_Lookup(Py_TYPE(obj), seen->dtype_method); /* borrowed */
    PyObject **dict = _PyObject_GetDictPtr(obj);
    PyObject *code =
        method != NULL && Py_IS_TYPE(method, &PyMethodDescr_Type) &&
                (dict == NULL || *dict == NULL ||
                 PyDict_GetItemWithError(*dict, seen->dtype_method) == NULL)
            ? PyObject_Vectorcall(method, &obj, 1, NULL)
            : PyObject_VectorcallMethod(seen->dtype_method, &obj, 1, NULL);
    if (code == NULL) {
        return NULL;
    }
    PyObject *dtype = PyDict_GetItemWithError(seen->dtype_codes, code);
    Py_DECREF(code);
    return Py_XNewRef(dtype);
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
    TypeEntryObject *seen;
    if ((PyObject *)Py_TYPE(obj) == f->seen_type &&
        f->generation == adapters_generation) {
        seen = (TypeEntryObject *)Py_NewRef(f->seen);
    }
    else {
        seen =
            (TypeEntryObject *)row(f->table, (PyObject *)Py_TYPE(obj), &TypeEntryType);
        if (seen == NULL) {
            return call_slow(f, args, nargsf, kwnames);
        }
        if (Py_TYPE(f->table) == watched_type) {
            Py_XSETREF(f->seen_type, Py_NewRef(Py_TYPE(obj)));
            Py_XSETREF(f->seen, Py_NewRef(seen));
            f->generation = adapters_generation;
            PyObject *descr =
                seen->dtype_method == NULL &&
                        PyType_HasFeature(Py_TYPE(obj), Py_TPFLAGS_IMMUTABLETYPE)
                    ? _PyType_Lookup(Py_TYPE(obj), str_dtype)
                    : NULL;
            bool getset = descr != NULL && Py_IS_TYPE(descr, &PyGetSetDescr_Type) &&
                          ((PyGetSetDescrObject *)descr)->d_getset->get != NULL;
            f->seen_dtype =
                getset ? ((PyGetSetDescrObject *)descr)->d_getset->get : NULL;
            f->seen_closure =
                getset ? ((PyGetSetDescrObject *)descr)->d_getset->closure : NULL;
        }
    }
    PyObject *dtype = (PyObject *)Py_TYPE(obj) == f->seen_type && f->seen_dtype != NULL
                          ? f->seen_dtype(obj, f->seen_closure)
                          : array_dtype(seen, obj);
    if (dtype == NULL) {
        PyErr_Clear();
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    /* Identity, not equality: the dtype objects a framework hands out are its
     * singletons; any other object (byte-swapped numpy) takes the slow path. */
    bool known = false;
    for (Py_ssize_t i = 0; !known && i < PyTuple_GET_SIZE(seen->dtypes); i++) {
        known = PyTuple_GET_ITEM(seen->dtypes, i) == dtype;
    }
    if (known && seen->layout_attr != NULL) { /* a sparse one: refused slowly */
        PyObject *layout = attribute(obj, seen->layout_attr);
        if (layout == NULL) {
            PyErr_Clear();
        }
        known = layout == seen->layout;
        Py_XDECREF(layout);
    }
    if (!known) {
        Py_DECREF(dtype);
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *t = (TensorObject *)new_tensor(seen->backend, obj, NULL);
    Py_DECREF(seen);
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
         * array, as the Python _as_tensors does */
        Py_SETREF(result, PyObject_CallMethodOneArg(backend, str_result, result));
        if (result == NULL) { /* not a scalar (dask's NotImplemented for x // 1j):
                                 the general path says why */
            return retry_slowly() ? call_slow(f, args, nargsf, kwnames) : NULL;
        }
    }
    if ((PyObject *)Py_TYPE(result) != array_type) { /* a tuple, a list */
        if (f->as_tensors != NULL) {
            PyObject *call_args[2] = {backend, result};
            PyObject *wrapped = PyObject_Vectorcall(f->as_tensors, call_args, 2, NULL);
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

/* 1 where `dtype` is one of e's complex_dtypes (func's fix is needed), 0 where not,
 * -1 on error. The last dtype found not to need it is remembered: frameworks keep
 * one dtype object per dtype, so one pointer comparison answers the common case,
 * where the set lookup would hash the dtype on every call (numpy's hash is not
 * cached: ~85 ns). */
static int
needs_fix(EntryObject *e, PyObject *dtype)
{
    if (dtype == NULL) {
        return -1;
    }
    if (dtype == e->last_real) {
        return 0;
    }
    int found = PySet_Contains(e->complex_dtypes, dtype);
    if (found == 0) {
        Py_XSETREF(e->last_real, Py_NewRef(dtype));
    }
    return found;
}

/* The function row e calls for x: func, or real_func where func is a fix that x's
 * dtype does not need (borrowed); NULL, no error set, where x's dtype cannot be
 * read or there is no real_func for it: the slow path decides. */
static PyObject *
row_function(EntryObject *e, TensorObject *x)
{
    if (e->complex_dtypes == NULL) {
        return e->func;
    }
    int fixed = needs_fix(e, native_dtype(x));
    if (fixed < 0) {
        PyErr_Clear();
        return NULL;
    }
    return fixed ? e->func : e->real_func;
}

/* The result of a fast call as its row gives it back: the row's tie(x, args,
 * kwargs, result), for a function whose result is a view in numpy (args: the
 * positional arguments after x; the keywords after them: n_kept values, named
 * by names), else result itself. Steals result; NULL passes through. */
static PyObject *
tied(EntryObject *seen, TensorObject *x, PyObject *const *args, Py_ssize_t nargs,
     PyObject *const *names, Py_ssize_t n_kept, PyObject *result)
{
    if (result == NULL || seen->tie == NULL) {
        return result;
    }
    PyObject *positional = PyTuple_New(nargs), *keywords = PyDict_New();
    int failed = positional == NULL || keywords == NULL;
    for (Py_ssize_t i = 0; !failed && i < nargs; i++) {
        PyTuple_SET_ITEM(positional, i, Py_NewRef(args[i]));
    }
    for (Py_ssize_t i = 0; !failed && i < n_kept; i++) {
        failed = PyDict_SetItem(keywords, names[i], args[nargs + i]) < 0;
    }
    PyObject *out = NULL;
    if (!failed) {
        PyObject *call_args[4] = {(PyObject *)x, positional, keywords, result};
        out = PyObject_Vectorcall(seen->tie, call_args, 4, NULL);
    }
    Py_XDECREF(positional);
    Py_XDECREF(keywords);
    Py_DECREF(result);
    return out;
}

static PyObject *
fast_unary(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL || !is_tensor(args[0]) ||
        forcing()) {
        return call_slow(f, args, nargsf, kwnames);
    }
    TensorObject *x = (TensorObject *)args[0];
    EntryObject *seen = entry(f->table, x->backend);
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *func = row_function(seen, x);
    if (func == NULL) {
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *result = PyObject_Vectorcall(func, &x->native, 1, NULL);
    bool ran = result != NULL; /* (else the slow path's result, tied there) */
    result = wrap_result(f, x->backend, result, seen->array_type, args, nargsf, NULL);
    if (ran) {
        result = tied(seen, x, NULL, 0, NULL, 0, result);
    }
    Py_DECREF(seen);
    return result;
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

/* Every integer dtype holds the Python ints 0 to HELD_BY_ALL (unitensor/_dtypes.py,
 * int8's max): only such an int needs no range check against x's dtype. */
#define HELD_BY_ALL 127

/* A Python scalar that the general path's shortcut (_dispatch.binary) passes to
 * the framework as it is, as a new reference: a bool, an int every integer dtype
 * holds, a float, a complex; an instance of a subclass of float or complex (numpy's
 * float64 and complex128) as the Python scalar it holds, as _dispatch._weak makes
 * it. NULL (no error) for anything else: the slow path. *inexact: a float or a
 * complex, whose result may change the array's dtype (the one rule's case). */
static PyObject *
plain_scalar(PyObject *v, bool *inexact)
{
    *inexact = true;
    if (PyFloat_CheckExact(v)) {
        return Py_NewRef(v);
    }
    if (PyFloat_Check(v)) {
        return PyFloat_FromDouble(PyFloat_AS_DOUBLE(v));
    }
    if (PyComplex_CheckExact(v)) {
        return Py_NewRef(v);
    }
    if (PyComplex_Check(v)) {
        return PyComplex_FromCComplex(((PyComplexObject *)v)->cval);
    }
    *inexact = false;
    if (PyBool_Check(v)) {
        return Py_NewRef(v);
    }
    if (PyLong_CheckExact(v)) {
        int overflow;
        long value = PyLong_AsLongAndOverflow(v, &overflow);
        if (overflow == 0 && value >= 0 && value <= HELD_BY_ALL) {
            return Py_NewRef(v);
        }
        PyErr_Clear();
    }
    return NULL;
}

/* f(x, scalar), x a Tensor: the function the general path's shortcut learned for
 * x's backend, on x's array and the scalar as it is; a float or complex whose
 * result's dtype is not x's goes to f->finish (the one rule: an integer array cast
 * to the default dtype first), which takes the result made here. Anything else,
 * and a framework's error, is the slow path's. */
static PyObject *
with_scalar(FastPath *f, PyObject *const *args, size_t nargsf)
{
    TensorObject *x = (TensorObject *)args[0];
    if (f->scalars == NULL) {
        return call_slow(f, args, nargsf, NULL);
    }
    bool inexact;
    PyObject *scalar = plain_scalar(args[1], &inexact);
    if (scalar == NULL) {
        return PyErr_Occurred() ? NULL : call_slow(f, args, nargsf, NULL);
    }
    EntryObject *seen = entry(f->scalars, x->backend);
    PyObject *func = seen == NULL ? NULL : row_function(seen, x);
    if (func == NULL) {
        Py_XDECREF(seen);
        Py_DECREF(scalar);
        return call_slow(f, args, nargsf, NULL);
    }
    PyObject *natives[2] = {x->native, scalar};
    PyObject *result = PyObject_Vectorcall(func, natives, 2, NULL);
    if (result != NULL && inexact) {
        PyObject *dtype = PyObject_GetAttr(result, str_dtype);
        PyObject *own = dtype == NULL ? NULL : native_dtype(x);
        if (own == NULL) { /* no dtype to compare: Python decides */
            PyErr_Clear();
            Py_XDECREF(dtype);
            Py_CLEAR(result);
            Py_DECREF(seen);
            Py_DECREF(scalar);
            return call_slow(f, args, nargsf, NULL);
        }
        bool changed = dtype != own; /* by identity, as the shortcut compares */
        Py_DECREF(dtype);
        if (changed) {
            PyObject *finish_args[3] = {args[0], scalar, result};
            PyObject *finished = PyObject_Vectorcall(f->finish, finish_args, 3, NULL);
            Py_DECREF(result);
            Py_DECREF(seen);
            Py_DECREF(scalar);
            return finished;
        }
    }
    Py_DECREF(scalar);
    result = wrap_result(f, x->backend, result, seen->array_type, args, nargsf, NULL);
    Py_DECREF(seen);
    return result;
}

/* t's cached zero-copy array for the framework `name`, borrowed, or NULL (no
 * error) where there is none, or where handing it out is Python's (CUDA memory:
 * the stream order). What fast_view and the general path hand out first. */
static PyObject *
cached_view(TensorObject *t, PyObject *name)
{
    if (t->first_view != NULL && same_str(t->first_target, name)) {
        return t->first_view;
    }
    if (no_aliases(t) || Py_TYPE(t->aliases) != &AliasesType ||
        ((AliasesObject *)t->aliases)->ordered) {
        return NULL;
    }
    PyObject *views = ((AliasesObject *)t->aliases)->views;
    PyObject *cached = views == NULL ? NULL : PyDict_GetItemWithError(views, name);
    if (cached == NULL) {
        PyErr_Clear();
    }
    return cached;
}

/* obj.a == other.a (1), or not (0), or -1 with an error. */
static int
same_attribute(PyObject *obj, PyObject *other, PyObject *a)
{
    PyObject *left = attribute(obj, a);
    PyObject *right = left == NULL ? NULL : attribute(other, a);
    int equal = right == NULL ? -1 : PyObject_RichCompareBool(left, right, Py_EQ);
    Py_XDECREF(left);
    Py_XDECREF(right);
    return equal;
}

/* x1, x2 of two owners, where x2 carries no autodiff state (its owner has no
 * autodiff: numpy, dask, array_api_strict; or its adapter's autodiff_state says
 * None: a torch tensor that does not require grad): the owner rule gives x1's
 * owner whatever x1 carries, and the general path hands it x2's cached zero-copy
 * array for it (_convert.operand). 1 with *other set to that array (a new
 * reference, replacing the one there) where it is cached, on x1's device and of
 * x1's dtype object (so no promotion and no device error is involved); 0 where
 * Python decides; -1 with an error. */
static int
lent_to_owner(TensorObject *x1, TensorObject *x2, PyObject **other)
{
    PyObject *autodiff = attribute(x2->backend, str_autodiff);
    if (autodiff == NULL) {
        return -1;
    }
    int carries = autodiff != Py_False;
    Py_DECREF(autodiff);
    if (carries) { /* asked as _dispatch._choose asks it */
        PyObject *state = attribute(x2->backend, str_autodiff_state);
        PyObject *found =
            state == NULL ? NULL : PyObject_Vectorcall(state, &x2->native, 1, NULL);
        Py_XDECREF(state);
        if (found == NULL) {
            return -1;
        }
        carries = found != Py_None;
        Py_DECREF(found);
        if (carries) {
            return 0;
        }
    }
    PyObject *name = attribute(x1->backend, str_name);
    if (name == NULL) {
        return -1;
    }
    PyObject *view = PyUnicode_CheckExact(name) ? cached_view(x2, name) : NULL;
    Py_DECREF(name);
    if (view == NULL) {
        return 0;
    }
    Py_INCREF(view); /* (reading its attributes may run Python code) */
    PyObject *dtype = attribute(view, str_dtype);
    int same = dtype == NULL ? -1 : dtype == native_dtype(x1);
    Py_XDECREF(dtype);
    if (same == 1) {
        same = same_attribute(x1->native, view, str_device);
    }
    if (same != 1) {
        Py_DECREF(view);
        return same;
    }
    Py_SETREF(*other, view);
    return 1;
}

static PyObject *
fast_binary(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    /* (an elementwise function of two operands: its result is a new array, so
     * current views are read as they are) */
    if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != NULL || !is_read_as_is(args[0]) ||
        forcing()) {
        return call_slow(f, args, nargsf, kwnames);
    }
    if (!is_read_as_is(args[1])) {
        return with_scalar(f, args, nargsf);
    }
    TensorObject *x1 = (TensorObject *)args[0], *x2 = (TensorObject *)args[1];
    EntryObject *seen = entry(f->table, x1->backend);
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *other = Py_NewRef(x2->native); /* x2's array as x1's owner reads it */
    int same =
        x1->backend == x2->backend ? same_dtype(x1, x2) : lent_to_owner(x1, x2, &other);
    if (same != 1) {
        PyErr_Clear();
        Py_DECREF(other);
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *func = row_function(seen, x1);
    if (func == NULL) {
        Py_DECREF(other);
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *natives[2] = {x1->native, other};
    PyObject *result = PyObject_Vectorcall(func, natives, 2, NULL);
    Py_DECREF(other);
    result = wrap_result(f, x1->backend, result, seen->array_type, args, nargsf, NULL);
    Py_DECREF(seen);
    return result;
}

/* A Python number, string or None: what needs no conversion for any framework. */
static bool
is_literal(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v) || PyFloat_CheckExact(v) ||
           PyBool_Check(v) || PyUnicode_CheckExact(v) || PyComplex_CheckExact(v);
}

/* A literal, or a tuple of literals (axes, shapes): passed on as they are. */
static bool
is_literal_or_tuple(PyObject *v)
{
    if (PyTuple_CheckExact(v)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
            if (!is_literal(PyTuple_GET_ITEM(v, i))) {
                return false;
            }
        }
        return true;
    }
    return is_literal(v);
}

/* x's array's ndim; -1, no error set, where it cannot be read. */
static Py_ssize_t
native_ndim(TensorObject *x)
{
    PyObject *ndim = PyObject_GetAttr(x->native, str_ndim);
    Py_ssize_t n = ndim != NULL && PyLong_Check(ndim) ? PyLong_AsSsize_t(ndim) : -1;
    Py_XDECREF(ndim);
    PyErr_Clear();
    return n;
}

/* How many ints `key` is made of (an int, or a tuple of ints only); -1 for any
 * other key. */
static Py_ssize_t
ints_only(PyObject *key)
{
    if (PyLong_CheckExact(key)) {
        return 1;
    }
    if (!PyTuple_CheckExact(key)) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++) {
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(key, i))) {
            return -1;
        }
    }
    return PyTuple_GET_SIZE(key);
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

/* x[key] of base x (an immutable owner's Tensor whose views are tied to it,
 * _views.py), read by `seen`'s function: a Tensor that is a view of x's base, as
 * _views.taken makes it, or the slow path. Taken here: keys of ints, slices (no
 * negative step) and Ellipsis, without None (whose new axes need a reshape
 * step), on a base of known sizes. Its steps and layout are left to their first
 * reader (unfold). */
static PyObject *
take_view(FastPath *f, TensorObject *x, EntryObject *seen, PyObject *const *args,
          size_t nargsf)
{
    PyObject *key = args[1];
    BaseObject *base = (BaseObject *)x->base;
    if (!PyTuple_Check(base->shape)) { /* sizes unknown: Python decides */
        return call_slow(f, args, nargsf, NULL);
    }
    bool tuple = PyTuple_CheckExact(key);
    Py_ssize_t n = tuple ? PyTuple_GET_SIZE(key) : 1, ints = 0, after = -1;
    Py_ssize_t ndim = PyTuple_GET_SIZE(base->shape);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = tuple ? PyTuple_GET_ITEM(key, i) : key;
        if (k == Py_None) {
            return call_slow(f, args, nargsf, NULL);
        }
        if (k == Py_Ellipsis) {
            after = i; /* the items after it index the last axes */
        }
        else if (PyLong_CheckExact(k)) {
            ints++;
            /* an int out of bounds: Python refuses it (jax would clamp it) */
            Py_ssize_t axis = after < 0 ? i : ndim - (n - i);
            Py_ssize_t index = PyLong_AsSsize_t(k);
            PyObject *size = axis >= 0 && axis < ndim && !PyErr_Occurred()
                                 ? PyTuple_GET_ITEM(base->shape, axis)
                                 : NULL; /* (an int beyond 64 bits: Python's) */
            Py_ssize_t bound = size != NULL ? PyLong_AsSsize_t(size) : -1;
            if (PyErr_Occurred() || bound < 0 || index < -bound || index >= bound) {
                PyErr_Clear();
                return call_slow(f, args, nargsf, NULL);
            }
        }
    }
    /* numpy's x[i, j] of as many ints as axes is a scalar: a copy, not tied */
    bool scalar = ints == n && n == PyTuple_GET_SIZE(base->shape);
    /* the version first: a write landing while the framework reads x leaves the
     * view at an older version than its array, so it is re-derived, never stale */
    Py_ssize_t version = base->version;
    /* held: another thread's write may rebind x while the framework reads it */
    PyObject *native = Py_NewRef(x->native);
    PyObject *call_args[2] = {native, key};
    PyObject *result = PyObject_Vectorcall(seen->func, call_args, 2, NULL);
    Py_DECREF(native);
    if (scalar) { /* as the plain path wraps it (numpy's scalar: an array) */
        return wrap_result(f, x->backend, result, seen->array_type, args, nargsf, NULL);
    }
    if (result == NULL) {
        return retry_slowly() ? call_slow(f, args, nargsf, NULL) : NULL;
    }
    if ((PyObject *)Py_TYPE(result) != seen->array_type) {
        Py_DECREF(result);
        return call_slow(f, args, nargsf, NULL);
    }
    TensorObject *t = (TensorObject *)new_tensor(x->backend, result, NULL);
    Py_DECREF(result);
    if (t == NULL) {
        return NULL;
    }
    t->view = link_taken((PyObject *)base, version, key, x->backend, seen->func);
    if (t->view == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    return (PyObject *)t;
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
    if (basic && f->views != NULL && x->base != NULL &&
        PyObject_TypeCheck(x->base, &BaseType)) {
        /* the base of its views: a view of it, where its backend was learned
         * (an immutable owner); the plain table has no row for such a backend */
        EntryObject *taking = entry(f->views, x->backend);
        if (taking != NULL) {
            PyObject *view = take_view(f, x, taking, args, nargsf);
            Py_DECREF(taking);
            return view;
        }
    }
    EntryObject *seen = basic ? entry(f->table, x->backend) : NULL;
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    /* a scalar read (as many ints as axes) of an owner whose read is a view */
    EntryObject *copying = NULL;
    Py_ssize_t ints = f->copies != NULL ? ints_only(key) : -1;
    if (ints >= 0 && (copying = entry(f->copies, x->backend)) != NULL) {
        Py_ssize_t ndim = native_ndim(x);
        if (ndim < 0) {
            Py_DECREF(copying);
            Py_DECREF(seen);
            return call_slow(f, args, nargsf, kwnames);
        }
        if (ndim != ints) {
            Py_CLEAR(copying);
        }
    }
    PyObject *call_args[2] = {x->native, key};
    PyObject *result = PyObject_Vectorcall(seen->func, call_args, 2, NULL);
    if (copying != NULL) {
        if (result != NULL && (PyObject *)Py_TYPE(result) == seen->array_type) {
            Py_SETREF(result, PyObject_CallOneArg(copying->func, result));
        }
        Py_DECREF(copying);
    }
    result = wrap_result(f, x->backend, result, seen->array_type, args, nargsf, NULL);
    Py_DECREF(seen);
    return result;
}

#define MAX_CALL_ARGS 16

/* Whether `value`, given for an integer parameter, is one the fast path passes on
 * as it is: where `ints`, a Python int; where `tuples`, a tuple of them
 * (unitensor/_integers.py reads any other, as the slow path). */
static bool
plain_integer(PyObject *value, bool ints, bool tuples)
{
    if (PyLong_CheckExact(value)) {
        return ints;
    }
    if (!tuples || !PyTuple_CheckExact(value)) {
        return false;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++) {
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(value, i))) {
            return false;
        }
    }
    return true;
}

/* x's array has at least `least` dimensions (its ndim, read where least > 0);
 * false, no error set, where it has fewer or ndim cannot be read. */
static bool
has_dimensions(TensorObject *x, Py_ssize_t least)
{
    return least == 0 || native_ndim(x) >= least;
}

/* f(x, *plain, **plain) for a Tensor x: the framework's function on x's array,
 * keyword arguments equal to the signature's defaults left out (as the Python
 * function leaves them out, so each framework applies its own defaults). */
static PyObject *
fast_call(FastPath *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs < 1 || nargs > f->max_positional || nargs + nkw > MAX_CALL_ARGS ||
        !is_tensor(args[0]) || forcing() ||
        !has_dimensions((TensorObject *)args[0], f->least_ndim)) {
        return call_slow(f, args, nargsf, kwnames);
    }
    for (Py_ssize_t i = 1; i < nargs + nkw; i++) {
        if (!is_literal_or_tuple(args[i]) ||
            (i < nargs && i < 32 && (f->integer_positions >> i & 1) &&
             !plain_integer(args[i], f->int_positions >> i & 1,
                            f->tuple_positions >> i & 1))) {
            return call_slow(f, args, nargsf, kwnames);
        }
    }
    TensorObject *x = (TensorObject *)args[0];
    EntryObject *seen = entry(f->table, x->backend);
    if (seen == NULL) {
        return call_slow(f, args, nargsf, kwnames);
    }
    /* positional arguments (those given by name in their places), then the
     * keywords kept (kept_values, moved after the positional ones) */
    PyObject *call_args[MAX_CALL_ARGS] = {NULL}, *kept_names[MAX_CALL_ARGS];
    PyObject *kept_values[MAX_CALL_ARGS];
    Py_ssize_t n_kept = 0, n_positional = nargs;
    call_args[0] = x->native;
    for (Py_ssize_t i = 1; i < nargs; i++) {
        call_args[i] = args[i];
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        PyObject *place =
            f->named == NULL ? NULL : PyDict_GetItemWithError(f->named, name);
        if (place != NULL) { /* a positional parameter, named */
            Py_ssize_t at = PyLong_AsSsize_t(place);
            if (at < nargs || at >= f->max_positional || call_args[at] != NULL ||
                (at < 32 && (f->integer_positions >> at & 1) &&
                 !plain_integer(value, f->int_positions >> at & 1,
                                f->tuple_positions >> at & 1))) {
                PyErr_Clear(); /* given twice: Python raises */
                Py_DECREF(seen);
                return call_slow(f, args, nargsf, kwnames);
            }
            call_args[at] = value;
            n_positional = at + 1 > n_positional ? at + 1 : n_positional;
            continue;
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();
            Py_DECREF(seen);
            return call_slow(f, args, nargsf, kwnames);
        }
        PyObject *fallback = PyDict_GetItemWithError(f->keywords, name);
        /* not a keyword of the signature, or a flag (a bool default) given
         * something else: Python raises */
        if (fallback == NULL || (PyBool_Check(fallback) && !PyBool_Check(value))) {
            PyErr_Clear();
            Py_DECREF(seen);
            return call_slow(f, args, nargsf, kwnames);
        }
        if (f->integers != NULL && !(value == Py_None && fallback == Py_None)) {
            /* an integer parameter given another kind (also one equal to its
             * default: True for n=1; None where the default is not None):
             * Python reads it */
            PyObject *spec = PyDict_GetItemWithError(f->integers, name);
            if (spec != NULL
                    ? !plain_integer(value, PyTuple_GET_ITEM(spec, 1) == Py_True,
                                     PyTuple_GET_ITEM(spec, 2) == Py_True)
                    : PyErr_Occurred() != NULL) {
                PyErr_Clear();
                Py_DECREF(seen);
                return call_slow(f, args, nargsf, kwnames);
            }
        }
        int is_default = fallback == Py_None || PyBool_Check(fallback)
                             ? value == fallback
                             : PyObject_RichCompareBool(value, fallback, Py_EQ);
        if (is_default < 0) {
            PyErr_Clear();
            Py_DECREF(seen);
            return call_slow(f, args, nargsf, kwnames);
        }
        if (!is_default) {
            kept_values[n_kept] = value;
            kept_names[n_kept++] = name;
        }
    }
    for (Py_ssize_t i = nargs; i < n_positional; i++) {
        if (call_args[i] == NULL) { /* one before it not given: Python raises */
            Py_DECREF(seen);
            return call_slow(f, args, nargsf, kwnames);
        }
    }
    for (Py_ssize_t i = 0; i < n_kept; i++) {
        call_args[n_positional + i] = kept_values[i];
    }
    PyObject *names = NULL;
    if (n_kept > 0) {
        names = PyTuple_New(n_kept);
        if (names == NULL) {
            Py_DECREF(seen);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n_kept; i++) {
            PyTuple_SET_ITEM(names, i, Py_NewRef(kept_names[i]));
        }
    }
    PyObject *func = row_function(seen, x);
    if (func == NULL) {
        Py_XDECREF(names);
        Py_DECREF(seen);
        return call_slow(f, args, nargsf, kwnames);
    }
    PyObject *result =
        PyObject_Vectorcall(func, call_args, (size_t)n_positional, names);
    Py_XDECREF(names);
    bool ran = result != NULL; /* (else the slow path's result, tied there) */
    result =
        wrap_result(f, x->backend, result, seen->array_type, args, nargsf, kwnames);
    if (ran) {
        result =
            tied(seen, x, call_args + 1, n_positional - 1, kept_names, n_kept, result);
    }
    Py_DECREF(seen);
    return result;
}

/* The route f takes from t's owner to its framework: ROUTES[source] of the
 * target adapter (a new reference), NULL without an error where there is none
 * (the adapter is not loaded yet or has no route from that owner), or t's own
 * native (`*same` set) where t's owner is that framework. Through f's cache of
 * the last route's reads where it holds. */
static PyObject *
view_route(FastPath *f, TensorObject *t, bool *same)
{
    if (f->route != NULL && t->backend == f->source &&
        f->generation == adapters_generation) {
        return Py_NewRef(f->route); /* nothing it was read from has changed */
    }
    PyObject *target = PyDict_GetItemWithError(loaded_backends, f->table);
    PyObject *name, *routes;
    bool kept = false; /* name and routes are the ones f keeps */
    if (target != NULL && target == f->target && t->backend == f->source &&
        f->generation == adapters_generation) {
        name = Py_NewRef(f->source_name); /* (never f->table's: not cached) */
        routes = Py_NewRef(f->routes);
        kept = true;
    }
    else {
        Py_CLEAR(f->route);
        name = attribute(t->backend, str_name);
        if (name == NULL || !PyUnicode_CheckExact(name)) {
            PyErr_Clear();
            Py_XDECREF(name);
            return NULL;
        }
        if (same_str(name, f->table)) {
            Py_DECREF(name);
            *same = true;
            return Py_NewRef(t->native);
        }
        routes = target == NULL ? NULL : attribute(target, str_routes);
        if (routes == NULL) {
            Py_DECREF(name);
            return NULL;
        }
        /* Cached where every read above was of an adapter's own dict: nothing
         * else changes them without adapters_changed() hearing of it. */
        if (Py_TYPE(t->backend) == adapter_type && Py_TYPE(target) == adapter_type &&
            (PyDict_CheckExact(routes) || Py_TYPE(routes) == watched_type)) {
            Py_XSETREF(f->source, Py_NewRef(t->backend));
            Py_XSETREF(f->target, Py_NewRef(target));
            Py_XSETREF(f->routes, Py_NewRef(routes));
            Py_XSETREF(f->source_name, Py_NewRef(name));
            f->generation = adapters_generation;
            kept = true;
        }
    }
    PyObject *route =
        PyDict_Check(routes) ? PyDict_GetItemWithError(routes, name) : NULL;
    Py_XINCREF(route); /* the call may change ROUTES */
    if (route != NULL && kept && Py_TYPE(routes) == watched_type &&
        Py_TYPE(loaded_backends) == watched_type) {
        Py_XSETREF(f->route, Py_NewRef(route));
    }
    Py_DECREF(routes);
    Py_DECREF(name);
    return route;
}

/* t's memory as the `target` framework's array by that framework's own route
 * (its adapter's ROUTES[source](native), e.g. torch.from_numpy), cached in t's
 * Aliases as the Python path caches it; NULL without an error where the route
 * returned None. Steals the route. */
static PyObject *
framework_route(TensorObject *t, PyObject *route, PyObject *target)
{
    PyObject *call[2] = {NULL, t->native}; /* (the first a slot the route may use) */
    PyObject *view =
        PyObject_Vectorcall(route, call + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(route);
    if (view == NULL || view == Py_None) {
        Py_XDECREF(view);
        return NULL;
    }
    /* Made once, also under threads: the route ran Python code (another thread
     * may have cached a view meanwhile), but nothing below does until the view
     * is in the cache, so the first one cached is the one every caller gets. */
    if (no_aliases(t) && t->first_view == NULL) { /* kept in the Tensor itself */
        t->first_target = Py_NewRef(target);
        t->first_view = view;
        return Py_NewRef(view);
    }
    if (materialize(t) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    if (no_aliases(t)) {
        PyObject *fresh = new_aliases(&AliasesType, NULL);
        if (fresh == NULL) {
            Py_DECREF(view);
            return NULL;
        }
        if (no_aliases(t)) { /* (the allocation may have run the GC's finalizers) */
            Py_XSETREF(t->aliases, fresh);
        }
        else {
            Py_DECREF(fresh);
        }
    }
    PyObject *cached = NULL;
    if (Py_TYPE(t->aliases) == &AliasesType) {
        cached = PyDict_SetDefault(((AliasesObject *)t->aliases)->views, target, view);
    }
    Py_XINCREF(cached);
    Py_DECREF(view);
    return cached;
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
    PyObject *cached = cached_view(t, f->table);
    if (cached != NULL) {
        return Py_NewRef(cached);
    }
    if (!no_aliases(t) && Py_TYPE(t->aliases) == &AliasesType &&
        ((AliasesObject *)t->aliases)->ordered) {
        return call_slow(f, args, nargsf, kwnames);
    }
    bool same = false;
    PyObject *route = view_route(f, t, &same);
    if (same) {
        return route;
    }
    PyObject *view = route == NULL ? NULL : framework_route(t, route, f->table);
    if (view == NULL && (PyErr_Occurred() == NULL || retry_slowly())) {
        return call_slow(f, args, nargsf, kwnames);
    }
    return view;
}

static const vectorcallfunc FAST_CALLS[] = {
    [ASARRAY] = (vectorcallfunc)fast_asarray, [UNARY] = (vectorcallfunc)fast_unary,
    [BINARY] = (vectorcallfunc)fast_binary,   [VIEW] = (vectorcallfunc)fast_view,
    [GETITEM] = (vectorcallfunc)fast_getitem, [CALL] = (vectorcallfunc)fast_call,
};

static PyObject *
fastpath_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kind",     "slow",       "table",  "as_tensors",
                               "keywords", "scalars",    "finish", "max_positional",
                               "views",    "least_ndim", "copies", "named",
                               "integers", NULL};
    const char *kind_name;
    PyObject *slow, *table, *as_tensors = Py_None, *keyword_defaults = Py_None;
    PyObject *scalars = Py_None, *finish = Py_None, *views = Py_None, *copies = Py_None;
    PyObject *named = Py_None, *integers = Py_None;
    Py_ssize_t max_positional = 1, least_ndim = 0;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "sOO|$OOOOnOnOOO:FastPath", keywords, &kind_name, &slow,
            &table, &as_tensors, &keyword_defaults, &scalars, &finish, &max_positional,
            &views, &least_ndim, &copies, &named, &integers)) {
        return NULL;
    }
    int kind = 0;
    while (kind < N_FAST_KINDS && strcmp(FAST_KIND_NAMES[kind], kind_name) != 0) {
        kind++;
    }
    if (kind == N_FAST_KINDS) {
        return PyErr_Format(PyExc_ValueError,
                            "FastPath(): kind: expected 'asarray', 'unary', 'binary', "
                            "'view', 'getitem' or 'call', got '%s'",
                            kind_name);
    }
    if (!PyCallable_Check(slow)) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): slow: expected a callable, got %R", slow);
    }
    if (kind == VIEW ? !PyUnicode_CheckExact(table) : !PyDict_Check(table)) {
        return PyErr_Format(PyExc_TypeError, "FastPath(): table: expected %s, got %R",
                            kind == VIEW ? "a framework name (str)" : "a dict", table);
    }
    if (as_tensors != Py_None && !PyCallable_Check(as_tensors)) {
        return PyErr_Format(
            PyExc_TypeError,
            "FastPath(): as_tensors: expected None or a callable, got %R", as_tensors);
    }
    if (kind == CALL ? !PyDict_CheckExact(keyword_defaults)
                     : keyword_defaults != Py_None) {
        return PyErr_Format(
            PyExc_TypeError, "FastPath(): keywords: expected %s, got %R",
            kind == CALL ? "a dict of keyword defaults" : "None", keyword_defaults);
    }
    if (scalars != Py_None &&
        (kind != BINARY || !PyDict_CheckExact(scalars) || !PyCallable_Check(finish))) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): scalars: expected None, or for a binary path "
                            "a dict given with a callable finish, got %R",
                            scalars);
    }
    if (views != Py_None && (kind != GETITEM || !PyDict_CheckExact(views))) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): views: expected None, or for a getitem path "
                            "a dict, got %R",
                            views);
    }
    if (copies != Py_None && (kind != GETITEM || !PyDict_CheckExact(copies))) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): copies: expected None, or for a getitem path "
                            "a dict, got %R",
                            copies);
    }
    if (named != Py_None && (kind != CALL || !PyDict_CheckExact(named))) {
        return PyErr_Format(PyExc_TypeError,
                            "FastPath(): named: expected None, or for a call path a "
                            "dict of {name: position}, got %R",
                            named);
    }
    uint32_t integer_positions = 0, int_positions = 0, tuple_positions = 0;
    if (integers != Py_None) {
        PyObject *name, *spec;
        Py_ssize_t next = 0;
        bool bad = kind != CALL || !PyDict_CheckExact(integers);
        while (!bad && PyDict_Next(integers, &next, &name, &spec)) {
            bad = !PyUnicode_CheckExact(name) || !PyTuple_CheckExact(spec) ||
                  PyTuple_GET_SIZE(spec) != 3 ||
                  !PyLong_Check(PyTuple_GET_ITEM(spec, 0)) ||
                  !PyBool_Check(PyTuple_GET_ITEM(spec, 1)) ||
                  !PyBool_Check(PyTuple_GET_ITEM(spec, 2));
            Py_ssize_t position =
                bad ? -2 : PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 0));
            PyErr_Clear(); /* (an int too large: refused below) */
            bad = bad || position < -1 || position >= 32;
            if (!bad && position > 0) {
                uint32_t bit = (uint32_t)1 << position;
                integer_positions |= bit;
                int_positions |= PyTuple_GET_ITEM(spec, 1) == Py_True ? bit : 0;
                tuple_positions |= PyTuple_GET_ITEM(spec, 2) == Py_True ? bit : 0;
            }
        }
        if (bad) {
            return PyErr_Format(
                PyExc_TypeError,
                "FastPath(): integers: expected None, or for a call path "
                "a dict of {name: (position below 32 or -1, whether "
                "it takes an int, whether it takes a tuple)}, got %R",
                integers);
        }
    }
    if (max_positional < 1 || max_positional > MAX_CALL_ARGS) {
        return PyErr_Format(PyExc_ValueError,
                            "FastPath(): max_positional: expected 1 to %d, got %zd",
                            MAX_CALL_ARGS, max_positional);
    }
    if (least_ndim < 0 || (least_ndim > 0 && kind != CALL)) {
        return PyErr_Format(PyExc_ValueError,
                            "FastPath(): least_ndim: expected 0, or for a call path "
                            "a positive int, got %zd",
                            least_ndim);
    }
    FastPath *f = (FastPath *)type->tp_alloc(type, 0);
    if (f == NULL) {
        return NULL;
    }
    f->kind = (FastKind)kind;
    f->least_ndim = least_ndim;
    f->slow = Py_NewRef(slow);
    f->table = Py_NewRef(table);
    f->as_tensors = as_tensors == Py_None ? NULL : Py_NewRef(as_tensors);
    f->keywords = keyword_defaults == Py_None ? NULL : Py_NewRef(keyword_defaults);
    f->max_positional = max_positional;
    f->named = named == Py_None ? NULL : Py_NewRef(named);
    f->integers = integers == Py_None ? NULL : Py_NewRef(integers);
    f->integer_positions = integer_positions;
    f->int_positions = int_positions;
    f->tuple_positions = tuple_positions;
    f->scalars = scalars == Py_None ? NULL : Py_NewRef(scalars);
    f->finish = scalars == Py_None ? NULL : Py_NewRef(finish);
    f->views = views == Py_None ? NULL : Py_NewRef(views);
    f->copies = copies == Py_None ? NULL : Py_NewRef(copies);
    f->vectorcall = FAST_CALLS[kind];
    return (PyObject *)f;
}

static int
fastpath_traverse(FastPath *f, visitproc visit, void *arg)
{
    Py_VISIT(f->slow);
    Py_VISIT(f->table);
    Py_VISIT(f->as_tensors);
    Py_VISIT(f->keywords);
    Py_VISIT(f->named);
    Py_VISIT(f->integers);
    Py_VISIT(f->scalars);
    Py_VISIT(f->finish);
    Py_VISIT(f->views);
    Py_VISIT(f->copies);
    Py_VISIT(f->source);
    Py_VISIT(f->source_name);
    Py_VISIT(f->target);
    Py_VISIT(f->routes);
    Py_VISIT(f->route);
    Py_VISIT(f->seen_type);
    Py_VISIT(f->seen);
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
    Py_CLEAR(f->as_tensors);
    Py_CLEAR(f->keywords);
    Py_CLEAR(f->named);
    Py_CLEAR(f->integers);
    Py_CLEAR(f->scalars);
    Py_CLEAR(f->finish);
    Py_CLEAR(f->views);
    Py_CLEAR(f->copies);
    Py_CLEAR(f->source);
    Py_CLEAR(f->source_name);
    Py_CLEAR(f->target);
    Py_CLEAR(f->routes);
    Py_CLEAR(f->route);
    Py_CLEAR(f->seen_type);
    Py_CLEAR(f->seen);
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
    PyObject *name =
        f->dict == NULL ? NULL : PyDict_GetItemString(f->dict, "__qualname__");
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
get_scalars(FastPath *f, void *Py_UNUSED(closure))
{
    return Py_NewRef(f->scalars ? f->scalars : Py_None);
}

static PyObject *
get_views(FastPath *f, void *Py_UNUSED(closure))
{
    return Py_NewRef(f->views ? f->views : Py_None);
}

static PyObject *
get_copies(FastPath *f, void *Py_UNUSED(closure))
{
    return Py_NewRef(f->copies ? f->copies : Py_None);
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
    {"scalars", (getter)get_scalars, NULL,
     "BINARY: what it reads for a Tensor and a Python scalar, or None.", NULL},
    {"views", (getter)get_views, NULL,
     "GETITEM: what it reads to take a view of an immutable owner's base, or None.",
     NULL},
    {"copies", (getter)get_copies, NULL,
     "GETITEM: what copies a scalar read that an owner makes a view, or None.", NULL},
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
        !PyDict_Check(args[1]) || !PyType_Check(args[2])) {
        return PyErr_Format(
            PyExc_TypeError,
            "configure(): expected (a TensorBase subclass, a dict, the adapters' "
            "class), got %zd arguments",
            nargs);
    }
    PyTypeObject *adapters = (PyTypeObject *)args[2];
    PyObject *const names[] = {str_name, str_routes, str_autodiff, str_autodiff_state};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (_PyType_Lookup(adapters, names[i]) != NULL) {
            return PyErr_Format(PyExc_ValueError,
                                "configure(): the adapters' class %R defines %R: "
                                "an adapter's own value must be read",
                                adapters, names[i]);
        }
    }
    if (adapters->tp_getattro != PyObject_GenericGetAttr) {
        return PyErr_Format(PyExc_ValueError,
                            "configure(): the adapters' class %R reads attributes "
                            "its own way",
                            adapters);
    }
    if ((PyObject *)tensor_type != args[0]) { /* the spare ones are the old class's */
        while (n_spare_tensors > 0) {
            PyObject_GC_Del(spare_tensors[--n_spare_tensors]);
        }
    }
    Py_XSETREF(tensor_type, (PyTypeObject *)Py_NewRef(args[0]));
    if (tensor_type->tp_getattr == NULL) { /* (a class statement leaves it out) */
        tensor_type->tp_getattr = tensor_getattr;
        PyType_Modified(tensor_type);
    }
    if (tensor_type->tp_base == &TensorBaseType &&
        (tensor_type->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
        tensor_type->tp_basicsize == TensorBaseType.tp_basicsize &&
        tensor_type->tp_itemsize == 0 && tensor_type->tp_dictoffset == 0 &&
        tensor_type->tp_weaklistoffset == TensorBaseType.tp_weaklistoffset &&
        tensor_type->tp_finalize == NULL && tensor_type->tp_del == NULL) {
        tensor_type->tp_dealloc = (destructor)tensor_subclass_dealloc;
    }
    Py_XSETREF(loaded_backends, Py_NewRef(args[1]));
    Py_XSETREF(watched_type, PyDict_CheckExact(args[1])
                                 ? NULL
                                 : (PyTypeObject *)Py_NewRef(Py_TYPE(args[1])));
    Py_XSETREF(adapter_type, (PyTypeObject *)Py_NewRef(adapters));
    adapters_generation++;
    Py_RETURN_NONE;
}

static PyObject *
adapters_changed(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    adapters_generation++;
    Py_RETURN_NONE;
}

static PyObject *
set_refresh(PyObject *module, PyObject *hook)
{
    if (!PyCallable_Check(hook)) {
        return PyErr_Format(PyExc_TypeError,
                            "set_refresh(): hook: expected a callable, got %R", hook);
    }
    Py_XSETREF(refresh_view, Py_NewRef(hook));
    Py_RETURN_NONE;
}

/* ------------------------------------------------ kinds of two Tensors --- */

/* ranks[(backend, native dtype)] of a Tensor with an array, borrowed, or NULL
 * (no error) where the pair is not there (yet) or cannot be read. */
static PyObject *
known_rank(PyObject *obj, PyObject *ranks)
{
    if (!PyObject_TypeCheck(obj, &TensorBaseType)) {
        return NULL;
    }
    TensorObject *t = (TensorObject *)obj;
    /* (a view's array may be stale: never its dtype, which a write keeps) */
    if (t->backend == NULL || t->native == NULL) {
        return NULL;
    }
    PyObject *dtype = native_dtype(t);
    PyObject *key = dtype == NULL ? NULL : PyTuple_Pack(2, t->backend, dtype);
    if (key == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *rank = PyDict_GetItemWithError(ranks, key);
    Py_DECREF(key);
    if (rank == NULL) {
        PyErr_Clear(); /* an unhashable dtype: Python's _rank decides */
    }
    return rank;
}

/* same_kind(x1, x2, ranks): whether two Tensors' dtypes are of one kind, read
 * from ranks ({(backend, native dtype): rank}, unitensor/_dispatch.py's
 * _NATIVE_RANK) with each Tensor's cached dtype object; None where either is
 * not there, for Python to read. Mixed owners' x1, x2 ask it on every call. */
static PyObject *
same_kind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyDict_CheckExact(args[2])) {
        return PyErr_Format(PyExc_TypeError,
                            "same_kind(): expected (x1, x2, a dict of ranks), got "
                            "%zd arguments",
                            nargs);
    }
    PyObject *r1 = known_rank(args[0], args[2]);
    PyObject *r2 = r1 == NULL ? NULL : known_rank(args[1], args[2]);
    if (r2 == NULL) {
        Py_RETURN_NONE;
    }
    int equal = PyObject_RichCompareBool(r1, r2, Py_EQ);
    if (equal < 0) {
        return NULL;
    }
    return PyBool_FromLong(equal);
}

/* --------------------------------------------- torch's __torch_function__ --- */

/* Set by set_torch_function() (unitensor/_native.py): the Python hook, its table
 * of what each torch function does (func -> 0 for a function that only reads),
 * and Tensor.torch (the VIEW FastPath giving a Tensor's cached torch view). */
static PyObject *torch_hook = NULL, *torch_kinds = NULL, *torch_view = NULL;
#define MAX_TORCH_ARGS 8

/* Tensor.__torch_function__(func, types, args=(), kwargs=None): for a torch
 * function that only reads, called with positional arguments (no keyword
 * arguments, no lists of Tensors), func on each Tensor's torch view, as the
 * Python hook (_native.torch_function) computes it; anything else is the Python
 * hook's. torch's own dispatch to a hook costs most of torch.sin(t)'s overhead;
 * this saves the Python hook's frame and its look-ups (docs/interop.md). */
static PyObject *
torch_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (torch_hook == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "torch_function(): set_torch_function() was not called");
        return NULL;
    }
    PyObject *fargs = nargs > 2 ? args[2] : NULL, *fkwargs = nargs > 3 ? args[3] : NULL;
    if (nargs < 3 || nargs > 4 || !PyTuple_CheckExact(fargs) ||
        PyTuple_GET_SIZE(fargs) > MAX_TORCH_ARGS ||
        (fkwargs != NULL && fkwargs != Py_None &&
         !(PyDict_CheckExact(fkwargs) && PyDict_GET_SIZE(fkwargs) == 0))) {
        return PyObject_Vectorcall(torch_hook, args, nargs, NULL);
    }
    PyObject *func = args[0];
    PyObject *kind = PyDict_GetItemWithError(torch_kinds, func);
    if (kind != zero) { /* not known to only read (or unhashable): Python's */
        PyErr_Clear();
        return PyObject_Vectorcall(torch_hook, args, nargs, NULL);
    }
    Py_ssize_t n = PyTuple_GET_SIZE(fargs);
    PyObject *call_args[MAX_TORCH_ARGS];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(fargs, i);
        if (Py_TYPE(a) == tensor_type) {
            call_args[i] = PyObject_Vectorcall(torch_view, &a, 1, NULL);
        }
        else if (PyList_Check(a) || PyTuple_Check(a) ||
                 PyObject_TypeCheck(a, &TensorBaseType)) {
            call_args[i] = NULL; /* Tensors inside, or a subclass: Python's */
        }
        else {
            call_args[i] = Py_NewRef(a);
        }
        if (call_args[i] == NULL) {
            for (Py_ssize_t j = 0; j < i; j++) {
                Py_DECREF(call_args[j]);
            }
            return PyErr_Occurred()
                       ? NULL
                       : PyObject_Vectorcall(torch_hook, args, nargs, NULL);
        }
    }
    PyObject *result = PyObject_Vectorcall(func, call_args, n, NULL);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_DECREF(call_args[i]);
    }
    return result;
}

static PyObject *
set_torch_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyCallable_Check(args[0]) || !PyDict_CheckExact(args[1]) ||
        !PyCallable_Check(args[2])) {
        return PyErr_Format(PyExc_TypeError,
                            "set_torch_function(): expected (the Python hook, its "
                            "dict of kinds, Tensor.torch), got %zd arguments",
                            nargs);
    }
    Py_XSETREF(torch_hook, Py_NewRef(args[0]));
    Py_XSETREF(torch_kinds, Py_NewRef(args[1]));
    Py_XSETREF(torch_view, Py_NewRef(args[2]));
    Py_RETURN_NONE;
}

static PyObject *
enter_owner(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    owner_blocks_open++;
    Py_RETURN_NONE;
}

static PyObject *
leave_owner(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    if (owner_blocks_open == 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "leave_owner(): no owner() block is open (each leave_owner() "
                        "must follow its enter_owner())");
        return NULL;
    }
    owner_blocks_open--;
    Py_RETURN_NONE;
}

static PyObject *
owner_blocks(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSsize_t(owner_blocks_open);
}

static PyObject *
make_tensor(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        return PyErr_Format(PyExc_TypeError,
                            "make_tensor(): expected (backend, native[, aliases]), got "
                            "%zd arguments",
                            nargs);
    }
    return new_tensor(args[0], args[1], nargs == 3 ? args[2] : NULL);
}

/* ------------------------------------------------------------ operators --- */

/* Tensor's operators, comparisons and x[key] are namespace functions (FastPaths:
 * x * y is multiply(x, y)). Tensor's dict holds small Python functions for them
 * (unitensor/_operators.py), which a tracer of Python bytecode (torch.compile's
 * Dynamo) can follow and which CPython would call through its generic slot_*
 * wrappers. show_operators() then points Tensor's C slots straight at the
 * FastPaths, so that eager code skips the Python function:
 *   - a binary slot is called for x * y and for y * x alike, with the operands
 *     in the written order, and the reflected method is the same call
 *     (y.__rmul__(x) is multiply(x, y)): one call, the operands as given;
 *   - tp_richcompare is called with the operation swapped for a reflected
 *     comparison (y > x for x < y), which is the method's own call;
 *   - nb_power with a modulus is not supported (NotImplemented: TypeError).
 * The references below are taken once and never dropped (the module is never
 * unloaded). Setting one of these names on Tensor later puts back CPython's
 * generic slot for it, which calls the Python function: still correct. */

enum {
    OP_ADD,
    OP_SUBTRACT,
    OP_MULTIPLY,
    OP_TRUE_DIVIDE,
    OP_FLOOR_DIVIDE,
    OP_REMAINDER,
    OP_POWER,
    OP_MATMUL,
    OP_AND,
    OP_OR,
    OP_XOR,
    OP_LSHIFT,
    OP_RSHIFT,
    OP_NEGATIVE,
    OP_POSITIVE,
    OP_ABSOLUTE,
    OP_INVERT,
    OP_GETITEM,
    OP_LT,
    OP_LE,
    OP_EQ,
    OP_NE,
    OP_GT,
    OP_GE, /* Py_LT ... Py_GE, in that order */
    N_OPERATORS
};

static const char *const OPERATOR_NAMES[N_OPERATORS] = {
    "__add__",    "__sub__",    "__mul__", "__truediv__", "__floordiv__", "__mod__",
    "__pow__",    "__matmul__", "__and__", "__or__",      "__xor__",      "__lshift__",
    "__rshift__", "__neg__",    "__pos__", "__abs__",     "__invert__",   "__getitem__",
    "__lt__",     "__le__",     "__eq__",  "__ne__",      "__gt__",       "__ge__",
};

static PyObject *operators[N_OPERATORS]; /* the FastPath of each, or NULL */

static inline PyObject *
call_operator(int op, PyObject *a, PyObject *b)
{
    PyObject *args[2] = {a, b};
    return PyObject_Vectorcall(operators[op], args, b == NULL ? 1 : 2, NULL);
}

#define BINARY_SLOT(slot, op)                                                          \
    static PyObject *slot(PyObject *a, PyObject *b)                                    \
    {                                                                                  \
        return call_operator(op, a, b);                                                \
    }
#define UNARY_SLOT(slot, op)                                                           \
    static PyObject *slot(PyObject *a)                                                 \
    {                                                                                  \
        return call_operator(op, a, NULL);                                             \
    }

BINARY_SLOT(op_add, OP_ADD)
BINARY_SLOT(op_subtract, OP_SUBTRACT)
BINARY_SLOT(op_multiply, OP_MULTIPLY)
BINARY_SLOT(op_true_divide, OP_TRUE_DIVIDE)
BINARY_SLOT(op_floor_divide, OP_FLOOR_DIVIDE)
BINARY_SLOT(op_remainder, OP_REMAINDER)
BINARY_SLOT(op_matmul, OP_MATMUL)
BINARY_SLOT(op_and, OP_AND)
BINARY_SLOT(op_or, OP_OR)
BINARY_SLOT(op_xor, OP_XOR)
BINARY_SLOT(op_lshift, OP_LSHIFT)
BINARY_SLOT(op_rshift, OP_RSHIFT)
BINARY_SLOT(op_getitem, OP_GETITEM)
UNARY_SLOT(op_negative, OP_NEGATIVE)
UNARY_SLOT(op_positive, OP_POSITIVE)
UNARY_SLOT(op_absolute, OP_ABSOLUTE)
UNARY_SLOT(op_invert, OP_INVERT)

static PyObject *
op_power(PyObject *a, PyObject *b, PyObject *modulus)
{
    if (modulus != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return call_operator(OP_POWER, a, b);
}

static PyObject *
op_richcompare(PyObject *a, PyObject *b, int op)
{
    return call_operator(OP_LT + op, a, b);
}

/* show_operators(Tensor, {dunder: FastPath}): every name of OPERATOR_NAMES,
 * already set on Tensor as a Python function; Tensor's slots then call the
 * FastPaths directly. */
static PyObject *
show_operators(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || tensor_type == NULL || args[0] != (PyObject *)tensor_type ||
        !PyDict_CheckExact(args[1])) {
        return PyErr_Format(PyExc_TypeError,
                            "show_operators(): expected (the configured Tensor type, "
                            "a dict), got %zd arguments",
                            nargs);
    }
    PyObject *found[N_OPERATORS];
    for (int i = 0; i < N_OPERATORS; i++) {
        found[i] = PyDict_GetItemString(args[1], OPERATOR_NAMES[i]);
        if (found[i] == NULL || !PyObject_TypeCheck(found[i], &FastPathType)) {
            return PyErr_Format(PyExc_TypeError,
                                "show_operators(): operators: expected a FastPath for "
                                "%s, got %.100s",
                                OPERATOR_NAMES[i],
                                found[i] == NULL ? "nothing"
                                                 : Py_TYPE(found[i])->tp_name);
        }
    }
    for (int i = 0; i < N_OPERATORS; i++) {
        Py_XSETREF(operators[i], Py_NewRef(found[i]));
    }
    PyTypeObject *t = tensor_type;
    PyNumberMethods *nb = t->tp_as_number;
    nb->nb_add = op_add;
    nb->nb_subtract = op_subtract;
    nb->nb_multiply = op_multiply;
    nb->nb_true_divide = op_true_divide;
    nb->nb_floor_divide = op_floor_divide;
    nb->nb_remainder = op_remainder;
    nb->nb_power = op_power;
    nb->nb_matrix_multiply = op_matmul;
    nb->nb_and = op_and;
    nb->nb_or = op_or;
    nb->nb_xor = op_xor;
    nb->nb_lshift = op_lshift;
    nb->nb_rshift = op_rshift;
    nb->nb_negative = op_negative;
    nb->nb_positive = op_positive;
    nb->nb_absolute = op_absolute;
    nb->nb_invert = op_invert;
    t->tp_as_mapping->mp_subscript = op_getitem;
    t->tp_richcompare = op_richcompare;
    PyType_Modified(t);
    Py_RETURN_NONE;
}

/* show_get(func): put the Python function `func` in FastPath's type dict as
 * __get__, where a tracer of Python bytecode (torch.compile's Dynamo) reads how
 * a FastPath binds as a method: unitensor/_backends/torch/compile.py gives it
 * fastpath_get's behaviour in Python. The C slot (tp_descr_get) stays
 * fastpath_get: CPython binds through the slot, so eager calls are unchanged. */
static PyObject *
show_get(PyObject *module, PyObject *func)
{
    if (!PyFunction_Check(func)) {
        PyErr_Format(PyExc_TypeError,
                     "show_get(): func: expected a Python function, "
                     "got %.100s",
                     Py_TYPE(func)->tp_name);
        return NULL;
    }
    if (PyDict_SetItemString(FastPathType.tp_dict, "__get__", func) < 0) {
        return NULL;
    }
    PyType_Modified(&FastPathType);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"show_operators", (PyCFunction)(void (*)(void))show_operators, METH_FASTCALL,
     "show_operators(Tensor, operators)\nPoint Tensor's operator, comparison and "
     "subscript slots at the FastPaths of `operators` (dunder name -> FastPath); the "
     "Python functions of those names stay in Tensor's dict for tracers."},
    {"show_get", show_get, METH_O,
     "show_get(func)\nShow func as FastPath.__get__ to Python-level tracers; "
     "CPython still binds through the C slot."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(Tensor, loaded, adapter_type)\nRegister unitensor.Tensor, the "
     "loaded adapters (framework name -> adapter; a dict of a subclass that tells "
     "of its changes, whose class the fast paths then trust) and their class."},
    {"adapters_changed", adapters_changed, METH_NOARGS,
     "adapters_changed()\nSay that an adapter's attribute was set or deleted: "
     "the view fast paths read their routes afresh."},
    {"set_refresh", set_refresh, METH_O,
     "set_refresh(hook)\nhook(tensor), called before a view's _native is read "
     "(a Tensor whose _view is set), brings it up to its base."},
    {"same_kind", (PyCFunction)(void (*)(void))same_kind, METH_FASTCALL,
     "same_kind(x1, x2, ranks)\nWhether two Tensors' dtypes are of one kind by "
     "ranks[(backend, native dtype)], or None where either pair is not in it."},
    {"set_unfold", set_unfold, METH_O,
     "set_unfold(hook)\nhook(link) sets the steps and layout of a Link taken in "
     "C, from its key, when first read."},
    {"torch_function", (PyCFunction)(void (*)(void))torch_function, METH_FASTCALL,
     "torch_function(func, types, args=(), kwargs=None)\nTensor's "
     "__torch_function__ (a plain function, no classmethod): a reading torch "
     "function of positional arguments on "
     "each Tensor's torch view, in C; the rest through the Python hook."},
    {"set_torch_function", (PyCFunction)(void (*)(void))set_torch_function,
     METH_FASTCALL,
     "set_torch_function(hook, kinds, torch_view)\nThe Python hook, its "
     "{func: kind} table (0: only reads) and Tensor.torch, for torch_function."},
    {"enter_owner", enter_owner, METH_NOARGS,
     "enter_owner()\nCount one more open owner() block: the fast paths step aside."},
    {"leave_owner", leave_owner, METH_NOARGS,
     "leave_owner()\nCount one owner() block less (RuntimeError if none is open)."},
    {"owner_blocks", owner_blocks, METH_NOARGS,
     "owner_blocks()\nHow many owner() blocks are open, in all threads together."},
    {"make_tensor", (PyCFunction)(void (*)(void))make_tensor, METH_FASTCALL,
     "make_tensor(backend, native, aliases=None)\nA Tensor, without any checks."},
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
    TensorBaseType.tp_new = PyBaseObject_Type.tp_new; /* see tensor_init */
    if (PyType_Ready(&TensorBaseType) < 0 || PyType_Ready(&FastPathType) < 0 ||
        PyType_Ready(&AliasesType) < 0 || PyType_Ready(&EntryType) < 0 ||
        PyType_Ready(&TypeEntryType) < 0 || PyType_Ready(&BaseType) < 0 ||
        PyType_Ready(&LinkType) < 0) {
        return NULL;
    }
    zero = PyLong_FromLong(0);
    str_dtype = PyUnicode_InternFromString("dtype");
    str_name = PyUnicode_InternFromString("NAME");
    str_routes = PyUnicode_InternFromString("ROUTES");
    str_result = PyUnicode_InternFromString("result");
    str_autodiff = PyUnicode_InternFromString("AUTODIFF");
    str_autodiff_state = PyUnicode_InternFromString("autodiff_state");
    str_device = PyUnicode_InternFromString("device");
    str_torch_function = PyUnicode_InternFromString("__torch_function__");
    str_ndim = PyUnicode_InternFromString("ndim");
    if (zero == NULL || str_dtype == NULL || str_name == NULL || str_routes == NULL ||
        str_result == NULL || str_autodiff == NULL || str_autodiff_state == NULL ||
        str_device == NULL || str_torch_function == NULL || str_ndim == NULL) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL ||
        PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&TensorBaseType) < 0 ||
        PyModule_AddObjectRef(m, "FastPath", (PyObject *)&FastPathType) < 0 ||
        PyModule_AddObjectRef(m, "Aliases", (PyObject *)&AliasesType) < 0 ||
        PyModule_AddObjectRef(m, "Entry", (PyObject *)&EntryType) < 0 ||
        PyModule_AddObjectRef(m, "TypeEntry", (PyObject *)&TypeEntryType) < 0 ||
        PyModule_AddObjectRef(m, "Base", (PyObject *)&BaseType) < 0 ||
        PyModule_AddObjectRef(m, "Link", (PyObject *)&LinkType) < 0 ||
        PyModule_AddIntConstant(m, "MAX_CALL_ARGS", MAX_CALL_ARGS) < 0 ||
        PyModule_AddIntConstant(m, "HELD_BY_ALL", HELD_BY_ALL) < 0) {
        Py_XDECREF(m);
        return NULL;
    }
    PyObject *capsule =
        PyCapsule_New((void *)&tensor_buffer_api, TENSOR_BUFFER_CAPSULE, NULL);
    if (capsule == NULL || PyModule_AddObjectRef(m, "_tensor_buffer", capsule) < 0) {
        Py_XDECREF(capsule);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(capsule);
    return m;
}
