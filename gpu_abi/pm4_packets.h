// The PM4 packet format the simulated compute micro-engine (MEC) executes on a PM4 compute queue.
//
// A PM4 queue (amdkfd CREATE_QUEUE type COMPUTE, what kfdtest's PM4Queue drives) is a ring of little-endian
// dwords. The producer's write pointer and the engine's read pointer count dwords; on gfx9 and later the write
// pointer and the doorbell are 64-bit and never wrap, while the read pointer the CP reports is a 32-bit dword
// offset that wraps at the ring size. Every packet is a type-3 packet: a header dword and `count + 1` body
// dwords. Addresses are GPU virtual addresses, translated through the queue's GPU page table.
//
// Header (every packet):
//   bit  0      predicate    execute only when the predication state passes (not modelled: always passes)
//   bit  1      shader_type  0 graphics, 1 compute (kfdtest and ROCr set 1; the MEC accepts either)
//   bits 8-15   opcode       the IT_* operation below
//   bits 16-29  count        body dwords - 1 (a NOP with count 0x3FFF is a header-only, one-dword NOP)
//   bits 30-31  type         3; types 0 (register writes), 1 (reserved) and 2 (filler) are not accepted
//
// Bodies, in dwords after the header (gfx9 MEC layouts; "lo" address dwords drop their low 2 bits, or 3 bits
// where the datum is 64-bit, because those bits are not part of the field):
//   NOP              0x10  count+1 ignored dwords
//   DISPATCH_DIRECT  0x15  dim_x | dim_y | dim_z | dispatch_initiator            (a wave launch)
//   DISPATCH_INDIRECT 0x16 addr lo | addr hi | dispatch_initiator                (dim_x/y/z read from memory)
//                            dispatch_initiator: bit 0 COMPUTE_SHADER_EN, 1 PARTIAL_TG_EN, 2 FORCE_START_AT_000,
//                            3 ORDERED_APPEND_ENBL, 4 ORDERED_APPEND_MODE, 5 USE_THREAD_DIMENSIONS (dims are
//                            work-items), 6 ORDER_MODE, 10/11 scalar/vector L1 invalidate, 12 DATA_ATC
//   WRITE_DATA       0x37  control | dst lo | dst hi | data...                     count = 2 + data dwords
//                            control: bits 8-11 dst_sel (0 register, 1 and 5 memory, 2 TC L2 = memory),
//                            bit 16 addr_incr (1: every dword to the same address), bit 20 wr_confirm,
//                            bits 25-26 cache_policy
//   WAIT_REG_MEM     0x3C  control | poll lo | poll hi | reference | mask | poll_interval
//                            control: bits 0-2 function (CompareFunction), bits 4-5 mem_space (0 register,
//                            1 memory), bits 6-7 operation (0 wait, 1 write-wait-write register, 3 wait,
//                            preemptible); poll_interval: bits 0-15 interval, bit 31 optimize_ace_offload
//                            Waits until (*poll & mask) <function> reference.
//   INDIRECT_BUFFER  0x3F  base lo | base hi | control
//                            control: bits 0-19 ib_size (dwords), bit 20 chain, bit 21 offload_polling,
//                            bit 23 valid, bits 24-27 vmid, bits 28-29 cache_policy, bit 31 priv
//                            Runs the IB's packets, then continues after this packet.
//   COPY_DATA        0x40  control | src lo | src hi | dst lo | dst hi
//                            control: bits 0-3 src_sel (0 register, 1/2 memory, 5 immediate, 9 GPU clock,
//                            10 system clock), bits 8-11 dst_sel (0 register, 2/5 memory), bit 16 count_sel
//                            (0 32-bit, 1 64-bit), bit 20 wr_confirm. An immediate is src lo (| src hi << 32).
//   EVENT_WRITE      0x46  control [| addr lo | addr hi]
//                            control: bits 0-5 event_type, bits 8-11 event_index (4: CS_PARTIAL_FLUSH)
//   RELEASE_MEM      0x49  control | select | addr lo | addr hi | data lo | data hi | int_ctxid   (count 6)
//                            control: bits 0-5 event_type (0x14 CACHE_FLUSH_AND_INV_TS, 0x28 BOTTOM_OF_PIPE_TS),
//                            bits 8-11 event_index (5 end of pipe), cache-action bits, bits 25-26 cache_policy
//                            select: bits 16-17 dst_sel (0 memory controller, 1 TC L2), bits 24-26 int_sel
//                            (ReleaseInterrupt), bits 29-31 data_sel (ReleaseData)
//                            At end of pipe: writes the datum, then raises the end-of-pipe interrupt whose
//                            context id is int_ctxid -- how kfdtest signals an event: the event's mailbox slot
//                            gets the event id (64-bit data) and int_ctxid carries the event id to amdkfd,
//                            which looks it up with all 32 bits valid.
//   ACQUIRE_MEM      0x58  coher_cntl | size | size hi | base lo | base hi | poll_interval [| gcr_cntl]
//                            (7 dwords on gfx9, 8 from gfx10): a cache invalidate/flush over a range.
//   SET_SH_REG       0x76  reg_offset | values...   registers from 0x2C00 + reg_offset on (count = values)
//   SET_UCONFIG_REG  0x79  reg_offset | values...   registers from 0xC000 + reg_offset on
#ifndef HIPMEM_GPU_ABI_PM4_PACKETS_H_
#define HIPMEM_GPU_ABI_PM4_PACKETS_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace hipmem::gpu_abi::pm4 {

