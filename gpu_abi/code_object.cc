#include "gpu_abi/code_object.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"

namespace hipmem::gpu_abi::code_object {
namespace {

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("AMDGPU code object: ", what));
}

// Bounds-checked little-endian reads from the file.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool Has(uint64_t offset, uint64_t size) const {
    return offset <= bytes_.size() && size <= bytes_.size() - offset;
  }
  template <typename T>
  absl::StatusOr<T> Read(uint64_t offset, absl::string_view what) const {
    if (!Has(offset, sizeof(T))) return Malformed(absl::StrCat(what, " lies outside the file"));
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;  // AMDGPU hosts and code objects are both little-endian
  }
  absl::StatusOr<std::span<const uint8_t>> Slice(uint64_t offset, uint64_t size, absl::string_view what) const {
    if (!Has(offset, size)) return Malformed(absl::StrCat(what, " lies outside the file"));
    return bytes_.subspan(offset, size);
  }

 private:
  std::span<const uint8_t> bytes_;
};

// The ELF64 records, as laid out in the file.
struct Elf64Ehdr {
  uint8_t ident[16];
  uint16_t type;
  uint16_t machine;
  uint32_t version;
  uint64_t entry;
  uint64_t phoff;
  uint64_t shoff;
  uint32_t flags;
  uint16_t ehsize;
  uint16_t phentsize;
  uint16_t phnum;
  uint16_t shentsize;
  uint16_t shnum;
  uint16_t shstrndx;
};
static_assert(sizeof(Elf64Ehdr) == 64);
struct Elf64Phdr {
  uint32_t type;
  uint32_t flags;
  uint64_t offset;
  uint64_t vaddr;
  uint64_t paddr;
  uint64_t filesz;
  uint64_t memsz;
  uint64_t align;
};
static_assert(sizeof(Elf64Phdr) == 56);
struct Elf64Shdr {
  uint32_t name;
  uint32_t type;
  uint64_t flags;
  uint64_t addr;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  uint32_t info;
  uint64_t addralign;
  uint64_t entsize;
};
static_assert(sizeof(Elf64Shdr) == 64);
struct Elf64Sym {
  uint32_t name;
  uint8_t info;
  uint8_t other;
  uint16_t shndx;
  uint64_t value;
  uint64_t size;
};
static_assert(sizeof(Elf64Sym) == 24);
struct Elf64Rela {
  uint64_t offset;
  uint64_t info;
  int64_t addend;
};
static_assert(sizeof(Elf64Rela) == 24);

constexpr uint16_t kEtDyn = 3;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtRela = 4;
constexpr uint32_t kShtDynsym = 11;

// EF_AMDGPU_* (AMDGPUUsage "AMDGPU ELF Header").
constexpr uint32_t kEfMachMask = 0xff;
constexpr uint32_t kEfXnackV4Mask = 0x300;
constexpr uint32_t kEfSrameccV4Mask = 0xc00;
constexpr int kEfGenericVersionShift = 24;

struct MachName {
  uint32_t mach;
  std::string_view processor;
};
// EF_AMDGPU_MACH values, checked against llvm-readelf-19 of llvm-mc-19 objects (gfx950 is LLVM 20's).
constexpr MachName kMachs[] = {
    {0x2c, "gfx900"},  {0x2f, "gfx906"},  {0x30, "gfx908"},  {0x3f, "gfx90a"},  {0x4c, "gfx942"},
    {0x4f, "gfx950"},  {0x36, "gfx1030"}, {0x41, "gfx1100"}, {0x46, "gfx1101"}, {0x47, "gfx1102"},
    {0x48, "gfx1200"}, {0x4e, "gfx1201"},
};

FeatureSetting DecodeFeature(uint32_t field, uint32_t any, uint32_t off, uint32_t on) {
  if (field == any) return FeatureSetting::kAny;
  if (field == off) return FeatureSetting::kOff;
  if (field == on) return FeatureSetting::kOn;
  return FeatureSetting::kUnsupported;
}

