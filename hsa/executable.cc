#include "hsa/executable.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "gpu_abi/kernel_descriptor.h"
#include "hsa/agent_info.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "hsa/topology.h"

namespace hipmem::hsa {
namespace {

namespace co = gpu_abi::code_object;

absl::Status Coded(absl::Status status, hsa_status_t code) { return WithHsaStatus(std::move(status), code); }

absl::Status InvalidCodeObject(absl::string_view what) {
  return Coded(absl::InvalidArgumentError(absl::StrCat("hsa_executable_load_agent_code_object: ", what)),
               HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
}

absl::Status Frozen(absl::string_view operation) {
  return Coded(absl::FailedPreconditionError(absl::StrCat(operation, ": the executable is frozen")),
               HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
}

absl::Status AlreadyDefined(absl::string_view name) {
  return Coded(absl::AlreadyExistsError(absl::StrCat("symbol ", name, " is already defined")),
               HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
}

bool Fits(FeatureState agent, co::FeatureSetting code) {
  switch (code) {
    case co::FeatureSetting::kAny:
    case co::FeatureSetting::kUnsupported: return true;
    case co::FeatureSetting::kOn: return agent == FeatureState::kOn || agent == FeatureState::kAny;
    case co::FeatureSetting::kOff: return agent == FeatureState::kOff || agent == FeatureState::kAny;
  }
  return false;
}

constexpr uint64_t kPage = 4096;
// ROCr answers KERNEL_KERNARG_SEGMENT_ALIGNMENT 16 for every v3+ kernel (its "minimum HSA alignment").
constexpr uint32_t kMinKernargAlignment = 16;

// The agent's coarse-grained VRAM pool, where ROCr's loader context puts code (AgentLocal memory).
absl::StatusOr<PoolId> CodePool(Runtime& runtime, const Agent& agent) {
  for (PoolId id : agent.pools) {
    ASSIGN_OR_RETURN(const MemoryPool* pool, runtime.GetPool(id));
    if (pool->segment == Segment::kGlobal && pool->location == PoolLocation::kGpu && pool->alloc_allowed &&
        HasFlag(pool->global_flags, GlobalFlags::kCoarseGrained)) {
      return id;
    }
  }
  return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent.id.raw()), " has no coarse-grained VRAM pool"));
}

}  // namespace

absl::StatusOr<CodeObjectReader> CodeObjectReader::FromBytes(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return absl::InvalidArgumentError("hsa_code_object_reader_create_from_memory: size 0");
  return CodeObjectReader(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

absl::StatusOr<CodeObjectReader> CodeObjectReader::FromFile(int fd) {
  auto invalid_file = [fd](absl::string_view cause) {
    return Coded(absl::InvalidArgumentError(absl::StrCat("hsa_code_object_reader_create_from_file(fd=", fd, "): ",
                                                         cause)),
                 HSA_STATUS_ERROR_INVALID_FILE);
  };
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0 || lseek(fd, 0, SEEK_SET) != 0) return invalid_file("not a readable, non-empty file");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return invalid_file("read failed");
    done += static_cast<size_t>(n);
  }
  return CodeObjectReader(std::move(bytes));
}

absl::StatusOr<Executable> Executable::Create(uint32_t profile, uint32_t default_float_rounding_mode) {
  if (profile > HSA_PROFILE_FULL) {
    return absl::InvalidArgumentError(absl::StrCat("hsa_executable_create: profile ", profile, " is not one"));
  }
  if (default_float_rounding_mode > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR) {
    return absl::InvalidArgumentError(
        absl::StrCat("hsa_executable_create: rounding mode ", default_float_rounding_mode, " is not one"));
  }
  return Executable(profile, default_float_rounding_mode);
}

absl::Status CheckTargetFitsAgent(Runtime& runtime, AgentId agent_id, const co::Target& target) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  ASSIGN_OR_RETURN(const AgentDescription d, DescribeRuntimeAgent(runtime, *agent));
  if (!d.isa.has_value()) {
    return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent_id.raw()), " is not a GPU"));
  }
  const std::string code_isa = target.IsaName();
  if (!ParseIsaName(code_isa).ok()) {
    return Coded(absl::InvalidArgumentError(absl::StrCat("code object ISA ", code_isa, " is not one this runtime knows")),
                 HSA_STATUS_ERROR_INVALID_ISA_NAME);
  }
  if (d.isa->processor != target.processor || !Fits(d.isa->xnack, target.xnack) ||
      !Fits(d.isa->sramecc, target.sramecc)) {
    return Coded(absl::InvalidArgumentError(absl::StrCat("code object ISA ", code_isa,
                                                         " is not supported by the agent's ", d.isa->FullName())),
                 HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  }
  return absl::OkStatus();
}

