// integration_jitcode.cpp - Callgrind's --dump-jit-code=yes (patch 0027):
// the machine code of JIT objects written into ELF files next to the
// profile and named as the profile's objects, so that objdump, run the way
// KCachegrind's Machine Code view runs it, disassembles the jitted code at
// the profile's addresses.
//
// KCachegrind (libviews/instrview.cpp) looks for the ob= file as named
// (relative to the current directory), else under the profile's directory,
// and runs `objdump -C -d --start-address=0xSTART --stop-address=0xEND
// FILE`, START being 20 bytes below the function's first instruction with
// costs and END 20 bytes above its last one (addresses in upper-case hex);
// it shows objdump's lines "ADDR: HEX-BYTES MNEMONIC OPERANDS" with the
// costs of the instructions at those addresses.
//
// Environment (defaults compiled in by tests/Makefile.am):
//   VGJIT_STAGE, VGJIT_SRCDIR, VGJIT_BUILDDIR, VGJIT_TESTS_BUILDDIR
//   VGJIT_OBJDUMP   the objdump to run (default: objdump on $PATH)
//   VGJIT_KEEP_TMP  if set, the temporary directory (profiles) is kept
#define BOOST_TEST_MODULE integration_jitcode
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "../tool/elfobject.hpp"
#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

namespace cg = vgjit::callgrind;
using vgjit::test::builddir;
using vgjit::test::env_or;
using vgjit::test::find_on_path;
using vgjit::test::minijit;
using vgjit::test::read_file;
using vgjit::test::Result;
using vgjit::test::run_checked;
using vgjit::test::RunOptions;
using vgjit::test::srcdir;
using vgjit::test::TempDir;
using vgjit::test::testjit;
using vgjit::test::tests_builddir;
using vgjit::test::valgrind;

namespace {

std::string objdump() { return env_or("VGJIT_OBJDUMP", find_on_path("objdump")); }

/// The names in directory `dir` (without "." and "..").
std::set<std::string> list_dir(const std::string& dir) {
    std::set<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                out.insert(e->d_name);
        closedir(d);
    }
    return out;
}

std::string upper_hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llX", static_cast<unsigned long long>(v));
    return buf;
}

/// One instruction as objdump -d prints it.
struct Insn {
    std::uint64_t addr = 0;
    std::vector<std::uint8_t> bytes;
    std::string mnemonic;
    std::string operands;
};

/// What objdump printed: the instructions by address, and the symbol labels
/// ("0000000004855000 <name>:") by address.
struct Disassembly {
    std::map<std::uint64_t, Insn> insns;
    std::map<std::uint64_t, std::string> labels;
    std::string text;
};

/// Runs objdump with KCachegrind's arguments on `file` for the addresses
/// [first - 20, last + 20] and parses its output.
Disassembly kcachegrind_objdump(const std::string& file, std::uint64_t first, std::uint64_t last) {
    Disassembly d;
    Result r = run_checked({objdump(), "-C", "-d",
                            "--start-address=0x" + upper_hex(first < 20 ? 0 : first - 20),
                            "--stop-address=0x" + upper_hex(last + 20), file});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    d.text = r.out;
    static const std::regex insn_re(
        R"(^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*(?:\t(\S+)\s*(.*))?$)");
    static const std::regex label_re(R"(^([0-9a-f]+) <(.+)>:$)");
    std::istringstream in(r.out);
    std::string line;
    Insn* prev = nullptr;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, label_re)) {
            d.labels[std::stoull(m[1], nullptr, 16)] = m[2];
            continue;
        }
        if (!std::regex_match(line, m, insn_re)) continue;
        std::vector<std::uint8_t> bytes;
        std::istringstream hex(m[2].str());
        std::string b;
        while (hex >> b) bytes.push_back(static_cast<std::uint8_t>(std::stoul(b, nullptr, 16)));
        if (!m[3].matched) {  // continuation of a long instruction's bytes
            if (prev) prev->bytes.insert(prev->bytes.end(), bytes.begin(), bytes.end());
            continue;
        }
        Insn insn;
        insn.addr = std::stoull(m[1], nullptr, 16);
        insn.bytes = bytes;
        insn.mnemonic = m[3];
        insn.operands = m[4];
        prev = &(d.insns[insn.addr] = insn);
    }
    return d;
}

