// The SDMA packet formats the simulated copy engines execute: the real SDMA v4 (gfx9: vega10, arcturus,
// aldebaran, gfx94x), v5 (gfx10) and v6 (gfx11) encodings, as amdgpu's *_sdma_pkt_open.h define them and
// kfdtest's SDMAPacket.cpp and ROCr's BlitSdma emit them.
//
// A ring of little-endian dwords; each packet starts with a header dword whose bits 0-7 are the opcode and
// bits 8-15 the sub-opcode. Addresses are GPU virtual addresses, translated through the queue's GPU page
// table; an unmapped address is a VM fault, never a silent success. Counts are "minus one" (1-based) from
// SDMA v4 on: a count field of n means n + 1 bytes or dwords.
//
//   NOP          (op 0)          header [bits 16-29: n] + n dwords the engine skips
//   COPY_LINEAR  (op 1, sub 0)   7 dwords: header [bit 27 broadcast] | count-1 (bytes) | parameter |
//                                          src lo | src hi | dst lo | dst hi [| dst2 lo | dst2 hi if broadcast]
//   COPY_LINEAR_SUB_WINDOW (op 1, sub 4)  13 dwords: header [bits 29-31 element: log2 of its bytes, 0-4] |
//                                src lo | src hi | src x [0-13], y [16-29] | src z [0-10], pitch-1 [13-31] |
//                                src slice pitch-1 [0-27] | dst lo | dst hi | dst x, y | dst z, pitch-1 |
//                                dst slice pitch-1 | rect x-1 [0-13], y-1 [16-29] | rect z-1 [0-10],
//                                dst swap [16-17], src swap [24-25]. Offsets, pitches and widths count
//                                elements; the bases are dword aligned (ROCr's SDMA_PKT_COPY_LINEAR_RECT).
//   WRITE_LINEAR (op 2, sub 0)   header | dst lo | dst hi | count-1 (dwords) | data...
//   FENCE        (op 5)          4 dwords: header [v5+: bits 16-25 cache policy] | addr lo | addr hi | value
//   TRAP         (op 6)          2 dwords: header | bits 0-27 interrupt context (the event id)
//   POLL_REGMEM  (op 8)          6 dwords: header [bit 26 hdp_flush, bits 28-30 func, bit 31 mem_poll] |
//                                          addr lo | addr hi | reference | mask |
//                                          bits 0-15 interval, bits 16-27 retry count (0xfff = forever)
//   ATOMIC       (op 10)         8 dwords: header [bit 16 loop, bits 25-31 TC atomic op] | addr lo | addr hi |
//                                          src lo | src hi | cmp lo | cmp hi | bits 0-12 loop interval
//   CONST_FILL   (op 11)         5 dwords: header [bits 30-31 fill size: 0 byte, 2 dword] | dst lo | dst hi |
//                                          data | count-1 (bytes)
//   TIMESTAMP    (op 13)         3 dwords: header [sub 0 set local, 1 get local, 2 get global] |
//                                          addr lo | addr hi (set: the value lo | hi)
//   GCR_REQ      (op 17, v5+)    5 dwords: header | base va / gcr control / limit va / vmid (cache control)
//
// What differs by generation (Generation below):
// - COPY_LINEAR's and CONST_FILL's count is 22 bits on SDMA 4.0-4.2 (gfx900-gfx908) and 5.0 (gfx10.1), 30 bits
//   on 4.4 (gfx90a, gfx94x), 5.2 (gfx10.3) and 6.0 (gfx11): ROCr's copy_size_override (rocm_facts.md §5.1) and
//   the count masks of vega10/navi10 (0x003FFFFF) versus sdma_v6_0_0 (0x3FFFFFFF).
// - WRITE_LINEAR's dword count is 22 bits on v4, 20 bits on v5 and v6 (navi10's 0x000FFFFF).
// - GCR_REQ exists from v5 (gfx10's GL0/GL1/GL2 caches); v4 has no such opcode.
#ifndef HIPMEM_GPU_ABI_SDMA_PACKETS_H_
#define HIPMEM_GPU_ABI_SDMA_PACKETS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace hipmem::gpu_abi::sdma {

