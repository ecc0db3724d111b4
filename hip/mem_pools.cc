#include "hip/mem_pools.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

MemPoolHandle HandleOf(const clr::MemoryPool* pool) { return MemPoolHandle(reinterpret_cast<uint64_t>(pool)); }

std::string HandleText(MemPoolHandle h) { return absl::StrCat("0x", absl::Hex(h.raw())); }

}  // namespace

PoolTable::PoolTable(clr::Context& context)
    : context_(context), defaults_(context.devices().size()), current_(context.devices().size(), nullptr) {}

PoolTable::~PoolTable() = default;

std::shared_ptr<clr::MemoryPool>& PoolTable::DefaultLocked(int device) {
  std::shared_ptr<clr::MemoryPool>& pool = defaults_[device];
  if (pool == nullptr) {
    pool = std::make_shared<clr::MemoryPool>(context_, context_.devices()[device]);
    has_pools_.store(true, std::memory_order_release);
  }
  return pool;
}

std::vector<std::shared_ptr<clr::MemoryPool>> PoolTable::AllLocked() const {
  std::vector<std::shared_ptr<clr::MemoryPool>> all;
  for (const auto& p : defaults_) {
    if (p != nullptr) all.push_back(p);
  }
  for (const auto& [h, p] : created_) all.push_back(p);
  for (const auto& p : retired_) all.push_back(p);
  return all;
}

std::vector<std::shared_ptr<clr::MemoryPool>> PoolTable::All() const {
  if (!has_pools_.load(std::memory_order_acquire)) return {};
  LightLock lock(&mu_);
  return AllLocked();
}

absl::StatusOr<MemPoolHandle> PoolTable::DefaultPool(int device) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return InvalidDeviceError(absl::StrCat("hipDeviceGetDefaultMemPool: device ", device, " out of range"));
  }
  LightLock lock(&mu_);
  return HandleOf(DefaultLocked(device).get());
}

absl::StatusOr<MemPoolHandle> PoolTable::CurrentPool(int device) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceGetMemPool: device ", device, " out of range"));
  }
  LightLock lock(&mu_);
  if (current_[device] != nullptr) return HandleOf(current_[device]);
  return HandleOf(DefaultLocked(device).get());
}

absl::Status PoolTable::SetCurrentPool(int device, MemPoolHandle pool) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetMemPool: device ", device, " out of range"));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<clr::MemoryPool> p, Find(pool));
  if (p->device().ordinal != device) {
    return InvalidDeviceError(absl::StrCat("hipDeviceSetMemPool: pool ", HandleText(pool), " belongs to device ",
                                           p->device().ordinal, ", not ", device));
  }
  LightLock lock(&mu_);
  // Destroyed meanwhile: the device keeps the pool it had.
  if (p != defaults_[device] && !created_.contains(pool.raw())) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetMemPool: pool ", HandleText(pool), " is not live"));
  }
  current_[device] = p == defaults_[device] ? nullptr : p.get();
  return absl::OkStatus();
}

const std::shared_ptr<clr::MemoryPool>& PoolTable::CurrentLocked(int device) {
  if (current_[device] != nullptr) {
    auto it = created_.find(HandleOf(current_[device]).raw());
    if (it != created_.end()) return it->second;
  }
  return DefaultLocked(device);
}

absl::StatusOr<std::shared_ptr<clr::MemoryPool>> PoolTable::CurrentPoolOf(int device) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return absl::InvalidArgumentError(absl::StrCat("hipMallocAsync: device ", device, " out of range"));
  }
  LightLock lock(&mu_);
  return CurrentLocked(device);
}

absl::StatusOr<DeviceAddress> PoolTable::AllocateFromCurrent(int device, Bytes size, clr::Stream& stream) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return absl::InvalidArgumentError(absl::StrCat("hipMallocAsync: device ", device, " out of range"));
  }
  std::shared_ptr<clr::MemoryPool> pool;
  {
    LightLock lock(&mu_);
    const std::shared_ptr<clr::MemoryPool>& current = CurrentLocked(device);
    // The table's lock keeps the pool alive while it serves a hit (Destroy takes the lock first).
    if (std::optional<DeviceAddress> hit = current->TryAllocateCached(size, stream); hit.has_value()) return *hit;
    pool = current;
  }
  // A miss may allocate from the device: outside the table's lock.
  return pool->Allocate(size, stream);
}

absl::StatusOr<MemPoolHandle> PoolTable::Create(int device, std::optional<Bytes> max_size) {
  if (device < 0 || static_cast<size_t>(device) >= context_.devices().size()) {
    return absl::InvalidArgumentError(absl::StrCat("hipMemPoolCreate: device ", device, " out of range"));
  }
  auto pool = std::make_shared<clr::MemoryPool>(context_, context_.devices()[device], max_size);
  const MemPoolHandle handle = HandleOf(pool.get());
  LightLock lock(&mu_);
  created_.emplace(handle.raw(), std::move(pool));
  has_pools_.store(true, std::memory_order_release);
  return handle;
}

