// integration_producers_jitdump.cpp - integration_producers' cases of
// jitdump files written by tests/jitdump_producer: names that arrive late,
// CODE_MOVE, truncated and malformed records, the -v summary, headers
// written after the mapping, junk names, jitdumps under other names, and
// what vgdb's v.info jit lists; integration_producers.cpp says what the
// program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_producers.hpp"
#include "test_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace vgjit::test;
using namespace producers_test;
using cg::line_cost;

BOOST_AUTO_TEST_CASE(name_arriving_late_names_earlier_and_later_executions_exactly) {
    // late_fn(1000) runs 1000 times before its CODE_LOAD is in the file and
    // 1000 times after: the translations made without a name are
    // discarded, so the later calls carry the name, and Callgrind gives it
    // to the earlier ones when it dumps (the code is unmapped by then: the
    // name it had last still applies).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "late", callgrind_args(out));
    BOOST_TEST_REQUIRE(r.fns.count("late_fn") == 1u, r.vg.err);
    const FnRange late = r.fns.at("late_fn");
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const cg::FunctionCosts* f = function_named(p, "late_fn");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST(f->key.object == dump);
    BOOST_TEST(f->self.at(0) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, dump) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, "???") == 0u);
}

BOOST_AUTO_TEST_CASE(name_read_during_a_lookup_names_later_executions_exactly) {
    // late_fn(1000) runs 1000 times unnamed; then the records of late_fn
    // and next_fn are written and next_fn runs at once: the lookup of its
    // name reads the file, in the middle of a translation, where nothing
    // may be discarded.  late_fn's old translations must go at the next
    // scheduler point, before its 1000 later calls.  Callgrind gives the
    // name to the earlier calls too when it dumps, so the profile alone
    // cannot tell whether they went: Valgrind's debug log (-d -d) names
    // every discard and who asked for it.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "late-lookup", callgrind_args(out, {"-d", "-d"}));
    BOOST_TEST_REQUIRE(r.fns.count("late_fn") == 1u, r.vg.err);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const cg::FunctionCosts* next = function_named(p, "next_fn");
    BOOST_TEST_REQUIRE(next != nullptr);
    BOOST_TEST(next->self.at(0) == sum_call(1000));
    const FnRange late = r.fns.at("late_fn");
    BOOST_TEST(cost_in_range(p, late, dump) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, "???") == 0u);
    char discard[96];
    std::snprintf(
        discard, sizeof discard, "discard_translations(0x%llx, %llu) req by jitreg.late_name",
        static_cast<unsigned long long>(late.addr), static_cast<unsigned long long>(late.size));
    BOOST_TEST(r.vg.err.find(discard) != std::string::npos, "no \"" << discard << "\" in the log");
}

