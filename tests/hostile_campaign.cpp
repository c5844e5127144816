// hostile_campaign: a deterministic mutation campaign against the staged
// Valgrind's reading of debug information that the client hands in
// (`make check-hostile`; a short slice runs in `make check`).
//
// It compiles fixtures/hostile/seed.c into relocatable objects like those
// a JIT registers through the GDB JIT interface (gcc and clang-14, DWARF 4
// and 5, -O0 and -O2 with inlined calls, .eh_frame or .debug_frame), takes
// their .eh_frame sections as client-request and jitdump unwinding seeds,
// and derives every case from (--seed, case number) alone: its family, its
// tool, its seed object and its mutation.  Batches of cases run through
// hostile_client under the staged Valgrind, the tool rotating over
// memcheck, callgrind, cachegrind, helgrind, drd, massif, dhat and none; a
// run passes when it ends with the client's own exit status and the
// stdout of a native run.  A batch that fails is re-run in halves, down
// to one case per process, to name the culprits.  Each failure is printed
// as one line (case, tool, seed, mutation, signature, the first frames of
// Valgrind's own stack, reproducer) and the failures are summarised by
// signature.  Exit status: 0 when every failure is listed in
// --known (or there is none), 1 otherwise, 77 when the staged Valgrind or
// the client is missing.
//
// Families (the case number picks one, and the tool, in blocks of
// kBlock cases):
//   gdb      an ELF object for the GDB JIT interface: bytes flipped, random
//            bytes or interesting values (0, 0x7f, 0x80, 0xff, sizes, ...)
//            in any section or in the ELF or section headers, truncations,
//            and field-aware changes of section headers, the ELF header,
//            symbols, relocation entries, DWARF unit and line-table
//            headers, abbreviation and line-table forms, and CFI records
//            and instructions
//   clreq    .eh_frame bytes of VALGRIND_JIT_REGISTER_CODE, the compilers'
//            .eh_frame resolved for the code: the same operators on CFI
//   jitdump  a CODE_UNWINDING_INFO record's payload (sizes, .eh_frame and
//            .eh_frame_hdr)
//
// Its sources: this file (the options, the plan of batches, running them
// on threads, the summary), hostile_mutator.cpp (the mutation
// primitives), hostile_cfi.cpp (CFI), hostile_elf.cpp (ELF objects),
// hostile_cases.cpp (seeds and cases), hostile_runs.cpp (runs, failures,
// reproducers, replays) and hostile_campaign.hpp (what they share).
//
// Usage: see usage() below, and HACKING.md ("The hostile campaign").

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

void usage() {
    std::printf(
        "usage: hostile_campaign [OPTIONS]\n"
        "  --seed=N        campaign seed (default 1); with the case number it fixes\n"
        "                  every case\n"
        "  --first=N       first case number (default 0)\n"
        "  --cases=N       number of cases (default 3000)\n"
        "  --case=N        only case N (same as --first=N --cases=1)\n"
        "  --families=L    comma-separated subset of gdb,clreq,jitdump (cases of\n"
        "                  other families are skipped)\n"
        "  --tools=L       comma-separated tools to rotate over (default all eight)\n"
        "  --jobs=N        Valgrind runs at a time (default 2)\n"
        "  --batch=N       cases per Valgrind run, at most %llu (default %llu)\n"
        "  --timeout=S     seconds before a run counts as a hang (default 120)\n"
        "  --out=DIR       work directory (default hostile-out)\n"
        "  --repro=DIR     where reproducers are saved (default OUT/repro)\n"
        "  --known=FILE    failures expected today: lines \"CASE\" (e.g. gdb:1234 or\n"
        "                  a replayed directory's name); # starts a comment\n"
        "  --replay=DIR    run the reproducer in DIR (a directory with list, tool and\n"
        "                  its files, as saved under --repro) instead of cases; a\n"
        "                  directory of such directories runs each; repeatable\n"
        "  --valgrind=PATH --client=PATH --srcdir=DIR --cc=CC --clang=CC\n"
        "                  (defaults from $VGJIT_STAGE, $VGJIT_TESTS_BUILDDIR,\n"
        "                  $VGJIT_SRCDIR)\n"
        "  --verbose       print every run\n"
        "  --keep          keep the work directories of passing runs (OUT/work)\n"
        "  --dry-run       print each case (number, tool, seed, mutation); run nothing\n"
        "  --strict-readers  a reader failure that the core's guard caught (a failed\n"
        "                  check or a fault inside an upstream reader, shown under -v)\n"
        "                  counts as a failure too: the reader should refuse the\n"
        "                  input by itself\n",
        static_cast<unsigned long long>(kBlock), static_cast<unsigned long long>(kBlock));
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) v.push_back(cur);
    return v;
}

bool is_executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

