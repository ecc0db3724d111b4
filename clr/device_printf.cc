#include "clr/device_printf.h"

#include <sys/types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include "base/log.h"

namespace hipmem::clr {
namespace {

// Bounds a device-chosen width or precision, so a stray `*` argument cannot make the host allocate gigabytes.
constexpr int kMaxFieldWidth = 1 << 20;

// The length modifiers C99 and glibc know, as their effect on the printed value.
enum class Length { kNone, kChar, kShort, kLong, kLongLong, kIntMax, kSize, kPtrDiff, kLongDouble };

// One conversion specification, parsed: `%[flags][width][.precision][length]conversion`.
struct Spec {
  std::string flags;
  bool width_star = false;
  std::optional<int> width;
  bool precision_star = false;
  std::optional<int> precision;  // nullopt: none given ("%.d" gives 0)
  Length length = Length::kNone;
  char conversion = 0;
};

// Parses the specification after a '%' at `format[i]`; on success `i` is past the conversion character.
std::optional<Spec> ParseSpec(std::string_view format, size_t& i) {
  Spec spec;
  auto more = [&] { return i < format.size(); };
  while (more() && std::strchr("-+ #0'", format[i]) != nullptr) spec.flags += format[i++];
  auto number = [&]() {
    int value = 0;
    while (more() && format[i] >= '0' && format[i] <= '9') {
      value = std::min(value * 10 + (format[i++] - '0'), kMaxFieldWidth);
    }
    return value;
  };
  if (more() && format[i] == '*') {
    spec.width_star = true;
    ++i;
  } else if (more() && format[i] >= '1' && format[i] <= '9') {
    spec.width = number();
  }
  if (more() && format[i] == '.') {
    ++i;
    if (more() && format[i] == '*') {
      spec.precision_star = true;
      ++i;
    } else {
      spec.precision = number();
    }
  }
  if (more()) {
    switch (format[i]) {
      case 'h':
        ++i;
        spec.length = Length::kShort;
        if (more() && format[i] == 'h') {
          ++i;
          spec.length = Length::kChar;
        }
        break;
      case 'l':
        ++i;
        spec.length = Length::kLong;
        if (more() && format[i] == 'l') {
          ++i;
          spec.length = Length::kLongLong;
        }
        break;
      case 'q': ++i; spec.length = Length::kLongLong; break;
      case 'j': ++i; spec.length = Length::kIntMax; break;
      case 'z': ++i; spec.length = Length::kSize; break;
      case 't': ++i; spec.length = Length::kPtrDiff; break;
      case 'L': ++i; spec.length = Length::kLongDouble; break;
      default: break;
    }
  }
  if (!more() || std::strchr("diouxXcsfFeEgGaApn", format[i]) == nullptr || format[i] == '\0') return std::nullopt;
  spec.conversion = format[i++];
  return spec;
}

// Appends snprintf(`spec`, value) to `out`: the host's own printf does the formatting.
template <typename T>
void AppendFormatted(std::string& out, const std::string& spec, T value) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int size = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (size <= 0) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(size) + 1);
  std::snprintf(out.data() + at, static_cast<size_t>(size) + 1, spec.c_str(), value);
  out.resize(at + static_cast<size_t>(size));
#pragma GCC diagnostic pop
}

// The signed value a length modifier names, from the device's widened bits.
long long SignedOf(uint64_t bits, Length length) {
  switch (length) {
    case Length::kChar: return static_cast<signed char>(bits);
    case Length::kShort: return static_cast<short>(bits);
    case Length::kNone: return static_cast<int>(bits);
    case Length::kLong: return static_cast<long>(bits);
    case Length::kSize: return static_cast<ssize_t>(bits);
    case Length::kPtrDiff: return static_cast<ptrdiff_t>(bits);
    case Length::kIntMax: return static_cast<intmax_t>(bits);
    default: return static_cast<long long>(bits);
  }
}

unsigned long long UnsignedOf(uint64_t bits, Length length) {
  switch (length) {
    case Length::kChar: return static_cast<unsigned char>(bits);
    case Length::kShort: return static_cast<unsigned short>(bits);
    case Length::kNone: return static_cast<unsigned int>(bits);
    case Length::kLong: return static_cast<unsigned long>(bits);
    case Length::kSize: return static_cast<size_t>(bits);
    case Length::kPtrDiff: return static_cast<uint64_t>(static_cast<ptrdiff_t>(bits));
    case Length::kIntMax: return static_cast<uintmax_t>(bits);
    default: return static_cast<unsigned long long>(bits);
  }
}

}  // namespace

