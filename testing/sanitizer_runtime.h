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

}  // namespace hipmem::testing

#endif  // HIPMEM_TESTING_SANITIZER_RUNTIME_H_
