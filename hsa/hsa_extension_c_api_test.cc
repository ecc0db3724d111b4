// The extension queries tell the truth: hipmem implements no hsa_extension_t extension, so every support query
// answers SUCCESS with false, every table request fails with ROCr's status for a table it cannot fill, the
// EXTENSIONS bitmasks are empty, and bad arguments are rejected with ROCr's codes in ROCr's order.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

// Every hsa_extension_t value, with ROCr's name for it (nullptr: hsa_extension_get_name rejects it) and the
// newest minor version of the function table ROCr defines for major version 1 (-1: none).
struct ExtensionCase {
  uint16_t id;
  const char* name;
  int last_table_minor;
};

constexpr ExtensionCase kExtensions[] = {
    {HSA_EXTENSION_FINALIZER, "HSA_EXTENSION_FINALIZER", 0},
    {HSA_EXTENSION_IMAGES, "HSA_EXTENSION_IMAGES", 0},
    {HSA_EXTENSION_PERFORMANCE_COUNTERS, "HSA_EXTENSION_PERFORMANCE_COUNTERS", -1},
    {HSA_EXTENSION_PROFILING_EVENTS, "HSA_EXTENSION_PROFILING_EVENTS", -1},
    {HSA_EXTENSION_AMD_PROFILER, "HSA_EXTENSION_AMD_PROFILER", -1},
    {HSA_EXTENSION_AMD_LOADER, "HSA_EXTENSION_AMD_LOADER", 3},
    {HSA_EXTENSION_AMD_AQLPROFILE, "HSA_EXTENSION_AMD_AQLPROFILE", 0},
    {HSA_EXTENSION_AMD_PC_SAMPLING, nullptr, 0},
};

// Values outside both hsa_extension_t ranges.
constexpr uint16_t kOutOfRange[] = {HSA_EXTENSION_STD_LAST + 1, HSA_AMD_FIRST_EXTENSION - 1,
                                    HSA_AMD_LAST_EXTENSION + 1, 0xffff};

bool Bit(const uint8_t (&mask)[128], uint16_t bit) { return (mask[bit / 8] >> (bit % 8)) & 1; }

hsa_status_t CollectAgent(hsa_agent_t agent, void* data) {
  static_cast<std::vector<hsa_agent_t>*>(data)->push_back(agent);
  return HSA_STATUS_SUCCESS;
}

TEST(HsaExtensionBeforeInitTest, EveryQueryIsNotInitialized) {
  const char* name = nullptr;
  bool result = true;
  uint16_t minor = 7;
  uint8_t table[64] = {};
  EXPECT_EQ(hsa_extension_get_name(HSA_EXTENSION_IMAGES, &name), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, &result), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, &minor, &result),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, table), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof(table), table),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, hsa_agent_t{1}, 1, 0, &result),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, hsa_agent_t{1}, 1, &minor, &result),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(name, nullptr);
  EXPECT_TRUE(result);
  EXPECT_EQ(minor, 7);
}

class HsaExtensionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(CollectAgent, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_GE(agents_.size(), 2u);  // a CPU and at least one GPU
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  std::vector<hsa_agent_t> agents_;
};

