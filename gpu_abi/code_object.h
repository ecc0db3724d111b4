// A reader of AMDGPU code objects: the ELF64 shared objects LLVM emits for AMDHSA (code object v4, v5, v6).
//
// Plays the parsing half of ROCr's loader (amd_hsa_code.cpp, amd_elf_image.cpp) and the metadata reader of
// comgr, written from LLVM's AMDGPUUsage: the ELF header and its e_flags target (EF_AMDGPU_MACH plus the v4
// xnack/sramecc feature fields), program headers (PT_LOAD, PT_DYNAMIC, PT_NOTE), section headers, the dynamic
// and static symbol tables, the dynamic relocations (.rela.dyn), and the NT_AMDGPU_METADATA note (MessagePack)
// with what each kernel needs at dispatch. Nothing here touches a GPU: the loader (hsa/executable.h) places
// the PT_LOAD image in GPU memory and applies the relocations this reader lists.
//
// Every offset, size and count read from the file is bounds-checked; malformed input is kInvalidArgument with
// the reason, never a crash. A CodeObject owns a copy of the bytes it was parsed from. Immutable once parsed:
// thread-safe to share.
#ifndef HIPMEM_GPU_ABI_CODE_OBJECT_H_
#define HIPMEM_GPU_ABI_CODE_OBJECT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hipmem::gpu_abi::code_object {

// ELF constants of the AMDGPU ABI (AMDGPUUsage "ELF Code Object").
inline constexpr uint16_t kEmAmdgpu = 224;
inline constexpr uint8_t kElfOsAbiAmdgpuHsa = 64;
inline constexpr uint8_t kAbiVersionV4 = 2;
inline constexpr uint8_t kAbiVersionV5 = 3;
inline constexpr uint8_t kAbiVersionV6 = 4;
inline constexpr uint32_t kNtAmdgpuMetadata = 32;

// Program header types.
inline constexpr uint32_t kPtLoad = 1;
inline constexpr uint32_t kPtDynamic = 2;
inline constexpr uint32_t kPtNote = 4;
// Segment flags.
inline constexpr uint32_t kPfX = 1;
inline constexpr uint32_t kPfW = 2;
inline constexpr uint32_t kPfR = 4;

// Symbol types and bindings.
inline constexpr uint8_t kSttNotype = 0;
inline constexpr uint8_t kSttObject = 1;
inline constexpr uint8_t kSttFunc = 2;
inline constexpr uint8_t kSttSection = 3;
inline constexpr uint8_t kStbLocal = 0;
inline constexpr uint8_t kStbGlobal = 1;
inline constexpr uint8_t kStbWeak = 2;
inline constexpr uint16_t kShnUndef = 0;

// Section flags and types the loader looks at.
inline constexpr uint64_t kShfWrite = 1;
inline constexpr uint64_t kShfAlloc = 2;
inline constexpr uint32_t kShtNobits = 8;

// Dynamic relocation types (AMDGPUUsage "Relocation Records").
enum class RelocationType : uint32_t {
  kNone = 0,
  kAbs32Lo = 1,
  kAbs32Hi = 2,
  kAbs64 = 3,
  kRel32 = 4,
  kRel64 = 5,
  kAbs32 = 6,
  kGotPcRel = 7,
  kGotPcRel32Lo = 8,
  kGotPcRel32Hi = 9,
  kRel32Lo = 10,
  kRel32Hi = 11,
  kRelative64 = 13,
  kRel16 = 14,
};

// A v4+ target feature field of e_flags (EF_AMDGPU_FEATURE_XNACK_V4 / _SRAMECC_V4).
enum class FeatureSetting : uint8_t { kUnsupported, kAny, kOff, kOn };

// The processor and features a code object was built for, from e_flags.
struct Target {
  uint32_t mach = 0;           // EF_AMDGPU_MACH
  std::string processor;       // "gfx90a"
  FeatureSetting xnack = FeatureSetting::kUnsupported;
  FeatureSetting sramecc = FeatureSetting::kUnsupported;
  uint32_t generic_version = 0;  // v6 EF_AMDGPU_GENERIC_VERSION, 0 otherwise

  // The target ID as ROCr's loader names it: "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" (a feature left out
  // when it is "any" or unsupported).
  std::string IsaName() const;
};

// Decodes e_flags of a code object of the given ELF ABI version. kInvalidArgument for an unknown mach.
absl::StatusOr<Target> DecodeTarget(uint32_t e_flags, uint8_t abi_version);
// The processor name of an EF_AMDGPU_MACH value, or nullopt for one this reader does not know.
std::optional<std::string_view> ProcessorOfMach(uint32_t mach);

struct ProgramHeader {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t file_size = 0;
  uint64_t mem_size = 0;
  uint64_t align = 0;
};

struct SectionHeader {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t addralign = 0;
  uint64_t entsize = 0;
};

