/* HSA images and samplers extension, rewritten for hipmem.
 *
 * Declares what ROCr's hsa_ext_image.h declares (ROCm/rocm-systems
 * projects/rocr-runtime/runtime/hsa-runtime/inc/hsa_ext_image.h, 2025), with upstream's names,
 * values, layouts and signatures. hipmem does not model images or samplers: every function here
 * answers HSA_STATUS_ERROR_NOT_SUPPORTED (hsa_unsupported.cc), and no agent advertises
 * HSA_EXTENSION_IMAGES. Plain C.
 */
#ifndef HSA_EXT_IMAGE_H
#define HSA_EXT_IMAGE_H

#include "hsa.h"

/* Upstream redefines HSA_API here (for the image library's own build) and leaves it redefined. */
#undef HSA_API
#ifdef HSA_EXPORT_IMAGES
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Extra hsa_status_t values (an unnamed enum upstream too; C++ callers cast). */
enum {
  HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED = 0x3000,
  HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED = 0x3001,
  HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED = 0x3002,
  HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED = 0x3003
};

/* Extra hsa_agent_info_t attributes: image limits. */
enum {
  HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS = 0x3000,         /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_1DA_MAX_ELEMENTS = 0x3001,        /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS = 0x3002,        /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS = 0x3003,         /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DA_MAX_ELEMENTS = 0x3004,        /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DDEPTH_MAX_ELEMENTS = 0x3005,    /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DADEPTH_MAX_ELEMENTS = 0x3006,   /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS = 0x3007,         /* size_t[3] */
  HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS = 0x3008,        /* size_t */
  HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES = 0x3009,          /* size_t */
  HSA_EXT_AGENT_INFO_MAX_IMAGE_RORW_HANDLES = 0x300A,        /* size_t */
  HSA_EXT_AGENT_INFO_MAX_SAMPLER_HANDLERS = 0x300B,          /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT = 0x300C /* size_t */
};

/* Image handle, unique within one agent. */
typedef struct hsa_ext_image_s {
  uint64_t handle;
} hsa_ext_image_t;

typedef enum {
  HSA_EXT_IMAGE_GEOMETRY_1D = 0,
  HSA_EXT_IMAGE_GEOMETRY_2D = 1,
  HSA_EXT_IMAGE_GEOMETRY_3D = 2,
  HSA_EXT_IMAGE_GEOMETRY_1DA = 3,
  HSA_EXT_IMAGE_GEOMETRY_2DA = 4,
  HSA_EXT_IMAGE_GEOMETRY_1DB = 5,
  HSA_EXT_IMAGE_GEOMETRY_2DDEPTH = 6,
  HSA_EXT_IMAGE_GEOMETRY_2DADEPTH = 7
} hsa_ext_image_geometry_t;

typedef enum {
  HSA_EXT_IMAGE_CHANNEL_TYPE_SNORM_INT8 = 0,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SNORM_INT16 = 1,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8 = 2,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT16 = 3,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT24 = 4,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_555 = 5,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_565 = 6,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_101010 = 7,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT8 = 8,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT16 = 9,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT32 = 10,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT8 = 11,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT16 = 12,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT32 = 13,
  HSA_EXT_IMAGE_CHANNEL_TYPE_HALF_FLOAT = 14,
  HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT = 15
} hsa_ext_image_channel_type_t;

typedef uint32_t hsa_ext_image_channel_type32_t;

typedef enum {
  HSA_EXT_IMAGE_CHANNEL_ORDER_A = 0,
  HSA_EXT_IMAGE_CHANNEL_ORDER_R = 1,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RX = 2,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RG = 3,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGX = 4,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RA = 5,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGB = 6,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGBX = 7,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA = 8,
  HSA_EXT_IMAGE_CHANNEL_ORDER_BGRA = 9,
  HSA_EXT_IMAGE_CHANNEL_ORDER_ARGB = 10,
  HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR = 11,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGB = 12,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBX = 13,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBA = 14,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SBGRA = 15,
  HSA_EXT_IMAGE_CHANNEL_ORDER_INTENSITY = 16,
  HSA_EXT_IMAGE_CHANNEL_ORDER_LUMINANCE = 17,
  HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH = 18,
  HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH_STENCIL = 19
} hsa_ext_image_channel_order_t;

