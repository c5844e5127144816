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
//    positions written absolute).  The profile is read and written with
//    callgrind_format.hpp.
#include "callgrind_format.hpp"
#include "commands.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
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
            std::stable_sort(
                pending_.begin(), pending_.end(),
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
            if (errors_ <= kMaxShown)
                std::cerr << "vg-jit: annotate: " << format_problem(file_, p) << '\n';
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

using callgrind::Costs;
using callgrind::Subpos;

void add_costs(Costs& to, const Costs& from) {
    if (to.size() < from.size()) to.resize(from.size(), 0);
    for (std::size_t i = 0; i < from.size(); ++i) to[i] += from[i];
}

/// A position inside a function: the source file of the cost line (fl=, or
/// fi=/fe=) and the subpositions; ordered, so that output is sorted.
using Site = std::pair<std::string, Subpos>;

struct CallKey {
    Site site;
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
    Site site;
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
    std::map<Site, Costs> self;
    std::map<CallKey, CallValue> calls;
    std::map<JumpKey, JumpValue> jumps;
};

/// One part of a profile (Callgrind writes one per dump).
struct Part {
    std::vector<std::string> header;  ///< header lines, verbatim, in order
    std::string totals_line;          ///< "totals: ..." if present
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

/// Builds the rewritten parts from what the profile reader reports.
class Rewriter : public callgrind::Handler {
public:
    Rewriter(const CodeMap& map, const std::string& source) : map_(map), reader_(*this, source) {}

    std::vector<Part> parts;
    Stats stats;
    bool has_instr_everywhere = true;

    /// Reads the whole profile; throws callgrind::ParseError.
    void read(std::istream& in) {
        reader_.read(in);
        for (const Part& p : parts)
            if (p.input_sum != p.output_sum)  // cannot happen: lines are only moved
                reader_.fail("internal error: event sums differ after the rewrite");
    }

private:
    // -- attribution --------------------------------------------------------

    /// Where a cost at instruction address `addr` (if `has_addr`) of the
    /// current function goes.
    struct Target {
        FnKey key;
        const MappedRange* range = nullptr;  ///< mapped function, or null
        std::string file;                    ///< file of the cost line
        bool by_address = false;             ///< range found by the address
    };

    Target resolve(bool has_addr, std::uint64_t addr, const std::string& file) const {
        Target t;
        if (pseudo_) {
            const MappedRange* r = has_addr ? map_.find(addr) : nullptr;
            if (r) {
                const bool same =
                    ctx_range_ && ctx_range_->name == r->name && ctx_range_->object == r->object;
                t.key = FnKey{r->object, r->file(), r->name + (same ? ctx_suffix_ : "")};
                t.range = r;
                t.by_address = true;
                t.file = r->file();
                return t;
            }
            if (ctx_range_) {
                t.key =
                    FnKey{ctx_range_->object, ctx_range_->file(), ctx_range_->name + ctx_suffix_};
                t.range = ctx_range_;
                t.file = ctx_range_->file();
                return t;
            }
        }
        t.key = fn_;
        t.file = file;
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

    /// The target and the rewritten site of a line at `pos`.
    Target attribute(const callgrind::Position& pos, Site& site) const {
        std::uint64_t addr = 0;
        const bool has_addr = addr_of(pos.subpos, addr);
        Target t = resolve(has_addr, addr, pos.file);
        site = Site{t.file, pos.subpos};
        apply_lines(t, has_addr, addr, site.second, site.first);
        return t;
    }

    // -- reader events ------------------------------------------------------

    void part() override {
        parts.emplace_back();
        have_positions_ = false;
    }

    void header(const std::string& key, const std::string&, const std::string& raw) override {
        if (key == "totals")
            parts.back().totals_line = raw;
        else
            parts.back().header.push_back(raw);
    }

    /// The part's columns, once its body begins.
    void columns() {
        if (have_positions_) return;
        have_positions_ = true;
        Part& p = parts.back();
        p.positions = reader_.positions();
        instr_idx_ = reader_.position_index("instr");
        if (instr_idx_ < 0) instr_idx_ = reader_.position_index("addr");
        line_idx_ = reader_.position_index("line");
        if (instr_idx_ < 0) has_instr_everywhere = false;
        p.input_sum.assign(reader_.events().size(), 0);
        p.output_sum.assign(reader_.events().size(), 0);
    }

    void function(const std::string& object, const std::string& file,
                  const std::string& name) override {
        columns();
        fn_ = FnKey{object, file, name};
        std::uint64_t a = 0;
        pseudo_ = is_anonymous_object(object) && parse_pseudo_name(name, a, ctx_suffix_);
        ctx_range_ = pseudo_ ? map_.find(a) : nullptr;
        if (pseudo_ && !stats.seen_pseudo.count(name)) {
            stats.seen_pseudo[name] = true;
            ++stats.pseudo_functions;
            if (ctx_range_) ++stats.renamed_functions;
        }
    }

    void cost(const callgrind::Position& pos, const Costs& costs) override {
        Site site;
        const Target t = attribute(pos, site);
        Part& p = parts.back();
        add_costs(p.function(t.key).self[site], costs);
        add_costs(p.input_sum, costs);
        add_costs(p.output_sum, costs);
        if (pseudo_ && t.range) ++stats.lines_moved;
    }

    void call(const callgrind::Call& c) override {
        Site site;
        const Target caller = attribute(c.site, site);
        FnKey callee{c.object, c.file, c.name};
        Subpos target = c.target;
        std::uint64_t a = 0;
        std::string suffix;
        if (is_anonymous_object(c.object) && parse_pseudo_name(c.name, a, suffix)) {
            if (const MappedRange* r = map_.find(a)) {
                if (caller.range && caller.range->name == r->name &&
                    caller.range->object == r->object && a != r->start) {
                    // A piece of the caller's own function: not a call.
                    ++stats.calls_dropped;
                    return;
                }
                callee = FnKey{r->object, r->file(), r->name + suffix};
                std::uint64_t ta = 0;
                if (addr_of(target, ta) && line_idx_ >= 0)
                    if (const LineEntry* e = r->line_at(ta))
                        target[static_cast<std::size_t>(line_idx_)] = e->line;
                ++stats.calls_renamed;
            }
        }
        CallValue& v = parts.back().function(caller.key).calls[CallKey{site, callee, target}];
        v.count += c.count;
        add_costs(v.inclusive, c.inclusive);
    }

    void jump(const callgrind::Jump& j) override {
        // Jumps stay inside one object (Callgrind turns others into calls).
        Site site;
        const Target source = attribute(j.site, site);
        const std::string& ob = std::get<0>(fn_);
        std::string tfile = j.file;
        FnKey tkey{ob, tfile, j.function};
        Subpos target = j.target;
        std::uint64_t ta = 0;
        const bool has_ta = addr_of(target, ta);
        std::uint64_t a = 0;
        std::string suffix;
        if (is_anonymous_object(ob) && parse_pseudo_name(j.function, a, suffix)) {
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
        JumpKey k{j.conditional, site, tfile, same ? std::string() : std::get<2>(tkey), target};
        JumpValue& v = parts.back().function(source.key).jumps[k];
        v.followed += j.followed;
        v.executed += j.executed;
    }

    const CodeMap& map_;
    callgrind::Reader reader_;
    bool have_positions_ = false;
    int instr_idx_ = -1, line_idx_ = -1;
    FnKey fn_;
    bool pseudo_ = false;
    const MappedRange* ctx_range_ = nullptr;
    std::string ctx_suffix_;
};

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

class Writer {
public:
    explicit Writer(std::ostream& os) : os_(os) {}

    void write(const std::vector<Part>& parts, const std::string& comment) {
        os_ << "# callgrind format\n";
        os_ << "# " << comment << "\n";
        for (const Part& p : parts) write_part(p);
    }

private:
    void file_switch(const std::string& fn_file, const std::string& file, std::string& current) {
        if (file == current) return;
        os_ << (file == fn_file ? "fe=" : "fi=") << files_(file) << '\n';
        current = file;
    }

    void write_part(const Part& p) {
        using callgrind::format_costs;
        const auto subpos = [&p](const Subpos& s) {
            return callgrind::format_subpos(p.positions, s);
        };
        // Each part defines the names it uses: a reader may take parts alone.
        objects_ = callgrind::NameWriter();
        files_ = callgrind::NameWriter();
        functions_ = callgrind::NameWriter();
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
                os_ << subpos(pos.second) << format_costs(c) << '\n';
            }
            for (const auto& [ck, v] : d.calls) {
                file_switch(fl, ck.site.first, current);
                if (std::get<0>(ck.callee) != ob)
                    os_ << "cob=" << objects_(std::get<0>(ck.callee)) << '\n';
                os_ << "cfi=" << files_(std::get<1>(ck.callee)) << '\n';
                os_ << "cfn=" << functions_(std::get<2>(ck.callee)) << '\n';
                os_ << "calls=" << v.count << ' ' << subpos(ck.target) << '\n';
                os_ << subpos(ck.site.second) << format_costs(v.inclusive) << '\n';
            }
            for (const auto& [jk, v] : d.jumps) {
                file_switch(fl, jk.site.first, current);
                if (jk.target_file != current) os_ << "jfi=" << files_(jk.target_file) << '\n';
                if (!jk.target_fn.empty()) os_ << "jfn=" << functions_(jk.target_fn) << '\n';
                if (jk.conditional)
                    os_ << "jcnd=" << v.followed << '/' << v.executed;
                else
                    os_ << "jump=" << v.followed;
                os_ << ' ' << subpos(jk.target) << '\n' << subpos(jk.site.second) << '\n';
            }
            os_ << '\n';
        }
        if (!p.totals_line.empty()) os_ << p.totals_line << '\n';
    }

    std::ostream& os_;
    callgrind::NameWriter objects_, files_, functions_;
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
        std::cerr << "vg-jit: annotate: " << opts.profile
                  << ": error: cannot open: " << std::strerror(errno) << '\n';
        return kExitProblems;
    }
    Rewriter rw(map, opts.profile);
    try {
        rw.read(in);
    } catch (const callgrind::ParseError& e) {
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
            std::cerr << "vg-jit: annotate: " << opts.output
                      << ": error: cannot create: " << std::strerror(errno) << '\n';
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
                  << rw.stats.pseudo_functions << " pseudo-functions, "
                  << rw.stats.renamed_functions << " of them in mapped ranges; "
                  << rw.stats.lines_moved << " cost lines attributed to mapped functions; "
                  << rw.stats.calls_renamed << " calls renamed, " << rw.stats.calls_dropped
                  << " calls between pieces of one function dropped\n";
    return problems ? kExitProblems : kExitClean;
}

}  // namespace vgjit