std::optional<size_t> Executable::FindSymbol(std::string_view name, std::optional<AgentId> agent) const {
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const ExecutableSymbol& s = symbols_[i];
    if (s.name == name && (!s.agent.has_value() || s.agent == agent)) return i;
  }
  return std::nullopt;
}

absl::Status Executable::DefineExternalVariable(std::string_view name, std::optional<AgentId> agent,
                                                uint64_t address, bool readonly) {
  if (state_ == ExecutableState::kFrozen) return Frozen("hsa_executable_*_variable_define");
  for (const ExecutableSymbol& s : symbols_) {
    if (s.name == name && s.agent == agent) return AlreadyDefined(std::string(name));
  }
  ExecutableSymbol s;
  s.kind = SymbolKind::kVariable;
  s.name = std::string(name);
  s.agent = agent;
  s.address = address;
  s.variable_readonly_segment = readonly;
  s.variable_program_allocation = !agent.has_value();
  symbols_.push_back(std::move(s));
  return absl::OkStatus();
}

absl::Status Executable::Freeze() {
  if (state_ == ExecutableState::kFrozen) return Frozen("hsa_executable_freeze");
  state_ = ExecutableState::kFrozen;
  return absl::OkStatus();
}

void Executable::Abandon() {
  for (LoadedImage& image : images_) image.Abandon();
}

