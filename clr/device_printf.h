// printf from device code, the host side: the buffer a dispatch of a printing kernel gets, and the decoding of what
// the kernel left in it into the text the host's printf would print.
//
// Plays CLR's printf support for HIP kernels (roc::PrintfDbg and the hostcall listener's printf service): the
// runtime hands a dispatch whose kernel metadata lists hidden_hostcall_buffer a buffer in that argument; the device
// functions clang's printf lowering calls (hip/include/hip/amd_detail/amd_device_printf.h, whose header comment
// documents the layout read here) append one record per printf call. Unlike CLR's hostcall listener, which prints
// while the kernel runs, the stream prints a dispatch's records once it sees the dispatch complete (Stream in
// stream.h): output answers after the kernel, as issue #23 allows.
//
// With -mprintf-kind=buffered the same buffer goes in hidden_printf_buffer and each record is one LLVM printf frame,
// whose constant format strings the code object's amdhsa.printf metadata holds (PrintfFormats).
//
// A full buffer drops whole records (the device writes nothing past its end); DecodePrintfBuffer counts them.
#ifndef HIPMEM_CLR_DEVICE_PRINTF_H_
#define HIPMEM_CLR_DEVICE_PRINTF_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsa/runtime.h"

namespace hipmem::clr {

// The buffer's layout (amd_device_printf.h): a header, then the chunks.
inline constexpr uint64_t kPrintfHeaderBytes = 32;
inline constexpr uint64_t kPrintfChunkHeadBytes = 16;
// The data area of each dispatch's buffer. CUDA's default printf FIFO is 1 MiB (hipLimitPrintfFifoSize is not
// settable here: hipDeviceSetLimit answers hipErrorUnsupportedLimit for it, as before).
inline constexpr uint64_t kPrintfDataBytes = 1 << 20;

// One argument of a printf call as the device recorded it: a 64-bit value (integers zero-extended from their
// width, float and double as a double's bits, pointers as addresses), or a string a %s took (nullopt: a null
// pointer).
struct PrintfArg {
  bool is_string = false;
  uint64_t value = 0;
  std::optional<std::string> string;

  static PrintfArg Value(uint64_t v) { return PrintfArg{false, v, std::nullopt}; }
  static PrintfArg String(std::optional<std::string> s) { return PrintfArg{true, 0, std::move(s)}; }
};

// `format` with `args`, as the host's printf prints it: conversions d i u o x X c s f F e E g G a A p n and %%,
// flags (- + space # 0), widths and precisions (digits or *, taken from the arguments as int), length modifiers
// (hh h l ll j z t q L; each integer value is cut to the width the modifier names before it is printed, since the
// device widened it). %n writes nothing. A conversion whose argument is missing, or is a string where a value is
// due (or the reverse), and a malformed conversion print as their text. A null %s prints "(null)", as glibc does.
// Widths and precisions above 1 MiB are cut to it.
std::string FormatPrintf(std::string_view format, std::span<const PrintfArg> args);

// The constant format strings of a code object's buffered printf calls, by the 64-bit hash its frames carry.
using PrintfFormats = absl::flat_hash_map<uint64_t, std::string>;

// Reads amdhsa.printf's entries ("<id>:<argument sizes>:<hash in hex>,<format>"); an entry of another shape is
// skipped (its frames then count as dropped).
PrintfFormats ParsePrintfFormats(std::span<const std::string> entries);

// What a dispatch's buffer held.
struct PrintfOutput {
  std::string text;           // every whole record for stdout, formatted, in record order
  std::string error_text;     // likewise the records for stderr (a failed device assert's message)
  uint64_t records = 0;       // the records printed
  uint64_t dropped = 0;       // printf calls whose record did not fit (or was left incomplete)
};

// Decodes a buffer (header and data area, as the device left it after the dispatch completed). Never reads past
// `buffer`, whatever it holds: a damaged chunk ends the decoding, and its record and the ones after it count as
// dropped. `formats` resolves buffered-printf frames (null: they count as dropped).
PrintfOutput DecodePrintfBuffer(std::span<const uint8_t> buffer, const PrintfFormats* formats = nullptr);

// One dispatch's buffer in fine-grained system memory (the GPU writes it, the host reads it in place after the
// dispatch completes). Move-only; frees the memory.
class PrintfBuffer {
 public:
  // A buffer from `pool` of `runtime`, which must outlive it, with kPrintfDataBytes of data area, ready for a
  // dispatch. Errors: the allocator's.
  static absl::StatusOr<PrintfBuffer> Create(hsa::Runtime& runtime, hsa::PoolId pool);
  PrintfBuffer(PrintfBuffer&& other) noexcept = default;
  PrintfBuffer& operator=(PrintfBuffer&& other) noexcept = default;

  // The address the kernel's hidden_hostcall_buffer argument gets.
  DeviceAddress address() const { return memory_.address(); }
  // The format strings of the dispatch's code object, for a kernel built with -mprintf-kind=buffered.
  void set_formats(std::shared_ptr<const PrintfFormats> formats) { formats_ = std::move(formats); }
  // What the finished dispatch left.
  PrintfOutput Decode() const;
  // Empties the buffer for another dispatch (clears the header, the part of the data area the last one used and
  // the formats).
  void Reset();

 private:
  explicit PrintfBuffer(hsa::PoolAllocation memory) : memory_(std::move(memory)) {}
  std::span<uint8_t> bytes() const;

  hsa::PoolAllocation memory_;
  std::shared_ptr<const PrintfFormats> formats_;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_DEVICE_PRINTF_H_
