// ThreadSanitizer's view of the simulated GPU's memory: only built into TSan builds (.bazelrc --config=tsan).
//
// A kernel's waves run on host threads and share the GPU's memory through plain host loads and stores, as the GPU's
// own memory model allows: a wave may read a word while another wave updates it atomically (a grid barrier's poll,
// a spin lock), and what it sees is the kernel's business under the GPU's scopes and ordering, not a race in the
// simulator. Making every guest access a C++ atomic would slow every kernel to check only the kernel's own code, so
// races in which one side is the engine's guest access path are not reported. Races anywhere else -- the engine's
// own state, the runtime, the driver -- still are.
#if defined(__SANITIZE_THREAD__)  // GCC
#define HIPMEM_GFX9_TSAN 1
#elif defined(__has_feature)      // Clang
#if __has_feature(thread_sanitizer)
#define HIPMEM_GFX9_TSAN 1
#endif
#endif

#if defined(HIPMEM_GFX9_TSAN)

// The names alone, without their namespace: TSan may print an inlined frame by its short name. No other part of
// the tree uses them. The atomics are listed too: when TSan has lost the plain access's stack, the atomic side is
// all the report can be matched by.
extern "C" const char* __tsan_default_suppressions() {
  return "race:LoadWave\n"
         "race:LoadLanes\n"
         "race:StoreWave\n"
         "race:StoreLanes\n"
         "race:ReadSpan\n"
         "race:WriteSpan\n"
         "race:LaneRead\n"
         "race:LaneWrite\n"
         "race:AtomicAt\n"
         "race:AtomicLanes\n";
}

#endif
