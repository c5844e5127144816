// profile_stacks.cpp: the stacks of a profile's parts (rules in
// profile_export.hpp): each part's call graph, its dominators, each
// node's stack of callers, and the samples of the nodes' self costs.
#include "profile_parts.hpp"

#include <utility>

namespace vgjit {
namespace exporting {

std::size_t StackBuilder::frame(const Frame& f) {
    const auto& t = c_.frames;
    const std::size_t i =
        frames_.insert({f.function, f.line}, t.size(), [&t](std::size_t k) -> PairIndex::Key {
            return {t[k].function, t[k].line};
        });
    if (i == c_.frames.size()) c_.frames.push_back(f);
    return i;
}

std::size_t StackBuilder::stack(std::size_t parent, const Frame& f) {
    const std::size_t fr = frame(f);
    const auto& t = c_.stack_table;
    const std::size_t i =
        stacks_.insert({parent, fr}, t.size(), [&t](std::size_t k) -> PairIndex::Key {
            return {t[k].parent, t[k].frame};
        });
    if (i == c_.stack_table.size()) c_.stack_table.push_back({parent, fr});
    return i;
}

std::size_t StackBuilder::marker() {
    if (marker_ == kNoStack) {
        marker_ = c_.functions.size();
        Function f;
        f.name = kUnknownCallers;
        f.kind = Kind::Marker;
        c_.functions.push_back(f);
    }
    return marker_;
}

namespace {

/// An arc of a graph: (from, to).
using Arc = std::pair<std::size_t, std::size_t>;

/// A directed graph in compressed rows: the successors of v are
/// list[start[v]] .. list[start[v + 1] - 1].
struct Graph {
    std::vector<std::size_t> start, list;
    Graph(std::size_t vertices, const std::vector<Arc>& arcs)
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

/// The arcs of part p's call graph, whose vertices are its nodes and an
/// entry vertex (p.nodes.size()) above the roots: the calls between
/// distinct nodes (a recursive call of a node by itself says nothing
/// about its callers), and an arc from the entry to each root: nodes
/// never called (the bottom of the stacks), and nodes with activations
/// that no call explains (partial roots, marked in `partial`: their
/// stacks get the marker, since some of their activations had callers).
std::vector<Arc> call_and_root_arcs(const RawPart& p, std::vector<char>& partial) {
    const std::size_t n = p.nodes.size(), entry = n;
    std::vector<Arc> arcs;
    std::vector<char> called(n, 0);
    for (const Edge& e : p.edges)
        if (e.from != e.to) {
            arcs.push_back({e.from, e.to});
            called[e.to] = 1;
        }
    partial.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (!called[i]) {
            arcs.push_back({entry, i});
            continue;
        }
        for (const __int128 u : p.nodes[i].unexplained)
            if (u > 0) partial[i] = 1;
        if (partial[i]) arcs.push_back({entry, i});
    }
    return arcs;
}

/// Makes the nodes that no root reaches (a cycle of calls whose entry
/// was not seen) partial roots too, in the order of the part: an arc
/// from the entry vertex `n` to each.
void add_unreached_roots(std::size_t n, std::vector<Arc>& arcs, std::vector<char>& partial) {
    const std::size_t entry = n;
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

/// The dominator tree in preorder, with each vertex's interval of
/// preorder numbers.
struct DominatorOrder {
    std::vector<std::size_t> order;  ///< the vertices in preorder, the entry first
    std::vector<std::size_t> pre;    ///< each vertex's preorder number
    std::vector<std::size_t> last;   ///< the last preorder number of its subtree
    /// Whether a dominates b: b's number is in a's interval.
    bool dominates(std::size_t a, std::size_t b) const {
        return pre[a] <= pre[b] && pre[b] <= last[a];
    }
};

/// The preorder of the dominator tree that `idom` gives over the nodes
/// 0 .. entry - 1, from `entry`.
DominatorOrder dominator_preorder(const std::vector<std::size_t>& idom, std::size_t entry) {
    const std::size_t n = entry;
    std::vector<Arc> tree_arcs;
    for (std::size_t i = 0; i < n; ++i) tree_arcs.push_back({idom[i], i});
    const Graph tree(n + 1, tree_arcs);
    tree_arcs.clear();
    DominatorOrder d;
    d.pre.resize(n + 1);
    d.last.resize(n + 1);
    std::vector<std::pair<std::size_t, std::size_t>> st{{entry, tree.start[entry]}};
    d.pre[entry] = 0;
    d.order.push_back(entry);
    while (!st.empty()) {
        const std::size_t v = st.back().first, k = st.back().second;
        if (k == tree.start[v + 1]) {
            d.last[v] = d.order.size() - 1;
            st.pop_back();
            continue;
        }
        ++st.back().second;
        const std::size_t w = tree.list[k];
        d.pre[w] = d.order.size();
        d.order.push_back(w);
        st.push_back({w, tree.start[w]});
    }
    return d;
}

/// Each node's stack of callers.
struct CallerStacks {
    std::vector<std::size_t> prefix;  ///< the stack below the node (kNoStack: none)
    std::vector<char> cut;            ///< whether that stack has the marker
};

/// Each node's stack of callers (prefix): its immediate dominator's
/// stack and frame, then the marker unless that dominator called every
/// outermost activation of the node itself.  `pred` is the reversed call
/// graph, whose entry vertex is p.nodes.size().
CallerStacks caller_stacks(StackBuilder& sb, const RawPart& p, const Graph& pred,
                           const std::vector<std::size_t>& idom, const std::vector<char>& partial,
                           const DominatorOrder& dom) {
    const std::size_t n = p.nodes.size(), entry = n, none = kNoStack;
    CallerStacks cs{std::vector<std::size_t>(n, none), std::vector<char>(n, 0)};
    for (std::size_t oi = 1; oi < dom.order.size(); ++oi) {
        const std::size_t x = dom.order[oi], d = idom[x];
        bool direct = !partial[x];
        for (std::size_t k = pred.start[x]; k < pred.start[x + 1] && direct; ++k) {
            const std::size_t y = pred.list[k];
            // A call from a node that x dominates is a recursive one,
            // made from inside an activation of x.
            if (y != d && !dom.dominates(x, y)) direct = false;
        }
        std::size_t base = none;
        if (d != entry) {
            std::uint64_t line = 0;
            if (direct) {
                const std::size_t e =
                    p.edge_index.find({d, x}, [&p](std::size_t i) { return p.edge_key(i); });
                if (e != PairIndex::kAbsent && p.edges[e].one_site) line = p.edges[e].site_line;
            }
            base = sb.stack(cs.prefix[d], Frame{p.nodes[d].function, line});
            cs.cut[x] = cs.cut[d];
        }
        if (!direct) {
            base = sb.stack(base, Frame{sb.marker(), 0});
            cs.cut[x] = 1;
        }
        cs.prefix[x] = base;
    }
    return cs;
}

/// Every line's self cost, whole, as one sample of its node's stack,
/// appended to t's time line.
void add_samples(Converted& c, StackBuilder& sb, const RawPart& p, const CallerStacks& cs,
                 Thread& t) {
    t.part_starts.push_back(t.total);
    std::uint64_t time = t.total;
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const Node& nd = p.nodes[i];
        if (nd.self.empty()) continue;
        if (cs.cut[i])
            ++c.ambiguous;
        else
            c.exact_weight += nd.self_sum;
        for (const auto& [line, cost] : nd.self) {
            const std::size_t s = sb.stack(cs.prefix[i], Frame{nd.function, line});
            t.samples.push_back({s, cost, time});
            time += cost;
        }
    }
    t.total = time;
}

}  // namespace

void convert_part(Converted& c, StackBuilder& sb, const RawPart& p, Thread& t) {
    const std::size_t n = p.nodes.size(), entry = n;
    std::vector<char> partial;
    std::vector<Arc> arcs = call_and_root_arcs(p, partial);
    add_unreached_roots(n, arcs, partial);
    const Graph succ(n + 1, arcs);
    for (auto& a : arcs) std::swap(a.first, a.second);
    const Graph pred(n + 1, arcs);
    arcs.clear();
    arcs.shrink_to_fit();
    const std::vector<std::size_t> idom = immediate_dominators(entry, succ, pred);
    const DominatorOrder dom = dominator_preorder(idom, entry);
    const CallerStacks cs = caller_stacks(sb, p, pred, idom, partial, dom);
    add_samples(c, sb, p, cs, t);
}

}  // namespace exporting
}  // namespace vgjit