typedef uint32_t hsa_ext_image_channel_order32_t;

typedef struct hsa_ext_image_format_s {
  hsa_ext_image_channel_type32_t channel_type;
  hsa_ext_image_channel_order32_t channel_order;
} hsa_ext_image_format_t;

typedef struct hsa_ext_image_descriptor_s {
  hsa_ext_image_geometry_t geometry;
  size_t width;
  size_t height;     /* 0 unless the geometry has a second dimension */
  size_t depth;      /* 0 unless 3D */
  size_t array_size; /* 0 unless an array geometry */
  hsa_ext_image_format_t format;
} hsa_ext_image_descriptor_t;

typedef enum {
  HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED = 0x0,
  HSA_EXT_IMAGE_CAPABILITY_READ_ONLY = 0x1,
  HSA_EXT_IMAGE_CAPABILITY_WRITE_ONLY = 0x2,
  HSA_EXT_IMAGE_CAPABILITY_READ_WRITE = 0x4,
  HSA_EXT_IMAGE_CAPABILITY_READ_MODIFY_WRITE = 0x8, /* deprecated */
  HSA_EXT_IMAGE_CAPABILITY_ACCESS_INVARIANT_DATA_LAYOUT = 0x10
} hsa_ext_image_capability_t;

typedef enum {
  HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE = 0x0, /* implementation-defined tiling */
  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR = 0x1  /* rows, then slices, in ascending addresses */
} hsa_ext_image_data_layout_t;

hsa_status_t HSA_API hsa_ext_image_get_capability(hsa_agent_t agent,
                                                  hsa_ext_image_geometry_t geometry,
                                                  const hsa_ext_image_format_t* image_format,
                                                  uint32_t* capability_mask);

hsa_status_t HSA_API hsa_ext_image_get_capability_with_layout(
    hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
    const hsa_ext_image_format_t* image_format, hsa_ext_image_data_layout_t image_data_layout,
    uint32_t* capability_mask);

typedef struct hsa_ext_image_data_info_s {
  size_t size;      /* bytes */
  size_t alignment; /* bytes, a power of 2 */
} hsa_ext_image_data_info_t;

hsa_status_t HSA_API hsa_ext_image_data_get_info(hsa_agent_t agent,
                                                 const hsa_ext_image_descriptor_t* image_descriptor,
                                                 hsa_access_permission_t access_permission,
                                                 hsa_ext_image_data_info_t* image_data_info);

hsa_status_t HSA_API hsa_ext_image_data_get_info_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor,
    hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout,
    size_t image_data_row_pitch, size_t image_data_slice_pitch,
    hsa_ext_image_data_info_t* image_data_info);

hsa_status_t HSA_API hsa_ext_image_create(hsa_agent_t agent,
                                          const hsa_ext_image_descriptor_t* image_descriptor,
                                          const void* image_data,
                                          hsa_access_permission_t access_permission,
                                          hsa_ext_image_t* image);

hsa_status_t HSA_API hsa_ext_image_create_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor, const void* image_data,
    hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout,
    size_t image_data_row_pitch, size_t image_data_slice_pitch, hsa_ext_image_t* image);

hsa_status_t HSA_API hsa_ext_image_destroy(hsa_agent_t agent, hsa_ext_image_t image);

hsa_status_t HSA_API hsa_ext_image_copy(hsa_agent_t agent, hsa_ext_image_t src_image,
                                        const hsa_dim3_t* src_offset, hsa_ext_image_t dst_image,
                                        const hsa_dim3_t* dst_offset, const hsa_dim3_t* range);

typedef struct hsa_ext_image_region_s {
  hsa_dim3_t offset; /* image coordinates */
  hsa_dim3_t range;  /* width, height, depth or layer count */
} hsa_ext_image_region_t;

hsa_status_t HSA_API hsa_ext_image_import(hsa_agent_t agent, const void* src_memory,
                                          size_t src_row_pitch, size_t src_slice_pitch,
                                          hsa_ext_image_t dst_image,
                                          const hsa_ext_image_region_t* image_region);