absl::Status PoolTable::Destroy(MemPoolHandle handle) {
  std::shared_ptr<clr::MemoryPool> pool;
  {
    LightLock lock(&mu_);
    auto it = created_.find(handle.raw());
    if (it == created_.end()) {
      for (const auto& d : defaults_) {
        if (d != nullptr && HandleOf(d.get()) == handle) {
          return absl::InvalidArgumentError(
              absl::StrCat("hipMemPoolDestroy(", HandleText(handle), "): a device's default pool"));
        }
      }
      return absl::InvalidArgumentError(absl::StrCat("hipMemPoolDestroy(", HandleText(handle), "): unknown pool"));
    }
    pool = std::move(it->second);
    created_.erase(it);
    for (clr::MemoryPool*& current : current_) {
      if (current == pool.get()) current = nullptr;
    }
    if (pool->busy_block_count() > 0) retired_.push_back(pool);
  }
  // Free blocks whose work is still queued go when the pool does (its destructor waits for them).
  return pool->TrimTo(Bytes(0));
}

absl::StatusOr<std::shared_ptr<clr::MemoryPool>> PoolTable::Find(MemPoolHandle handle) {
  LightLock lock(&mu_);
  if (auto it = created_.find(handle.raw()); it != created_.end()) return it->second;
  for (const auto& d : defaults_) {
    if (d != nullptr && HandleOf(d.get()) == handle) return d;
  }
  return absl::InvalidArgumentError(absl::StrCat("memory pool ", HandleText(handle), ": unknown pool"));
}

absl::Status PoolTable::Free(void* ptr, clr::Stream* stream) {
  const DeviceAddress base = DeviceAddress::FromPointer(ptr);
  std::shared_ptr<clr::MemoryPool> owner;
  {
    // Searched in place, and a free on an idle stream done in place: the hit path (hipMallocAsync +
    // hipFreeAsync) takes one lock of the table and one of the pool.
    LightLock lock(&mu_);
    auto try_pool = [&](const std::shared_ptr<clr::MemoryPool>& pool) -> std::optional<absl::Status> {
      if (pool == nullptr) return std::nullopt;
      absl::StatusOr<bool> freed = pool->FreeIfIdle(base, stream);
      if (absl::IsNotFound(freed.status())) return std::nullopt;
      if (!freed.ok()) return freed.status();
      if (*freed) return absl::OkStatus();
      owner = pool;  // needs a mark: recorded outside the table's lock
      return absl::OkStatus();
    };
    for (const auto& p : defaults_) {
      if (std::optional<absl::Status> done = try_pool(p); done.has_value()) {
        if (owner == nullptr) return *done;
        break;
      }
    }
    for (auto it = created_.begin(); owner == nullptr && it != created_.end(); ++it) {
      if (std::optional<absl::Status> done = try_pool(it->second); done.has_value() && owner == nullptr) return *done;
    }
    for (auto it = retired_.begin(); owner == nullptr && it != retired_.end(); ++it) {
      if (std::optional<absl::Status> done = try_pool(*it); done.has_value() && owner == nullptr) return *done;
    }
  }
  if (owner == nullptr) {
    return absl::NotFoundError(absl::StrCat("hipFreeAsync(", AddressText(base), "): not pool memory"));
  }
  return owner->Free(base, stream);
}

bool PoolTable::Owns(const void* ptr) { return Classify(ptr) == Hold::kBusy; }

PoolTable::Hold PoolTable::Classify(const void* ptr) {
  if (!has_pools_.load(std::memory_order_acquire)) return Hold::kNone;
  const DeviceAddress address = DeviceAddress::FromPointer(const_cast<void*>(ptr));
  // In place under the table's lock (then each pool's, the order Free takes them): no copy of the pool list.
  LightLock lock(&mu_);
  Hold hold = Hold::kNone;
  auto look = [&](const std::shared_ptr<clr::MemoryPool>& pool) {
    if (pool == nullptr || hold == Hold::kBusy) return;
    if (pool->OwnsBusy(address)) {
      hold = Hold::kBusy;
    } else if (hold == Hold::kNone && pool->Holds(address)) {
      hold = Hold::kPool;
    }
  };
  for (const auto& p : defaults_) look(p);
  for (const auto& [h, p] : created_) look(p);
  for (const auto& p : retired_) look(p);
  return hold;
}

void PoolTable::AddSafeStream(const clr::Stream& waiter, const clr::Stream& origin, uint64_t event_tick) {
  for (const std::shared_ptr<clr::MemoryPool>& pool : All()) pool->AddSafeStream(waiter, origin, event_tick);
}

void PoolTable::ForgetStream(const clr::Stream* stream) {
  for (const std::shared_ptr<clr::MemoryPool>& pool : All()) pool->ForgetStream(stream);
}

