// The node lists hsaKmt* calls take (NumberOfNodes, NodeArray), read as libhsakmt reads them. Private to the C shells.
#ifndef HIPMEM_THUNK_HSAKMT_NODE_ARRAY_H_
#define HIPMEM_THUNK_HSAKMT_NODE_ARRAY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// Returns the nodes of a required node list, or nullopt (INVALID_PARAMETER) when there is none.
// hsakmt_validate_nodeid_array takes the count as a uint32_t: a 64-bit NumberOfNodes is truncated to its low 32
// bits, so 1 << 40 is an empty list (refused) and the array is never read past the truncated count.
inline std::optional<std::vector<NodeId>> RequiredNodeArray(HSAuint64 number_of_nodes, const HSAuint32* node_array) {
  const uint32_t count = static_cast<uint32_t>(number_of_nodes);
  if (count == 0 || node_array == nullptr) return std::nullopt;
  std::vector<NodeId> nodes;
  nodes.reserve(count);
  for (uint32_t i = 0; i < count; ++i) nodes.emplace_back(node_array[i]);
  return nodes;
}

// Returns the nodes of an optional node list: empty when neither a count nor an array is given, nullopt
// (INVALID_PARAMETER) when only one of them is (the count truncated as above).
inline std::optional<std::vector<NodeId>> OptionalNodeArray(HSAuint64 number_of_nodes, const HSAuint32* node_array) {
  if (node_array == nullptr && static_cast<uint32_t>(number_of_nodes) == 0) return std::vector<NodeId>();
  return RequiredNodeArray(number_of_nodes, node_array);
}

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_HSAKMT_NODE_ARRAY_H_
