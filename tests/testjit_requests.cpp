// testjit_requests.cpp: testjit's requests that the core refuses or
// trims: every kind of bad request (bad), line tables that lose entries
// (lines), and names at every offset and length, some not UTF-8 or
// running into memory they must not be read from (names).

#include "testjit.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace testjit {

namespace {

// The name as the core shows a name that holds no valid multi-byte
// UTF-8 character: bytes outside printable ASCII as \xNN.
std::string escaped_name(const std::string& name) {
    std::string out;
    for (const unsigned char c : name) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

// Registrations of the n bytes of code at p with a bad name, and of bad
// ranges: `runs_off` is a name that runs into a PROT_NONE page, `data`
// a page that is not executable.
void register_bad_names_and_ranges(std::uint8_t* p, std::size_t n, const char* runs_off,
                                   std::uint8_t* data) {
    report("null-name", VALGRIND_JIT_REGISTER(p, n, nullptr));
    report("wild-name", VALGRIND_JIT_REGISTER(p, n, reinterpret_cast<const char*>(16)));
    report("unterminated-name", VALGRIND_JIT_REGISTER(p, n, runs_off));
    report("empty-name", VALGRIND_JIT_REGISTER(p, n, ""));
    const std::string long_name(5000, 'n');  // above VG_JIT_MAX_STRING
    report("long-name", VALGRIND_JIT_REGISTER(p, n, long_name.c_str()));
    report("size-zero", VALGRIND_JIT_REGISTER(p, 0, "f"));
    report("wraps", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(~0UL - 8), 64, "f"));
    report("huge", VALGRIND_JIT_REGISTER(p, 1UL << 40, "f"));
    report("unmapped", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(0x10000), 64, "f"));
    report("not-executable", VALGRIND_JIT_REGISTER(data, 64, "f"));
    report("elf-text", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(&elf_helper), 16, "f"));
}

// Registrations of the n bytes of code at p through descriptors that are
// bad, or whose object name (`runs_off`) or line tables are.
void register_bad_descriptors(std::uint8_t* p, std::size_t n, const char* runs_off,
                              std::uint8_t* data) {
    report("null-desc", VALGRIND_JIT_REGISTER_CODE(nullptr));
    VgJitCode small = VG_JIT_CODE_INITIALIZER;
    small.struct_size = 8;
    report("small-desc", VALGRIND_JIT_REGISTER_CODE(&small));
    VgJitCode big = VG_JIT_CODE_INITIALIZER;
    big.struct_size = 1UL << 20;
    report("huge-desc", VALGRIND_JIT_REGISTER_CODE(&big));
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = p;
    d.size = n;
    d.name = "badlines";
    d.file = source_file;
    d.lines = reinterpret_cast<const VgJitLine*>(16);
    d.n_lines = 4;
    report("wild-lines", VALGRIND_JIT_REGISTER_CODE(&d));
    d.lines = reinterpret_cast<const VgJitLine*>(data);
    d.n_lines = 1UL << 40;
    report("absurd-n-lines", VALGRIND_JIT_REGISTER_CODE(&d));
    d.object = runs_off;
    d.n_lines = 0;
    d.lines = nullptr;
    report("bad-object", VALGRIND_JIT_REGISTER_CODE(&d));
    d.object = "testjit-obj";
    // Unsorted, out-of-range, line 0, bad file pointer: kept what is valid.
    const VgJitLine messy[] = {{4, 101, nullptr},
                               {0, 100, nullptr},
                               {n + 100, 102, nullptr},
                               {2, 0, nullptr},
                               {3, 103, reinterpret_cast<const char*>(16)}};
    d.lines = messy;
    d.n_lines = 5;
    report("messy-lines", VALGRIND_JIT_REGISTER_CODE(&d));
}

// Mappings that change between two requests: each answer follows the
// system call that changed them, not the request before it.
void requests_across_mapping_changes(std::uint8_t* p) {
    report("before-mprotect", VALGRIND_JIT_REGISTER(p + 64, 16, "before_mprotect"));
    mprotect(p, 8192, PROT_READ | PROT_WRITE);
    report("after-mprotect", VALGRIND_JIT_REGISTER(p + 128, 16, "after_mprotect"));
    mprotect(p, 8192, PROT_READ | PROT_EXEC);
    report("executable-again", VALGRIND_JIT_REGISTER(p + 128, 16, "executable_again"));
    auto* names = static_cast<char*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::strcpy(names, "name_in_a_mapping");
    std::strcpy(names + 64, "name_unmapped_since");
    report("name-mapped", VALGRIND_JIT_REGISTER(p + 192, 16, names));
    munmap(names, 4096);
    report("name-unmapped", VALGRIND_JIT_REGISTER(p + 256, 16, names + 64));
}

}  // namespace

