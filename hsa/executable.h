// Code-object readers and executables: what hsa_code_object_reader_* and hsa_executable_* manage.
//
// Plays ROCr's loader (loader/executable.cpp's ExecutableImpl, amd_loader_context.cpp's segment memory) for
// AMDGPU code objects v4+: an executable loads a code object for a GPU agent by placing all its PT_LOAD
// segments in one allocation of the agent's coarse-grained VRAM pool (p_vaddr-relative, aligned as the ELF
// asks and at least to 4 KiB, so 256-byte kernel entries stay aligned), zeroing what lies past each p_filesz,
// applying the dynamic relocations against the load base, and defining a symbol for each global dynamic
// symbol: a kernel for `<name>.kd` (KERNEL_OBJECT is the descriptor's GPU VA) and a variable for every other
// object. The image is built in host memory and then written by the caller's AgentMemoryWriter (the
// runtime's copy path, which also reaches VRAM the CPU cannot see on a GPU without large BAR).
//
// Owners: CodeObjectReader owns its bytes; Executable owns its loaded images (each frees its allocation).
// Both are move-only. Thread-compatible: the C layer (hsa_loader_c_api.cc) serialises access.
#ifndef HIPMEM_HSA_EXECUTABLE_H_
#define HIPMEM_HSA_EXECUTABLE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "gpu_abi/code_object.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

// A code object's bytes, as hsa_code_object_reader_create_from_memory/_file keep them. Not parsed until a load
// (ROCr's reader does not look at the bytes either).
class CodeObjectReader {
 public:
  // kInvalidArgument for an empty image.
  static absl::StatusOr<CodeObjectReader> FromBytes(std::span<const uint8_t> bytes);
  // Reads the whole file behind `fd` from its start. kInvalidArgument (HSA_STATUS_ERROR_INVALID_FILE) when it
  // cannot be read or is empty.
  static absl::StatusOr<CodeObjectReader> FromFile(int fd);

  CodeObjectReader(CodeObjectReader&&) = default;
  CodeObjectReader& operator=(CodeObjectReader&&) = default;

  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  explicit CodeObjectReader(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  std::vector<uint8_t> bytes_;
};

// Writes host bytes to agent memory at a GPU address (the loader context's SegmentCopy).
using AgentMemoryWriter = std::function<absl::Status(DeviceAddress dst, std::span<const uint8_t> bytes)>;

// hsa_symbol_kind_t.
enum class SymbolKind : uint32_t { kVariable = 0, kKernel = 1, kIndirectFunction = 2 };

// One symbol of an executable, with everything hsa_executable_symbol_get_info answers.
struct ExecutableSymbol {
  SymbolKind kind = SymbolKind::kVariable;
  std::string name;                // "foo.kd" for kernels, as ROCr names v3+ kernel symbols
  std::optional<AgentId> agent;    // nullopt for a program symbol (hsa_executable_global_variable_define)
  bool is_definition = true;
  uint64_t address = 0;            // KERNEL_OBJECT or VARIABLE_ADDRESS
  // Variables.
  uint32_t variable_size = 0;
  uint32_t variable_alignment = 0;
  bool variable_is_const = false;
  bool variable_readonly_segment = false;  // HSA_VARIABLE_SEGMENT_READONLY (readonly_variable_define)
  bool variable_program_allocation = false;  // HSA_VARIABLE_ALLOCATION_PROGRAM
  // Kernels.
  uint32_t kernarg_segment_size = 0;
  uint32_t kernarg_segment_alignment = 0;
  uint32_t group_segment_size = 0;
  uint32_t private_segment_size = 0;
  bool dynamic_callstack = false;
  uint32_t wavefront_size = 64;
  uint32_t kernel_object_size = 0;
};

// hsa_executable_state_t.
enum class ExecutableState : uint32_t { kUnfrozen = 0, kFrozen = 1 };

// A GPU allocation holding one loaded code object's image. Move-only; the destructor frees it.
class LoadedImage {
 public:
  LoadedImage(PoolAllocation allocation, DeviceAddress base, Bytes size)
      : allocation_(std::move(allocation)), base_(base), size_(size) {}