struct Symbol {
  std::string name;
  uint64_t value = 0;  // the symbol's vaddr in the image, for a defined symbol
  uint64_t size = 0;
  uint8_t type = kSttNotype;
  uint8_t binding = kStbLocal;
  uint8_t visibility = 0;
  uint16_t section = kShnUndef;

  bool defined() const { return section != kShnUndef; }
};

struct Relocation {
  uint64_t offset = 0;  // the vaddr the relocation writes
  RelocationType type = RelocationType::kNone;
  uint32_t symbol = 0;  // index into dynamic_symbols(), 0 for none
  int64_t addend = 0;
};

// One kernel argument of the metadata (.args entry).
struct KernelArg {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  std::string value_kind;     // "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string address_space;  // "global", "constant", ... or empty
};

// One entry of amdhsa.kernels.
struct KernelMetadata {
  std::string name;    // .name
  std::string symbol;  // .symbol: "<name>.kd"
  uint32_t kernarg_segment_size = 0;
  uint32_t kernarg_segment_align = 0;
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  bool uses_dynamic_stack = false;
  uint32_t wavefront_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t agpr_count = 0;
  uint32_t max_flat_workgroup_size = 0;
  std::vector<KernelArg> args;
};

// The NT_AMDGPU_METADATA note.
struct Metadata {
  std::vector<uint32_t> version;  // amdhsa.version: [major, minor]
  std::string target;             // amdhsa.target
  // amdhsa.printf: the format strings of LLVM's buffered printf (-mprintf-kind=buffered), each
  // "<id>:<argument sizes>:<hash>,<format>" (clang's HIP lowering leaves id and sizes 0 and gives the low 64 bits of
  // the format's MD5 in hex).
  std::vector<std::string> printf_formats;
  std::vector<KernelMetadata> kernels;

  // The kernel whose .symbol or .name is `name`, if any.
  const KernelMetadata* FindKernel(std::string_view name) const;
};

// Decodes the MessagePack map of an NT_AMDGPU_METADATA note. kInvalidArgument for malformed MessagePack or a
// field of the wrong type.
absl::StatusOr<Metadata> DecodeMetadata(std::span<const uint8_t> msgpack);

class CodeObject {
 public:
  // Parses and validates `bytes` (copied). Errors (all kInvalidArgument, HSA_STATUS_ERROR_INVALID_CODE_OBJECT
  // at the C boundary): not ELF64 little-endian; not EM_AMDGPU / ELFOSABI_AMDGPU_HSA; an ABI version other
  // than v4, v5 or v6; not a shared object; an unknown mach; a header, table or segment outside the file; no
  // PT_LOAD; a malformed symbol table, relocation table or metadata note.
  static absl::StatusOr<CodeObject> Parse(std::span<const uint8_t> bytes);

  CodeObject(CodeObject&&) = default;
  CodeObject& operator=(CodeObject&&) = default;
  CodeObject(const CodeObject&) = delete;
  CodeObject& operator=(const CodeObject&) = delete;

  std::span<const uint8_t> bytes() const { return bytes_; }
  uint8_t abi_version() const { return abi_version_; }
  // 4, 5 or 6.
  uint32_t code_object_version() const { return abi_version_ + 2u; }
  const Target& target() const { return target_; }
  const std::vector<ProgramHeader>& program_headers() const { return program_headers_; }
  const std::vector<SectionHeader>& sections() const { return sections_; }
  // .dynsym, index 0 being the null symbol.
  const std::vector<Symbol>& dynamic_symbols() const { return dynamic_symbols_; }
  // .symtab when present (LLVM keeps it unless stripped), else empty.
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::vector<Relocation>& dynamic_relocations() const { return dynamic_relocations_; }
  const Metadata& metadata() const { return metadata_; }

  // The PT_LOAD headers, in file order (ascending vaddr, as the ELF specification requires).
  std::vector<ProgramHeader> LoadSegments() const;
  // [lowest PT_LOAD vaddr, highest vaddr + mem_size): the span one contiguous load covers, and the largest
  // p_align among them.
  struct LoadSpan {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint64_t align = 1;
  };
  LoadSpan load_span() const;
  // The defined dynamic symbol named `name`, if any.
  const Symbol* FindDynamicSymbol(std::string_view name) const;
  // The section containing `vaddr` among the allocated ones, if any.
  const SectionHeader* SectionAt(uint64_t vaddr) const;

 private:
  CodeObject() = default;
  absl::Status ParseAll();

  std::vector<uint8_t> bytes_;
  uint8_t abi_version_ = 0;
  Target target_;
  std::vector<ProgramHeader> program_headers_;
  std::vector<SectionHeader> sections_;
  std::vector<Symbol> dynamic_symbols_;
  std::vector<Symbol> symbols_;
  std::vector<Relocation> dynamic_relocations_;
  Metadata metadata_;
};

}  // namespace hipmem::gpu_abi::code_object

#endif  // HIPMEM_GPU_ABI_CODE_OBJECT_H_
