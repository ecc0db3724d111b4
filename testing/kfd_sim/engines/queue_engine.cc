#include "testing/kfd_sim/engines/queue_engine.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/trace.h"
#include "testing/kfd_sim/host/host_thread.h"

namespace hipmem::kfd_sim {

QueueEngine::QueueEngine(std::string name, uint64_t* doorbell, uint64_t idle_doorbell, uint64_t initial_progress,
                         std::function<void(uint64_t va)> on_vm_fault)
    : name_(std::move(name)),
      on_vm_fault_(std::move(on_vm_fault)),
      private_doorbell_(idle_doorbell),
      doorbell_word_(doorbell != nullptr ? doorbell : &private_doorbell_),
      doorbell_(doorbell_word_),
      progress_(initial_progress) {}

QueueEngine::~QueueEngine() {
  HIPMEM_CHECK(!thread_.joinable(), name_, ": the engine's destructor must Stop() its thread first");
}

void QueueEngine::Start() {
  if (!doorbell_.polled()) {
    HIPMEM_LOG(kError, name_, ": not started: nothing watches its doorbell");
    return;
  }
  absl::StatusOr<std::thread> thread = StartHostThread([this] {
    SetTraceThreadName(name_);  // the engine's own track in a trace
    Run();
  });
  if (!thread.ok()) {
    HIPMEM_LOG(kError, name_, ": not started: ", thread.status().message());
    return;
  }
  thread_ = *std::move(thread);
}

void QueueEngine::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    interrupt_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  doorbell_.WakeUntil(exited_);
  thread_.join();
}

void QueueEngine::RingDoorbell(uint64_t value) { kfd_sim::RingDoorbell(doorbell_word_, value); }

bool QueueEngine::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] {
    return started_ && ((halted_ && !reporting_) || (!halted_ && CaughtUp(progress_, doorbell_.Load())));
  });
  return !halted_;
}

uint64_t QueueEngine::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

bool QueueEngine::halted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return halted_;
}

bool QueueEngine::suspended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return suspended_;
}

void QueueEngine::Suspend() {
  std::unique_lock<std::mutex> lock(mu_);
  suspended_ = true;
  interrupt_.store(true, std::memory_order_release);
  cv_.notify_all();  // a packet asleep in SleepUnlessInterrupted gives up
  cv_.wait(lock, [&] { return !busy_; });
}

void QueueEngine::Resume() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    suspended_ = false;
    interrupt_.store(stop_, std::memory_order_release);
  }
  cv_.notify_all();
}

void QueueEngine::Advance(uint64_t progress, absl::FunctionRef<void()> write_back) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    write_back();
    progress_ = progress;
  }
  cv_.notify_all();
}

QueueEngine::Outcome QueueEngine::Fault(uint64_t va) {
  fault_va_ = va;
  return Outcome::kHalt;
}

bool QueueEngine::SleepUnlessInterrupted(std::chrono::microseconds period) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, period, [&] { return stop_ || suspended_; });
}

void QueueEngine::Halt() {
  // Halted before anyone hears of it, so whoever the report wakes sees the queue stopped; WaitIdle returns only
  // once the report is done, so its caller sees what the callback recorded.
  {
    std::lock_guard<std::mutex> lock(mu_);
    halted_ = true;
    reporting_ = true;
  }
  if (fault_va_.has_value()) {
    HIPMEM_LOG(kWarning, name_, ": VM fault at 0x", absl::Hex(*fault_va_), "; queue halted");
    if (on_vm_fault_) on_vm_fault_(*fault_va_);
  } else {
    ReportError();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    reporting_ = false;
  }
  cv_.notify_all();
}

void QueueEngine::Run() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = true;
  }
  if (!Validate()) Halt();
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    busy_ = false;
  }
  cv_.notify_all();
  while (true) {
    {
      // A halted queue ignores its doorbell until it is destroyed; a suspended one waits for Resume.
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || (!halted_ && !suspended_); });
      if (stop_) break;
      busy_ = true;
    }
    // Read after the gate: a queue resumed with work announced while it was suspended runs it now.
    const uint64_t doorbell = doorbell_.Load();
    const Outcome outcome = Process(doorbell);
    if (outcome == Outcome::kHalt) Halt();
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
    cv_.notify_all();
    // A doorbell that moved after the load makes the wait return at once: no ring is lost.
    if (outcome == Outcome::kNotReady) doorbell_.Wait(doorbell);
  }
  exited_.store(true, std::memory_order_release);
}

}  // namespace hipmem::kfd_sim
