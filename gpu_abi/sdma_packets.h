// The SDMA packet format the simulated copy engines execute.
//
// Close to the SDMA v5 layout (amdgpu's sdma_v5_0 packets): a ring of little-endian dwords; each
// packet starts with a header dword whose low byte is the opcode and bits 8-15 the sub-opcode.
// Addresses are GPU virtual addresses, translated through the queue's GPU page table; an unmapped
// address is a VM fault, never a silent success.
//
//   COPY_LINEAR  (op 1, sub 0)  7 dwords: header | count-1 (bytes) | parameter (0) |
//                                         src lo | src hi | dst lo | dst hi
//   FENCE        (op 5)         4 dwords: header | addr lo | addr hi | value      (a 32-bit store)
//   TRAP         (op 6)         2 dwords: header | interrupt context             (raises the event)
//   POLL_REGMEM  (op 8)         6 dwords: header [bit 31 mem_poll, bits 28-30 func] | addr lo |
//                                         addr hi | reference | mask | bits 0-15 interval (us),
//                                         bits 16-27 retry count (0xfff = forever)
//   CONST_FILL   (op 11)        5 dwords: header [bits 30-31 fill size: 2 = dword] | dst lo |
//                                         dst hi | value | count-1 (bytes)
//   NOP          (op 0)         1 dword:  header [bits 16-29 extra dwords to skip]
//
// Differences from hardware, on purpose: counts are full 30-bit byte counts on every "generation"
// (gfx90a+/gfx10.3+ behaviour, rocm_facts.md §5.1 copy_size_override); POLL_REGMEM polls memory
// only (mem_poll must be 1); the fill writes whole dwords.
#ifndef HIPMEM_GPU_ABI_SDMA_PACKETS_H_
#define HIPMEM_GPU_ABI_SDMA_PACKETS_H_

#include <cstdint>

namespace hipmem::gpu_abi::sdma {

enum class Opcode : uint8_t {
  kNop = 0,
  kCopy = 1,
  kFence = 5,
  kTrap = 6,
  kPollRegMem = 8,
  kConstFill = 11,
};

// POLL_REGMEM compare functions (header bits 28-30), applied to (*addr & mask) vs reference.
enum class PollFunction : uint32_t {
  kAlways = 0,
  kLess = 1,
  kLessEqual = 2,
  kEqual = 3,
  kNotEqual = 4,
  kGreaterEqual = 5,
  kGreater = 6,
};

inline constexpr uint32_t kMaxLinearBytes = 1u << 30;  // count-1 is a 30-bit field
inline constexpr uint32_t kPollForever = 0xfff;

constexpr uint32_t Header(Opcode op, uint32_t sub_op = 0, uint32_t extra = 0) {
  return static_cast<uint32_t>(op) | (sub_op << 8) | extra;
}
constexpr uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

struct CopyLinear {
  uint32_t header = Header(Opcode::kCopy);
  uint32_t count_minus_one;
  uint32_t parameter = 0;
  uint32_t src_lo, src_hi, dst_lo, dst_hi;
};
struct Fence {
  uint32_t header = Header(Opcode::kFence);
  uint32_t addr_lo, addr_hi, value;
};
struct Trap {
  uint32_t header = Header(Opcode::kTrap);
  uint32_t context;
};
struct PollRegMem {
  uint32_t header;
  uint32_t addr_lo, addr_hi, reference, mask, interval_and_retries;
};
struct ConstFill {
  uint32_t header = Header(Opcode::kConstFill, 0, 2u << 30);
  uint32_t dst_lo, dst_hi, value, count_minus_one;
};
static_assert(sizeof(CopyLinear) == 28 && sizeof(Fence) == 16 && sizeof(Trap) == 8);
static_assert(sizeof(PollRegMem) == 24 && sizeof(ConstFill) == 20);

// Builders for tests, benchmarks and the runtime's future SDMA blit.
constexpr CopyLinear MakeCopy(uint64_t dst, uint64_t src, uint32_t bytes) {
  return CopyLinear{Header(Opcode::kCopy), bytes - 1, 0, Lo(src), Hi(src), Lo(dst), Hi(dst)};
}
constexpr Fence MakeFence(uint64_t addr, uint32_t value) { return Fence{Header(Opcode::kFence), Lo(addr), Hi(addr), value}; }
constexpr Trap MakeTrap(uint32_t context) { return Trap{Header(Opcode::kTrap), context}; }
constexpr PollRegMem MakePoll(uint64_t addr, uint32_t reference, uint32_t mask, PollFunction f,
                              uint32_t interval_us = 10, uint32_t retries = kPollForever) {
  return PollRegMem{Header(Opcode::kPollRegMem, 0, (1u << 31) | (static_cast<uint32_t>(f) << 28)), Lo(addr), Hi(addr),
                    reference, mask, (interval_us & 0xffff) | ((retries & 0xfff) << 16)};
}
constexpr ConstFill MakeFill(uint64_t dst, uint32_t value, uint32_t bytes) {
  return ConstFill{Header(Opcode::kConstFill, 0, 2u << 30), Lo(dst), Hi(dst), value, bytes - 1};
}

}  // namespace hipmem::gpu_abi::sdma

#endif  // HIPMEM_GPU_ABI_SDMA_PACKETS_H_
