/* The part of XLA's FFI C ABI that ext/_xla.c uses, declared in the project's own
 * words (no copy of XLA's header: building unitensor needs neither jax nor jaxlib).
 *
 * It follows API version 0.1 of the XLA FFI C ABI, a stable, versioned ABI: every
 * struct starts with its size (`size`), fields are only ever appended, and a handler
 * says which API version it was built against when XLA asks (the metadata query).
 * The API versions of jaxlib 0.10.2 (0.3) and jaxlib 0.12 (0.5) lay out every struct
 * below the same way and accept a handler that reports 0.1 (tests/wrap/test_wrap_xla.py
 * checks the layout against the installed jaxlib through jax itself); the fields
 * they add (an execution future, a RECORD stage, more API functions) lie past what
 * unitensor reads. Only what the handler reads or writes is declared here; other
 * members are left out where they follow the last one read, or kept as opaque
 * pointers of the same size where they come before.
 */
#ifndef UNITENSOR_XLA_FFI_H
#define UNITENSOR_XLA_FFI_H

#include <stddef.h>
#include <stdint.h>

/* The API version the handler reports (XLA refuses a handler newer than itself). */
#define UT_XLA_API_MAJOR 0
#define UT_XLA_API_MINOR 1

/* The size of a struct up to and including its member `last`: what a struct's
 * `size` field holds, and the least a producer's `size` may say for us to read it. */
#define UT_XLA_SIZE_TO(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* absl's status codes, which XLA's errors carry (and JAX's message starts with). */
typedef enum {
    UT_XLA_UNKNOWN = 2,
    UT_XLA_INVALID_ARGUMENT = 3,
    UT_XLA_FAILED_PRECONDITION = 9,
    UT_XLA_OUT_OF_RANGE = 11,
    UT_XLA_UNIMPLEMENTED = 12,
    UT_XLA_INTERNAL = 13,
} UtXlaErrorCode;

/* xla::PrimitiveType's numbers for the element types a bridge holds. */
typedef enum {
    UT_XLA_PRED = 1,
    UT_XLA_S8 = 2,
    UT_XLA_S16 = 3,
    UT_XLA_S32 = 4,
    UT_XLA_S64 = 5,
    UT_XLA_U8 = 6,
    UT_XLA_U16 = 7,
    UT_XLA_U32 = 8,
    UT_XLA_U64 = 9,
    UT_XLA_F16 = 10,
    UT_XLA_F32 = 11,
    UT_XLA_F64 = 12,
    UT_XLA_C64 = 15,
    UT_XLA_BF16 = 16,
    UT_XLA_C128 = 18,
} UtXlaElementType;

/* A call's stages; the handler works in the last one only. */
enum { UT_XLA_STAGE_EXECUTE = 3 };
/* The kinds of arguments, results and attributes the handler accepts. */
enum { UT_XLA_KIND_BUFFER = 1 };
enum { UT_XLA_ATTR_SCALAR = 3 };
/* The extension XLA chains onto a call frame to ask for the handler's metadata. */
enum { UT_XLA_EXTENSION_METADATA = 1 };

typedef struct UtXlaExtension {
    size_t size;
    int kind; /* UT_XLA_EXTENSION_* */
    struct UtXlaExtension *next;
} UtXlaExtension;

typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    int major; /* written by the handler */
    int minor;
} UtXlaApiVersion;

typedef struct {
    size_t size;
    UtXlaApiVersion api_version;
    uint32_t traits; /* none: the handler runs on the host, never in a command buffer */
} UtXlaMetadata;

typedef struct {
    UtXlaExtension base;
    UtXlaMetadata *metadata;
} UtXlaMetadataQuery;

typedef struct UtXlaError UtXlaError; /* opaque: XLA makes and frees it */

typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    const char *message; /* copied by XLA */
    int code;            /* UtXlaErrorCode */
} UtXlaErrorArgs;

/* XLA's table of functions; the handler calls only the first, which makes an error.
 * (The members between are the table's size, its extensions, its version and a
 * pointer for XLA's own use.) */
typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    UtXlaApiVersion version;
    const void *internal;
    UtXlaError *(*make_error)(UtXlaErrorArgs *args);
} UtXlaApi;

/* One array XLA lends for the call: compact row-major, its shape `dims`. */
typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    int element_type; /* UtXlaElementType */
    void *data;
    int64_t rank;
    int64_t *dims;
} UtXlaBuffer;

/* The arguments or the results: `items[i]` is a UtXlaBuffer where `kinds[i]` says
 * UT_XLA_KIND_BUFFER. */
typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    int64_t count;
    int *kinds;
    void **items;
} UtXlaList;

typedef struct {
    const char *text; /* not NUL-terminated */
    size_t length;
} UtXlaName;

typedef struct {
    int element_type;
    void *value;
} UtXlaScalar;

/* The call site's attributes, sorted by name. */
typedef struct {
    size_t size;
    UtXlaExtension *extensions;
    int64_t count;
    int *kinds; /* UT_XLA_ATTR_* */
    UtXlaName **names;
    void **values; /* a UtXlaScalar where the kind says UT_XLA_ATTR_SCALAR */
} UtXlaAttributes;

typedef struct {
    size_t size;
    UtXlaExtension *extensions; /* a UtXlaMetadataQuery when XLA asks for metadata */
    const UtXlaApi *api;
    void *context;
    int stage;
    UtXlaList args;
    UtXlaList results;
    UtXlaAttributes attributes;
} UtXlaCallFrame;

typedef UtXlaError *UtXlaHandler(UtXlaCallFrame *frame);

#endif /* UNITENSOR_XLA_FFI_H */