/// Profile directory + "/" + object name: where KCachegrind finds an ob=
/// name without directory.
std::string object_file(const std::string& profile, const std::string& object) {
    return profile.substr(0, profile.rfind('/')) + "/" + object;
}

/// Whether `object` names an ELF file of JIT code written for `profile`
/// ("<profile>.<object>[.vN].elf", without directory).
bool is_jit_code_object(const std::string& profile, const std::string& object) {
    const std::string base = profile.substr(profile.rfind('/') + 1) + ".";
    return object.compare(0, base.size(), base) == 0 && object.size() > base.size() + 4 &&
           object.compare(object.size() - 4, 4, ".elf") == 0;
}

/// A code range minijit --verbose logged.
struct CodeRange {
    std::string function;
    std::uint64_t start, size;
};

std::vector<CodeRange> compiled_ranges(const std::string& log) {
    std::vector<CodeRange> out;
    std::regex re(R"(minijit: compiled '([^']+)' \(tier \d\) at 0x([0-9a-f]+), (\d+) bytes)");
    for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it)
        out.push_back({(*it)[1], std::stoull((*it)[2], nullptr, 16), std::stoull((*it)[3])});
    return out;
}

/// The profile with every "pid:" line removed (the only line that differs
/// between two runs of a deterministic program).
std::string without_pid(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line))
        if (line.compare(0, 4, "pid:") != 0) out += line + "\n";
    return out;
}

/// The function symbols of the ELF file at `path` (name, st_value,
/// st_size), read by vg-jit's ELF reader.
std::vector<vgjit::ElfFunction> elf_functions(const std::string& path) {
    const vgjit::ElfObjectInfo info = vgjit::read_elf_object_file(path);
    BOOST_TEST_REQUIRE(info.header_read, path);
    return info.functions;
}

bool have_objdump() { return !objdump().empty(); }

boost::test_tools::assertion_result objdump_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result r(have_objdump());
    if (!have_objdump()) r.message() << "no objdump on PATH (binutils)";
    return r;
}

// ---- replaced_code_disassembles_as_registered_per_version ----

/// A version of testjit replace's function: mov rcx, N; loop: dec rcx; jnz
/// loop; mov rax, K; ret (emit_counter), and the ELF file it is kept in.
struct ReplacedVersion {
    std::string name, file;
    std::vector<std::uint8_t> bytes;
    std::uint64_t loops;
};