inline constexpr uint32_t kType3 = 3;
inline constexpr uint32_t kMaxCount = 0x3FFF;  // the 14-bit count field
// The header-only NOP: type 3, NOP, count 0x3FFF, compute shader type. kfdtest pads the ring end with it.
inline constexpr uint32_t kShortNop = 0xFFFF1002u;

enum class Opcode : uint8_t {
  kNop = 0x10,
  kDispatchDirect = 0x15,
  kDispatchIndirect = 0x16,
  kWriteData = 0x37,
  kWaitRegMem = 0x3C,
  kIndirectBuffer = 0x3F,
  kCopyData = 0x40,
  kEventWrite = 0x46,
  kReleaseMem = 0x49,
  kAcquireMem = 0x58,
  kSetShReg = 0x76,
  kSetUconfigReg = 0x79,
};

// The header's fields.
constexpr uint32_t PacketType(uint32_t header) { return header >> 30; }
constexpr uint32_t Count(uint32_t header) { return (header >> 16) & kMaxCount; }
constexpr uint32_t OpcodeOf(uint32_t header) { return (header >> 8) & 0xff; }

// A type-3 header for a packet of `total_dwords` (header included, >= 2), compute shader type.
constexpr uint32_t Header(Opcode op, uint32_t total_dwords) {
  return (kType3 << 30) | (((total_dwords - 2) & kMaxCount) << 16) | (uint32_t{static_cast<uint8_t>(op)} << 8) |
         (1u << 1);
}

// WRITE_DATA dst_sel and COPY_DATA src_sel/dst_sel values.
inline constexpr uint32_t kSelRegister = 0;
inline constexpr uint32_t kSelMemory = 1;  // WRITE_DATA "memory, synchronous" (CI), COPY_DATA "TC L2, obsolete"
inline constexpr uint32_t kSelTcL2 = 2;
inline constexpr uint32_t kSelImmediate = 5;  // COPY_DATA src_sel
inline constexpr uint32_t kSelMemoryAsync = 5;  // WRITE_DATA dst_sel (what kfdtest uses); COPY_DATA dst_sel "memory"
inline constexpr uint32_t kSelGpuClock = 9;     // COPY_DATA src_sel
inline constexpr uint32_t kSelSystemClock = 10;  // COPY_DATA src_sel

// WAIT_REG_MEM compare functions (control bits 0-2), applied to (*poll & mask) vs reference.
enum class CompareFunction : uint32_t {
  kAlways = 0,
  kLess = 1,
  kLessEqual = 2,
  kEqual = 3,
  kNotEqual = 4,
  kGreaterEqual = 5,
  kGreater = 6,
};
inline constexpr uint32_t kMemSpaceRegister = 0;
inline constexpr uint32_t kMemSpaceMemory = 1;
inline constexpr uint32_t kOperationWait = 0;
inline constexpr uint32_t kOperationWriteWaitWrite = 1;
inline constexpr uint32_t kOperationWaitPreemptible = 3;

