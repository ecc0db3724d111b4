// The simulated GPU's built-in kernels: what a KERNEL_DISPATCH packet can run on the simulated compute CP.
//
// Plays the blit kernels ROCr and CLR load for copies and fills (ROCr's BlitKernel, CLR's shader copy). A
// real kernel_object is the GPU VA of a 64-byte kernel descriptor followed by ISA; the simulator cannot run
// ISA, so its descriptor names a built-in kernel instead:
//
//   KernelDescriptor (64 bytes, 64-aligned)  @0 magic "BLIT" (0x54494c42)  @4 version (1)  @8 kernel id
//                                            @12 kernarg size (bytes)  @16.. reserved, 0
//   kCopy       kernargs  @0 src (VA)  @8 dst (VA)   @16 bytes (any alignment, any size)
//   kFill       kernargs  @0 dst (VA)  @8 bytes      @16 32-bit pattern (dst and bytes dword-aligned)
//   kFillBytes  kernargs  @0 dst (VA)  @8 bytes      @16 byte value in bits 0-7 (any alignment)
//
// Work split (a 1-D grid; what each work-item does, as in a real blit kernel): with n = grid_size_x work-items
// and granule g (4 for kFill, 1 otherwise), work-item k handles bytes [k*c, (k+1)*c) of the operation, clipped
// to its size, where c = AlignUp(ceil(bytes / n), g). The result does not depend on the geometry; the
// workgroups (ceil(n / workgroup_size_x) of them) are the unit the simulated compute units run in parallel.
// An unknown magic, version or kernel id, a kernarg size that does not match, or a misaligned fill is a queue
// error; an unmapped descriptor, kernarg block, source or destination is a VM fault. Copies whose source and
// destination overlap have an unspecified result (hsa_memory_copy forbids overlap too).
#ifndef HIPMEM_GPU_ABI_BLIT_KERNELS_H_
#define HIPMEM_GPU_ABI_BLIT_KERNELS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gpu_abi/aql_packets.h"

