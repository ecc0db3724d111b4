#include "testing/kfd_sim/engines/sdma_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

#include "base/log.h"
#include "gpu_abi/sdma_packets.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

using sdma::Opcode;

uint64_t Addr(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

bool Compare(uint32_t value, uint32_t reference, uint32_t function) {
  switch (static_cast<sdma::PollFunction>(function)) {
    case sdma::PollFunction::kAlways: return true;
    case sdma::PollFunction::kLess: return value < reference;
    case sdma::PollFunction::kLessEqual: return value <= reference;
    case sdma::PollFunction::kEqual: return value == reference;
    case sdma::PollFunction::kNotEqual: return value != reference;
    case sdma::PollFunction::kGreaterEqual: return value >= reference;
    case sdma::PollFunction::kGreater: return value > reference;
  }
  return false;
}

}  // namespace

SdmaEngine::SdmaEngine(std::string name, GpuMemory* memory, SdmaQueueDescriptor queue, Callbacks callbacks)
    : name_(std::move(name)),
      memory_(memory),
      queue_(queue),
      callbacks_(std::move(callbacks)),
      doorbell_word_(queue.doorbell != nullptr ? queue.doorbell : &private_doorbell_),
      doorbell_(doorbell_word_),
      rptr_(queue.initial_rptr) {
  thread_ = std::thread([this] { Run(); });
}

SdmaEngine::~SdmaEngine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_requested_.store(true);
  cv_.notify_all();
  doorbell_.WakeUntil(exited_);
  thread_.join();
}

void SdmaEngine::RingDoorbell(uint64_t wptr) { kfd_sim::RingDoorbell(doorbell_word_, wptr); }

bool SdmaEngine::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return (halted_ && !reporting_fault_) || rptr_ >= doorbell_.Load(); });
  return !halted_;
}

uint64_t SdmaEngine::rptr() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rptr_;
}

bool SdmaEngine::halted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return halted_;
}

uint64_t SdmaEngine::bytes_moved() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_moved_;
}

bool SdmaEngine::stopping() const { return stop_requested_.load(); }

void SdmaEngine::Fault(uint64_t va) {
  HIPMEM_LOG(kWarning, name_, ": VM fault at 0x", absl::Hex(va), "; queue halted");
  // Halted before anyone hears of the fault, so whoever the callback wakes sees the queue stopped; WaitIdle
  // returns only once the callback is done, so its caller sees what the callback recorded.
  {
    std::lock_guard<std::mutex> lock(mu_);
    halted_ = true;
    reporting_fault_ = true;
  }
  if (callbacks_.on_vm_fault) callbacks_.on_vm_fault(va);
  {
    std::lock_guard<std::mutex> lock(mu_);
    reporting_fault_ = false;
  }
  cv_.notify_all();
}

void SdmaEngine::Run() {
  uint64_t rptr = queue_.initial_rptr;
  bool halted = false;
  while (!stopping()) {
    // A stale doorbell write never rewinds the ring; a halted queue ignores its doorbell until destroyed.
    const uint64_t wptr = doorbell_.Load();
    if (halted || wptr <= rptr) {
      doorbell_.Wait(wptr);
      continue;
    }
    Outcome outcome = Outcome::kDone;
    while (rptr < wptr && outcome == Outcome::kDone) {
      uint32_t dwords = 0;
      outcome = Execute(rptr, &dwords);
      if (outcome != Outcome::kDone) break;
      rptr += uint64_t{dwords} * 4;
      {
        // The read pointer write-back lives in GPU-mapped memory too.
        GpuMemory::AccessScope scope(memory_);
        std::optional<GpuMemory::Span> rp = memory_->Translate(queue_.rptr_va, sizeof(uint64_t));
        if (!rp.has_value() || rp->bytes < sizeof(uint64_t)) {
          Fault(queue_.rptr_va);
          outcome = Outcome::kFault;
          break;
        }
        // Both views of progress move together: whoever sees the write-back and then asks rptr() agrees.
        std::lock_guard<std::mutex> progress(mu_);
        std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(rp->host)).store(rptr, std::memory_order_release);
        rptr_ = rptr;
      }
      cv_.notify_all();
    }
    if (outcome == Outcome::kStopped) break;
    if (outcome != Outcome::kDone) {
      halted = true;
      {
        std::lock_guard<std::mutex> lock(mu_);
        halted_ = true;
      }
      cv_.notify_all();
    }
  }
  exited_.store(true);
}

bool SdmaEngine::ReadRing(uint64_t offset, uint32_t* out, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t va = queue_.ring_va + (offset + uint64_t{i} * 4) % queue_.ring_bytes;
    std::optional<GpuMemory::Span> span = memory_->Translate(va, 4);
    if (!span.has_value() || span->bytes < 4) {
      Fault(va);
      return false;
    }
    std::memcpy(&out[i], span->host, 4);
  }
  return true;
}