TEST_F(HsaExtensionTest, NamesAreRocrs) {
  for (const ExtensionCase& e : kExtensions) {
    SCOPED_TRACE(e.id);
    const char* name = nullptr;
    if (e.name != nullptr) {
      ASSERT_EQ(hsa_extension_get_name(e.id, &name), HSA_STATUS_SUCCESS);
      EXPECT_STREQ(name, e.name);
    } else {
      EXPECT_EQ(hsa_extension_get_name(e.id, &name), HSA_STATUS_ERROR_INVALID_ARGUMENT);
      EXPECT_STREQ(name, "HSA_EXTENSION_INVALID");
    }
  }
  const char* name = nullptr;
  EXPECT_EQ(hsa_extension_get_name(0x1234, &name), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(name, "HSA_EXTENSION_INVALID");
  EXPECT_EQ(hsa_extension_get_name(HSA_EXTENSION_IMAGES, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(HsaExtensionTest, NoExtensionIsSupportedOnTheSystem) {
  for (const ExtensionCase& e : kExtensions) {
    SCOPED_TRACE(e.id);
    bool result = true;
    ASSERT_EQ(hsa_system_extension_supported(e.id, 1, 0, &result), HSA_STATUS_SUCCESS);
    EXPECT_FALSE(result);
    result = true;
    uint16_t minor = 7;
    ASSERT_EQ(hsa_system_major_extension_supported(e.id, 1, &minor, &result), HSA_STATUS_SUCCESS);
    EXPECT_FALSE(result);
    EXPECT_EQ(minor, 7) << "the minor version is written only for a supported extension";
  }
}

TEST_F(HsaExtensionTest, NoExtensionIsSupportedOnAnyAgent) {
  for (hsa_agent_t agent : agents_) {
    for (const ExtensionCase& e : kExtensions) {
      SCOPED_TRACE(testing::Message() << "agent " << agent.handle << " extension " << e.id);
      bool result = true;
      ASSERT_EQ(hsa_agent_extension_supported(e.id, agent, 1, 0, &result), HSA_STATUS_SUCCESS);
      EXPECT_FALSE(result);
      result = true;
      uint16_t minor = 7;
      ASSERT_EQ(hsa_agent_major_extension_supported(e.id, agent, 1, &minor, &result), HSA_STATUS_SUCCESS);
      EXPECT_FALSE(result);
      EXPECT_EQ(minor, 7);
    }
  }
}

TEST_F(HsaExtensionTest, BitmasksAgreeWithTheSupportQueries) {
  uint8_t system_mask[128];
  std::memset(system_mask, 0xa5, sizeof(system_mask));
  ASSERT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, system_mask), HSA_STATUS_SUCCESS);
  for (uint8_t byte : system_mask) EXPECT_EQ(byte, 0) << "the whole mask is written, and no bit is set";
  for (hsa_agent_t agent : agents_) {
    uint8_t agent_mask[128];
    std::memset(agent_mask, 0xa5, sizeof(agent_mask));
    ASSERT_EQ(hsa_agent_get_info(agent, HSA_AGENT_INFO_EXTENSIONS, agent_mask), HSA_STATUS_SUCCESS);
    for (const ExtensionCase& e : kExtensions) {
      bool supported = true;
      ASSERT_EQ(hsa_agent_major_extension_supported(e.id, agent, 1, nullptr, &supported), HSA_STATUS_SUCCESS);
      EXPECT_EQ(Bit(agent_mask, e.id), supported) << "agent " << agent.handle << " extension " << e.id;
    }
    for (uint8_t byte : agent_mask) EXPECT_EQ(byte, 0);
  }
  for (const ExtensionCase& e : kExtensions) {
    bool supported = true;
    uint16_t minor = 0;
    ASSERT_EQ(hsa_system_major_extension_supported(e.id, 1, &minor, &supported), HSA_STATUS_SUCCESS);
    EXPECT_EQ(Bit(system_mask, e.id), supported) << "extension " << e.id;
  }
}

TEST_F(HsaExtensionTest, TablesFailAsRocrDoesForATableItCannotFill) {
  for (const ExtensionCase& e : kExtensions) {
    for (uint16_t minor = 0; minor <= 4; ++minor) {
      SCOPED_TRACE(testing::Message() << "extension " << e.id << " v1." << minor);
      uint8_t table[256];
      std::memset(table, 0x5a, sizeof(table));
      // A version ROCr defines sizes to a real table, then fails as unavailable; any other has length 0.
      const hsa_status_t expected = static_cast<int>(minor) <= e.last_table_minor ? HSA_STATUS_ERROR
                                                                                   : HSA_STATUS_ERROR_INVALID_ARGUMENT;
      EXPECT_EQ(hsa_system_get_extension_table(e.id, 1, minor, table), expected);
      for (uint8_t byte : table) ASSERT_EQ(byte, 0x5a) << "nothing is written";
    }
    uint8_t table[256];
    std::memset(table, 0x5a, sizeof(table));
    EXPECT_EQ(hsa_system_get_major_extension_table(e.id, 1, sizeof(table), table), HSA_STATUS_ERROR);
    for (uint8_t byte : table) ASSERT_EQ(byte, 0x5a);
  }
  uint8_t table[8] = {};
  EXPECT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof(table), nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 0, table), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 3, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(HsaExtensionTest, OutOfRangeExtensionsAreInvalidArguments) {
  const hsa_agent_t gpu = agents_.back();
  for (uint16_t id : kOutOfRange) {
    SCOPED_TRACE(id);
    bool result = true;
    uint16_t minor = 7;
    EXPECT_EQ(hsa_system_extension_supported(id, 1, 0, &result), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(hsa_agent_extension_supported(id, gpu, 1, 0, &result), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(hsa_agent_major_extension_supported(id, gpu, 1, &minor, &result), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(result) << "rejected before anything is written";
    // The major-version system query has no range check in ROCr: unknown is just unsupported.
    EXPECT_EQ(hsa_system_major_extension_supported(id, 1, &minor, &result), HSA_STATUS_SUCCESS);
    EXPECT_FALSE(result);
    EXPECT_EQ(minor, 7);
  }
}

TEST_F(HsaExtensionTest, NullOutputsAreInvalidArguments) {
  const hsa_agent_t gpu = agents_.back();
  bool result = true;
  uint16_t minor = 0;
  EXPECT_EQ(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, nullptr, &result),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, &minor, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, 0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, &minor, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(result);
}

TEST_F(HsaExtensionTest, UnknownAgentIsInvalidAgentWithResultFalse) {
  // ROCr clears the result before it validates the agent; a caller reading it anyway sees false.
  bool result = true;
  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, hsa_agent_t{0xdead'beef}, 1, 0, &result),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_FALSE(result);
  result = true;
  uint16_t minor = 7;
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, hsa_agent_t{0xdead'beef}, 1, &minor, &result),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_FALSE(result);
  EXPECT_EQ(minor, 7);
}

}  // namespace
