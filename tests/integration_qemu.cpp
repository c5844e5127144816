// integration_qemu.cpp - QEMU's x86-64 user-mode emulator as a producer
// (`make check-producers`; not part of `make check`).  QEMU 8.1 and later
// announce each translation block they generate in a perf map (-perfmap)
// or a jitdump (-jitdump), named after the guest address it translates
// ("guest-0x401615").  The tests run QEMU (VGJIT_QEMU, which
// `make check-producers` fetches with build-aux/fetch-qemu.sh) on
// tests/fixtures/qemu/guest.c under the staged Callgrind and check that the
// guest code is named: the translation of guest_fib's entry carries its
// guest address, and the generated code is almost all named (what stays
// unnamed is QEMU's own code outside the producer's records).

#define BOOST_TEST_MODULE integration_qemu
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;

namespace {

std::string qemu() { return env_or("VGJIT_QEMU", ""); }
std::string guest() { return tests_builddir() + "/qemu_guest"; }

boost::test_tools::assertion_result qemu_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(!qemu().empty() && ::access(qemu().c_str(), X_OK) == 0 &&
                                           ::access(guest().c_str(), X_OK) == 0);
    ok.message() << "needs VGJIT_QEMU (a qemu-x86_64 >= 8.1; `make check-producers` fetches "
                    "one) and tests/qemu_guest";
    return ok;
}

/// Runs QEMU with `qemu_flag` on the guest under the staged Callgrind in
/// `dir` and checks what the producer's records name.  `producer_file`
/// matches the object Callgrind gives the named code (the perf map's or
/// the jitdump's path).
void check_guest_named(const std::string& qemu_flag, const std::vector<std::string>& vg_args,
                       const std::regex& producer_file) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 600;
    const Result native = run({qemu(), guest()}, opt);
    BOOST_TEST_REQUIRE(native.status == 0, native);
    std::smatch m;
    const std::regex fib_line("guest_fib 0x([0-9a-f]+)");
    BOOST_TEST_REQUIRE(std::regex_search(native.out, m, fib_line), native.out);
    const std::string fib_name = "guest-0x" + m[1].str();

    std::vector<std::string> args = {"--tool=callgrind", "-v",
                                     "--callgrind-out-file=" + dir.file("cg.out")};
    args.insert(args.end(), vg_args.begin(), vg_args.end());
    const Result vg = run_valgrind(args, {qemu(), qemu_flag, guest()}, opt);
    remove_tmp_files_of(vg.pid);  // -perfmap's /tmp/perf-PID.map, read during the run
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    BOOST_TEST(vg.out == native.out);
    BOOST_TEST(contains(vg.err, "JIT: "));

    const cg::Profile p = cg::Profile::parse_file(dir.file("cg.out"));
    std::uint64_t named = 0, unnamed_anonymous = 0, fib_ir = 0;
    std::string producer;
    for (const auto& [key, f] : p.functions()) {
        const std::uint64_t ir = f.self.at(0);
        if (std::regex_search(key.object, producer_file)) {
            named += ir;
            producer = key.object;
            if (cg::strip_recursion_suffix(key.name) == fib_name) fib_ir += ir;
        } else if ((key.object.empty() || key.object == "???") && address_named(key.name)) {
            unnamed_anonymous += ir;
        }
    }
    BOOST_TEST_MESSAGE(qemu_flag << ": " << named << " Ir named by " << producer << ", "
                                 << unnamed_anonymous << " Ir of anonymous code unnamed; "
                                 << fib_name << ": " << fib_ir << " Ir");
    BOOST_TEST(fib_ir > 0u, fib_name << " has no cost in " << producer);
    BOOST_TEST_REQUIRE(named + unnamed_anonymous > 0u);
    // QEMU announces every block it generates; the little it does not is
    // its own glue (e.g. the prologue's neighbours), far below 5%.
    BOOST_TEST(unnamed_anonymous * 20 < named + unnamed_anonymous,
               unnamed_anonymous << " of " << named + unnamed_anonymous << " Ir unnamed");
}

}  // namespace

BOOST_AUTO_TEST_CASE(qemu_perfmap_names_the_guest_code,
                     *boost::unit_test::precondition(qemu_available)) {
    check_guest_named("-perfmap", {"--jit-perf-map=yes"}, std::regex("^/tmp/perf-[0-9]+\\.map$"));
}

BOOST_AUTO_TEST_CASE(qemu_jitdump_names_the_guest_code,
                     *boost::unit_test::precondition(qemu_available)) {
    check_guest_named("-jitdump", {}, std::regex("/jit-[0-9]+\\.dump$"));
}
