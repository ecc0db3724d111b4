#include "tools/agent_report.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace hipmem::tools {
namespace {

// rocminfo pads labels to 25 columns after two spaces per indent level; longer labels run into the value.
void Line(std::string& out, int indent, absl::string_view label, absl::string_view value) {
  absl::StrAppendFormat(&out, "%*s%-25s%s\n", indent * 2, "", label, value);
}

// rocminfo's int_to_string: decimal, then hex in parentheses.
template <typename T>
std::string DecHex(T v) {
  return absl::StrCat(v, "(0x", absl::Hex(v), ")");
}

const char* Bool(bool b) { return b ? "TRUE" : "FALSE"; }

absl::Status Failed(absl::string_view what, uint32_t attribute, hsa_status_t status) {
  const char* text = nullptr;
  hsa_status_string(status, &text);
  return absl::InternalError(
      absl::StrCat(what, "(0x", absl::Hex(attribute), ") failed: ", text != nullptr ? text : "unknown status"));
}

class Reporter {
 public:
  absl::Status Agent(hsa_agent_t agent, int number);

  std::string& out() { return out_; }

 private:
  template <typename T>
  absl::Status Get(hsa_agent_t agent, uint32_t attribute, T* value) {
    const hsa_status_t s = hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), value);
    return s == HSA_STATUS_SUCCESS ? absl::OkStatus() : Failed("hsa_agent_get_info", attribute, s);
  }
  template <typename T>
  absl::Status GetPool(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, T* value) {
    const hsa_status_t s = hsa_amd_memory_pool_get_info(pool, attribute, value);
    return s == HSA_STATUS_SUCCESS ? absl::OkStatus() : Failed("hsa_amd_memory_pool_get_info", attribute, s);
  }
  template <typename T>
  absl::Status GetIsa(hsa_isa_t isa, hsa_isa_info_t attribute, T* value) {
    const hsa_status_t s = hsa_isa_get_info_alt(isa, attribute, value);
    return s == HSA_STATUS_SUCCESS ? absl::OkStatus() : Failed("hsa_isa_get_info_alt", attribute, s);
  }

  absl::Status Pool(hsa_amd_memory_pool_t pool, int number);
  absl::Status Isa(hsa_isa_t isa, int number);

  std::string out_;
};

// Collects the handles an hsa_*_iterate_* call (`what`) yields into `handles`.
template <typename Handle, typename Iterate>
absl::Status ForEach(absl::string_view what, Iterate iterate, std::vector<Handle>& handles) {
  auto collect = [](Handle h, void* data) {
    static_cast<std::vector<Handle>*>(data)->push_back(h);
    return HSA_STATUS_SUCCESS;
  };
  const hsa_status_t s = iterate(+collect, &handles);
  if (s == HSA_STATUS_SUCCESS) return absl::OkStatus();
  const char* text = nullptr;
  hsa_status_string(s, &text);
  return absl::InternalError(absl::StrCat(what, " failed: ", text != nullptr ? text : "unknown status"));
}

std::string GlobalFlags(uint32_t flags) {
  std::vector<std::string> names;
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) names.push_back("KERNARG");
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) names.push_back("FINE GRAINED");
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) names.push_back("COARSE GRAINED");
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED) names.push_back("EXTENDED FINE GRAINED");
  std::string out;
  for (const std::string& n : names) absl::StrAppend(&out, out.empty() ? "" : ", ", n);
  return out;
}

std::string RoundingModes(const bool (&modes)[3]) {
  std::string out;
  if (modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT]) out += "DEFAULT ";
  if (modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO]) out += "ZERO ";
  if (modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]) out += "NEAR";
  return out;
}

