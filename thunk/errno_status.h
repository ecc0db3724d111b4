// Adapter: kernel errno <-> absl::Status.
//
// The thunk's ioctl wrapper turns a failed KFD ioctl's errno into a Status here, and the simulator
// tests turn Statuses back. FromErrno keeps the raw errno in a payload, so ToErrno(FromErrno(e)) == e
// for every errno, including ones this table does not know. The table is this adapter's; the
// conversions are base/status_adapter.h's. The one errno-only rule: FromErrno takes either sign.
#ifndef HIPMEM_THUNK_ERRNO_STATUS_H_
#define HIPMEM_THUNK_ERRNO_STATUS_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hipmem::thunk {

// Payload type URL holding the decimal errno.
inline constexpr absl::string_view kErrnoPayloadUrl = "hipmem/errno";

// Returns OK for 0, else a Status with the errno's canonical code, "<context>: <errno name>" as
// message ("errno <n>" for an errno the table does not know), and the errno in a payload. A negative
// `errnum` (a kernel or libdrm return) is negated.
absl::Status FromErrno(int errnum, absl::string_view context);

// Returns the errno a Status stands for: its payload if it has one, else the preferred errno of its
// canonical code (EIO for codes with no better match); 0 for OK.
int ToErrno(const absl::Status& status);

// Returns the errno stored in the payload, if any (a stored 0 is none: a failed Status never reads
// as success).
std::optional<int> ErrnoOf(const absl::Status& status);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_ERRNO_STATUS_H_
