// profiler_cli.hpp - the Firefox Profiler's own loader, profiler-cli
// (installed by build-aux/install-deps.sh into npm-tools/), for the tests
// of `vg-jit export`: where it is, whether it can run, and a session on
// one profile.

#ifndef VGJIT_TESTS_PROFILER_CLI_HPP
#define VGJIT_TESTS_PROFILER_CLI_HPP

#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace vgjit {
namespace test {

/// The profiler-cli program ($VGJIT_PROFILER_CLI, else npm-tools/'s).
inline std::string profiler_cli() {
    return env_or("VGJIT_PROFILER_CLI", srcdir() + "/npm-tools/node_modules/.bin/profiler-cli");
}

/// Precondition: profiler-cli is installed and node is on $PATH.
inline boost::test_tools::assertion_result profiler_cli_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result r(true);
    if (find_on_path("node").empty()) {
        r = false;
        r.message() << "no node on $PATH";
    } else if (::access(profiler_cli().c_str(), X_OK) != 0) {
        r = false;
        r.message() << profiler_cli()
                    << " is not installed (build-aux/install-deps.sh installs it)";
    }
    return r;
}

/// A profiler-cli session on one profile, in its own session directory;
/// stopped on destruction.
class ProfilerCli {
public:
    explicit ProfilerCli(const std::string& profile) : dir_("vgjit-profiler-cli") {
        options_.timeout_seconds = 180;
        options_.env["PROFILER_CLI_SESSION_DIR"] = dir_.path();
        const Result load = cli({"load", profile});
        // The daemon may answer after load's own wait: ask until it does.
        bool ready = load.status == 0;
        for (int i = 0; i < 120 && !ready; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            ready = cli({"status"}).status == 0 && cli({"thread", "info"}).status == 0;
        }
        BOOST_TEST_REQUIRE(ready, "profiler-cli did not load " << profile << ": " << load);
    }
    ~ProfilerCli() { cli({"stop"}); }
    ProfilerCli(const ProfilerCli&) = delete;
    ProfilerCli& operator=(const ProfilerCli&) = delete;

    /// Runs profiler-cli with `args` in this session.
    Result cli(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {find_on_path("node"), profiler_cli()};
        argv.insert(argv.end(), args.begin(), args.end());
        return run(argv, options_);
    }
    /// Runs a command with --json and parses its output.
    nlohmann::json query(std::vector<std::string> args) {
        args.push_back("--json");
        const Result r = cli(args);
        BOOST_TEST_REQUIRE(r.status == 0, r);
        return nlohmann::json::parse(r.out);
    }

private:
    TempDir dir_;
    RunOptions options_;
};

}  // namespace test
}  // namespace vgjit

#endif