absl::StatusOr<std::string> StringAt(const Reader& file, const SectionHeader& strtab, uint32_t offset) {
  if (offset >= strtab.size) return Malformed("a name lies outside its string table");
  ASSIGN_OR_RETURN(std::span<const uint8_t> table, file.Slice(strtab.offset, strtab.size, "a string table"));
  const auto* begin = reinterpret_cast<const char*>(table.data()) + offset;
  const size_t max = table.size() - offset;
  const size_t length = strnlen(begin, max);
  if (length == max) return Malformed("a name is not NUL-terminated");
  return std::string(begin, length);
}

// ---- MessagePack (the subset AMDGPU metadata uses, and everything else skipped safely) ----

struct MsgValue {
  enum class Kind { kNil, kBool, kInt, kUInt, kFloat, kString, kBinary, kArray, kMap, kExt };
  Kind kind = Kind::kNil;
  bool boolean = false;
  int64_t integer = 0;
  uint64_t uinteger = 0;
  double real = 0;
  std::string string;            // kString and kBinary
  std::vector<MsgValue> array;   // kArray; for kMap the keys
  std::vector<MsgValue> values;  // kMap's values

  const MsgValue* Find(absl::string_view key) const {
    for (size_t i = 0; i < array.size(); ++i) {
      if (array[i].kind == Kind::kString && array[i].string == key) return &values[i];
    }
    return nullptr;
  }
};

