/* Host side of HIP's short vector types (char1 ... double4), rewritten for hipmem.
 *
 * Layouts follow clr hipamd amd_hip_vector_types.h as a host compiler without ext_vector_type (g++)
 * sees it: in C++ each type is HIP_vector_type<T, n> with members x, y, z, w; the 2- and 4-component
 * types are aligned to their full size (float4: 16 bytes, double4: 32) and the 3-component types
 * to one component (float3: 12 bytes, 4-byte aligned). In C they are plain structs of the same
 * members without the extra alignment, exactly as upstream declares them.
 */
#ifndef HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H

#include <hip/hip_common.h>
#include <hip/amd_detail/host_defines.h>

#define __HOST_DEVICE__ __host__ __device__

#if defined(__cplusplus)
#include <cstddef>
#include <type_traits>

template <typename T, unsigned int rank>
struct HIP_vector_type;

/* Element access by index is part of the upstream interface. */
template <typename T>
struct HIP_vector_type<T, 1> {
  T x;
  HIP_vector_type() = default;
  /* As upstream: one scalar fills every component, and only explicitly. */
  template <typename U, typename std::enable_if<std::is_convertible<U, T>::value, int>::type = 0>
  __HOST_DEVICE__ explicit constexpr HIP_vector_type(U v) noexcept : x(static_cast<T>(v)) {}
  __HOST_DEVICE__ T& operator[](size_t i) noexcept { return (&x)[i]; }
  __HOST_DEVICE__ const T& operator[](size_t i) const noexcept { return (&x)[i]; }
};

template <typename T>
struct alignas(sizeof(T) * 2) HIP_vector_type<T, 2> {
  T x, y;
  HIP_vector_type() = default;
  template <typename U, typename std::enable_if<std::is_convertible<U, T>::value, int>::type = 0>
  __HOST_DEVICE__ explicit constexpr HIP_vector_type(U v) noexcept
      : x(static_cast<T>(v)), y(static_cast<T>(v)) {}
  template <typename U0, typename U1>
  __HOST_DEVICE__ constexpr HIP_vector_type(U0 x_, U1 y_) noexcept
      : x(static_cast<T>(x_)), y(static_cast<T>(y_)) {}
  __HOST_DEVICE__ T& operator[](size_t i) noexcept { return (&x)[i]; }
  __HOST_DEVICE__ const T& operator[](size_t i) const noexcept { return (&x)[i]; }
};

template <typename T>
struct HIP_vector_type<T, 3> {
  T x, y, z;
  HIP_vector_type() = default;
  template <typename U, typename std::enable_if<std::is_convertible<U, T>::value, int>::type = 0>
  __HOST_DEVICE__ explicit constexpr HIP_vector_type(U v) noexcept
      : x(static_cast<T>(v)), y(static_cast<T>(v)), z(static_cast<T>(v)) {}
  template <typename U0, typename U1, typename U2>
  __HOST_DEVICE__ constexpr HIP_vector_type(U0 x_, U1 y_, U2 z_) noexcept
      : x(static_cast<T>(x_)), y(static_cast<T>(y_)), z(static_cast<T>(z_)) {}
  __HOST_DEVICE__ T& operator[](size_t i) noexcept { return (&x)[i]; }
  __HOST_DEVICE__ const T& operator[](size_t i) const noexcept { return (&x)[i]; }
};

template <typename T>
struct alignas(sizeof(T) * 4) HIP_vector_type<T, 4> {
  T x, y, z, w;
  HIP_vector_type() = default;
  template <typename U, typename std::enable_if<std::is_convertible<U, T>::value, int>::type = 0>
  __HOST_DEVICE__ explicit constexpr HIP_vector_type(U v) noexcept
      : x(static_cast<T>(v)), y(static_cast<T>(v)), z(static_cast<T>(v)), w(static_cast<T>(v)) {}
  template <typename U0, typename U1, typename U2, typename U3>
  __HOST_DEVICE__ constexpr HIP_vector_type(U0 x_, U1 y_, U2 z_, U3 w_) noexcept
      : x(static_cast<T>(x_)),
        y(static_cast<T>(y_)),
        z(static_cast<T>(z_)),
        w(static_cast<T>(w_)) {}
  __HOST_DEVICE__ T& operator[](size_t i) noexcept { return (&x)[i]; }
  __HOST_DEVICE__ const T& operator[](size_t i) const noexcept { return (&x)[i]; }
};