absl::Status PoolTable::ReleaseFreed() {
  absl::Status first;
  for (const std::shared_ptr<clr::MemoryPool>& pool : All()) first.Update(pool->ReleaseFreed());
  return first;
}

void PoolTable::DropDevice(int device) {
  std::vector<std::shared_ptr<clr::MemoryPool>> dropped;
  {
    LightLock lock(&mu_);
    if (device < 0 || static_cast<size_t>(device) >= defaults_.size()) return;
    if (defaults_[device] != nullptr) dropped.push_back(std::move(defaults_[device]));
    defaults_[device] = nullptr;
    current_[device] = nullptr;
    for (auto it = created_.begin(); it != created_.end();) {
      if (it->second->device().ordinal == device) {
        dropped.push_back(std::move(it->second));
        created_.erase(it++);
      } else {
        ++it;
      }
    }
    for (auto it = retired_.begin(); it != retired_.end();) {
      if ((*it)->device().ordinal == device) {
        dropped.push_back(std::move(*it));
        it = retired_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // `dropped` goes here, outside the lock: each pool frees its blocks.
}

absl::Status PoolTable::SetAttribute(MemPoolHandle handle, PoolAttr attr, const void* value) {
  ASSIGN_OR_RETURN(std::shared_ptr<clr::MemoryPool> pool, Find(handle));
  const std::string what = absl::StrCat("hipMemPoolSetAttribute(", HandleText(handle), ", ", static_cast<int>(attr), ")");
  clr::PoolReusePolicy policy = pool->policy();
  int32_t flag = 0;
  uint64_t bytes = 0;
  switch (attr) {
    case PoolAttr::kReuseFollowEventDependencies:
    case PoolAttr::kReuseAllowOpportunistic:
    case PoolAttr::kReuseAllowInternalDependencies:
      std::memcpy(&flag, value, sizeof(flag));
      break;
    default:
      std::memcpy(&bytes, value, sizeof(bytes));
  }
  switch (attr) {
    case PoolAttr::kReuseFollowEventDependencies:
      policy.follow_event_dependencies = flag != 0;
      break;
    case PoolAttr::kReuseAllowOpportunistic:
      policy.allow_opportunistic = flag != 0;
      break;
    case PoolAttr::kReuseAllowInternalDependencies:
      policy.allow_internal_dependencies = flag != 0;
      break;
    case PoolAttr::kReleaseThreshold:
      policy.release_threshold = Bytes(bytes);
      break;
    case PoolAttr::kReservedMemHigh:
    case PoolAttr::kUsedMemHigh:
      if (bytes != 0) return absl::InvalidArgumentError(absl::StrCat(what, ": a high mark can only be reset to 0"));
      if (attr == PoolAttr::kReservedMemHigh) {
        pool->ResetReservedHigh();
      } else {
        pool->ResetUsedHigh();
      }
      return absl::OkStatus();
    case PoolAttr::kReservedMemCurrent:
    case PoolAttr::kUsedMemCurrent:
      return absl::InvalidArgumentError(absl::StrCat(what, ": read-only"));
    default:
      return absl::InvalidArgumentError(absl::StrCat(what, ": unknown attribute"));
  }
  pool->set_policy(policy);
  return absl::OkStatus();
}

absl::Status PoolTable::GetAttribute(MemPoolHandle handle, PoolAttr attr, void* value) {
  ASSIGN_OR_RETURN(std::shared_ptr<clr::MemoryPool> pool, Find(handle));
  const clr::PoolReusePolicy policy = pool->policy();
  const clr::PoolUsage usage = pool->usage();
  auto put_flag = [value](bool on) {
    const int32_t v = on ? 1 : 0;
    std::memcpy(value, &v, sizeof(v));
  };
  auto put_bytes = [value](Bytes b) {
    const uint64_t v = b.raw();
    std::memcpy(value, &v, sizeof(v));
  };
  switch (attr) {
    case PoolAttr::kReuseFollowEventDependencies:
      put_flag(policy.follow_event_dependencies);
      break;
    case PoolAttr::kReuseAllowOpportunistic:
      put_flag(policy.allow_opportunistic);
      break;
    case PoolAttr::kReuseAllowInternalDependencies:
      put_flag(policy.allow_internal_dependencies);
      break;
    case PoolAttr::kReleaseThreshold:
      put_bytes(policy.release_threshold);
      break;
    case PoolAttr::kReservedMemCurrent:
      put_bytes(usage.reserved_current);
      break;
    case PoolAttr::kReservedMemHigh:
      put_bytes(usage.reserved_high);
      break;
    case PoolAttr::kUsedMemCurrent:
      put_bytes(usage.used_current);
      break;
    case PoolAttr::kUsedMemHigh:
      put_bytes(usage.used_high);
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("hipMemPoolGetAttribute(", HandleText(handle), ", ", static_cast<int>(attr), "): unknown attribute"));
  }
  return absl::OkStatus();
}

}  // namespace hipmem::hip
