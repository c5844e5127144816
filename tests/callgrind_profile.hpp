// callgrind_profile.hpp - a reader for Callgrind (and Cachegrind) profile
// data files, for tests that check what Valgrind attributed to which code.
//
// Part of valgrind-jit's test suite.  The file is read by vg-jit's reader
// (tool/callgrind_format.hpp, which states the format rules); this model
// sums what it reads per function and per call edge.  Only single-part
// files are supported (Callgrind's default: one file per dump).  Costs of
// a function split across fi=/fe= files stay one function (keyed by its
// ob=, fl=, fn=); per-line costs record the file they are in.

#ifndef VGJIT_TESTS_CALLGRIND_PROFILE_HPP
#define VGJIT_TESTS_CALLGRIND_PROFILE_HPP

#include "callgrind_format.hpp"

#include <cstdint>
#include <istream>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace vgjit {
namespace callgrind {

/// Identifies a function as Callgrind does: object (ob=, "" if none), the
/// function's source file (fl=, "???" when unknown) and name (fn=).
struct FunctionKey {
    std::string object;
    std::string file;
    std::string name;
    bool operator<(const FunctionKey& o) const {
        return std::tie(object, file, name) < std::tie(o.object, o.file, o.name);
    }
    bool operator==(const FunctionKey& o) const {
        return object == o.object && file == o.file && name == o.name;
    }
};

/// Self costs of one function.
struct FunctionCosts {
    FunctionKey key;
    /// Sum of the function's cost lines (not including calls).
    Costs self;
    /// Self costs per source position: (file, line) -> costs.  The file is
    /// the fl= file, or the fi=/fe= file in effect.  Line 0 means "no line
    /// information".  Empty if "positions:" has no "line".
    std::map<std::pair<std::string, std::uint64_t>, Costs> lines;
    /// Self costs per instruction address.  Empty unless "positions:"
    /// includes "instr" (Callgrind's --dump-instr=yes).
    std::map<std::uint64_t, Costs> instrs;
    /// Source line of each instruction address with a cost line (0: no
    /// line information; the last one given if an address has several).
    /// Empty unless "positions:" includes both "instr" and "line".
    std::map<std::uint64_t, std::uint64_t> instr_lines;
};

/// Calls from one function to another, summed over all call sites.
struct CallEdge {
    FunctionKey caller;
    FunctionKey callee;
    std::uint64_t count = 0;  ///< number of calls (sum of calls= counts)
    Costs inclusive;          ///< inclusive cost of those calls
};

/// Self cost of event column `event` of `f` on line `line` of `file`
/// (0 if it has none there).
std::uint64_t line_cost(const FunctionCosts& f, const std::string& file, std::uint64_t line,
                        std::size_t event = 0);

/// Callgrind's name for a function without the recursion-depth suffix
/// ("fib'2" -> "fib").  Under --separate-recs=N (default 2), Callgrind
/// names the activations of a recursive function at depth d >= 2 NAME'd,
/// so one source function can appear as several functions in a profile.
std::string strip_recursion_suffix(const std::string& name);

/// A parsed profile.
class Profile {
public:
    /// Reads and parses the file at `path`.  Throws ParseError (also if the
    /// file cannot be opened).
    static Profile parse_file(const std::string& path);
    /// Parses a profile from `in`; `source` names it in error messages.
    static Profile parse(std::istream& in, const std::string& source = "<profile>");

    /// Event names of the "events:" header, in cost-column order.
    const std::vector<std::string>& events() const { return events_; }
    /// Column of event `name`; throws std::out_of_range if absent.
    std::size_t event_index(const std::string& name) const;
    /// Subposition names of the "positions:" header ("line" if absent).
    const std::vector<std::string>& positions() const { return positions_; }
    /// Header values by key ("cmd", "pid", "creator", "desc" lines joined
    /// with "\n", ...).  "events"/"positions"/"totals"/"summary" included.
    const std::map<std::string, std::string>& header() const { return header_; }

    /// All functions with any self-cost line, by key.
    const std::map<FunctionKey, FunctionCosts>& functions() const { return functions_; }
    /// Functions named `name` (in any object/file).  With
    /// `any_recursion_depth`, also those named NAME'N (see
    /// strip_recursion_suffix()).
    std::vector<const FunctionCosts*> functions_named(const std::string& name,
                                                      bool any_recursion_depth = false) const;
    /// Call edges keyed by (caller, callee).
    const std::map<std::pair<FunctionKey, FunctionKey>, CallEdge>& calls() const { return calls_; }

    /// Sum of all self costs (every ordinary cost line).
    const Costs& self_total() const { return self_total_; }
    /// The "totals:" line, else the "summary:" line, else self_total().
    const Costs& totals() const;
    /// Sum of self costs of event `event` over functions whose object is
    /// `object`.
    std::uint64_t object_cost(const std::string& object, const std::string& event) const;

private:
    std::vector<std::string> events_;
    std::vector<std::string> positions_{"line"};
    std::map<std::string, std::string> header_;
    std::map<FunctionKey, FunctionCosts> functions_;
    std::map<std::pair<FunctionKey, FunctionKey>, CallEdge> calls_;
    Costs self_total_;
    Costs totals_;  // from totals:/summary:, empty if neither
    friend class ProfileBuilder;
};

/// Calls into the function named `callee` from anywhere, summed over its
/// activations at every recursion depth (strip_recursion_suffix).
std::uint64_t calls_to_any_depth(const Profile& p, const std::string& callee);

/// Calls into the function named `callee` from the one named `caller`,
/// summed over both's recursion depths.
std::uint64_t calls_between_any_depth(const Profile& p, const std::string& caller,
                                      const std::string& callee);

}  // namespace callgrind
}  // namespace vgjit

#endif