class MsgPackDecoder {
 public:
  explicit MsgPackDecoder(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  absl::StatusOr<MsgValue> Decode(int depth = 0) {
    // The metadata nests four deep; a bound keeps hostile input from exhausting the stack.
    if (depth > 32) return Malformed("metadata nests too deeply");
    ASSIGN_OR_RETURN(const uint8_t tag, Byte());
    MsgValue v;
    if (tag <= 0x7f) return Int(v, tag);
    if (tag >= 0xe0) return SignedInt(v, static_cast<int8_t>(tag));
    if ((tag & 0xf0) == 0x80) return Map(v, tag & 0x0f, depth);
    if ((tag & 0xf0) == 0x90) return Array(v, tag & 0x0f, depth);
    if ((tag & 0xe0) == 0xa0) return String(v, tag & 0x1f, MsgValue::Kind::kString);
    switch (tag) {
      case 0xc0: return v;
      case 0xc2: v.kind = MsgValue::Kind::kBool; v.boolean = false; return v;
      case 0xc3: v.kind = MsgValue::Kind::kBool; v.boolean = true; return v;
      case 0xc4: { ASSIGN_OR_RETURN(uint64_t n, Big(1)); return String(v, n, MsgValue::Kind::kBinary); }
      case 0xc5: { ASSIGN_OR_RETURN(uint64_t n, Big(2)); return String(v, n, MsgValue::Kind::kBinary); }
      case 0xc6: { ASSIGN_OR_RETURN(uint64_t n, Big(4)); return String(v, n, MsgValue::Kind::kBinary); }
      case 0xc7: case 0xc8: case 0xc9: {
        ASSIGN_OR_RETURN(uint64_t n, Big(tag == 0xc7 ? 1 : tag == 0xc8 ? 2 : 4));
        return Ext(v, n);
      }
      case 0xca: {
        ASSIGN_OR_RETURN(uint64_t raw, Big(4));
        v.kind = MsgValue::Kind::kFloat;
        v.real = std::bit_cast<float>(static_cast<uint32_t>(raw));
        return v;
      }
      case 0xcb: {
        ASSIGN_OR_RETURN(uint64_t raw, Big(8));
        v.kind = MsgValue::Kind::kFloat;
        v.real = std::bit_cast<double>(raw);
        return v;
      }
      case 0xcc: case 0xcd: case 0xce: case 0xcf: {
        ASSIGN_OR_RETURN(uint64_t n, Big(1u << (tag - 0xcc)));
        return Int(v, n);
      }
      case 0xd0: { ASSIGN_OR_RETURN(uint64_t n, Big(1)); return SignedInt(v, static_cast<int8_t>(n)); }
      case 0xd1: { ASSIGN_OR_RETURN(uint64_t n, Big(2)); return SignedInt(v, static_cast<int16_t>(n)); }
      case 0xd2: { ASSIGN_OR_RETURN(uint64_t n, Big(4)); return SignedInt(v, static_cast<int32_t>(n)); }
      case 0xd3: { ASSIGN_OR_RETURN(uint64_t n, Big(8)); return SignedInt(v, static_cast<int64_t>(n)); }
      case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: return Ext(v, 1u << (tag - 0xd4));
      case 0xd9: { ASSIGN_OR_RETURN(uint64_t n, Big(1)); return String(v, n, MsgValue::Kind::kString); }
      case 0xda: { ASSIGN_OR_RETURN(uint64_t n, Big(2)); return String(v, n, MsgValue::Kind::kString); }
      case 0xdb: { ASSIGN_OR_RETURN(uint64_t n, Big(4)); return String(v, n, MsgValue::Kind::kString); }
      case 0xdc: { ASSIGN_OR_RETURN(uint64_t n, Big(2)); return Array(v, n, depth); }
      case 0xdd: { ASSIGN_OR_RETURN(uint64_t n, Big(4)); return Array(v, n, depth); }
      case 0xde: { ASSIGN_OR_RETURN(uint64_t n, Big(2)); return Map(v, n, depth); }
      case 0xdf: { ASSIGN_OR_RETURN(uint64_t n, Big(4)); return Map(v, n, depth); }
      default: return Malformed(absl::StrCat("metadata has the reserved MessagePack tag 0x", absl::Hex(tag)));
    }
  }

  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  absl::StatusOr<uint8_t> Byte() {
    if (pos_ >= bytes_.size()) return Malformed("metadata ends early");
    return bytes_[pos_++];
  }
  absl::StatusOr<uint64_t> Big(size_t n) {
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(const uint8_t b, Byte());
      value = value << 8 | b;
    }
    return value;
  }
  absl::Status Need(uint64_t n) const {
    if (n > bytes_.size() - pos_) return Malformed("metadata ends early");
    return absl::OkStatus();
  }
  static absl::StatusOr<MsgValue> Int(MsgValue& v, uint64_t n) {
    v.kind = MsgValue::Kind::kUInt;
    v.uinteger = n;
    v.integer = static_cast<int64_t>(n);
    return std::move(v);
  }
  static absl::StatusOr<MsgValue> SignedInt(MsgValue& v, int64_t n) {
    v.kind = MsgValue::Kind::kInt;
    v.integer = n;
    v.uinteger = static_cast<uint64_t>(n);
    return std::move(v);
  }
  absl::StatusOr<MsgValue> String(MsgValue& v, uint64_t n, MsgValue::Kind kind) {
    RETURN_IF_ERROR(Need(n));
    v.kind = kind;
    v.string.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return std::move(v);
  }
  absl::StatusOr<MsgValue> Ext(MsgValue& v, uint64_t n) {
    RETURN_IF_ERROR(Need(n + 1));  // the type byte, then the data
    pos_ += n + 1;
    v.kind = MsgValue::Kind::kExt;
    return std::move(v);
  }
  absl::StatusOr<MsgValue> Array(MsgValue& v, uint64_t n, int depth) {
    RETURN_IF_ERROR(Need(n));  // every element takes at least one byte
    v.kind = MsgValue::Kind::kArray;
    v.array.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(MsgValue e, Decode(depth + 1));
      v.array.push_back(std::move(e));
    }
    return std::move(v);
  }
  absl::StatusOr<MsgValue> Map(MsgValue& v, uint64_t n, int depth) {
    RETURN_IF_ERROR(Need(n));
    v.kind = MsgValue::Kind::kMap;
    for (uint64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(MsgValue key, Decode(depth + 1));
      ASSIGN_OR_RETURN(MsgValue value, Decode(depth + 1));
      v.array.push_back(std::move(key));
      v.values.push_back(std::move(value));
    }
    return std::move(v);
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

// Typed field readers over a metadata map: an absent field keeps the default, a mistyped one is an error.
absl::Status GetU32(const MsgValue& map, absl::string_view key, uint32_t& out) {
  const MsgValue* v = map.Find(key);
  if (v == nullptr) return absl::OkStatus();
  if ((v->kind != MsgValue::Kind::kUInt && v->kind != MsgValue::Kind::kInt) || v->integer < 0 ||
      v->uinteger > UINT32_MAX) {
    return Malformed(absl::StrCat("metadata field ", key, " is not a 32-bit unsigned integer"));
  }
  out = static_cast<uint32_t>(v->uinteger);
  return absl::OkStatus();
}
absl::Status GetString(const MsgValue& map, absl::string_view key, std::string& out) {
  const MsgValue* v = map.Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (v->kind != MsgValue::Kind::kString) return Malformed(absl::StrCat("metadata field ", key, " is not a string"));
  out = v->string;
  return absl::OkStatus();
}
absl::Status GetBool(const MsgValue& map, absl::string_view key, bool& out) {
  const MsgValue* v = map.Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (v->kind != MsgValue::Kind::kBool) return Malformed(absl::StrCat("metadata field ", key, " is not a boolean"));
  out = v->boolean;
  return absl::OkStatus();
}

absl::StatusOr<KernelArg> DecodeArg(const MsgValue& m) {
  if (m.kind != MsgValue::Kind::kMap) return Malformed("a kernel argument is not a map");
  KernelArg arg;
  RETURN_IF_ERROR(GetString(m, ".name", arg.name));
  RETURN_IF_ERROR(GetU32(m, ".offset", arg.offset));
  RETURN_IF_ERROR(GetU32(m, ".size", arg.size));
  RETURN_IF_ERROR(GetString(m, ".value_kind", arg.value_kind));
  RETURN_IF_ERROR(GetString(m, ".address_space", arg.address_space));
  return arg;
}

absl::StatusOr<KernelMetadata> DecodeKernel(const MsgValue& m) {
  if (m.kind != MsgValue::Kind::kMap) return Malformed("an amdhsa.kernels entry is not a map");
  KernelMetadata k;
  RETURN_IF_ERROR(GetString(m, ".name", k.name));
  RETURN_IF_ERROR(GetString(m, ".symbol", k.symbol));
  RETURN_IF_ERROR(GetU32(m, ".kernarg_segment_size", k.kernarg_segment_size));
  RETURN_IF_ERROR(GetU32(m, ".kernarg_segment_align", k.kernarg_segment_align));
  RETURN_IF_ERROR(GetU32(m, ".group_segment_fixed_size", k.group_segment_fixed_size));
  RETURN_IF_ERROR(GetU32(m, ".private_segment_fixed_size", k.private_segment_fixed_size));
  RETURN_IF_ERROR(GetBool(m, ".uses_dynamic_stack", k.uses_dynamic_stack));
  RETURN_IF_ERROR(GetU32(m, ".wavefront_size", k.wavefront_size));
  RETURN_IF_ERROR(GetU32(m, ".sgpr_count", k.sgpr_count));
  RETURN_IF_ERROR(GetU32(m, ".vgpr_count", k.vgpr_count));
  RETURN_IF_ERROR(GetU32(m, ".agpr_count", k.agpr_count));
  RETURN_IF_ERROR(GetU32(m, ".max_flat_workgroup_size", k.max_flat_workgroup_size));
  if (k.name.empty() || k.symbol.empty()) return Malformed("a kernel's metadata lacks .name or .symbol");
  if (const MsgValue* args = m.Find(".args")) {
    if (args->kind != MsgValue::Kind::kArray) return Malformed("metadata field .args is not an array");
    for (const MsgValue& a : args->array) {
      ASSIGN_OR_RETURN(KernelArg arg, DecodeArg(a));
      k.args.push_back(std::move(arg));
    }
  }
  return k;
}

}  // namespace

