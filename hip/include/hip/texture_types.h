/* Texture reference and texture object types, rewritten for hipmem.
 *
 * Layouts and values are upstream's (clr hipamd amd_texture_types.h and amd_hip_texture_types.h).
 * hipmem runs no device code, so every texture call fails with hipErrorNotSupported; the types
 * exist so host code that mentions them compiles.
 */
#ifndef HIP_INCLUDE_HIP_TEXTURE_TYPES_H
#define HIP_INCLUDE_HIP_TEXTURE_TYPES_H

#include <hip/hip_common.h>
#include <hip/driver_types.h>

#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

/* Sizes of the hardware image and sampler descriptors, in dwords. */
#define HIP_IMAGE_OBJECT_SIZE_DWORD 12
#define HIP_SAMPLER_OBJECT_SIZE_DWORD 8
#define HIP_SAMPLER_OBJECT_OFFSET_DWORD HIP_IMAGE_OBJECT_SIZE_DWORD
#define HIP_TEXTURE_OBJECT_SIZE_DWORD (HIP_IMAGE_OBJECT_SIZE_DWORD + HIP_SAMPLER_OBJECT_SIZE_DWORD)

struct __hip_texture;
typedef struct __hip_texture* hipTextureObject_t;

enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};

enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };

enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };

typedef struct textureReference {
  int normalized;
  enum hipTextureReadMode readMode;
  enum hipTextureFilterMode filterMode;
  enum hipTextureAddressMode addressMode[3];
  struct hipChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  hipTextureObject_t textureObject;
  int numChannels;
  enum hipArray_Format format;
} textureReference;

typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

#ifdef __cplusplus
#include <hip/channel_descriptor.h>

typedef textureReference* hipTexRef;

/* The legacy texture reference template; hip_runtime_api.h's hipBindTexture overloads take it. */
template <class T, int texType = hipTextureType1D,
          enum hipTextureReadMode mode = hipReadModeElementType>
struct texture : public textureReference {
  texture(int norm = 0, enum hipTextureFilterMode fMode = hipFilterModePoint,
          enum hipTextureAddressMode aMode = hipAddressModeClamp)
      : texture(norm, fMode, aMode, hipCreateChannelDesc<T>()) {}

  texture(int norm, enum hipTextureFilterMode fMode, enum hipTextureAddressMode aMode,
          struct hipChannelFormatDesc desc) {
    normalized = norm;
    readMode = mode;
    filterMode = fMode;
    addressMode[0] = aMode;
    addressMode[1] = aMode;
    addressMode[2] = aMode;
    channelDesc = desc;
    sRGB = 0;
    textureObject = nullptr;
    maxAnisotropy = 0;
    mipmapFilterMode = hipFilterModePoint;
    mipmapLevelBias = 0;
    minMipmapLevelClamp = 0;
    maxMipmapLevelClamp = 0;
    numChannels = 0;
    format = HIP_AD_FORMAT_FLOAT;
  }
};
#endif /* __cplusplus */

#endif /* HIP_INCLUDE_HIP_TEXTURE_TYPES_H */
