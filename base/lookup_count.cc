#include "base/lookup_count.h"

#include <cstdint>

namespace hipmem {
namespace {

// Defined here, not inline in the header, so that every library linked into one binary shares the one counter.
thread_local uint64_t t_lookups = 0;

}  // namespace

void CountAddressLookup() { ++t_lookups; }

uint64_t AddressLookupsOnThisThread() { return t_lookups; }

}  // namespace hipmem