std::optional<std::string_view> ProcessorOfMach(uint32_t mach) {
  for (const MachName& m : kMachs) {
    if (m.mach == mach) return m.processor;
  }
  return std::nullopt;
}

absl::StatusOr<Target> DecodeTarget(uint32_t e_flags, uint8_t abi_version) {
  Target t;
  t.mach = e_flags & kEfMachMask;
  const std::optional<std::string_view> processor = ProcessorOfMach(t.mach);
  if (!processor.has_value()) {
    return Malformed(absl::StrCat("EF_AMDGPU_MACH 0x", absl::Hex(t.mach), " is not a known processor"));
  }
  t.processor = std::string(*processor);
  // Code object v4+ encode each feature as unsupported (0), any, off or on.
  t.xnack = DecodeFeature(e_flags & kEfXnackV4Mask, 0x100, 0x200, 0x300);
  t.sramecc = DecodeFeature(e_flags & kEfSrameccV4Mask, 0x400, 0x800, 0xc00);
  if (abi_version >= kAbiVersionV6) t.generic_version = e_flags >> kEfGenericVersionShift;
  return t;
}

std::string Target::IsaName() const {
  std::string name = absl::StrCat("amdgcn-amd-amdhsa--", processor);
  // LLVM's target ID order: sramecc before xnack.
  if (sramecc == FeatureSetting::kOn) absl::StrAppend(&name, ":sramecc+");
  if (sramecc == FeatureSetting::kOff) absl::StrAppend(&name, ":sramecc-");
  if (xnack == FeatureSetting::kOn) absl::StrAppend(&name, ":xnack+");
  if (xnack == FeatureSetting::kOff) absl::StrAppend(&name, ":xnack-");
  return name;
}

