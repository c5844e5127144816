// profile_export.hpp: Callgrind and Cachegrind profiles as weighted stack
// samples, for `vg-jit export` (the Firefox Profiler's processed format and
// folded stacks) and its tests.
//
// A profile is read with callgrind::Reader (callgrind_format.hpp).  Each
// part (one per dump) becomes samples of one thread (Callgrind's
// "thread:" header; 1 without it) of one process (its file's "pid:"
// header: the files of a run under --trace-children=yes are processes,
// the parts and dumps with one pid one process), placed on a time line by
// the event's count: a part starts where the parts before it of the same
// thread ended; each process's time line starts at 0.
//
// Stacks.  Each function of a part (one fn=, i.e. one context under
// --separate-callers) is a node; calls= lines are edges from the caller to
// the callee.  Without contexts Callgrind gives only those edges (with
// their inclusive costs): when a node has several callers, nothing tells
// which of its activations (and so which of its own calls) came from
// which caller.  Stacks are therefore built from what is certain:
//
//  * The roots are the nodes nobody called (the bottom of every stack),
//    and nodes some of whose activations no call explains (partial roots:
//    self cost plus the inclusive cost of their calls exceeds the
//    inclusive cost of the calls to them, for some event; every
//    activation that was called is counted in its caller's calls= line),
//    and, in the order of the part, a node that no root reaches.
//  * A node's certain callers are its dominators: the nodes through which
//    every chain of calls from a root to it passes, each of them on the
//    stack of every activation of the node, in the order of the
//    dominator tree.  A node's stack is its immediate dominator's stack
//    and frame, then the node.
//  * Between a node and its immediate dominator stands the marker frame
//    kUnknownCallers ("[unknown callers]") unless that dominator itself
//    made every call to the node that did not come from inside the
//    node's own activations (a call from a node the node dominates is a
//    recursive one); a partial root has the marker always.  Above the
//    marker are only frames that were on the stack, below it the frames
//    are direct calls: no stack shows a caller that did not call, but
//    some stop short of the callers (the node's cost is not split among
//    them: a self cost always goes whole to one stack).
//  * Recursion is folded: an activation of a node inside another of the
//    same node counts as the outer one (Callgrind merges recursion depths
//    from --separate-recs on into one node anyway).
//  * The frame of a caller in a stack has the line of its calls to the
//    next frame when they were all made from one line, else no line.
//
// With --separate-callers=N, N at least the call depth, each context is
// called from one context and no marker is needed: the stacks are the
// program's (Stacks::Exact).  Where a node's stack has the marker the
// conversion reports Stacks::Rebuilt with the part of the total whose
// stacks are whole.  Every line's self cost becomes one sample of its
// node's stack, so the samples' weights add up to the parts' totals
// exactly, and there are no more stacks than nodes, lines and calls.
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
    Marker,   ///< kUnknownCallers, which stands for callers the profile does not tell
};

/// The name of the frame that stands for callers a stack leaves out
/// (see the stack rules above).
inline constexpr const char* kUnknownCallers = "[unknown callers]";

/// The category name of `k` ("JIT", "Native", "Unnamed", "Other").
const char* kind_name(Kind k);

/// What kind of code the function `name` of object `object` (ob=, "" for
/// Cachegrind) is: the one rule of the JIT category, which `vg-jit
/// profiles` counts too.
Kind classify(const std::string& object, const std::string& name);

/// A process's name from its command line (Callgrind's "cmd:", the
/// arguments joined by blanks): the program's file name (the first word
/// after its last '/'), then its first argument, or the first argument
/// that starts with "--type=" if there is one (the process type of
/// Chromium, Electron and other Chromium-based programs), itself cut to
/// its file name if it is a path and to 40 characters ("..." at the end)
/// if longer.  "/usr/lib/chromium/chromium --no-sandbox --type=renderer
/// --lang=en" is "chromium --type=renderer", "/usr/bin/python3
/// /srv/app/main.py -v" is "python3 main.py", "" is "".
std::string process_name(const std::string& command);

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
    std::size_t process = 0;                 ///< index into Converted::processes
    std::vector<Sample> samples;             ///< in time order
    std::uint64_t total = 0;                 ///< sum of the samples' weights
    std::vector<std::uint64_t> part_starts;  ///< time of each part's first sample
};

/// How the stacks were made.
enum class Stacks {
    Exact,    ///< no stack has the marker: the stacks are the program's
    Rebuilt,  ///< some stacks stop at the marker (kUnknownCallers)
    Flat,     ///< no call edges at all (Cachegrind): one frame per sample
};

/// One process: the parts with one "pid:" value, in the order read.
struct Process {
    std::string pid;                   ///< "pid:" ("" for parts without one)
    std::string command;               ///< "cmd:" of its first part
    std::string name;                  ///< process_name(command)
    std::vector<std::size_t> threads;  ///< indices into Converted::threads
    std::vector<std::string> files;    ///< the files its parts came from, in order
    std::size_t parts = 0;
    std::uint64_t total = 0;  ///< of the event, over its parts
};

/// Options of the conversion.
struct ExportOptions {
    std::string event = "Ir";  ///< the event whose counts are the weights; "": the
                               ///< first event of the first part
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
    std::size_t ambiguous = 0;        ///< nodes with self cost whose stack has the marker
    std::uint64_t exact_weight = 0;   ///< self cost of the nodes whose stack has no marker
    std::vector<Function> functions;  ///< the marker's too, if a stack has it
    std::vector<Frame> frames;
    std::vector<Stack> stack_table;
    std::vector<Thread> threads;  ///< grouped by process, in the processes' order
    /// By pid, as numbers (parts without "pid:" first, pids that are not
    /// numbers last); one process (pid "") for profiles without "pid:".
    std::vector<Process> processes;
    std::uint64_t total = 0;  ///< the profile's total of the event (all parts)
    std::size_t parts = 0;
};

/// Reads the profiles at `paths` (files of one run: the parts of
/// --dump-every-bb or `callgrind_control -d` dumps, in this order, each
/// file with any number of parts; the processes of a run under
/// --trace-children=yes, told apart by their "pid:") and converts them.  Every part must end
/// with its "totals:" (Callgrind) or "summary:" (Cachegrind) line, equal
/// to the sum of its cost lines.  Throws callgrind::ParseError (with the
/// file and line) for a malformed, truncated or inconsistent profile,
/// std::runtime_error for an unreadable file or an unknown event.
Converted convert(const std::vector<std::string>& paths, const ExportOptions& opts);

/// Writes `c` as a Firefox Profiler processed profile (JSON, version
/// kFirefoxProcessedVersion) to `out`: its threads carry their process's
/// pid and name (processName), so that the profiler shows a track per
/// process; with several processes, each process's main thread is named
/// after the process.
void write_firefox(const Converted& c, std::ostream& out);

/// The processed-profile format version write_firefox() writes: the one
/// that the profiler's current loader reads without upgrading.
constexpr int kFirefoxProcessedVersion = 75;

/// Writes `c` as folded stacks: one line "ROOT;...;LEAF WEIGHT" per
/// distinct stack of function names (summed over threads and parts),
/// sorted; ';' and line breaks in names become ':' and ' '.  With several
/// processes each stack starts with its process, "NAME [PID]"
/// ("chromium --type=renderer [1234];main;...").
void write_folded(const Converted& c, std::ostream& out);

}  // namespace exporting
}  // namespace vgjit