hsa_status_t HSA_API hsa_ext_image_export(hsa_agent_t agent, hsa_ext_image_t src_image,
                                          void* dst_memory, size_t dst_row_pitch,
                                          size_t dst_slice_pitch,
                                          const hsa_ext_image_region_t* image_region);

hsa_status_t HSA_API hsa_ext_image_clear(hsa_agent_t agent, hsa_ext_image_t image,
                                         const void* data,
                                         const hsa_ext_image_region_t* image_region);

/* Sampler handle, unique within one agent. */
typedef struct hsa_ext_sampler_s {
  uint64_t handle;
} hsa_ext_sampler_t;

typedef enum {
  HSA_EXT_SAMPLER_ADDRESSING_MODE_UNDEFINED = 0,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_EDGE = 1,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_BORDER = 2,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_REPEAT = 3,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT = 4
} hsa_ext_sampler_addressing_mode_t;

typedef uint32_t hsa_ext_sampler_addressing_mode32_t;

typedef enum {
  HSA_EXT_SAMPLER_COORDINATE_MODE_UNNORMALIZED = 0,
  HSA_EXT_SAMPLER_COORDINATE_MODE_NORMALIZED = 1
} hsa_ext_sampler_coordinate_mode_t;

typedef uint32_t hsa_ext_sampler_coordinate_mode32_t;

typedef enum {
  HSA_EXT_SAMPLER_FILTER_MODE_NEAREST = 0,
  HSA_EXT_SAMPLER_FILTER_MODE_LINEAR = 1
} hsa_ext_sampler_filter_mode_t;

typedef uint32_t hsa_ext_sampler_filter_mode32_t;

typedef struct hsa_ext_sampler_descriptor_s {
  hsa_ext_sampler_coordinate_mode32_t coordinate_mode;
  hsa_ext_sampler_filter_mode32_t filter_mode;
  hsa_ext_sampler_addressing_mode32_t address_mode;
} hsa_ext_sampler_descriptor_t;

/* One addressing mode per axis (x, y, z). */
typedef struct hsa_ext_sampler_descriptor_v2_s {
  hsa_ext_sampler_coordinate_mode32_t coordinate_mode;
  hsa_ext_sampler_filter_mode32_t filter_mode;
  hsa_ext_sampler_addressing_mode32_t address_modes[3];
} hsa_ext_sampler_descriptor_v2_t;

hsa_status_t HSA_API hsa_ext_sampler_create(hsa_agent_t agent,
                                            const hsa_ext_sampler_descriptor_t* sampler_descriptor,
                                            hsa_ext_sampler_t* sampler);

hsa_status_t HSA_API hsa_ext_sampler_create_v2(
    hsa_agent_t agent, const hsa_ext_sampler_descriptor_v2_t* sampler_descriptor,
    hsa_ext_sampler_t* sampler);

hsa_status_t HSA_API hsa_ext_sampler_destroy(hsa_agent_t agent, hsa_ext_sampler_t sampler);

/* Function tables returned by hsa_system_get_(major_)extension_table for HSA_EXTENSION_IMAGES. */
#define hsa_ext_images_1_00

typedef struct hsa_ext_images_1_00_pfn_s {
  hsa_status_t (*hsa_ext_image_get_capability)(hsa_agent_t agent,
                                               hsa_ext_image_geometry_t geometry,
                                               const hsa_ext_image_format_t* image_format,
                                               uint32_t* capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info)(hsa_agent_t agent,
                                              const hsa_ext_image_descriptor_t* image_descriptor,
                                              hsa_access_permission_t access_permission,
                                              hsa_ext_image_data_info_t* image_data_info);
  hsa_status_t (*hsa_ext_image_create)(hsa_agent_t agent,
                                       const hsa_ext_image_descriptor_t* image_descriptor,
                                       const void* image_data,
                                       hsa_access_permission_t access_permission,
                                       hsa_ext_image_t* image);
  hsa_status_t (*hsa_ext_image_destroy)(hsa_agent_t agent, hsa_ext_image_t image);
  hsa_status_t (*hsa_ext_image_copy)(hsa_agent_t agent, hsa_ext_image_t src_image,
                                     const hsa_dim3_t* src_offset, hsa_ext_image_t dst_image,
                                     const hsa_dim3_t* dst_offset, const hsa_dim3_t* range);
  hsa_status_t (*hsa_ext_image_import)(hsa_agent_t agent, const void* src_memory,
                                       size_t src_row_pitch, size_t src_slice_pitch,
                                       hsa_ext_image_t dst_image,
                                       const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_image_export)(hsa_agent_t agent, hsa_ext_image_t src_image,
                                       void* dst_memory, size_t dst_row_pitch,
                                       size_t dst_slice_pitch,
                                       const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_image_clear)(hsa_agent_t agent, hsa_ext_image_t image, const void* data,
                                      const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_sampler_create)(hsa_agent_t agent,
                                         const hsa_ext_sampler_descriptor_t* sampler_descriptor,
                                         hsa_ext_sampler_t* sampler);
  hsa_status_t (*hsa_ext_sampler_destroy)(hsa_agent_t agent, hsa_ext_sampler_t sampler);
} hsa_ext_images_1_00_pfn_t;