const KernelMetadata* Metadata::FindKernel(std::string_view name) const {
  for (const KernelMetadata& k : kernels) {
    if (k.symbol == name || k.name == name) return &k;
  }
  return nullptr;
}

absl::StatusOr<Metadata> DecodeMetadata(std::span<const uint8_t> msgpack) {
  MsgPackDecoder decoder(msgpack);
  ASSIGN_OR_RETURN(const MsgValue root, decoder.Decode());
  if (root.kind != MsgValue::Kind::kMap) return Malformed("the metadata is not a map");
  Metadata md;
  RETURN_IF_ERROR(GetString(root, "amdhsa.target", md.target));
  if (const MsgValue* version = root.Find("amdhsa.version")) {
    if (version->kind != MsgValue::Kind::kArray) return Malformed("amdhsa.version is not an array");
    for (const MsgValue& v : version->array) {
      if (v.kind != MsgValue::Kind::kUInt || v.uinteger > UINT32_MAX) {
        return Malformed("amdhsa.version holds a non-integer");
      }
      md.version.push_back(static_cast<uint32_t>(v.uinteger));
    }
  }
  if (const MsgValue* formats = root.Find("amdhsa.printf")) {
    if (formats->kind != MsgValue::Kind::kArray) return Malformed("amdhsa.printf is not an array");
    for (const MsgValue& f : formats->array) {
      if (f.kind != MsgValue::Kind::kString) return Malformed("amdhsa.printf holds a non-string");
      md.printf_formats.push_back(f.string);
    }
  }
  if (const MsgValue* kernels = root.Find("amdhsa.kernels")) {
    if (kernels->kind != MsgValue::Kind::kArray) return Malformed("amdhsa.kernels is not an array");
    for (const MsgValue& k : kernels->array) {
      ASSIGN_OR_RETURN(KernelMetadata kernel, DecodeKernel(k));
      md.kernels.push_back(std::move(kernel));
    }
  }
  return md;
}

absl::StatusOr<CodeObject> CodeObject::Parse(std::span<const uint8_t> bytes) {
  CodeObject co;
  co.bytes_.assign(bytes.begin(), bytes.end());
  RETURN_IF_ERROR(co.ParseAll());
  return co;
}

