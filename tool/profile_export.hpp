// profile_export.hpp: Callgrind and Cachegrind profiles as weighted stack
// samples, for `vg-jit export` (the Firefox Profiler's processed format and
// folded stacks) and its tests.
//
// A profile is read with callgrind::Reader (callgrind_format.hpp).  Each
// part (one per dump) becomes samples of one thread (Callgrind's
// "thread:" header; 1 without it), placed on a time line by the event's
// count: a part starts where the parts before it of the same thread ended.
//
// Stacks.  Each function of a part (one fn=, i.e. one context under
// --separate-callers) is a node; calls= lines are edges weighted by their
// inclusive cost.  A node's self cost, line by line, goes to the chains of
// callers that lead to it from a root (a node with no callers, or with
// more cost than its callers' calls bring in): along each chain the share
// of a node is the share of its caller times the edge's part of the
// node's inclusive cost.  A recursive call back into a node already on
// the chain is not followed (Callgrind's inclusive costs of recursive
// calls count the same cost twice; depths from --separate-recs on are one
// node).  Where a node is reached by one chain only (what
// --separate-callers=N with N at least the call depth gives: each context
// is called from one context) its samples are exact; a node reached by
// several chains has its cost split among them in proportion to the
// calls' inclusive costs, a guess that Stacks::Rebuilt reports (chains
// of one calling node that differ only in the line of the call count as
// one).  A chain that would carry less than half a count, or less than a
// millionth of the callee's cost, is not followed, nor is any past 4
// million stacks: a node no chain reached hangs under a chain of a caller
// that was reached.  Either way every line's self cost is
// given out whole, in integers (largest remainders), so the samples'
// weights add up to the parts' totals exactly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace vgjit {
namespace exporting {

/// What kind of code a function is, from its object and name.
enum class Kind {
    Jit,      ///< named by the JIT: an object that is not an ELF file path
              ///< (a client-request object "minijit:calls.mj", a jitdump
              ///< file, a perf map, a GDB JIT object, a --dump-jit-code file)
    Native,   ///< an ELF object (an absolute path to a file that is not a
              ///< jitdump file or perf map)
    Unnamed,  ///< address-named code ("0x0000000004855100") or object "???"
};

/// The category name of `k` ("JIT", "Native", "Unnamed").
const char* kind_name(Kind k);

/// One function, the same in every part: Callgrind's object (ob=, "" for
/// Cachegrind), source file (fl=, "???" if unknown) and name without
/// context or recursion suffix.
struct Function {
    std::string object, file, name;
    Kind kind = Kind::Native;
    std::uint64_t first_line = 0;  ///< smallest line with a cost (0: none)
};

/// One frame: a function at a source line (0: no line).
struct Frame {
    std::size_t function = 0;
    std::uint64_t line = 0;
    bool operator<(const Frame& o) const {
        return function != o.function ? function < o.function : line < o.line;
    }
};

/// A call stack in a prefix tree: `parent` is the index of the stack of
/// the caller (kNoStack for a root), `frame` the innermost frame.
/// Parents come before their children.
struct Stack {
    std::size_t parent = 0;
    std::size_t frame = 0;
};
constexpr std::size_t kNoStack = static_cast<std::size_t>(-1);

/// A weighted sample at a position on the time line.
struct Sample {
    std::size_t stack = 0;
    std::uint64_t weight = 0;  ///< the event's count
    std::uint64_t time = 0;    ///< the event's count before it in its thread
};

/// One thread of the profile.
struct Thread {
    std::string id;                          ///< Callgrind's "thread:" value ("1" without)
    std::vector<Sample> samples;             ///< in time order
    std::uint64_t total = 0;                 ///< sum of the samples' weights
    std::vector<std::uint64_t> part_starts;  ///< time of each part's first sample
};

/// How the stacks were made.
enum class Stacks {
    Exact,    ///< every node was reached by one chain: the stacks are the program's
    Rebuilt,  ///< some node's cost was split among chains of callers (a guess)
    Flat,     ///< no call edges at all (Cachegrind): one frame per sample
};

/// Options of the conversion.
struct ExportOptions {
    std::string event = "Ir";  ///< the event whose counts are the weights
};

/// A profile converted into weighted stack samples.
struct Converted {
    std::string command;              ///< "cmd:" of the first part
    std::string pid;                  ///< "pid:" of the first part ("" if none)
    std::string creator;              ///< "creator:", e.g. "callgrind-3.27.1"
    std::string event;                ///< the event of the weights
    std::vector<std::string> events;  ///< every event of the first part
    /// Each event's total over the parts ("totals:"/"summary:" lines of
    /// the parts whose events are the first part's), by events' order.
    std::vector<std::uint64_t> event_totals;
    bool has_contexts = false;  ///< some function had a caller chain (--separate-callers)
    Stacks stacks = Stacks::Flat;
    std::size_t ambiguous = 0;       ///< nodes with self cost reached by several chains of callers
    std::uint64_t exact_weight = 0;  ///< self cost of the nodes reached by one chain
    bool capped = false;  ///< the stack table reached its limit (4 million): chains were cut
    std::vector<Function> functions;
    std::vector<Frame> frames;
    std::vector<Stack> stack_table;
    std::vector<Thread> threads;
    std::uint64_t total = 0;  ///< the profile's total of the event (all parts)
    std::size_t parts = 0;
};

/// Reads the profiles at `paths` (files of one run: the parts of
/// --dump-every-bb or `callgrind_control -d` dumps, in this order, each
/// file with any number of parts) and converts them.  Every part must end
/// with its "totals:" (Callgrind) or "summary:" (Cachegrind) line, equal
/// to the sum of its cost lines.  Throws callgrind::ParseError (with the
/// file and line) for a malformed, truncated or inconsistent profile,
/// std::runtime_error for an unreadable file or an unknown event.
Converted convert(const std::vector<std::string>& paths, const ExportOptions& opts);

/// Writes `c` as a Firefox Profiler processed profile (JSON, version
/// kFirefoxProcessedVersion) to `out`.
void write_firefox(const Converted& c, std::ostream& out);

/// The processed-profile format version write_firefox() writes: the one
/// that the profiler's current loader reads without upgrading.
constexpr int kFirefoxProcessedVersion = 75;

/// Writes `c` as folded stacks: one line "ROOT;...;LEAF WEIGHT" per
/// distinct stack of function names (summed over threads and parts),
/// sorted; ';' and line breaks in names become ':' and ' '.
void write_folded(const Converted& c, std::ostream& out);

}  // namespace exporting
}  // namespace vgjit