namespace hip_impl {

/* A vector with every component equal to v: how scalars take part in vector arithmetic. */
template <typename T, unsigned int rank, typename U>
__HOST_DEVICE__ inline HIP_vector_type<T, rank> Splat(U v) noexcept {
  HIP_vector_type<T, rank> r{};
  for (unsigned int i = 0; i < rank; ++i) r[i] = static_cast<T>(v);
  return r;
}

template <typename U>
using EnableIfScalar = typename std::enable_if<std::is_arithmetic<U>::value, int>::type;
template <typename T>
using EnableIfIntegral = typename std::enable_if<std::is_integral<T>::value, int>::type;

}  // namespace hip_impl

/* Component-wise binary operators: vector op vector, vector op scalar, scalar op vector, and the
 * compound assignments. The bitwise and modulo forms exist for integer components only. */
#define HIPMEM_VECTOR_BINARY_OP(op, enable)                                                      \
  template <typename T, unsigned int rank, enable>                                               \
  __HOST_DEVICE__ inline HIP_vector_type<T, rank> operator op(                                   \
      const HIP_vector_type<T, rank>& a, const HIP_vector_type<T, rank>& b) noexcept {           \
    HIP_vector_type<T, rank> r{};                                                                \
    for (unsigned int i = 0; i < rank; ++i) r[i] = static_cast<T>(a[i] op b[i]);                 \
    return r;                                                                                    \
  }                                                                                              \
  template <typename T, unsigned int rank, typename U, enable,                                   \
            hip_impl::EnableIfScalar<U> = 0>                                                     \
  __HOST_DEVICE__ inline HIP_vector_type<T, rank> operator op(const HIP_vector_type<T, rank>& a, \
                                                              U b) noexcept {                    \
    return a op hip_impl::Splat<T, rank>(b);                                                     \
  }                                                                                              \
  template <typename T, unsigned int rank, typename U, enable,                                   \
            hip_impl::EnableIfScalar<U> = 0>                                                     \
  __HOST_DEVICE__ inline HIP_vector_type<T, rank> operator op(                                   \
      U a, const HIP_vector_type<T, rank>& b) noexcept {                                         \
    return hip_impl::Splat<T, rank>(a) op b;                                                     \
  }                                                                                              \
  template <typename T, unsigned int rank, enable>                                               \
  __HOST_DEVICE__ inline HIP_vector_type<T, rank>& operator op##=(                               \
      HIP_vector_type<T, rank>& a, const HIP_vector_type<T, rank>& b) noexcept {                 \
    return a = a op b;                                                                           \
  }                                                                                              \
  template <typename T, unsigned int rank, typename U, enable,                                   \
            hip_impl::EnableIfScalar<U> = 0>                                                     \
  __HOST_DEVICE__ inline HIP_vector_type<T, rank>& operator op##=(HIP_vector_type<T, rank>& a,   \
                                                                  U b) noexcept {                \
    return a = a op hip_impl::Splat<T, rank>(b);                                                 \
  }