/// The options' defaults: the staged Valgrind, the built client and the
/// source tree, from the environment or as compiled in.
Options default_options() {
    Options o;
    const char* stage = std::getenv("VGJIT_STAGE");
    const char* build = std::getenv("VGJIT_TESTS_BUILDDIR");
    const char* src = std::getenv("VGJIT_SRCDIR");
#ifdef VGJIT_STAGE
    if (!stage) stage = VGJIT_STAGE;
#endif
#ifdef VGJIT_TESTS_BUILDDIR
    if (!build) build = VGJIT_TESTS_BUILDDIR;
#endif
#ifdef VGJIT_SRCDIR
    if (!src) src = VGJIT_SRCDIR;
#endif
    if (stage) o.valgrind = std::string(stage) + "/bin/valgrind";
    if (build) o.client = std::string(build) + "/hostile_client";
    if (src) o.srcdir = src;
    return o;
}

/// Sets o from the command line.  Returns -1 to go on, else the exit
/// status (0 after --help, 2 for a usage error, which it reports).
int parse_options(Options& o, int argc, char** argv) {
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            const std::size_t eq = a.find('=');
            const std::string k = a.substr(0, eq),
                              v = eq == std::string::npos ? "" : a.substr(eq + 1);
            if (k == "--seed")
                o.seed = std::stoull(v);
            else if (k == "--first")
                o.first = std::stoull(v);
            else if (k == "--cases")
                o.cases = std::stoull(v);
            else if (k == "--case") {
                o.first = std::stoull(v.substr(v.find(':') + 1));
                o.cases = 1;
            } else if (k == "--families") {
                auto f = split(v, ',');
                o.families = std::set<std::string>(f.begin(), f.end());
            } else if (k == "--tools")
                o.tools = split(v, ',');
            else if (k == "--jobs")
                o.jobs = static_cast<unsigned>(std::max(1ull, std::stoull(v)));
            else if (k == "--batch")
                o.batch = std::clamp<std::uint64_t>(std::stoull(v), 1, kBlock);
            else if (k == "--timeout")
                o.timeout = static_cast<unsigned>(std::stoul(v));
            else if (k == "--out")
                o.out = v;
            else if (k == "--repro")
                o.repro = v;
            else if (k == "--known")
                o.known = v;
            else if (k == "--replay")
                o.replay.push_back(v);
            else if (k == "--valgrind")
                o.valgrind = v;
            else if (k == "--client")
                o.client = v;
            else if (k == "--srcdir")
                o.srcdir = v;
            else if (k == "--cc")
                o.cc = v;
            else if (k == "--clang")
                o.clang = v;
            else if (k == "--verbose")
                o.verbose = true;
            else if (k == "--keep")
                o.keep = true;
            else if (k == "--dry-run")
                o.dry_run = true;
            else if (k == "--strict-readers")
                o.strict_readers = true;
            else if (k == "--help" || k == "-h") {
                usage();
                return 0;
            } else {
                std::fprintf(stderr, "hostile_campaign: unknown option %s\n", a.c_str());
                usage();
                return 2;
            }
        }
        for (const std::string& t : o.tools)
            if (std::find(kAllTools.begin(), kAllTools.end(), t) == kAllTools.end())
                throw std::runtime_error("unknown tool " + t);
        if (o.tools.empty()) throw std::runtime_error("no tools");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hostile_campaign: %s\n", e.what());
        return 2;
    }
    return -1;
}

/// The case ids of a --known file (one a line, `#` starts a comment).
std::set<std::string> read_known(const std::string& path) {
    std::set<std::string> known;
    std::istringstream in(read_text(path));
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        std::istringstream w(line);
        std::string id;
        if (w >> id) known.insert(id);
    }
    return known;
}

/// Builds the seeds and makes the campaign's cases (each a function of
/// the campaign seed and its number), in batches of one block and family
/// (--dry-run lists them instead).
std::vector<std::vector<Case>> plan_batches(const Options& o, Campaign& c) {
    std::vector<std::vector<Case>> batches;
    c.seeds = build_seeds(o, fs::path(o.out) / "seeds");
    std::printf(
        "seeds: %zu objects, %zu .eh_frame; campaign seed %llu, cases %llu..%llu, tools "
        "%zu\n",
        c.seeds.objects.size(), c.seeds.eh.size(), static_cast<unsigned long long>(o.seed),
        static_cast<unsigned long long>(o.first),
        static_cast<unsigned long long>(o.first + o.cases - 1), o.tools.size());
    std::fflush(stdout);
    for (std::uint64_t n = o.first; n < o.first + o.cases; ++n) {
        if (!o.families.count(family_of(n))) continue;
        Case k = make_case(o, c.seeds, n);
        if (o.dry_run) {
            std::printf("%s %s %s %s\n", k.id().c_str(), k.tool.c_str(), k.seed.c_str(),
                        k.mutation.c_str());
            continue;
        }
        if (batches.empty() || batches.back().size() >= o.batch ||
            batches.back().front().number / kBlock != n / kBlock)
            batches.emplace_back();
        batches.back().push_back(std::move(k));
    }
    return batches;
}

