#include "clr/device_faults.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"

namespace hipmem::clr {
namespace {

// The payload marking a GPU memory fault; its value says nothing more.
constexpr absl::string_view kGpuMemoryFaultPayloadUrl = "hipmem/gpu_memory_fault";

std::string ReasonText(uint32_t mask) {
  std::string out;
  auto add = [&](uint32_t bit, const char* what) {
    if ((mask & bit) != 0) absl::StrAppend(&out, out.empty() ? "" : ", ", what);
  };
  add(hsa::kFaultPageNotPresent, "page not present");
  add(hsa::kFaultReadOnly, "write to a read-only page");
  add(hsa::kFaultNoExecute, "execute from a no-execute page");
  add(hsa::kFaultHostOnly, "host-only memory");
  add(hsa::kFaultDramEcc, "DRAM ECC");
  add(hsa::kFaultImprecise, "imprecise");
  add(hsa::kFaultSramEcc, "SRAM ECC");
  add(hsa::kFaultHang, "GPU hang");
  return out.empty() ? "no reason given" : out;
}

}  // namespace

absl::Status GpuMemoryFaultError(absl::string_view message) {
  absl::Status status = absl::AbortedError(message);
  status.SetPayload(kGpuMemoryFaultPayloadUrl, absl::Cord());
  return status;
}

bool IsGpuMemoryFault(const absl::Status& status) {
  return status.code() == absl::StatusCode::kAborted && status.GetPayload(kGpuMemoryFaultPayloadUrl).has_value();
}

absl::StatusOr<std::unique_ptr<DeviceFaults>> DeviceFaults::Create(hsa::Runtime& runtime) {
  std::unique_ptr<DeviceFaults> faults(new DeviceFaults());
  ASSIGN_OR_RETURN(faults->events_, hsa::SystemEvents::Create(runtime));
  DeviceFaults* raw = faults.get();
  RETURN_IF_ERROR(faults->events_->Register([raw](const hsa::GpuMemoryFault& fault) { raw->OnFault(fault); }));
  return faults;
}

absl::Status DeviceFaults::Error(hsa::AgentId agent) const {
  ScopedLock lock(&mu_);
  auto it = errors_.find(agent.raw());
  return it == errors_.end() ? absl::OkStatus() : it->second;
}

void DeviceFaults::Clear(hsa::AgentId agent) {
  ScopedLock lock(&mu_);
  errors_.erase(agent.raw());
}

void DeviceFaults::Watch(hsa::AgentId agent, std::weak_ptr<void> owner, Listener listener) {
  absl::Status error;
  {
    ScopedLock lock(&mu_);
    auto it = errors_.find(agent.raw());
    if (it == errors_.end()) {
      std::vector<Watcher>& list = watchers_[agent.raw()];
      // Drop the watchers whose streams are gone, so the list stays as long as the live streams.
      std::erase_if(list, [](const Watcher& w) { return w.owner.expired(); });
      list.push_back(Watcher{std::move(owner), std::move(listener)});
      return;
    }
    error = it->second;
  }
  listener(error);
}

void DeviceFaults::OnFault(const hsa::GpuMemoryFault& fault) {
  std::vector<Watcher> told;
  absl::Status error;
  {
    ScopedLock lock(&mu_);
    auto [it, first] = errors_.try_emplace(
        fault.agent.raw(),
        GpuMemoryFaultError(absl::StrCat("GPU memory fault on agent ", fault.agent.raw(), " at 0x",
                                        absl::Hex(fault.virtual_address), " (", ReasonText(fault.reason_mask),
                                        "): the device's queued work is lost")));
    error = it->second;
    if (!first) return;  // the device was told already
    auto w = watchers_.find(fault.agent.raw());
    if (w != watchers_.end()) {
      told = std::move(w->second);
      watchers_.erase(w);
    }
  }
  HIPMEM_LOG(kError, error.message());
  Trace(Layer::kClr, "device fault: ", error.message(), "; failing the work of ", told.size(), " streams");
  // Outside the lock: a listener takes its stream's lock, and a stream may ask for Error() under it.
  for (const Watcher& w : told) {
    if (std::shared_ptr<void> alive = w.owner.lock()) w.listener(error);
  }
}

}  // namespace hipmem::clr
