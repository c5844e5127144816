// unit_parsers_beamjit.cpp: unit_parsers' Erlang/OTP JIT entries of the
// GDB JIT interface (readbeamjit.c; unit_parsers.cpp says what the program
// holds): a module's entry read into its ranges and lines, entries that
// are no module, and malformed modules.
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Writes entries in Erlang/OTP's layout (priv_jitformats.h), host order.
struct BeamEntry {
    std::vector<unsigned char> bytes;
    template <typename T>
    void put(std::size_t at, T v) {
        if (bytes.size() < at + sizeof v) bytes.resize(at + sizeof v);
        std::memcpy(bytes.data() + at, &v, sizeof v);
    }
    void str(std::size_t at, const std::string& s) {
        if (bytes.size() < at + s.size() + 1) bytes.resize(at + s.size() + 1);
        std::memcpy(bytes.data() + at, s.c_str(), s.size() + 1);
    }
    BeamEntry(std::uint64_t base, std::uint32_t ranges, std::uint32_t code,
              const std::string& mod) {
        put<std::uint32_t>(0, 1);
        put<std::uint64_t>(8, base);
        put<std::uint32_t>(16, ranges);
        put<std::uint32_t>(20, code);
        put<std::uint16_t>(24, static_cast<std::uint16_t>(mod.size() + 1));
        str(26, mod);
        bytes.resize(32 + mod.size() + 1);
    }
    void range(std::uint32_t start, std::uint32_t end, std::uint32_t lines,
               const std::string& name) {
        const std::size_t at = bytes.size();
        put<std::uint32_t>(at, start);
        put<std::uint32_t>(at + 4, end);
        put<std::uint32_t>(at + 8, lines);
        put<std::uint16_t>(at + 12, static_cast<std::uint16_t>(name.size() + 1));
        str(at + 14, name);
        bytes.resize(at + 16 + name.size() + 1);
    }
    void line(std::uint32_t start, std::uint32_t line, const std::string& file) {
        const std::size_t at = bytes.size();
        put<std::uint32_t>(at, start);
        put<std::uint32_t>(at + 4, line);
        put<std::uint16_t>(at + 8, static_cast<std::uint16_t>(file.size() + 1));
        str(at + 10, file);
        bytes.resize(at + 12 + file.size() + 1);
    }
};

BeamEntry sample_module() {
    BeamEntry e(0x7f0000001000ull, 3, 0x200, "vgfib");
    e.range(0, 0x80, 0, "vgfib::codeHeader");
    e.range(0x80, 0x100, 2, "vgfib:fib/1");
    e.line(0x7c, 8, "vgfib.erl");  // before its range: in effect at its start
    e.line(0xc0, 9, "vgfib.erl");
    e.range(0x100, 0x200, 1, "vgfib:main/0");
    e.line(0x100, 12, "vgfib.erl");
    return e;
}

