// A device program: one AMDGPU code object loaded on one device, its kernels and its device variables.
//
// Plays ROCclr's amd::Program + roc::LightningProgram (the code object of a fat binary that fits the device's ISA,
// loaded through ROCr's loader: hsa_code_object_reader + hsa_executable, frozen) and amd::Kernel's signature (the
// kernel's arguments from the code object metadata, explicit and hidden, and its resource limits). BuildKernargs
// plays roc::VirtualGPU::submitKernelInternal's kernarg segment: the explicit arguments copied at the offsets the
// metadata gives them, the hidden arguments (code object v4 and v5) filled as CLR fills them.
//
// Ownership: a Program owns its executable (the loaded image in the device's VRAM, freed with it). Immutable after
// Load: thread-safe to share.
#ifndef HIPMEM_CLR_PROGRAM_H_
#define HIPMEM_CLR_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "clr/context.h"
#include "clr/device_printf.h"
#include "gpu_abi/code_object.h"
#include "hsa/executable.h"
#include "hsa/runtime.h"

namespace hipmem::clr {

// What a launch needs of one kernel on one device.
struct Kernel {
  std::string name;              // the metadata's .name (the mangled name the host side registers)
  uint64_t kernel_object = 0;    // the kernel descriptor's GPU address (the AQL packet's kernel_object)
  uint32_t kernarg_segment_size = 0;
  uint32_t kernarg_segment_align = 0;
  uint32_t group_segment_size = 0;    // static LDS; the launch's dynamic shared memory comes on top
  uint32_t private_segment_size = 0;  // scratch per work-item
  uint32_t max_flat_workgroup_size = 0;  // __launch_bounds__, or the compiler's default (1024)
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t agpr_count = 0;
  uint32_t wavefront_size = 0;
  uint32_t code_object_version = 0;
  // The metadata lists hidden_hostcall_buffer (the kernel reaches device printf, amd_device_printf.h) or
  // hidden_printf_buffer (-mprintf-kind=buffered): each dispatch gets a printf buffer (device_printf.h) there.
  bool prints = false;
  // The code object's buffered-printf format strings (amdhsa.printf), for a kernel listing hidden_printf_buffer.
  std::shared_ptr<const PrintfFormats> printf_formats;
  std::vector<gpu_abi::code_object::KernelArg> explicit_args;  // in declaration order
  std::vector<gpu_abi::code_object::KernelArg> hidden_args;
};

// A device variable (__device__, __constant__) of a loaded program.
struct Variable {
  DeviceAddress address;
  Bytes size;
};

class Program {
 public:
  // Loads on `device` the first of `code_objects` whose target fits the device's ISA and xnack/sramecc modes (ROCr's
  // IsaSupportedByAgent), as CLR picks a fat binary's entry for a device. Errors: kNotFound when none fits (CLR's
  // hipErrorNoBinaryForGpu); the loader's (kInvalidArgument for a malformed code object, kResourceExhausted when the
  // image does not fit in VRAM). `context` must outlive the program.
  static absl::StatusOr<std::unique_ptr<Program>> Load(Context& context, const Device& device,
                                                       std::span<const std::span<const uint8_t>> code_objects);
  // Whether one of `code_objects` fits `device` (Load's choice), without loading it.
  static bool AnyFits(Context& context, const Device& device, std::span<const std::span<const uint8_t>> code_objects);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // The kernel named `name` (its metadata .name), or nullptr.
  const Kernel* FindKernel(std::string_view name) const;
  // The device variable named `name`, if the program defines one.
  std::optional<Variable> FindVariable(std::string_view name) const;
  const std::string& isa_name() const { return isa_name_; }

 private:
  Program(Context& context, hsa::Executable executable, std::string isa_name)
      : context_(context), executable_(std::move(executable)), isa_name_(std::move(isa_name)) {}

  Context& context_;
  // The variables' memory, named in the context's memory-object map (as CLR makes each a memory object) so that
  // hipMemcpy and hipMemset reach a hipModuleGetGlobal address; forgotten before the executable goes.
  std::vector<DeviceAddress> mapped_variables_;
  hsa::Executable executable_;  // owns the loaded image
  std::string isa_name_;        // the loaded code object's target ("amdgcn-amd-amdhsa--gfx90a:xnack-")
  absl::flat_hash_map<std::string, Kernel> kernels_;
  absl::flat_hash_map<std::string, Variable> variables_;
};

// One grid of a multi-device cooperative launch, as CLR numbers them (ihipModuleLaunchCooperativeKernelMultiDevice):
// the grids in launch-list order, work-item sums over the list.
struct MultiGridPlace {
  uint64_t barrier_address = 0;  // the zeroed dword every grid of the launch arrives at (fine-grained system memory)
  uint32_t grid_rank = 0;        // this grid's index in the launch list
  uint32_t num_grids = 0;        // entries in the launch list
  uint64_t work_items_before = 0;  // work-items of the grids listed before this one
  uint64_t work_items_total = 0;   // work-items of every grid
};

// What every grid of a multi-device cooperative launch arrives at (MultiGridPlace::barrier_address): two zeroed dwords
// in the fine-grained system memory of a device's host pool, which the runtime maps for every GPU. Dword 0 is the
// barrier (hip_cooperative_groups.h); dword 1, once non-zero, says a grid of the launch will never come (its dispatch
// failed after others were queued), and a grid waiting at the barrier then traps, failing its dispatch, rather than
// wait forever (CLR's MGSyncData is the same two dwords; CLR has no such exit). Owns that memory; the launch's
// dispatches share it (KernelDispatch::hold), so it goes once the last of them completes.
class MultiGridBarrier {
 public:
  // Errors: the allocator's (kResourceExhausted).
  static absl::StatusOr<std::shared_ptr<MultiGridBarrier>> Create(Context& context, const Device& device);
  uint64_t address() const { return memory_.address().raw(); }
  // Sets dword 1: the grids already queued stop at their next multi-grid barrier.
  void Abandon();