std::string FormatPrintf(std::string_view format, std::span<const PrintfArg> args) {
  std::string out;
  size_t next_arg = 0;
  auto take_value = [&]() -> std::optional<uint64_t> {
    if (next_arg >= args.size() || args[next_arg].is_string) return std::nullopt;
    return args[next_arg++].value;
  };
  size_t i = 0;
  while (i < format.size()) {
    const size_t percent = format.find('%', i);
    if (percent == std::string_view::npos) {
      out.append(format.substr(i));
      break;
    }
    out.append(format.substr(i, percent - i));
    if (percent + 1 < format.size() && format[percent + 1] == '%') {
      out += '%';
      i = percent + 2;
      continue;
    }
    size_t end = percent + 1;
    std::optional<Spec> spec = ParseSpec(format, end);
    const std::string_view text = format.substr(percent, end - percent);
    i = end;
    if (!spec.has_value()) {
      out.append(text);
      continue;
    }
    // Resolve `*` from the arguments (as int, as C does): a negative width is the '-' flag, a negative precision
    // none at all.
    const size_t first_arg = next_arg;
    bool missing = false;
    if (spec->width_star) {
      if (std::optional<uint64_t> w = take_value(); w.has_value()) {
        int width = static_cast<int>(*w);
        if (width < 0) {
          spec->flags += '-';
          width = width == INT32_MIN ? kMaxFieldWidth : -width;
        }
        spec->width = std::min(width, kMaxFieldWidth);
      } else {
        missing = true;
      }
    }
    if (spec->precision_star && !missing) {
      if (std::optional<uint64_t> p = take_value(); p.has_value()) {
        const int precision = static_cast<int>(*p);
        if (precision >= 0) spec->precision = std::min(precision, kMaxFieldWidth);
      } else {
        missing = true;
      }
    }
    const char c = spec->conversion;
    const bool wants_string = c == 's';
    if (!missing && (next_arg >= args.size() || args[next_arg].is_string != wants_string)) missing = true;
    if (missing) {
      next_arg = first_arg;
      out.append(text);
      continue;
    }
    const PrintfArg& arg = args[next_arg++];
    if (c == 'n') continue;  // nothing to print, nowhere to store the count
    // The specification as the host's snprintf takes it: the resolved width and precision, and the length
    // modifier of the C type the value is passed as (the value is cut to the modifier's width first).
    std::string host = "%" + spec->flags;
    if (spec->width.has_value()) host += std::to_string(*spec->width);
    if (spec->precision.has_value()) host += "." + std::to_string(*spec->precision);
    switch (c) {
      case 'd':
      case 'i':
        AppendFormatted(out, host + "ll" + c, SignedOf(arg.value, spec->length));
        break;
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        AppendFormatted(out, host + "ll" + c, UnsignedOf(arg.value, spec->length));
        break;
      case 'c':
        // %lc takes a wint_t; the device widened either to 64 bits. Printed as a byte, as clang passes a char.
        AppendFormatted(out, host + 'c', static_cast<int>(static_cast<unsigned char>(arg.value)));
        break;
      case 'p':
        AppendFormatted(out, host + 'p', reinterpret_cast<const void*>(static_cast<uintptr_t>(arg.value)));
        break;
      case 's':
        AppendFormatted(out, host + 's', arg.string.has_value() ? arg.string->c_str() : "(null)");
        break;
      default: {
        // f F e E g G a A: the device promoted float to double; long double never reaches the device (%Lf prints
        // the double the bits hold).
        double value;
        static_assert(sizeof(value) == sizeof(arg.value));
        std::memcpy(&value, &arg.value, sizeof(value));
        AppendFormatted(out, host + c, value);
        break;
      }
    }
  }
  return out;
}

