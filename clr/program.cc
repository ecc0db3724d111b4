#include "clr/program.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"

namespace hipmem::clr {
namespace {

namespace co = gpu_abi::code_object;

constexpr std::string_view kKernelSymbolSuffix = ".kd";

}  // namespace

bool Program::AnyFits(Context& context, const Device& device, std::span<const std::span<const uint8_t>> code_objects) {
  for (std::span<const uint8_t> bytes : code_objects) {
    absl::StatusOr<co::CodeObject> parsed = co::CodeObject::Parse(bytes);
    if (parsed.ok() && hsa::CheckTargetFitsAgent(context.runtime(), device.agent, parsed->target()).ok()) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Program>> Program::Load(Context& context, const Device& device,
                                                       std::span<const std::span<const uint8_t>> code_objects) {
  std::string tried;
  for (std::span<const uint8_t> bytes : code_objects) {
    absl::StatusOr<co::CodeObject> parsed = co::CodeObject::Parse(bytes);
    if (!parsed.ok()) {
      absl::StrAppend(&tried, tried.empty() ? "" : ", ", "unreadable (", parsed.status().message(), ")");
      continue;
    }
    const std::string isa = parsed->target().IsaName();
    if (absl::Status fits = hsa::CheckTargetFitsAgent(context.runtime(), device.agent, parsed->target());
        !fits.ok()) {
      absl::StrAppend(&tried, tried.empty() ? "" : ", ", isa);
      continue;
    }
    ASSIGN_OR_RETURN(hsa::CodeObjectReader reader, hsa::CodeObjectReader::FromBytes(bytes));
    // Base profile, default rounding: what CLR asks of ROCr for a dGPU's code objects.
    ASSIGN_OR_RETURN(hsa::Executable executable, hsa::Executable::Create(0, 0));
    // Through ROCr's copy path, which also reaches VRAM the CPU cannot map.
    const hsa::AgentMemoryWriter write = [&context](DeviceAddress dst, std::span<const uint8_t> image) {
      return context.copies().CopySync(dst, DeviceAddress::FromPointer(image.data()), Bytes(image.size()));
    };
    RETURN_IF_ERROR(executable.LoadAgentCodeObject(context.runtime(), device.agent, reader, write));
    RETURN_IF_ERROR(executable.Freeze());
    std::unique_ptr<Program> program(new Program(context, std::move(executable), isa));
    const auto printf_formats =
        std::make_shared<const PrintfFormats>(ParsePrintfFormats(parsed->metadata().printf_formats));
    for (const hsa::ExecutableSymbol& symbol : program->executable_.symbols()) {
      if (symbol.kind == hsa::SymbolKind::kVariable) {
        const Variable variable{DeviceAddress(symbol.address), Bytes(symbol.variable_size)};
        program->variables_.emplace(symbol.name, variable);
        if (!variable.size.is_zero()) {
          // No pool: nothing is ever released through it (a borrowed object).
          const MemoryDesc desc{{variable.address, variable.size}, variable.address, MemoryKind::kDevice,
                                device.ordinal, 0, hsa::PoolId(0)};
          if (context.Adopt(std::make_unique<Memory>(nullptr, desc)).ok()) {
            program->mapped_variables_.push_back(variable.address);
          }
        }
        continue;
      }
      if (symbol.kind != hsa::SymbolKind::kKernel) continue;
      const co::KernelMetadata* metadata = parsed->metadata().FindKernel(symbol.name);
      if (metadata == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("code object for ", isa, ": kernel symbol ", symbol.name, " has no metadata"));
      }
      Kernel kernel;
      kernel.name = metadata->name;
      kernel.kernel_object = symbol.address;
      kernel.kernarg_segment_size = metadata->kernarg_segment_size;
      kernel.kernarg_segment_align = std::max<uint32_t>(metadata->kernarg_segment_align, 16);
      kernel.group_segment_size = metadata->group_segment_fixed_size;
      kernel.private_segment_size = metadata->private_segment_fixed_size;
      // Without launch bounds LLVM allows 1024 work-items, and says so in the metadata.
      kernel.max_flat_workgroup_size = metadata->max_flat_workgroup_size != 0 ? metadata->max_flat_workgroup_size : 1024;
      kernel.sgpr_count = metadata->sgpr_count;
      kernel.vgpr_count = metadata->vgpr_count;
      kernel.agpr_count = metadata->agpr_count;
      kernel.wavefront_size = metadata->wavefront_size;
      kernel.code_object_version = parsed->code_object_version();
      for (const co::KernelArg& arg : metadata->args) {
        (absl::StartsWith(arg.value_kind, "hidden_") ? kernel.hidden_args : kernel.explicit_args).push_back(arg);
        if (arg.value_kind == "hidden_hostcall_buffer") kernel.prints = true;
        if (arg.value_kind == "hidden_printf_buffer") {
          kernel.prints = true;
          kernel.printf_formats = printf_formats;
        }
      }
      program->kernels_.emplace(kernel.name, std::move(kernel));
    }
    Trace(Layer::kClr, "device ", device.ordinal, ": loaded code object ", isa, " (", program->kernels_.size(),
          " kernels, ", program->variables_.size(), " variables)");
    return program;
  }
  return absl::NotFoundError(absl::StrCat("no code object fits device ", device.ordinal, " (", device.name,
                                          "); the fat binary holds: ", tried.empty() ? "nothing" : tried));
}

Program::~Program() {
  for (DeviceAddress address : mapped_variables_) (void)context_.Forget(address);
}

const Kernel* Program::FindKernel(std::string_view name) const {
  auto it = kernels_.find(absl::string_view(name.data(), name.size()));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::optional<Variable> Program::FindVariable(std::string_view name) const {
  auto it = variables_.find(absl::string_view(name.data(), name.size()));
  if (it == variables_.end()) return std::nullopt;
  return it->second;
}

namespace {

template <typename T>
void Put(std::vector<uint8_t>& segment, const co::KernelArg& arg, T value) {
  // The metadata gives every hidden argument its size; a narrower field keeps the value's low bytes.
  const size_t size = std::min<size_t>(arg.size, sizeof(T));
  if (arg.offset + size <= segment.size()) std::memcpy(segment.data() + arg.offset, &value, size);
}

// The code object v5 hidden arguments that describe the grid, per dimension (AMDGPUUsage "Code Object V5
// Metadata"): whole work-groups, the work-group size, and the work-items of a partial last work-group.
struct HiddenDimension {
  enum Field { kBlockCount, kGroupSize, kRemainder };
  std::string_view kind;
  Field field;
  uint32_t dim;
};
constexpr HiddenDimension kHiddenDimensions[] = {
    {"hidden_block_count_x", HiddenDimension::kBlockCount, 0}, {"hidden_block_count_y", HiddenDimension::kBlockCount, 1},
    {"hidden_block_count_z", HiddenDimension::kBlockCount, 2}, {"hidden_group_size_x", HiddenDimension::kGroupSize, 0},
    {"hidden_group_size_y", HiddenDimension::kGroupSize, 1},   {"hidden_group_size_z", HiddenDimension::kGroupSize, 2},
    {"hidden_remainder_x", HiddenDimension::kRemainder, 0},    {"hidden_remainder_y", HiddenDimension::kRemainder, 1},
    {"hidden_remainder_z", HiddenDimension::kRemainder, 2},
};

// The multi-grid record at the start of a workspace (the kMultiGrid* offsets); the grid barrier after it stays 0.
void WriteMultiGridPlace(uint8_t* workspace, const MultiGridPlace& place) {
  std::memcpy(workspace + kMultiGridBarrierOffset, &place.barrier_address, 8);
  std::memcpy(workspace + kMultiGridIdOffset, &place.grid_rank, 4);
  std::memcpy(workspace + kMultiGridCountOffset, &place.num_grids, 4);
  std::memcpy(workspace + kMultiGridPrevSumOffset, &place.work_items_before, 8);
  std::memcpy(workspace + kMultiGridAllSumOffset, &place.work_items_total, 8);
}

}  // namespace

absl::StatusOr<std::shared_ptr<MultiGridBarrier>> MultiGridBarrier::Create(Context& context, const Device& device) {
  ASSIGN_OR_RETURN(hsa::PoolAllocation memory, context.runtime().Allocate(device.host_pool, Bytes(2 * sizeof(uint32_t))));
  std::memset(memory.pointer(), 0, 2 * sizeof(uint32_t));
  return std::shared_ptr<MultiGridBarrier>(new MultiGridBarrier(std::move(memory)));
}

void MultiGridBarrier::Abandon() {
  // The GPUs read it with system-scope atomics; the CPU's release store is what they see.
  std::atomic_ref<uint32_t>(static_cast<uint32_t*>(memory_.pointer())[1]).store(1, std::memory_order_release);
}

std::optional<uint32_t> GridSyncArgOffset(const Kernel& kernel) {
  for (const co::KernelArg& arg : kernel.hidden_args) {
    if (arg.value_kind == "hidden_multigrid_sync_arg" && arg.size >= 8) return arg.offset;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<uint8_t>> BuildKernargs(const Kernel& kernel, const ExplicitArgs& args,
                                                   const LaunchGeometry& g) {
  std::vector<uint8_t> segment(std::max<uint32_t>(kernel.kernarg_segment_size, 16), 0);
  if (!kernel.explicit_args.empty() && args.pointers == nullptr && args.buffer.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch of ", kernel.name, ": the kernel takes ", kernel.explicit_args.size(),
                     " arguments and none were given"));
  }
  for (size_t i = 0; i < kernel.explicit_args.size(); ++i) {
    const co::KernelArg& arg = kernel.explicit_args[i];
    if (arg.offset + uint64_t{arg.size} > segment.size()) {
      return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel.name, ": argument ", i,
                                                     " lies outside its kernarg segment"));
    }
    if (args.pointers != nullptr) {
      if (args.pointers[i] == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel.name, ": argument ", i, " is null"));
      }
      std::memcpy(segment.data() + arg.offset, args.pointers[i], arg.size);
    } else if (arg.offset + uint64_t{arg.size} <= args.buffer.size()) {
      std::memcpy(segment.data() + arg.offset, args.buffer.data() + arg.offset, arg.size);
    }
  }
  const uint16_t dims = g.grid[2] > 1 ? 3 : g.grid[1] > 1 ? 2 : 1;
  for (const co::KernelArg& arg : kernel.hidden_args) {
    const std::string_view kind = arg.value_kind;
    for (const HiddenDimension& row : kHiddenDimensions) {
      if (kind != row.kind) continue;
      const uint32_t d = row.dim;
      switch (row.field) {
        case HiddenDimension::kBlockCount: Put<uint32_t>(segment, arg, g.grid[d] / g.workgroup[d]); break;
        case HiddenDimension::kGroupSize: Put<uint16_t>(segment, arg, g.workgroup[d]); break;
        case HiddenDimension::kRemainder:
          Put<uint16_t>(segment, arg, static_cast<uint16_t>(g.grid[d] % g.workgroup[d]));
          break;
      }
    }
    if (kind == "hidden_grid_dims") {
      Put<uint16_t>(segment, arg, dims);
    } else if (kind == "hidden_dynamic_lds_size") {
      Put<uint32_t>(segment, arg, g.dynamic_group_bytes);
    } else if (kind == "hidden_queue_ptr") {
      Put<uint64_t>(segment, arg, g.queue_address);
    } else if (kind == "hidden_multigrid_sync_arg" && g.cooperative) {
      const size_t workspace = (segment.size() + 63) / 64 * 64;
      segment.resize(workspace + kGridSyncWorkspaceBytes, 0);
      Put<uint64_t>(segment, arg, workspace);
      if (g.multi_grid.has_value()) WriteMultiGridPlace(segment.data() + workspace, *g.multi_grid);
    } else if (kind == "hidden_hostcall_buffer" || kind == "hidden_printf_buffer") {
      // Device printf's records (amd_device_printf.h), in the slot its device functions read.
      Put<uint64_t>(segment, arg, g.printf_buffer);
    }
    // Everything else (global offsets, default queue, completion action, multigrid sync outside cooperative launches,
    // heap, private/shared apertures) stays 0: HIP launches have no global offset, and the rest are services this
    // runtime does not offer (GFX9 code reads the apertures from their registers).
  }
  return segment;
}

}  // namespace hipmem::clr