 private:
  explicit MultiGridBarrier(hsa::PoolAllocation memory) : memory_(std::move(memory)) {}
  hsa::PoolAllocation memory_;
};

// The geometry of one launch in HSA's terms: work-items per dimension (a whole number of work-groups for HIP's
// launches) and work-group sizes.
struct LaunchGeometry {
  uint32_t grid[3] = {1, 1, 1};
  uint16_t workgroup[3] = {1, 1, 1};
  uint32_t dynamic_group_bytes = 0;
  uint64_t queue_address = 0;  // the hsa_queue_t the dispatch goes to (hidden_queue_ptr)
  // hipLaunchCooperativeKernel: the segment gets a grid barrier workspace (kGridSyncWorkspaceBytes, zero, 64-byte
  // aligned, after the kernel's kernarg_segment_size), and hidden_multigrid_sync_arg holds its offset in the segment
  // until the stream turns it into the address (KernelDispatch::grid_sync_arg).
  bool cooperative = false;
  // hipLaunchCooperativeKernelMultiDevice (with `cooperative`): this grid's place among the launch's grids, which the
  // workspace's multi-grid fields carry (kMultiGrid*); none for a single-device cooperative launch.
  std::optional<MultiGridPlace> multi_grid;
  uint64_t printf_buffer = 0;  // the dispatch's PrintfBuffer (hidden_hostcall/printf_buffer), 0 for none
};

// The workspace hidden_multigrid_sync_arg points at in a cooperative launch (hip_cooperative_groups.h reads it).
// Its first 32 bytes are the record the device libraries and CLR share (ockl's mg_info, ROCclr's
// Device::MGSyncInfo): the address of the multi-grid barrier dword, grid id, number of grids, work-items of the grids
// before this one, work-items of all grids. CLR's values, which differ from what ockl 5.2.3 expects of a
// single-device launch: there CLR leaves the barrier address 0 and grid id, count and sums 0 (ihipModuleLaunchKernel's
// defaults), so multi_grid_group::is_valid() (current ockl: a workspace and num_grids > 0) is false; ockl 5.2.3
// answered true for any workspace. CLR keeps its own grid barrier state after the record (MGSyncInfo::sgs, byte 32);
// ours is there too: bytes 32-35 count the blocks that arrived, 36-39 the barrier's phase.
inline constexpr uint32_t kGridSyncWorkspaceBytes = 64;
inline constexpr uint32_t kMultiGridBarrierOffset = 0;   // u64: the barrier dword's address, 0 for one grid
inline constexpr uint32_t kMultiGridIdOffset = 8;        // u32: this grid's rank in the launch list
inline constexpr uint32_t kMultiGridCountOffset = 12;    // u32: grids in the launch, 0 for a single-device launch
inline constexpr uint32_t kMultiGridPrevSumOffset = 16;  // u64: work-items of the grids listed before this one
inline constexpr uint32_t kMultiGridAllSumOffset = 24;   // u64: work-items of every grid of the launch
inline constexpr uint32_t kGridBarrierOffset = 32;       // u32 arrivals, u32 phase: grid_group::sync's barrier

// The kernarg offset of `kernel`'s hidden_multigrid_sync_arg, if its metadata lists one.
std::optional<uint32_t> GridSyncArgOffset(const Kernel& kernel);

// Where the explicit arguments come from: one pointer per argument (hipLaunchKernel's args, `<<<>>>`), or one buffer
// laid out as the kernarg segment (hipModuleLaunchKernel's HIP_LAUNCH_PARAM_BUFFER_POINTER), whose arguments are
// copied when they lie wholly inside it, as CLR copies them.
struct ExplicitArgs {
  void* const* pointers = nullptr;
  std::span<const uint8_t> buffer;
};

// The kernarg segment of one launch: kernarg_segment_size bytes (at least 16), the explicit arguments at their
// offsets, then the hidden ones: block counts (whole work-groups per dimension), group sizes, remainders (the partial
// work-group, 0 for HIP's launches), grid dimensions, dynamic LDS size, the queue, the printf buffer (in the hostcall
// or the buffered-printf slot, device printf), the grid barrier's workspace in hidden_multigrid_sync_arg when
// `geometry.cooperative`; global offsets, default queue, completion action and heap stay 0 (no such services here, as
// CLR leaves them when a kernel does not use them). kInvalidArgument when the kernel takes arguments and `args` gives none.
absl::StatusOr<std::vector<uint8_t>> BuildKernargs(const Kernel& kernel, const ExplicitArgs& args,
                                                   const LaunchGeometry& geometry);

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_PROGRAM_H_