/// Exactly the registered instructions of `e`, from `first` on: nothing
/// else in the file within 20 bytes either side.
void check_only_registered_instructions(const Disassembly& d, std::uint64_t first,
                                        const ReplacedVersion& e) {
    std::vector<std::uint8_t> bytes;
    std::vector<std::string> mnemonics;
    for (const auto& i : d.insns) {
        BOOST_TEST(i.first >= first);
        bytes.insert(bytes.end(), i.second.bytes.begin(), i.second.bytes.end());
        mnemonics.push_back(i.second.mnemonic);
    }
    BOOST_TEST(bytes == e.bytes, boost::test_tools::per_element());
    BOOST_TEST(mnemonics == (std::vector<std::string>{"mov", "dec", "jne", "mov", "ret"}),
               boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(!d.insns.empty());
    BOOST_TEST(d.insns.begin()->first == first);
}

/// The symbol of `e` in ELF file `file` spans the whole function (objdump
/// and KCachegrind attribute the bytes after its end to nothing), not only
/// its last block (mov rax, K; ret).
void check_symbol_spans_version(const std::string& file, std::uint64_t first,
                                const ReplacedVersion& e) {
    std::size_t symbols = 0;
    for (const vgjit::ElfFunction& s : elf_functions(file)) {
        if (s.name != e.name) continue;
        ++symbols;
        BOOST_TEST(s.start == first);
        BOOST_TEST(s.size == e.bytes.size());
    }
    BOOST_TEST(symbols == 1u);
}

/// Every cost of `f` is on an instruction of `d`; the loop's instructions
/// (dec, jne at +5, +8 from `first`) ran `loops` times.
void check_loop_costs(const cg::FunctionCosts& f, const Disassembly& d, std::size_t ir,
                      std::uint64_t first, std::uint64_t loops) {
    std::uint64_t sum = 0;
    for (const auto& c : f.instrs) {
        BOOST_TEST(d.insns.count(c.first) == 1u, "cost at 0x" << std::hex << c.first);
        sum += c.second[ir];
    }
    BOOST_TEST(sum == f.self[ir]);
    auto cost = [&](std::uint64_t a) {
        auto it = f.instrs.find(a);
        return it == f.instrs.end() ? std::uint64_t(0) : it->second[ir];
    };
    BOOST_TEST(cost(first + 5) == loops);
    BOOST_TEST(cost(first + 8) == loops);
}

/// Checks version `e` in profile `p` (written to `profile`, event `ir`:
/// Ir) against objdump run on its file as KCachegrind runs it; the address
/// of its first instruction with costs.
std::uint64_t check_replaced_version(const std::string& profile, const cg::Profile& p,
                                     std::size_t ir, const ReplacedVersion& e) {
    auto fns = p.functions_named(e.name);
    BOOST_TEST_REQUIRE(fns.size() == 1u);
    const cg::FunctionCosts& f = *fns[0];
    BOOST_TEST(f.key.object == e.file);
    BOOST_TEST_REQUIRE(std::filesystem::is_regular_file(object_file(profile, f.key.object)));
    BOOST_TEST_REQUIRE(!f.instrs.empty());
    const std::uint64_t first = f.instrs.begin()->first, last = f.instrs.rbegin()->first;
    Disassembly d = kcachegrind_objdump(object_file(profile, f.key.object), first, last);
    BOOST_TEST_MESSAGE(d.text);
    check_only_registered_instructions(d, first, e);
    BOOST_TEST(d.labels[first] == e.name);
    check_symbol_spans_version(object_file(profile, f.key.object), first, e);
    check_loop_costs(f, d, ir, first, e.loops);
    return first;
}

// ---- minijit_functions_disassemble_at_their_costs ----

/// The code minijit compiled for `function` (one of `ranges`) that holds
/// [a, a+n); nullptr if none does.
const CodeRange* range_of(const std::vector<CodeRange>& ranges, const std::string& function,
                          std::uint64_t a, std::uint64_t n) {
    for (const auto& c : ranges)
        if (c.function == function && a >= c.start && a + n <= c.start + c.size) return &c;
    return nullptr;
}

/// The first and last addresses of each group of `f`'s cost addresses no
/// more than 10000 bytes apart: KCachegrind runs objdump once per group (a
/// function's tiers are apart).
std::vector<std::pair<std::uint64_t, std::uint64_t>> cost_groups(const cg::FunctionCosts& f) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> groups;
    for (const auto& c : f.instrs) {
        if (groups.empty() || c.first - groups.back().second > 10000)
            groups.push_back({c.first, c.first});
        groups.back().second = c.first;
    }
    return groups;
}

/// Every instruction of `f` with costs lies inside a symbol of function
/// `name` (st_value .. st_value + st_size), and each such symbol inside
/// code minijit compiled for it; the number of instructions checked.
std::size_t check_costs_inside_symbols(const cg::FunctionCosts& f, const std::string& name,
                                       const std::vector<vgjit::ElfFunction>& symbols,
                                       const std::vector<CodeRange>& ranges) {
    std::size_t checks = 0;
    for (const vgjit::ElfFunction& s : symbols)
        if (s.name == name)
            BOOST_TEST(range_of(ranges, name, s.start, s.size) != nullptr,
                       "symbol at 0x" << std::hex << s.start << " size " << std::dec << s.size);
    for (const auto& c : f.instrs) {
        ++checks;
        const bool inside =
            std::any_of(symbols.begin(), symbols.end(), [&](const vgjit::ElfFunction& s) {
                return s.name == name && c.first >= s.start && c.first < s.start + s.size;
            });
        BOOST_TEST(inside, "cost at 0x" << std::hex << c.first << " outside every symbol " << name);
    }
    return checks;
}

