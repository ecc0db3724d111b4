// The input format of //hip:hip_ops_fuzzer: a program of HIP calls, one byte of opcode and a few bytes of operands
// each, decoded leniently (a short tail reads as zeroes), so every byte string is a program. Shared by the fuzzer and
// its seed writer.
#ifndef HIPMEM_HIP_HIP_FUZZ_INPUT_H_
#define HIPMEM_HIP_HIP_FUZZ_INPUT_H_

#include <cstdint>

namespace hipmem::hip_fuzz {

enum class Op : uint8_t {
  kMalloc,             // size16: hipMalloc of (size16 + 1) * 64 bytes
  kFree,               // pick: hipFree of a live, freed, interior, foreign or null pointer
  kHostMalloc,         // size16: hipHostMalloc
  kHostFree,           // pick: hipHostFree of any pointer kind
  kMemcpyRoundTrip,    // pick, seed: H2D (pageable or pinned) then D2H of a live allocation, checked
  kMemcpyD2D,          // pick, pick: D2D between two live allocations (the smaller size), checked
  kMemset,             // pick, value: hipMemset of a live allocation, checked
  kMallocAsync,        // size16, stream pick
  kFreeAsync,          // pick, stream pick
  kStreamCreate,       //
  kStreamDestroy,      // stream pick (live, destroyed or null)
  kStreamSynchronize,  // stream pick
  kEventCreate,        //
  kEventRecord,        // event pick, stream pick
  kEventSynchronize,   // event pick
  kEventDestroy,       // event pick (live or destroyed)
  kPointerAttributes,  // pick: hipPointerGetAttributes of any pointer kind
  kDeviceSynchronize,  //
  kCount,
};

// Operand bytes per opcode (after the opcode byte).
inline constexpr int kOperandBytes = 3;

}  // namespace hipmem::hip_fuzz

#endif  // HIPMEM_HIP_HIP_FUZZ_INPUT_H_
