/* printf from device code, written for hipmem (HIP-Clang only; included by amd_hip_runtime.h).
 *
 * Output answers after the kernel, not while it runs: each printf appends one record (its format string and
 * arguments, %s strings copied) to a buffer the runtime gives the dispatch, and the runtime prints the records on
 * the host, in record order, once it sees the dispatch complete (at the latest when the stream or the device is
 * synchronised, or the stream is destroyed). A kernel that never ends prints nothing.
 *
 * How clang lowers printf here (clang-19, HIP, default -mprintf-kind=hostcall; AMDGPUEmitPrintf): one call of
 * __ockl_printf_begin, then __ockl_printf_append_string_n for the format string and for each argument a %s
 * conversion takes (its length counting the NUL, 0 for a null pointer), __ockl_printf_append_args for every other
 * argument (widened to 64 bits: integers zero-extended, float promoted to double, pointers as integers), the last
 * call flagged; the i64 each call returns is passed to the next, and the last one's low 32 bits are printf's result.
 * Upstream's ockl sends these over the hostcall service; here they fill the buffer in the hidden argument slot
 * LLVM ties to hostcall (code object v5's hidden_hostcall_buffer, implicit-argument offset 80): reading that slot is
 * what makes the AMDGPU attributor keep the argument in the kernel's metadata, and only kernels that reach printf
 * get it, so only their dispatches get a buffer. Code object v4 is not supported (its slot lies elsewhere).
 *
 * With -mprintf-kind=buffered clang instead calls __printf_alloc(size) once per printf and stores the whole frame
 * itself (LLVM's layout: a control dword, size << 2 | 2 for a constant format; the low 64 bits of the format's MD5,
 * whose text the code object's amdhsa.printf metadata holds, or the format inline for a non-constant one; then
 * each argument in 8 bytes, %s strings inline, padded to 8). __printf_alloc takes one chunk of kind 3 for the frame
 * from the buffer in hidden_printf_buffer (implicit-argument offset 72), which LLVM lists for every kernel of a
 * module with a printf that reads any implicit argument; a null return makes printf return -1. In that mode a null
 * %s argument takes no bytes of the frame, so the host cannot tell it from the next argument: do not pass one.
 *
 * The buffer (little-endian, 8-byte aligned; the host side's decoder in clr/device_printf.h reads the same layout):
 *   header, 32 bytes:  u64 used      bytes of the data area handed out (atomic; may pass capacity once full)
 *                      u64 capacity  bytes of the data area
 *                      u32 records   record numbers handed out (atomic)
 *                      u32, u64      reserved
 *   data area: chunks, each a 16-byte head then its payload padded to 8 bytes:
 *                      u32 record    record number + 1 (0: never written)
 *                      u16 index     the chunk's place in its record (0: the format string)
 *                      u8  kind      1: a string (payload: its bytes with the NUL; empty for a null pointer)
 *                                    2: arguments (payload: one u64 each)
 *                                    3: a buffered-printf frame (the record's only chunk)
 *                      u8  flags     1: the record's last chunk; 2: the record goes to stderr (on every chunk
 *                                    of a record begun by __ockl_fprintf_stderr_begin, as a failed assert's is)
 *                      u32 bytes     payload bytes before padding
 *                      u32 count     arguments in the payload (0 for a string)
 * Every chunk takes its space with one atomic add, so the threads of a dispatch never overwrite each other. When
 * the data area is full a chunk is not written; its record's later chunks are not either, printf returns -1, and the
 * host, missing the record's last chunk, drops the record whole (and says so on stderr). Nothing is written outside
 * the buffer. A record taken whole makes printf return 0 (the device cannot count the characters the host prints).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_PRINTF_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_PRINTF_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_device_printf.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

/* The device side's printf; the host's comes from <stdio.h> as usual. */
extern "C" __device__ int printf(const char* __format, ...);

#if defined(__HIP_DEVICE_COMPILE__)

/* Weak: every translation unit of an -fgpu-rdc link defines them. */
#define __HIPMEM_PRINTF_FN extern "C" __device__ __attribute__((weak))

