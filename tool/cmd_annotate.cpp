// cmd_annotate.cpp: `vg-jit annotate --map FILE... PROFILE -o OUT`.
//
// Rewrites a Callgrind profile taken with an unpatched Valgrind so that the
// address-named pseudo-functions of jitted code get the names that jitdump
// files or perf maps give the code.
//
// What stock Callgrind records for code without symbols (callgrind/fn.c,
// bbcc.c, dump.c of Valgrind 3.27): a basic block without a name is put in
// a function named after the block's address ("0x000000000485513f") in the
// anonymous object "???".  Costs are listed under the *context* function,
// i.e. the function that was entered by the last call; blocks reached by
// jumps or fall-through stay in the caller's context (jumps between blocks
// of one anonymous object are never turned into calls, since no block is
// known to be a function entry).  So a pseudo-function is the code executed
// from one call target until the matching return, which may include other
// functions reached by tail jumps, and `call`s to non-entry addresses of a
// function (and jumps into jitted code from other objects, which Callgrind
// emulates as calls) produce pseudo-functions for pieces of a function.
//
// The rewrite, per profile part (see the --help text for the user's view):
//  * Every cost line of a pseudo-function (object "???" or none, name
//    0xHEX with an optional recursion suffix 'N) is attributed to the mapped
//    function containing the line's instruction address (positions "instr",
//    Callgrind --dump-instr=yes: exact), or, without an address or outside
//    every mapped range, to the function containing the pseudo-function's
//    own address (the block it was entered at).  With a jitdump line table,
//    the line subposition and the file come from the table.
//  * Calls to pseudo-functions become calls to the mapped function.  A call
//    from a function to a non-entry address of itself (a piece of it) is
//    dropped: the callee's costs are already that function's self costs and
//    its outgoing calls are already that function's calls.
//  * Cost lines are only moved, never changed, so every event total stays
//    exact.  Everything else is copied (names uncompressed and recompressed,
//    positions written absolute).
#include "commands.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

namespace vgjit {

namespace {

// ---------------------------------------------------------------------------
// The code map: address ranges -> named functions, from jitdump / perf map.
// ---------------------------------------------------------------------------

/// One line-table entry with an absolute address.
struct LineEntry {
    std::uint64_t addr;
    std::uint64_t line;
    std::string file;
};

/// Identity of a function in the output: object, file, name (Callgrind's
/// ob=, fl=, fn=).
using FnKey = std::tuple<std::string, std::string, std::string>;

/// A mapped range of code.
struct MappedRange {
    std::uint64_t start = 0;
    std::uint64_t end = 0;  ///< exclusive
    std::string name;
    std::string object;
    std::vector<LineEntry> lines;  ///< sorted by address; may be empty

