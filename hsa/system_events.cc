#include "hsa/system_events.h"

#include <array>
#include <atomic>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "hsa/runtime_kfd.h"
#include "hsa/system_events_kfd.h"
#include "thunk/events.h"

namespace hipmem::hsa {

uint32_t FaultReasonMask(const thunk::MemoryAccessFault& fault) {
  uint32_t mask = 0;
  if (fault.not_present) mask |= kFaultPageNotPresent;
  if (fault.read_only) mask |= kFaultReadOnly;
  if (fault.no_execute) mask |= kFaultNoExecute;
  if (fault.imprecise) mask |= kFaultImprecise;
  switch (fault.error_type) {
    case 1: mask |= kFaultSramEcc; break;
    case 2: mask |= kFaultDramEcc; break;
    case 3: mask |= kFaultHang; break;
    default: break;
  }
  return mask;
}

class SystemEvents::Impl {
 public:
  Impl(Runtime& runtime, thunk::Event memory, thunk::Event wake)
      : runtime_(runtime), memory_(std::move(memory)), wake_(std::move(wake)) {}
  // Stops and joins the thread (a handler running finishes first), then destroys the events.
  ~Impl();

  void Start() { thread_ = std::thread([this] { Run(); }); }
  absl::Status Register(FaultHandler handler);
  uint64_t fault_count() const { return faults_.load(std::memory_order_relaxed); }

 private:
  void Run();
  void Deliver(const thunk::MemoryAccessFault& fault);

  Runtime& runtime_;  // Not owned; must outlive this.
  const thunk::Event memory_;
  const thunk::Event wake_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> faults_{0};
  absl::Mutex mu_;
  std::vector<FaultHandler> handlers_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: started once everything above exists
};

SystemEvents::SystemEvents(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SystemEvents::~SystemEvents() = default;

absl::Status SystemEvents::Register(FaultHandler handler) { return impl_->Register(std::move(handler)); }

uint64_t SystemEvents::fault_count() const { return impl_->fault_count(); }

absl::StatusOr<std::unique_ptr<SystemEvents>> SystemEvents::Create(Runtime& runtime) {
  // Auto-reset: each wait the event releases consumes it, so every fault is seen once.
  ASSIGN_OR_RETURN(thunk::Event memory,
                   thunk::Event::Create(KfdOf(runtime), thunk::EventDescriptor{.type = thunk::EventType::kMemory}));
  ASSIGN_OR_RETURN(thunk::Event wake,
                   thunk::Event::Create(KfdOf(runtime), thunk::EventDescriptor{.type = thunk::EventType::kSignal}));
  auto impl = std::make_unique<Impl>(runtime, std::move(memory), std::move(wake));
  impl->Start();
  return std::unique_ptr<SystemEvents>(new SystemEvents(std::move(impl)));
}

SystemEvents::Impl::~Impl() {
  stop_.store(true, std::memory_order_release);
  if (absl::Status s = wake_.Set(); !s.ok()) HIPMEM_LOG(kError, "hsa_shut_down: system event thread: ", s.message());
  if (thread_.joinable()) thread_.join();
}

absl::Status SystemEvents::Impl::Register(FaultHandler handler) {
  if (!handler) return absl::InvalidArgumentError("hsa_amd_register_system_event_handler: no callback");
  ScopedLock lock(&mu_);
  handlers_.push_back(std::move(handler));
  return absl::OkStatus();
}

void SystemEvents::Impl::Run() {
  const std::array<const thunk::Event*, 2> events = {&memory_, &wake_};
  while (!stop_.load(std::memory_order_acquire)) {
    absl::StatusOr<thunk::WaitResult> result =
        thunk::Event::WaitMultiple(events, thunk::WaitMode::kAny, absl::InfiniteDuration());
    if (stop_.load(std::memory_order_acquire)) return;
    if (!result.ok()) {
      // The KFD refused the wait: nothing more can arrive through these events.
      HIPMEM_LOG(kError, "system events: waiting for GPU memory faults failed: ", result.status().message());
      return;
    }
    if (!result->memory_faults.empty() && result->memory_faults[0].has_value()) Deliver(*result->memory_faults[0]);
  }
}

void SystemEvents::Impl::Deliver(const thunk::MemoryAccessFault& fault) {
  faults_.fetch_add(1, std::memory_order_relaxed);
  std::optional<AgentId> agent;
  for (const Agent& a : runtime_.agents()) {
    if (a.type == DeviceType::kGpu && KfdNodeOf(runtime_, a) == fault.node) agent = a.id;
  }
  if (!agent.has_value()) {
    HIPMEM_LOG(kError, "GPU memory fault on node ", fault.node.raw(), ", which is no agent of this runtime");
    return;
  }
  const GpuMemoryFault info{
      .agent = *agent, .virtual_address = fault.address.raw(), .reason_mask = FaultReasonMask(fault)};
  std::vector<FaultHandler> handlers;
  {
    ScopedLock lock(&mu_);
    handlers = handlers_;
  }
  // ROCr prints the fault and aborts when no handler takes it; a library should not end the process, so the
  // fault is logged instead.
  if (handlers.empty()) {
    HIPMEM_LOG(kError, "GPU memory fault on agent ", agent->raw(), " at 0x", absl::Hex(info.virtual_address),
               " (reason 0x", absl::Hex(info.reason_mask), ") and no system event handler");
    return;
  }
  for (const FaultHandler& handler : handlers) handler(info);
}

}  // namespace hipmem::hsa
