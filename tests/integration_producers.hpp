// integration_producers.hpp - what the files of integration_producers
// share: tests/jitdump_producer run natively and under Valgrind, the
// functions it reports, and what Callgrind's profile and Valgrind's log
// say of them.  integration_producers.cpp says what the program holds.

#ifndef VGJIT_TESTS_INTEGRATION_PRODUCERS_HPP
#define VGJIT_TESTS_INTEGRATION_PRODUCERS_HPP

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace producers_test {

namespace cg = vgjit::callgrind;
using vgjit::test::Result;
using vgjit::test::TempDir;

/// tests/jitdump_producer ($VGJIT_JITDUMP_PRODUCER overrides it).
std::string producer();

/// A jitted function as the producer reports it on stderr.
struct FnRange {
    std::uint64_t addr = 0;
    std::uint64_t size = 0;
    bool contains(std::uint64_t a) const { return addr <= a && a < addr + size; }
};

/// "fn NAME 0xADDR SIZE" lines of jitdump_producer's stderr.
std::map<std::string, FnRange> function_ranges(const std::string& err);

/// Instructions one call of a producer "sum" function executes: 3n + 3
/// (see jitdump_producer.cpp), `mover` one more.
constexpr std::uint64_t sum_call(std::uint64_t n) { return 3 * n + 3; }

/// One run of the producer under Valgrind in a scratch directory.
struct ProducerRun {
    Result native;
    Result vg;
    std::map<std::string, FnRange> fns;
};

/// Runs `mode` natively and under Valgrind with `args`, both in `dir`;
/// requires both to succeed and to print the same stdout.
ProducerRun run_producer(const TempDir& dir, const std::string& mode,
                         const std::vector<std::string>& args);

/// Callgrind options writing instruction-level costs to `out`.
std::vector<std::string> callgrind_args(const std::string& out,
                                        std::vector<std::string> extra = {});

/// The (only) function named `name` (any recursion depth merged is not
/// needed here: the producer's functions do not recurse).
const cg::FunctionCosts* function_named(const cg::Profile& p, const std::string& name);

/// Ir at instruction addresses inside `r`, summed over functions whose
/// object is "???" (code no DebugInfo describes) or, if `object` is not
/// empty, over functions in `object`.  Needs --dump-instr=yes.
std::uint64_t cost_in_range(const cg::Profile& p, const FnRange& r, const std::string& object);

/// Lines of Valgrind's stderr that mention `path` and say "Warning".
std::vector<std::string> warnings_about(const std::string& err, const std::string& path);

/// True if every byte of `s` is printable ASCII.
bool printable_ascii(const std::string& s);

}  // namespace producers_test

#endif
