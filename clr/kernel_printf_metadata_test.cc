// Which kernels get a printf buffer: clang's printf lowering onto amd_device_printf.h makes the AMDGPU back end keep
// hidden_hostcall_buffer (code object v5, implicit-argument offset 80) in the metadata of exactly the kernels that
// reach printf, directly or through a callee; the launch path gives a buffer only to those (clr::Kernel::prints),
// and BuildKernargs puts its address in that argument. With -mprintf-kind=buffered the argument is
// hidden_printf_buffer (offset 72) and the format strings come in amdhsa.printf. Over hip/printf_kernels.hip built
// for each target hipmem's presets run, in both modes.
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <tuple>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "clr/program.h"
#include "gpu_abi/code_object.h"
#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

namespace co = gpu_abi::code_object;

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// The kernel as clr::Program::Load records it.
clr::Kernel KernelOf(const co::KernelMetadata& metadata) {
  clr::Kernel kernel;
  kernel.name = metadata.name;
  kernel.kernarg_segment_size = metadata.kernarg_segment_size;
  for (const co::KernelArg& arg : metadata.args) {
    (absl::StartsWith(arg.value_kind, "hidden_") ? kernel.hidden_args : kernel.explicit_args).push_back(arg);
    if (arg.value_kind == "hidden_hostcall_buffer" || arg.value_kind == "hidden_printf_buffer") kernel.prints = true;
  }
  return kernel;
}

const co::KernelArg* FindArg(const co::KernelMetadata& kernel, const std::string& kind) {
  for (const co::KernelArg& arg : kernel.args) {
    if (arg.value_kind == kind) return &arg;
  }
  return nullptr;
}

// (target, buffered)
class PrintfMetadataTest : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(PrintfMetadataTest, OnlyPrintingKernelsAskForTheBufferAndGetItsAddress) {
  const auto [arch, buffered] = GetParam();
  const std::string slot_kind = buffered ? "hidden_printf_buffer" : "hidden_hostcall_buffer";
  const uint32_t slot_offset = buffered ? 72 : 80;
  const std::vector<uint8_t> bytes =
      ReadFile(std::string("hip/printf_kernels_") + (buffered ? "buffered_" : "") + arch + ".co");
  ASSERT_FALSE(bytes.empty());
  absl::StatusOr<co::CodeObject> object = co::CodeObject::Parse(bytes);
  ASSERT_TRUE(object.ok()) << object.status();
  ASSERT_EQ(object->code_object_version(), 5u);
  constexpr uint64_t kBuffer = 0x7f00deadbe00;
  const int32_t n = 7;
  void* args[] = {const_cast<int32_t*>(&n)};
  for (const char* name : {"prints_directly", "prints_in_a_callee"}) {
    SCOPED_TRACE(name);
    const co::KernelMetadata* metadata = object->metadata().FindKernel(name);
    ASSERT_NE(metadata, nullptr);
    const co::KernelArg* slot = FindArg(*metadata, slot_kind);
    ASSERT_NE(slot, nullptr);
    const co::KernelArg* first_hidden = FindArg(*metadata, "hidden_block_count_x");
    ASSERT_NE(first_hidden, nullptr);
    // The slot the device functions read, counted from the first implicit argument.
    EXPECT_EQ(slot->offset - first_hidden->offset, slot_offset);
    EXPECT_EQ(slot->size, 8u);
    const clr::Kernel kernel = KernelOf(*metadata);
    EXPECT_TRUE(kernel.prints);
    clr::LaunchGeometry geometry;
    geometry.printf_buffer = kBuffer;
    absl::StatusOr<std::vector<uint8_t>> segment = clr::BuildKernargs(kernel, {args, {}}, geometry);
    ASSERT_TRUE(segment.ok()) << segment.status();
    uint64_t filled = 0;
    std::memcpy(&filled, segment->data() + slot->offset, sizeof(filled));
    EXPECT_EQ(filled, kBuffer);
  }
  const co::KernelMetadata* plain = object->metadata().FindKernel("never_prints");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(FindArg(*plain, "hidden_hostcall_buffer"), nullptr);
  EXPECT_EQ(FindArg(*plain, "hidden_printf_buffer"), nullptr);
  EXPECT_FALSE(KernelOf(*plain).prints);
  // Buffered printf's formats, by the hash its frames carry; the hostcall lowering names none.
  const PrintfFormats formats = ParsePrintfFormats(object->metadata().printf_formats);
  std::vector<std::string> texts;
  for (const auto& [hash, text] : formats) texts.push_back(text);
  std::sort(texts.begin(), texts.end());
  const std::vector<std::string> expected =
      buffered ? std::vector<std::string>{"callee %d\n", "direct %d\n"} : std::vector<std::string>{};
  EXPECT_EQ(texts, expected);
}

INSTANTIATE_TEST_SUITE_P(Targets, PrintfMetadataTest,
                         ::testing::Combine(::testing::Values("gfx908", "gfx90a", "gfx942"), ::testing::Bool()));

}  // namespace
}  // namespace hipmem::clr