BOOST_AUTO_TEST_CASE(code_move_keeps_name_and_line_table) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "move", callgrind_args(out, {"-v"}));
    BOOST_TEST_REQUIRE(r.fns.count("mover") == 1u, r.vg.err);
    BOOST_TEST_REQUIRE(r.fns.count("mover-moved") == 1u, r.vg.err);
    const FnRange a = r.fns.at("mover"), b = r.fns.at("mover-moved");
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const std::string file = "/virtual/jitdump_producer.src";
    const cg::FunctionCosts* f = function_named(p, "mover");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST(f->key.object == dump);
    BOOST_TEST(f->key.file == file);
    // 1000 calls of mover(500) at A, 1000 at B, then mover(1) at B; each
    // call is 3n + 4 instructions.
    const std::uint64_t per_call = sum_call(500) + 1;
    BOOST_TEST(cost_in_range(p, a, dump) == 1000 * per_call);
    BOOST_TEST(cost_in_range(p, b, dump) == 1000 * per_call + sum_call(1) + 1);
    BOOST_TEST(cost_in_range(p, a, "???") == 0u);
    BOOST_TEST(cost_in_range(p, b, "???") == 0u);
    BOOST_TEST(f->self.at(0) == 2000 * per_call + sum_call(1) + 1);
    // The line table moved with the code: line 10 (2 instructions per
    // call), 11 (the loop), 12 (the read and the return).
    BOOST_TEST(line_cost(*f, file, 10) == 2u * 2001);
    BOOST_TEST(line_cost(*f, file, 11) == 3u * (2000 * 500 + 1));
    BOOST_TEST(line_cost(*f, file, 12) == 2u * 2001);
    BOOST_TEST(contains(r.vg.err, "1 loaded, 1 moved, 0 refused, 0 malformed"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(memcheck_names_moved_jitdump_code_with_file_and_line) {
    TempDir dir;
    const ProducerRun r = run_producer(dir, "move", {"--tool=memcheck"});
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: mover \(jitdump_producer\.src:12\))");
    BOOST_TEST(std::regex_search(r.vg.err, frame), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "ERROR SUMMARY: 1 errors from 1 contexts"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(truncated_final_record_leaves_earlier_names) {
    // Three good CODE_LOADs, then one cut in half: a producer that died
    // mid-write.  Each function runs 100 x (n = 1000).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "truncate", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"trunc_a", "trunc_b", "trunc_c"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->key.object == dump);
        BOOST_TEST(f->self.at(0) == 100 * sum_call(1000), name);
    }
    BOOST_TEST(p.functions_named("trunc_d").empty());
    BOOST_TEST_REQUIRE(r.fns.count("trunc_d") == 1u);
    BOOST_TEST(cost_in_range(p, r.fns.at("trunc_d"), "???") == 100 * sum_call(1000));
    // Nothing fatal: no warning about the file, it was not given up.
    BOOST_TEST(warnings_about(r.vg.err, dump).empty(), r.vg.err);
    BOOST_TEST(!contains(r.vg.err, "stopped following"), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "JIT: 3 registered"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(malformed_records_between_good_ones_are_skipped_with_warnings) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "garbage", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"good_one", "good_two"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->key.object == dump);
        BOOST_TEST(f->self.at(0) == 100 * sum_call(1000), name);
        // good_two's line table was malformed: no file.
        BOOST_TEST(f->key.file == "???", name);
    }
    // The code announced with an empty name (and by the other bad records)
    // stays unnamed.
    BOOST_TEST_REQUIRE(r.fns.count("no_name") == 1u);
    BOOST_TEST(cost_in_range(p, r.fns.at("no_name"), "???") == 100 * sum_call(1000));
    BOOST_TEST(p.functions_named("liar_name").empty());
    BOOST_TEST(p.functions_named("zero_size").empty());
    BOOST_TEST(p.functions_named("wraps").empty());
    const auto warnings = warnings_about(r.vg.err, dump);
    const std::vector<std::string> expected = {
        "offset 122: CODE_LOAD function name is not NUL-terminated within the record "
        "(total_size 60) or is longer than 64 KiB",
        "offset 222: CODE_LOAD with an empty name ignored",
        "offset 296: CODE_LOAD with code_size 0 ignored",
        "offset 362: code address + code size wraps around the address space: CODE_LOAD "
        "code_addr 0xfffffffffffff000, code_size 0x2000",
        "offset 440: CODE_DEBUG_INFO nr_entry is larger than the record can hold: nr_entry "
        "1000000, 111 bytes of entries, each at least 17",
        "offset 583: CODE_MOVE 0x1000 -> ",
    };
    BOOST_TEST(warnings.size() == expected.size(), r.vg.err);
    for (const auto& w : expected) {
        bool found = false;
        for (const auto& line : warnings) found = found || contains(line, w);
        BOOST_TEST(found, "warning \"" << w << "\" in\n" << r.vg.err);
    }
    // The unknown record id 42 is skipped silently, as the format asks.
    BOOST_TEST(contains(r.vg.err, "(CODE_CLOSE): 2 loaded, 0 moved, 1 refused, 5 malformed"),
               r.vg.err);
    BOOST_TEST(contains(r.vg.err, "refused: nothing registered there"), r.vg.err);
    // Without -v, nothing about the file.
    const std::string quiet_out = dir.file("callgrind.quiet");
    const Result quiet = run_valgrind(callgrind_args(quiet_out), {producer(), "garbage"},
                                      RunOptions{120, dir.path(), {}});
    BOOST_TEST(quiet.status == 0, quiet);
    BOOST_TEST(!contains(quiet.err, "Warning"), quiet.err);
}

/// The numbers of the -v exit summary line matching `re` (one capture group
/// per number), or an empty vector if no line matches.
std::vector<std::uint64_t> summary_numbers(const std::string& err, const std::regex& re) {
    std::smatch m;
    std::vector<std::uint64_t> v;
    if (std::regex_search(err, m, re))
        for (std::size_t i = 1; i < m.size(); ++i) v.push_back(std::stoull(m[i]));
    return v;
}

BOOST_AUTO_TEST_CASE(summary_counts_every_record_once_and_add_up) {
    // jitdump_producer counts writes 23 records after the header: 3 loaded,
    // 14 refused (12 in ELF text, 1 too big, 1 CODE_MOVE of nothing), 2
    // malformed, 3 without code, and 1 at memory that is not executable,
    // which waits for its code (and never sees it).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "counts", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"count_a", "count_b", "count_c"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
    }
    const auto file = summary_numbers(
        r.vg.err, std::regex("JIT: jitdump file " + dump +
                             R"(: (\d+) records read: (\d+) loaded, (\d+) moved, (\d+) refused, )"
                             R"((\d+) malformed, (\d+) without code, (\d+) late names for )"
                             R"(unmapped code, (\d+) waited for executable code)"));
    BOOST_TEST_REQUIRE(file.size() == 8u, r.vg.err);
    BOOST_TEST(file[0] == 23u);
    BOOST_TEST(file[1] == 3u);
    BOOST_TEST(file[2] == 0u);
    BOOST_TEST(file[3] == 14u);
    BOOST_TEST(file[4] == 2u);
    BOOST_TEST(file[5] == 3u);
    BOOST_TEST(file[6] == 0u);
    BOOST_TEST(file[7] == 1u);
    BOOST_TEST(file[0] == file[1] + file[2] + file[3] + file[4] + file[5] + file[6] + file[7]);
    // The refusals by reason, per file and over the run.
    const std::string reasons =
        "1 bad address range, "
        "12 range overlaps the text of a loaded object, "
        "1 nothing registered there";
    BOOST_TEST(contains(r.vg.err, "JIT: jitdump file " + dump + " refused: " + reasons), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "JIT: refused: " + reasons), r.vg.err);
    const auto total = summary_numbers(
        r.vg.err, std::regex(R"(JIT: (\d+) registered, (\d+) unregistered, (\d+) replaced, )"
                             R"((\d+) unmapped, (\d+) refused,)"));
    BOOST_TEST_REQUIRE(total.size() == 5u, r.vg.err);
    BOOST_TEST(total[0] == 3u);
    BOOST_TEST(total[4] == 14u);
    // 16 problems: 10 printed, the other 6 counted and said so at exit.
    BOOST_TEST(warnings_about(r.vg.err, dump).size() == 10u + 1u, r.vg.err);  // + "only counted"
    BOOST_TEST(
        contains(r.vg.err, "JIT: jitdump file " + dump + ": 6 further problems were only counted"),
        r.vg.err);
}