absl::Status Reporter::Agent(hsa_agent_t agent, int number) {
  char name[64] = {}, uuid[64] = {}, product[64] = {}, vendor[64] = {};
  hsa_agent_feature_t feature{};
  hsa_profile_t profile{};
  hsa_default_float_rounding_mode_t rounding{};
  uint32_t queues_max = 0, queue_min = 0, queue_max = 0, node = 0;
  hsa_queue_type32_t queue_type = 0;
  hsa_device_type_t type{};
  uint32_t cache[4] = {};
  uint32_t chip = 0, asic_revision = 0, cacheline = 0, clock = 0, driver_node = 0, watch_points = 0, bdfid = 0;
  uint32_t simds = 0, engines = 0, arrays = 0, cus = 0;
  bool coherent_host = false;
  uint8_t memory_properties[8] = {};
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_NAME, name));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_UUID, uuid));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_VENDOR_NAME, vendor));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME, product));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_FEATURE, &feature));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_PROFILE, &profile));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE, &rounding));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_QUEUES_MAX, &queues_max));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &queue_min));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &queue_max));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_QUEUE_TYPE, &queue_type));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_NODE, &node));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_DEVICE, &type));
  RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_CACHE_SIZE, cache));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_CHIP_ID, &chip));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_ASIC_REVISION, &asic_revision));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_CACHELINE_SIZE, &cacheline));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &clock));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &driver_node));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS, &watch_points));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_BDFID, &bdfid));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &simds));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, &engines));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE, &arrays));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS, &coherent_host));
  RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES, memory_properties));
  const bool kernel_agent = (feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0;
  const bool gpu = type == HSA_DEVICE_TYPE_GPU;

  absl::StrAppend(&out_, "*******\nAgent ", number, "\n*******\n");
  Line(out_, 1, "Name:", name);
  Line(out_, 1, "Uuid:", uuid);
  Line(out_, 1, "Marketing Name:", product);
  Line(out_, 1, "Vendor Name:", vendor);
  const bool agent_dispatch = (feature & HSA_AGENT_FEATURE_AGENT_DISPATCH) != 0;
  Line(out_, 1, "Feature:",
       kernel_agent && agent_dispatch ? "KERNEL_DISPATCH & AGENT_DISPATCH"
       : kernel_agent                 ? "KERNEL_DISPATCH"
       : agent_dispatch               ? "AGENT_DISPATCH"
                                      : "None specified");
  Line(out_, 1, "Profile:",
       profile == HSA_PROFILE_BASE ? "BASE_PROFILE" : profile == HSA_PROFILE_FULL ? "FULL_PROFILE" : "Unknown");
  Line(out_, 1, "Float Round Mode:",
       rounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO   ? "ZERO"
       : rounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR ? "NEAR"
                                                          : "Not Supported");
  Line(out_, 1, "Max Queue Number:", DecHex(queues_max));
  Line(out_, 1, "Queue Min Size:", DecHex(queue_min));
  Line(out_, 1, "Queue Max Size:", DecHex(queue_max));
  Line(out_, 1, "Queue Type:",
       queue_type == HSA_QUEUE_TYPE_MULTI ? "MULTI" : queue_type == HSA_QUEUE_TYPE_SINGLE ? "SINGLE" : "Unknown");
  Line(out_, 1, "Node:", absl::StrCat(node));
  Line(out_, 1, "Device Type:", gpu ? "GPU" : type == HSA_DEVICE_TYPE_CPU ? "CPU" : "DSP");
  Line(out_, 1, "Cache Info:", "");
  for (int level = 0; level < 4; ++level) {
    if (cache[level] != 0) Line(out_, 2, absl::StrCat("L", level + 1, ":"), DecHex(cache[level] / 1024) + " KB");
  }
  Line(out_, 1, "Chip ID:", DecHex(chip));
  Line(out_, 1, "ASIC Revision:", DecHex(asic_revision));
  Line(out_, 1, "Cacheline Size:", DecHex(cacheline));
  Line(out_, 1, "Max Clock Freq. (MHz):", absl::StrCat(clock));
  Line(out_, 1, "BDFID:", absl::StrCat(bdfid));
  Line(out_, 1, "Internal Node ID:", absl::StrCat(driver_node));
  Line(out_, 1, "Compute Unit:", absl::StrCat(cus));
  Line(out_, 1, "SIMDs per CU:", absl::StrCat(simds));
  Line(out_, 1, "Shader Engines:", absl::StrCat(engines));
  Line(out_, 1, "Shader Arrs. per Eng.:", absl::StrCat(arrays));
  Line(out_, 1, "WatchPts on Addr. Ranges:", absl::StrCat(watch_points));
  if (gpu) Line(out_, 1, "Coherent Host Access:", Bool(coherent_host));
  Line(out_, 1, "Memory Properties:",
       (memory_properties[0] & HSA_AMD_MEMORY_PROPERTY_AGENT_IS_APU) != 0 ? "APU" : "");
  std::string features;
  if (kernel_agent) features += "KERNEL_DISPATCH ";
  if (agent_dispatch) features += "AGENT_DISPATCH";
  Line(out_, 1, "Features:", feature == 0 ? "None" : features);

  if (kernel_agent) {
    bool fast_f16 = false;
    uint32_t wavefront = 0, workgroup_max = 0, grid_max = 0, fbarrier_max = 0, waves_per_cu = 0, ucode = 0;
    uint32_t sdma_ucode = 0;
    uint16_t workgroup_dim[3] = {};
    hsa_dim3_t grid_dim{};
    hsa_amd_iommu_version_t iommu{};
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_FAST_F16_OPERATION, &fast_f16));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wavefront));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &workgroup_max));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, workgroup_dim));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_GRID_MAX_DIM, &grid_dim));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_GRID_MAX_SIZE, &grid_max));
    RETURN_IF_ERROR(Get(agent, HSA_AGENT_INFO_FBARRIER_MAX_SIZE, &fbarrier_max));
    RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, &waves_per_cu));
    RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_UCODE_VERSION, &ucode));
    RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION, &sdma_ucode));
    RETURN_IF_ERROR(Get(agent, HSA_AMD_AGENT_INFO_IOMMU_SUPPORT, &iommu));
    Line(out_, 1, "Fast F16 Operation:", Bool(fast_f16));
    Line(out_, 1, "Wavefront Size:", DecHex(wavefront));
    Line(out_, 1, "Workgroup Max Size:", DecHex(workgroup_max));
    Line(out_, 1, "Workgroup Max Size per Dimension:", "");
    Line(out_, 2, "x", DecHex(uint32_t{workgroup_dim[0]}));
    Line(out_, 2, "y", DecHex(uint32_t{workgroup_dim[1]}));
    Line(out_, 2, "z", DecHex(uint32_t{workgroup_dim[2]}));
    Line(out_, 1, "Max Waves Per CU:", DecHex(waves_per_cu));
    Line(out_, 1, "Max Work-item Per CU:", DecHex(wavefront * waves_per_cu));
    Line(out_, 1, "Grid Max Size:", DecHex(grid_max));
    Line(out_, 1, "Grid Max Size per Dimension:", "");
    Line(out_, 2, "x", DecHex(grid_dim.x));
    Line(out_, 2, "y", DecHex(grid_dim.y));
    Line(out_, 2, "z", DecHex(grid_dim.z));
    Line(out_, 1, "Max fbarriers/Workgrp:", absl::StrCat(fbarrier_max));
    Line(out_, 1, "Packet Processor uCode::", absl::StrCat(ucode));
    Line(out_, 1, "SDMA engine uCode::", absl::StrCat(sdma_ucode));
    Line(out_, 1, "IOMMU Support::", iommu == HSA_IOMMU_SUPPORT_V2 ? "V2" : "None");
  }

  Line(out_, 1, "Pool Info:", "");
  std::vector<hsa_amd_memory_pool_t> pools;
  auto iterate_pools = [agent](hsa_status_t (*cb)(hsa_amd_memory_pool_t, void*), void* data) {
    return hsa_amd_agent_iterate_memory_pools(agent, cb, data);
  };
  RETURN_IF_ERROR(ForEach<hsa_amd_memory_pool_t>("hsa_amd_agent_iterate_memory_pools", iterate_pools, pools));
  for (size_t i = 0; i < pools.size(); ++i) {
    RETURN_IF_ERROR(Pool(pools[i], static_cast<int>(i) + 1));
  }

  Line(out_, 1, "ISA Info:", "");
  std::vector<hsa_isa_t> isas;
  auto iterate_isas = [agent](hsa_status_t (*cb)(hsa_isa_t, void*), void* data) {
    return hsa_agent_iterate_isas(agent, cb, data);
  };
  RETURN_IF_ERROR(ForEach<hsa_isa_t>("hsa_agent_iterate_isas", iterate_isas, isas));
  for (size_t i = 0; i < isas.size(); ++i) {
    RETURN_IF_ERROR(Isa(isas[i], static_cast<int>(i) + 1));
  }
  return absl::OkStatus();
}

