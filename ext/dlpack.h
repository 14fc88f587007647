/* The DLPack ABI (v1.1, and the 1.3 C exchange API), written from the specification for
 * unitensor.
 *
 * Only what unitensor produces and consumes is declared. Field order and types
 * are the ABI: do not reorder. https://dmlc.github.io/dlpack/latest/c_api.html
 */
#ifndef UNITENSOR_DLPACK_H
#define UNITENSOR_DLPACK_H

#include <stdint.h>

#define UT_DLPACK_MAJOR 1
#define UT_DLPACK_MINOR 1
/* The version of the C exchange API table unitensor publishes (its managed
 * tensors stay 1.1: nothing they carry is newer). */
#define UT_EXCHANGE_MINOR 3

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
    /* DLPack 1.1's low-precision floats (ml_dtypes' names). The 8-bit ones are
     * one byte an element; the float6/float4 ones are sub-byte (see
     * DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED). */
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17,
} DLDataTypeCode;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means compact row-major */
    uint64_t byte_offset;
} DLTensor;

/* Legacy (pre-1.0) managed tensor: capsule name "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* DLManagedTensorVersioned.flags */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

/* Versioned managed tensor (DLPack >= 1.0): capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* The C exchange API (DLPack 1.3): a table of C functions a framework publishes
 * as `type(x).__dlpack_c_exchange_api__`, a capsule named "dlpack_exchange_api",
 * so that a consumer in C exchanges tensors without Python-level __dlpack__ calls.
 * Every function returns 0 on success, -1 with a Python exception set. */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api; /* an older table, or NULL */
} DLPackExchangeAPIHeader;

typedef struct {
    DLPackExchangeAPIHeader header;
    /* A new tensor of the producer shaped like `prototype` (its dtype, ndim,
     * shape and device); on failure it calls set_error(error_ctx, the error's
     * kind, its message) and returns -1. */
    int (*managed_tensor_allocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                    void *error_ctx,
                                    void (*set_error)(void *error_ctx, const char *kind,
                                                      const char *message));
    /* The framework's array `py_object` as a new owning managed tensor. */
    int (*managed_tensor_from_py_object_no_sync)(void *py_object,
                                                 DLManagedTensorVersioned **out);
    /* A framework array taking ownership of `tensor`. */
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *tensor,
                                               void **out_py_object);
    /* A non-owning DLTensor view of `py_object`, valid until control returns. */
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(DLDeviceType device_type, int32_t device_id,
                               void **out_current_stream);
} DLPackExchangeAPI;

#define UT_EXCHANGE_API_CAPSULE "dlpack_exchange_api"

#endif /* UNITENSOR_DLPACK_H */