// RELEASE_MEM int_sel (select bits 24-26).
enum class ReleaseInterrupt : uint32_t {
  kNone = 0,
  kInterruptOnly = 1,              // no write, just the interrupt
  kInterruptAfterWriteConfirm = 2,  // write, then interrupt (kfdtest's event signal)
  kWriteConfirmOnly = 3,            // write, wait for confirmation, no interrupt (kfdtest's "polling" fence)
};
// RELEASE_MEM data_sel (select bits 29-31).
enum class ReleaseData : uint32_t {
  kNone = 0,
  kLow32 = 1,
  kData64 = 2,
  kGpuClock = 3,
  kSystemClock = 4,
};
inline constexpr uint32_t kEventCacheFlushAndInvTs = 0x14;
inline constexpr uint32_t kEventBottomOfPipeTs = 0x28;
inline constexpr uint32_t kEventCsPartialFlush = 0x07;
inline constexpr uint32_t kEventIndexEndOfPipe = 5;
inline constexpr uint32_t kEventIndexCsPartialFlush = 4;

// The first register SET_SH_REG / SET_UCONFIG_REG offsets count from.
inline constexpr uint32_t kShRegBase = 0x2C00;
inline constexpr uint32_t kUconfigRegBase = 0xC000;

inline constexpr uint32_t kMaxIbDwords = (1u << 20) - 1;  // ib_size is 20 bits

// The GFX9 compute shader registers a DISPATCH launches with (absolute dword offsets, as amdgpu's gc_9_0 register
// headers and kfdtest's Dispatch.cpp name them; SET_SH_REG writes them at kShRegBase + reg_offset).
inline constexpr uint32_t kComputeStartX = 0x2E04;  // START_X/Y/Z: the first workgroup id (kfdtest writes 0)
inline constexpr uint32_t kComputeNumThreadX = 0x2E07;  // NUM_THREAD_X/Y/Z: the workgroup size, bits 0-15
inline constexpr uint32_t kComputePgmLo = 0x2E0C;       // PGM_LO/HI: the shader's VA >> 8
inline constexpr uint32_t kComputePgmHi = 0x2E0D;
inline constexpr uint32_t kComputePgmRsrc1 = 0x2E12;
inline constexpr uint32_t kComputePgmRsrc2 = 0x2E13;
inline constexpr uint32_t kComputeResourceLimits = 0x2E15;
inline constexpr uint32_t kComputeTmpringSize = 0x2E18;  // WAVES bits 0-11, WAVESIZE bits 12-24 (1 KiB units)
inline constexpr uint32_t kComputePgmRsrc3 = 0x2E2D;     // gfx90a and gfx942: ACCUM_OFFSET bits 0-5
inline constexpr uint32_t kComputeUserData0 = 0x2E40;    // USER_DATA_0..15: s0..s15
inline constexpr uint32_t kComputeUserDataCount = 16;

// DISPATCH_DIRECT / DISPATCH_INDIRECT's dispatch_initiator (COMPUTE_DISPATCH_INITIATOR).
inline constexpr uint32_t kInitiatorComputeShaderEn = 1u << 0;
inline constexpr uint32_t kInitiatorPartialTgEn = 1u << 1;
inline constexpr uint32_t kInitiatorForceStartAt000 = 1u << 2;
inline constexpr uint32_t kInitiatorOrderedAppendEnbl = 1u << 3;
inline constexpr uint32_t kInitiatorUseThreadDimensions = 1u << 5;  // dim_x/y/z count work-items, not workgroups
// kfdtest's value: COMPUTE_SHADER_EN | USE_THREAD_DIMENSIONS (plus DATA_ATC, bit 12, on APUs).
inline constexpr uint32_t kKfdtestDispatchInitiator = kInitiatorComputeShaderEn | kInitiatorUseThreadDimensions;

constexpr uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// ---- builders (tests and raw clients). Each returns the packet's dwords, header first. ----

// A NOP of `total_dwords` (>= 1): header-only for 1, else a header and total - 1 ignored dwords.
inline std::vector<uint32_t> MakeNop(uint32_t total_dwords = 1) {
  if (total_dwords <= 1) return {kShortNop};
  std::vector<uint32_t> p(total_dwords, 0);
  p[0] = Header(Opcode::kNop, total_dwords);
  return p;
}

