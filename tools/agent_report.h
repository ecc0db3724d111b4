// The system and agent sections of rocminfo, produced through the public HSA C API as rocminfo does: for every agent, each
// attribute rocminfo prints, then its memory pools and its ISAs, one "Label: value" per line with rocminfo's
// labels, value formats and indentation. `hipmem info` prints it.
#ifndef HIPMEM_TOOLS_AGENT_REPORT_H_
#define HIPMEM_TOOLS_AGENT_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

namespace hipmem::tools {

// Returns the report for every agent of the open HSA runtime (hsa_init must have succeeded).
// Errors: kInternal naming the first query that failed and its hsa_status_t.
absl::StatusOr<std::string> AgentReport();

// Returns rocminfo's "HSA System Attributes" lines (runtime and extension versions, timestamp frequency, signal
// wait limit, machine model, endianness, MWAITX, XNACK, DMA-buf and VMM support). Errors as AgentReport.
absl::StatusOr<std::string> SystemReport();

}  // namespace hipmem::tools

#endif  // HIPMEM_TOOLS_AGENT_REPORT_H_