BOOST_AUTO_TEST_CASE(a_jitdump_mapped_before_its_header_is_followed_once_it_has_one) {
    // JavaScriptCore maps jit-<N>-<pid>.dump while it is empty and writes
    // the header after: the file is looked at again until it has one.
    // empty.bin, mapped executable and never written, goes unmentioned.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "header-after-mapping", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const std::string name : {"late_header_a", "late_header_b"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name + "\n" + r.vg.err);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
        static const std::regex bun_like(R"(/jit-\d+-\d+\.dump$)");
        BOOST_TEST(std::regex_search(f->key.object, bun_like), f->key.object);
    }
    BOOST_TEST(!contains(r.vg.err, "empty.bin"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(records_written_together_are_each_named_or_refused_as_alone) {
    // jitdump_producer run-gap writes five CODE_LOADs at rising addresses
    // in two writes: run_a, run_e (which ran before its record); in_gap
    // (not code), run_c, run_d.  Each ends as it would alone: four loaded
    // with exact costs, in_gap waiting for its page to become executable,
    // which it never does.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "run-gap", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"run_a", "run_c", "run_d"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name + "\n" + r.vg.err);
        BOOST_TEST(f->key.object == dump, name);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
    }
    const cg::FunctionCosts* e = function_named(p, "run_e");
    BOOST_TEST_REQUIRE(e != nullptr, r.vg.err);
    BOOST_TEST(e->self.at(0) == 20 * sum_call(100));
    BOOST_TEST(function_named(p, "in_gap") == nullptr);
    const auto file = summary_numbers(
        r.vg.err, std::regex("JIT: jitdump file " + dump +
                             R"(: (\d+) records read: (\d+) loaded, (\d+) moved, (\d+) refused, )"
                             R"((\d+) malformed, (\d+) without code, (\d+) late names for )"
                             R"(unmapped code, (\d+) waited for executable code)"));
    BOOST_TEST_REQUIRE(file.size() == 8u, r.vg.err);
    BOOST_TEST(file[0] == 6u);  // and CODE_CLOSE
    BOOST_TEST(file[1] == 4u);
    BOOST_TEST(file[3] == 0u);
    BOOST_TEST(file[7] == 1u);
    BOOST_TEST(warnings_about(r.vg.err, dump).empty(), r.vg.err);
    static const std::regex never(R"(JIT: never became code: in_gap at 0x[0-9a-f]+ \(64 bytes, )");
    BOOST_TEST(std::regex_search(r.vg.err, never), r.vg.err);
    // run_e's code was translated before its record came: it is
    // translated again under its name, which Callgrind matches when it
    // makes a block's function.  Collecting only inside run_e counts
    // exactly its 10 calls after the record.
    const std::string only = dir.file("callgrind.only");
    const ProducerRun t =
        run_producer(dir, "run-gap", callgrind_args(only, {"--toggle-collect=run_e"}));
    const cg::Profile q = cg::Profile::parse_file(only);
    const cg::FunctionCosts* collected = function_named(q, "run_e");
    BOOST_TEST_REQUIRE(collected != nullptr, t.vg.err);
    BOOST_TEST(collected->self.at(0) == 10 * sum_call(100));
}

BOOST_AUTO_TEST_CASE(junk_names_are_escaped_and_junk_file_names_never_shown) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "junk-names", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    // The name's control characters and its non-UTF-8 byte are escaped.
    const cg::FunctionCosts* named = function_named(p, R"(junk_\x01name\x7f\xff)");
    BOOST_TEST_REQUIRE(named != nullptr, r.vg.err);
    BOOST_TEST(named->self.at(0) == 100 * sum_call(1000));
    // The junk file name is no file: its entry is dropped, so the loop
    // counts under line 50 of the good file; the other two entries stay.
    const std::string ok = "/virtual/ok.src";
    const cg::FunctionCosts* lined = function_named(p, "junk_file");
    BOOST_TEST_REQUIRE(lined != nullptr);
    BOOST_TEST(lined->key.file == ok);
    BOOST_TEST(line_cost(*lined, ok, 50) == 100u * (2 + 3 * 1000));
    BOOST_TEST(line_cost(*lined, ok, 51) == 0u);
    BOOST_TEST(line_cost(*lined, ok, 52) == 100u);
    for (const auto& [key, f] : p.functions()) {
        BOOST_TEST(printable_ascii(key.file), key.file);
        BOOST_TEST(printable_ascii(key.name), key.name);
        for (const auto& [pos, costs] : f.lines) BOOST_TEST(printable_ascii(pos.first), pos.first);
    }
    BOOST_TEST(contains(r.vg.err,
                        "JIT: 1 names escaped and 1 source file names ignored "
                        "(not UTF-8, or with control characters)"),
               r.vg.err);
    // The record that lost the entry says so once, with the count and why.
    static const std::regex dropped(
        R"(Warning: \S+/jit-\d+\.dump:offset \d+: CODE_LOAD junk_file at 0x[0-9a-f]+ \(\d+ bytes\): )"
        R"(line-table entries dropped: 1 of 3: 1 whose file name is not UTF-8 or has control characters\n)");
    BOOST_TEST(std::regex_search(r.vg.err, dropped), r.vg.err);
    BOOST_TEST(count_of(r.vg.err, "line-table entries dropped: ") == 1u, r.vg.err);
}

