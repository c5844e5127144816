// profile_parts.hpp: a profile's parts as profile_export.cpp reads them
// (nodes, their calls and self costs), and what profile_stacks.cpp makes
// of each part: the stack and frame tables and the samples (the stack
// rules are in profile_export.hpp).
#pragma once

#include "pair_index.hpp"
#include "profile_export.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vgjit {
namespace exporting {

/// The calls from one node to another in one part: the line of the call
/// site in the caller (if all calls were made from one line).
struct Edge {
    std::size_t from = 0, to = 0;
    std::uint64_t site_line = 0;
    bool one_site = true;  ///< every call was made from site_line
};

/// A function of one part in one context (one fn=).
struct Node {
    std::string object, file;           // as the part names them
    const std::string* name = nullptr;  // with context: the key of Collector::nodes_
    std::uint64_t first_line = 0;
    std::size_t function = 0;  // set when the part has been read
    /// (line, cost of the event), in the order read; sorted by line, one
    /// entry a line, once the part has been read.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> self;
    std::uint64_t self_sum = 0;        // of the event
    std::size_t same_name = kNoStack;  // the node read before with the same name
    /// Per event of the part: self cost plus the inclusive cost of the
    /// node's calls, less the inclusive cost of the calls to it.  Every
    /// activation that was called is in a calls= line of its caller, so
    /// this is 0 unless some activation was not (the bottom of a stack, a
    /// thread's start): it is positive then.
    std::vector<__int128> unexplained;
};

/// One part as read.
struct RawPart {
    std::string thread = "1";
    std::string pid, command;  // the file's "pid:" and "cmd:" so far
    std::size_t file = 0;      // index into the paths converted
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    PairIndex edge_index;  // of edges, by (from, to)
    PairIndex::Key edge_key(std::size_t e) const { return {edges[e].from, edges[e].to}; }
    std::uint64_t sum = 0;  // of the event over the cost lines
    bool body = false, trailer = false;
};

/// Builds the stack and frame tables of a Converted, one entry per
/// distinct stack and frame.
class StackBuilder {
public:
    explicit StackBuilder(Converted& c) : c_(c) {}
    /// The index of frame `f` in c.frames, added if new.
    std::size_t frame(const Frame& f);
    /// The index in c.stack_table of the stack `parent` (kNoStack for a
    /// root) and frame `f`, added if new.
    std::size_t stack(std::size_t parent, const Frame& f);
    /// The function kUnknownCallers (made when first asked for).
    std::size_t marker();

private:
    Converted& c_;
    PairIndex frames_;  // of c_.frames, by (function, line)
    PairIndex stacks_;  // of c_.stack_table, by (parent, frame)
    std::size_t marker_ = kNoStack;
};

/// Converts one part into samples appended to `t`, its stacks and frames
/// to `sb`'s tables (the stack rules in profile_export.hpp); counts the
/// nodes whose stack has the marker and the self cost of the others in
/// c.ambiguous and c.exact_weight.
void convert_part(Converted& c, StackBuilder& sb, const RawPart& p, Thread& t);

}  // namespace exporting
}  // namespace vgjit