struct __hipmem_printf_header {
  unsigned long long used;
  unsigned long long capacity;
  unsigned int records;
  unsigned int reserved0;
  unsigned long long reserved1;
};

struct __hipmem_printf_chunk {
  unsigned int record;
  unsigned short index;
  unsigned char kind;
  unsigned char flags;
  unsigned int bytes;
  unsigned int count;
};

/* The descriptor passed from call to call: bits 0-31 the record number + 1 (0: no record), bits 32-47 the next
 * chunk's index, bit 48 set for a record to stderr, bit 63 set once a chunk of the record did not fit. */
#define __HIPMEM_PRINTF_STDERR (1ull << 48)
#define __HIPMEM_PRINTF_DROPPED (1ull << 63)

/* The dispatch's buffer, from an implicit-argument slot: code object v5's hidden_hostcall_buffer (offset 80) for the
 * hostcall lowering, hidden_printf_buffer (72) for the buffered one; null when the runtime gave none. */
#define __HIPMEM_PRINTF_HOSTCALL_SLOT 80
#define __HIPMEM_PRINTF_BUFFERED_SLOT 72
__device__ inline __hipmem_printf_header* __hipmem_printf_buffer(int slot) {
  const char* implicit = static_cast<const char*>(__builtin_amdgcn_implicitarg_ptr());
  return *reinterpret_cast<__hipmem_printf_header* const*>(implicit + slot);
}

/* Takes the space of one chunk with `payload` bytes and writes its head; null when it does not fit (the space stays
 * taken: `used` only grows, so no later chunk lands past the end either). */
__device__ inline char* __hipmem_printf_chunk_take(__hipmem_printf_header* buffer, unsigned long long descriptor,
                                                   unsigned char kind, unsigned int payload, unsigned int count,
                                                   unsigned int last) {
  const unsigned long long size = sizeof(__hipmem_printf_chunk) + ((payload + 7ull) & ~7ull);
  const unsigned long long at = __hip_atomic_fetch_add(&buffer->used, size, __ATOMIC_RELAXED,
                                                       __HIP_MEMORY_SCOPE_AGENT);
  if (at > buffer->capacity || size > buffer->capacity - at) return nullptr;
  char* data = reinterpret_cast<char*>(buffer + 1) + at;
  __hipmem_printf_chunk* chunk = reinterpret_cast<__hipmem_printf_chunk*>(data);
  chunk->record = static_cast<unsigned int>(descriptor);
  chunk->index = static_cast<unsigned short>(descriptor >> 32);
  chunk->kind = kind;
  chunk->flags = (last ? 1 : 0) | ((descriptor & __HIPMEM_PRINTF_STDERR) ? 2 : 0);
  chunk->bytes = payload;
  chunk->count = count;
  return data + sizeof(__hipmem_printf_chunk);
}

/* What a call returns: the descriptor for the next chunk, or, after the last, printf's result. */
__device__ inline unsigned long long __hipmem_printf_next(unsigned long long descriptor, bool written,
                                                          unsigned int last) {
  if (!written) descriptor |= __HIPMEM_PRINTF_DROPPED;
  if (last) return (descriptor & __HIPMEM_PRINTF_DROPPED) ? ~0ull : 0ull;
  return descriptor + (1ull << 32);
}

__device__ inline bool __hipmem_printf_live(unsigned long long descriptor) {
  return static_cast<unsigned int>(descriptor) != 0 && !(descriptor & __HIPMEM_PRINTF_DROPPED);
}

/* A new record, its number handed out; `stream` is 0 or __HIPMEM_PRINTF_STDERR. */
__device__ inline unsigned long long __hipmem_printf_open(unsigned long long stream) {
  __hipmem_printf_header* buffer = __hipmem_printf_buffer(__HIPMEM_PRINTF_HOSTCALL_SLOT);
  if (buffer == nullptr) return __HIPMEM_PRINTF_DROPPED;
  const unsigned int record = __hip_atomic_fetch_add(&buffer->records, 1u, __ATOMIC_RELAXED,
                                                     __HIP_MEMORY_SCOPE_AGENT);
  /* Record numbers wrap after 2^32 - 1 printfs in one dispatch; the host would then see two records under one
   * number and drop them. */
  return static_cast<unsigned long long>(record + 1u) | stream;
}