// WRITE_DATA of `data` to memory at `dst` (4-byte aligned), confirmed, incrementing the address.
inline std::vector<uint32_t> MakeWriteData(uint64_t dst, std::span<const uint32_t> data, bool one_address = false) {
  std::vector<uint32_t> p = {Header(Opcode::kWriteData, 4 + static_cast<uint32_t>(data.size())),
                             (kSelMemoryAsync << 8) | (one_address ? 1u << 16 : 0u) | (1u << 20), Lo(dst) & ~3u,
                             Hi(dst)};
  p.insert(p.end(), data.begin(), data.end());
  return p;
}
inline std::vector<uint32_t> MakeWriteData(uint64_t dst, std::initializer_list<uint32_t> data) {
  return MakeWriteData(dst, std::span<const uint32_t>(data.begin(), data.size()));
}

// RELEASE_MEM at end of pipe (CACHE_FLUSH_AND_INV_TS): writes `data` as `data_sel` says at `address`, then
// raises the interrupt `int_sel` names with context id `int_ctxid`.
inline std::vector<uint32_t> MakeReleaseMem(uint64_t address, uint64_t data, ReleaseData data_sel,
                                            ReleaseInterrupt int_sel, uint32_t int_ctxid) {
  const uint32_t align_mask = data_sel == ReleaseData::kLow32 ? ~3u : ~7u;
  return {Header(Opcode::kReleaseMem, 8),
          kEventCacheFlushAndInvTs | (kEventIndexEndOfPipe << 8),
          (static_cast<uint32_t>(int_sel) << 24) | (static_cast<uint32_t>(data_sel) << 29),
          Lo(address) & align_mask,
          Hi(address),
          Lo(data),
          Hi(data),
          int_ctxid};
}

// kfdtest's event signal: the event id into the event's mailbox slot (64-bit), then the interrupt carrying it.
inline std::vector<uint32_t> MakeSignalEvent(uint64_t slot_va, uint32_t event_id) {
  return MakeReleaseMem(slot_va, event_id, ReleaseData::kData64, ReleaseInterrupt::kInterruptAfterWriteConfirm,
                        event_id);
}

// WAIT_REG_MEM on memory: waits until (*addr & mask) <f> reference, looking every `poll_interval`.
inline std::vector<uint32_t> MakeWaitRegMem(uint64_t addr, uint32_t reference, uint32_t mask, CompareFunction f,
                                            uint16_t poll_interval = 4) {
  return {Header(Opcode::kWaitRegMem, 7),
          static_cast<uint32_t>(f) | (kMemSpaceMemory << 4) | (kOperationWait << 6),
          Lo(addr) & ~3u,
          Hi(addr),
          reference,
          mask,
          poll_interval};
}

// INDIRECT_BUFFER running `ib_dwords` dwords at `ib` (4-byte aligned); valid set.
inline std::vector<uint32_t> MakeIndirectBuffer(uint64_t ib, uint32_t ib_dwords, bool chain = false) {
  return {Header(Opcode::kIndirectBuffer, 4), Lo(ib) & ~3u, Hi(ib),
          (ib_dwords & kMaxIbDwords) | (chain ? 1u << 20 : 0u) | (1u << 23)};
}

// COPY_DATA of one 32-bit (or 64-bit) datum from memory at `src` to memory at `dst`.
inline std::vector<uint32_t> MakeCopyData(uint64_t dst, uint64_t src, bool is64) {
  const uint32_t mask = is64 ? ~7u : ~3u;
  return {Header(Opcode::kCopyData, 6), kSelTcL2 | (kSelTcL2 << 8) | (is64 ? 1u << 16 : 0u) | (1u << 20),
          Lo(src) & mask, Hi(src), Lo(dst) & mask, Hi(dst)};
}
// COPY_DATA of the immediate `value` (32- or 64-bit) to memory at `dst`.
inline std::vector<uint32_t> MakeCopyImmediate(uint64_t dst, uint64_t value, bool is64) {
  const uint32_t mask = is64 ? ~7u : ~3u;
  return {Header(Opcode::kCopyData, 6), kSelImmediate | (kSelTcL2 << 8) | (is64 ? 1u << 16 : 0u) | (1u << 20),
          Lo(value), Hi(value), Lo(dst) & mask, Hi(dst)};
}