    /// The function's file: that of its first line entry, else "???".
    std::string file() const { return lines.empty() ? "???" : lines.front().file; }
    /// The line entry that covers `a` (greatest address <= a), or null.
    const LineEntry* line_at(std::uint64_t a) const {
        auto it = std::upper_bound(lines.begin(), lines.end(), a,
                                   [](std::uint64_t v, const LineEntry& e) { return v < e.addr; });
        return it == lines.begin() ? nullptr : &*std::prev(it);
    }
};

/// Non-overlapping ranges; a range added later replaces (removes) every
/// range it overlaps, as a runtime that reuses code memory means it.
class CodeMap {
public:
    void add(MappedRange r) {
        if (r.end <= r.start) return;
        auto it = ranges_.upper_bound(r.start);
        if (it != ranges_.begin() && std::prev(it)->second.end > r.start) --it;
        while (it != ranges_.end() && it->first < r.end) it = ranges_.erase(it);
        const std::uint64_t s = r.start;
        ranges_.emplace(s, std::move(r));
    }
    /// Removes the range that starts at `start` and has size `size`.
    bool remove(std::uint64_t start, std::uint64_t size) {
        auto it = ranges_.find(start);
        if (it == ranges_.end() || it->second.end - start != size) return false;
        ranges_.erase(it);
        return true;
    }
    const MappedRange* find(std::uint64_t a) const {
        auto it = ranges_.upper_bound(a);
        if (it == ranges_.begin()) return nullptr;
        --it;
        return a < it->second.end ? &it->second : nullptr;
    }
    std::size_t size() const { return ranges_.size(); }

private:
    std::map<std::uint64_t, MappedRange> ranges_;
};

/// Collects the ranges of one map file into a CodeMap.
class MapSink : public Sink {
public:
    MapSink(const std::string& object, CodeMap& map) : object_(object), map_(map) {}

    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        if (!known) return;
        if (rec.id == JITDUMP_CODE_DEBUG_INFO) {
            pending_addr_ = rec.u.debug.code_addr;
            pending_.clear();
            for (const DebugLine& l : lines) pending_.push_back({l.code_addr, l.line, l.filename});
            std::stable_sort(pending_.begin(), pending_.end(),
                             [](const LineEntry& a, const LineEntry& b) { return a.addr < b.addr; });
            have_pending_ = true;
        } else if (rec.id == JITDUMP_CODE_LOAD) {
            const JitdumpCodeLoad& l = rec.u.load;
            MappedRange r = make(l.code_addr, l.code_size, name);
            if (have_pending_ && pending_addr_ == l.code_addr) r.lines = pending_;
            have_pending_ = false;
            pending_.clear();
            if (l.code_size == 0) return;
            by_index_[l.code_index] = r;
            map_.add(std::move(r));
            ++entries_;
        } else if (rec.id == JITDUMP_CODE_MOVE) {
            const JitdumpCodeMove& m = rec.u.move;
            auto it = by_index_.find(m.code_index);
            if (it == by_index_.end() || m.code_size == 0) return;
            MappedRange r = it->second;
            map_.remove(r.start, r.end - r.start);
            const std::uint64_t delta = m.new_code_addr - r.start;  // modulo 2^64
            r.start = m.new_code_addr;
            r.end = m.new_code_addr + m.code_size;
            for (LineEntry& e : r.lines) e.addr += delta;
            it->second = r;
            map_.add(std::move(r));
            ++entries_;
        }
    }
    void perfmap_entry(std::uint64_t, std::uint64_t, const PerfmapEntry& e,
                       const std::string& name) override {
        map_.add(make(e.start, e.size, name));
        ++entries_;
    }
    void problem(const Problem& p) override {
        if (p.severity == Severity::Error) {
            ++errors_;
            if (errors_ <= kMaxShown) std::cerr << "vg-jit: annotate: " << format_problem(file_, p) << '\n';
        } else {
            ++warnings_;
        }
    }

    std::string file_;
    unsigned long long entries_ = 0, errors_ = 0, warnings_ = 0;
    static constexpr unsigned long long kMaxShown = 10;

private:
    MappedRange make(std::uint64_t start, std::uint64_t size, const std::string& name) const {
        MappedRange r;
        r.start = start;
        r.end = start + size;
        if (r.end < start) r.end = UINT64_MAX;  // the parsers reject wrapping ranges
        r.name = name;
        r.object = object_;
        return r;
    }
    std::string object_;
    CodeMap& map_;
    std::map<std::uint64_t, MappedRange> by_index_;
    std::vector<LineEntry> pending_;
    std::uint64_t pending_addr_ = 0;
    bool have_pending_ = false;
};

// ---------------------------------------------------------------------------
// The profile model.
// ---------------------------------------------------------------------------

using Costs = std::vector<std::uint64_t>;
using Subpos = std::vector<std::uint64_t>;

void add_costs(Costs& to, const Costs& from) {
    if (to.size() < from.size()) to.resize(from.size(), 0);
    for (std::size_t i = 0; i < from.size(); ++i) to[i] += from[i];
}

/// A position inside a function: the source file of the cost line (fl=, or
/// fi=/fe=) and the subpositions.
using Position = std::pair<std::string, Subpos>;

struct CallKey {
    Position site;
    FnKey callee;
    Subpos target;
    bool operator<(const CallKey& o) const {
        return std::tie(site, callee, target) < std::tie(o.site, o.callee, o.target);
    }
};
struct CallValue {
    std::uint64_t count = 0;
    Costs inclusive;
};

struct JumpKey {
    bool conditional;
    Position site;
    std::string target_file;
    std::string target_fn;  ///< "" when the target is the same function
    Subpos target;
    bool operator<(const JumpKey& o) const {
        return std::tie(conditional, site, target_file, target_fn, target) <
               std::tie(o.conditional, o.site, o.target_file, o.target_fn, o.target);
    }
};
struct JumpValue {
    std::uint64_t followed = 0;  ///< jump=COUNT, or jcnd=FOLLOWED/...
    std::uint64_t executed = 0;  ///< jcnd=.../EXECUTED
};

struct FunctionData {
    std::map<Position, Costs> self;
    std::map<CallKey, CallValue> calls;
    std::map<JumpKey, JumpValue> jumps;
};

/// One part of a profile (Callgrind writes one per dump).
struct Part {
    std::vector<std::string> header;  ///< header lines, verbatim, in order
    std::string totals_line;          ///< "totals: ..." if present
    std::vector<std::string> events;
    std::vector<std::string> positions{"line"};
    std::vector<FnKey> order;  ///< functions in order of first appearance
    std::map<FnKey, FunctionData> functions;
    Costs input_sum, output_sum;

