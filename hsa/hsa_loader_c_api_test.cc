// The loader's C API on the simulated machine the test target picks (HIPMEM_SIM_PRESET): mi300x (gfx942) by
// default, rx7900xtx (gfx1100, VRAM the CPU cannot see) for the refusal and copy-path cases.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_abi/kernel_descriptor.h"
#include "gpu_abi/loader_test_kernels.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

using hipmem::hsa_test::CollectAgents;

std::string Processor(hsa_agent_t agent) {
  char name[64] = {};
  EXPECT_EQ(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name), HSA_STATUS_SUCCESS);
  return name;
}

// The preset's own code objects (v4 and v5) and one built for another processor.
struct Objects {
  std::vector<std::string_view> native;
  std::string_view foreign;
};
Objects ObjectsFor(const std::string& processor) {
  using namespace hipmem_testing;
  if (processor == "gfx942") return {{loader_kernels_gfx942_v4(), loader_kernels_gfx942_v5()}, loader_gfx1100_v5()};
  if (processor == "gfx90a") return {{loader_kernels_gfx90a_v4(), loader_kernels_gfx90a_v5()}, loader_gfx1100_v5()};
  if (processor == "gfx908") return {{loader_kernels_gfx908_v4(), loader_kernels_gfx908_v5()}, loader_gfx1100_v5()};
  if (processor == "gfx1100") return {{loader_gfx1100_v5()}, loader_kernels_gfx90a_v5()};
  return {};
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    gpu_ = CollectAgents().gpus.at(0);
    cpu_ = CollectAgents().cpus.at(0);
    objects_ = ObjectsFor(Processor(gpu_));
    ASSERT_FALSE(objects_.native.empty()) << Processor(gpu_);
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_code_object_reader_t Reader(std::string_view bytes) {
    hsa_code_object_reader_t reader{};
    EXPECT_EQ(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader), HSA_STATUS_SUCCESS);
    return reader;
  }
  hsa_executable_t Create() {
    hsa_executable_t exe{};
    EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe),
              HSA_STATUS_SUCCESS);
    return exe;
  }
  // Loads `bytes` into a new frozen executable for the GPU.
  hsa_executable_t Load(std::string_view bytes) {
    hsa_executable_t exe = Create();
    hsa_code_object_reader_t reader = Reader(bytes);
    EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, reader, nullptr, nullptr), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(exe, nullptr), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_code_object_reader_destroy(reader), HSA_STATUS_SUCCESS);
    return exe;
  }
  template <typename T>
  T Info(hsa_executable_symbol_t s, hsa_executable_symbol_info_t attribute) {
    T value{};
    EXPECT_EQ(hsa_executable_symbol_get_info(s, attribute, &value), HSA_STATUS_SUCCESS) << attribute;
    return value;
  }
  // Reads GPU memory back through hsa_memory_copy (the CPU may not see VRAM).
  std::vector<uint8_t> ReadBack(uint64_t address, size_t size) {
    std::vector<uint8_t> out(size);
    EXPECT_EQ(hsa_memory_copy(out.data(), reinterpret_cast<void*>(address), size), HSA_STATUS_SUCCESS);
    return out;
  }
  hsa_executable_symbol_t Symbol(hsa_executable_t exe, const char* name) {
    hsa_executable_symbol_t s{};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(exe, name, &gpu_, &s), HSA_STATUS_SUCCESS) << name;
    return s;
  }
  bool Gfx9() const { return objects_.native.size() == 2; }

  hsa_agent_t gpu_{}, cpu_{};
  Objects objects_;
};

