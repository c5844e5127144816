// integration_late.hpp - what the files of integration_late share:
// tests/jitdump_producer, the ranges of the functions it reports, and the
// address of an address-named function.  integration_late.cpp says what
// the program holds.

#ifndef VGJIT_TESTS_INTEGRATION_LATE_HPP
#define VGJIT_TESTS_INTEGRATION_LATE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace late_test {

/// tests/jitdump_producer ($VGJIT_JITDUMP_PRODUCER overrides it).
std::string producer();

/// [start, end) of the jitted functions, from the producer's stderr
/// ("fn NAME 0xADDR SIZE").
std::vector<std::pair<std::uint64_t, std::uint64_t>> jitted_ranges(const std::string& err);

/// The address of an address-named function ("0x..."), or nullopt.
std::optional<std::uint64_t> address_of(const std::string& name);

}  // namespace late_test

#endif