/// objdump run as KCachegrind runs it on `file` for group `g` of `f`'s
/// costs (function `name`): between the group's first and last costs only
/// code compiled for this function, whole instructions; around them, code
/// compiled for some function; every cost on an instruction.  The number
/// of costs checked.
std::size_t check_group_disassembly(const std::string& file, const cg::FunctionCosts& f,
                                    const std::string& name,
                                    const std::pair<std::uint64_t, std::uint64_t>& g,
                                    const std::vector<CodeRange>& ranges) {
    std::size_t cost_lines = 0;
    Disassembly d = kcachegrind_objdump(file, g.first, g.second);
    BOOST_TEST(!d.insns.empty());
    for (const auto& i : d.insns) {
        bool in_group = i.first >= g.first && i.first <= g.second;
        bool ok = in_group
                      ? range_of(ranges, name, i.first, i.second.bytes.size()) != nullptr
                      : std::any_of(ranges.begin(), ranges.end(), [&](const CodeRange& c) {
                            return range_of(ranges, c.function, i.first, i.second.bytes.size());
                        });
        BOOST_TEST(ok, "instruction at 0x" << std::hex << i.first);
    }
    for (auto it = f.instrs.lower_bound(g.first); it != f.instrs.end() && it->first <= g.second;
         ++it) {
        ++cost_lines;
        BOOST_TEST(d.insns.count(it->first) == 1u, "cost at 0x" << std::hex << it->first);
    }
    return cost_lines;
}

}  // namespace

// testjit replace: "first_version" runs at an address, is unregistered, and
// "second_version" (other bytes) is emitted at the same address and runs.
// Each is kept as a version of object testjit-obj with its own ELF file, and
// objdump shows exactly the bytes registered, at the profile's addresses,
// with the loop's costs on the loop's instructions.
BOOST_AUTO_TEST_CASE(replaced_code_disassembles_as_registered_per_version,
                     *boost::unit_test::precondition(objdump_available)) {
    TempDir dir("vgjit-jitcode");
    const std::string profile = dir.file("callgrind.out.replace");
    Result r =
        run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes", "--dump-jit-code=yes",
                     "--callgrind-out-file=" + profile, testjit(), "replace"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == "replace results 1 2\n");
    const cg::Profile p = cg::Profile::parse_file(profile);
    const std::size_t ir = p.event_index("Ir");

    const std::vector<ReplacedVersion> expected = {
        {"first_version",
         "callgrind.out.replace.testjit-obj.elf",
         {0xb9, 0xa0, 0x86, 0x01, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xb8, 0x01, 0x00, 0x00, 0x00,
          0xc3},
         100000},
        {"second_version",
         "callgrind.out.replace.testjit-obj.v2.elf",
         {0xb9, 0xe0, 0x93, 0x04, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xb8, 0x02, 0x00, 0x00, 0x00,
          0xc3},
         300000},
    };
    std::uint64_t starts[2] = {0, 0};
    for (std::size_t v = 0; v < expected.size(); ++v) {
        BOOST_TEST_CONTEXT(expected[v].name) {
            starts[v] = check_replaced_version(profile, p, ir, expected[v]);
        }
    }
    BOOST_TEST(starts[0] == starts[1]);  // the same address: two versions
}

