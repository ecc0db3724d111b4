#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"

#include <cstdlib>
#include <cstring>
#include <span>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/code_object.h"
#include "gpu_abi/kernel_descriptor.h"

namespace hipmem::kfd_sim::gfx9 {
namespace co = ::hipmem::gpu_abi::code_object;
namespace aql = ::hipmem::gpu_abi::aql;

absl::StatusOr<std::unique_ptr<LoadedCodeObject>> LoadedCodeObject::Load(std::string_view elf,
                                                                        IdentityPageTable* memory) {
  absl::StatusOr<co::CodeObject> object =
      co::CodeObject::Parse(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(elf.data()), elf.size()));
  if (!object.ok()) return object.status();
  const co::CodeObject::LoadSpan span = object->load_span();
  auto loaded = std::unique_ptr<LoadedCodeObject>(new LoadedCodeObject());
  loaded->bytes_ = (span.end + 0xffff) & ~uint64_t{0xffff};
  loaded->base_ = static_cast<unsigned char*>(std::aligned_alloc(65536, loaded->bytes_));
  std::memset(loaded->base_, 0, loaded->bytes_);
  for (const co::ProgramHeader& segment : object->LoadSegments()) {
    std::memcpy(loaded->base_ + segment.vaddr, object->bytes().data() + segment.offset, segment.file_size);
  }
  const uint64_t base = reinterpret_cast<uint64_t>(loaded->base_);
  for (const co::Relocation& r : object->dynamic_relocations()) {
    uint64_t value = 0;
    if (r.type == co::RelocationType::kRelative64) {
      value = base + r.addend;
    } else if (r.type == co::RelocationType::kAbs64) {
      value = base + object->dynamic_symbols()[r.symbol].value + r.addend;
    } else {
      continue;
    }
    std::memcpy(loaded->base_ + r.offset, &value, 8);
  }
  for (const co::Symbol& s : object->dynamic_symbols()) {
    if (s.defined()) loaded->symbols_.emplace_back(s.name, base + s.value);
  }
  loaded->memory_ = memory;
  memory->Map(loaded->base_, loaded->bytes_);
  return loaded;
}

LoadedCodeObject::~LoadedCodeObject() {
  if (memory_ != nullptr) memory_->Unmap(base_);
  std::free(base_);
}

absl::StatusOr<uint64_t> LoadedCodeObject::KernelObject(std::string_view kernel) const {
  const std::string name = std::string(kernel) + ".kd";
  for (const auto& [symbol, va] : symbols_) {
    if (symbol == name) return va;
  }
  return absl::NotFoundError(absl::StrCat("no symbol ", name));
}

absl::StatusOr<RunResult> RunKernel(IdentityPageTable* memory, Target target, uint64_t kernel_object,
                                    const Launch& launch) {
  DispatchRequest request;
  request.target = target;
  aql::KernelDispatchPacket& p = request.packet;
  p.setup = static_cast<uint16_t>(launch.grid[2] > 1 ? 3 : launch.grid[1] > 1 ? 2 : 1);
  p.workgroup_size_x = static_cast<uint16_t>(launch.workgroup[0]);
  p.workgroup_size_y = static_cast<uint16_t>(launch.workgroup[1]);
  p.workgroup_size_z = static_cast<uint16_t>(launch.workgroup[2]);
  p.grid_size_x = launch.grid[0];
  p.grid_size_y = launch.grid[1];
  p.grid_size_z = launch.grid[2];
  p.group_segment_size = launch.group_segment_size;
  p.kernel_object = kernel_object;
  p.kernarg_address = reinterpret_cast<uint64_t>(launch.kernargs);
  request.gws = launch.gws;
  gpu_abi::amdhsa::KernelDescriptor descriptor;
  {
    GpuMemory::AccessScope scope(memory);
    if (ReadGpu(memory, kernel_object, &descriptor, sizeof(descriptor))) {
      return absl::NotFoundError("kernel descriptor not mapped");
    }
  }
  // A queue's scratch for one workgroup's waves at a time (the workgroups run one after another here), sized as
  // ROCr would: the private segment rounded up to whole 1 KiB waves.
  const uint32_t per_lane = (descriptor.private_segment_fixed_size + 3) & ~3u;
  const uint32_t group_threads = launch.workgroup[0] * launch.workgroup[1] * launch.workgroup[2];
  request.scratch.waves = (group_threads + kWaveSize - 1) / kWaveSize;
  request.scratch.wave_bytes = (per_lane * kWaveSize + 1023) & ~1023u;
  request.scratch.bytes = uint64_t{request.scratch.waves} * request.scratch.wave_bytes;
  std::vector<unsigned char> scratch(request.scratch.bytes);
  if (!scratch.empty()) memory->Map(scratch.data(), scratch.size());
  absl::Cleanup unmap = [&] {
    if (!scratch.empty()) memory->Unmap(scratch.data());
  };
  request.scratch.base = reinterpret_cast<uint64_t>(scratch.data());
  request.scratch.resource =
      aql::Gfx9ScratchResource(request.scratch.base, static_cast<uint32_t>(request.scratch.bytes));
  absl::StatusOr<std::unique_ptr<KernelDispatch>> dispatch = KernelDispatch::Create(memory, request, descriptor);
  if (!dispatch.ok()) return dispatch.status();
  uint64_t next = 0;
  KernelDispatch& d = **dispatch;
  d.RunUnits(
      launch.compute_units,
      [&]() -> std::optional<uint64_t> {
        if (next == d.workgroup_count()) return std::nullopt;
        return next++;
      },
      [] { return false; });
  return RunResult{(*dispatch)->failure(), (*dispatch)->instructions()};
}

HiddenArgs Hidden1d(uint32_t grid, uint16_t workgroup) {
  HiddenArgs h{};
  h.block_count[0] = (grid + workgroup - 1) / workgroup;
  h.block_count[1] = h.block_count[2] = 1;
  h.group_size[0] = workgroup;
  h.group_size[1] = h.group_size[2] = 1;
  h.remainder[0] = static_cast<uint16_t>(grid % workgroup);
  return h;
}

std::vector<TargetCase> Gfx9Targets(std::string_view (*gfx908)(), std::string_view (*gfx90a)(),
                                    std::string_view (*gfx942)()) {
  return {TargetCase{Target::kGfx908, "gfx908", gfx908}, TargetCase{Target::kGfx90a, "gfx90a", gfx90a},
          TargetCase{Target::kGfx942, "gfx942", gfx942}};
}

std::string TargetCaseName(const ::testing::TestParamInfo<TargetCase>& info) { return info.param.name; }

void CodeObjectTest::SetUp() {
  absl::StatusOr<std::unique_ptr<LoadedCodeObject>> loaded = LoadedCodeObject::Load(GetParam().code_object(), &memory_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  code_ = std::move(*loaded);
}

}  // namespace hipmem::kfd_sim::gfx9