// An SDMA IP generation, as far as its packets differ.
enum class Generation : uint8_t {
  kV4_0,  // SDMA 4.0-4.2: gfx900, gfx906, gfx908 (vega10_sdma_pkt_open.h)
  kV4_4,  // SDMA 4.4: gfx90a, gfx940-gfx942 (vega10 layout, 30-bit linear counts)
  kV5_0,  // SDMA 5.0: gfx1010-gfx1013 (navi10_sdma_pkt_open.h)
  kV5_2,  // SDMA 5.2: gfx1030-gfx1036 (navi10 layout, 30-bit linear counts)
  kV6_0,  // SDMA 6.0: gfx11 (sdma_v6_0_0_pkt_open.h)
};

// Returns the SDMA generation of a GPU by its KFD gfx_target_version (major*10000 + minor*100 + stepping), or
// nullopt for one without a KFD SDMA engine we model (before gfx9, or gfx12 and later).
constexpr std::optional<Generation> GenerationOf(uint32_t gfx_target_version) {
  const uint32_t major = gfx_target_version / 10000;
  const uint32_t minor = gfx_target_version / 100 % 100;
  const uint32_t stepping = gfx_target_version % 100;
  if (major == 9) {
    if (minor == 0 && stepping == 10) return Generation::kV4_4;  // gfx90a
    if (minor == 4) return Generation::kV4_4;                    // gfx940-gfx942
    return Generation::kV4_0;
  }
  if (major == 10) return minor < 3 ? Generation::kV5_0 : Generation::kV5_2;
  if (major == 11) return Generation::kV6_0;
  return std::nullopt;
}

constexpr const char* GenerationName(Generation g) {
  switch (g) {
    case Generation::kV4_0: return "SDMA 4.0";
    case Generation::kV4_4: return "SDMA 4.4";
    case Generation::kV5_0: return "SDMA 5.0";
    case Generation::kV5_2: return "SDMA 5.2";
    case Generation::kV6_0: return "SDMA 6.0";
  }
  return "SDMA ?";
}

// Width of COPY_LINEAR's and CONST_FILL's count field.
constexpr uint32_t LinearCountBits(Generation g) {
  return g == Generation::kV4_0 || g == Generation::kV5_0 ? 22 : 30;
}
// The most bytes one COPY_LINEAR or CONST_FILL moves on `g`.
constexpr uint64_t MaxLinearBytes(Generation g) { return uint64_t{1} << LinearCountBits(g); }
// Width of WRITE_LINEAR's dword count field.
constexpr uint32_t WriteCountBits(Generation g) {
  return g == Generation::kV4_0 || g == Generation::kV4_4 ? 22 : 20;
}
constexpr bool HasGcr(Generation g) { return g != Generation::kV4_0 && g != Generation::kV4_4; }

// The largest COPY_LINEAR / CONST_FILL every generation accepts (a 22-bit count): what a producer that does not
// know its GPU's generation splits by.
inline constexpr uint32_t kMaxLinearBytes = 1u << 22;

enum class Opcode : uint8_t {
  kNop = 0,
  kCopy = 1,
  kWrite = 2,
  kFence = 5,
  kTrap = 6,
  kPollRegMem = 8,
  kAtomic = 10,
  kConstFill = 11,
  kTimestamp = 13,
  kGcrReq = 17,
};

// Sub-opcodes (header bits 8-15) the engines accept.
inline constexpr uint32_t kSubCopyLinear = 0;
inline constexpr uint32_t kSubCopyLinearRect = 4;  // amdgpu's SDMA_SUBOP_COPY_LINEAR_SUB_WIND
inline constexpr uint32_t kSubWriteLinear = 0;
inline constexpr uint32_t kSubTimestampSetLocal = 0;
inline constexpr uint32_t kSubTimestampGetLocal = 1;
inline constexpr uint32_t kSubTimestampGetGlobal = 2;
inline constexpr uint32_t kSubGcrKernel = 0;  // what amdgpu's rings emit
inline constexpr uint32_t kSubGcrUser = 1;    // ROCr's SDMA_SUBOP_USER_GCR