// minijit's calls.mj: every function of the JIT object (over two tiers, a
// later one reusing freed addresses of an earlier one) is in an ELF file
// next to the profile; objdump run as KCachegrind runs it shows, for each,
// instructions only inside code minijit compiled for that function, and
// every instruction address with costs is where an instruction starts.
BOOST_AUTO_TEST_CASE(minijit_functions_disassemble_at_their_costs,
                     *boost::unit_test::precondition(objdump_available)) {
    TempDir dir("vgjit-jitcode");
    const std::string profile = dir.file("callgrind.out.calls");
    Result r = run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes",
                            "--dump-jit-code=yes", "--callgrind-out-file=" + profile, minijit(),
                            "--verbose", srcdir() + "/examples/calls.mj"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::vector<CodeRange> ranges = compiled_ranges(r.err);
    BOOST_TEST_REQUIRE(!ranges.empty(), r.err);

    const cg::Profile p = cg::Profile::parse_file(profile);
    std::set<std::string> objects;
    std::size_t functions = 0, cost_lines = 0, symbol_checks = 0;
    for (const auto& fk : p.functions()) {
        const cg::FunctionCosts& f = fk.second;
        if (f.key.object.find("minijit:calls.mj") == std::string::npos) continue;
        if (f.key.name == "minijit_retire_stub") continue;  // the JIT's own stub
        BOOST_TEST_CONTEXT(f.key.object << " " << f.key.name) {
            BOOST_TEST(is_jit_code_object(profile, f.key.object));
            BOOST_TEST_REQUIRE(
                std::filesystem::is_regular_file(object_file(profile, f.key.object)));
            objects.insert(f.key.object);
            if (f.instrs.empty()) continue;
            ++functions;
            const std::string file = object_file(profile, f.key.object);
            const std::string name = cg::strip_recursion_suffix(f.key.name);
            const auto groups = cost_groups(f);
            symbol_checks += check_costs_inside_symbols(f, name, elf_functions(file), ranges);
            for (const auto& g : groups)
                cost_lines += check_group_disassembly(file, f, name, g, ranges);
        }
    }
    BOOST_TEST_MESSAGE(functions << " functions, " << cost_lines << " instructions with costs, "
                                 << objects.size() << " ELF files");
    BOOST_TEST(functions >= 7u);
    BOOST_TEST(symbol_checks == cost_lines);
    // Tier-1 code reused freed tier-0 addresses: a second version.
    BOOST_TEST(objects.count("callgrind.out.calls.minijit:calls.mj.elf") == 1u);
    BOOST_TEST(objects.count("callgrind.out.calls.minijit:calls.mj.v2.elf") == 1u);
}

// A program without JIT code: the profile is byte for byte the one
// Callgrind writes without the option (but for the pid), and no other file
// is written.
BOOST_AUTO_TEST_CASE(profile_without_jit_code_is_unchanged) {
    TempDir on("vgjit-jitcode"), off("vgjit-jitcode");
    const std::string program = find_on_path("true");
    BOOST_TEST_REQUIRE(!program.empty());
    Result a =
        run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes", "--dump-jit-code=yes",
                     "--callgrind-out-file=" + on.file("callgrind.out"), program});
    Result b = run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes",
                            "--callgrind-out-file=" + off.file("callgrind.out"), program});
    BOOST_TEST_REQUIRE(a.status == 0, a);
    BOOST_TEST_REQUIRE(b.status == 0, b);
    BOOST_TEST(list_dir(on.path()) == std::set<std::string>{"callgrind.out"});
    const std::string with_option = read_file(on.file("callgrind.out"));
    BOOST_TEST(without_pid(with_option) == without_pid(read_file(off.file("callgrind.out"))));
    BOOST_TEST(with_option.find(".elf") == std::string::npos);
}

// Without --dump-instr=yes there are no instruction addresses to annotate:
// the option writes nothing and names the JIT object as without it.
BOOST_AUTO_TEST_CASE(option_needs_dump_instr) {
    TempDir dir("vgjit-jitcode");
    Result r =
        run_checked({valgrind(), "--tool=callgrind", "--dump-jit-code=yes",
                     "--callgrind-out-file=" + dir.file("callgrind.out"), testjit(), "replace"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(list_dir(dir.path()) == std::set<std::string>{"callgrind.out"});
    const cg::Profile p = cg::Profile::parse_file(dir.file("callgrind.out"));
    auto fns = p.functions_named("second_version");
    BOOST_TEST_REQUIRE(fns.size() == 1u);
    BOOST_TEST(fns[0]->key.object == "testjit-obj");
}