TEST_F(LoaderTest, LoadsKernelsAndVariablesOfEveryCodeObjectVersion) {
  for (std::string_view bytes : objects_.native) {
    hsa_executable_t exe = Load(bytes);
    const char* kernel = Gfx9() ? "loader_add_one.kd" : "loader_rdna_kernel.kd";
    hsa_executable_symbol_t k = Symbol(exe, kernel);
    EXPECT_EQ(Info<hsa_symbol_kind_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_TYPE), HSA_SYMBOL_KIND_KERNEL);
    EXPECT_EQ(Info<uint32_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH), std::strlen(kernel));
    char name[64] = {};
    ASSERT_EQ(hsa_executable_symbol_get_info(k, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name), HSA_STATUS_SUCCESS);
    EXPECT_STREQ(name, kernel);
    EXPECT_EQ(Info<hsa_agent_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle, gpu_.handle);
    EXPECT_EQ(Info<hsa_symbol_linkage_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE), HSA_SYMBOL_LINKAGE_PROGRAM);
    EXPECT_TRUE(Info<bool>(k, HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION));
    EXPECT_EQ(Info<uint32_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT), 16u);
    EXPECT_EQ(Info<uint32_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE), Gfx9() ? 12u : 8u);
    EXPECT_FALSE(Info<bool>(k, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK));

    // KERNEL_OBJECT is the GPU VA of the loaded descriptor; its entry is 256-byte aligned.
    const uint64_t object = Info<uint64_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    ASSERT_NE(object, 0u);
    EXPECT_EQ(object % 64, 0u);
    const std::vector<uint8_t> kd_bytes = ReadBack(object, 64);
    const auto kd = hipmem::gpu_abi::amdhsa::KernelDescriptor::FromBytes(kd_bytes.data());
    EXPECT_EQ(kd.kernarg_size, Info<uint32_t>(k, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE));
    EXPECT_EQ((object + kd.kernel_code_entry_byte_offset) % 256, 0u);
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    ASSERT_EQ(hsa_amd_pointer_info(reinterpret_cast<void*>(object), &info, nullptr, nullptr, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(info.type, HSA_EXT_POINTER_TYPE_HSA);
    EXPECT_EQ(info.agentOwner.handle, gpu_.handle);

    if (Gfx9()) {
      hsa_executable_symbol_t lds = Symbol(exe, "loader_uses_lds.kd");
      EXPECT_EQ(Info<uint32_t>(lds, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE), 1024u);
      // Data: the initial values, a zeroed bss, and the relocated pointer (R_AMDGPU_RELATIVE64).
      hsa_executable_symbol_t counter = Symbol(exe, "loader_counter");
      EXPECT_EQ(Info<hsa_symbol_kind_t>(counter, HSA_EXECUTABLE_SYMBOL_INFO_TYPE), HSA_SYMBOL_KIND_VARIABLE);
      EXPECT_EQ(Info<uint32_t>(counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE), 4u);
      EXPECT_FALSE(Info<bool>(counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST));
      EXPECT_EQ(Info<hsa_variable_allocation_t>(counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION),
                HSA_VARIABLE_ALLOCATION_AGENT);
      const uint64_t counter_va = Info<uint64_t>(counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
      int value = 0;
      std::memcpy(&value, ReadBack(counter_va, 4).data(), 4);
      EXPECT_EQ(value, 42);
      uint64_t pointer = 0;
      std::memcpy(&pointer, ReadBack(Info<uint64_t>(Symbol(exe, "loader_counter_ptr"),
                                                    HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS), 8).data(), 8);
      EXPECT_EQ(pointer, counter_va);
      const std::vector<uint8_t> zeroes =
          ReadBack(Info<uint64_t>(Symbol(exe, "loader_zeroes"), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS), 4096);
      EXPECT_EQ(zeroes, std::vector<uint8_t>(4096, 0));
    }
    // A kernel attribute asked of a variable, or an unknown one, is INVALID_ARGUMENT as in ROCr.
    uint32_t u32 = 0;
    EXPECT_EQ(hsa_executable_symbol_get_info(k, static_cast<hsa_executable_symbol_info_t>(999), &u32),
              HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
    // Destroyed: the handle and its symbols are gone.
    EXPECT_EQ(hsa_executable_symbol_get_info(k, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &u32),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  }
}

TEST_F(LoaderTest, AppliesAbs64RelocationsAgainstTheLoadBase) {
  if (Processor(gpu_) != "gfx90a") GTEST_SKIP() << "the relocation object is built for gfx90a";
  hsa_executable_t exe = Load(hipmem_testing::loader_relocs_gfx90a_v5());
  const uint64_t target = Info<uint64_t>(Symbol(exe, "reloc_target"), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
  const uint64_t kd = Info<uint64_t>(Symbol(exe, "reloc_kernel.kd"), HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  uint64_t slots[2] = {};
  std::memcpy(slots, ReadBack(Info<uint64_t>(Symbol(exe, "reloc_slots"), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS),
                              16).data(), 16);
  EXPECT_EQ(slots[0], target + 4);
  EXPECT_EQ(slots[1], kd);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
}

TEST_F(LoaderTest, RefusesCodeObjectForAnotherProcessorWithIncompatibleArguments) {
  hsa_executable_t exe = Create();
  hsa_code_object_reader_t reader = Reader(objects_.foreign);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, reader, nullptr, nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  hsa_executable_symbol_t s{};
  EXPECT_EQ(hsa_executable_get_symbol_by_name(exe, "loader_add_one.kd", &gpu_, &s),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_code_object_reader_destroy(reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
}

TEST_F(LoaderTest, FeatureSettingsMustMatchTheAgentsMode) {
  if (!Gfx9()) GTEST_SKIP();
  // The agent runs xnack- unless HSA_XNACK=1 (hsa/topology.cc), so an xnack+ object is refused on gfx90a, and an
  // sramecc- object on gfx942, whose sramecc is on.
  const std::string p = Processor(gpu_);
  std::string_view bytes = p == "gfx90a"   ? hipmem_testing::loader_kernels_gfx90a_xnack_on_v5()
                           : p == "gfx942" ? hipmem_testing::loader_kernels_gfx942_sramecc_off_v5()
                                           : std::string_view();
  if (bytes.empty()) GTEST_SKIP();
  hsa_executable_t exe = Create();
  hsa_code_object_reader_t reader = Reader(bytes);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, reader, nullptr, nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(hsa_code_object_reader_destroy(reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
}

TEST_F(LoaderTest, BadInputGetsRocrCodes) {
  hsa_code_object_reader_t reader{};
  const char garbage[] = "definitely not an ELF file";
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(nullptr, 10, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(garbage, 0, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(garbage, sizeof(garbage), nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(-1, &reader), HSA_STATUS_ERROR_INVALID_FILE);
  EXPECT_EQ(hsa_code_object_reader_destroy(hsa_code_object_reader_t{12345}),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  hsa_executable_t exe{};
  EXPECT_EQ(hsa_executable_create_alt(static_cast<hsa_profile_t>(7), HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      nullptr, &exe),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  exe = Create();

  // Garbage and a truncated ELF are INVALID_CODE_OBJECT at load, and leave nothing behind.
  std::string_view good = objects_.native[0];
  for (std::string_view bytes : {std::string_view(garbage, sizeof(garbage)), good.substr(0, good.size() / 2)}) {
    hsa_code_object_reader_t r = Reader(bytes);
    EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, r, nullptr, nullptr),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    EXPECT_EQ(hsa_code_object_reader_destroy(r), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, r, nullptr, nullptr),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  }
  hsa_code_object_reader_t r = Reader(good);
  EXPECT_EQ(hsa_executable_load_agent_code_object(hsa_executable_t{99}, gpu_, r, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, hsa_agent_t{77}, r, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, cpu_, r, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_executable_load_program_code_object(exe, r, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

  // Loading twice defines every symbol twice: VARIABLE_ALREADY_DEFINED, as ROCr.
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, r, nullptr, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, r, nullptr, nullptr),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  int host_var = 0;
  EXPECT_EQ(hsa_executable_agent_global_variable_define(exe, gpu_, "external_var", &host_var), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_agent_global_variable_define(exe, gpu_, "external_var", &host_var),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(hsa_executable_global_variable_define(exe, "program_var", &host_var), HSA_STATUS_SUCCESS);

  // Frozen: no more loads or definitions.
  EXPECT_EQ(hsa_executable_freeze(exe, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_freeze(exe, nullptr), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  hsa_executable_state_t state{};
  EXPECT_EQ(hsa_executable_get_info(exe, HSA_EXECUTABLE_INFO_STATE, &state), HSA_STATUS_SUCCESS);
  EXPECT_EQ(state, HSA_EXECUTABLE_STATE_FROZEN);
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, r, nullptr, nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_global_variable_define(exe, "late", &host_var), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  uint32_t valid = 1;
  EXPECT_EQ(hsa_executable_validate(exe, &valid), HSA_STATUS_SUCCESS);
  EXPECT_EQ(valid, 0u);

  // Iteration: program symbols are the program_var; agent symbols the loaded ones plus external_var.
  struct Count {
    int n = 0;
  } program, agent;
  EXPECT_EQ(hsa_executable_iterate_program_symbols(
                exe, [](hsa_executable_t, hsa_executable_symbol_t, void* d) {
                  ++static_cast<Count*>(d)->n;
                  return HSA_STATUS_SUCCESS;
                },
                &program),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(program.n, 1);
  EXPECT_EQ(hsa_executable_iterate_agent_symbols(
                exe, gpu_, [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void* d) {
                  ++static_cast<Count*>(d)->n;
                  return HSA_STATUS_SUCCESS;
                },
                &agent),
            HSA_STATUS_SUCCESS);
  EXPECT_GE(agent.n, 2);
  EXPECT_EQ(hsa_code_object_reader_destroy(r), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
}

TEST_F(LoaderTest, ReaderFromFileLoadsLikeFromMemory) {
  char path[] = "/tmp/hipmem_loader_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, objects_.native[0].data(), objects_.native[0].size()),
            static_cast<ssize_t>(objects_.native[0].size()));
  hsa_code_object_reader_t reader{};
  ASSERT_EQ(hsa_code_object_reader_create_from_file(fd, &reader), HSA_STATUS_SUCCESS);
  close(fd);
  hsa_executable_t exe = Create();
  EXPECT_EQ(hsa_executable_load_agent_code_object(exe, gpu_, reader, nullptr, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_SUCCESS);
}

TEST(LoaderNotInitializedTest, EntryPointsAnswerNotInitialized) {
  hsa_code_object_reader_t reader{};
  char byte = 0;
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(&byte, 1, &reader), HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_executable_t exe{};
  EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_executable_destroy(exe), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

}  // namespace