absl::Status CodeObject::ParseAll() {
  const Reader file(bytes_);
  ASSIGN_OR_RETURN(const Elf64Ehdr eh, file.Read<Elf64Ehdr>(0, "the ELF header"));
  if (std::memcmp(eh.ident, "\x7f" "ELF", 4) != 0) return Malformed("not an ELF file");
  if (eh.ident[4] != 2 || eh.ident[5] != 1) return Malformed("not ELF64 little-endian");
  if (eh.ident[7] != kElfOsAbiAmdgpuHsa) return Malformed("EI_OSABI is not ELFOSABI_AMDGPU_HSA");
  abi_version_ = eh.ident[8];
  if (abi_version_ < kAbiVersionV4 || abi_version_ > kAbiVersionV6) {
    return Malformed(absl::StrCat("ABI version ", abi_version_, " is not code object v4, v5 or v6"));
  }
  if (eh.machine != kEmAmdgpu) return Malformed(absl::StrCat("e_machine ", eh.machine, " is not EM_AMDGPU"));
  if (eh.type != kEtDyn) return Malformed("not a shared object (ET_DYN)");
  ASSIGN_OR_RETURN(target_, DecodeTarget(eh.flags, abi_version_));

  if (eh.phnum != 0 && eh.phentsize != sizeof(Elf64Phdr)) return Malformed("e_phentsize is not 56");
  for (uint32_t i = 0; i < eh.phnum; ++i) {
    ASSIGN_OR_RETURN(const Elf64Phdr ph, file.Read<Elf64Phdr>(eh.phoff + uint64_t{i} * sizeof(Elf64Phdr),
                                                                "a program header"));
    ProgramHeader p{ph.type, ph.flags, ph.offset, ph.vaddr, ph.filesz, ph.memsz, ph.align};
    if (p.type == kPtLoad || p.type == kPtNote || p.type == kPtDynamic) {
      if (!file.Has(p.offset, p.file_size)) return Malformed("a segment lies outside the file");
      if (p.file_size > p.mem_size && p.type == kPtLoad) return Malformed("a PT_LOAD has p_filesz > p_memsz");
      if (p.vaddr + p.mem_size < p.vaddr) return Malformed("a segment wraps the address space");
      if (p.align > 1 && !std::has_single_bit(p.align)) return Malformed("a segment's p_align is not a power of 2");
    }
    program_headers_.push_back(p);
  }
  if (LoadSegments().empty()) return Malformed("no PT_LOAD segment");
  uint64_t previous_end = 0;
  for (const ProgramHeader& p : LoadSegments()) {
    if (p.vaddr < previous_end) return Malformed("PT_LOAD segments overlap or are not in vaddr order");
    previous_end = p.vaddr + p.mem_size;
  }

  if (eh.shnum != 0 && eh.shentsize != sizeof(Elf64Shdr)) return Malformed("e_shentsize is not 64");
  std::vector<Elf64Shdr> raw_sections;
  for (uint32_t i = 0; i < eh.shnum; ++i) {
    ASSIGN_OR_RETURN(const Elf64Shdr sh, file.Read<Elf64Shdr>(eh.shoff + uint64_t{i} * sizeof(Elf64Shdr),
                                                               "a section header"));
    if (sh.type != kShtNobits && sh.type != 0 && !file.Has(sh.offset, sh.size)) {
      return Malformed("a section lies outside the file");
    }
    raw_sections.push_back(sh);
    sections_.push_back(SectionHeader{"", sh.type, sh.flags, sh.addr, sh.offset, sh.size, sh.link, sh.info,
                                      sh.addralign, sh.entsize});
  }
  if (!sections_.empty()) {
    if (eh.shstrndx >= sections_.size()) return Malformed("e_shstrndx names no section");
    const SectionHeader shstrtab = sections_[eh.shstrndx];
    for (size_t i = 0; i < sections_.size(); ++i) {
      ASSIGN_OR_RETURN(sections_[i].name, StringAt(file, shstrtab, raw_sections[i].name));
    }
  }

  auto read_symbols = [&](const SectionHeader& table, std::vector<Symbol>& out) -> absl::Status {
    if (table.entsize != sizeof(Elf64Sym) || table.size % sizeof(Elf64Sym) != 0) {
      return Malformed(absl::StrCat(table.name, " has a bad entry size"));
    }
    if (table.link >= sections_.size()) return Malformed(absl::StrCat(table.name, " links no string table"));
    const SectionHeader& strtab = sections_[table.link];
    for (uint64_t off = 0; off < table.size; off += sizeof(Elf64Sym)) {
      ASSIGN_OR_RETURN(const Elf64Sym s, file.Read<Elf64Sym>(table.offset + off, "a symbol"));
      Symbol sym;
      ASSIGN_OR_RETURN(sym.name, StringAt(file, strtab, s.name));
      sym.value = s.value;
      sym.size = s.size;
      sym.type = s.info & 0xf;
      sym.binding = s.info >> 4;
      sym.visibility = s.other & 0x3;
      sym.section = s.shndx;
      out.push_back(std::move(sym));
    }
    return absl::OkStatus();
  };
  for (const SectionHeader& s : sections_) {
    if (s.type == kShtDynsym) RETURN_IF_ERROR(read_symbols(s, dynamic_symbols_));
    if (s.type == kShtSymtab) RETURN_IF_ERROR(read_symbols(s, symbols_));
  }
  for (const SectionHeader& s : sections_) {
    // Dynamic relocations are the SHT_RELA sections that apply to the whole image (sh_info 0) through .dynsym;
    // static ones (lld --emit-relocs) name their target section and are never applied again (ROCr skips them).
    if (s.type != kShtRela || s.info != 0) continue;
    if (s.entsize != sizeof(Elf64Rela) || s.size % sizeof(Elf64Rela) != 0) {
      return Malformed(absl::StrCat(s.name, " has a bad entry size"));
    }
    for (uint64_t off = 0; off < s.size; off += sizeof(Elf64Rela)) {
      ASSIGN_OR_RETURN(const Elf64Rela r, file.Read<Elf64Rela>(s.offset + off, "a relocation"));
      Relocation rel{r.offset, static_cast<RelocationType>(r.info & 0xffffffff), static_cast<uint32_t>(r.info >> 32),
                     r.addend};
      if (rel.symbol >= std::max<size_t>(dynamic_symbols_.size(), 1)) {
        return Malformed("a relocation names a symbol outside .dynsym");
      }
      dynamic_relocations_.push_back(rel);
    }
  }

  // The metadata note: 4-byte aligned (namesz, descsz, type) records with padded name and descriptor.
  bool found_metadata = false;
  for (const ProgramHeader& p : program_headers_) {
    if (p.type != kPtNote) continue;
    uint64_t off = 0;
    while (off + 12 <= p.file_size) {
      ASSIGN_OR_RETURN(const uint32_t namesz, file.Read<uint32_t>(p.offset + off, "a note"));
      ASSIGN_OR_RETURN(const uint32_t descsz, file.Read<uint32_t>(p.offset + off + 4, "a note"));
      ASSIGN_OR_RETURN(const uint32_t type, file.Read<uint32_t>(p.offset + off + 8, "a note"));
      const uint64_t name_off = off + 12;
      const uint64_t desc_off = name_off + ((uint64_t{namesz} + 3) & ~uint64_t{3});
      const uint64_t next = desc_off + ((uint64_t{descsz} + 3) & ~uint64_t{3});
      if (next > p.file_size) return Malformed("a note runs past its segment");
      ASSIGN_OR_RETURN(std::span<const uint8_t> name, file.Slice(p.offset + name_off, namesz, "a note name"));
      const bool amdgpu = namesz == 7 && std::memcmp(name.data(), "AMDGPU", 7) == 0;
      if (amdgpu && type == kNtAmdgpuMetadata) {
        ASSIGN_OR_RETURN(std::span<const uint8_t> desc, file.Slice(p.offset + desc_off, descsz, "a note"));
        ASSIGN_OR_RETURN(metadata_, DecodeMetadata(desc));
        found_metadata = true;
      }
      off = next;
    }
  }
  if (!found_metadata) return Malformed("no NT_AMDGPU_METADATA note");
  return absl::OkStatus();
}

