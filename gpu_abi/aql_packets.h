// The AQL packet format the simulated compute CP executes, and the AMD signal object as it sits in memory.
//
// The simulator is the hardware side of the HSA queue ABI, so it defines the layouts itself (ROCr's hsa.h,
// amd_hsa_signal.h and amd_hsa_queue.h are the producer side and are not included here). Every packet is
// 64 bytes, little-endian, in a ring of 2^n slots; packet index i lives in slot i % slots.
//
//   header (16 bits, every packet)   bits 0-7   type: 0 VENDOR_SPECIFIC, 1 INVALID, 2 KERNEL_DISPATCH,
//                                                3 BARRIER_AND, 4 AGENT_DISPATCH, 5 BARRIER_OR
//                                    bit  8     barrier (wait for every earlier packet to complete)
//                                    bits 9-10  acquire fence scope (0 none, 1 agent, 2 system)
//                                    bits 11-12 release fence scope
//   KERNEL_DISPATCH   @0 header  @2 setup (bits 0-1: dimensions)  @4/@6/@8 workgroup_size_x/y/z (u16)
//                     @10 reserved  @12/@16/@20 grid_size_x/y/z (u32)  @24 private_segment_size
//                     @28 group_segment_size  @32 kernel_object (GPU VA)  @40 kernarg_address (GPU VA)
//                     @48 reserved  @56 completion_signal
//   BARRIER_AND / _OR @0 header  @2/@4 reserved  @8 dep_signal[5]  @48 reserved  @56 completion_signal
//   amd_signal_t      @0 kind (i64)  @8 value (i64)  @16 event_mailbox_ptr (u64)  @24 event_id (u32)
//                     @28 reserved  @32 start_ts  @40 end_ts  @48 queue_ptr  @56 reserved; 64 bytes, 64-aligned
//
// A signal handle is the GPU VA of its amd_signal_t (ROCr's Signal::Convert takes &amd_signal); handle 0
// means "no signal". A producer publishes a packet by writing bytes 4-63 first and then the header and
// setup as one 32-bit release store (WritePacket below), the way ROCr and CLR do; the ring starts filled
// with INVALID headers, and the CP puts INVALID back into a slot it has consumed (the MEC firmware does
// this on hardware). Barrier-AND treats a zero dep_signal as satisfied, barrier-OR as never satisfied
// (hsa.h's field comments).
#ifndef HIPMEM_GPU_ABI_AQL_PACKETS_H_
#define HIPMEM_GPU_ABI_AQL_PACKETS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/aliased_memory_sync.h"

namespace hipmem::gpu_abi::aql {

inline constexpr uint32_t kPacketBytes = 64;

enum class PacketType : uint8_t {
  kVendorSpecific = 0,
  kInvalid = 1,
  kKernelDispatch = 2,
  kBarrierAnd = 3,
  kAgentDispatch = 4,
  kBarrierOr = 5,
};

enum class FenceScope : uint16_t {
  kNone = 0,
  kAgent = 1,
  kSystem = 2,
};

// Header sub-field offsets and widths, in bits.
inline constexpr int kHeaderTypeShift = 0;
inline constexpr int kHeaderTypeWidth = 8;
inline constexpr int kHeaderBarrierShift = 8;
inline constexpr int kHeaderAcquireFenceScopeShift = 9;
inline constexpr int kHeaderReleaseFenceScopeShift = 11;
inline constexpr int kHeaderFenceScopeWidth = 2;
// Kernel-dispatch setup: the number of grid dimensions in bits 0-1.
inline constexpr int kSetupDimensionsShift = 0;
inline constexpr int kSetupDimensionsWidth = 2;

constexpr uint16_t Header(PacketType type, bool barrier = true, FenceScope acquire = FenceScope::kSystem,
                          FenceScope release = FenceScope::kSystem) {
  return static_cast<uint16_t>((static_cast<uint16_t>(type) << kHeaderTypeShift) |
                               (static_cast<uint16_t>(barrier ? 1 : 0) << kHeaderBarrierShift) |
                               (static_cast<uint16_t>(acquire) << kHeaderAcquireFenceScopeShift) |
                               (static_cast<uint16_t>(release) << kHeaderReleaseFenceScopeShift));
}
constexpr PacketType TypeOf(uint16_t header) {
  return static_cast<PacketType>((header >> kHeaderTypeShift) & ((1u << kHeaderTypeWidth) - 1));
}
constexpr bool BarrierBit(uint16_t header) { return ((header >> kHeaderBarrierShift) & 1) != 0; }
constexpr uint16_t Dimensions(uint16_t setup) {
  return static_cast<uint16_t>((setup >> kSetupDimensionsShift) & ((1u << kSetupDimensionsWidth) - 1));
}

struct KernelDispatchPacket {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size_x;
  uint16_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x;
  uint32_t grid_size_y;
  uint32_t grid_size_z;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal;
};

inline constexpr int kMaxDepSignals = 5;

// BARRIER_AND and BARRIER_OR share this layout; the header's type tells them apart.
struct BarrierPacket {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[kMaxDepSignals];
  uint64_t reserved2;
  uint64_t completion_signal;
};

enum class SignalKind : int64_t {
  kInvalid = 0,
  kUser = 1,
  kDoorbell = -1,
  kLegacyDoorbell = -2,
};

struct alignas(64) AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts;
  uint64_t end_ts;
  uint64_t queue_ptr;
  uint32_t reserved3[2];
};

