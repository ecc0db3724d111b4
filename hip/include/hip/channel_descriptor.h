/* Channel format descriptors, rewritten for hipmem (upstream: amd_channel_descriptor.h).
 *
 * hipCreateChannelDesc is a runtime entry point; the C++ template maps element types to it. As
 * upstream compiled by GCC, the 3-component vector types have no specialisation and fall back to
 * the generic "no format" descriptor.
 */
#ifndef HIP_INCLUDE_HIP_CHANNEL_DESCRIPTOR_H
#define HIP_INCLUDE_HIP_CHANNEL_DESCRIPTOR_H

#include <hip/hip_common.h>
#include <hip/driver_types.h>
#include <hip/hip_vector_types.h>

#ifdef __cplusplus

extern "C" HIP_PUBLIC_API hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
                                                                    hipChannelFormatKind f);

/* Descriptors for 16-bit floats, which have no C++ type of their own here. */
static inline hipChannelFormatDesc hipCreateChannelDescHalf() {
  return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf1() {
  return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf2() {
  return hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf4() {
  return hipCreateChannelDesc(16, 16, 16, 16, hipChannelFormatKindFloat);
}

template <typename T>
static inline hipChannelFormatDesc hipCreateChannelDesc() {
  return hipCreateChannelDesc(0, 0, 0, 0, hipChannelFormatKindNone);
}

/* One specialisation per element type: component bits, component count, kind. */
#define HIPMEM_CHANNEL_DESC(type, scalar, count, kind)                           \
  template <>                                                                    \
  inline hipChannelFormatDesc hipCreateChannelDesc<type>() {                     \
    const int bits = static_cast<int>(sizeof(scalar)) * 8;                       \
    return hipCreateChannelDesc(bits, (count) > 1 ? bits : 0, (count) > 2 ? bits : 0, \
                                (count) > 3 ? bits : 0, kind);                   \
  }

HIPMEM_CHANNEL_DESC(char, char, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(signed char, signed char, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(unsigned char, unsigned char, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(uchar1, unsigned char, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(char1, signed char, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(uchar2, unsigned char, 2, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(char2, signed char, 2, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(uchar4, unsigned char, 4, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(char4, signed char, 4, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(unsigned short, unsigned short, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(signed short, signed short, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(ushort1, unsigned short, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(short1, signed short, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(ushort2, unsigned short, 2, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(short2, signed short, 2, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(ushort4, unsigned short, 4, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(short4, signed short, 4, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(unsigned int, unsigned int, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(signed int, signed int, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(uint1, unsigned int, 1, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(int1, signed int, 1, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(uint2, unsigned int, 2, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(int2, signed int, 2, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(uint4, unsigned int, 4, hipChannelFormatKindUnsigned)
HIPMEM_CHANNEL_DESC(int4, signed int, 4, hipChannelFormatKindSigned)
HIPMEM_CHANNEL_DESC(float, float, 1, hipChannelFormatKindFloat)
HIPMEM_CHANNEL_DESC(float1, float, 1, hipChannelFormatKindFloat)
HIPMEM_CHANNEL_DESC(float2, float, 2, hipChannelFormatKindFloat)
HIPMEM_CHANNEL_DESC(float4, float, 4, hipChannelFormatKindFloat)
#undef HIPMEM_CHANNEL_DESC

#else /* C */

HIP_PUBLIC_API struct hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
                                                                enum hipChannelFormatKind f);

#endif /* __cplusplus */

#endif /* HIP_INCLUDE_HIP_CHANNEL_DESCRIPTOR_H */
