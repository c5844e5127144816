// callgrind_format.hpp: reading and writing Callgrind (and Cachegrind)
// profile data files, one set of rules for `vg-jit annotate` and the tests.
//
// Follows the "Callgrind Format Specification" (Valgrind manual, format
// version 1) as Valgrind 3.27's callgrind/dump.c and cachegrind write it:
//
//  * Lines: "key: value" header lines; "spec=value" position lines; cost
//    lines (first non-blank character a digit, '+', '-' or '*'); blank
//    lines and '#' comment lines are skipped; a trailing CR is dropped.
//  * Parts: a file holds one or more parts (one per Callgrind dump).  A
//    header line after a part's body has begun starts the next part, except
//    "totals:" and "summary:", which belong to the part they follow (Cachegrind
//    writes "summary:" after its body).  Each part has its own "events:"
//    (required before the body) and "positions:" (default "line"; each of
//    "line", "instr", "addr", "bb").
//  * Name compression: "(N) name" defines id N, "(N)" alone refers to it,
//    anything else (also "(anonymous namespace)::f") is a plain name; an
//    empty name is written plainly.  Objects (ob=, cob=), files (fl=, fi=,
//    fe=, cfi=, cfl=, jfi=) and functions (fn=, cfn=, jfn=, frfn=) have
//    separate id spaces, for the whole file: a part may use the ids of
//    earlier parts.
//  * Function and file: fn= names a function of the last ob= object and
//    the last fl= file; fi=/fe= change the file of the following cost lines
//    only, until the next fl= or fn=.
//  * Subpositions: one per name in "positions:", each absolute (decimal or
//    0x-hex), "+N"/"-N" relative, or "*" (unchanged), relative to the same
//    subposition of the last ordinary cost line of the part (the lines
//    after calls=/jump=/jcnd= and the targets of those are relative to it
//    too but do not change it, as dump.c writes them).
//  * Costs: one per event; missing trailing costs are zero; more costs than
//    events is an error.
//  * Calls: cob=/cfi=/cfl=/cfn= then "calls=COUNT TARGET" then the call
//    site's cost line holding the inclusive cost of the calls.  cfn= is
//    required; cob= defaults to the current object and cfi= to the current
//    file.  All four apply to the next calls= only.
//  * Jumps (--collect-jumps=yes): jfi=/jfn= then "jump=COUNT TARGET" or
//    "jcnd=FOLLOWED/EXECUTED TARGET" then a line holding only the jump's
//    source position.  jfi= defaults to the current file, jfn= to the
//    current function; both apply to the next jump only.
//  * "rec=" and "frfn=" (context separation markers) are read and ignored.
//  * Context names (Callgrind's default --mangle-names=yes): with
//    --separate-callers=N a function is listed once per chain of up to N
//    callers, as "NAME'CALLER1'CALLER2..." (innermost caller first); an
//    activation at recursion depth D >= 2 (--separate-recs) is "NAME'D",
//    before any callers ("fib'2'main").  split_context_name() undoes both.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vgjit {
namespace callgrind {

/// Costs, one counter per event of the part's "events:" line, in that order.
using Costs = std::vector<std::uint64_t>;
/// Subpositions, one per name of the part's "positions:" line, absolute.
using Subpos = std::vector<std::uint64_t>;

/// A malformed profile.  what() is "SOURCE:LINE: error: MESSAGE" (without
/// ":LINE" when the problem is about the whole file).
class ParseError : public std::runtime_error {
public:
    ParseError(const std::string& source, unsigned long line, const std::string& message);
    /// 1-based line number in the profile (0: about the whole file).
    unsigned long line() const { return line_; }

private:
    unsigned long line_;
};

/// A position inside the current function: the file of the line (the fl=
/// file, or the fi=/fe= file in effect) and its subpositions.
struct Position {
    std::string file;
    Subpos subpos;
};

/// One calls= entry, names resolved and positions absolute.
struct Call {
    std::string object, file, name;  ///< the callee (cob=, cfi=, cfn=)
    std::uint64_t count = 0;         ///< calls= count
    Subpos target;                   ///< calls= target position
    Position site;                   ///< the line after calls=
    Costs inclusive;                 ///< that line's costs
};

/// One jump= or jcnd= entry, names resolved and positions absolute.
struct Jump {
    bool conditional = false;    ///< jcnd= (true) or jump=
    std::uint64_t followed = 0;  ///< jump=COUNT, or jcnd=FOLLOWED/...
    std::uint64_t executed = 0;  ///< jcnd=.../EXECUTED; 0 for jump=
    std::string file;            ///< target file (jfi=, else the current file)
    std::string function;        ///< target function (jfn=, else the current one)
    Subpos target;               ///< target position
    Position site;               ///< the line after jump=/jcnd=
};

/// Receives a profile's content in file order from Reader::read().  Every
/// string and vector is only valid during the call.  A handler may throw
/// (Reader::fail() gives the current line's ParseError).
class Handler {
public:
    virtual ~Handler() = default;
    /// A new part begins (before its first header line; also for the first).
    virtual void part() {}
    /// A header line: key, value (blanks around it removed), the line as read.
    virtual void header(const std::string& /*key*/, const std::string& /*value*/,
                        const std::string& /*raw*/) {}
    /// fn=: the following lines belong to function `name` of `object`
    /// ("" if no ob= yet), whose file is `file` ("???" if no fl= yet).
    virtual void function(const std::string& /*object*/, const std::string& /*file*/,
                          const std::string& /*name*/) {}
    /// An ordinary cost line of the current function.
    virtual void cost(const Position&, const Costs&) {}
    virtual void call(const Call&) {}
    virtual void jump(const Jump&) {}
};

/// Parses a profile, line by line, into calls of a Handler.
class Reader {
public:
    /// `source` names the profile in error messages.
    Reader(Handler& handler, std::string source);