namespace {

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

struct Chunk {
  uint16_t index;
  uint8_t kind;  // 1: string, 2: arguments
  bool last;
  bool to_stderr;  // the record's chunks all say so; its first decides
  std::span<const uint8_t> payload;
  uint32_t count;
};

constexpr uint8_t kStringChunk = 1;
constexpr uint8_t kArgsChunk = 2;
constexpr uint8_t kFrameChunk = 3;

// A NUL-terminated string at `at` of `bytes`, stepping `at` past it and its padding to 8 bytes; nullopt when no NUL
// ends it inside `bytes`.
std::optional<std::string> InlineString(std::span<const uint8_t> bytes, size_t& at) {
  if (at >= bytes.size()) return std::nullopt;
  const auto* begin = reinterpret_cast<const char*>(bytes.data() + at);
  const size_t length = strnlen(begin, bytes.size() - at);
  if (length == bytes.size() - at) return std::nullopt;
  at += (length + 1 + 7) & ~size_t{7};
  return std::string(begin, length);
}

// One LLVM buffered-printf frame: the control dword (size << 2, bit 1 for a constant format), the format's hash
// (constant) or the format inline, then the arguments the format's conversions take, in order: 8 bytes each (a `*`
// too), %s strings inline when the format was constant (LLVM only finds the %s of a constant format; otherwise
// the frame holds the pointer, which prints as the conversion's text). nullopt when the format is unknown or the
// frame is malformed.
std::optional<std::string> FormatFrame(std::span<const uint8_t> frame, const PrintfFormats* formats) {
  if (frame.size() < 4) return std::nullopt;
  const uint32_t control = Load<uint32_t>(frame, 0);
  frame = frame.first(std::min<size_t>(control >> 2, frame.size()));
  const bool constant = (control & 2) != 0;
  size_t at = 4;
  std::string format;
  if (constant) {
    if (formats == nullptr || at + 8 > frame.size()) return std::nullopt;
    const auto it = formats->find(Load<uint64_t>(frame, at));
    if (it == formats->end()) return std::nullopt;
    format = it->second;
    at += 8;
  } else {
    std::optional<std::string> inline_format = InlineString(frame, at);
    if (!inline_format.has_value()) return std::nullopt;
    format = std::move(*inline_format);
  }
  std::vector<PrintfArg> args;
  auto value = [&] {
    if (at + 8 > frame.size()) return false;
    args.push_back(PrintfArg::Value(Load<uint64_t>(frame, at)));
    at += 8;
    return true;
  };
  for (size_t i = format.find('%'); i != std::string::npos; i = format.find('%', i)) {
    if (i + 1 < format.size() && format[i + 1] == '%') {
      i += 2;
      continue;
    }
    size_t end = i + 1;
    const std::optional<Spec> spec = ParseSpec(format, end);
    i = end;
    if (!spec.has_value()) continue;
    if (spec->width_star && !value()) break;
    if (spec->precision_star && !value()) break;
    if (spec->conversion == 's' && constant) {
      std::optional<std::string> string = InlineString(frame, at);
      if (!string.has_value()) break;
      args.push_back(PrintfArg::String(std::move(string)));
    } else if (!value()) {
      break;
    }
  }
  return FormatPrintf(format, args);
}

// The record's text, or nullopt when it is not whole (a chunk missing, out of order, or of the wrong kind).
std::optional<std::string> FormatRecord(const std::vector<Chunk>& chunks, const PrintfFormats* formats) {
  if (chunks.size() == 1 && chunks[0].kind == kFrameChunk && chunks[0].index == 0 && chunks[0].last) {
    return FormatFrame(chunks[0].payload, formats);
  }
  if (chunks.empty() || !chunks.back().last || chunks.front().kind != kStringChunk) return std::nullopt;
  std::vector<PrintfArg> args;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& chunk = chunks[k];
    if (chunk.index != k || (chunk.last && k + 1 != chunks.size())) return std::nullopt;
    if (k == 0) continue;
    if (chunk.kind == kStringChunk) {
      if (chunk.payload.empty()) {
        args.push_back(PrintfArg::String(std::nullopt));
      } else {
        // Up to the first NUL: the device copied the string with its terminator.
        const char* text = reinterpret_cast<const char*>(chunk.payload.data());
        args.push_back(PrintfArg::String(std::string(text, strnlen(text, chunk.payload.size()))));
      }
    } else {
      for (uint32_t a = 0; a < chunk.count; ++a) args.push_back(PrintfArg::Value(Load<uint64_t>(chunk.payload, 8 * a)));
    }
  }
  const std::span<const uint8_t> format = chunks.front().payload;
  if (format.empty()) return std::string();  // printf(NULL): nothing
  const char* text = reinterpret_cast<const char*>(format.data());
  return FormatPrintf(std::string_view(text, strnlen(text, format.size())), args);
}

}  // namespace