absl::Status Reporter::Pool(hsa_amd_memory_pool_t pool, int number) {
  uint32_t flags = 0;
  hsa_amd_segment_t segment{};
  size_t size = 0, granule = 0, rec_granule = 0, alignment = 0;
  bool allocatable = false, accessible_by_all = false;
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allocatable));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE, &rec_granule));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, &alignment));
  RETURN_IF_ERROR(GetPool(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &accessible_by_all));
  Line(out_, 2, absl::StrCat("Pool ", number), "");
  std::string segment_text;
  switch (segment) {
    case HSA_AMD_SEGMENT_GLOBAL: segment_text = "GLOBAL; FLAGS: " + GlobalFlags(flags); break;
    case HSA_AMD_SEGMENT_READONLY: segment_text = "READONLY"; break;
    case HSA_AMD_SEGMENT_PRIVATE: segment_text = "PRIVATE"; break;
    case HSA_AMD_SEGMENT_GROUP: segment_text = "GROUP"; break;
    default: segment_text = "Not Supported"; break;
  }
  Line(out_, 3, "Segment:", segment_text);
  Line(out_, 3, "Size:", DecHex(size / 1024) + " KB");
  Line(out_, 3, "Allocatable:", Bool(allocatable));
  Line(out_, 3, "Alloc Granule:", absl::StrCat(granule / 1024, "KB"));
  Line(out_, 3, "Alloc Recommended Granule:", absl::StrCat(rec_granule / 1024, "KB"));
  Line(out_, 3, "Alloc Alignment:", absl::StrCat(alignment / 1024, "KB"));
  Line(out_, 3, "Accessible by all:", Bool(accessible_by_all));
  return absl::OkStatus();
}

