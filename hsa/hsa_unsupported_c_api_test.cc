// The hsa_* entry points hipmem does not implement (hsa_unsupported.cc) answer what ROCr answers for a feature
// the system lacks: HSA_STATUS_ERROR_NOT_INITIALIZED before hsa_init, HSA_STATUS_ERROR_NOT_SUPPORTED after,
// with nothing written to their outputs. Every group of hsa_unsupported.cc is represented.
#include <cstdint>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_ext_image.h"
#include "hsa/hsa_ven_amd_pc_sampling.h"

namespace {

constexpr hsa_status_t kNotSupported = static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);

// Outputs of the calls; each starts at a sentinel that must survive.
struct Outs {
  hsa_signal_t signal{0x5151};
  hsa_queue_t* queue = nullptr;
  hsa_isa_t isa{0x5151};
  hsa_region_t region{0x5151};
  hsa_executable_t executable{0x5151};
  hsa_code_object_reader_t reader{0x5151};
  hsa_ext_image_t image{0x5151};
  hsa_ven_amd_pcs_t pcs{0x5151};
  hsa_amd_ipc_memory_t ipc{};
  void* ptr = nullptr;
  uint32_t u32 = 0x5151;
  bool flag = false;
};

struct Call {
  const char* name;
  std::function<hsa_status_t(Outs&)> call;
};

hsa_status_t CountAgents(hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }

std::vector<Call> Calls() {
  const hsa_agent_t agent{1};
  return {
      // Not yet implemented: SVM (below). Not modelled: IPC signals.
      {"hsa_amd_ipc_signal_attach",
       [](Outs& o) {
         hsa_amd_ipc_signal_t ipc{};
         return hsa_amd_ipc_signal_attach(&ipc, &o.signal);
       }},
      // Not modelled: the virtual memory API, dma-buf export, packet logging, HSAIL code objects, images, IPC, interop,
      // PC sampling, SPM, direct storage.
      {"hsa_amd_vmem_address_reserve", [](Outs& o) { return hsa_amd_vmem_address_reserve(&o.ptr, 4096, 0, 0); }},
      {"hsa_amd_portable_export_dmabuf",
       [](Outs& o) {
         int fd = -1;
         uint64_t offset = 0;
         const hsa_status_t s = hsa_amd_portable_export_dmabuf(&o.u32, 4, &fd, &offset);
         if (fd != -1) o.ptr = &o;  // a written fd would show as a touched output
         return s;
       }},
      {"hsa_amd_enable_logging",
       [](Outs&) {
         uint8_t flags[8] = {1, 1, 1, 0, 0, 0, 0, 0};
         return hsa_amd_enable_logging(flags, nullptr);
       }},
      // The HSAIL-era code object API; AMDGPU code objects load through hsa_loader_c_api.cc.
      {"hsa_code_object_deserialize",
       [](Outs& o) {
         hsa_code_object_t code{0x5151};
         const hsa_status_t s = hsa_code_object_deserialize(&o.u32, sizeof(o.u32), nullptr, &code);
         if (code.handle != 0x5151) o.ptr = &o;  // a written handle would show as a touched output
         return s;
       }},
      {"hsa_ext_image_create",
       [agent](Outs& o) {
         hsa_ext_image_descriptor_t descriptor{};
         return hsa_ext_image_create(agent, &descriptor, &o.u32, HSA_ACCESS_PERMISSION_RO, &o.image);
       }},
      {"hsa_amd_ipc_memory_create", [](Outs& o) { return hsa_amd_ipc_memory_create(&o.u32, 4, &o.ipc); }},
      {"hsa_amd_interop_unmap_buffer", [](Outs& o) { return hsa_amd_interop_unmap_buffer(&o.u32); }},
      {"hsa_ven_amd_pcs_create",
       [agent](Outs& o) {
         return hsa_ven_amd_pcs_create(agent, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1,
                                       HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS, 100, 0, 4096, nullptr, nullptr,
                                       &o.pcs);
       }},
      {"hsa_amd_spm_acquire", [agent](Outs&) { return hsa_amd_spm_acquire(agent); }},
      {"hsa_amd_ais_file_read",
       [](Outs& o) {
         hsa_amd_ais_file_handle_t file{};
         file.fd = -1;
         uint64_t copied = 0;
         int32_t status = 0;
         return hsa_amd_ais_file_read(file, &o.u32, 4, 0, &copied, &status);
       }},
  };
}

void ExpectOutputsUntouched(const Outs& o) {
  EXPECT_EQ(o.signal.handle, 0x5151u);
  EXPECT_EQ(o.queue, nullptr);
  EXPECT_EQ(o.isa.handle, 0x5151u);
  EXPECT_EQ(o.executable.handle, 0x5151u);
  EXPECT_EQ(o.reader.handle, 0x5151u);
  EXPECT_EQ(o.image.handle, 0x5151u);
  EXPECT_EQ(o.pcs.handle, 0x5151u);
  EXPECT_EQ(o.ptr, nullptr);
  EXPECT_EQ(o.u32, 0x5151u);
  EXPECT_FALSE(o.flag);
}

TEST(HsaUnsupportedTest, BeforeInitEveryCallIsNotInitialized) {
  for (const Call& c : Calls()) {
    SCOPED_TRACE(c.name);
    Outs outs;
    EXPECT_EQ(c.call(outs), HSA_STATUS_ERROR_NOT_INITIALIZED);
    ExpectOutputsUntouched(outs);
  }
}

class HsaUnsupported : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS); }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }
};

TEST_F(HsaUnsupported, EveryCallIsNotSupportedAndWritesNothing) {
  // The agents are real: the answer is about the feature, not a bad handle.
  ASSERT_EQ(hsa_iterate_agents(CountAgents, nullptr), HSA_STATUS_SUCCESS);
  for (const Call& c : Calls()) {
    SCOPED_TRACE(c.name);
    Outs outs;
    EXPECT_EQ(c.call(outs), kNotSupported);
    ExpectOutputsUntouched(outs);
  }
}

TEST_F(HsaUnsupported, NotSupportedHasAName) {
  const char* text = nullptr;
  ASSERT_EQ(hsa_status_string(kNotSupported, &text), HSA_STATUS_SUCCESS);
  EXPECT_STREQ(text, "HSA_STATUS_ERROR_NOT_SUPPORTED");
}

}  // namespace