absl::Status Executable::LoadAgentCodeObject(Runtime& runtime, AgentId agent_id, const CodeObjectReader& reader,
                                             const AgentMemoryWriter& write) {
  if (state_ == ExecutableState::kFrozen) return Frozen("hsa_executable_load_agent_code_object");
  absl::StatusOr<co::CodeObject> parsed = co::CodeObject::Parse(reader.bytes());
  if (!parsed.ok()) return Coded(parsed.status(), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  const co::CodeObject& code = *parsed;
  RETURN_IF_ERROR(CheckTargetFitsAgent(runtime, agent_id, code.target()));
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));

  // The host image of [span.begin, span.end): file bytes where segments have them, zeros elsewhere (bss).
  const co::CodeObject::LoadSpan span = code.load_span();
  const uint64_t image_size = (span.end - span.begin + kPage - 1) & ~(kPage - 1);
  if (image_size == 0 || image_size > (uint64_t{1} << 40)) return InvalidCodeObject("its load span is empty or absurd");
  std::vector<uint8_t> image(image_size, 0);
  for (const co::ProgramHeader& p : code.LoadSegments()) {
    std::memcpy(image.data() + (p.vaddr - span.begin), code.bytes().data() + p.offset, p.file_size);
  }
  auto in_image = [&](uint64_t vaddr, uint64_t size) {
    return vaddr >= span.begin && vaddr - span.begin <= image_size && size <= image_size - (vaddr - span.begin);
  };

  // The symbols it defines: global dynamic objects; `<name>.kd` are kernel descriptors (ROCr's v3+ rule).
  std::vector<ExecutableSymbol> defined;
  std::vector<uint64_t> defined_vaddr;
  for (const co::Symbol& sym : code.dynamic_symbols()) {
    if (!sym.defined() || sym.binding == co::kStbLocal || sym.type != co::kSttObject) continue;
    if (!in_image(sym.value, sym.size)) return InvalidCodeObject(absl::StrCat("symbol ", sym.name, " lies outside the image"));
    if (FindSymbol(sym.name, agent_id).has_value()) return AlreadyDefined(sym.name);
    ExecutableSymbol s;
    s.name = sym.name;
    s.agent = agent_id;
    if (absl::EndsWith(sym.name, ".kd")) {
      if (sym.size < gpu_abi::amdhsa::kKernelDescriptorBytes) {
        return InvalidCodeObject(absl::StrCat("kernel descriptor ", sym.name, " is smaller than 64 bytes"));
      }
      const auto kd = gpu_abi::amdhsa::KernelDescriptor::FromBytes(image.data() + (sym.value - span.begin));
      const co::KernelMetadata* md = code.metadata().FindKernel(sym.name);
      s.kind = SymbolKind::kKernel;
      s.kernarg_segment_size = kd.kernarg_size;
      s.kernarg_segment_alignment = std::max(kMinKernargAlignment, md != nullptr ? md->kernarg_segment_align : 0u);
      s.group_segment_size = kd.group_segment_fixed_size;
      s.private_segment_size = kd.private_segment_fixed_size;
      s.dynamic_callstack = kd.uses_dynamic_stack();
      s.wavefront_size = kd.enable_wavefront_size32() ? 32 : 64;
      s.kernel_object_size = static_cast<uint32_t>(sym.size);
    } else {
      const co::SectionHeader* section = code.SectionAt(sym.value);
      s.kind = SymbolKind::kVariable;
      s.variable_size = static_cast<uint32_t>(sym.size);
      s.variable_alignment = section != nullptr ? static_cast<uint32_t>(section->addralign) : 0;
      s.variable_is_const = section != nullptr && (section->flags & co::kShfWrite) == 0;
    }
    defined.push_back(std::move(s));
    defined_vaddr.push_back(sym.value);
  }

  // One allocation for the whole span; over-allocated when the ELF asks for more than the pool's 4 KiB.
  ASSIGN_OR_RETURN(const PoolId pool, CodePool(runtime, *agent));
  const uint64_t align = std::max(span.align, kPage);
  ASSIGN_OR_RETURN(PoolAllocation allocation,
                   runtime.Allocate(pool, Bytes(image_size + align - kPage), PoolAllocFlags::kExecutable));
  // The parser admits only power-of-two p_align, and the allocation has room for the rounding.
  const std::optional<DeviceAddress> aligned_base = AlignUp(allocation.address(), Bytes(align));
  if (!aligned_base.has_value()) return InvalidCodeObject("its segments' alignment cannot be met");
  const DeviceAddress base = *aligned_base;
  LoadedImage loaded(std::move(allocation), base, Bytes(image_size));
  const uint64_t delta = base.raw() - span.begin;  // load address minus p_vaddr

  for (const co::Relocation& rel : code.dynamic_relocations()) {
    const co::Symbol& sym = code.dynamic_symbols()[rel.symbol];
    uint64_t s = 0;
    if (rel.symbol != 0 && sym.defined()) {
      s = sym.value + delta;
    } else if (rel.symbol != 0) {
      // An external symbol: one the caller defined before loading (hsa_executable_*_variable_define).
      const std::optional<size_t> external = FindSymbol(sym.name, agent_id);
      if (external.has_value()) s = symbols_[*external].address;
    }
    const uint64_t value = s + static_cast<uint64_t>(rel.addend);
    uint64_t bytes = 8;
    uint64_t written = value;
    switch (rel.type) {
      case co::RelocationType::kRelative64: written = delta + static_cast<uint64_t>(rel.addend); break;
      case co::RelocationType::kAbs64: break;
      case co::RelocationType::kAbs32Lo: case co::RelocationType::kAbs32: bytes = 4; written = value & 0xffffffff; break;
      case co::RelocationType::kAbs32Hi: bytes = 4; written = value >> 32; break;
      default:
        return InvalidCodeObject(absl::StrCat("relocation type ", static_cast<uint32_t>(rel.type), " is not supported"));
    }
    if (rel.type != co::RelocationType::kRelative64 && s == 0) {
      return Coded(absl::NotFoundError(absl::StrCat("hsa_executable_load_agent_code_object: symbol ", sym.name,
                                                    " is undefined")),
                   HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
    }
    if (!in_image(rel.offset, bytes)) return InvalidCodeObject("a relocation writes outside the image");
    std::memcpy(image.data() + (rel.offset - span.begin), &written, bytes);
  }

  RETURN_IF_ERROR(write(base, image));
  for (size_t i = 0; i < defined.size(); ++i) {
    defined[i].address = defined_vaddr[i] + delta;
    symbols_.push_back(std::move(defined[i]));
  }
  images_.push_back(std::move(loaded));
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