absl::Status Reporter::Isa(hsa_isa_t isa, int number) {
  uint32_t name_length = 0;
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_NAME_LENGTH, &name_length));
  std::string name(name_length, '\0');  // NAME_LENGTH counts the NUL
  bool models[2] = {}, profiles[2] = {}, default_modes[3] = {}, base_modes[3] = {}, fast_f16 = false;
  uint16_t workgroup_dim[3] = {};
  uint32_t workgroup_max = 0, fbarrier_max = 0;
  hsa_dim3_t grid_dim{};
  uint64_t grid_max = 0;
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_NAME, name.data()));
  name.resize(name.find('\0') == std::string::npos ? name.size() : name.find('\0'));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_MACHINE_MODELS, models));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_PROFILES, profiles));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES, default_modes));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, base_modes));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_FAST_F16_OPERATION, &fast_f16));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_WORKGROUP_MAX_DIM, workgroup_dim));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, &workgroup_max));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_GRID_MAX_DIM, &grid_dim));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_GRID_MAX_SIZE, &grid_max));
  RETURN_IF_ERROR(GetIsa(isa, HSA_ISA_INFO_FBARRIER_MAX_SIZE, &fbarrier_max));
  Line(out_, 2, absl::StrCat("ISA ", number), "");
  Line(out_, 3, "Name:", name);
  std::string model_text = models[HSA_MACHINE_MODEL_SMALL] ? "HSA_MACHINE_MODEL_SMALL " : "";
  if (models[HSA_MACHINE_MODEL_LARGE]) model_text += "HSA_MACHINE_MODEL_LARGE";
  Line(out_, 3, "Machine Models:", model_text);
  std::string profile_text = profiles[HSA_PROFILE_BASE] ? "HSA_PROFILE_BASE " : "";
  if (profiles[HSA_PROFILE_FULL]) profile_text += "HSA_PROFILE_FULL";
  Line(out_, 3, "Profiles:", profile_text);
  // rocminfo prints both the default and the base-profile modes under one label.
  Line(out_, 3, "Default Rounding Mode:", RoundingModes(default_modes));
  Line(out_, 3, "Default Rounding Mode:", RoundingModes(base_modes));
  Line(out_, 3, "Fast f16:", Bool(fast_f16));
  Line(out_, 3, "Workgroup Max Size:", DecHex(workgroup_max));
  Line(out_, 3, "Workgroup Max Size per Dimension:", "");
  Line(out_, 4, "x", DecHex(uint32_t{workgroup_dim[0]}));
  Line(out_, 4, "y", DecHex(uint32_t{workgroup_dim[1]}));
  Line(out_, 4, "z", DecHex(uint32_t{workgroup_dim[2]}));
  Line(out_, 3, "Grid Max Size:", DecHex(grid_max));
  Line(out_, 3, "Grid Max Size per Dimension:", "");
  Line(out_, 4, "x", DecHex(grid_dim.x));
  Line(out_, 4, "y", DecHex(grid_dim.y));
  Line(out_, 4, "z", DecHex(grid_dim.z));
  Line(out_, 3, "FBarrier Max Size:", absl::StrCat(fbarrier_max));
  return absl::OkStatus();
}