    /// Reads `in` to its end.  Throws ParseError on the first malformed line,
    /// on a file without "events:" and on a read error.
    void read(std::istream& in);

    /// The current part's "events:" and "positions:" names.
    const std::vector<std::string>& events() const { return events_; }
    const std::vector<std::string>& positions() const { return positions_; }
    /// Index of the first subposition named `name` ("line", "instr", ...)
    /// in the current part, or -1.
    int position_index(const std::string& name) const;

    /// Parses a number as the format writes it: decimal, or hex with "0x".
    /// Returns false if `text` is not one (or overflows 64 bits).
    static bool parse_number(std::string_view text, std::uint64_t& value);

    /// 1-based number of the line being read (0 before the first).
    unsigned long line_number() const { return lineno_; }

    /// Throws the ParseError for `message` at the current line.
    [[noreturn]] void fail(const std::string& message) const;

private:
    enum class Pending { None, Call, Jump };
    using NameTable = std::unordered_map<std::uint64_t, std::string>;
    /// A name given for the next call or jump only (cob=, cfi=, ...).
    struct Given {
        bool set = false;
        std::string name;
    };

    void line(const std::string& raw);
    void header_line(const std::string& key, const std::string& value, const std::string& raw);
    void start_body();
    void position_line(std::string_view key, std::string_view value);
    void cost_line(std::string_view raw);
    /// The name `value` gives: a compressed name's text from `table`
    /// (defining it first for "(N) name"), or `value` itself.  The
    /// reference is valid until the next call.
    const std::string& name(NameTable& table, std::string_view value);
    std::size_t subpos(std::size_t first, Subpos& out) const;
    void reset_call_spec();

    Handler& handler_;
    std::string source_;
    unsigned long lineno_ = 0;
    bool any_part_ = false, in_body_ = false;
    std::vector<std::string> events_, positions_;
    Subpos last_;
    NameTable objects_, files_, functions_;
    std::string plain_;  // the last name given without compression
    std::string object_, fn_file_ = "???", file_ = "???", fn_;
    bool have_fn_ = false;
    // The names given for the next call or jump, if any.
    Given cob_, cfi_, cfn_, jfi_, jfn_;
    Pending pending_ = Pending::None;
    Call call_;
    Jump jump_;
    // Reused for every line: its words, the position and costs read.
    std::vector<std::string_view> words_;
    Position pos_;
    Costs costs_;
};

/// Writes names with Callgrind's name compression: "(N) name" the first
/// time, "(N)" afterwards; the empty name as it is.  Use one per id space
/// (objects, files, functions).
class NameWriter {
public:
    std::string operator()(const std::string& name);

private:
    std::map<std::string, std::size_t> ids_;
};

/// A function name as Callgrind writes it, split into its parts (see the
/// file comment, "Context names").
struct ContextName {
    std::string function;              ///< the function's own name
    unsigned long recursion = 1;       ///< recursion depth D of "NAME'D"; 1 without
    std::vector<std::string> callers;  ///< the caller chain, innermost first
};

/// Splits `name` at its quotes: the first piece is the function, a second
/// piece of digits only the recursion depth, the rest the callers.  A name
/// whose pieces are empty (a quote at either end, two in a row) is taken
/// whole, as a function of that name.
ContextName split_context_name(const std::string& name);

/// The blank-separated words of `s` (a cost line, a header value).
std::vector<std::string> split_words(const std::string& s);

/// Subpositions as a cost line writes them, absolute: "instr" and "addr"
/// in 0x-hex, the others in decimal; separated by one blank.
std::string format_subpos(const std::vector<std::string>& positions, const Subpos& s);

/// Costs as a cost line writes them: each preceded by one blank, trailing
/// zeros left out (but at least one cost).
std::string format_costs(const Costs& c);

}  // namespace callgrind
}  // namespace vgjit