/// "kind error ranges" of reading `bytes` whole, with the ranges and
/// lines read ("name@start-end" and "line@addr").
std::string read_beam(const std::vector<unsigned char>& bytes) {
    BeamJitReader r;
    std::ostringstream out;
    // An exact-size heap copy: a read past the end is caught by ASan.
    std::vector<unsigned char> copy(bytes);
    const int kind = ML_(beamjit_open)(&r, copy.empty() ? nullptr : copy.data(), copy.size());
    out << kind << " " << r.error;
    if (kind != BEAMJIT_MODULE) return out.str();
    out << " " << std::string(r.module, r.module_len);
    BeamJitRange rg;
    int k;
    while ((k = ML_(beamjit_next_range)(&r, &rg)) == 1) {
        out << " " << std::string(rg.name, rg.name_len) << "@" << std::hex << rg.start << "-"
            << rg.end << std::dec;
        BeamJitLine ln;
        while (ML_(beamjit_next_line)(&r, &ln) == 1)
            out << " " << ln.line << "@" << std::hex << ln.addr << std::dec << ":"
                << std::string(ln.file, ln.file_len);
    }
    out << " end " << k << " " << r.error;
    return out.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(beamjit)

BOOST_AUTO_TEST_CASE(module_entry_gives_its_ranges_and_lines) {
    BOOST_TEST(read_beam(sample_module().bytes) ==
               "2 0 vgfib vgfib::codeHeader@7f0000001000-7f0000001080"
               " vgfib:fib/1@7f0000001080-7f0000001100 8@7f000000107c:vgfib.erl"
               " 9@7f00000010c0:vgfib.erl vgfib:main/0@7f0000001100-7f0000001200"
               " 12@7f0000001100:vgfib.erl end 0 0");
    BeamJitReader r;
    const auto b = sample_module().bytes;
    BOOST_TEST(ML_(beamjit_open)(&r, b.data(), b.size()) == BEAMJIT_MODULE);
    BOOST_TEST(ML_(beamjit_check)(&r) == BEAMJIT_OK);
}

BOOST_AUTO_TEST_CASE(emulator_entry_and_other_objects_are_not_modules) {
    std::vector<unsigned char> emu(32, 0xAB);
    std::memset(emu.data(), 0, 4);
    BOOST_TEST(read_beam(emu) == "1 0");
    emu.push_back(0);
    BOOST_TEST(read_beam(emu) == "0 0");  // header 0 of another size
    BOOST_TEST(read_beam({}) == "0 0");
    BOOST_TEST(read_beam({'M', 'Z', 0x90, 0}) == "0 0");
    std::vector<unsigned char> two = sample_module().bytes;
    two[0] = 2;
    BOOST_TEST(read_beam(two) == "0 0");
}

BOOST_AUTO_TEST_CASE(malformed_modules_are_refused_whole) {
    const auto good = sample_module().bytes;
    // Every truncation is malformed (never a crash, never accepted).
    for (std::size_t n = 4; n < good.size(); ++n) {
        BeamJitReader r;
        std::vector<unsigned char> cut(good.begin(), good.begin() + n);
        const int kind = ML_(beamjit_open)(&r, cut.data(), cut.size());
        BOOST_TEST_CONTEXT("length " << n) {
            BOOST_TEST((kind == BEAMJIT_MALFORMED ||
                        (kind == BEAMJIT_MODULE && ML_(beamjit_check)(&r) != BEAMJIT_OK)));
        }
    }
    auto check = [](std::vector<unsigned char> b) {
        BeamJitReader r;
        const int kind = ML_(beamjit_open)(&r, b.data(), b.size());
        return kind == BEAMJIT_MODULE      ? ML_(beamjit_check)(&r)
               : kind == BEAMJIT_MALFORMED ? r.error
                                           : -1;
    };
    std::vector<unsigned char> b = good;
    b.push_back(0);
    BOOST_TEST(check(b) == BEAMJIT_ERR_TRAILING);
    BeamEntry unordered(0x7f0000001000ull, 2, 0x200, "m");
    unordered.range(0x80, 0x100, 0, "m:a/0");
    unordered.range(0x40, 0x80, 0, "m:b/0");
    BOOST_TEST(check(unordered.bytes) == BEAMJIT_ERR_BAD_RANGE);
    BeamEntry outside(0x7f0000001000ull, 1, 0x100, "m");
    outside.range(0x80, 0x180, 0, "m:a/0");
    BOOST_TEST(check(outside.bytes) == BEAMJIT_ERR_BAD_RANGE);
    BeamEntry wraps(~0ull - 0x10, 1, 0x100, "m");
    wraps.range(0, 0x10, 0, "m:a/0");
    BOOST_TEST(check(wraps.bytes) == BEAMJIT_ERR_NO_CODE);
    BeamEntry no_nul = sample_module();
    no_nul.bytes[26 + 5] = 'x';  // the module name's NUL
    BOOST_TEST(check(no_nul.bytes) == BEAMJIT_ERR_BAD_NAME);
    BeamEntry many(0x7f0000001000ull, 0xFFFFFFFFu, 0x200, "m");  // counts bounded by bytes
    many.range(0, 0x10, 0xFFFFFFFFu, "m:a/0");
    BOOST_TEST(check(many.bytes) == BEAMJIT_ERR_LINE_OUTSIDE);
}

BOOST_AUTO_TEST_SUITE_END()