inline constexpr uint32_t kCopyBroadcastBit = 1u << 27;
inline constexpr uint32_t kPollHdpFlushBit = 1u << 26;
inline constexpr uint32_t kPollMemBit = 1u << 31;
inline constexpr uint32_t kAtomicLoopBit = 1u << 16;
inline constexpr uint32_t kFillSizeShift = 30;
inline constexpr uint32_t kFillBytes = 0;
inline constexpr uint32_t kFillDwords = 2;
inline constexpr uint32_t kNopCountShift = 16;
inline constexpr uint32_t kNopCountMask = 0x3fff;
inline constexpr uint32_t kPollForever = 0xfff;
inline constexpr uint32_t kTrapContextMask = 0x0fffffff;
// GET_GLOBAL_TIMESTAMP writes 64 bits to a 32-byte aligned address (kfdtest warns otherwise; ROCr asserts it).
inline constexpr uint64_t kTimestampAlignment = 32;

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

// ATOMIC operations (header bits 25-31): the texture cache's TC_OP codes (gfx9 TC_OP enum). The "_RTN" forms;
// SDMA has no return address, so the non-returning forms (+0x40) act the same.
enum class AtomicOp : uint32_t {
  kSwap32 = 0x07,
  kCmpSwap32 = 0x08,
  kAdd32 = 0x0f,
  kSub32 = 0x10,
  kSmin32 = 0x11,
  kUmin32 = 0x12,
  kSmax32 = 0x13,
  kUmax32 = 0x14,
  kAnd32 = 0x15,
  kOr32 = 0x16,
  kXor32 = 0x17,
  kInc32 = 0x18,
  kDec32 = 0x19,
  kSwap64 = 0x27,
  kCmpSwap64 = 0x28,
  kAdd64 = 0x2f,  // ROCr's SDMA_ATOMIC_ADD64: its signal decrement adds -1
  kSub64 = 0x30,
  kSmin64 = 0x31,
  kUmin64 = 0x32,
  kSmax64 = 0x33,
  kUmax64 = 0x34,
  kAnd64 = 0x35,
  kOr64 = 0x36,
  kXor64 = 0x37,
  kInc64 = 0x38,
  kDec64 = 0x39,
};
inline constexpr uint32_t kAtomicNoReturn = 0x40;

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
struct CopyLinearBroadcast {
  uint32_t header = Header(Opcode::kCopy, kSubCopyLinear, kCopyBroadcastBit);
  uint32_t count_minus_one;
  uint32_t parameter = 0;
  uint32_t src_lo, src_hi, dst1_lo, dst1_hi, dst2_lo, dst2_hi;
};
// COPY_LINEAR_SUB_WINDOW: a 3-D box of elements between two pitched surfaces. The field widths are the
// pre-gfx12 ones every generation modelled here shares (gfx12 moved and widened them).
struct CopyLinearRect {
  uint32_t header;
  uint32_t src_lo, src_hi;
  uint32_t src_xy;          // offset x [0-13], offset y [16-29], in elements
  uint32_t src_z_pitch;     // offset z [0-10], pitch - 1 [13-31]
  uint32_t src_slice;       // slice pitch - 1 [0-27]
  uint32_t dst_lo, dst_hi;
  uint32_t dst_xy;
  uint32_t dst_z_pitch;
  uint32_t dst_slice;
  uint32_t rect_xy;         // width - 1 [0-13], height - 1 [16-29]
  uint32_t rect_z_swap;     // depth - 1 [0-10], dst swap [16-17], src swap [24-25]
};
inline constexpr uint32_t kRectElementShift = 29;
inline constexpr uint32_t kRectMaxElement = 4;      // 16-byte elements
inline constexpr uint32_t kRectPitchBits = 19;
inline constexpr uint32_t kRectSliceBits = 28;
inline constexpr uint32_t kRectXYBits = 14;         // offsets x/y and the width and height
inline constexpr uint32_t kRectZBits = 11;          // offset z and the depth
inline constexpr uint32_t kRectPitchShift = 13;
inline constexpr uint32_t kRectYShift = 16;
inline constexpr uint32_t kRectDstSwapShift = 16;
inline constexpr uint32_t kRectSrcSwapShift = 24;
inline constexpr uint32_t kRectSwapMask = 3;

