#include "hsa/c_abi.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "hsa/agent_info.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"

namespace hipmem::hsa {
namespace {

ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);
Runtime* g_runtime ABSL_GUARDED_BY(g_mu) = nullptr;
SignalRuntime* g_signals ABSL_GUARDED_BY(g_mu) = nullptr;
Copies* g_copies ABSL_GUARDED_BY(g_mu) = nullptr;
Queues* g_queues ABSL_GUARDED_BY(g_mu) = nullptr;
AgentSettings* g_agent_settings ABSL_GUARDED_BY(g_mu) = nullptr;
SystemEvents* g_system_events ABSL_GUARDED_BY(g_mu) = nullptr;  // made on first use
Svm* g_svm ABSL_GUARDED_BY(g_mu) = nullptr;                      // made on first use
int g_refcount ABSL_GUARDED_BY(g_mu) = 0;

template <typename T>
absl::Status Write(void* value, T v) {
  std::memcpy(value, &v, sizeof(T));
  return absl::OkStatus();
}

// A char[64] attribute: NUL-padded, truncated to 63 characters.
absl::Status WriteName(void* value, const std::string& name) {
  char buffer[64] = {};
  std::memcpy(buffer, name.data(), std::min<size_t>(name.size(), sizeof(buffer) - 1));
  std::memcpy(value, buffer, sizeof(buffer));
  return absl::OkStatus();
}

absl::Status Unsupported(absl::string_view what, uint32_t attribute) {
  return absl::InvalidArgumentError(absl::StrCat(what, " attribute 0x", absl::Hex(attribute), " is not supported"));
}

}  // namespace

absl::Status AcquireSharedRuntime() {
  ScopedLock lock(&g_mu);
  if (g_runtime != nullptr) {
    ++g_refcount;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Runtime> runtime, Runtime::Create());
  g_signals = SignalRuntime::Create(*runtime).release();
  g_copies = Copies::Create(*runtime, g_signals->allocator()).release();
  g_queues = new Queues(*runtime, *g_signals);
  g_agent_settings = new AgentSettings(*runtime);
  g_runtime = runtime.release();
  g_refcount = 1;
  return absl::OkStatus();
}

absl::Status ReleaseSharedRuntime() {
  std::unique_ptr<Runtime> runtime;
  std::unique_ptr<SignalRuntime> signals;
  std::unique_ptr<Copies> copies;
  std::unique_ptr<Queues> queues;
  std::unique_ptr<SystemEvents> system_events;
  std::unique_ptr<Svm> svm;
  {
    ScopedLock lock(&g_mu);
    if (g_runtime == nullptr) return NotInitializedError("hsa_shut_down before hsa_init");
    if (--g_refcount > 0) return absl::OkStatus();
    runtime.reset(std::exchange(g_runtime, nullptr));
    signals.reset(std::exchange(g_signals, nullptr));
    copies.reset(std::exchange(g_copies, nullptr));
    queues.reset(std::exchange(g_queues, nullptr));
    delete std::exchange(g_agent_settings, nullptr);  // holds no resources; before the runtime it refers to
    system_events.reset(std::exchange(g_system_events, nullptr));
    svm.reset(std::exchange(g_svm, nullptr));
  }
  svm.reset();  // its worker may be migrating through the runtime's KFD and signalling
  system_events.reset();  // no handler runs once the runtime starts going away
  queues.reset();  // their CPs may still touch signals and memory of the ones below
  copies.reset();  // its queues hold signals and memory of the two below
  signals.reset();  // its signals live in the runtime's KFD process
  return absl::OkStatus();
}