  DeviceAddress base() const { return base_; }  // where p_vaddr 0 of the code object lands
  Bytes size() const { return size_; }
  // Leaves the allocation to its runtime, which already freed it (the runtime was shut down first).
  void Abandon() { (void)std::move(allocation_).Release(); }

 private:
  PoolAllocation allocation_;  // its runtime must outlive this (or Abandon() it)
  DeviceAddress base_;
  Bytes size_;
};

class Executable {
 public:
  // hsa_executable_create_alt: profile 0 (base) or 1 (full), rounding mode 0-2. kInvalidArgument otherwise.
  static absl::StatusOr<Executable> Create(uint32_t profile, uint32_t default_float_rounding_mode);

  Executable(Executable&&) = default;
  Executable& operator=(Executable&&) = default;

  uint32_t profile() const { return profile_; }
  uint32_t rounding_mode() const { return rounding_mode_; }
  ExecutableState state() const { return state_; }

  // hsa_executable_load_agent_code_object. Errors, with the HSA code the C layer answers (ROCr's):
  //  - FROZEN_EXECUTABLE once frozen (kFailedPrecondition);
  //  - INVALID_CODE_OBJECT for bytes that are not an AMDGPU code object v4-v6, a kernel symbol outside the
  //    image, or an unknown relocation (kInvalidArgument);
  //  - INVALID_ISA_NAME when the code object's target is a processor the runtime does not know;
  //  - INCOMPATIBLE_ARGUMENTS when the processor differs from the agent's or an xnack/sramecc setting that is
  //    not "any" differs from the agent's mode (ROCr's IsaSupportedByAgent failing);
  //  - VARIABLE_ALREADY_DEFINED when the code object defines a symbol the executable already has for the agent;
  //  - VARIABLE_UNDEFINED for a relocation against an undefined symbol no *_variable_define supplied;
  //  - OUT_OF_RESOURCES when the agent's memory cannot hold the image; the writer's errors.
  // Nothing is left allocated or defined when it fails.
  absl::Status LoadAgentCodeObject(Runtime& runtime, AgentId agent, const CodeObjectReader& reader,
                                   const AgentMemoryWriter& write);

  // hsa_executable_freeze. FROZEN_EXECUTABLE (kFailedPrecondition) when already frozen.
  absl::Status Freeze();

  // hsa_executable_global_variable_define (agent nullopt), _agent_global_variable_define and
  // _readonly_variable_define. FROZEN_EXECUTABLE when frozen; VARIABLE_ALREADY_DEFINED for a taken name.
  absl::Status DefineExternalVariable(std::string_view name, std::optional<AgentId> agent, uint64_t address,
                                      bool readonly);

  // The symbol named `name` for `agent` (program symbols match any agent). nullopt when there is none.
  std::optional<size_t> FindSymbol(std::string_view name, std::optional<AgentId> agent) const;
  const std::vector<ExecutableSymbol>& symbols() const { return symbols_; }
  // Releases every image without freeing it (its runtime is gone).
  void Abandon();

 private:
  Executable(uint32_t profile, uint32_t rounding_mode) : profile_(profile), rounding_mode_(rounding_mode) {}

  uint32_t profile_;
  uint32_t rounding_mode_;
  ExecutableState state_ = ExecutableState::kUnfrozen;
  std::vector<ExecutableSymbol> symbols_;
  std::vector<LoadedImage> images_;
};

// Whether a code object built for `target` runs on `agent` (ROCr's IsaSupportedByAgent): same processor, and
// each xnack/sramecc setting either "any" in the code object or equal to the agent's. kInvalidArgument
// (INVALID_ISA_NAME) for a processor the runtime has no ISA for; kInvalidArgument (INCOMPATIBLE_ARGUMENTS)
// when it does not fit; INVALID_AGENT for an unknown or CPU agent.
absl::Status CheckTargetFitsAgent(Runtime& runtime, AgentId agent, const gpu_abi::code_object::Target& target);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_EXECUTABLE_H_