template <typename T>
absl::Status GetSystem(uint32_t attribute, T* value) {
  const hsa_status_t s = hsa_system_get_info(static_cast<hsa_system_info_t>(attribute), value);
  return s == HSA_STATUS_SUCCESS ? absl::OkStatus() : Failed("hsa_system_get_info", attribute, s);
}

}  // namespace

absl::StatusOr<std::string> SystemReport() {
  uint16_t major = 0, minor = 0, ext_major = 0, ext_minor = 0;
  uint64_t timestamp_hz = 0, max_wait = 0;
  hsa_endianness_t endianness{};
  hsa_machine_model_t model{};
  bool mwaitx = false, dmabuf = false, xnack = false, vmm = false;
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_VERSION_MINOR, &minor));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_EXT_VERSION_MAJOR, &ext_major));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_EXT_VERSION_MINOR, &ext_minor));
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &timestamp_hz));
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &max_wait));
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_ENDIANNESS, &endianness));
  RETURN_IF_ERROR(GetSystem(HSA_SYSTEM_INFO_MACHINE_MODEL, &model));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED, &mwaitx));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED, &dmabuf));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_XNACK_ENABLED, &xnack));
  RETURN_IF_ERROR(GetSystem(HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED, &vmm));
  std::string out;
  Line(out, 0, "Runtime Version:", absl::StrCat(major, ".", minor));
  Line(out, 0, "Runtime Ext Version:", absl::StrCat(ext_major, ".", ext_minor));
  Line(out, 0, "System Timestamp Freq.:", absl::StrFormat("%fMHz", static_cast<double>(timestamp_hz) / 1e6));
  Line(out, 0, "Sig. Max Wait Duration:", absl::StrFormat("%u (0x%X) (timestamp count)", max_wait, max_wait));
  Line(out, 0, "Machine Model:",
       model == HSA_MACHINE_MODEL_SMALL ? "SMALL" : model == HSA_MACHINE_MODEL_LARGE ? "LARGE" : "");
  Line(out, 0, "System Endianness:",
       endianness == HSA_ENDIANNESS_LITTLE ? "LITTLE" : endianness == HSA_ENDIANNESS_BIG ? "BIG" : "");
  Line(out, 0, "Mwaitx:", mwaitx ? "ENABLED" : "DISABLED");
  Line(out, 0, "XNACK enabled:", xnack ? "YES" : "NO");
  Line(out, 0, "DMAbuf Support:", dmabuf ? "YES" : "NO");
  Line(out, 0, "VMM Support:", vmm ? "YES" : "NO");
  return out;
}

absl::StatusOr<std::string> AgentReport() {
  std::vector<hsa_agent_t> agents;
  RETURN_IF_ERROR(ForEach<hsa_agent_t>("hsa_iterate_agents", hsa_iterate_agents, agents));
  Reporter reporter;
  for (size_t i = 0; i < agents.size(); ++i) {
    RETURN_IF_ERROR(reporter.Agent(agents[i], static_cast<int>(i) + 1));
  }
  return std::move(reporter.out());
}

}  // namespace hipmem::tools
