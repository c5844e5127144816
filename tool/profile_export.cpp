// profile_export.cpp: Callgrind/Cachegrind profiles as weighted stack
// samples and their Firefox Profiler and folded-stack forms (rules in
// profile_export.hpp).
#include "profile_export.hpp"

#include "callgrind_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace vgjit {
namespace exporting {

namespace {

using callgrind::ParseError;

/// The calls from one node to another in one part: the line of the call
/// site in the caller (if all calls were made from one line).
struct Edge {
    std::size_t from = 0, to = 0;
    std::uint64_t site_line = 0;
    bool one_site = true;  ///< every call was made from site_line
};

/// A function of one part in one context (one fn=).
struct Node {
    std::string object, file, name;  // as the part names it (name with context)
    std::uint64_t first_line = 0;
    std::size_t function = 0;                     // set when the part has been read
    std::map<std::uint64_t, std::uint64_t> self;  // line -> cost of the event
    std::uint64_t self_sum = 0;                   // of the event
    /// Per event of the part: self cost plus the inclusive cost of the
    /// node's calls, less the inclusive cost of the calls to it.  Every
    /// activation that was called is in a calls= line of its caller, so
    /// this is 0 unless some activation was not (the bottom of a stack, a
    /// thread's start): it is positive then.
    std::vector<__int128> unexplained;
};

struct PairHash {
    std::size_t operator()(const std::pair<std::size_t, std::size_t>& k) const {
        return std::hash<std::size_t>()(k.first * 0x9e3779b97f4a7c15ULL ^ k.second);
    }
};

/// One part as read.
struct RawPart {
    std::string thread = "1";
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::unordered_map<std::pair<std::size_t, std::size_t>, std::size_t, PairHash> edge_index;
    std::uint64_t sum = 0;  // of the event over the cost lines
    bool body = false, trailer = false;
};

bool is_address_name(const std::string& n) {
    if (n.size() < 3 || n[0] != '0' || (n[1] != 'x' && n[1] != 'X')) return false;
    return n.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
}

bool ends_with(const std::string& s, const std::string& t) {
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

/// Whether `object` is an existing file that is not ELF (a producer's
/// file named as object); asked once per object.
bool non_elf_file(const std::string& object) {
    static std::unordered_map<std::string, bool> known;
    const auto it = known.find(object);
    if (it != known.end()) return it->second;
    std::ifstream f(object, std::ios::binary);
    char magic[4] = {};
    const bool r = f && f.read(magic, 4) &&
                   !(magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F');
    known.emplace(object, r);
    return r;
}

Kind classify(const std::string& object, const std::string& name) {
    if (is_address_name(name) || object == "???") return Kind::Unnamed;
    if (object.empty()) return Kind::Native;  // Cachegrind names no objects
    if (object[0] != '/') return Kind::Jit;   // a JIT object's name, a --dump-jit-code file
    if (ends_with(object, ".dump") ||
        (ends_with(object, ".map") && object.find("/perf-") != std::string::npos))
        return Kind::Jit;
    if (non_elf_file(object)) return Kind::Jit;  // a producer's file
    return Kind::Native;
}

/// Collects the parts of one file.
class Collector : public callgrind::Handler {
public:
    Collector(Converted& c, std::vector<RawPart>& parts, const std::string& event,
              std::map<std::tuple<std::string, std::string, std::string>, std::size_t>& functions)
        : c_(c), parts_(parts), event_(event), functions_(functions) {}
    void set_reader(callgrind::Reader* r) { reader_ = r; }

    void part() override {
        finish_part();
        parts_.emplace_back();
        cur_ = &parts_.back();
        ev_ = -1;
        nodes_.clear();
        node_ = kNoStack;
    }
    void header(const std::string& key, const std::string& value, const std::string&) override {
        if (key == "cmd" && c_.command.empty())
            c_.command = value;
        else if (key == "pid" && c_.pid.empty())
            c_.pid = value;
        else if (key == "creator" && c_.creator.empty())
            c_.creator = value;
        else if (key == "thread")
            cur_->thread = value;
        else if (key == "events") {
            const auto& ev = reader_->events();
            if (c_.events.empty()) c_.events = ev;
            for (std::size_t i = 0; i < ev.size(); ++i)
                if (ev[i] == event_) ev_ = static_cast<int>(i);
            if (ev_ < 0) {
                std::string names;
                for (const std::string& e : ev) names += (names.empty() ? "" : ", ") + e;
                reader_->fail("no event '" + event_ + "' in this part (its events: " + names + ")");
            }
        } else if ((key == "totals" || key == "summary") && cur_->body) {
            const auto words = callgrind::split_words(value);
            std::uint64_t v = 0;
            if (static_cast<std::size_t>(ev_) < words.size())
                callgrind::Reader::parse_number(words[static_cast<std::size_t>(ev_)], v);
            if (reader_->events() == c_.events) {
                c_.event_totals.resize(c_.events.size(), 0);
                for (std::size_t i = 0; i < words.size() && i < c_.events.size(); ++i) {
                    std::uint64_t t = 0;
                    callgrind::Reader::parse_number(words[i], t);
                    if (__builtin_add_overflow(c_.event_totals[i], t, &c_.event_totals[i]))
                        reader_->fail("the totals of " + c_.events[i] +
                                      " add up to more than 2^64");
                }
            }
            if (v != cur_->sum)
                reader_->fail("\"" + key + ":\" gives " + std::to_string(v) + " " + event_ +
                              " but the part's cost lines add up to " + std::to_string(cur_->sum) +
                              " (a damaged profile)");
            cur_->trailer = true;
        }
    }
    void function(const std::string& object, const std::string& file,
                  const std::string& name) override {
        cur_->body = true;
        node_ = node(object, file, name);
    }
    void cost(const callgrind::Position& pos, const callgrind::Costs& costs) override {
        Node& n = cur_->nodes[node_];
        add_unexplained(n, costs, +1);
        const std::uint64_t v = costs[static_cast<std::size_t>(ev_)];
        if (v == 0) return;
        std::uint64_t line = 0;
        const int li = reader_->position_index("line");
        if (li >= 0 && pos.file == n.file) line = pos.subpos[static_cast<std::size_t>(li)];
        if (__builtin_add_overflow(cur_->sum, v, &cur_->sum))
            reader_->fail("the part's costs of " + event_ + " add up to more than 2^64");
        n.self[line] += v;
        n.self_sum += v;
        if (line && (n.first_line == 0 || line < n.first_line)) n.first_line = line;
    }
    void call(const callgrind::Call& call) override {
        const std::size_t to = node(call.object, call.file, call.name);
        const int li = reader_->position_index("line");
        const std::uint64_t site = li >= 0 && call.site.file == cur_->nodes[node_].file
                                       ? call.site.subpos[static_cast<std::size_t>(li)]
                                       : 0;
        const auto key = std::make_pair(node_, to);
        auto it = cur_->edge_index.find(key);
        if (it == cur_->edge_index.end()) {
            cur_->edge_index.emplace(key, cur_->edges.size());
            cur_->edges.push_back({node_, to, site, true});
        } else if (cur_->edges[it->second].site_line != site) {
            cur_->edges[it->second].one_site = false;
        }
        add_unexplained(cur_->nodes[node_], call.inclusive, +1);
        add_unexplained(cur_->nodes[to], call.inclusive, -1);
    }

    /// Checks the last part read; `source` and `lines` for the error.
    void finish(const std::string& source, unsigned long lines) {
        if (cur_ && cur_->body && !cur_->trailer)
            throw ParseError(
                source, lines,
                "the profile ends without the \"totals:\" (or \"summary:\") line of its "
                "last part: truncated?");
        resolve();
    }

private:
    /// Adds `sign` times `costs` (one per event of the part) to the
    /// node's unexplained costs.
    void add_unexplained(Node& n, const callgrind::Costs& costs, int sign) {
        if (n.unexplained.size() < costs.size()) n.unexplained.resize(costs.size(), 0);
        for (std::size_t i = 0; i < costs.size(); ++i)
            n.unexplained[i] += sign * static_cast<__int128>(costs[i]);
    }

    void finish_part() {
        if (cur_ && cur_->body && !cur_->trailer)
            reader_->fail(
                "a new part begins before the \"totals:\" line of the one before: truncated?");
        resolve();
    }

    /// Gives the part's nodes their functions.  A name is split into
    /// function and callers (callgrind::split_context_name) only where every
    /// caller is the function of some node of the part: a quote in a plain
    /// name ("f'x" with no function "x") stays part of the name.
    void resolve() {
        if (!cur_) return;
        std::vector<callgrind::ContextName> names;
        std::unordered_map<std::string, char> known;
        for (const Node& n : cur_->nodes) {
            names.push_back(callgrind::split_context_name(n.name));
            known[names.back().function] = 1;
        }
        for (std::size_t i = 0; i < cur_->nodes.size(); ++i) {
            Node& n = cur_->nodes[i];
            callgrind::ContextName& cn = names[i];
            bool context = true;
            for (const std::string& caller : cn.callers)
                if (!known.count(caller)) context = false;
            if (!context) {
                cn.function = n.name;
                cn.callers.clear();
            }
            if (!cn.callers.empty()) c_.has_contexts = true;
            const auto fkey = std::make_tuple(n.object, n.file, cn.function);
            auto f = functions_.find(fkey);
            if (f == functions_.end()) {
                f = functions_.emplace(fkey, c_.functions.size()).first;
                Function fn;
                fn.object = n.object;
                fn.file = n.file;
                fn.name = cn.function;
                fn.kind = classify(n.object, cn.function);
                c_.functions.push_back(fn);
            }
            n.function = f->second;
            Function& fn = c_.functions[n.function];
            if (n.first_line && (fn.first_line == 0 || n.first_line < fn.first_line))
                fn.first_line = n.first_line;
        }
    }

    std::size_t node(const std::string& object, const std::string& file, const std::string& name) {
        std::string key = object;
        key += '\0';
        key += file;
        key += '\0';
        key += name;
        auto it = nodes_.find(key);
        if (it != nodes_.end()) return it->second;
        Node n;
        n.object = object;
        n.file = file;
        n.name = name;
        cur_->nodes.push_back(std::move(n));
        nodes_.emplace(std::move(key), cur_->nodes.size() - 1);
        return cur_->nodes.size() - 1;
    }

    Converted& c_;
    std::vector<RawPart>& parts_;
    std::string event_;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t>& functions_;
    callgrind::Reader* reader_ = nullptr;
    RawPart* cur_ = nullptr;
    int ev_ = -1;
    std::unordered_map<std::string, std::size_t> nodes_;
    std::size_t node_ = kNoStack;
};

struct FrameHash {
    std::size_t operator()(const Frame& f) const {
        return std::hash<std::uint64_t>()(f.function * 0x9e3779b97f4a7c15ULL ^ f.line);
    }
};
struct FrameEq {
    bool operator()(const Frame& a, const Frame& b) const {
        return a.function == b.function && a.line == b.line;
    }
};

/// Builds the stack and frame tables.
class StackBuilder {
public:
    explicit StackBuilder(Converted& c) : c_(c) {}
    std::size_t frame(const Frame& f) {
        auto it = frames_.find(f);
        if (it != frames_.end()) return it->second;
        c_.frames.push_back(f);
        frames_.emplace(f, c_.frames.size() - 1);
        return c_.frames.size() - 1;
    }
    std::size_t stack(std::size_t parent, const Frame& f) {
        const std::size_t fr = frame(f);
        const auto key = std::make_pair(parent, fr);
        auto it = stacks_.find(key);
        if (it != stacks_.end()) return it->second;
        c_.stack_table.push_back({parent, fr});
        stacks_.emplace(key, c_.stack_table.size() - 1);
        return c_.stack_table.size() - 1;
    }
    /// The function kUnknownCallers (made when first asked for).
    std::size_t marker() {
        if (marker_ == kNoStack) {
            marker_ = c_.functions.size();
            Function f;
            f.name = kUnknownCallers;
            f.kind = Kind::Marker;
            c_.functions.push_back(f);
        }
        return marker_;
    }

private:
    Converted& c_;
    std::unordered_map<Frame, std::size_t, FrameHash, FrameEq> frames_;
    std::unordered_map<std::pair<std::size_t, std::size_t>, std::size_t, PairHash> stacks_;
    std::size_t marker_ = kNoStack;
};

/// A directed graph in compressed rows: the successors of v are
/// list[start[v]] .. list[start[v + 1] - 1].
struct Graph {
    std::vector<std::size_t> start, list;
    Graph(std::size_t vertices, const std::vector<std::pair<std::size_t, std::size_t>>& arcs)
        : start(vertices + 1, 0), list(arcs.size()) {
        for (const auto& a : arcs) ++start[a.first + 1];
        for (std::size_t v = 0; v < vertices; ++v) start[v + 1] += start[v];
        std::vector<std::size_t> at(start.begin(), start.end() - 1);
        for (const auto& a : arcs) list[at[a.first]++] = a.second;
    }
};

/// The immediate dominator of every vertex of `succ` reachable from
/// `entry` (Lengauer and Tarjan's algorithm, with path compression:
/// O(E log V)); `pred` is the reversed graph.  idom[entry] is entry,
/// unreachable vertices get kNoStack.
std::vector<std::size_t> immediate_dominators(std::size_t entry, const Graph& succ,
                                              const Graph& pred) {
    const std::size_t nv = succ.start.size() - 1, none = kNoStack;
    std::vector<std::size_t> dfn(nv, none), vertex, parent(nv, none);
    vertex.reserve(nv);
    {  // Depth-first numbering.
        std::vector<std::pair<std::size_t, std::size_t>> st;
        dfn[entry] = 0;
        vertex.push_back(entry);
        st.push_back({entry, succ.start[entry]});
        while (!st.empty()) {
            const std::size_t v = st.back().first;
            const std::size_t k = st.back().second;
            if (k == succ.start[v + 1]) {
                st.pop_back();
                continue;
            }
            ++st.back().second;
            const std::size_t w = succ.list[k];
            if (dfn[w] != none) continue;
            dfn[w] = vertex.size();
            vertex.push_back(w);
            parent[w] = v;
            st.push_back({w, succ.start[w]});
        }
    }
    std::vector<std::size_t> semi(dfn), label(nv), ancestor(nv, none), idom(nv, none),
        bucket_head(nv, none), bucket_next(nv, none), path;
    for (std::size_t v = 0; v < nv; ++v) label[v] = v;
    // The vertex of least semidominator number on the path from v up to
    // the root of its tree in the forest, compressing the path.
    auto eval = [&](std::size_t v) {
        if (ancestor[v] == none) return v;
        path.clear();
        for (std::size_t x = v; ancestor[ancestor[x]] != none; x = ancestor[x]) path.push_back(x);
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            const std::size_t x = *it, a = ancestor[x];
            if (semi[label[a]] < semi[label[x]]) label[x] = label[a];
            ancestor[x] = ancestor[a];
        }
        return label[v];
    };
    for (std::size_t i = vertex.size(); i-- > 1;) {
        const std::size_t w = vertex[i];
        for (std::size_t k = pred.start[w]; k < pred.start[w + 1]; ++k) {
            const std::size_t v = pred.list[k];
            if (dfn[v] == none) continue;
            const std::size_t u = eval(v);
            if (semi[u] < semi[w]) semi[w] = semi[u];
        }
        const std::size_t s = vertex[semi[w]], pw = parent[w];
        bucket_next[w] = bucket_head[s];
        bucket_head[s] = w;
        ancestor[w] = pw;
        for (std::size_t v = bucket_head[pw]; v != none; v = bucket_next[v]) {
            const std::size_t u = eval(v);
            idom[v] = semi[u] < semi[v] ? u : pw;
        }
        bucket_head[pw] = none;
    }
    for (std::size_t i = 1; i < vertex.size(); ++i) {
        const std::size_t w = vertex[i];
        if (idom[w] != vertex[semi[w]]) idom[w] = idom[idom[w]];
    }
    idom[entry] = entry;
    return idom;
}

/// Converts one part into samples appended to `t` (the stack rules in
/// profile_export.hpp).
void convert_part(Converted& c, StackBuilder& sb, const RawPart& p, Thread& t) {
    const std::size_t n = p.nodes.size(), entry = n, none = kNoStack;
    // The calls between distinct nodes; a recursive call of a node by
    // itself says nothing about its callers.
    std::vector<std::pair<std::size_t, std::size_t>> arcs;
    std::vector<char> called(n, 0);
    for (const Edge& e : p.edges)
        if (e.from != e.to) {
            arcs.push_back({e.from, e.to});
            called[e.to] = 1;
        }
    // Roots: nodes never called (the bottom of the stacks), and nodes
    // with activations that no call explains (partial roots: their
    // stacks get the marker, since some of their activations had callers).
    std::vector<char> partial(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (!called[i]) {
            arcs.push_back({entry, i});
            continue;
        }
        for (const __int128 u : p.nodes[i].unexplained)
            if (u > 0) partial[i] = 1;
        if (partial[i]) arcs.push_back({entry, i});
    }
    // Nodes no root reaches (a cycle of calls whose entry was not seen)
    // become partial roots too, in the order of the part.
    {
        const Graph g(n + 1, arcs);
        std::vector<char> seen(n + 1, 0);
        std::vector<std::size_t> todo{entry};
        auto flood = [&]() {
            while (!todo.empty()) {
                const std::size_t v = todo.back();
                todo.pop_back();
                if (seen[v]) continue;
                seen[v] = 1;
                for (std::size_t k = g.start[v]; k < g.start[v + 1]; ++k)
                    if (!seen[g.list[k]]) todo.push_back(g.list[k]);
            }
        };
        flood();
        for (std::size_t i = 0; i < n; ++i)
            if (!seen[i]) {
                partial[i] = 1;
                arcs.push_back({entry, i});
                todo.push_back(i);
                flood();
            }
    }
    const Graph succ(n + 1, arcs);
    for (auto& a : arcs) std::swap(a.first, a.second);
    const Graph pred(n + 1, arcs);
    arcs.clear();
    arcs.shrink_to_fit();
    const std::vector<std::size_t> idom = immediate_dominators(entry, succ, pred);

    // The dominator tree in preorder, with each vertex's interval of
    // preorder numbers (a dominates b iff b's number is in a's interval).
    std::vector<std::pair<std::size_t, std::size_t>> tree_arcs;
    for (std::size_t i = 0; i < n; ++i) tree_arcs.push_back({idom[i], i});
    const Graph tree(n + 1, tree_arcs);
    tree_arcs.clear();
    std::vector<std::size_t> order, pre(n + 1), last(n + 1);
    {
        std::vector<std::pair<std::size_t, std::size_t>> st{{entry, tree.start[entry]}};
        pre[entry] = 0;
        order.push_back(entry);
        while (!st.empty()) {
            const std::size_t v = st.back().first, k = st.back().second;
            if (k == tree.start[v + 1]) {
                last[v] = order.size() - 1;
                st.pop_back();
                continue;
            }
            ++st.back().second;
            const std::size_t w = tree.list[k];
            pre[w] = order.size();
            order.push_back(w);
            st.push_back({w, tree.start[w]});
        }
    }
    auto dominates = [&](std::size_t a, std::size_t b) {
        return pre[a] <= pre[b] && pre[b] <= last[a];
    };

    // Each node's stack of callers (prefix): its immediate dominator's
    // stack and frame, then the marker unless that dominator called every
    // outermost activation of the node itself.
    std::vector<std::size_t> prefix(n, none);
    std::vector<char> cut(n, 0);
    for (std::size_t oi = 1; oi < order.size(); ++oi) {
        const std::size_t x = order[oi], d = idom[x];
        bool direct = !partial[x];
        for (std::size_t k = pred.start[x]; k < pred.start[x + 1] && direct; ++k) {
            const std::size_t y = pred.list[k];
            // A call from a node that x dominates is a recursive one,
            // made from inside an activation of x.
            if (y != d && !dominates(x, y)) direct = false;
        }
        std::size_t base = none;
        if (d != entry) {
            std::uint64_t line = 0;
            if (direct) {
                const auto it = p.edge_index.find({d, x});
                if (it != p.edge_index.end() && p.edges[it->second].one_site)
                    line = p.edges[it->second].site_line;
            }
            base = sb.stack(prefix[d], Frame{p.nodes[d].function, line});
            cut[x] = cut[d];
        }
        if (!direct) {
            base = sb.stack(base, Frame{sb.marker(), 0});
            cut[x] = 1;
        }
        prefix[x] = base;
    }

    // Every line's self cost, whole, as one sample of its node's stack.
    t.part_starts.push_back(t.total);
    std::uint64_t time = t.total;
    for (std::size_t i = 0; i < n; ++i) {
        const Node& nd = p.nodes[i];
        if (nd.self.empty()) continue;
        if (cut[i])
            ++c.ambiguous;
        else
            c.exact_weight += nd.self_sum;
        for (const auto& [line, cost] : nd.self) {
            const std::size_t s = sb.stack(prefix[i], Frame{nd.function, line});
            t.samples.push_back({s, cost, time});
            time += cost;
        }
    }
    t.total = time;
}

}  // namespace

const char* kind_name(Kind k) {
    switch (k) {
    case Kind::Jit: return "JIT";
    case Kind::Native: return "Native";
    case Kind::Unnamed: return "Unnamed";
    case Kind::Marker: return "Other";
    }
    return "Native";
}

Converted convert(const std::vector<std::string>& paths, const ExportOptions& opts) {
    Converted c;
    c.event = opts.event;
    std::vector<RawPart> parts;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> functions;
    for (const std::string& path : paths) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
        Collector col(c, parts, opts.event, functions);
        callgrind::Reader reader(col, path);
        col.set_reader(&reader);
        reader.read(in);
        col.finish(path, reader.line_number());
    }
    StackBuilder sb(c);
    std::map<std::string, std::size_t> thread_index;
    bool any_edge = false;
    for (const RawPart& p : parts) {
        auto it = thread_index.find(p.thread);
        if (it == thread_index.end()) {
            it = thread_index.emplace(p.thread, c.threads.size()).first;
            c.threads.push_back(Thread{p.thread, {}, 0, {}});
        }
        if (!p.edges.empty()) any_edge = true;
        convert_part(c, sb, p, c.threads[it->second]);
        if (__builtin_add_overflow(c.total, p.sum, &c.total))
            throw std::runtime_error("the profile's total of " + opts.event + " exceeds 2^64");
        ++c.parts;
    }
    if (!any_edge)
        c.stacks = Stacks::Flat;
    else
        c.stacks = c.ambiguous == 0 ? Stacks::Exact : Stacks::Rebuilt;
    return c;
}

// ---------------------------------------------------------------------------
// The Firefox Profiler's processed format
// ---------------------------------------------------------------------------

namespace {

/// The largest integer a JSON reader keeps exactly in a double.
constexpr std::uint64_t kMaxExactDouble = (std::uint64_t{1} << 53);

class Strings {
public:
    std::size_t operator()(const std::string& s) {
        auto it = index_.find(s);
        if (it != index_.end()) return it->second;
        array_.push_back(s);
        index_.emplace(s, array_.size() - 1);
        return array_.size() - 1;
    }
    const std::vector<std::string>& array() const { return array_; }

private:
    std::vector<std::string> array_;
    std::unordered_map<std::string, std::size_t> index_;
};

std::string stacks_text(const Converted& c) {
    switch (c.stacks) {
    case Stacks::Exact:
        return c.has_contexts ? "exact (from Callgrind's contexts, --separate-callers)"
                              : "exact (every function was called from one caller)";
    case Stacks::Rebuilt:
        if (c.has_contexts)
            return "exact (from Callgrind's contexts) for " + std::to_string(c.exact_weight) +
                   " of " + std::to_string(c.total) + " " + c.event + "; " +
                   std::to_string(c.ambiguous) +
                   " contexts had several callers (chains longer than --separate-callers, "
                   "recursion deeper than --separate-recs): their stacks stop at the frame " +
                   kUnknownCallers + " below the callers every one of their calls had";
        return "rebuilt from call edges, whole for " + std::to_string(c.exact_weight) + " of " +
               std::to_string(c.total) + " " + c.event + ": " + std::to_string(c.ambiguous) +
               " functions had several callers, and the profile does not say which call led "
               "where; their stacks stop at the frame " +
               kUnknownCallers +
               " below the callers every one of their calls had (take the profile with "
               "--separate-callers=N for whole stacks)";
    case Stacks::Flat: return "flat: the profile has no calls (one frame per sample)";
    }
    return "";
}

}  // namespace

void write_firefox(const Converted& c, std::ostream& out) {
    using nlohmann::json;
    Strings str;
    // Categories: 0 is the default (grey).
    const json categories = json::array({
        {{"name", "Other"}, {"color", "grey"}, {"subcategories", {"Other"}}},
        {{"name", "JIT"}, {"color", "green"}, {"subcategories", {"Other"}}},
        {{"name", "Native"}, {"color", "blue"}, {"subcategories", {"Other"}}},
        {{"name", "Unnamed"}, {"color", "red"}, {"subcategories", {"Other"}}},
    });
    auto category_of = [](Kind k) {
        return k == Kind::Jit ? 1 : k == Kind::Native ? 2 : k == Kind::Unnamed ? 3 : 0;
    };

    // Resources (one per object) and sources (one per file).
    std::map<std::string, std::size_t> resource_index, source_index;
    json res_name = json::array(), res_host = json::array(), res_type = json::array();
    json src_id = json::array(), src_file = json::array(), src_line = json::array(),
         src_col = json::array(), src_map = json::array(), src_content = json::array();
    json fn_name = json::array(), fn_flags = json::array(), fn_res = json::array(),
         fn_src = json::array(), fn_line = json::array(), fn_col = json::array(),
         fn_orig = json::array();
    for (const Function& f : c.functions) {
        int flags = 0;
        std::size_t res = 0, src = 0;
        if (!f.object.empty()) {
            auto it = resource_index.find(f.object);
            if (it == resource_index.end()) {
                it = resource_index.emplace(f.object, res_name.size()).first;
                res_name.push_back(str(f.object));
                res_host.push_back(nullptr);
                res_type.push_back(1);  // a library
            }
            res = it->second;
            flags |= 4;
        }
        if (!f.file.empty() && f.file != "???") {
            auto it = source_index.find(f.file);
            if (it == source_index.end()) {
                it = source_index.emplace(f.file, src_file.size()).first;
                src_id.push_back(nullptr);
                src_file.push_back(str(f.file));
                src_line.push_back(1);
                src_col.push_back(1);
                src_map.push_back(nullptr);
                src_content.push_back(nullptr);
            }
            src = it->second;
            flags |= 8;
        }
        if (f.first_line) flags |= 16;
        if (f.kind == Kind::Jit) flags |= 1 | 2;  // shown by the JavaScript-only call tree too
        fn_name.push_back(str(f.name));
        fn_flags.push_back(flags);
        fn_res.push_back(res);
        fn_src.push_back(src);
        fn_line.push_back(f.first_line);
        fn_col.push_back(0);
        fn_orig.push_back(0);
    }
    json fr_flags = json::array(), fr_zero = json::array(), fr_cat = json::array(),
         fr_line = json::array(), fr_func = json::array();
    for (const Frame& fr : c.frames) {
        fr_flags.push_back(4 | (fr.line ? 16 : 0));
        fr_zero.push_back(0);
        fr_cat.push_back(category_of(c.functions[fr.function].kind));
        fr_line.push_back(fr.line);
        fr_func.push_back(fr.function);
    }
    const std::size_t nframes = c.frames.size();
    json st_frame = json::array(), st_prefix = json::array();
    for (std::size_t i = 0; i < c.stack_table.size(); ++i) {
        const Stack& s = c.stack_table[i];
        st_frame.push_back(s.frame);
        st_prefix.push_back(s.parent == kNoStack ? 0 : i - s.parent);
    }
    json threads = json::array();
    for (const Thread& t : c.threads) {
        json stack = json::array(), time = json::array(), weight = json::array();
        for (const Sample& s : t.samples) {
            std::uint64_t left = s.weight, at = s.time;
            while (left) {
                const std::uint64_t w = std::min(left, kMaxExactDouble);
                stack.push_back(s.stack);
                // The time line counts the event in millions ("ms").
                time.push_back(static_cast<double>(at) / 1e6);
                weight.push_back(w);
                left -= w;
                at += w;
            }
        }
        const std::size_t ns = stack.size();
        threads.push_back({
            {"processType", "default"},
            {"processStartupTime", 0},
            {"processShutdownTime", static_cast<double>(t.total) / 1e6},
            {"registerTime", 0},
            {"unregisterTime", nullptr},
            {"pausedRanges", json::array()},
            {"name", c.threads.size() > 1 ? "Thread " + t.id : std::string("Main thread")},
            {"isMainThread", t.id == "1"},
            {"pid", c.pid.empty() ? std::string("0") : c.pid},
            {"tid", t.id},
            {"samples",
             {{"stack", std::move(stack)},
              {"time", std::move(time)},
              {"weight", std::move(weight)},
              {"weightType", "samples"},
              {"length", ns}}},
            {"markers",
             {{"data", json::array()},
              {"name", json::array()},
              {"startTime", json::array()},
              {"endTime", json::array()},
              {"phase", json::array()},
              {"category", json::array()},
              {"length", 0}}},
        });
    }
    std::uint64_t end = 0;
    for (const Thread& t : c.threads) end = std::max(end, t.total);
    json extra_entries = json::array({
        {{"label", "Stacks"}, {"format", "string"}, {"value", stacks_text(c)}},
        {{"label", "Weights"},
         {"format", "string"},
         {"value", "counts of " + c.event + " (the time line counts millions of " + c.event + ")"}},
        {{"label", "Total " + c.event}, {"format", "string"}, {"value", std::to_string(c.total)}},
        {{"label", "Parts (dumps)"}, {"format", "integer"}, {"value", c.parts}},
    });
    for (std::size_t i = 0; i < c.events.size() && i < c.event_totals.size(); ++i)
        if (c.events[i] != c.event)
            extra_entries.push_back({{"label", "Total " + c.events[i]},
                                     {"format", "string"},
                                     {"value", std::to_string(c.event_totals[i])}});
    if (!c.creator.empty())
        extra_entries.push_back({{"label", "Creator"}, {"format", "string"}, {"value", c.creator}});
    json meta = {
        {"interval", 1},
        {"startTime", 0},
        {"endTime", static_cast<double>(end) / 1e6},
        {"processType", 0},
        {"product", c.command.empty() ? std::string("Valgrind profile") : c.command},
        {"stackwalk", 0},
        {"version", 27},
        {"preprocessedProfileVersion", kFirefoxProcessedVersion},
        {"categories", categories},
        {"markerSchema", json::array()},
        {"symbolicated", true},
        {"usesOnlyOneStackType", true},
        {"importedFrom", c.creator.empty() ? std::string("Valgrind") : c.creator},
        {"sourceCodeIsNotOnSearchfox", true},
        {"extra",
         json::array({{{"label", "Valgrind profile"}, {"entries", std::move(extra_entries)}}})},
        // Which stacks: kept as plain values for tools that read the file.
        {"vgjitStacks", c.stacks == Stacks::Exact  ? "exact"
                        : c.stacks == Stacks::Flat ? "flat"
                                                   : "rebuilt"},
        {"vgjitEvent", c.event},
        {"vgjitTotal", std::to_string(c.total)},
        {"vgjitExactWeight", std::to_string(c.exact_weight)},
    };
    json shared = {
        {"stackTable",
         {{"frame", std::move(st_frame)},
          {"prefixOffset", std::move(st_prefix)},
          {"length", c.stack_table.size()}}},
        {"frameTable",
         {{"flags", std::move(fr_flags)},
          {"address", fr_zero},
          {"category", std::move(fr_cat)},
          {"subcategory", fr_zero},
          {"lib", fr_zero},
          {"nativeSymbol", fr_zero},
          {"innerWindowID", fr_zero},
          {"line", std::move(fr_line)},
          {"column", fr_zero},
          {"originalLocation", fr_zero},
          {"func", std::move(fr_func)},
          {"length", nframes}}},
        {"funcTable",
         {{"name", std::move(fn_name)},
          {"flags", std::move(fn_flags)},
          {"resource", std::move(fn_res)},
          {"source", std::move(fn_src)},
          {"lineNumber", std::move(fn_line)},
          {"columnNumber", std::move(fn_col)},
          {"originalLocation", std::move(fn_orig)},
          {"length", c.functions.size()}}},
        {"resourceTable",
         {{"length", res_name.size()},
          {"name", std::move(res_name)},
          {"host", std::move(res_host)},
          {"type", std::move(res_type)}}},
        {"nativeSymbols",
         {{"libIndex", json::array()},
          {"address", json::array()},
          {"name", json::array()},
          {"functionSize", json::array()},
          {"length", 0}}},
        {"sources",
         {{"length", src_file.size()},
          {"id", std::move(src_id)},
          {"filename", std::move(src_file)},
          {"startLine", std::move(src_line)},
          {"startColumn", std::move(src_col)},
          {"sourceMapURL", std::move(src_map)},
          {"content", std::move(src_content)}}},
        {"sourceLocationTable",
         {{"source", json::array()},
          {"line", json::array()},
          {"column", json::array()},
          {"length", 0}}},
    };
    shared["stringArray"] = str.array();
    const json profile = {{"meta", std::move(meta)},
                          {"libs", json::array()},
                          {"shared", std::move(shared)},
                          {"threads", std::move(threads)}};
    // Invalid UTF-8 in a name (profiles are byte strings) is replaced, not fatal.
    out << profile.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
}

// ---------------------------------------------------------------------------
// Folded stacks
// ---------------------------------------------------------------------------

void write_folded(const Converted& c, std::ostream& out) {
    std::vector<std::string> names;
    names.reserve(c.functions.size());
    for (const Function& f : c.functions) {
        std::string n = f.name;
        for (char& ch : n) {
            if (ch == ';')
                ch = ':';
            else if (ch == '\n' || ch == '\r')
                ch = ' ';
        }
        names.push_back(n);
    }
    std::vector<std::string> text(c.stack_table.size());
    for (std::size_t i = 0; i < c.stack_table.size(); ++i) {
        const Stack& s = c.stack_table[i];
        const std::string& leaf = names[c.frames[s.frame].function];
        text[i] = s.parent == kNoStack ? leaf : text[s.parent] + ";" + leaf;
    }
    std::map<std::string, unsigned __int128> sums;
    for (const Thread& t : c.threads)
        for (const Sample& s : t.samples) sums[text[s.stack]] += s.weight;
    for (const auto& [stack, w] : sums) {
        // 128 bits: a stack's sum over many parts may pass 2^64.
        std::string digits;
        unsigned __int128 v = w;
        do {
            digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
            v /= 10;
        } while (v);
        out << stack << ' ' << digits << '\n';
    }
}

}  // namespace exporting
}  // namespace vgjit