static_assert(sizeof(KernelDispatchPacket) == kPacketBytes && sizeof(BarrierPacket) == kPacketBytes);
static_assert(offsetof(KernelDispatchPacket, setup) == 2 && offsetof(KernelDispatchPacket, workgroup_size_x) == 4);
static_assert(offsetof(KernelDispatchPacket, grid_size_x) == 12 && offsetof(KernelDispatchPacket, grid_size_z) == 20);
static_assert(offsetof(KernelDispatchPacket, private_segment_size) == 24);
static_assert(offsetof(KernelDispatchPacket, group_segment_size) == 28);
static_assert(offsetof(KernelDispatchPacket, kernel_object) == 32);
static_assert(offsetof(KernelDispatchPacket, kernarg_address) == 40);
static_assert(offsetof(KernelDispatchPacket, completion_signal) == 56);
static_assert(offsetof(BarrierPacket, dep_signal) == 8 && offsetof(BarrierPacket, completion_signal) == 56);
static_assert(sizeof(AmdSignal) == 64 && alignof(AmdSignal) == 64);
static_assert(offsetof(AmdSignal, value) == 8 && offsetof(AmdSignal, event_mailbox_ptr) == 16);
static_assert(offsetof(AmdSignal, event_id) == 24 && offsetof(AmdSignal, start_ts) == 32);
static_assert(offsetof(AmdSignal, queue_ptr) == 48);
static_assert(std::is_trivially_copyable_v<KernelDispatchPacket> && std::is_trivially_copyable_v<BarrierPacket>);

// Byte offsets inside amd_signal_t that the CP touches.
inline constexpr uint64_t kSignalValueOffset = offsetof(AmdSignal, value);
inline constexpr uint64_t kSignalMailboxOffset = offsetof(AmdSignal, event_mailbox_ptr);
inline constexpr uint64_t kSignalEventIdOffset = offsetof(AmdSignal, event_id);
// Where a profiling CP stamps a packet's start and end (GPU clock counter ticks).
inline constexpr uint64_t kSignalStartTsOffset = offsetof(AmdSignal, start_ts);
inline constexpr uint64_t kSignalEndTsOffset = offsetof(AmdSignal, end_ts);

// A barrier packet waiting on up to five signals (handles; 0 = unused slot).
constexpr BarrierPacket MakeBarrier(PacketType type, const uint64_t (&deps)[kMaxDepSignals], uint64_t completion_signal,
                                    bool barrier_bit = true) {
  BarrierPacket p{Header(type, barrier_bit), 0, 0, {}, 0, completion_signal};
  for (int i = 0; i < kMaxDepSignals; ++i) p.dep_signal[i] = deps[i];
  return p;
}
constexpr BarrierPacket MakeBarrierAnd(const uint64_t (&deps)[kMaxDepSignals], uint64_t completion_signal = 0) {
  return MakeBarrier(PacketType::kBarrierAnd, deps, completion_signal);
}
constexpr BarrierPacket MakeBarrierOr(const uint64_t (&deps)[kMaxDepSignals], uint64_t completion_signal = 0) {
  return MakeBarrier(PacketType::kBarrierOr, deps, completion_signal);
}

// Publishes `packet` into a ring slot (the producer's view, 64-byte aligned): the body first, then header and
// setup together with one release store, so a CP that sees a valid header also sees the body.
template <typename Packet>
void WritePacket(void* slot, const Packet& packet) {
  static_assert(sizeof(Packet) == kPacketBytes && std::is_trivially_copyable_v<Packet>);
  auto* bytes = static_cast<unsigned char*>(slot);
  std::memcpy(bytes + 4, reinterpret_cast<const unsigned char*>(&packet) + 4, kPacketBytes - 4);
  uint32_t header_and_setup = 0;
  std::memcpy(&header_and_setup, &packet, sizeof(header_and_setup));
  // The CP may fetch a published slot before the doorbell rings for it, through its own mapping of the ring: the
  // header's release store is the edge then, and ThreadSanitizer keys it by this mapping's address only.
  PublishThroughAliases();
  std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(slot)).store(header_and_setup, std::memory_order_release);
}

// What a freshly allocated ring holds in every slot (ROCr fills the ring with INVALID headers).
inline void InvalidateSlot(void* slot) {
  std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(slot))
      .store(static_cast<uint32_t>(PacketType::kInvalid), std::memory_order_release);
}

// The scratch V# a GFX9 runtime puts in amd_queue_t.scratch_resource_descriptor for a queue's scratch backing of
// `bytes` at `base` (ROCr's InitScratchSRD), which the CP hands each wave as its private segment buffer: base (48
// bits) with SWIZZLE_ENABLE (word1 bit 31), NUM_RECORDS the backing's size, and in word3 DST_SEL XYZW, NUM_FORMAT
// UINT, DATA_FORMAT 32, ELEMENT_SIZE 4 bytes (1), INDEX_STRIDE 64 (3), ADD_TID_ENABLE, a buffer resource.
constexpr std::array<uint32_t, 4> Gfx9ScratchResource(uint64_t base, uint32_t bytes) {
  constexpr uint32_t kDstSelXyzw = 4u | (5u << 3) | (6u << 6) | (7u << 9);
  constexpr uint32_t kNumFormatUint = 4u << 12;
  constexpr uint32_t kDataFormat32 = 4u << 15;
  constexpr uint32_t kElementSize4 = 1u << 19;
  constexpr uint32_t kIndexStride64 = 3u << 21;
  constexpr uint32_t kAddTidEnable = 1u << 23;
  return {static_cast<uint32_t>(base), static_cast<uint32_t>((base >> 32) & 0xffffu) | (1u << 31), bytes,
          kDstSelXyzw | kNumFormatUint | kDataFormat32 | kElementSize4 | kIndexStride64 | kAddTidEnable};
}

}  // namespace hipmem::gpu_abi::aql

#endif  // HIPMEM_GPU_ABI_AQL_PACKETS_H_
