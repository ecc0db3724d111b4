#include "base/units.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hipmem {

std::string AddressText(DeviceAddress a) { return absl::StrCat("0x", absl::Hex(a.raw())); }
std::string AddressText(const void* p) { return AddressText(DeviceAddress::FromPointer(p)); }

}  // namespace hipmem
