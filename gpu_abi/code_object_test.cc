#include "gpu_abi/code_object.h"

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gpu_abi/kernel_descriptor.h"
#include "gpu_abi/loader_test_kernels.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::gpu_abi::code_object {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

struct TargetRow {
  std::string_view (*bytes)();
  std::string_view processor;
  uint32_t mach;
  uint32_t version;
  FeatureSetting xnack;
  FeatureSetting sramecc;
  std::string_view isa_name;
};

// What llvm-readelf-19 -h says of each test code object (Flags and ABI Version).
const TargetRow kTargets[] = {
    {hipmem_testing::loader_kernels_gfx908_v4, "gfx908", 0x30, 4, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx908"},
    {hipmem_testing::loader_kernels_gfx908_v5, "gfx908", 0x30, 5, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx908"},
    {hipmem_testing::loader_kernels_gfx90a_v4, "gfx90a", 0x3f, 4, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx90a"},
    {hipmem_testing::loader_kernels_gfx90a_v5, "gfx90a", 0x3f, 5, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx90a"},
    {hipmem_testing::loader_kernels_gfx942_v4, "gfx942", 0x4c, 4, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx942"},
    {hipmem_testing::loader_kernels_gfx942_v5, "gfx942", 0x4c, 5, FeatureSetting::kAny, FeatureSetting::kAny,
     "amdgcn-amd-amdhsa--gfx942"},
    {hipmem_testing::loader_kernels_gfx90a_xnack_on_v5, "gfx90a", 0x3f, 5, FeatureSetting::kOn,
     FeatureSetting::kAny, "amdgcn-amd-amdhsa--gfx90a:xnack+"},
    {hipmem_testing::loader_kernels_gfx942_sramecc_off_v5, "gfx942", 0x4c, 5, FeatureSetting::kAny,
     FeatureSetting::kOff, "amdgcn-amd-amdhsa--gfx942:sramecc-"},
    {hipmem_testing::loader_gfx1100_v5, "gfx1100", 0x41, 5, FeatureSetting::kUnsupported,
     FeatureSetting::kUnsupported, "amdgcn-amd-amdhsa--gfx1100"},
};

TEST(CodeObjectTest, DecodesTargetOfEveryTestCodeObject) {
  for (const TargetRow& row : kTargets) {
    SCOPED_TRACE(row.isa_name);
    ASSERT_OK_AND_ASSIGN(const CodeObject co, CodeObject::Parse(Bytes(row.bytes())));
    EXPECT_EQ(co.target().processor, row.processor);
    EXPECT_EQ(co.target().mach, row.mach);
    EXPECT_EQ(co.code_object_version(), row.version);
    EXPECT_EQ(co.target().xnack, row.xnack);
    EXPECT_EQ(co.target().sramecc, row.sramecc);
    EXPECT_EQ(co.target().IsaName(), row.isa_name);
    // The metadata's target names the features the compiler was asked for; e_flags must agree on the processor.
    EXPECT_THAT(co.metadata().target, HasSubstr(std::string(row.processor)));
  }
}

TEST(CodeObjectTest, ReadsKernelMetadataAndDescriptors) {
  ASSERT_OK_AND_ASSIGN(const CodeObject co, CodeObject::Parse(Bytes(hipmem_testing::loader_kernels_gfx90a_v5())));
  ASSERT_EQ(co.metadata().kernels.size(), 3u);
  EXPECT_EQ(co.metadata().version.size(), 2u);
  EXPECT_EQ(co.metadata().target, "amdgcn-amd-amdhsa--gfx90a");

  const KernelMetadata* add = co.metadata().FindKernel("loader_add_one.kd");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->name, "loader_add_one");
  EXPECT_EQ(add->wavefront_size, 64u);
  EXPECT_EQ(add->kernarg_segment_align, 8u);
  EXPECT_EQ(add->uses_dynamic_stack, false);
  EXPECT_GT(add->sgpr_count, 0u);
  EXPECT_GT(add->vgpr_count, 0u);
  EXPECT_EQ(add->max_flat_workgroup_size, 1024u);
  ASSERT_GE(add->args.size(), 2u);
  EXPECT_EQ(add->args[0].offset, 0u);
  EXPECT_EQ(add->args[0].size, 8u);
  EXPECT_EQ(add->args[0].value_kind, "global_buffer");
  EXPECT_EQ(add->args[0].address_space, "global");
  EXPECT_EQ(add->args[1].offset, 8u);
  EXPECT_EQ(add->args[1].size, 4u);
  EXPECT_EQ(add->args[1].value_kind, "by_value");
  // The kernel reads no implicit argument, so LLVM appends no hidden ones: 8 + 4 bytes (llvm-readelf --notes).
  EXPECT_EQ(add->args.size(), 2u);
  EXPECT_EQ(add->kernarg_segment_size, 12u);

  const KernelMetadata* lds = co.metadata().FindKernel("loader_uses_lds");
  ASSERT_NE(lds, nullptr);
  EXPECT_EQ(lds->group_segment_fixed_size, 1024u);

  // The descriptor at the .kd symbol agrees with the metadata.
  const Symbol* kd_symbol = co.FindDynamicSymbol("loader_uses_lds.kd");
  ASSERT_NE(kd_symbol, nullptr);
  EXPECT_EQ(kd_symbol->size, amdhsa::kKernelDescriptorBytes);
  const SectionHeader* section = co.SectionAt(kd_symbol->value);
  ASSERT_NE(section, nullptr);
  const amdhsa::KernelDescriptor kd = amdhsa::KernelDescriptor::FromBytes(
      co.bytes().data() + section->offset + (kd_symbol->value - section->addr));
  EXPECT_EQ(kd.group_segment_fixed_size, lds->group_segment_fixed_size);
  EXPECT_EQ(kd.kernarg_size, lds->kernarg_segment_size);
  const Symbol* code = co.FindDynamicSymbol("loader_uses_lds");
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(kd_symbol->value + kd.kernel_code_entry_byte_offset, code->value);
  EXPECT_EQ(code->value % amdhsa::kKernelCodeAlignment, 0u);
  EXPECT_TRUE(kd.enable_sgpr_kernarg_segment_ptr());
  EXPECT_EQ(amdhsa::EnabledUserSgprCount(kd), kd.user_sgpr_count());
}

TEST(CodeObjectTest, ReadsVersionFourMetadataWithoutHiddenArgumentsBlock) {
  ASSERT_OK_AND_ASSIGN(const CodeObject co, CodeObject::Parse(Bytes(hipmem_testing::loader_kernels_gfx908_v4())));
  EXPECT_EQ(co.metadata().version, (std::vector<uint32_t>{1, 1}));
  const KernelMetadata* add = co.metadata().FindKernel("loader_add_one.kd");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->args[0].value_kind, "global_buffer");
}

TEST(CodeObjectTest, ListsDynamicRelocations) {
  // llvm-readelf -r: one R_AMDGPU_RELATIVE64 for loader_counter_ptr = &loader_counter.
  ASSERT_OK_AND_ASSIGN(const CodeObject co, CodeObject::Parse(Bytes(hipmem_testing::loader_kernels_gfx90a_v5())));
  ASSERT_EQ(co.dynamic_relocations().size(), 1u);
  const Relocation& r = co.dynamic_relocations()[0];
  EXPECT_EQ(r.type, RelocationType::kRelative64);
  EXPECT_EQ(r.offset, co.FindDynamicSymbol("loader_counter_ptr")->value);
  EXPECT_EQ(static_cast<uint64_t>(r.addend), co.FindDynamicSymbol("loader_counter")->value);

  // The hand-written object: two R_AMDGPU_ABS64 through .dynsym.
  ASSERT_OK_AND_ASSIGN(const CodeObject relocs, CodeObject::Parse(Bytes(hipmem_testing::loader_relocs_gfx90a_v5())));
  ASSERT_EQ(relocs.dynamic_relocations().size(), 2u);
  for (const Relocation& rel : relocs.dynamic_relocations()) {
    EXPECT_EQ(rel.type, RelocationType::kAbs64);
    EXPECT_TRUE(relocs.dynamic_symbols()[rel.symbol].defined());
  }
  const KernelMetadata* k = relocs.metadata().FindKernel("reloc_kernel.kd");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->private_segment_fixed_size, 32u);
  EXPECT_EQ(k->group_segment_fixed_size, 128u);
  EXPECT_EQ(k->max_flat_workgroup_size, 256u);
}

TEST(CodeObjectTest, LoadSpanCoversEveryLoadSegment) {
  ASSERT_OK_AND_ASSIGN(const CodeObject co, CodeObject::Parse(Bytes(hipmem_testing::loader_kernels_gfx942_v5())));
  const CodeObject::LoadSpan span = co.load_span();
  EXPECT_EQ(span.begin, 0u);
  EXPECT_EQ(span.align, 0x1000u);
  for (const ProgramHeader& p : co.LoadSegments()) EXPECT_LE(p.vaddr + p.mem_size, span.end);
  EXPECT_GE(co.LoadSegments().size(), 2u);
}

// Malformed input: every way of breaking the file is kInvalidArgument, never a crash.
TEST(CodeObjectTest, RefusesMalformedFiles) {
  const std::string_view good = hipmem_testing::loader_kernels_gfx90a_v5();
  struct Row {
    const char* name;
    size_t offset;  // byte to change, or SIZE_MAX to truncate to `value` bytes
    uint32_t value;
    const char* message;
  };
  const Row kRows[] = {
      {"bad magic", 1, 'X', "not an ELF"},
      {"ELF32", 4, 1, "ELF64"},
      {"big-endian", 5, 2, "little-endian"},
      {"Linux OSABI", 7, 0, "ELFOSABI_AMDGPU_HSA"},
      {"code object v3", 8, 1, "ABI version"},
      {"x86-64 machine", 18, 62, "EM_AMDGPU"},
      {"executable type", 16, 2, "ET_DYN"},
      {"unknown mach", 48, 0x01, "EF_AMDGPU_MACH"},
      {"truncated header", SIZE_MAX, 40, "outside the file"},
      {"truncated tables", SIZE_MAX, 1000, "outside the file"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    std::vector<uint8_t> bytes(good.begin(), good.end());
    if (row.offset == SIZE_MAX) {
      bytes.resize(row.value);
    } else {
      bytes[row.offset] = static_cast<uint8_t>(row.value);
    }
    EXPECT_THAT(CodeObject::Parse(bytes).status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)));
  }
  EXPECT_THAT(CodeObject::Parse({}).status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(CodeObjectTest, SurvivesEveryTruncation) {
  const std::string_view good = hipmem_testing::loader_relocs_gfx90a_v5();
  for (size_t size = 0; size < good.size(); size += 7) {
    std::vector<uint8_t> bytes(good.begin(), good.begin() + size);
    EXPECT_THAT(CodeObject::Parse(bytes).status(), StatusIs(absl::StatusCode::kInvalidArgument)) << size;
  }
}

// MessagePack: the encodings the metadata uses, and hostile input.
TEST(MetadataTest, DecodesMessagePackForms) {
  // {"amdhsa.target": "x", "amdhsa.version": [1, 2], "amdhsa.kernels": [{".name": "k", ".symbol": "k.kd",
  //  ".sgpr_count": uint16 300, ".uses_dynamic_stack": true, ".args": [{".offset": uint32 65536}]}]}
  const uint8_t kMsg[] = {
      0x83,
      0xad, 'a', 'm', 'd', 'h', 's', 'a', '.', 't', 'a', 'r', 'g', 'e', 't', 0xa1, 'x',
      0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0x92, 0x01, 0x02,
      0xd9, 0x0e, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x91,
      0x85,
      0xa5, '.', 'n', 'a', 'm', 'e', 0xa1, 'k',
      0xa7, '.', 's', 'y', 'm', 'b', 'o', 'l', 0xa4, 'k', '.', 'k', 'd',
      0xab, '.', 's', 'g', 'p', 'r', '_', 'c', 'o', 'u', 'n', 't', 0xcd, 0x01, 0x2c,
      0xb3, '.', 'u', 's', 'e', 's', '_', 'd', 'y', 'n', 'a', 'm', 'i', 'c', '_', 's', 't', 'a', 'c', 'k', 0xc3,
      0xa5, '.', 'a', 'r', 'g', 's', 0x91, 0x81,
      0xa7, '.', 'o', 'f', 'f', 's', 'e', 't', 0xce, 0x00, 0x01, 0x00, 0x00,
  };
  ASSERT_OK_AND_ASSIGN(const Metadata md, DecodeMetadata(kMsg));
  EXPECT_EQ(md.target, "x");
  EXPECT_EQ(md.version, (std::vector<uint32_t>{1, 2}));
  ASSERT_EQ(md.kernels.size(), 1u);
  EXPECT_EQ(md.kernels[0].sgpr_count, 300u);
  EXPECT_TRUE(md.kernels[0].uses_dynamic_stack);
  ASSERT_EQ(md.kernels[0].args.size(), 1u);
  EXPECT_EQ(md.kernels[0].args[0].offset, 65536u);
}

TEST(MetadataTest, RefusesHostileMessagePack) {
  struct Row {
    const char* name;
    std::vector<uint8_t> bytes;
  };
  const Row kRows[] = {
      {"empty", {}},
      {"not a map", {0x92, 0x01, 0x02}},
      {"map runs out", {0x82, 0xa1, 'a'}},
      {"huge array count", {0x81, 0xa1, 'a', 0xdd, 0xff, 0xff, 0xff, 0xff}},
      {"string past end", {0x81, 0xa1, 'a', 0xdb, 0x7f, 0xff, 0xff, 0xff}},
      {"reserved tag", {0x81, 0xa1, 'a', 0xc1}},
      {"negative count", {0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x91,
                          0x83, 0xa5, '.', 'n', 'a', 'm', 'e', 0xa1, 'k', 0xa7, '.', 's', 'y', 'm', 'b', 'o', 'l',
                          0xa1, 'k', 0xab, '.', 's', 'g', 'p', 'r', '_', 'c', 'o', 'u', 'n', 't', 0xff}},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(DecodeMetadata(row.bytes).status(), StatusIs(absl::StatusCode::kInvalidArgument));
  }
  // Deep nesting is refused, not recursed into until the stack ends.
  std::vector<uint8_t> deep(100000, 0x91);
  EXPECT_THAT(DecodeMetadata(deep).status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace hipmem::gpu_abi::code_object