namespace hipmem::gpu_abi::blit {

inline constexpr uint32_t kDescriptorMagic = 0x54494c42;  // "BLIT" in memory order
inline constexpr uint32_t kDescriptorVersion = 1;

enum class KernelId : uint32_t {
  kCopy = 1,
  kFill = 2,
  kFillBytes = 3,
};

struct alignas(64) KernelDescriptor {
  uint32_t magic;
  uint32_t version;
  uint32_t kernel_id;     // a KernelId
  uint32_t kernarg_size;  // sizeof the kernel's argument block
  uint32_t reserved[12];
};

struct CopyArgs {
  uint64_t src;
  uint64_t dst;
  uint64_t bytes;
  uint64_t reserved;
};

// kFill and kFillBytes.
struct FillArgs {
  uint64_t dst;
  uint64_t bytes;
  uint32_t pattern;
  uint32_t reserved[3];
};

static_assert(sizeof(KernelDescriptor) == 64 && offsetof(KernelDescriptor, kernarg_size) == 12);
static_assert(sizeof(CopyArgs) == 32 && offsetof(CopyArgs, dst) == 8 && offsetof(CopyArgs, bytes) == 16);
static_assert(sizeof(FillArgs) == 32 && offsetof(FillArgs, bytes) == 8 && offsetof(FillArgs, pattern) == 16);

// The kernarg block size a kernel expects, or 0 for an unknown id.
constexpr uint32_t KernargSize(uint32_t kernel_id) {
  switch (static_cast<KernelId>(kernel_id)) {
    case KernelId::kCopy: return sizeof(CopyArgs);
    case KernelId::kFill:
    case KernelId::kFillBytes: return sizeof(FillArgs);
  }
  return 0;
}

// Bytes every work-item's share is rounded to.
constexpr uint64_t Granule(KernelId id) { return id == KernelId::kFill ? 4 : 1; }

struct ByteRange {
  uint64_t begin;
  uint64_t end;  // exclusive; begin == end: nothing to do
};

// The bytes [begin, end) of the operation that workgroup `workgroup` handles (see the work split above).
// `grid` and `workgroup_size` are > 0.
constexpr ByteRange WorkgroupRange(KernelId id, uint64_t bytes, uint32_t grid, uint32_t workgroup_size,
                                   uint64_t workgroup) {
  const uint64_t g = Granule(id);
  const uint64_t per_item = (bytes / grid + (bytes % grid != 0 ? 1 : 0) + g - 1) / g * g;
  const uint64_t first_item = std::min<uint64_t>(workgroup * workgroup_size, grid);
  const uint64_t end_item = std::min<uint64_t>(first_item + workgroup_size, grid);
  // Saturate instead of overflowing: items past the end of the operation do nothing.
  auto offset = [&](uint64_t item) {
    uint64_t product = 0;
    return __builtin_mul_overflow(item, per_item, &product) ? bytes : std::min(product, bytes);
  };
  return ByteRange{offset(first_item), offset(end_item)};
}

// Launch geometry the builders below choose: 256 work-items per workgroup, about 1 KiB per work-item, so one
// workgroup moves about 256 KiB (enough to amortise a page-table lookup, small enough to spread a 64 MiB
// copy over many compute units).
inline constexpr uint32_t kWorkgroupSize = 256;
inline constexpr uint64_t kBytesPerWorkItem = 1024;
inline constexpr uint32_t kMaxGrid = 0xffffff00;  // the largest multiple of kWorkgroupSize in a u32

constexpr uint32_t GridFor(uint64_t bytes) {
  const uint64_t items = bytes / kBytesPerWorkItem + (bytes % kBytesPerWorkItem != 0 ? 1 : 0);
  return static_cast<uint32_t>(std::clamp<uint64_t>(items, 1, kMaxGrid));
}

constexpr KernelDescriptor MakeDescriptor(KernelId id) {
  return KernelDescriptor{
      kDescriptorMagic, kDescriptorVersion, static_cast<uint32_t>(id), KernargSize(static_cast<uint32_t>(id)), {}};
}
constexpr CopyArgs MakeCopyArgs(uint64_t dst, uint64_t src, uint64_t bytes) { return CopyArgs{src, dst, bytes, 0}; }
constexpr FillArgs MakeFillArgs(uint64_t dst, uint32_t pattern, uint64_t bytes) {
  return FillArgs{dst, bytes, pattern, {}};
}
constexpr FillArgs MakeFillBytesArgs(uint64_t dst, uint8_t value, uint64_t bytes) {
  return FillArgs{dst, bytes, value, {}};
}

// A 1-D dispatch of the kernel whose descriptor is at `descriptor_va`, with its kernargs at `kernarg_va`, over
// an operation of `bytes` bytes. `grid` and `workgroup_size` override the geometry (tests use them to force many
// small workgroups); the workgroup is never larger than the grid, as HSA requires.
constexpr aql::KernelDispatchPacket MakeDispatch(uint64_t descriptor_va, uint64_t kernarg_va, uint64_t bytes,
                                                 uint64_t completion_signal = 0, uint32_t grid = 0,
                                                 uint16_t workgroup_size = kWorkgroupSize) {
  const uint32_t items = grid != 0 ? grid : GridFor(bytes);
  aql::KernelDispatchPacket packet{};
  packet.header = aql::Header(aql::PacketType::kKernelDispatch);
  packet.setup = static_cast<uint16_t>(1u << aql::kSetupDimensionsShift);
  packet.workgroup_size_x = static_cast<uint16_t>(std::min<uint32_t>(items, workgroup_size));
  packet.workgroup_size_y = 1;
  packet.workgroup_size_z = 1;
  packet.grid_size_x = items;
  packet.grid_size_y = 1;
  packet.grid_size_z = 1;
  packet.kernel_object = descriptor_va;
  packet.kernarg_address = kernarg_va;
  packet.completion_signal = completion_signal;
  return packet;
}

}  // namespace hipmem::gpu_abi::blit

#endif  // HIPMEM_GPU_ABI_BLIT_KERNELS_H_
