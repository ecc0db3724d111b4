#include "testing/kfd_sim/engines/gfx9/vector_memory.h"

#include <cstring>

#include "testing/kfd_sim/engines/gfx9/memory_port.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

constexpr uint64_t kApertureBytes = uint64_t{1} << 32;

// The host bytes of [offset, offset + bytes) of a lane's private segment or the LDS, or null when out of range.
unsigned char* Local(Context& c, int lane, const LaneAddress& a, uint32_t bytes) {
  if (a.space == Space::kLds) {
    return a.address + bytes <= c.lds_bytes ? c.lds + a.address : nullptr;
  }
  const uint64_t per_lane = c.dispatch == nullptr ? 0 : c.dispatch->private_bytes_per_lane;
  if (a.address + bytes > per_lane) return nullptr;
  return c.scratch + static_cast<uint64_t>(lane) * per_lane + a.address;
}

}  // namespace

LaneAddress Classify(const Context& context, uint64_t flat_address) {
  const DispatchInfo* d = context.dispatch;
  if (d != nullptr) {
    if (flat_address - d->shared_aperture_base < kApertureBytes) {
      return LaneAddress{Space::kLds, flat_address - d->shared_aperture_base};
    }
    if (flat_address - d->private_aperture_base < kApertureBytes) {
      return LaneAddress{Space::kScratch, flat_address - d->private_aperture_base};
    }
  }
  return LaneAddress{Space::kGlobal, flat_address};
}

bool LaneRead(Context& context, int lane, const LaneAddress& a, void* out, uint32_t bytes) {
  if (a.space == Space::kGlobal) {
    if (std::optional<uint64_t> fault = context.memory->Read(a.address, out, bytes)) {
      context.Fault(*fault);
      return false;
    }
    return true;
  }
  const unsigned char* p = Local(context, lane, a, bytes);
  if (p == nullptr) {
    std::memset(out, 0, bytes);
  } else {
    std::memcpy(out, p, bytes);
  }
  return true;
}

bool LaneWrite(Context& context, int lane, const LaneAddress& a, const void* in, uint32_t bytes) {
  if (a.space == Space::kGlobal) {
    if (std::optional<uint64_t> fault = context.memory->Write(a.address, in, bytes)) {
      context.Fault(*fault);
      return false;
    }
    return true;
  }
  unsigned char* p = Local(context, lane, a, bytes);
  if (p != nullptr) std::memcpy(p, in, bytes);
  return true;
}

void* LaneWord(Context& context, int lane, const LaneAddress& a, uint32_t bytes, bool* shared, bool* dropped) {
  *dropped = false;
  *shared = a.space == Space::kGlobal;
  if (a.space == Space::kGlobal) {
    void* word = context.memory->Word(a.address, bytes);
    if (word == nullptr) context.Fault(a.address);
    return word;
  }
  unsigned char* p = Local(context, lane, a, bytes);
  if (p == nullptr) *dropped = true;
  return p;
}

}  // namespace hipmem::kfd_sim::gfx9