std::vector<ProgramHeader> CodeObject::LoadSegments() const {
  std::vector<ProgramHeader> loads;
  for (const ProgramHeader& p : program_headers_) {
    if (p.type == kPtLoad) loads.push_back(p);
  }
  return loads;
}

CodeObject::LoadSpan CodeObject::load_span() const {
  LoadSpan span{UINT64_MAX, 0, 1};
  for (const ProgramHeader& p : program_headers_) {
    if (p.type != kPtLoad) continue;
    span.begin = std::min(span.begin, p.vaddr);
    span.end = std::max(span.end, p.vaddr + p.mem_size);
    span.align = std::max(span.align, p.align);
  }
  return span;
}

const Symbol* CodeObject::FindDynamicSymbol(std::string_view name) const {
  for (const Symbol& s : dynamic_symbols_) {
    if (s.defined() && s.name == name) return &s;
  }
  return nullptr;
}

const SectionHeader* CodeObject::SectionAt(uint64_t vaddr) const {
  for (const SectionHeader& s : sections_) {
    if ((s.flags & kShfAlloc) != 0 && s.addr <= vaddr && vaddr < s.addr + std::max<uint64_t>(s.size, 1)) return &s;
  }
  return nullptr;
}

}  // namespace hipmem::gpu_abi::code_object