#define HIPMEM_ANY_COMPONENT typename = void
#define HIPMEM_INTEGER_COMPONENT hip_impl::EnableIfIntegral<T> = 0
HIPMEM_VECTOR_BINARY_OP(+, HIPMEM_ANY_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(-, HIPMEM_ANY_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(*, HIPMEM_ANY_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(/, HIPMEM_ANY_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(%, HIPMEM_INTEGER_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(&, HIPMEM_INTEGER_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(|, HIPMEM_INTEGER_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(^, HIPMEM_INTEGER_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(<<, HIPMEM_INTEGER_COMPONENT)
HIPMEM_VECTOR_BINARY_OP(>>, HIPMEM_INTEGER_COMPONENT)
#undef HIPMEM_ANY_COMPONENT
#undef HIPMEM_INTEGER_COMPONENT
#undef HIPMEM_VECTOR_BINARY_OP

template <typename T, unsigned int rank>
__HOST_DEVICE__ inline HIP_vector_type<T, rank> operator-(const HIP_vector_type<T, rank>& a) noexcept {
  HIP_vector_type<T, rank> r{};
  for (unsigned int i = 0; i < rank; ++i) r[i] = static_cast<T>(-a[i]);
  return r;
}

template <typename T, unsigned int rank, hip_impl::EnableIfIntegral<T> = 0>
__HOST_DEVICE__ inline HIP_vector_type<T, rank> operator~(const HIP_vector_type<T, rank>& a) noexcept {
  HIP_vector_type<T, rank> r{};
  for (unsigned int i = 0; i < rank; ++i) r[i] = static_cast<T>(~a[i]);
  return r;
}

template <typename T, unsigned int rank>
__HOST_DEVICE__ inline HIP_vector_type<T, rank>& operator++(HIP_vector_type<T, rank>& a) noexcept {
  return a += hip_impl::Splat<T, rank>(1);
}

template <typename T, unsigned int rank>
__HOST_DEVICE__ inline HIP_vector_type<T, rank> operator++(HIP_vector_type<T, rank>& a, int) noexcept {
  HIP_vector_type<T, rank> before = a;
  ++a;
  return before;
}

template <typename T, unsigned int rank>
__HOST_DEVICE__ inline HIP_vector_type<T, rank>& operator--(HIP_vector_type<T, rank>& a) noexcept {
  return a -= hip_impl::Splat<T, rank>(1);
}

template <typename T, unsigned int rank>
__HOST_DEVICE__ inline HIP_vector_type<T, rank> operator--(HIP_vector_type<T, rank>& a, int) noexcept {
  HIP_vector_type<T, rank> before = a;
  --a;
  return before;
}

/* Equality holds when every component is equal. */
template <typename T, unsigned int rank>
__HOST_DEVICE__ inline bool operator==(const HIP_vector_type<T, rank>& a,
                                       const HIP_vector_type<T, rank>& b) noexcept {
  for (unsigned int i = 0; i < rank; ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}
template <typename T, unsigned int rank, typename U, hip_impl::EnableIfScalar<U> = 0>
__HOST_DEVICE__ inline bool operator==(const HIP_vector_type<T, rank>& a, U b) noexcept {
  return a == hip_impl::Splat<T, rank>(b);
}
template <typename T, unsigned int rank, typename U, hip_impl::EnableIfScalar<U> = 0>
__HOST_DEVICE__ inline bool operator==(U a, const HIP_vector_type<T, rank>& b) noexcept {
  return hip_impl::Splat<T, rank>(a) == b;
}
template <typename T, unsigned int rank>
__HOST_DEVICE__ inline bool operator!=(const HIP_vector_type<T, rank>& a,
                                       const HIP_vector_type<T, rank>& b) noexcept {
  return !(a == b);
}
template <typename T, unsigned int rank, typename U, hip_impl::EnableIfScalar<U> = 0>
__HOST_DEVICE__ inline bool operator!=(const HIP_vector_type<T, rank>& a, U b) noexcept {
  return !(a == b);
}
template <typename T, unsigned int rank, typename U, hip_impl::EnableIfScalar<U> = 0>
__HOST_DEVICE__ inline bool operator!=(U a, const HIP_vector_type<T, rank>& b) noexcept {
  return !(a == b);
}

#define __MAKE_VECTOR_TYPE__(CUDA_name, T) \
  using CUDA_name##1 = HIP_vector_type<T, 1>; \
  using CUDA_name##2 = HIP_vector_type<T, 2>; \
  using CUDA_name##3 = HIP_vector_type<T, 3>; \
  using CUDA_name##4 = HIP_vector_type<T, 4>;

#else /* C */

#define __MAKE_VECTOR_TYPE__(CUDA_name, T) \
  typedef struct {                         \
    T x;                                   \
  } CUDA_name##1;                          \
  typedef struct {                         \
    T x;                                   \
    T y;                                   \
  } CUDA_name##2;                          \
  typedef struct {                         \
    T x;                                   \
    T y;                                   \
    T z;                                   \
  } CUDA_name##3;                          \
  typedef struct {                         \
    T x;                                   \
    T y;                                   \
    T z;                                   \
    T w;                                   \
  } CUDA_name##4;

#endif /* __cplusplus */

__MAKE_VECTOR_TYPE__(uchar, unsigned char)
__MAKE_VECTOR_TYPE__(char, char)
__MAKE_VECTOR_TYPE__(ushort, unsigned short)
__MAKE_VECTOR_TYPE__(short, short)
__MAKE_VECTOR_TYPE__(uint, unsigned int)
__MAKE_VECTOR_TYPE__(int, int)
__MAKE_VECTOR_TYPE__(ulong, unsigned long)
__MAKE_VECTOR_TYPE__(long, long)
__MAKE_VECTOR_TYPE__(ulonglong, unsigned long long)
__MAKE_VECTOR_TYPE__(longlong, long long)
__MAKE_VECTOR_TYPE__(float, float)
__MAKE_VECTOR_TYPE__(double, double)

/* make_<type>(...) constructors, with upstream's parameter types (make_char1 takes signed char). */
#define HIPMEM_MAKE_1(comp, type)                              \
  static inline __HOST_DEVICE__ type make_##type(comp x) {     \
    type r;                                                    \
    r.x = x;                                                   \
    return r;                                                  \
  }
#define HIPMEM_MAKE_2(comp, type)                                  \
  static inline __HOST_DEVICE__ type make_##type(comp x, comp y) { \
    type r;                                                        \
    r.x = x;                                                       \
    r.y = y;                                                       \
    return r;                                                      \
  }
#define HIPMEM_MAKE_3(comp, type)                                          \
  static inline __HOST_DEVICE__ type make_##type(comp x, comp y, comp z) { \
    type r;                                                                \
    r.x = x;                                                               \
    r.y = y;                                                               \
    r.z = z;                                                               \
    return r;                                                              \
  }
#define HIPMEM_MAKE_4(comp, type)                                                  \
  static inline __HOST_DEVICE__ type make_##type(comp x, comp y, comp z, comp w) { \
    type r;                                                                        \
    r.x = x;                                                                       \
    r.y = y;                                                                       \
    r.z = z;                                                                       \
    r.w = w;                                                                       \
    return r;                                                                      \
  }
#define HIPMEM_MAKE_ALL(comp, name) \
  HIPMEM_MAKE_1(comp, name##1)      \
  HIPMEM_MAKE_2(comp, name##2)      \
  HIPMEM_MAKE_3(comp, name##3)      \
  HIPMEM_MAKE_4(comp, name##4)

HIPMEM_MAKE_ALL(unsigned char, uchar)
HIPMEM_MAKE_ALL(signed char, char)
HIPMEM_MAKE_ALL(unsigned short, ushort)
HIPMEM_MAKE_ALL(signed short, short)
HIPMEM_MAKE_ALL(unsigned int, uint)
HIPMEM_MAKE_ALL(signed int, int)
HIPMEM_MAKE_ALL(float, float)
HIPMEM_MAKE_ALL(double, double)
HIPMEM_MAKE_ALL(unsigned long, ulong)
HIPMEM_MAKE_ALL(signed long, long)
HIPMEM_MAKE_ALL(unsigned long long, ulonglong)
HIPMEM_MAKE_ALL(signed long long, longlong)

#undef HIPMEM_MAKE_ALL
#undef HIPMEM_MAKE_1
#undef HIPMEM_MAKE_2
#undef HIPMEM_MAKE_3
#undef HIPMEM_MAKE_4

#endif /* HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H */