    FunctionData& function(const FnKey& k) {
        auto it = functions.find(k);
        if (it == functions.end()) {
            order.push_back(k);
            it = functions.emplace(k, FunctionData{}).first;
        }
        return it->second;
    }
};

/// Statistics for --verbose.
struct Stats {
    unsigned long long pseudo_functions = 0, renamed_functions = 0;
    unsigned long long lines_moved = 0, calls_renamed = 0, calls_dropped = 0;
    std::map<std::string, bool> seen_pseudo;
};

class ParseFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// True if `name` is Callgrind's name for code without symbols: "0x" and
/// hex digits, optionally followed by a recursion suffix 'N.  Stores the
/// address and the suffix (with its quote).
bool parse_pseudo_name(const std::string& name, std::uint64_t& addr, std::string& suffix) {
    if (name.size() < 3 || name[0] != '0' || (name[1] != 'x' && name[1] != 'X')) return false;
    std::size_t i = 2;
    std::uint64_t v = 0;
    while (i < name.size() && std::isxdigit(static_cast<unsigned char>(name[i]))) {
        if (i - 2 >= 16) return false;
        const char c = name[i];
        v = v * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        ++i;
    }
    if (i == 2) return false;
    if (i < name.size()) {
        if (name[i] != '\'' || i + 1 == name.size()) return false;
        for (std::size_t j = i + 1; j < name.size(); ++j)
            if (!std::isdigit(static_cast<unsigned char>(name[j]))) return false;
    }
    addr = v;
    suffix = name.substr(i);
    return true;
}

bool is_anonymous_object(const std::string& ob) { return ob.empty() || ob == "???"; }

/// Reads a profile line by line and builds the rewritten parts.
class Rewriter {
public:
    Rewriter(const CodeMap& map, const std::string& source) : map_(map), source_(source) {}

    std::vector<Part> parts;
    Stats stats;
    bool has_instr_everywhere = true;

    void read(std::istream& in) {
        std::string line;
        parts.emplace_back();
        while (std::getline(in, line)) {
            ++lineno_;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            handle(line);
        }
        if (pending_ != Pending::None) fail("the profile ends after a calls=/jump=/jcnd= line");
        if (part().events.empty())
            throw ParseFailure(source_ + ": error: not a Callgrind profile (no \"events:\" line)");
        for (Part& p : parts)
            if (p.input_sum != p.output_sum)  // cannot happen: lines are only moved
                throw ParseFailure(source_ + ": internal error: event sums differ after the rewrite");
    }

private:
    enum class Pending { None, Call, Jump };

    [[noreturn]] void fail(const std::string& msg) const {
        throw ParseFailure(source_ + ":" + std::to_string(lineno_) + ": error: " + msg);
    }

    Part& part() { return parts.back(); }
    const Part& part() const { return parts.back(); }

    // -- names ------------------------------------------------------------

