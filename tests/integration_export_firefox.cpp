// integration_export_firefox.cpp - integration_export's cases of the
// Firefox Profiler's processed format, loaded by profiler-cli: without
// contexts (exact self costs, totals within 1%), with contexts (exact
// totals, the top-down tree of Callgrind's contexts);
// integration_export.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_format.hpp"
#include "callgrind_profile.hpp"
#include "integration_export.hpp"
#include "profiler_cli.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cg = vgjit::callgrind;
using nlohmann::json;
using vgjit::test::contains;
using vgjit::test::profiler_cli_available;
using vgjit::test::ProfilerCli;
using vgjit::test::read_file;
using namespace export_test;

namespace {

/// Per function of a Callgrind profile, as the export names it
/// ("OBJECT!NAME"): the Callgrind profile's own numbers.
struct Expected {
    std::map<std::string, std::uint64_t> self;
    /// Inclusive cost of the outermost activations: the nodes (contexts)
    /// whose chain of callers does not hold the function again, self plus
    /// their calls' inclusive costs.
    std::map<std::string, std::uint64_t> total;
    std::set<std::string> jit_functions;  ///< "OBJECT!NAME" of minijit's code
    std::uint64_t jit_self = 0;           ///< self cost of minijit's code
};

std::string key_of(const cg::FunctionKey& k) {
    return k.object + "!" + cg::split_context_name(k.name).function;
}

Expected expected(const cg::Profile& p, const std::string& jit_obj) {
    Expected e;
    const std::size_t ev = p.event_index("Ir");
    std::map<cg::FunctionKey, std::uint64_t> out;
    std::map<cg::FunctionKey, std::vector<cg::FunctionKey>> callers;
    for (const auto& [key, edge] : p.calls()) {
        out[key.first] += edge.inclusive[ev];
        callers[key.second].push_back(key.first);
    }
    std::set<cg::FunctionKey> nodes;
    for (const auto& [key, f] : p.functions()) nodes.insert(key);
    for (const auto& [key, edge] : p.calls()) nodes.insert(key.first);
    for (const cg::FunctionKey& k : nodes) {
        const auto f = p.functions().find(k);
        const std::uint64_t self = f == p.functions().end() ? 0 : f->second.self[ev];
        const std::string name = key_of(k);
        e.self[name] += self;
        if (k.object == jit_obj) {
            e.jit_functions.insert(name);
            e.jit_self += self;
        }
        // Nested: a node of the same function among its callers' callers.
        bool nested = cg::split_context_name(k.name).recursion > 1;
        std::set<cg::FunctionKey> seen{k};
        std::vector<cg::FunctionKey> todo = callers[k];
        while (!todo.empty() && !nested) {
            const cg::FunctionKey c = todo.back();
            todo.pop_back();
            if (!seen.insert(c).second) continue;
            if (key_of(c) == name) nested = true;
            for (const cg::FunctionKey& cc : callers[c]) todo.push_back(cc);
        }
        if (!nested) e.total[name] += self + out[k];
    }
    return e;
}

/// The functions profiler-cli lists: "LIBRARY!NAME" -> (self, total).
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> cli_functions(ProfilerCli& cli) {
    const json j = cli.query({"thread", "functions", "--limit", "10000000"});
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> m;
    for (const json& f : j.at("functions")) {
        auto& v = m[f.at("nameWithLibrary").get<std::string>()];
        v.first += f.at("selfSamples").get<std::uint64_t>();
        v.second += f.at("totalSamples").get<std::uint64_t>();
    }
    return m;
}

std::uint64_t category_samples(const json& samples, const std::string& category) {
    for (const json& c : samples.at("categoryBreakdown").at("categories"))
        if (c.at("name") == category) return c.at("samples").get<std::uint64_t>();
    return 0;
}

/// Checks what profiler-cli shows of `exported` against `profile`: every
/// function's self cost exactly, the categories, calls.mj's functions
/// present under their object; returns the listed functions.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> check_functions(
    ProfilerCli& cli, const cg::Profile& profile, const Expected& e) {
    const std::uint64_t total = profile.totals()[profile.event_index("Ir")];
    const json samples = cli.query({"thread", "samples"});
    BOOST_TEST(samples.at("categoryBreakdown").at("totalSamples").get<std::uint64_t>() == total);
    BOOST_TEST(category_samples(samples, "JIT") == e.jit_self);
    BOOST_TEST(e.jit_self > total / 2);  // calls.mj spends most of its time in its code
    const auto listed = cli_functions(cli);
    for (const auto& [name, self] : e.self) {
        if (self == 0) continue;
        const auto it = listed.find(name);
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST_REQUIRE((it != listed.end()));
            BOOST_TEST(it->second.first == self);
        }
    }
    std::uint64_t listed_self = 0;
    for (const auto& [name, st] : listed) listed_self += st.first;
    BOOST_TEST(listed_self == total);
    for (const std::string& fn : defined_functions(example("calls.mj")))
        BOOST_TEST(e.jit_functions.count(jit_object("calls.mj") + "!" + fn) == 1u, fn);
    return listed;
}

