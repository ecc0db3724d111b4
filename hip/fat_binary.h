// Clang's offload bundle: the fat binary a HIP-Clang build embeds in its host object (section .hip_fatbin) and the
// image hipModuleLoadData may be handed.
//
// Plays hipamd's FatBinaryInfo / CodeObject::extractCodeObjectFromFatBinary. The format is clang-offload-bundler's
// (uncompressed, as clang 19 writes it for HIP): the magic "__CLANG_OFFLOAD_BUNDLE__", a 64-bit entry count, then per
// entry a 64-bit offset (from the bundle's start), a 64-bit size, a 64-bit triple length and the triple's bytes (no
// NUL); the entries' contents follow. A HIP device entry's triple is "hipv4-amdgcn-amd-amdhsa--<target id>" (target
// id: processor plus features, "gfx90a:xnack-"); the host entry ("host-x86_64-unknown-linux--") is empty.
//
// The entries borrow the image: it must outlive them (a fat binary lives in the program's image until it is
// unregistered).
#ifndef HIPMEM_HIP_FAT_BINARY_H_
#define HIPMEM_HIP_FAT_BINARY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hipmem::hip {

inline constexpr char kOffloadBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";
// __hipRegisterFatBinary's argument: clang's wrapper around the bundle (magic "HIPF", version 1).
inline constexpr uint32_t kHipFatBinaryMagic = 0x48495046;

struct FatBinaryWrapper {
  uint32_t magic;
  uint32_t version;
  const void* binary;
  const void* unused;
};
static_assert(sizeof(FatBinaryWrapper) == 24);

struct BundleEntry {
  std::string triple;              // "hipv4-amdgcn-amd-amdhsa--gfx942"
  std::span<const uint8_t> bytes;  // borrowed from the bundle
};

// Whether `image` starts with the bundle magic.
bool IsOffloadBundle(const void* image);

// Reads the bundle at `image`. `size`, when known, bounds every read; a bundle from a loaded program's image
// (__hipRegisterFatBinary) has no recorded size and is trusted as the compiler wrote it. kInvalidArgument for a bad
// magic, an entry outside the known size, or an entry count or triple beyond sanity (more than 4096 entries, a
// triple over 4096 bytes).
absl::StatusOr<std::vector<BundleEntry>> ParseOffloadBundle(const void* image, std::optional<size_t> size);

// The AMDGPU code objects of a bundle for HIP, in bundle order: the non-empty entries whose triple names the amdgcn
// HSA target with a HIP offload kind ("hipv4-", or the older "hip-").
std::vector<std::span<const uint8_t>> HipCodeObjects(const std::vector<BundleEntry>& entries);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_FAT_BINARY_H_