    /// Resolves Callgrind name compression: "(N) name" defines id N in
    /// `table`, "(N)" refers to it, anything else is a plain name.
    std::string name(std::map<std::uint64_t, std::string>& table, const std::string& v) {
        if (v.empty() || v[0] != '(') return v;
        const std::size_t close = v.find(')');
        if (close == std::string::npos || close == 1) return v;
        std::uint64_t id = 0;
        for (std::size_t i = 1; i < close; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(v[i]))) return v;  // "(anonymous ...)"
            if (id > (UINT64_MAX - 9) / 10) fail("name compression id too large in '" + v + "'");
            id = id * 10 + static_cast<std::uint64_t>(v[i] - '0');
        }
        std::size_t rest = close + 1;
        while (rest < v.size() && (v[rest] == ' ' || v[rest] == '\t')) ++rest;
        if (rest == v.size()) {
            auto it = table.find(id);
            if (it == table.end())
                fail("name compression id (" + std::to_string(id) + ") used before it was defined");
            return it->second;
        }
        std::string n = v.substr(rest);
        table[id] = n;
        return n;
    }

    // -- numbers ----------------------------------------------------------

    bool parse_number(const std::string& t, std::uint64_t& v) const {
        if (t.empty()) return false;
        errno = 0;
        char* end = nullptr;
        const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
        if (!std::isdigit(static_cast<unsigned char>(t[0]))) return false;
        const unsigned long long x = std::strtoull(t.c_str(), &end, hex ? 16 : 10);
        if (errno == ERANGE || *end != '\0') return false;
        v = x;
        return true;
    }

    /// Parses subpositions from `tokens` starting at `i`, relative to
    /// `base`; stores them in `out`.
    void parse_subpos(const std::vector<std::string>& tokens, std::size_t& i, const Subpos& base,
                      Subpos& out) const {
        const std::size_t n = part().positions.size();
        out.assign(n, 0);
        for (std::size_t k = 0; k < n; ++k, ++i) {
            if (i >= tokens.size()) fail("cost line has fewer than the " + std::to_string(n) + " subpositions of \"positions:\"");
            const std::string& t = tokens[i];
            std::uint64_t v = 0;
            if (t == "*") {
                out[k] = base[k];
            } else if (t[0] == '+' || t[0] == '-') {
                if (!parse_number(t.substr(1), v)) fail("bad relative subposition '" + t + "'");
                out[k] = t[0] == '+' ? base[k] + v : base[k] - v;
            } else if (parse_number(t, v)) {
                out[k] = v;
            } else {
                fail("bad subposition '" + t + "'");
            }
        }
    }

    static std::vector<std::string> split(const std::string& s) {
        std::vector<std::string> out;
        std::istringstream is(s);
        std::string t;
        while (is >> t) out.push_back(t);
        return out;
    }

    // -- attribution --------------------------------------------------------

    /// Where a cost at instruction address `addr` (if `has_addr`) of the
    /// current function goes.
    struct Target {
        FnKey key;
        const MappedRange* range = nullptr;  ///< mapped function, or null
        std::string file;                    ///< file of the cost line
        bool by_address = false;             ///< range found by the address
    };

    Target resolve(bool has_addr, std::uint64_t addr) const {
        Target t;
        if (pseudo_) {
            const MappedRange* r = has_addr ? map_.find(addr) : nullptr;
            if (r) {
                const bool same = ctx_range_ && ctx_range_->name == r->name &&
                                  ctx_range_->object == r->object;
                t.key = FnKey{r->object, r->file(), r->name + (same ? ctx_suffix_ : "")};
                t.range = r;
                t.by_address = true;
                t.file = r->file();
                return t;
            }
            if (ctx_range_) {
                t.key = FnKey{ctx_range_->object, ctx_range_->file(), ctx_range_->name + ctx_suffix_};
                t.range = ctx_range_;
                t.file = ctx_range_->file();
                return t;
            }
        }
        t.key = FnKey{ob_, fn_file_, fn_};
        t.file = cur_file_;
        return t;
    }

    /// Rewrites the line subposition of `sp` from `t`'s line table.
    void apply_lines(const Target& t, bool has_addr, std::uint64_t addr, Subpos& sp,
                     std::string& file) const {
        if (!t.range || !t.by_address || !has_addr || line_idx_ < 0) return;
        if (const LineEntry* e = t.range->line_at(addr)) {
            sp[static_cast<std::size_t>(line_idx_)] = e->line;
            file = e->file;
        }
    }

    bool addr_of(const Subpos& sp, std::uint64_t& a) const {
        if (instr_idx_ < 0) return false;
        a = sp[static_cast<std::size_t>(instr_idx_)];
        return true;
    }

    // -- lines ------------------------------------------------------------

    void header_line(const std::string& key, const std::string& value, const std::string& raw) {
        if (key == "totals") {
            part().totals_line = raw;
            return;
        }
        if (key == "summary") {
            part().header.push_back(raw);
            return;
        }
        if (in_body_) {  // a new part begins: its own header and names in effect
            parts.emplace_back();
            in_body_ = false;
            last_.clear();
            ob_.clear();
            cur_file_ = fn_file_ = "???";
            fn_.clear();
            have_fn_ = pseudo_ = false;
            ctx_range_ = nullptr;
            reset_call_spec();
        }
        if (key == "events") {
            part().events = split(value);
            if (part().events.empty()) fail("\"events:\" names no event");
        } else if (key == "positions") {
            part().positions = split(value);
            if (part().positions.empty()) fail("\"positions:\" names no subposition");
        }
        part().header.push_back(raw);
    }

    void start_body() {
        if (in_body_) return;
        in_body_ = true;
        if (part().events.empty()) fail("cost data before the \"events:\" header line");
        const auto& pos = part().positions;
        instr_idx_ = line_idx_ = -1;
        for (std::size_t i = 0; i < pos.size(); ++i) {
            if ((pos[i] == "instr" || pos[i] == "addr") && instr_idx_ < 0) instr_idx_ = static_cast<int>(i);
            if (pos[i] == "line" && line_idx_ < 0) line_idx_ = static_cast<int>(i);
        }
        if (instr_idx_ < 0) has_instr_everywhere = false;
        last_.assign(pos.size(), 0);
        part().input_sum.assign(part().events.size(), 0);
        part().output_sum.assign(part().events.size(), 0);
    }

    void set_function(const std::string& fn) {
        fn_ = fn;
        fn_file_ = cur_file_;
        std::uint64_t a = 0;
        pseudo_ = is_anonymous_object(ob_) && parse_pseudo_name(fn_, a, ctx_suffix_);
        ctx_range_ = pseudo_ ? map_.find(a) : nullptr;
        if (pseudo_ && !stats.seen_pseudo.count(fn_)) {
            stats.seen_pseudo[fn_] = true;
            ++stats.pseudo_functions;
            if (ctx_range_) ++stats.renamed_functions;
        }
        have_fn_ = true;
        reset_call_spec();
    }

    void reset_call_spec() {
        cob_.reset();
        cfi_.reset();
        cfn_.reset();
        jfi_.reset();
        jfn_.reset();
    }

    void position_line(const std::string& key, const std::string& value) {
        start_body();
        if (pending_ != Pending::None) fail("\"" + key + "=\" where the line after calls=/jump=/jcnd= was expected");
        if (key == "ob") {
            ob_ = name(objects_, value);
        } else if (key == "fl") {
            cur_file_ = name(files_, value);
            fn_file_ = cur_file_;
        } else if (key == "fi" || key == "fe") {
            cur_file_ = name(files_, value);
        } else if (key == "fn") {
            set_function(name(functions_, value));
        } else if (key == "cob") {
            cob_ = name(objects_, value);
        } else if (key == "cfi" || key == "cfl") {
            cfi_ = name(files_, value);
        } else if (key == "cfn") {
            cfn_ = name(functions_, value);
        } else if (key == "jfi") {
            jfi_ = name(files_, value);
        } else if (key == "jfn") {
            jfn_ = name(functions_, value);
        } else if (key == "calls") {
            if (!cfn_) fail("calls= without a preceding cfn=");
            const auto tokens = split(value);
            std::size_t i = 1;
            if (tokens.empty() || !parse_number(tokens[0], call_count_)) fail("bad call count in calls=" + value);
            parse_subpos(tokens, i, last_, call_target_);
            pending_ = Pending::Call;
        } else if (key == "jump" || key == "jcnd") {
            const auto tokens = split(value);
            if (tokens.empty()) fail("empty " + key + "=");
            jump_cond_ = key == "jcnd";
            if (jump_cond_) {
                const std::size_t slash = tokens[0].find('/');
                if (slash == std::string::npos || !parse_number(tokens[0].substr(0, slash), jump_a_) ||
                    !parse_number(tokens[0].substr(slash + 1), jump_b_))
                    fail("bad jcnd=FOLLOWED/EXECUTED count '" + tokens[0] + "'");
            } else {
                if (!parse_number(tokens[0], jump_a_)) fail("bad jump count '" + tokens[0] + "'");
                jump_b_ = 0;
            }
            std::size_t i = 1;
            parse_subpos(tokens, i, last_, jump_target_);
            pending_ = Pending::Jump;
        } else {
            fail("unknown specification \"" + key + "=\"");
        }
    }

    void cost_line(const std::string& raw) {
        start_body();
        if (!have_fn_) fail("cost line before any fn=");
        const auto tokens = split(raw);
        std::size_t i = 0;
        Subpos sp;
        parse_subpos(tokens, i, last_, sp);
        Costs costs;
        if (pending_ != Pending::Jump) {
            if (tokens.size() - i > part().events.size())
                fail("cost line has " + std::to_string(tokens.size() - i) + " costs but \"events:\" names " +
                     std::to_string(part().events.size()));
            costs.assign(part().events.size(), 0);
            for (std::size_t k = 0; i < tokens.size(); ++i, ++k)
                if (!parse_number(tokens[i], costs[k])) fail("bad cost '" + tokens[i] + "'");
        } else if (i != tokens.size()) {
            fail("the line after jump=/jcnd= holds only the source position");
        }
        std::uint64_t addr = 0;
        const bool has_addr = addr_of(sp, addr);
        Target t = resolve(has_addr, addr);
        Subpos out_sp = sp;
        std::string file = t.file;
        apply_lines(t, has_addr, addr, out_sp, file);

        switch (pending_) {
        case Pending::None: {
            add_costs(part().function(t.key).self[Position{file, out_sp}], costs);
            add_costs(part().input_sum, costs);
            add_costs(part().output_sum, costs);
            if (pseudo_ && t.range) ++stats.lines_moved;
            last_ = sp;
            break;
        }
        case Pending::Call:
            record_call(t, Position{file, out_sp}, costs);
            break;
        case Pending::Jump:
            record_jump(t, Position{file, out_sp});
            break;
        }
        pending_ = Pending::None;
    }

    void record_call(const Target& caller, const Position& site, const Costs& costs) {
        const std::string cob = cob_ ? *cob_ : ob_;
        const std::string cfile = cfi_ ? *cfi_ : cur_file_;
        FnKey callee{cob, cfile, *cfn_};
        Subpos target = call_target_;
        std::uint64_t a = 0;
        std::string suffix;
        if (is_anonymous_object(cob) && parse_pseudo_name(*cfn_, a, suffix)) {
            if (const MappedRange* r = map_.find(a)) {
                if (caller.range && caller.range->name == r->name && caller.range->object == r->object &&
                    a != r->start) {
                    // A piece of the caller's own function: not a call.
                    ++stats.calls_dropped;
                    cob_.reset();
                    cfi_.reset();
                    return;
                }
                callee = FnKey{r->object, r->file(), r->name + suffix};
                std::uint64_t ta = 0;
                if (addr_of(target, ta) && line_idx_ >= 0)
                    if (const LineEntry* e = r->line_at(ta)) target[static_cast<std::size_t>(line_idx_)] = e->line;
                ++stats.calls_renamed;
            }
        }
        CallValue& v = part().function(caller.key).calls[CallKey{site, callee, target}];
        v.count += call_count_;
        add_costs(v.inclusive, costs);
        cob_.reset();
        cfi_.reset();
    }

    void record_jump(const Target& source, const Position& site) {
        // Jumps stay inside one object (Callgrind turns others into calls).
        std::string tfile = jfi_ ? *jfi_ : cur_file_;
        std::string tfn = jfn_ ? *jfn_ : fn_;
        FnKey tkey{ob_, tfile, tfn};
        Subpos target = jump_target_;
        std::uint64_t ta = 0;
        const bool has_ta = addr_of(target, ta);
        std::uint64_t a = 0;
        std::string suffix;
        if (is_anonymous_object(ob_) && parse_pseudo_name(tfn, a, suffix)) {
            const MappedRange* r = has_ta ? map_.find(ta) : nullptr;
            if (!r) r = map_.find(a);
            if (r) {
                tkey = FnKey{r->object, r->file(), r->name};
                tfile = r->file();
                if (has_ta && line_idx_ >= 0)
                    if (const LineEntry* e = r->line_at(ta)) {
                        target[static_cast<std::size_t>(line_idx_)] = e->line;
                        tfile = e->file;
                    }
            }
        }
        const bool same = std::get<0>(tkey) == std::get<0>(source.key) &&
                          std::get<2>(tkey) == std::get<2>(source.key);
        JumpKey k{jump_cond_, site, tfile, same ? std::string() : std::get<2>(tkey), target};
        JumpValue& v = part().function(source.key).jumps[k];
        v.followed += jump_a_;
        v.executed += jump_b_;
        jfi_.reset();
        jfn_.reset();
    }

    void handle(const std::string& line) {
        std::size_t b = 0;
        while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
        if (b == line.size() || line[b] == '#') return;  // empty line or comment
        const char c = line[b];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
            cost_line(line);
            return;
        }
        // "key=value" (body) or "key: value" (header)
        std::size_t k = b;
        while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_')) ++k;
        if (k < line.size() && line[k] == '=' && k > b) {
            position_line(line.substr(b, k - b), line.substr(k + 1));
            return;
        }
        if (k < line.size() && line[k] == ':' && k > b) {
            if (pending_ != Pending::None) fail("header line where the line after calls=/jump=/jcnd= was expected");
            std::size_t v = k + 1;
            while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
            header_line(line.substr(b, k - b), line.substr(v), line);
            return;
        }
        fail("malformed line (neither a header line \"key: value\", a specification \"key=value\" nor a cost line)");
    }

    const CodeMap& map_;
    std::string source_;
    unsigned long lineno_ = 0;
    bool in_body_ = false;
    int instr_idx_ = -1, line_idx_ = -1;
    Subpos last_;
    std::map<std::uint64_t, std::string> objects_, files_, functions_;
    std::string ob_, cur_file_ = "???", fn_file_ = "???", fn_;
    bool have_fn_ = false;
    bool pseudo_ = false;
    const MappedRange* ctx_range_ = nullptr;
    std::string ctx_suffix_;
    struct Opt {
        bool set = false;
        std::string v;
        explicit operator bool() const { return set; }
        const std::string& operator*() const { return v; }
        Opt& operator=(const std::string& s) { set = true; v = s; return *this; }
        void reset() { set = false; v.clear(); }
    } cob_, cfi_, cfn_, jfi_, jfn_;
    Pending pending_ = Pending::None;
    std::uint64_t call_count_ = 0;
    Subpos call_target_, jump_target_;
    bool jump_cond_ = false;
    std::uint64_t jump_a_ = 0, jump_b_ = 0;
};

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Writes names with Callgrind's name compression: "(N) name" the first
/// time, "(N)" afterwards; one id space each for objects, files, functions
/// (as Callgrind: ob/cob, fl/fi/fe/cfi/jfi, fn/cfn/jfn).
class NameWriter {
public:
    std::string operator()(const std::string& n) {
        auto it = ids_.find(n);
        if (it != ids_.end()) return "(" + std::to_string(it->second) + ")";
        const std::size_t id = ids_.size() + 1;
        ids_.emplace(n, id);
        return "(" + std::to_string(id) + ") " + n;
    }

private:
    std::map<std::string, std::size_t> ids_;
};