SdmaEngine::Outcome SdmaEngine::Execute(uint64_t rptr, uint32_t* dwords_consumed) {
  // Every access of the packet happens inside one scope, except a POLL's waits (see Poll).
  std::optional<GpuMemory::AccessScope> scope;
  scope.emplace(memory_);
  uint32_t p[8] = {};
  if (!ReadRing(rptr, p, 1)) return Outcome::kFault;
  const auto op = static_cast<Opcode>(p[0] & 0xff);
  auto read = [&](uint32_t n) { return ReadRing(rptr, p, n); };
  switch (op) {
    case Opcode::kNop:
      *dwords_consumed = 1 + ((p[0] >> 16) & 0x3fff);
      return Outcome::kDone;
    case Opcode::kCopy:
      *dwords_consumed = 7;
      if (!read(7)) return Outcome::kFault;
      return Copy(Addr(p[5], p[6]), Addr(p[3], p[4]), uint64_t{p[1] & (sdma::kMaxLinearBytes - 1)} + 1);
    case Opcode::kFence: {
      *dwords_consumed = 4;
      if (!read(4)) return Outcome::kFault;
      const uint64_t addr = Addr(p[1], p[2]);
      if (addr % 4 != 0) return Outcome::kMalformed;
      std::optional<GpuMemory::Span> span = memory_->Translate(addr, 4);
      if (!span.has_value()) {
        Fault(addr);
        return Outcome::kFault;
      }
      std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(span->host)).store(p[3], std::memory_order_release);
      return Outcome::kDone;
    }
    case Opcode::kTrap:
      *dwords_consumed = 2;
      if (!read(2)) return Outcome::kFault;
      if (callbacks_.on_trap) callbacks_.on_trap(p[1]);
      return Outcome::kDone;
    case Opcode::kPollRegMem:
      *dwords_consumed = 6;
      if (!read(6)) return Outcome::kFault;
      if ((p[0] >> 31) == 0) return Outcome::kMalformed;  // register polls are not simulated
      scope.reset();
      return Poll(Addr(p[1], p[2]), p[3], p[4], (p[0] >> 28) & 7, p[5] & 0xffff, (p[5] >> 16) & 0xfff);
    case Opcode::kConstFill:
      *dwords_consumed = 5;
      if (!read(5)) return Outcome::kFault;
      if ((p[0] >> 30) != 2) return Outcome::kMalformed;  // only dword fills
      return Fill(Addr(p[1], p[2]), p[3], uint64_t{p[4] & (sdma::kMaxLinearBytes - 1)} + 1);
  }
  HIPMEM_LOG(kWarning, name_, ": unknown SDMA opcode ", p[0] & 0xff, "; queue halted");
  return Outcome::kMalformed;
}

SdmaEngine::Outcome SdmaEngine::Copy(uint64_t dst, uint64_t src, uint64_t bytes) {
  const uint64_t total = bytes;
  while (bytes > 0) {
    std::optional<GpuMemory::Span> s = memory_->Translate(src, bytes);
    if (!s.has_value()) {
      Fault(src);
      return Outcome::kFault;
    }
    std::optional<GpuMemory::Span> d = memory_->Translate(dst, bytes);
    if (!d.has_value()) {
      Fault(dst);
      return Outcome::kFault;
    }
    const uint64_t n = std::min({s->bytes, d->bytes, bytes});
    const auto* sp = static_cast<const uint8_t*>(s->host);
    auto* dp = static_cast<uint8_t*>(d->host);
    // memcpy where the ranges are disjoint (the common case); memmove keeps overlap correct.
    if (dp + n <= sp || sp + n <= dp) {
      std::memcpy(dp, sp, n);
    } else {
      std::memmove(dp, sp, n);
    }
    src += n;
    dst += n;
    bytes -= n;
  }
  std::lock_guard<std::mutex> lock(mu_);
  bytes_moved_ += total;
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Fill(uint64_t dst, uint32_t value, uint64_t bytes) {
  if (dst % 4 != 0 || bytes % 4 != 0) return Outcome::kMalformed;
  const uint64_t total = bytes;
  while (bytes > 0) {
    std::optional<GpuMemory::Span> d = memory_->Translate(dst, bytes);
    if (!d.has_value()) {
      Fault(dst);
      return Outcome::kFault;
    }
    const uint64_t n = std::min(d->bytes, bytes) & ~uint64_t{3};
    if (n == 0) return Outcome::kMalformed;  // a mapping boundary inside a dword
    auto* out = static_cast<uint32_t*>(d->host);
    std::fill(out, out + n / 4, value);
    dst += n;
    bytes -= n;
  }
  std::lock_guard<std::mutex> lock(mu_);
  bytes_moved_ += total;
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Poll(uint64_t addr, uint32_t reference, uint32_t mask, uint32_t function,
                                     uint32_t interval_us, uint32_t retries) {
  if (addr % 4 != 0) return Outcome::kMalformed;
  const auto interval = std::chrono::microseconds(std::max<uint32_t>(interval_us, 1));
  for (uint32_t attempt = 0;; ++attempt) {
    uint32_t value = 0;
    {
      // One scope per look: the page table may change between looks, as between a real engine's reads.
      GpuMemory::AccessScope scope(memory_);
      std::optional<GpuMemory::Span> span = memory_->Translate(addr, 4);
      if (!span.has_value()) {
        Fault(addr);
        return Outcome::kFault;
      }
      value = std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(span->host)).load(std::memory_order_acquire);
    }
    if (Compare(value & mask, reference, function)) return Outcome::kDone;
    // Hardware moves on after the retry count (and raises a timeout interrupt we do not model).
    if (retries != sdma::kPollForever && attempt >= retries) return Outcome::kDone;
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, interval, [&] { return stop_; })) return Outcome::kStopped;
  }
}

}  // namespace hipmem::kfd_sim