// names: names at every offset and length, some with bytes that are not
// printable ASCII, one ending before a PROT_NONE page, one across two
// mappings: "status names-I" and "expect names-I ESCAPED" for each.
int mode_names() {
    CodeMemory mem(16 * 4096);
    std::uint8_t* p = mem.base();
    const std::size_t slots = mem.size() / 64 - 2;
    std::size_t k = 0;
    // Five pages read/write, then one PROT_NONE; the fifth page becomes
    // read-only, a mapping of its own.
    auto* buf = static_cast<char*>(
        mmap(nullptr, 6 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (buf == MAP_FAILED) {
        std::perror("mmap");
        return 2;
    }
    std::vector<std::pair<const char*, std::string>> names;  // at, text
    std::size_t at = 0;
    auto place = [&](std::size_t offset, const std::string& text) {
        std::memcpy(buf + offset, text.c_str(), text.size() + 1);
        names.emplace_back(buf + offset, text);
    };
    for (std::size_t len = 1; len <= 40; ++len)
        for (std::size_t off = 0; off < 8; ++off) {
            at = (at + 8) & ~std::size_t(7);
            std::string text;
            for (std::size_t i = 0; i < len; ++i)
                text += static_cast<char>('a' + (len * 7 + off + i) % 26);
            // Every fifth name gets a junk byte at its start, its end or
            // in its middle.
            if ((len + off) % 5 == 0)
                text[(len + off) % 3 == 0   ? 0
                     : (len + off) % 3 == 1 ? len - 1
                                            : len / 2] =
                    static_cast<char>((len + off) % 2 ? 0x01 : 0xff);
            place(at + off, text);
            at += off + len + 1;
        }
    if (at > 4 * 4096 - 64) {
        std::fprintf(stderr, "names: buffer too small\n");
        return 2;
    }
    // Ends on the last byte of the fifth page, which is followed by the
    // PROT_NONE page.
    place(5 * 4096 - 12, "at_the_end\x7f");
    // Runs from the fourth page into the fifth (read-only) one.
    place(4 * 4096 - 13, "across_two_mappings");
    mprotect(buf + 4 * 4096, 4096, PROT_READ);
    mprotect(buf + 5 * 4096, 4096, PROT_NONE);
    for (std::size_t i = 0; i < names.size() && k < slots; ++i, ++k) {
        const std::string what = "names-" + std::to_string(i);
        const std::size_t n = emit_counter(p + 64 * k, 1, 1);
        report(what.c_str(), VALGRIND_JIT_REGISTER(p + 64 * k, n, names[i].first));
        std::fprintf(stderr, "expect %s %s\n", what.c_str(), escaped_name(names[i].second).c_str());
    }
    std::printf("names registered: %zu\n", k);
    munmap(buf, 6 * 4096);
    return 0;
}

// bad: the requests of register_bad_names_and_ranges and
// register_bad_descriptors, unregistrations of nothing and of a range, a
// query, and requests_across_mapping_changes; then the code still runs.
int mode_bad() {
    CodeMemory mem(8192);
    std::uint8_t* p = mem.base();
    std::size_t n = emit_counter(p, 7, 1000);
    // A name that runs into an unmapped page: the last bytes of a page
    // followed by a PROT_NONE page.
    auto* guard = static_cast<char*>(
        mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(guard + 4096, 4096, PROT_NONE);
    std::memset(guard, 'x', 4096);
    char* runs_off = guard + 4096 - 8;

    auto* data = static_cast<std::uint8_t*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

    register_bad_names_and_ranges(p, n, runs_off, data);
    register_bad_descriptors(p, n, runs_off, data);
    report("overlap-replaces", VALGRIND_JIT_REGISTER(p + 2, 4, "overlapper"));
    report("unregister-nothing", VALGRIND_JIT_UNREGISTER(p + 1000));
    report("unregister-range", VALGRIND_JIT_UNREGISTER_RANGE(p, 4096));
    report("query", VALGRIND_JIT_QUERY());
    requests_across_mapping_changes(p);

    long r = reinterpret_cast<long (*)()>(p)();
    std::printf("bad inputs survived, code returned %ld\n", r);
    munmap(guard, 8192);
    munmap(data, 4096);
    return 0;
}

// lines: line tables that lose entries, one registration per reason,
// then 150 with an entry past their code.
int mode_lines() {
    CodeMemory mem(8192);
    std::uint8_t* p = mem.base();
    const std::size_t n = emit_counter(p, 7, 1000);
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = p;
    d.size = n;
    d.name = "no_file";
    const VgJitLine no_file[] = {{0, 10, nullptr}, {2, 11, nullptr}, {4, 12, nullptr}};
    d.lines = no_file;
    d.n_lines = 3;
    report("no-file", VALGRIND_JIT_REGISTER_CODE(&d));
    d.name = "high_line";
    d.file = source_file;
    const VgJitLine high_line[] = {
        {0, 10, nullptr}, {2, 1048576, nullptr}, {4, 0x7fffffff, nullptr}};
    d.lines = high_line;
    report("high-line", VALGRIND_JIT_REGISTER_CODE(&d));
    d.name = "junk_file";
    static const char kJunk[] = "/src/\xff\xfe.js";
    const VgJitLine junk_file[] = {{0, 10, kJunk}, {2, 11, kJunk}};
    d.lines = junk_file;
    d.n_lines = 2;
    report("junk-file", VALGRIND_JIT_REGISTER_CODE(&d));
    const VgJitLine flood[] = {{0, 10, nullptr}, {n, 11, nullptr}};
    d.lines = flood;
    for (int i = 0; i < 150; ++i) {
        const std::string name = "flood_" + std::to_string(i);
        d.name = name.c_str();
        const unsigned long ret = VALGRIND_JIT_REGISTER_CODE(&d);
        if (i == 0) report("flood-0", ret);
    }
    long r = reinterpret_cast<long (*)()>(p)();
    std::printf("lines done, code returned %ld\n", r);
    return 0;
}

}  // namespace testjit
