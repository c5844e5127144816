// unit_callgrind_profile.cpp - tests of the Callgrind profile reader
// (tool/callgrind_format.hpp, summed by tests/callgrind_profile.hpp) on
// hand-written profiles.

#define BOOST_TEST_MODULE callgrind_profile
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"

#include <sstream>

using vgjit::callgrind::Costs;
using vgjit::callgrind::FunctionKey;
using vgjit::callgrind::ParseError;
using vgjit::callgrind::Profile;

namespace {

Profile parse(const std::string& text) {
    std::istringstream in(text);
    return Profile::parse(in, "test");
}

const vgjit::callgrind::FunctionCosts& fn(const Profile& p, const std::string& object,
                                          const std::string& file, const std::string& name) {
    auto it = p.functions().find(FunctionKey{object, file, name});
    if (it == p.functions().end()) throw std::runtime_error("no function " + name);
    return it->second;
}

// Expects parsing to fail at `line` with a message containing `what`.
void expect_error(const std::string& text, unsigned long line, const std::string& what) {
    try {
        parse(text);
        BOOST_ERROR("no ParseError for: " << text);
    } catch (const ParseError& e) {
        BOOST_TEST(e.line() == line);
        BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, "message: " << e.what());
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(subposition_compression) {
    // The example of the format specification, compressed.
    Profile p = parse(
        "# callgrind format\n"
        "positions: instr line\n"
        "events: ticks\n"
        "\n"
        "fn=func\n"
        "0x80001234 90 1\n"
        "+3 * 5\n"
        "+1 +1 6\n"
        "-4 -1 7\n");
    const auto& f = fn(p, "", "???", "func");
    BOOST_TEST(f.self == Costs{19});
    BOOST_TEST(f.instrs.size() == 3u);
    BOOST_TEST(f.instrs.at(0x80001234) == Costs{8});
    BOOST_TEST(f.instrs.at(0x80001237) == Costs{5});
    BOOST_TEST(f.instrs.at(0x80001238) == Costs{6});
    BOOST_TEST(f.lines.at({"???", 90}) == Costs{13});
    BOOST_TEST(f.lines.at({"???", 91}) == Costs{6});
    const std::map<std::uint64_t, std::uint64_t> lines{
        {0x80001234, 90}, {0x80001237, 90}, {0x80001238, 91}};
    BOOST_TEST((f.instr_lines == lines));
    BOOST_TEST(p.self_total() == Costs{19});
    BOOST_TEST(p.totals() == Costs{19});
}

BOOST_AUTO_TEST_CASE(name_compression_and_calls) {
    Profile p = parse(
        "version: 1\n"
        "cmd: ./prog --x=1\n"
        "positions: line\n"
        "events: Ir Dr\n"
        "ob=(1) /bin/prog\n"
        "fl=(1) main.c\n"
        "fn=(1) main\n"
        "10 5 1\n"
        "cfi=(2) lib.c\n"
        "cfn=(2) helper\n"
        "calls=3 20\n"
        "+2 300 30\n"
        "+1 7\n"  // relative to line 10, not 12
        "cob=(2) /lib/libx.so\n"
        "cfi=(3) x.c\n"
        "cfn=(3) xfun\n"
        "calls=1 0x5\n"
        "* 40 4\n"
        "fi=(2)\n"
        "30 2\n"
        "fe=(1)\n"
        "12 1\n"
        "fl=(2)\n"
        "fn=(2)\n"
        "20 100 10\n"
        "cfn=(2)\n"  // recursive call, same file
        "calls=2 20\n"
        "* 50 5\n"
        "ob=(2)\n"
        "fl=(3)\n"
        "fn=(3)\n"
        "1 40 4\n"
        "totals: 1000 100\n");
    BOOST_TEST(p.header().at("cmd") == "./prog --x=1");
    BOOST_TEST(p.events() == (std::vector<std::string>{"Ir", "Dr"}));
    BOOST_TEST(p.event_index("Dr") == 1u);
    BOOST_CHECK_THROW(p.event_index("Bc"), std::out_of_range);

    const auto& m = fn(p, "/bin/prog", "main.c", "main");
    BOOST_TEST(m.self == (Costs{15, 1}));  // 5 + 7 + 2 + 1; call costs excluded
    BOOST_TEST(m.lines.at({"main.c", 10}) == (Costs{5, 1}));
    BOOST_TEST(m.lines.at({"main.c", 11}) == (Costs{7, 0}));
    BOOST_TEST(m.lines.at({"lib.c", 30}) == (Costs{2, 0}));  // inlined from lib.c
    BOOST_TEST(m.lines.at({"main.c", 12}) == (Costs{1, 0}));
    BOOST_TEST(m.lines.count({"main.c", 12}) == 1u);

    const auto& h = fn(p, "/bin/prog", "lib.c", "helper");
    BOOST_TEST(h.self == (Costs{100, 10}));
    const auto& x = fn(p, "/lib/libx.so", "x.c", "xfun");
    BOOST_TEST(x.self == (Costs{40, 4}));
    BOOST_TEST(p.functions_named("helper").size() == 1u);
    BOOST_TEST(p.functions_named("xfun", true).size() == 1u);
    BOOST_TEST(p.functions_named("nothing", true).empty());

    const FunctionKey mk{"/bin/prog", "main.c", "main"};
    const FunctionKey hk{"/bin/prog", "lib.c", "helper"};
    const FunctionKey xk{"/lib/libx.so", "x.c", "xfun"};
    BOOST_TEST(p.calls().size() == 3u);
    BOOST_TEST(p.calls().at({mk, hk}).count == 3u);
    BOOST_TEST(p.calls().at({mk, hk}).inclusive == (Costs{300, 30}));
    BOOST_TEST(p.calls().at({mk, xk}).count == 1u);
    BOOST_TEST(p.calls().at({mk, xk}).inclusive == (Costs{40, 4}));
    BOOST_TEST(p.calls().at({hk, hk}).count == 2u);

    BOOST_TEST(p.self_total() == (Costs{155, 15}));
    BOOST_TEST(p.totals() == (Costs{1000, 100}));
    BOOST_TEST(p.object_cost("/bin/prog", "Ir") == 115u);
    BOOST_TEST(p.object_cost("/lib/libx.so", "Dr") == 4u);
    BOOST_TEST(p.object_cost("nothing", "Ir") == 0u);
}

BOOST_AUTO_TEST_CASE(recursion_suffixes) {
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("fib'2") == "fib");
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("fib'12") == "fib");
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("fib") == "fib");
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("fib'") == "fib'");
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("operator'x'2") == "operator'x");
    BOOST_TEST(vgjit::callgrind::strip_recursion_suffix("a'b") == "a'b");
    Profile p = parse(
        "events: Ir\nfl=f.c\nfn=fib\n1 5\ncfn=fib'2\ncalls=1 1\n1 20\n"
        "fn=fib'2\n1 20\nfn=fibber\n1 1\n");
    BOOST_TEST(p.functions_named("fib").size() == 1u);
    BOOST_TEST(p.functions_named("fib", true).size() == 2u);
}