/// The top-down call-tree node below `node` reached by the function names
/// path[i..]; null if none.  Names shared by functions of several objects
/// ("main") are tried in turn.
const json* descend(const json& node, const std::vector<std::string>& path, std::size_t i = 0) {
    if (i == path.size()) return &node;
    if (!node.contains("children")) return nullptr;
    for (const json& c : node.at("children"))
        if (c.at("name") == path[i])
            if (const json* found = descend(c, path, i + 1)) return found;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(export_profiles)

// Without contexts: exact self costs, the JIT's functions under their
// names and category, and stacks reported as rebuilt.
BOOST_AUTO_TEST_CASE(firefox_without_contexts,
                     *boost::unit_test::precondition(profiler_cli_available)) {
    const std::string prof = plain_profile();
    const std::string out = tmp().file("plain.json");
    const Result r = export_profile({"--format=firefox", prof, "-o", out});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "warning: stacks rebuilt from call edges"), r.err);
    BOOST_TEST(contains(r.err, "--separate-callers"), r.err);
    const json doc = json::parse(read_file(out));
    BOOST_TEST(doc.at("meta").at("preprocessedProfileVersion").get<int>() == 75);
    BOOST_TEST(doc.at("meta").at("vgjitStacks") == "rebuilt");

    const cg::Profile p = cg::Profile::parse_file(prof);
    const Expected e = expected(p, jit_object("calls.mj"));
    ProfilerCli cli(out);
    const json meta = cli.query({"profile", "meta"});
    BOOST_TEST(contains(meta.dump(), "rebuilt from call edges"));
    const auto listed = check_functions(cli, p, e);
    // Stacks that stop short of their callers show the marker, which has
    // no cost of its own.
    BOOST_TEST_REQUIRE(listed.count(kUnknownCallers) == 1u);
    BOOST_TEST(listed.at(kUnknownCallers).first == 0u);
    BOOST_TEST(listed.at(kUnknownCallers).second > 0u);
    // Each JIT function's total is within 1% of Callgrind's inclusive cost:
    // what its stacks leave out is the cost of its callees that other
    // functions called too.
    for (const std::string& name : defined_functions(example("calls.mj"))) {
        const std::string fn = jit_object("calls.mj") + "!" + name;
        BOOST_TEST_CONTEXT(fn) {
            BOOST_TEST_REQUIRE(listed.count(fn) == 1u);
            BOOST_TEST_REQUIRE(e.total.count(fn) == 1u);
            const double want = static_cast<double>(e.total.at(fn));
            BOOST_TEST(std::fabs(static_cast<double>(listed.at(fn).second) - want) <= want / 100);
        }
    }
}

// With contexts: exact self and total costs per function, and a top-down
// tree whose nodes are Callgrind's contexts with their costs.
BOOST_AUTO_TEST_CASE(firefox_with_contexts,
                     *boost::unit_test::precondition(profiler_cli_available)) {
    const std::string prof = context_profile();
    const std::string out = tmp().file("ctx.json");
    const Result r = export_profile({prof, "--output=" + out});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    // minijit's compiler recurses deeper than Callgrind separates: the
    // warning says for how much the stacks are exact.
    BOOST_TEST(contains(r.err, "warning: stacks exact for "), r.err);
    BOOST_TEST(!contains(r.err, "rebuilt from call edges:"), r.err);
    const cg::Profile p = cg::Profile::parse_file(prof);
    const Expected e = expected(p, jit_object("calls.mj"));
    ProfilerCli cli(out);
    const auto listed = check_functions(cli, p, e);
    for (const std::string& fn : e.jit_functions) {
        BOOST_TEST_CONTEXT(fn) {
            BOOST_TEST_REQUIRE(listed.count(fn) == 1u);
            BOOST_TEST_REQUIRE(e.total.count(fn) == 1u);
            BOOST_TEST(listed.at(fn).second == e.total.at(fn));
        }
    }

    // Top-down: each context of calls.mj's code whose chain reaches the
    // root (shorter than --separate-callers) and has no recursion is one
    // call node, with the context's self cost and its self plus calls as
    // total.
    const json tree = cli.query({"thread", "samples-top-down", "--max-lines", "10000000"});
    const json& root = tree.at("regularCallTree");
    const std::size_t ev = p.event_index("Ir");
    std::map<cg::FunctionKey, std::uint64_t> out_incl;
    for (const auto& [key, edge] : p.calls()) out_incl[key.first] += edge.inclusive[ev];
    std::size_t checked = 0;
    for (const auto& [key, f] : p.functions()) {
        if (key.object != jit_object("calls.mj")) continue;
        const cg::ContextName cn = cg::split_context_name(key.name);
        if (cn.recursion > 1 || cn.callers.size() >= 50) continue;
        std::vector<std::string> path(cn.callers.rbegin(), cn.callers.rend());
        path.push_back(cn.function);
        const json* node = descend(root, path);
        BOOST_TEST_CONTEXT(key.name) {
            BOOST_TEST_REQUIRE(node != nullptr);
            BOOST_TEST(node->at("selfSamples").get<std::uint64_t>() == f.self[ev]);
            BOOST_TEST(node->at("totalSamples").get<std::uint64_t>() == f.self[ev] + out_incl[key]);
        }
        ++checked;
    }
    BOOST_TEST(checked >= defined_functions(example("calls.mj")).size());
}

BOOST_AUTO_TEST_SUITE_END()
