// For tests that run uninstrumented programs (/bin/sh, Debian's rocminfo, programs built outside Bazel) on our
// libraries: under --config=asan or --config=tsan those libraries are instrumented, and the sanitizer's runtime must
// then be the first library of the program (LD_PRELOAD). Otherwise ASan aborts it with "ASan runtime does not come
// first", and TSan crashes in its first interceptor (a SEGV near 0x600000000008): the preload's own open/mmap
// wrappers would run, instrumented, before TSan's.
#ifndef HIPMEM_TESTING_SANITIZER_RUNTIME_H_
#define HIPMEM_TESTING_SANITIZER_RUNTIME_H_

#include <string>

namespace hipmem::testing {

// The path of the sanitizer runtime loaded in this process (libasan.so or libtsan.so), or empty when there is none
// (an uninstrumented build).
std::string LoadedSanitizerRuntime();

// Whether that runtime is ThreadSanitizer's. Some runs cannot be judged under it: TSan sees no synchronisation
// inside uninstrumented code (AMD's ROCr announcing a ring it wrote with a doorbell store reads as a race), the
// simulator's suppressions (engines/gfx9/tsan_suppressions.cc) are not seen when libtsan comes first in a
// preload list, and a shell with libtsan preloaded crashes at start (bash and dash, Debian bookworm's libtsan.so.2).
bool UnderThreadSanitizer();

}  // namespace hipmem::testing

#endif  // HIPMEM_TESTING_SANITIZER_RUNTIME_H_