// ACQUIRE_MEM over everything, as kfdtest builds it for gfx9 (7 dwords).
inline std::vector<uint32_t> MakeAcquireMem() {
  return {Header(Opcode::kAcquireMem, 7), 0x28c00000u, 0xFFFFFFFFu, 0, 0, 0, 4};
}

// EVENT_WRITE CS_PARTIAL_FLUSH (2 dwords), kfdtest's PM4PartialFlushPacket.
inline std::vector<uint32_t> MakeCsPartialFlush() {
  return {Header(Opcode::kEventWrite, 2), kEventCsPartialFlush | (kEventIndexCsPartialFlush << 8)};
}

// SET_SH_REG of consecutive registers from `reg` (an absolute register offset >= kShRegBase).
inline std::vector<uint32_t> MakeSetShReg(uint32_t reg, std::span<const uint32_t> values) {
  std::vector<uint32_t> p = {Header(Opcode::kSetShReg, 2 + static_cast<uint32_t>(values.size())), reg - kShRegBase};
  p.insert(p.end(), values.begin(), values.end());
  return p;
}
inline std::vector<uint32_t> MakeSetShReg(uint32_t reg, std::initializer_list<uint32_t> values) {
  return MakeSetShReg(reg, std::span<const uint32_t>(values.begin(), values.size()));
}

// DISPATCH_INDIRECT of the three dwords (dim_x, dim_y, dim_z) at `dims` (4-byte aligned).
inline std::vector<uint32_t> MakeDispatchIndirect(uint64_t dims, uint32_t dispatch_initiator = 1) {
  return {Header(Opcode::kDispatchIndirect, 4), Lo(dims) & ~3u, Hi(dims), dispatch_initiator};
}

// DISPATCH_DIRECT of a dim_x x dim_y x dim_z grid of workgroups (of work-items with USE_THREAD_DIMENSIONS).
inline std::vector<uint32_t> MakeDispatchDirect(uint32_t dim_x, uint32_t dim_y, uint32_t dim_z,
                                                uint32_t dispatch_initiator = 1) {
  return {Header(Opcode::kDispatchDirect, 5), dim_x, dim_y, dim_z, dispatch_initiator};
}

// A shader launch as kfdtest's Dispatch::BuildIb writes it, for an indirect buffer: the COMPUTE_* registers, then
// DISPATCH_DIRECT.
struct ShaderDispatch {
  uint64_t code_va = 0;  // 256-byte aligned
  uint32_t rsrc1 = 0;
  uint32_t rsrc2 = 0;
  uint32_t rsrc3 = 0;  // written only when `write_rsrc3` (gfx90a and gfx942; kfdtest writes 9)
  bool write_rsrc3 = true;
  std::vector<uint32_t> user_data;  // COMPUTE_USER_DATA_0.. (at most 16)
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  std::array<uint32_t, 3> dims = {1, 1, 1};
  uint32_t initiator = kKfdtestDispatchInitiator;
  uint32_t tmpring_size = 0;
  std::array<uint32_t, 3> start = {0, 0, 0};
};
inline std::vector<uint32_t> MakeShaderDispatch(const ShaderDispatch& d) {
  std::vector<uint32_t> ib;
  const auto add = [&](const std::vector<uint32_t>& p) { ib.insert(ib.end(), p.begin(), p.end()); };
  add(MakeSetShReg(kComputeStartX, {d.start[0], d.start[1], d.start[2], d.workgroup_size[0], d.workgroup_size[1],
                                    d.workgroup_size[2]}));
  add(MakeSetShReg(kComputePgmLo, {Lo(d.code_va >> 8), Hi(d.code_va >> 8)}));
  add(MakeSetShReg(kComputePgmRsrc1, {d.rsrc1, d.rsrc2}));
  if (d.write_rsrc3) add(MakeSetShReg(kComputePgmRsrc3, {d.rsrc3}));
  add(MakeSetShReg(kComputeResourceLimits, {0}));
  add(MakeSetShReg(kComputeTmpringSize, {d.tmpring_size}));
  if (!d.user_data.empty()) add(MakeSetShReg(kComputeUserData0, d.user_data));
  add(MakeDispatchDirect(d.dims[0], d.dims[1], d.dims[2], d.initiator));
  return ib;
}

}  // namespace hipmem::gpu_abi::pm4

#endif  // HIPMEM_GPU_ABI_PM4_PACKETS_H_
