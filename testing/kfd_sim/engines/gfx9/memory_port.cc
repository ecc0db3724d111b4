#include "testing/kfd_sim/engines/gfx9/memory_port.h"

#include <algorithm>
#include <cstring>

namespace hipmem::kfd_sim::gfx9 {
namespace {
// How far one translation reaches at most: large enough that a streaming kernel translates rarely, small enough
// that a lookup never walks much of the page table.
constexpr uint64_t kReach = uint64_t{1} << 20;
}  // namespace

void MemoryPort::Open() {
  if (open_) return;
  scope_.emplace(memory_);
  open_ = true;
}

void MemoryPort::Close() {
  if (!open_) return;
  cache_.fill(Entry{});
  scope_.reset();
  open_ = false;
}

unsigned char* MemoryPort::Lookup(uint64_t va, uint64_t* contiguous) {
  const Entry& last = cache_[last_hit_];
  if (va - last.begin < last.end - last.begin) {
    *contiguous = last.end - va;
    return last.host + (va - last.begin);
  }
  for (uint32_t k = 0; k < cache_.size(); ++k) {
    const Entry& e = cache_[k];
    if (va - e.begin < e.end - e.begin) {
      last_hit_ = k;
      *contiguous = e.end - va;
      return e.host + (va - e.begin);
    }
  }
  std::optional<GpuMemory::Span> span = memory_->Translate(va, kReach);
  if (!span.has_value()) return nullptr;
  last_hit_ = next_victim_++ % cache_.size();
  Entry& victim = cache_[last_hit_];
  victim = Entry{va, va + span->bytes, static_cast<unsigned char*>(span->host)};
  *contiguous = span->bytes;
  return victim.host;
}

std::optional<uint64_t> MemoryPort::ReadPieces(uint64_t va, void* out, uint32_t bytes) {
  auto* dst = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    uint64_t n = 0;
    unsigned char* host = Lookup(va, &n);
    if (host == nullptr) return va;
    n = std::min<uint64_t>(n, bytes);
    std::memcpy(dst, host, n);
    dst += n;
    va += n;
    bytes -= static_cast<uint32_t>(n);
  }
  return std::nullopt;
}

std::optional<uint64_t> MemoryPort::WritePieces(uint64_t va, const void* in, uint32_t bytes) {
  const auto* src = static_cast<const unsigned char*>(in);
  while (bytes > 0) {
    uint64_t n = 0;
    unsigned char* host = Lookup(va, &n);
    if (host == nullptr) return va;
    n = std::min<uint64_t>(n, bytes);
    std::memcpy(host, src, n);
    src += n;
    va += n;
    bytes -= static_cast<uint32_t>(n);
  }
  return std::nullopt;
}

void* MemoryPort::RangeSlow(uint64_t va, uint64_t bytes) {
  uint64_t n = 0;
  unsigned char* host = Lookup(va, &n);
  if (host == nullptr || n < bytes) return nullptr;
  return host;
}

}  // namespace hipmem::kfd_sim::gfx9