PrintfFormats ParsePrintfFormats(std::span<const std::string> entries) {
  PrintfFormats formats;
  for (const std::string& entry : entries) {
    // "<id>:<sizes>:<hash>," then the format, which may hold colons and commas of its own.
    const size_t first = entry.find(':');
    const size_t second = first == std::string::npos ? first : entry.find(':', first + 1);
    const size_t comma = second == std::string::npos ? second : entry.find(',', second + 1);
    if (comma == std::string::npos || comma == second + 1 || comma - second - 1 > 16) continue;
    uint64_t hash = 0;
    bool hex = true;
    for (size_t k = second + 1; k < comma; ++k) {
      const char c = entry[k];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) hex = false;
      hash = hash << 4 | static_cast<uint64_t>(digit & 0xf);
    }
    if (hex) formats.emplace(hash, entry.substr(comma + 1));
  }
  return formats;
}

PrintfOutput DecodePrintfBuffer(std::span<const uint8_t> buffer, const PrintfFormats* formats) {
  PrintfOutput output;
  if (buffer.size() < kPrintfHeaderBytes) return output;
  const uint64_t used = Load<uint64_t>(buffer, 0);
  const uint64_t capacity = Load<uint64_t>(buffer, 8);
  const uint32_t handed_out = Load<uint32_t>(buffer, 16);
  const std::span<const uint8_t> data = buffer.subspan(kPrintfHeaderBytes);
  const uint64_t end = std::min({used, capacity, static_cast<uint64_t>(data.size())});
  // Chunks by record, each record's in buffer order (one work-item appends a record's chunks one after the other,
  // each at a higher offset than the one before).
  std::map<uint32_t, std::vector<Chunk>> records;
  uint64_t at = 0;
  while (at + kPrintfChunkHeadBytes <= end) {
    const uint32_t record = Load<uint32_t>(data, at);
    const uint8_t flags = Load<uint8_t>(data, at + 7);
    const Chunk head{Load<uint16_t>(data, at + 4), Load<uint8_t>(data, at + 6), (flags & 1) != 0, (flags & 2) != 0,
                     {}, Load<uint32_t>(data, at + 12)};
    const uint32_t bytes = Load<uint32_t>(data, at + 8);
    const uint64_t padded = (uint64_t{bytes} + 7) & ~uint64_t{7};
    const bool well_formed = record != 0 && (head.kind == kStringChunk || head.kind == kFrameChunk ? head.count == 0
                                             : head.kind == kArgsChunk ? head.count <= 7 && bytes == 8 * head.count
                                                                       : false);
    if (!well_formed || padded > end - at - kPrintfChunkHeadBytes) break;  // damaged, or never written: stop here
    Chunk chunk = head;
    chunk.payload = data.subspan(at + kPrintfChunkHeadBytes, bytes);
    records[record].push_back(chunk);
    at += kPrintfChunkHeadBytes + padded;
  }
  for (const auto& [record, chunks] : records) {
    if (std::optional<std::string> text = FormatRecord(chunks, formats); text.has_value()) {
      (chunks.front().to_stderr ? output.error_text : output.text) += *text;
      ++output.records;
    }
  }
  output.dropped = handed_out > output.records ? handed_out - output.records : 0;
  return output;
}

absl::StatusOr<PrintfBuffer> PrintfBuffer::Create(hsa::Runtime& runtime, hsa::PoolId pool) {
  absl::StatusOr<hsa::PoolAllocation> memory = runtime.Allocate(pool, Bytes(kPrintfHeaderBytes + kPrintfDataBytes));
  if (!memory.ok()) return memory.status();
  PrintfBuffer buffer(*std::move(memory));
  std::memset(buffer.bytes().data(), 0, buffer.bytes().size());
  const uint64_t capacity = kPrintfDataBytes;
  std::memcpy(buffer.bytes().data() + 8, &capacity, sizeof(capacity));
  return buffer;
}

std::span<uint8_t> PrintfBuffer::bytes() const {
  return {static_cast<uint8_t*>(memory_.pointer()), kPrintfHeaderBytes + kPrintfDataBytes};
}

PrintfOutput PrintfBuffer::Decode() const { return DecodePrintfBuffer(bytes(), formats_.get()); }

void PrintfBuffer::Reset() {
  const std::span<uint8_t> all = bytes();
  const uint64_t used = std::min(Load<uint64_t>(all, 0), kPrintfDataBytes);
  std::memset(all.data() + kPrintfHeaderBytes, 0, used);
  std::memset(all.data(), 0, 8);        // used
  std::memset(all.data() + 16, 0, 16);  // records and the reserved words
  formats_.reset();
}

}  // namespace hipmem::clr