absl::StatusOr<Runtime*> SharedRuntime() {
  ScopedLock lock(&g_mu);
  if (g_runtime == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  return g_runtime;
}

absl::StatusOr<SignalRuntime*> SharedSignals() {
  ScopedLock lock(&g_mu);
  if (g_signals == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  return g_signals;
}

absl::StatusOr<Queues*> SharedQueues() {
  ScopedLock lock(&g_mu);
  if (g_queues == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  return g_queues;
}

absl::StatusOr<AgentSettings*> SharedAgentSettings() {
  ScopedLock lock(&g_mu);
  if (g_agent_settings == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  return g_agent_settings;
}

absl::StatusOr<SystemEvents*> SharedSystemEvents() {
  ScopedLock lock(&g_mu);
  if (g_runtime == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  if (g_system_events == nullptr) {
    ASSIGN_OR_RETURN(std::unique_ptr<SystemEvents> events, SystemEvents::Create(*g_runtime));
    g_system_events = events.release();
  }
  return g_system_events;
}

absl::StatusOr<Svm*> SharedSvm() {
  ScopedLock lock(&g_mu);
  if (g_runtime == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  if (g_svm == nullptr) g_svm = Svm::Create(*g_runtime).release();
  return g_svm;
}

absl::StatusOr<Copies*> SharedCopies() {
  ScopedLock lock(&g_mu);
  if (g_copies == nullptr) return NotInitializedError("the HSA runtime is not initialised (call hsa_init)");
  return g_copies;
}

absl::Status WriteSystemInfo(uint32_t attribute, void* value) {
  switch (attribute) {
    case HSA_SYSTEM_INFO_VERSION_MAJOR: return Write<uint16_t>(value, 1);
    // runtime.cpp Runtime::GetSystemInfo answers HSA_VERSION_MINOR, which hsa-runtime/CMakeLists.txt sets from
    // the package version: get_version("1.21.0") in current rocr-runtime/CMakeLists.txt (rocminfo: "Runtime
    // Version: 1.21"; 1.1 is only the fallback of a build without those definitions).
    case HSA_SYSTEM_INFO_VERSION_MINOR: return Write<uint16_t>(value, kRocrVersionMinor);
    case HSA_SYSTEM_INFO_TIMESTAMP: {
      timespec ts{};
      clock_gettime(CLOCK_MONOTONIC, &ts);
      return Write<uint64_t>(value, static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec);
    }
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: return Write<uint64_t>(value, kTimestampFrequencyHz);
    case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: return Write<uint64_t>(value, UINT64_MAX);
    case HSA_SYSTEM_INFO_ENDIANNESS: return Write(value, HSA_ENDIANNESS_LITTLE);
    case HSA_SYSTEM_INFO_MACHINE_MODEL: return Write(value, HSA_MACHINE_MODEL_LARGE);
    // Answered by the runtime's SVM (svm.h): what the KFD advertises and the process's XNACK mode.
    case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: {
      ASSIGN_OR_RETURN(Svm * svm, SharedSvm());
      return Write<bool>(value, svm->Supported());
    }
    case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: {
      ASSIGN_OR_RETURN(Svm * svm, SharedSvm());
      ASSIGN_OR_RETURN(const bool accessible, svm->AccessibleByDefault());
      return Write<bool>(value, accessible);
    }
    default: return WriteTopologySystemInfo(attribute, value);
  }
}

absl::Status WriteAgentInfo(Runtime& runtime, AgentId id, uint32_t attribute, void* value) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(id));
  const bool gpu = agent->type == DeviceType::kGpu;
  switch (attribute) {
    case HSA_AGENT_INFO_NAME: return WriteName(value, agent->name);
    case HSA_AGENT_INFO_VENDOR_NAME: return WriteName(value, gpu ? "AMD" : "CPU");
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME: return WriteName(value, agent->product_name);
    case HSA_AGENT_INFO_DEVICE: return Write(value, gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU);
    case HSA_AGENT_INFO_NODE:
    case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: return Write<uint32_t>(value, KfdNodeOf(runtime, *agent).raw());
    case HSA_AMD_AGENT_INFO_MEMORY_AVAIL: {
      ASSIGN_OR_RETURN(Bytes available, runtime.MemoryAvailable(id));
      return Write<uint64_t>(value, available.raw());
    }
    case HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY: return Write<uint64_t>(value, kTimestampFrequencyHz);
    default: return WriteTopologyAgentInfo(runtime, *agent, attribute, value);
  }
}

absl::Status WritePoolInfo(const Runtime& runtime, PoolId id, uint32_t attribute, void* value) {
  ASSIGN_OR_RETURN(const MemoryPool* pool, runtime.GetPool(id));
  switch (attribute) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: return Write(value, static_cast<hsa_amd_segment_t>(pool->segment));
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: return Write<uint32_t>(value, ToRaw(pool->global_flags));
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: return Write<size_t>(value, pool->size.raw());
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: return Write<bool>(value, pool->alloc_allowed);
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: return Write<size_t>(value, pool->alloc_granule.raw());
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE: return Write<size_t>(value, pool->alloc_rec_granule.raw());
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: return Write<size_t>(value, pool->alloc_alignment.raw());
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: return Write<bool>(value, pool->accessible_by_all);
    case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE: return Write<size_t>(value, pool->alloc_max_size.raw());
    case HSA_AMD_MEMORY_POOL_INFO_LOCATION:
      return Write(value, static_cast<hsa_amd_memory_pool_location_t>(pool->location));
    default: return Unsupported("memory pool", attribute);
  }
}

absl::Status WriteAgentPoolInfo(const Runtime& runtime, AgentId agent_id, PoolId pool_id, uint32_t attribute,
                                void* value) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  ASSIGN_OR_RETURN(const MemoryPool* pool, runtime.GetPool(pool_id));
  return WriteLinkAgentPoolInfo(runtime, *agent, *pool, attribute, value);
}

}  // namespace hipmem::hsa