namespace {

/// A process started in the background with stdout and stderr going to
/// files; killed (SIGKILL) and reaped on destruction if still running.
class Background {
public:
    Background(const std::vector<std::string>& argv, const TempDir& dir)
        : out_(dir.file("bg.out")), err_(dir.file("bg.err")) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        const std::string cwd = dir.path();
        char* const* envp = environ;
        // posix_spawn has no cwd action before glibc 2.29's _np one: chdir
        // around the spawn instead (tests run single-threaded).
        char old[4096];
        if (!getcwd(old, sizeof old)) old[0] = 0;
        if (chdir(cwd.c_str()) != 0) throw std::runtime_error("chdir " + cwd);
        const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), envp);
        if (old[0] && chdir(old) != 0) throw std::runtime_error("chdir back");
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
        note_started(pid_);
    }
    ~Background() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    pid_t pid() const { return pid_; }
    std::string err() const { return read_file(err_); }
    std::string out() const { return read_file(out_); }
    /// Waits until stderr contains `what` (true) or `seconds` passed.
    bool wait_for(const std::string& what, int seconds) const {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (std::chrono::steady_clock::now() < end) {
            if (contains(err(), what)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
    /// Waits for the exit (at most `seconds`); returns the exit status or -1.
    int wait(int seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (std::chrono::steady_clock::now() < end) {
            int st = 0;
            if (waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return -1;
    }

private:
    std::string out_, err_;
    pid_t pid_ = -1;
};

/// "0xSTART-0xEND NAME (OBJECT), N line entries" for a v.info jit line.
std::string listed_line(const FnRange& f, const std::string& name, const std::string& object,
                        unsigned lines) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%llx-0x%llx ", static_cast<unsigned long long>(f.addr),
                  static_cast<unsigned long long>(f.addr + f.size));
    return buf + name + " (" + object + "), " + std::to_string(lines) + " line entries";
}

}  // namespace

BOOST_AUTO_TEST_CASE(vgdb_v_info_jit_lists_live_kept_and_waiting_functions_and_followed_files) {
    TempDir dir;
    const std::string vgdb = stage() + "/bin/vgdb";
    BOOST_TEST_REQUIRE(access(vgdb.c_str(), X_OK) == 0, vgdb);
    Background vg({valgrind(), "--tool=none", "--vgdb=yes",
                   "--vgdb-prefix=" + dir.file("vgdb-pipe"), "--", producer(), "hold"},
                  dir);
    BOOST_TEST_REQUIRE(vg.wait_for("ready", 120), vg.err());
    const auto fns = function_ranges(vg.err());
    BOOST_TEST_REQUIRE(fns.count("hold_a") == 1u);
    BOOST_TEST_REQUIRE(fns.count("hold_b") == 1u);
    const std::string dump = dir.path() + "/jit-" + std::to_string(vg.pid()) + ".dump";
    const auto query = [&](const std::vector<std::string>& words) {
        std::vector<std::string> argv{vgdb, "--pid=" + std::to_string(vg.pid()),
                                      "--vgdb-prefix=" + dir.file("vgdb-pipe")};
        std::string cmd = "v.info jit";
        for (const auto& w : words) cmd += " " + w;
        argv.push_back(cmd);
        RunOptions opt;
        opt.timeout_seconds = 60;
        return run(argv, opt);
    };
    const std::string a = listed_line(fns.at("hold_a"), "hold_a", dump, 3);
    const std::string b = listed_line(fns.at("hold_b"), "hold_b", dump, 0);
    BOOST_TEST_REQUIRE(fns.count("hold_kept") == 1u);
    const std::string kept = listed_line(fns.at("hold_kept"), "hold_kept", "[jit]", 0) +
                             ", kept after its unregistration (code still mapped)\n";

    const Result all = query({});
    BOOST_TEST(all.status == 0, all);
    BOOST_TEST(contains(all.out, a + "\n"), all);
    BOOST_TEST(contains(all.out, b + "\n"), all);
    // Unregistered code that stays mapped keeps its name, marked and
    // counted apart from registered code.
    BOOST_TEST(contains(all.out, kept), all);
    BOOST_TEST(
        contains(all.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 3 listed here"),
        all);
    // The name whose page is not executable waits.
    static const std::regex waiting(
        R"(0x[0-9a-f]+-0x[0-9a-f]+ hold_wait \(.*\), waiting: not executable yet\n)");
    BOOST_TEST(std::regex_search(all.out, waiting), all);
    BOOST_TEST(contains(all.out, "JIT: 1 names waiting for their code, listed here"), all);
    BOOST_TEST(
        contains(all.out, "JIT: following jitdump file " + dump +
                              ": 4 records read: "
                              "2 loaded, 0 moved, 0 refused, 0 malformed, 1 without code, "
                              "0 late names for unmapped code, 1 waited for executable code"),
        all);

    char range[64];
    std::snprintf(range, sizeof range, "0x%llx",
                  static_cast<unsigned long long>(fns.at("hold_b").addr + 1));
    const Result one = query({range, "2"});
    BOOST_TEST(one.status == 0, one);
    BOOST_TEST(!contains(one.out, a), one);
    BOOST_TEST(contains(one.out, b), one);
    BOOST_TEST(
        contains(one.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 1 listed here"),
        one);

    const Result by_object = query({"object", dump});
    BOOST_TEST(contains(by_object.out, a), by_object);
    BOOST_TEST(
        contains(by_object.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 2 listed here"),
        by_object);
    const Result other_object = query({"object", "/nonexistent"});
    BOOST_TEST(
        contains(other_object.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 0 listed here"),
        other_object);
    const Result bad = query({"nonsense"});
    BOOST_TEST(contains(bad.out, "v.info jit: malformed address nonsense"), bad);

    std::ofstream(dir.file("stop")).put('\n');
    BOOST_TEST(vg.wait(120) == 0, vg.err());
    BOOST_TEST(contains(vg.out(), "hold done"));
}

BOOST_AUTO_TEST_CASE(jitdump_named_otherwise_is_followed_by_its_header) {
    // names early dump with the file in a subdirectory as Bun names its
    // (jit-<N>-<pid>.dump), or under a name of its own: found by the
    // jitdump header its mapping holds, with this process's pid.
    for (const std::string tmpl : {"sub/jit-7-{pid}.dump", "profile-{pid}.data"}) {
        BOOST_TEST_CONTEXT("path " << tmpl) {
            TempDir dir;
            std::filesystem::create_directory(dir.file("sub"));
            RunOptions opt;
            opt.cwd = dir.path();
            opt.env["JITDUMP_PRODUCER_PATH"] = tmpl;
            const std::string out = dir.file("callgrind.out");
            const Result r = run_valgrind(callgrind_args(out, {"-v"}),
                                          {producer(), "names", "early", "dump"}, opt);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            static const std::regex following(R"(JIT: following jitdump file \S+)");
            BOOST_TEST(std::regex_search(r.err, following), r.err);
            const cg::Profile p = cg::Profile::parse_file(out);
            for (const std::string name : {"names_top", "names_middle", "names_leaf"}) {
                const auto* f = function_named(p, name);
                BOOST_TEST(f != nullptr, name << " not named");
            }
            // No other mapped file (the program, its libraries) was
            // taken for one, and none was warned about.
            BOOST_TEST(!contains(r.err, "not a jitdump file"), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(file_named_like_a_jitdump_that_is_not_one_gets_a_verbose_warning) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    const Result g = run_valgrind({"--tool=none", "-v"}, {producer(), "bad-named", "garbage"}, opt);
    BOOST_TEST_REQUIRE(g.status == 0, g);
    static const std::regex garbage(
        R"(Warning: \S*jit-\d+\.dump: not a jitdump file: the first 4 bytes are not the )"
        R"(magic "JiTD" \([^)]*\): not followed)");
    BOOST_TEST(std::regex_search(g.err, garbage), g.err);
    // Without -v: nothing.
    const Result q = run_valgrind({"--tool=none"}, {producer(), "bad-named", "garbage"}, opt);
    BOOST_TEST_REQUIRE(q.status == 0, q);
    BOOST_TEST(!contains(q.err, "Warning"), q.err);
    const Result s = run_valgrind({"--tool=none", "-v"}, {producer(), "bad-named", "short"}, opt);
    BOOST_TEST_REQUIRE(s.status == 0, s);
    static const std::regex shorter(
        R"(Warning: \S*jit-\d+\.dump: its header is incomplete \(20 of 40 bytes\): )"
        R"(no record read)");
    BOOST_TEST(std::regex_search(s.err, shorter), s.err);
}