class Writer {
public:
    explicit Writer(std::ostream& os) : os_(os) {}

    void write(const std::vector<Part>& parts, const std::string& comment) {
        os_ << "# callgrind format\n";
        os_ << "# " << comment << "\n";
        for (const Part& p : parts) write_part(p);
    }

private:
    std::string subpos(const Part& p, const Subpos& s) const {
        std::ostringstream o;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (i) o << ' ';
            if (p.positions[i] == "instr" || p.positions[i] == "addr")
                o << "0x" << std::hex << s[i] << std::dec;
            else
                o << s[i];
        }
        return o.str();
    }
    static std::string costs(const Costs& c) {
        std::string s;
        std::size_t n = c.size();
        while (n > 1 && c[n - 1] == 0) --n;  // trailing zeros may be omitted
        for (std::size_t i = 0; i < n; ++i) {
            s += ' ';
            s += std::to_string(c[i]);
        }
        return s;
    }
    void file_switch(const std::string& fn_file, const std::string& file, std::string& current) {
        if (file == current) return;
        os_ << (file == fn_file ? "fe=" : "fi=") << files_(file) << '\n';
        current = file;
    }

    void write_part(const Part& p) {
        // Each part defines the names it uses: a reader may take parts alone.
        objects_ = NameWriter();
        files_ = NameWriter();
        functions_ = NameWriter();
        for (const std::string& h : p.header) os_ << h << '\n';
        os_ << '\n';
        std::string cur_ob;
        bool have_ob = false;
        for (const FnKey& k : p.order) {
            const FunctionData& d = p.functions.at(k);
            const std::string& ob = std::get<0>(k);
            const std::string& fl = std::get<1>(k);
            if (!have_ob || ob != cur_ob) {
                os_ << "ob=" << objects_(ob) << '\n';
                cur_ob = ob;
                have_ob = true;
            }
            os_ << "fl=" << files_(fl) << '\n';
            os_ << "fn=" << functions_(std::get<2>(k)) << '\n';
            std::string current = fl;
            for (const auto& [pos, c] : d.self) {
                file_switch(fl, pos.first, current);
                os_ << subpos(p, pos.second) << costs(c) << '\n';
            }
            for (const auto& [ck, v] : d.calls) {
                file_switch(fl, ck.site.first, current);
                if (std::get<0>(ck.callee) != ob) os_ << "cob=" << objects_(std::get<0>(ck.callee)) << '\n';
                os_ << "cfi=" << files_(std::get<1>(ck.callee)) << '\n';
                os_ << "cfn=" << functions_(std::get<2>(ck.callee)) << '\n';
                os_ << "calls=" << v.count << ' ' << subpos(p, ck.target) << '\n';
                os_ << subpos(p, ck.site.second) << costs(v.inclusive) << '\n';
            }
            for (const auto& [jk, v] : d.jumps) {
                file_switch(fl, jk.site.first, current);
                if (jk.target_file != current) os_ << "jfi=" << files_(jk.target_file) << '\n';
                if (!jk.target_fn.empty()) os_ << "jfn=" << functions_(jk.target_fn) << '\n';
                if (jk.conditional)
                    os_ << "jcnd=" << v.followed << '/' << v.executed;
                else
                    os_ << "jump=" << v.followed;
                os_ << ' ' << subpos(p, jk.target) << '\n' << subpos(p, jk.site.second) << '\n';
            }
            os_ << '\n';
        }
        if (!p.totals_line.empty()) os_ << p.totals_line << '\n';
    }

    std::ostream& os_;
    NameWriter objects_, files_, functions_;
};