template <size_t kDwords>
struct WriteLinear {
  static_assert(kDwords >= 1);
  uint32_t header = Header(Opcode::kWrite, kSubWriteLinear);
  uint32_t dst_lo, dst_hi;
  uint32_t count_minus_one = kDwords - 1;
  std::array<uint32_t, kDwords> data;
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
struct Atomic {
  uint32_t header;
  uint32_t addr_lo, addr_hi, src_lo, src_hi, cmp_lo, cmp_hi, loop_interval;
};
struct ConstFill {
  uint32_t header = Header(Opcode::kConstFill, 0, kFillDwords << kFillSizeShift);
  uint32_t dst_lo, dst_hi, value, count_minus_one;
};
struct Timestamp {
  uint32_t header = Header(Opcode::kTimestamp, kSubTimestampGetGlobal);
  uint32_t addr_lo, addr_hi;
};
struct GcrReq {
  uint32_t header = Header(Opcode::kGcrReq, kSubGcrUser);
  uint32_t payload[4];
};
static_assert(sizeof(CopyLinear) == 28 && sizeof(CopyLinearBroadcast) == 36 && sizeof(WriteLinear<1>) == 20);
static_assert(sizeof(Fence) == 16 && sizeof(Trap) == 8 && sizeof(PollRegMem) == 24 && sizeof(Atomic) == 32);
static_assert(sizeof(CopyLinearRect) == 52 && offsetof(CopyLinearRect, dst_lo) == 24 &&
              offsetof(CopyLinearRect, rect_xy) == 44);
static_assert(sizeof(ConstFill) == 20 && sizeof(Timestamp) == 12 && sizeof(GcrReq) == 20);

// Builders for tests, benchmarks and the runtime's SDMA blit. Counts are checked by the engine, not here: a
// builder is also how a test makes a packet too large for its generation.
constexpr CopyLinear MakeCopy(uint64_t dst, uint64_t src, uint32_t bytes) {
  return CopyLinear{Header(Opcode::kCopy), bytes - 1, 0, Lo(src), Hi(src), Lo(dst), Hi(dst)};
}
constexpr CopyLinearBroadcast MakeBroadcastCopy(uint64_t dst1, uint64_t dst2, uint64_t src, uint32_t bytes) {
  return CopyLinearBroadcast{Header(Opcode::kCopy, kSubCopyLinear, kCopyBroadcastBit),
                             bytes - 1, 0, Lo(src), Hi(src), Lo(dst1), Hi(dst1), Lo(dst2), Hi(dst2)};
}
// One side of a COPY_LINEAR_SUB_WINDOW, in elements: `pitch` and `slice` are the real pitches (not minus one);
// a slice of 0 leaves the field 0, as ROCr does for a one-slice box.
struct RectSurface {
  uint64_t address;  // dword aligned
  uint32_t x = 0, y = 0, z = 0;
  uint32_t pitch = 0;
  uint32_t slice = 0;
};
constexpr uint32_t RectMask(uint32_t bits) { return (1u << bits) - 1; }
constexpr CopyLinearRect MakeCopyRect(uint32_t element, const RectSurface& dst, const RectSurface& src, uint32_t width,
                                      uint32_t height, uint32_t depth) {
  auto xy = [](uint32_t x, uint32_t y) {
    return (x & RectMask(kRectXYBits)) | ((y & RectMask(kRectXYBits)) << kRectYShift);
  };
  auto z_pitch = [](uint32_t z, uint32_t pitch) {
    return (z & RectMask(kRectZBits)) | (((pitch - 1) & RectMask(kRectPitchBits)) << kRectPitchShift);
  };
  auto slice = [](uint32_t s) { return s == 0 ? 0u : (s - 1) & RectMask(kRectSliceBits); };
  return CopyLinearRect{Header(Opcode::kCopy, kSubCopyLinearRect, (element & 7) << kRectElementShift),
                        Lo(src.address), Hi(src.address), xy(src.x, src.y), z_pitch(src.z, src.pitch), slice(src.slice),
                        Lo(dst.address), Hi(dst.address), xy(dst.x, dst.y), z_pitch(dst.z, dst.pitch), slice(dst.slice),
                        xy(width - 1, height - 1), (depth - 1) & RectMask(kRectZBits)};
}
template <size_t kDwords>
constexpr WriteLinear<kDwords> MakeWrite(uint64_t dst, const std::array<uint32_t, kDwords>& data) {
  return WriteLinear<kDwords>{Header(Opcode::kWrite, kSubWriteLinear), Lo(dst), Hi(dst), kDwords - 1, data};
}
constexpr Fence MakeFence(uint64_t addr, uint32_t value) { return Fence{Header(Opcode::kFence), Lo(addr), Hi(addr), value}; }
constexpr Trap MakeTrap(uint32_t context) { return Trap{Header(Opcode::kTrap), context & kTrapContextMask}; }
constexpr PollRegMem MakePoll(uint64_t addr, uint32_t reference, uint32_t mask, PollFunction f,
                              uint32_t interval_us = 10, uint32_t retries = kPollForever) {
  return PollRegMem{Header(Opcode::kPollRegMem, 0, kPollMemBit | (static_cast<uint32_t>(f) << 28)), Lo(addr), Hi(addr),
                    reference, mask, (interval_us & 0xffff) | ((retries & 0xfff) << 16)};
}
// ROCr's HDP flush (sdma_registers.h hdp_flush_cmd): a register POLL_REGMEM that always passes.
constexpr PollRegMem MakeHdpFlush() { return PollRegMem{Header(Opcode::kPollRegMem), 0, 0x80000000u, 0, 0, 0}; }
constexpr Atomic MakeAtomic(uint64_t addr, AtomicOp op, uint64_t src, uint64_t cmp = 0, bool loop = false,
                            uint32_t loop_interval = 0) {
  return Atomic{Header(Opcode::kAtomic, 0, (static_cast<uint32_t>(op) << 25) | (loop ? kAtomicLoopBit : 0)),
                Lo(addr), Hi(addr), Lo(src), Hi(src), Lo(cmp), Hi(cmp), loop_interval & 0x1fff};
}
constexpr ConstFill MakeFill(uint64_t dst, uint32_t value, uint32_t bytes) {
  return ConstFill{Header(Opcode::kConstFill, 0, kFillDwords << kFillSizeShift), Lo(dst), Hi(dst), value, bytes - 1};
}
constexpr ConstFill MakeByteFill(uint64_t dst, uint8_t value, uint32_t bytes) {
  return ConstFill{Header(Opcode::kConstFill, 0, kFillBytes << kFillSizeShift), Lo(dst), Hi(dst), value, bytes - 1};
}
constexpr Timestamp MakeTimestamp(uint64_t addr) {
  return Timestamp{Header(Opcode::kTimestamp, kSubTimestampGetGlobal), Lo(addr), Hi(addr)};
}
// A NOP that spans `dwords` dwords in all (kfdtest's SDMANopPacket(count)); `dwords` in [1, 0x4000].
constexpr uint32_t MakeNopHeader(uint32_t dwords) {
  return Header(Opcode::kNop, 0, ((dwords - 1) & kNopCountMask) << kNopCountShift);
}

}  // namespace hipmem::gpu_abi::sdma

#endif  // HIPMEM_GPU_ABI_SDMA_PACKETS_H_