/* `version` is 0 in every lowering clang emits. */
__HIPMEM_PRINTF_FN unsigned long long __ockl_printf_begin(unsigned long long version) {
  (void)version;
  return __hipmem_printf_open(0);
}

/* ockl's record to the host's stderr, which device-libs' own users (a failed assert, amd_device_assert.h) begin
 * with; the appends are printf's. */
__HIPMEM_PRINTF_FN unsigned long long __ockl_fprintf_stderr_begin() {
  return __hipmem_printf_open(__HIPMEM_PRINTF_STDERR);
}

__HIPMEM_PRINTF_FN unsigned long long __ockl_printf_append_string_n(unsigned long long descriptor, const char* string,
                                                                    unsigned long long length, unsigned int last) {
  if (!__hipmem_printf_live(descriptor)) return __hipmem_printf_next(descriptor | __HIPMEM_PRINTF_DROPPED, true, last);
  if (string == nullptr) length = 0;
  /* A string longer than 4 GiB cannot fit any buffer. */
  if (length > 0xffffffffull - 8) return __hipmem_printf_next(descriptor, false, last);
  char* payload = __hipmem_printf_chunk_take(__hipmem_printf_buffer(__HIPMEM_PRINTF_HOSTCALL_SLOT), descriptor, 1,
                                             static_cast<unsigned int>(length), 0, last);
  if (payload == nullptr) return __hipmem_printf_next(descriptor, false, last);
  for (unsigned long long i = 0; i < length; ++i) payload[i] = string[i];
  return __hipmem_printf_next(descriptor, true, last);
}

__HIPMEM_PRINTF_FN unsigned long long __ockl_printf_append_args(unsigned long long descriptor, unsigned int count,
                                                                unsigned long long a0, unsigned long long a1,
                                                                unsigned long long a2, unsigned long long a3,
                                                                unsigned long long a4, unsigned long long a5,
                                                                unsigned long long a6, unsigned int last) {
  if (!__hipmem_printf_live(descriptor)) return __hipmem_printf_next(descriptor | __HIPMEM_PRINTF_DROPPED, true, last);
  if (count > 7) count = 7;
  char* payload = __hipmem_printf_chunk_take(__hipmem_printf_buffer(__HIPMEM_PRINTF_HOSTCALL_SLOT), descriptor, 2,
                                             count * 8, count, last);
  if (payload == nullptr) return __hipmem_printf_next(descriptor, false, last);
  const unsigned long long values[7] = {a0, a1, a2, a3, a4, a5, a6};
  unsigned long long* out = reinterpret_cast<unsigned long long*>(payload);
  for (unsigned int i = 0; i < count; ++i) out[i] = values[i];
  return __hipmem_printf_next(descriptor, true, last);
}

/* -mprintf-kind=buffered: room for one frame of `bytes`, which the caller fills; null when there is none. */
__HIPMEM_PRINTF_FN __attribute__((address_space(1))) char* __printf_alloc(unsigned int bytes) {
  __hipmem_printf_header* buffer = __hipmem_printf_buffer(__HIPMEM_PRINTF_BUFFERED_SLOT);
  if (buffer == nullptr) return nullptr;
  const unsigned int record = __hip_atomic_fetch_add(&buffer->records, 1u, __ATOMIC_RELAXED,
                                                     __HIP_MEMORY_SCOPE_AGENT);
  char* frame = __hipmem_printf_chunk_take(buffer, static_cast<unsigned long long>(record + 1u), 3, bytes, 0, 1);
  /* The buffer is global memory: the generic pointer converts as it is (a C-style cast, as clang allows between
   * address spaces). */
  return (__attribute__((address_space(1))) char*)frame;
}

#undef __HIPMEM_PRINTF_FN
#undef __HIPMEM_PRINTF_HOSTCALL_SLOT
#undef __HIPMEM_PRINTF_BUFFERED_SLOT
#undef __HIPMEM_PRINTF_DROPPED
#undef __HIPMEM_PRINTF_STDERR

#endif /* __HIP_DEVICE_COMPILE__ */

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_PRINTF_H */
