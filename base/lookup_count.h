// How many times this thread resolved an address to the object that lives there, in any layer.
//
// Issue #26 asks that a hipMemcpy look each pointer up once: resolved at the top into what the lower layers need,
// and never again below. Each layer's address query counts one lookup here -- CLR's object map (MemObjMap::Find),
// the HSA runtime's allocation map (FindPointer), the thunk's pointer queries (QueryPointerInfo, FindAllocation) --
// so a test can read the count around one call. A thread's own counter: a lookup costs one thread-local increment,
// and a test is not disturbed by other threads (a hipMemcpy resolves its pointers on the calling thread).
// Lookups a layer makes inside its own bookkeeping (the thunk finding a buffer to map it, say) are not counted.
#ifndef HIPMEM_BASE_LOOKUP_COUNT_H_
#define HIPMEM_BASE_LOOKUP_COUNT_H_

#include <cstdint>

namespace hipmem {

// Counts one address lookup on this thread.
void CountAddressLookup();
// The lookups counted on this thread so far.
uint64_t AddressLookupsOnThisThread();

}  // namespace hipmem

#endif  // HIPMEM_BASE_LOOKUP_COUNT_H_