#define hsa_ext_images_1

/* The 1.00 table plus the explicit-layout functions and sampler v2, in that order. */
typedef struct hsa_ext_images_1_pfn_s {
  hsa_status_t (*hsa_ext_image_get_capability)(hsa_agent_t agent,
                                               hsa_ext_image_geometry_t geometry,
                                               const hsa_ext_image_format_t* image_format,
                                               uint32_t* capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info)(hsa_agent_t agent,
                                              const hsa_ext_image_descriptor_t* image_descriptor,
                                              hsa_access_permission_t access_permission,
                                              hsa_ext_image_data_info_t* image_data_info);
  hsa_status_t (*hsa_ext_image_create)(hsa_agent_t agent,
                                       const hsa_ext_image_descriptor_t* image_descriptor,
                                       const void* image_data,
                                       hsa_access_permission_t access_permission,
                                       hsa_ext_image_t* image);
  hsa_status_t (*hsa_ext_image_destroy)(hsa_agent_t agent, hsa_ext_image_t image);
  hsa_status_t (*hsa_ext_image_copy)(hsa_agent_t agent, hsa_ext_image_t src_image,
                                     const hsa_dim3_t* src_offset, hsa_ext_image_t dst_image,
                                     const hsa_dim3_t* dst_offset, const hsa_dim3_t* range);
  hsa_status_t (*hsa_ext_image_import)(hsa_agent_t agent, const void* src_memory,
                                       size_t src_row_pitch, size_t src_slice_pitch,
                                       hsa_ext_image_t dst_image,
                                       const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_image_export)(hsa_agent_t agent, hsa_ext_image_t src_image,
                                       void* dst_memory, size_t dst_row_pitch,
                                       size_t dst_slice_pitch,
                                       const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_image_clear)(hsa_agent_t agent, hsa_ext_image_t image, const void* data,
                                      const hsa_ext_image_region_t* image_region);
  hsa_status_t (*hsa_ext_sampler_create)(hsa_agent_t agent,
                                         const hsa_ext_sampler_descriptor_t* sampler_descriptor,
                                         hsa_ext_sampler_t* sampler);
  hsa_status_t (*hsa_ext_sampler_destroy)(hsa_agent_t agent, hsa_ext_sampler_t sampler);
  hsa_status_t (*hsa_ext_image_get_capability_with_layout)(
      hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
      const hsa_ext_image_format_t* image_format, hsa_ext_image_data_layout_t image_data_layout,
      uint32_t* capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info_with_layout)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor,
      hsa_access_permission_t access_permission, hsa_ext_image_data_layout_t image_data_layout,
      size_t image_data_row_pitch, size_t image_data_slice_pitch,
      hsa_ext_image_data_info_t* image_data_info);
  hsa_status_t (*hsa_ext_image_create_with_layout)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t* image_descriptor,
      const void* image_data, hsa_access_permission_t access_permission,
      hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch,
      size_t image_data_slice_pitch, hsa_ext_image_t* image);
  hsa_status_t (*hsa_ext_sampler_create_v2)(
      hsa_agent_t agent, const hsa_ext_sampler_descriptor_v2_t* sampler_descriptor,
      hsa_ext_sampler_t* sampler);
} hsa_ext_images_1_pfn_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSA_EXT_IMAGE_H */
