// A strict reader of Chrome trace-event files (the "JSON Array Format" of the Trace Event Format document), for
// tests of HIPMEM_TRACE output. It parses the JSON itself (RFC 8259: no trailing commas, no comments, no NaN) and
// then checks the format's rules a viewer relies on:
//   - every event is an object with a string "name" and "ph", and integer "pid" and "tid";
//   - every event but metadata ("M") has a numeric "ts"; a complete event ("X") a numeric "dur" >= 0;
//   - complete events on one thread nest: two slices either are disjoint or one contains the other;
//   - flow events ("s", "t", "f") carry an "id"; per id, in time order, no step or end comes before a start; and
//     each flow point lies inside a complete event on its thread (the slice it binds to);
//   - "cat", where present, is one of the categories the caller allows.
#ifndef HIPMEM_TESTING_CHROME_TRACE_READER_H_
#define HIPMEM_TESTING_CHROME_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hipmem::testing {

struct TraceEvent {
  std::string name;
  std::string cat;
  std::string ph;
  double ts = 0;   // microseconds
  double dur = 0;  // microseconds, "X" only
  int64_t pid = 0;
  int64_t tid = 0;
  std::string id;  // flows
  std::string bp;
  std::map<std::string, std::string> args;  // string-valued arguments (others are rendered as JSON text)
};

// Parses `json` and checks the rules above. kInvalidArgument names the first violation.
absl::StatusOr<std::vector<TraceEvent>> ReadChromeTrace(absl::string_view json,
                                                        const std::set<std::string>& allowed_categories);

// The complete event directly enclosing `inner` on its thread (the deepest one that contains it), or null.
const TraceEvent* Parent(const std::vector<TraceEvent>& events, const TraceEvent& inner);

}  // namespace hipmem::testing

#endif  // HIPMEM_TESTING_CHROME_TRACE_READER_H_