BOOST_AUTO_TEST_CASE(jumps_and_cachegrind_style) {
    // --collect-jumps output: the line after jump=/jcnd= is a bare position.
    Profile p = parse(
        "positions: line\n"
        "events: Ir\n"
        "fl=a.c\n"
        "fn=f\n"
        "5 10\n"
        "jump=3 +2\n"
        "*\n"
        "jcnd=1/4 -1\n"
        "+1\n"
        "+1 4\n"
        "summary: 14\n");
    const auto& f = fn(p, "", "a.c", "f");
    BOOST_TEST(f.self == Costs{14});
    BOOST_TEST(f.lines.at({"a.c", 6}) == Costs{4});
    BOOST_TEST(p.totals() == Costs{14});

    // Cachegrind: no positions line, fewer costs than events.
    Profile c = parse(
        "desc: I1 cache: 32768 B\n"
        "cmd: prog\n"
        "events: Ir I1mr ILmr\n"
        "fl=x.c\n"
        "fn=g\n"
        "3 7 1\n"
        "4 2\n");
    BOOST_TEST(fn(c, "", "x.c", "g").self == (Costs{9, 1, 0}));
}

BOOST_AUTO_TEST_CASE(malformed_input) {
    expect_error("fn=f\n", 1, "before the \"events:\" header");
    expect_error("events: Ir\n10 1\n", 2, "before any fn=");
    expect_error("events: Ir\nfn=(7)\n", 2, "name compression id (7) used before it was defined");
    expect_error("events: Ir\nfn=f\n1 2 3\n", 3, "cost line has 2 costs but \"events:\" names 1");
    expect_error("events: Ir\nfn=f\n1 x\n", 3, "bad cost 'x'");
    expect_error("events: Ir\nfn=f\ncalls=1 2\n", 3, "without a preceding cfn=");
    expect_error("events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=h\n", 5,
                 "\"fn=\" where the line after calls=/jump=/jcnd= was expected");
    expect_error("events: Ir\nfn=f\nwhat=1\n", 3, "unknown specification \"what=\"");
    expect_error("positions: instr line\nevents: Ir\nfn=f\n0x10\n", 4,
                 "fewer than the 2 subpositions");
    expect_error("positions: instr lines\nevents: Ir\n", 1, "unknown subposition 'lines'");
    expect_error("", 0, "not a Callgrind profile (no \"events:\" line)");
    BOOST_CHECK_THROW(Profile::parse_file("/nonexistent/callgrind.out"), ParseError);
}

BOOST_AUTO_TEST_CASE(names_parts_and_context_markers) {
    // "(anonymous namespace)::f" is a plain name, not a compressed one;
    // rec= and frfn= are read and ignored; fi= lasts until the next fn=.
    Profile p = parse(
        "events: Ir\n"
        "fl=(1) a.c\n"
        "fn=(anonymous namespace)::f\n"
        "rec=1\n"
        "frfn=(3) caller\n"
        "fi=(2) b.h\n"
        "5 4\n"
        "fn=(4) g\n"
        "6 1\n");
    const auto& f = fn(p, "", "a.c", "(anonymous namespace)::f");
    BOOST_TEST(vgjit::callgrind::line_cost(f, "b.h", 5) == 4u);
    BOOST_TEST(vgjit::callgrind::line_cost(fn(p, "", "a.c", "g"), "a.c", 6) == 1u);
    // A header line after the body begins a second part: refused here.
    expect_error("events: Ir\nfn=f\n1 1\nevents: Ir\n", 4, "multi-part profiles are not supported");
    // cfn= names the target of the next calls= only.
    expect_error("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n2 5\ncalls=1 2\n2 5\n", 6,
                 "without a preceding cfn=");
}