std::string absolute_path(const std::string& path) {
    char* r = ::realpath(path.c_str(), nullptr);
    if (!r) return path;
    std::string s(r);
    std::free(r);
    return s;
}

}  // namespace

int run_annotate(const AnnotateOptions& opts) {
    bool problems = false;
    CodeMap map;
    for (const std::string& m : opts.maps) {
        const std::string object = absolute_path(m);
        MapSink sink(object, map);
        sink.file_ = m;
        AnalyzeOptions ao;
        if (!analyze_file(m, ao, sink)) {
            problems = true;
            continue;
        }
        if (sink.errors_) {
            problems = true;
            if (sink.errors_ > MapSink::kMaxShown)
                std::cerr << "vg-jit: annotate: " << m << ": " << sink.errors_ - MapSink::kMaxShown
                          << " more errors (vg-jit check " << m << " lists them)\n";
        }
        if (sink.entries_ == 0) {
            std::cerr << "vg-jit: annotate: " << m << ": warning: names no code\n";
            problems = true;
        }
        if (opts.verbose)
            std::cerr << "vg-jit: annotate: " << m << ": " << sink.entries_ << " entries, "
                      << sink.warnings_ << " warnings (overlapping ranges: the later entry wins)\n";
    }

    std::ifstream in(opts.profile, std::ios::binary);
    if (!in) {
        std::cerr << "vg-jit: annotate: " << opts.profile << ": error: cannot open: "
                  << std::strerror(errno) << '\n';
        return kExitProblems;
    }
    Rewriter rw(map, opts.profile);
    try {
        rw.read(in);
        if (in.bad()) throw ParseFailure(opts.profile + ": error: read error");
    } catch (const ParseFailure& e) {
        std::cerr << "vg-jit: annotate: " << e.what() << '\n';
        return kExitProblems;
    }
    if (!rw.has_instr_everywhere)
        std::cerr << "vg-jit: annotate: " << opts.profile
                  << ": warning: no instruction addresses (\"positions:\" lacks \"instr\"): "
                     "costs are attributed by each pseudo-function's entry address, which is "
                     "approximate; profile with --dump-instr=yes for exact self costs\n";

    std::string comment = "rewritten by vg-jit annotate with";
    for (const std::string& m : opts.maps) comment += " --map " + m;
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!opts.output.empty() && opts.output != "-") {
        file.open(opts.output, std::ios::binary | std::ios::trunc);
        if (!file) {
            std::cerr << "vg-jit: annotate: " << opts.output << ": error: cannot create: "
                      << std::strerror(errno) << '\n';
            return kExitProblems;
        }
        out = &file;
    }
    Writer(*out).write(rw.parts, comment);
    out->flush();
    if (!*out) {
        std::cerr << "vg-jit: annotate: " << (out == &file ? opts.output : "stdout")
                  << ": error: write error\n";
        return kExitProblems;
    }
    if (opts.verbose)
        std::cerr << "vg-jit: annotate: " << map.size() << " mapped ranges; "
                  << rw.stats.pseudo_functions << " pseudo-functions, " << rw.stats.renamed_functions
                  << " of them in mapped ranges; " << rw.stats.lines_moved
                  << " cost lines attributed to mapped functions; " << rw.stats.calls_renamed
                  << " calls renamed, " << rw.stats.calls_dropped
                  << " calls between pieces of one function dropped\n";
    return problems ? kExitProblems : kExitClean;
}

}  // namespace vgjit
