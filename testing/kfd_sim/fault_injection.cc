#include "testing/kfd_sim/fault_injection.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"

namespace hipmem::kfd_sim {

std::string EntryName(const CountedEntry& entry) {
  switch (entry.entry) {
    case KernelEntry::kOpenKfd:
      return "open(/dev/kfd)";
    case KernelEntry::kIoctl:
      return kfd_uapi::IoctlName(kfd_uapi::EncodeIoctl(kfd_uapi::IoctlDirection::kNone, entry.nr, 0));
    case KernelEntry::kMmap:
      return "mmap";
    case KernelEntry::kOpenRenderNode:
      return "open(/dev/dri/renderD*)";
    case KernelEntry::kThreadStart:
      return "thread start";
    case KernelEntry::kHostAllocation:
      return "host allocation";
  }
  return "?";
}

FaultPlan ResourceFaultPlan(uint64_t fail_at) {
  return FaultPlan{.fail_at = fail_at,
                   .skip_ioctl_nrs = {kfd_uapi::kWaitEvents.nr, kfd_uapi::kGetVersion.nr, kfd_uapi::kGetClockCounters.nr,
                                      kfd_uapi::kSetEvent.nr, kfd_uapi::kResetEvent.nr, kfd_uapi::kFreeMemoryOfGpu.nr,
                                      kfd_uapi::kDestroyEvent.nr, kfd_uapi::kDestroyQueue.nr}};
}

FaultPlan ResourceFaultPlanWithoutEvents(uint64_t fail_at) {
  FaultPlan plan = ResourceFaultPlan(fail_at);
  plan.skip_ioctl_nrs.push_back(kfd_uapi::kCreateEvent.nr);
  return plan;
}

FaultPlan EventsExhaustedPlan() {
  return FaultPlan{.fail_at = 1,
                   .fail_count = UINT64_MAX,
                   .error = ENOSPC,
                   .only_ioctl_nr = kfd_uapi::kCreateEvent.nr,
                   .all_threads = true};
}

ScopedFaultInjection::ScopedFaultInjection(FaultPlan plan)
    : plan_(std::move(plan)), owner_(std::this_thread::get_id()) {
  InstallFaultInjector(this);
}

ScopedFaultInjection::~ScopedFaultInjection() { InstallFaultInjector(nullptr); }

int ScopedFaultInjection::OnEntry(KernelEntry entry, uint32_t nr) {
  if (!plan_.all_threads && std::this_thread::get_id() != owner_) return 0;
  if (plan_.only_entry && entry != *plan_.only_entry) return 0;
  // The simulator's host resources only when asked for by name (fault_hook.h).
  if (!plan_.only_entry && (entry == KernelEntry::kThreadStart || entry == KernelEntry::kHostAllocation)) return 0;
  if (entry == KernelEntry::kIoctl) {
    if (plan_.only_ioctl_nr && nr != *plan_.only_ioctl_nr) return 0;
    if (!plan_.only_ioctl_nr &&
        std::find(plan_.skip_ioctl_nrs.begin(), plan_.skip_ioctl_nrs.end(), nr) != plan_.skip_ioctl_nrs.end()) {
      return 0;
    }
  } else if (plan_.only_ioctl_nr) {
    return 0;
  }
  ScopedLock lock(&mu_);
  counted_.push_back(CountedEntry{entry, nr});
  const uint64_t index = counted_.size();
  if (plan_.fail_at == 0 || index < plan_.fail_at || index - plan_.fail_at >= plan_.fail_count) return 0;
  ++failed_;
  if (!first_failed_) first_failed_ = counted_.back();
  return plan_.error;
}

std::vector<CountedEntry> ScopedFaultInjection::counted() const {
  ScopedLock lock(&mu_);
  return counted_;
}

uint64_t ScopedFaultInjection::failed() const {
  ScopedLock lock(&mu_);
  return failed_;
}

std::string ScopedFaultInjection::failed_name() const {
  ScopedLock lock(&mu_);
  return first_failed_ ? EntryName(*first_failed_) : "none";
}

absl::StatusOr<std::vector<CountedEntry>> CountEntries(const FaultPlan& filter, absl::FunctionRef<void()> scenario) {
  FaultPlan plan = filter;
  plan.fail_at = 0;
  std::vector<CountedEntry> runs[2];
  for (std::vector<CountedEntry>& run : runs) {
    ScopedFaultInjection count(plan);
    scenario();
    run = count.counted();
  }
  if (runs[0] == runs[1]) return runs[0];
  const size_t common = std::min(runs[0].size(), runs[1].size());
  size_t i = 0;
  while (i < common && runs[0][i] == runs[1][i]) ++i;
  auto at = [&](const std::vector<CountedEntry>& run) { return i < run.size() ? EntryName(run[i]) : "the end"; };
  return absl::FailedPreconditionError(absl::StrCat("the scenario's kernel entries differ between two runs (",
                                                    runs[0].size(), " vs ", runs[1].size(), "): entry ", i + 1,
                                                    " is ", at(runs[0]), " then ", at(runs[1])));
}

SimUsage UsageOf(const SimSnapshot& snapshot) {
  SimUsage usage;
  usage.processes = snapshot.processes.size();
  for (const SimProcess& p : snapshot.processes) {
    usage.buffers += p.bos.size();
    for (const SimBo& bo : p.bos) usage.gpu_mappings += bo.mapped_gpu_ids.size();
    usage.events += p.events.size();
    usage.queues += p.queues.size();
    usage.svm_ranges += p.svm_ranges.size();
  }
  for (const SimGpuUsage& gpu : snapshot.gpus) usage.vram_used.push_back(gpu.vram_used);
  usage.system_used = snapshot.system_used;
  return usage;
}

std::ostream& operator<<(std::ostream& os, const SimUsage& usage) {
  os << "{processes " << usage.processes << ", buffers " << usage.buffers << ", gpu mappings " << usage.gpu_mappings
     << ", events " << usage.events << ", queues " << usage.queues << ", svm ranges " << usage.svm_ranges
     << ", vram used";
  for (Bytes b : usage.vram_used) os << " " << b.raw();
  return os << ", system used " << usage.system_used.raw() << "}";
}

SimUsage WithoutPooledEvents(SimUsage usage) {
  usage.events = 0;
  return usage;
}

bool UsageAtMost(const SimUsage& usage, const SimUsage& bound) {
  if (usage.vram_used.size() != bound.vram_used.size()) return false;
  for (size_t i = 0; i < usage.vram_used.size(); ++i) {
    if (usage.vram_used[i] > bound.vram_used[i]) return false;
  }
  return usage.processes == bound.processes && usage.buffers <= bound.buffers &&
         usage.gpu_mappings <= bound.gpu_mappings && usage.queues <= bound.queues &&
         usage.svm_ranges <= bound.svm_ranges && usage.system_used <= bound.system_used;
}

}  // namespace hipmem::kfd_sim