/// The reproducer directories --replay names (each, or those under it).
std::vector<fs::path> find_replays(const Options& o) {
    std::vector<fs::path> replays;
    for (const std::string& r : o.replay) {
        if (fs::exists(fs::path(r) / "list"))
            replays.push_back(r);
        else
            for (const auto& d : fs::directory_iterator(r))
                if (fs::exists(d.path() / "list")) replays.push_back(d.path());
    }
    std::sort(replays.begin(), replays.end());
    return replays;
}

/// Runs the batches (or the replays) on o.jobs threads; throws what broke
/// the campaign itself (not a failing case).
void run_all(const Options& o, Campaign& c, std::vector<std::vector<Case>>& batches,
             const std::vector<fs::path>& replays) {
    std::atomic<std::size_t> next{0}, finished{0};
    std::atomic<bool> broken{false};
    std::string broken_why;
    auto worker = [&] {
        for (;;) {
            const std::size_t i = next++;
            if (broken) return;
            try {
                if (o.replay.empty()) {
                    if (i >= batches.size()) return;
                    c.run_batch(batches[i], i);
                    const std::size_t done = ++finished,
                                      step = std::max<std::size_t>(1, batches.size() / 10);
                    if (done % step == 0 && done < batches.size()) {
                        std::lock_guard<std::mutex> g(c.mu);
                        std::printf("progress: %zu of %zu runs\n", done, batches.size());
                        std::fflush(stdout);
                    }
                } else {
                    if (i >= replays.size()) return;
                    c.replay(replays[i]);
                }
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> g(c.mu);
                broken = true;
                broken_why = e.what();
            }
        }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < o.jobs; ++j) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
    if (broken) throw std::runtime_error(broken_why);
}

/// Prints the failures by signature and the known failures that pass now;
/// returns the exit status (1 if a failure is not in --known).
int print_summary(const Options& o, const Campaign& c, double secs) {
    std::map<std::string, std::vector<const Failure*>> by_sig;
    std::size_t unexpected = 0;
    for (const Failure& f : c.failures) {
        by_sig[f.signature].push_back(&f);
        if (f.known.empty()) ++unexpected;
    }
    std::printf(
        "\n%llu cases in %llu Valgrind runs, %.0f s: %llu passed, %zu failed (%zu not in --known), "
        "%zu distinct signatures\n",
        static_cast<unsigned long long>(c.total.load()),
        static_cast<unsigned long long>(c.runs.load()), secs,
        static_cast<unsigned long long>(c.passed.load()), c.failures.size(), unexpected,
        by_sig.size());
    for (const auto& [sig, fs_] : by_sig) {
        std::set<std::string> tools;
        for (const Failure* f : fs_) tools.insert(f->tool);
        std::string t;
        for (const std::string& x : tools) t += (t.empty() ? "" : ",") + x;
        std::printf("  %4zu  %s\n        tools %s; first %s, reproducer %s\n", fs_.size(),
                    sig.c_str(), t.c_str(), fs_.front()->id.c_str(), fs_.front()->repro.c_str());
    }
    for (const std::string& id : c.passed_known)
        std::printf("XPASS %s: listed in --known but passes now (remove it from %s)\n", id.c_str(),
                    o.known.c_str());
    return unexpected == 0 ? 0 : 1;
}

}  // namespace

}  // namespace hostile

using namespace hostile;

int main(int argc, char** argv) {
    Options o = default_options();
    if (const int status = parse_options(o, argc, argv); status >= 0) return status;
    if (!is_executable(o.valgrind) || !is_executable(o.client)) {
        std::printf("SKIP: no staged Valgrind (%s) or client (%s)\n", o.valgrind.c_str(),
                    o.client.c_str());
        return 77;
    }
    if (o.repro.empty()) o.repro = (fs::path(o.out) / "repro").string();
    o.out = fs::absolute(o.out).string();
    o.repro = fs::absolute(o.repro).string();
    o.valgrind = fs::absolute(o.valgrind).string();
    o.client = fs::absolute(o.client).string();

    Campaign c;
    c.o = o;
    const auto start = std::chrono::steady_clock::now();
    try {
        fs::create_directories(o.out);
        fs::create_directories(o.repro);
        // The reproducers' run.sh runs ../hostile_client.
        fs::copy_file(o.client, fs::path(o.repro) / "hostile_client",
                      fs::copy_options::overwrite_existing);
        if (!o.known.empty()) c.known = read_known(o.known);
        std::vector<std::vector<Case>> batches;
        std::vector<fs::path> replays;
        if (o.replay.empty())
            batches = plan_batches(o, c);
        else
            replays = find_replays(o);
        run_all(o, c, batches, replays);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hostile_campaign: %s\n", e.what());
        return 2;
    }
    return print_summary(
        o, c, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}
