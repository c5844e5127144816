// vgbench: the driver of `make bench`.  Runs bench/jitbench (and bzip2)
// natively, under the patched Valgrind (stage/bin/valgrind) and under the
// unpatched Valgrind of the same release (build/stock-install/bin/valgrind),
// and prints one Markdown table to stdout (also written to
// WORKDIR/bench-table.md).  Progress goes to stderr.
//
// Method: every figure is the median of R runs (R >= 5 unless a row says
// otherwise); the sides of a comparison run alternately in one loop
// (A B A B ..., or A B C A B C ...), so slow drifts of the machine hit
// both sides alike.  Times measured inside the client (CLOCK_MONOTONIC
// around the loop of interest) are used where Valgrind's start-up would
// otherwise dominate; whole-run wall times elsewhere.
//
// Usage: vgbench --patched=VALGRIND --stock=VALGRIND --jitbench=PATH
//                --bzip2=PATH --workdir=DIR [--repeats=R]
//                [--lookup-max=N] [--only=LIST]
//                [--inner-stock=VG-IN-PLACE --inner-patched=VG-IN-PLACE]
//   --inner-*     self-hosting builds (--enable-inner) of the stock and the
//                 patched Valgrind: rows 1 and 2 also count their own
//                 instructions under an outer Cachegrind (the --stock
//                 Valgrind)
//   --repeats     runs per side (default 5, minimum 5)
//   --lookup-max  largest N of the Callgrind lookup rows (default 1000000)
//   --stock-lookup-max
//                 largest N run on the stock side of those rows (default
//                 100000: stock's time per new function grows with N)
//   --only        comma-separated subset of rows to run: 1,2,3,4,5,6,7,8,9,10
//                 (4 needs 2's largest run and is run with it)
//   --vg-jit, --python, --node
//                 row 9: vg-jit, a CPython 3.13 and a Node binary whose
//                 profiles it exports (a profile whose program is missing is
//                 left out, with a note)
//   --commit      what is measured (e.g. a git commit), named in the header
//   --results=FILE  also merges this run's rows into FILE (bench/results.md
//                 for `make bench`): one section per row, each replaced by
//                 the last run that measured that row, with its date,
//                 commit, machine and command; rows not run keep theirs
//   --flags=TEXT  the BENCH_FLAGS of this run, quoted in FILE's command
//   --invocations K  runs the chosen rows K times in a row (default 3) and
//                 prints one table: each row's results of every invocation
//                 side by side, and a verdict that is met only when the row
//                 met its target in every invocation (each invocation's own
//                 table is left in WORKDIR/bench-table-<I>.md)
// Exit status: 0 when every run succeeded (whether or not targets are met),
// 1 when a run failed (its Valgrind log is named), 2 on a usage error.

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

struct Options {
    std::string patched, stock, jitbench, bzip2, workdir;
    std::string inner_stock, inner_patched;  // self-hosting vg-in-place; "" = skip the counted rows
    std::string vg_jit, python, node;        // row 9 ("" = none)
    int repeats = 5;
    int invocations = 3;  // whole runs of the chosen rows, combined in one table
    unsigned long lookup_max = 1000000;
    unsigned long stock_lookup_max = 100000;
    std::set<int> only;   // empty: all rows
    std::string commit;   // what was measured (for the table's header)
    std::string results;  // results file to merge this run's rows into; "" = none
    std::string flags;    // the BENCH_FLAGS of this run, quoted in the results file
};

// One command to time.  Its stdout is parsed for key=value lines unless
// discard_stdout is set; its stderr goes to WORKDIR/<log>.log.
struct Cmd {
    std::string log;
    std::vector<std::string> argv;
    bool discard_stdout = false;
};

// One run: whole-process wall time and the key=value lines it printed.
struct Sample {
    double wall_s = 0;
    double cpu_s = 0;      // user + system time of the process and its children
    double maxrss_kb = 0;  // peak resident set of the process (wait4)
    std::map<std::string, double> kv;
};

const Options* g_opt = nullptr;

double now_s() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string log_path(const Cmd& cmd) { return g_opt->workdir + "/" + cmd.log + ".log"; }

// Starts cmd in the work directory, on CPU `cpu` only when cpu >= 0; its
// stdout goes to the pipe *out_fd (or to /dev/null when discard_stdout).
pid_t spawn(const Cmd& cmd, int cpu, int* out_fd) {
    const std::string log = log_path(cmd);
    int out[2];
    // Close-on-exec: a child forked by another thread must not keep this
    // pipe open.
    if (pipe2(out, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) _exit(127);
        }
        if (chdir(g_opt->workdir.c_str()) != 0) _exit(127);
        const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int null = open("/dev/null", O_RDWR);
        if (err < 0 || null < 0) _exit(127);
        dup2(null, 0);
        dup2(cmd.discard_stdout ? null : out[1], 1);
        dup2(err, 2);
        close(out[0]);
        close(out[1]);
        std::vector<char*> args;
        for (const auto& a : cmd.argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        std::fprintf(stderr, "vgbench: cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(out[1]);
    *out_fd = out[0];
    return pid;
}

// The Sample of a finished child; throws with the log's path if it failed.
Sample finish(const Cmd& cmd, int status, const rusage& ru, double wall_s,
              const std::string& text) {
    Sample s;
    s.wall_s = wall_s;
    s.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    s.maxrss_kb = static_cast<double>(ru.ru_maxrss);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string line;
        for (const auto& a : cmd.argv) line += a + " ";
        throw std::runtime_error("run failed (status " + std::to_string(status) + "): " + line +
                                 "\n  see " + log_path(cmd));
    }
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        const auto eq = l.find('=');
        if (eq != std::string::npos)
            s.kv[l.substr(0, eq)] = std::strtod(l.c_str() + eq + 1, nullptr);
    }
    return s;
}

// Runs cmd in the work directory; throws with the log's path on failure.
// *started, if given, is the pid it ran as.
Sample run_once(const Cmd& cmd, pid_t* started = nullptr) {
    const double t0 = now_s();
    int out_fd = -1;
    const pid_t pid = spawn(cmd, -1, &out_fd);
    if (started) *started = pid;
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(out_fd, buf, sizeof buf);
        if (n > 0)
            text.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    close(out_fd);
    int status = 0;
    rusage ru{};
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    return finish(cmd, status, ru, now_s() - t0, text);
}

// Runs a and b at the same time, a on CPU cpu_a and b on CPU cpu_b (both
// with discard_stdout: nothing is read from them), and returns their
// samples, each with its own wall time from the common start to its exit.
// Started together, the two runs meet the same phase of a machine whose
// speed drifts over seconds, so their ratio is steadier than that of
// runs one after the other.
std::pair<Sample, Sample> run_simultaneously(const Cmd& a, const Cmd& b, int cpu_a, int cpu_b) {
    if (!a.discard_stdout || !b.discard_stdout)
        throw std::logic_error("run_simultaneously: both commands must discard stdout");
    const double t0 = now_s();
    int fd_a = -1, fd_b = -1;
    const pid_t pa = spawn(a, cpu_a, &fd_a);
    const pid_t pb = spawn(b, cpu_b, &fd_b);
    close(fd_a);
    close(fd_b);
    std::map<pid_t, std::tuple<int, rusage, double>> done;
    while (done.size() < 2) {
        int status = 0;
        rusage ru{};
        const pid_t pid = wait4(-1, &status, 0, &ru);
        if (pid < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
        }
        if (pid == pa || pid == pb) done[pid] = std::make_tuple(status, ru, now_s() - t0);
    }
    auto sample = [&done](const Cmd& c, pid_t pid) {
        const auto& [status, ru, wall] = done.at(pid);
        return finish(c, status, ru, wall, "");
    };
    return {sample(a, pa), sample(b, pb)};
}

// Runs the commands in rotation (A B C A B C ...) `reps` times; result[i]
// holds command i's samples.
std::vector<std::vector<Sample>> rotate(const std::string& what, const std::vector<Cmd>& cmds,
                                        int reps) {
    std::vector<std::vector<Sample>> res(cmds.size());
    const double t0 = now_s();
    for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < cmds.size(); ++i) res[i].push_back(run_once(cmds[i]));
    std::fprintf(stderr, "vgbench: %-58s %3d x %zu runs, %6.1f s\n", what.c_str(), reps,
                 cmds.size(), now_s() - t0);
    return res;
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The largest value over the smallest: how far apart a set of figures is.
double max_over_min(const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end()) / *std::min_element(v.begin(), v.end());
}

double median_of(const std::vector<Sample>& s, const std::string& key) {
    std::vector<double> v;
    for (const auto& x : s) {
        const auto it = x.kv.find(key);
        if (it == x.kv.end()) throw std::runtime_error("a run printed no " + key);
        v.push_back(it->second);
    }
    return median(v);
}

double median_wall(const std::vector<Sample>& s) {
    std::vector<double> v;
    for (const auto& x : s) v.push_back(x.wall_s);
    return median(v);
}

double min_of(const std::vector<Sample>& s, const std::string& key) {
    double m = INFINITY;
    for (const auto& x : s) m = std::min(m, x.kv.at(key));
    return m;
}

double max_of(const std::vector<Sample>& s, const std::string& key) {
    double m = -INFINITY;
    for (const auto& x : s) m = std::max(m, x.kv.at(key));
    return m;
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string p10(unsigned long n) {
    int e = 0;
    unsigned long m = n;
    while (m >= 10 && m % 10 == 0) {
        m /= 10;
        ++e;
    }
    if (m == 1 && e >= 3) return "10^" + std::to_string(e);
    return std::to_string(n);
}

// The table being built.
struct Row {
    std::string id, what, runs, base, patched, result, target, verdict;
};
std::vector<Row> g_rows;
std::vector<std::string> g_notes;

/// Notes under the table for a row that missed its target.  What the row
/// measures and where to look when it misses is in bench/README.md.
void missed_note(const std::string& row) {
    g_notes.push_back(row +
                      " missed its target: bench/README.md (\"When a row misses\") "
                      "says what the row's cost is made of and how to profile it.");
}

std::string verdict(bool met) { return met ? "met" : "**MISSED**"; }

/// The verdict of a time line whose 95% interval spans its target on this
/// machine, when the same row has a counted line with the target in
/// seconds: that line decides.
const std::string kWithinNoise = "within noise: the counted line decides";

bool wanted(int row) { return g_opt->only.empty() || g_opt->only.count(row) > 0; }

std::vector<std::string> vg(const std::string& valgrind, const std::string& tool,
                            std::vector<std::string> extra, std::vector<std::string> prog) {
    std::vector<std::string> a{valgrind, "-q", "--tool=" + tool};
    if (tool == "callgrind") a.push_back("--callgrind-out-file=/dev/null");
    if (tool == "cachegrind") a.push_back("--cachegrind-out-file=/dev/null");
    a.insert(a.end(), extra.begin(), extra.end());
    a.insert(a.end(), prog.begin(), prog.end());
    return a;
}

// Deterministic text of `bytes` bytes: words over a 10-letter alphabet
// drawn by a 64-bit LCG from a 5000-word vocabulary (compresses ~3:1).
void write_input(const std::string& path, std::size_t bytes) {
    std::uint64_t x = 0x2545F4914F6CDD1Dull;
    auto next = [&x]() {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(x >> 33);
    };
    std::vector<std::string> vocab(5000);
    for (auto& w : vocab) {
        const unsigned len = 2 + next() % 8;
        for (unsigned i = 0; i < len; ++i) w.push_back(static_cast<char>('a' + next() % 10));
    }
    std::string text;
    text.reserve(bytes + 16);
    while (text.size() < bytes) {
        text += vocab[next() % vocab.size()];
        text += (next() % 16 == 0) ? '\n' : ' ';
    }
    text.resize(bytes);
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

// The distribution-free confidence interval of a median from n sorted
// values: [v[k-1], v[n-k]] with the largest k for which the two tails of
// Binomial(n, 1/2) below k hold at most 1 - level.  Returns {NAN, NAN}
// when n is too small for the level.
std::pair<double, double> median_interval(std::vector<double> v, double level) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    // P(X <= j) for X ~ Binomial(n, 1/2), accumulated in j.
    double tail = 0, coef = 1;  // coef = C(n, j)
    std::size_t k = 0;
    for (std::size_t j = 0; j < n / 2; ++j) {
        tail += coef * std::pow(0.5, static_cast<double>(n));
        if (2 * tail > 1 - level) break;
        k = j + 1;
        coef = coef * static_cast<double>(n - j) / static_cast<double>(j + 1);
    }
    if (k == 0) return {NAN, NAN};
    return {v[k - 1], v[n - k]};
}

// Reads the "summary: N" line (total Ir) of a Cachegrind output file.
double cachegrind_total(const std::string& path) {
    std::ifstream f(path);
    std::string l;
    while (std::getline(f, l))
        if (l.rfind("summary:", 0) == 0) return std::strtod(l.c_str() + 8, nullptr);
    throw std::runtime_error("no summary line in " + path);
}

// The instructions a self-hosting Valgrind (--enable-inner; `inner` is its
// vg-in-place) executes running prog under tool, counted by an outer
// Cachegrind (the stock Valgrind): its core, the tool, and the code it
// generates.  The counts do not depend on the machine's speed (repeated
// runs agree to about 1e-8).  label names the run's log.
double inner_instructions(const std::string& inner, const std::string& tool,
                          const std::string& label, const std::vector<std::string>& prog) {
    const std::string prefix = "outer-" + label + ".";
    std::vector<std::string> argv{g_opt->stock,
                                  "--sim-hints=enable-outer",
                                  "--trace-children=yes",
                                  "--smc-check=all-non-file",
                                  "--run-libc-freeres=no",
                                  "--tool=cachegrind",
                                  "--cache-sim=no",
                                  "--cachegrind-out-file=" + g_opt->workdir + "/" + prefix + "%p",
                                  inner,
                                  "--vgdb-prefix=" + g_opt->workdir + "/inner-" + label,
                                  "--sim-hints=no-inner-prefix",
                                  "-q",
                                  "--tool=" + tool};
    if (tool == "callgrind") argv.push_back("--callgrind-out-file=/dev/null");
    if (tool == "cachegrind") argv.push_back("--cachegrind-out-file=/dev/null");
    argv.insert(argv.end(), prog.begin(), prog.end());
    const Cmd cmd{"inner-" + label, argv, true};
    run_once(cmd);
    // Each run leaves one Cachegrind file per traced process (the
    // launcher's dirname, then the tool): the tool's is the one whose
    // command is the inner tool binary.
    std::vector<std::filesystem::path> outputs;
    for (const auto& e : std::filesystem::directory_iterator(g_opt->workdir))
        if (e.path().filename().string().rfind(prefix, 0) == 0) outputs.push_back(e.path());
    double total = -1;
    for (const auto& path : outputs) {
        std::ifstream f(path);
        std::string l;
        while (std::getline(f, l))
            if (l.rfind("cmd:", 0) == 0) {
                if (l.find("-amd64-linux") != std::string::npos) total = cachegrind_total(path);
                break;
            }
        std::filesystem::remove(path);
    }
    if (total < 0)
        throw std::runtime_error("no outer Cachegrind output for the inner " + tool + " (see " +
                                 log_path(cmd) + ")");
    return total;
}

// 1c, 1d. The same workload (on the first 256 KiB of the input), counted
// in instructions (inner_instructions), so that they resolve what wall
// time cannot here.
void row_nojit_instructions(const std::string& input) {
    const std::string small = "bzip2-input-256k.txt";
    {
        std::ifstream in(g_opt->workdir + "/" + input, std::ios::binary);
        std::string text(256u << 10, '\0');
        in.read(&text[0], static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        std::ofstream(g_opt->workdir + "/" + small, std::ios::binary) << text;
    }
    const int reps = 3;
    char k = 'c';
    for (const std::string tool : {"callgrind", "memcheck"}) {
        std::vector<std::vector<double>> counts(2);
        const double t0 = now_s();
        for (int r = 0; r < reps; ++r)
            for (std::size_t i = 0; i < 2; ++i) {
                const std::string side = i == 0 ? "stock" : "patched";
                counts[i].push_back(
                    inner_instructions(side == "stock" ? g_opt->inner_stock : g_opt->inner_patched,
                                       tool, tool + "-" + side, {g_opt->bzip2, "-9", "-c", small}));
            }
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("1. bzip2 under the inner " + tool + ", counted").c_str(), reps,
                     now_s() - t0);
        const double cs = median(counts[0]), cp = median(counts[1]);
        const double spread = std::max(max_over_min(counts[0]), max_over_min(counts[1])) - 1;
        g_rows.push_back({"1" + std::string(1, k++),
                          "No JIT code, counted: instructions the Valgrind process executes "
                          "(core, " +
                              tool +
                              ", generated code) running `bzip2 -9` of 256 KiB, "
                              "self-hosting builds under an outer Cachegrind (runs of a side "
                              "differ by " +
                              fmt("%.1g", spread) + ")",
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.1f M Ir", cs / 1e6), fmt("%.1f M Ir", cp / 1e6),
                          fmt("%.4f x", cp / cs), "patched/stock <= 1.01",
                          verdict(cp / cs <= 1.01)});
        if (cp / cs > 1.01) missed_note("Row 1 (" + tool + ", counted)");
    }
}

// 2, counted: the instructions Valgrind executes per registration and per
// empty client request, under the inner --tool=none, at 10^4, 10^5 and 10^6
// live functions.  The count per function at N is the slope from N/10 to N
// functions (the difference of two runs' counts over the difference of N),
// so start-up and exit cancel out; the client's per-function set-up (names
// and code built before the loop) and the loop itself cancel against the
// loop without requests (mode none).  Row 2 times the same loops; where
// its time per registration exceeds what these counts explain, the rest is
// memory: the pages the registry's new records are written to (row 4
// gives the bytes per function, row 2's machine row this machine's cost
// of a new page).  Target: a registration at most 1.5 times an empty
// request at every N.
void row_register_instructions() {
    const std::vector<unsigned long> ns{1000, 10000, 100000, 1000000};
    const double t0 = now_s();
    std::map<std::string, std::vector<double>> counts;  // mode -> count at each of ns
    for (const std::string mode : {"none", "request", "jit"})
        for (const unsigned long n : ns)
            counts[mode].push_back(inner_instructions(
                g_opt->inner_patched, "none", "register-" + mode + "-" + std::to_string(n),
                {g_opt->jitbench, "register", std::to_string(n), mode, "keep"}));
    std::fprintf(stderr, "vgbench: %-58s %3d x 1 runs, %6.1f s\n",
                 "2. register under the inner none, counted", 3 * static_cast<int>(ns.size()),
                 now_s() - t0);
    bool missed = false;
    for (std::size_t k = 1; k < ns.size(); ++k) {
        auto slope = [&](const std::string& mode) {
            return (counts[mode][k] - counts[mode][k - 1]) / static_cast<double>(ns[k] - ns[k - 1]);
        };
        const double plain = slope("none");
        const double request = slope("request") - plain, jit = slope("jit") - plain;
        g_rows.push_back({"2",
                          "Registration, counted: instructions the Valgrind process executes per "
                          "request at " +
                              p10(ns[k]) +
                              " live functions, --tool=none, self-hosting build under an outer "
                              "Cachegrind, slope from " +
                              p10(ns[k - 1]) + " to " + p10(ns[k]) +
                              " functions less the loop without requests (baseline: an empty "
                              "client request)",
                          "2+2", fmt("%.0f Ir", request), fmt("%.0f Ir", jit),
                          fmt("%.2f x", jit / request), "register/empty request <= 1.5",
                          verdict(jit / request <= 1.5)});
        missed = missed || jit / request > 1.5;
    }
    if (missed) missed_note("Row 2 (counted)");
}

// Runs a and b reps times each, in pairs started together on two CPUs
// (swapped every pair; one after the other with one CPU).
std::pair<std::vector<Sample>, std::vector<Sample>> run_pairs(const Cmd& a, const Cmd& b,
                                                              int reps) {
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    std::vector<Sample> as, bs;
    for (int r = 0; r < reps; ++r) {
        if (simultaneous) {
            const int cpu = r % 2;
            auto [x, y] = run_simultaneously(a, b, cpu, 1 - cpu);
            as.push_back(x);
            bs.push_back(y);
        } else {
            as.push_back(run_once(a));
            bs.push_back(run_once(b));
        }
    }
    return {as, bs};
}

// 1. A program without JIT code: bzip2 under Callgrind and Memcheck.
//
// This machine's speed drifts by 10 to 25% over seconds (the same run,
// repeated, lands anywhere in that range), so runs one after the other
// cannot resolve a 1% difference.  Each pair of a stock and a patched run
// is started at the same moment, one on each of two CPUs (swapped every
// pair), and the figure is the median of the per-pair ratios, with its
// 95% confidence interval: met when the interval lies at or below the
// target, missed when it lies above, not resolved when it straddles it.
// (With one CPU the pairs run one after the other.)
void row_nojit() {
    const std::string input = "bzip2-input.txt";
    write_input(g_opt->workdir + "/" + input, 2u << 20);
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    const int reps = std::max(31, g_opt->repeats);
    int k = 0;
    for (const std::string tool : {"callgrind", "memcheck"}) {
        const std::vector<std::string> prog{g_opt->bzip2, "-9", "-c", input};
        Cmd s{"nojit-" + tool + "-stock", vg(g_opt->stock, tool, {}, prog), true};
        Cmd p{"nojit-" + tool + "-patched", vg(g_opt->patched, tool, {}, prog), true};
        const double t0 = now_s();
        const auto [ss, ps] = run_pairs(s, p, reps);
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("1. bzip2 under " + tool + (simultaneous ? ", pairs at once" : "")).c_str(),
                     reps, now_s() - t0);
        std::vector<double> wall_ratios, cpu_ratios;
        for (int r = 0; r < reps; ++r) {
            wall_ratios.push_back(ps[r].wall_s / ss[r].wall_s);
            cpu_ratios.push_back(ps[r].cpu_s / ss[r].cpu_s);
        }
        const double ratio = median(wall_ratios);
        const auto [lo, hi] = median_interval(wall_ratios, 0.95);
        // With the counted lines (self-hosting builds present), an
        // interval that spans the target leaves the verdict to them.
        const std::string v = hi <= 1.01                    ? verdict(true)
                              : lo > 1.01                   ? verdict(false)
                              : !g_opt->inner_stock.empty() ? kWithinNoise
                                                            : std::string("**NOT RESOLVED**");
        g_rows.push_back({"1" + std::string(1, static_cast<char>('a' + k++)),
                          "No JIT code: `bzip2 -9` of 2 MiB of text under " + tool +
                              ", wall time of the whole run; median of the per-pair "
                              "ratios (95% interval)" +
                              (simultaneous ? ", each pair started together on two CPUs" : ""),
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.3f s", median_wall(ss)), fmt("%.3f s", median_wall(ps)),
                          fmt("%.3f x", ratio) + fmt(" (%.3f", lo) + fmt("-%.3f)", hi) +
                              " (CPU time: " + fmt("%.3f x", median(cpu_ratios)) + ")",
                          "patched/stock <= 1.01", v});
        if (lo > 1.01 || (hi > 1.01 && g_opt->inner_stock.empty()))
            missed_note("Row 1 (" + tool + ")");
    }
    if (!g_opt->inner_stock.empty()) row_nojit_instructions(input);
}

// 10. Memory made executable 10^5 times under --tool=none (JITs that
// announce nothing): the patched Valgrind with creator names against the
// same Valgrind with --jit-creator-names=no, in pairs started together
// as row 1 does, for a W^X JIT flipping one page and for a new page each
// time.  Target: at most 1% more time.
void row_creator() {
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    // Nine pairs at least: the median's 95% interval needs six.
    const int reps = std::max(9, g_opt->repeats);
    const std::string n = "100000";
    int k = 0;
    for (const std::string how : {"flip", "fresh"}) {
        const std::vector<std::string> prog{g_opt->jitbench, "mprotect", n, how};
        Cmd off{"creator-" + how + "-off",
                vg(g_opt->patched, "none", {"--jit-creator-names=no"}, prog), true};
        Cmd on{"creator-" + how + "-on", vg(g_opt->patched, "none", {}, prog), true};
        const double t0 = now_s();
        const auto [offs, ons] = run_pairs(off, on, reps);
        std::vector<double> ratios;
        for (int r = 0; r < reps; ++r) ratios.push_back(ons[r].wall_s / offs[r].wall_s);
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("10. mprotect(PROT_EXEC) x 10^5, " + how).c_str(), reps, now_s() - t0);
        const double ratio = median(ratios);
        const auto [lo, hi] = median_interval(ratios, 0.95);
        const std::string v = hi <= 1.01  ? verdict(true)
                              : lo > 1.01 ? verdict(false)
                                          : std::string("**NOT RESOLVED**");
        g_rows.push_back({"10" + std::string(1, static_cast<char>('a' + k++)),
                          "Memory made executable 10^5 times (" +
                              std::string(how == "flip" ? "one page flipped W^X"
                                                        : "a new page mapped, made executable, "
                                                          "called and unmapped") +
                              "), --tool=none, wall time; creator names on/off, median of the "
                              "per-pair ratios (95% interval)" +
                              (simultaneous ? ", each pair started together on two CPUs" : ""),
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.3f s", median_wall(offs)), fmt("%.3f s", median_wall(ons)),
                          fmt("%.3f x", ratio) + fmt(" (%.3f", lo) + fmt("-%.3f)", hi),
                          "on/off <= 1.01", v});
        if (hi > 1.01) missed_note("Row 10 (" + how + ")");
    }
}

// "median (min-max)" of key over the runs, per function (divided by n).
std::string spread_ns(const std::vector<Sample>& s, const std::string& key, double n) {
    return fmt("%.0f ns", median_of(s, key) / n) + " (" + fmt("%.0f", min_of(s, key) / n) + "-" +
           fmt("%.0f", max_of(s, key) / n) + ")";
}

// 2. Registration, unregistration and munmap per function, N = 10^4..10^6
// live functions, under none and Callgrind; 4. memory per function.
//
// Every N and every side runs in one rotation per tool: the patched
// registration (jit), the empty client request on the same build
// (request: the floor every request pays), the patched unregistration
// (unregister: all registered first, then one request each, timed), and
// the stock Valgrind's DISCARD_TRANSLATIONS (what a JIT issues today);
// under none at 10^6 also the loop without requests (row 4's memory
// baseline).  At 10^4 a loop lasts a few ms, so its sides run three
// times as often.  Each verdict compares medians over all runs; the
// spread of the per-run figures is shown next to them.
// (machine, no target) What this machine charges for fresh pages at about
// the footprints of 10^5 and 10^6 functions (~150 MB and ~1.3 GB): the
// kernel's (and, on a virtual machine, the host's) share of every row
// whose cost includes new memory per function (rows 2 and 3).
void page_cost_row(const std::string& row_id) {
    Cmd small{"touch-128MiB", {g_opt->jitbench, "touch", "128"}};
    Cmd large{"touch-1280MiB", {g_opt->jitbench, "touch", "1280"}};
    const int touch_reps = std::max(5, g_opt->repeats);
    const auto t =
        rotate(row_id + ". first touch of 128 and 1280 MiB, natively", {small, large}, touch_reps);
    auto per_page = [](const std::vector<Sample>& r) {
        return median_of(r, "loop_ns") / median_of(r, "pages") / 1000.0;
    };
    const std::string reps = std::to_string(touch_reps);
    g_rows.push_back({row_id,
                      "(machine, no target) the kernel's cost of a page a process touches "
                      "for the first time, natively (jitbench touch): us per 4 KiB page "
                      "with 128 MiB (Baseline) and 1280 MiB (Patched) mapped",
                      reps + "+" + reps, fmt("%.2f us", per_page(t[0])),
                      fmt("%.2f us", per_page(t[1])),
                      fmt("%.1f x", per_page(t[1]) / per_page(t[0])), "-", "-"});
}

void row_register() {
    const std::vector<unsigned long> ns{10000, 100000, 1000000};
    enum Side { kDiscard, kJit, kPlain, kRequest, kUnregister, kSides };
    for (const std::string tool : {"none", "callgrind"}) {
        struct Slot {
            std::size_t n_index;
            Side side;
        };
        std::vector<Cmd> cmds;
        std::vector<Slot> slots;
        auto add = [&](std::size_t k, Side side, const std::string& vgpath, const std::string& mode,
                       const std::string& label) {
            const std::string N = std::to_string(ns[k]);
            cmds.push_back({"reg-" + tool + "-" + label + "-" + N,
                            vg(vgpath, tool, {}, {g_opt->jitbench, "register", N, mode})});
            slots.push_back({k, side});
        };
        for (std::size_t k = 0; k < ns.size(); ++k) {
            const int copies = ns[k] <= 10000 ? 3 : 1;
            for (int c = 0; c < copies; ++c) {
                add(k, kDiscard, g_opt->stock, "discard", "discard-stock");
                add(k, kJit, g_opt->patched, "jit", "jit-patched");
                add(k, kRequest, g_opt->patched, "request", "request-patched");
                add(k, kUnregister, g_opt->patched, "unregister", "unregister-patched");
            }
            if (tool == "none" && ns[k] == 1000000 && wanted(4))
                add(k, kPlain, g_opt->patched, "none", "plain-patched");
        }
        const auto rotation =
            rotate("2. register, unregister 10^4..10^6 under " + tool + ", all N alternated" +
                       (tool == "none" && wanted(4) ? " (+4. memory)" : ""),
                   cmds, g_opt->repeats);
        std::vector<std::vector<std::vector<Sample>>> samples(
            ns.size(), std::vector<std::vector<Sample>>(kSides));
        for (std::size_t i = 0; i < cmds.size(); ++i) {
            auto& to = samples[slots[i].n_index][static_cast<std::size_t>(slots[i].side)];
            to.insert(to.end(), rotation[i].begin(), rotation[i].end());
        }
        std::vector<double> reg_ns;
        bool missed = false;
        for (std::size_t k = 0; k < ns.size(); ++k) {
            const unsigned long n = ns[k];
            const double dn_ = static_cast<double>(n);
            const auto& res = samples[k];
            const std::string runs =
                std::to_string(res[kJit].size()) + "+" + std::to_string(res[kRequest].size());
            if (min_of(res[kJit], "ok") != dn_)
                throw std::runtime_error("a registration was refused (see reg-" + tool +
                                         "-jit-patched-" + std::to_string(n) + ".log)");
            if (min_of(res[kUnregister], "ok") != dn_)
                throw std::runtime_error("an unregistration was refused (see reg-" + tool +
                                         "-unregister-patched-" + std::to_string(n) + ".log)");
            const double jn = median_of(res[kJit], "loop_ns") / dn_;
            const double rq = median_of(res[kRequest], "loop_ns") / dn_;
            const double un = median_of(res[kUnregister], "loop_ns") / dn_;
            const double dn = median_of(res[kDiscard], "loop_ns") / dn_;
            reg_ns.push_back(jn);
            const std::string scale = p10(n) +
                                      " functions live at once, one request each, --tool=" + tool +
                                      ": ns per request in the client's loop, median (min-max)";
            g_rows.push_back({"2",
                              "Registration, " + scale +
                                  " (baseline: an empty client request, RUNNING_ON_VALGRIND, "
                                  "same build)",
                              runs, spread_ns(res[kRequest], "loop_ns", dn_),
                              spread_ns(res[kJit], "loop_ns", dn_), fmt("%.2f x", jn / rq),
                              "register/empty request <= 2.0", verdict(jn / rq <= 2.0)});
            missed = missed || jn / rq > 2.0;
            g_rows.push_back(
                {"2", "Unregistration, " + scale + " (baseline: registration)",
                 std::to_string(res[kUnregister].size()) + "+" + std::to_string(res[kJit].size()),
                 fmt("%.0f ns", jn), spread_ns(res[kUnregister], "loop_ns", dn_),
                 fmt("%.2f x", un / jn), "unregister/register <= 2.0", verdict(un / jn <= 2.0)});
            missed = missed || un / jn > 2.0;
            g_rows.push_back(
                {"2",
                 "(no target) Registration, " + p10(n) + ", --tool=" + tool +
                     ", against the stock Valgrind's DISCARD_TRANSLATIONS of "
                     "the same code",
                 std::to_string(res[kDiscard].size()) + "+" + std::to_string(res[kJit].size()),
                 spread_ns(res[kDiscard], "loop_ns", dn_), fmt("%.0f ns", jn),
                 fmt("%.2f x", jn / dn), "-", "-"});
            if (n == ns.back()) {
                const double unmap_jit = median_of(res[kJit], "unmap_ns") / dn_;
                g_rows.push_back({"2",
                                  "munmap of the " + p10(n) +
                                      " registered functions' code after the loop, --tool=" + tool +
                                      ": ns per function (baseline: registration)",
                                  std::to_string(res[kJit].size()), fmt("%.0f ns", jn),
                                  spread_ns(res[kJit], "unmap_ns", dn_),
                                  fmt("%.2f x", unmap_jit / jn), "munmap/register <= 1.0",
                                  verdict(unmap_jit / jn <= 1.0)});
                missed = missed || unmap_jit / jn > 1.0;
            }
            if (!res[kPlain].empty()) {
                const double hj = median_of(res[kJit], "vmhwm_kb");
                const double hn = median_of(res[kPlain], "vmhwm_kb");
                const double per = (hj - hn) * 1024.0 / dn_;
                const double lo =
                    (min_of(res[kJit], "vmhwm_kb") - max_of(res[kPlain], "vmhwm_kb")) * 1024.0 /
                    dn_;
                const double hi =
                    (max_of(res[kJit], "vmhwm_kb") - min_of(res[kPlain], "vmhwm_kb")) * 1024.0 /
                    dn_;
                // Every function has a name of its own (jitbench_fn_<i>, 24
                // characters): the name's bytes (with its NUL) are the
                // target's second term, the rest is the registry's own.
                const double name = 25.0, own = 40.0;
                g_rows.push_back(
                    {"4",
                     "Memory: peak RSS (VmHWM) of the Valgrind process with " + p10(n) +
                         " registered functions (distinct 24-character names) minus the same "
                         "run without the requests, per function, median (min-max) "
                         "(--tool=none); the registry's own bytes are the figure less the "
                         "name's 25",
                     std::to_string(res[kJit].size()) + "+" + std::to_string(res[kPlain].size()),
                     fmt("%.0f MiB", hn / 1024), fmt("%.0f MiB", hj / 1024),
                     fmt("%.0f bytes", per) + " (" + fmt("%.0f", lo) + "-" + fmt("%.0f", hi) +
                         "): " + fmt("%.0f", per - name) + " + 25 (name)",
                     "<= 40 + 25 (name) = 65 bytes", verdict(per <= own + name)});
                if (per > own + name) missed_note("Row 4");
            }
        }
        // Growth of the registration's own cost per request.
        const double growth = reg_ns.back() / reg_ns.front();
        g_rows.push_back({"2",
                          "Registration cost growth, " + p10(ns.front()) + " -> " + p10(ns.back()) +
                              " functions, --tool=" + tool + ": ns per request at " +
                              p10(ns.back()) + " / at " + p10(ns.front()),
                          "", "", fmt("%.2f x", growth), fmt("%.2f x", growth),
                          "no growth (<= 1.2 x)", verdict(growth <= 1.2)});
        missed = missed || growth > 1.2;
        if (missed) missed_note("Row 2 (--tool=" + tool + ")");
    }
    page_cost_row("2");
}

// 3. Name lookups at scale under Callgrind.
//
// Every N and every side runs in one rotation (10^3 reg, 10^3 noreg,
// 10^3 stock, 10^4 reg, ...): this machine has slow phases lasting tens of
// seconds, and when each N ran its own block of runs one such phase could
// hold all of one N's runs and decide the max/min ratio alone.  Alternated,
// every N meets the same mix of phases.
void row_lookup() {
    std::vector<unsigned long> ns;
    for (unsigned long n = 1000; n <= g_opt->lookup_max && n <= 1000000; n *= 10) ns.push_back(n);
    // Index into the rotation of each N's patched-registered, patched-
    // unregistered and (N <= --stock-lookup-max) stock command.
    struct Sides {
        std::size_t reg, noreg, stock;
        bool with_stock;
    };
    std::vector<Cmd> cmds;
    std::vector<Sides> sides;
    for (const unsigned long n : ns) {
        const std::string N = std::to_string(n);
        Sides x{};
        x.with_stock = n <= g_opt->stock_lookup_max;
        x.reg = cmds.size();
        cmds.push_back({"calls-patched-" + N,
                        vg(g_opt->patched, "callgrind", {}, {g_opt->jitbench, "calls", N, "reg"})});
        x.noreg = cmds.size();
        cmds.push_back({"calls-patched-noreg-" + N, vg(g_opt->patched, "callgrind", {},
                                                       {g_opt->jitbench, "calls", N, "noreg"})});
        if (x.with_stock) {
            x.stock = cmds.size();
            cmds.push_back({"calls-stock-" + N, vg(g_opt->stock, "callgrind", {},
                                                   {g_opt->jitbench, "calls", N, "noreg"})});
        }
        sides.push_back(x);
    }
    // The small N are the denominator of the flatness ratio and their
    // loops are short (10 and 100 ms), so every side runs at least 9 times.
    const int reps = std::max(9, g_opt->repeats);
    const auto res = rotate("3. Callgrind, call 10^3.." + p10(ns.back()) +
                                " functions once, "
                                "all N alternated",
                            cmds, reps);
    std::vector<double> stock_us, patched_us, patched_best_us, share, user_us, sys_us;
    for (std::size_t k = 0; k < ns.size(); ++k) {
        const unsigned long n = ns[k];
        const Sides& x = sides[k];
        const double scale = 1000.0 * static_cast<double>(n);  // ns per run -> us per function
        auto per_fn = [scale](const std::vector<Sample>& r) {
            return median_of(r, "loop_ns") / scale;
        };
        // "median (fastest-slowest)" of a side's runs, us per function.
        auto cell = [scale, per_fn](const std::vector<Sample>& r) {
            return fmt("%.1f us", per_fn(r)) + fmt(" (%.1f", min_of(r, "loop_ns") / scale) +
                   fmt("-%.1f)", max_of(r, "loop_ns") / scale);
        };
        const auto& reg = res[x.reg];
        const double pu = per_fn(reg), uu = per_fn(res[x.noreg]);
        patched_us.push_back(pu);
        patched_best_us.push_back(min_of(reg, "loop_ns") / scale);
        user_us.push_back(median_of(reg, "loop_user_ns") / scale);
        sys_us.push_back(median_of(reg, "loop_sys_ns") / scale);
        share.push_back(pu / uu);
        const std::string runs = std::to_string(reps) + "+" + std::to_string(reps);
        if (x.with_stock) {
            const double su = per_fn(res[x.stock]);
            stock_us.push_back(su);
            g_rows.push_back({"3",
                              "Lookup: Callgrind, each of " + p10(n) +
                                  " functions called once, us per function in the client's "
                                  "call loop, median (fastest-slowest run) (stock: unnamed; "
                                  "patched: registered, named)",
                              runs, cell(res[x.stock]), cell(reg), fmt("%.2f x", pu / su), "-",
                              "-"});
        } else {
            g_rows.push_back({"3",
                              "Lookup: Callgrind, each of " + p10(n) +
                                  " functions called once, us per function in the client's "
                                  "call loop, median (fastest-slowest run) (patched: "
                                  "registered, named; stock not run, see the note)",
                              std::to_string(reps), "-", cell(reg), "-", "-", "-"});
        }
    }
    const double fp = max_over_min(patched_us);
    const std::string stock_spread =
        stock_us.empty()
            ? "-"
            : fmt("%.2f x", max_over_min(stock_us)) + " (to " + p10(ns[stock_us.size() - 1]) + ")";
    g_rows.push_back({"3",
                      "Lookup: time per function, max/min over N = " + p10(ns.front()) + ".." +
                          p10(ns.back()) + " (Callgrind)",
                      "", stock_spread, fmt("%.2f x", fp), fmt("%.2f x", fp), "flat within 1.2 x",
                      verdict(fp <= 1.2)});
    const double best = max_over_min(patched_best_us);
    g_rows.push_back({"3",
                      "(derived, no target) the same from each N's fastest patched run "
                      "(less sensitive to run-to-run noise than the medians)",
                      "", "", "", fmt("%.2f x", best), "-", "-"});
    std::string cpu;
    for (std::size_t i = 0; i < ns.size(); ++i)
        cpu += (i ? " / " : "") + fmt("%.1f", user_us[i]) + fmt(" + %.1f", sys_us[i]);
    g_rows.push_back({"3",
                      "(derived, no target) where the patched time goes: user + system CPU "
                      "us per function in the loop (getrusage; medians), N = " +
                          p10(ns.front()) + ".." + p10(ns.back()) +
                          "; the system part is mostly the kernel clearing newly "
                          "faulted pages",
                      "", "", "", cpu, "-", "-"});
    page_cost_row("3");
    // Resident memory each new function leaves behind: the growth of the
    // peak RSS from the smallest N to a larger one, per added function.
    {
        auto per_fn_bytes = [&res, &ns](std::size_t side_small, std::size_t side_large,
                                        std::size_t k) {
            const double kb =
                median_of(res[side_large], "vmhwm_kb") - median_of(res[side_small], "vmhwm_kb");
            return kb * 1024.0 / static_cast<double>(ns[k] - ns.front());
        };
        std::string stock_cell = "-", patched_cell;
        std::size_t last_stock = 0;
        for (std::size_t k = 1; k < ns.size(); ++k) {
            patched_cell += (k > 1 ? " / " : "") +
                            fmt("%.0f B", per_fn_bytes(sides.front().reg, sides[k].reg, k));
            if (sides[k].with_stock && sides.front().with_stock) last_stock = k;
        }
        if (last_stock > 0)
            stock_cell = fmt("%.0f B", per_fn_bytes(sides.front().stock, sides[last_stock].stock,
                                                    last_stock)) +
                         " (to " + p10(ns[last_stock]) + ")";
        g_rows.push_back({"3",
                          "(derived, no target) resident memory each new function leaves "
                          "behind under Callgrind: peak RSS growth from " +
                              p10(ns.front()) + " to N functions, per added function, N = " +
                              p10(ns[std::min<std::size_t>(1, ns.size() - 1)]) + ".." +
                              p10(ns.back()),
                          "", stock_cell, patched_cell, "", "-", "-"});
    }
    std::string shares;
    for (std::size_t i = 0; i < ns.size(); ++i) shares += (i ? " / " : "") + fmt("%.2f", share[i]);
    g_rows.push_back({"3",
                      "(derived, no target) the registry's share: patched Valgrind, "
                      "registered / unregistered functions, time per function at N = " +
                          p10(ns.front()) + ".." + p10(ns.back()),
                      "", "", "", shares + " x", "-", "-"});
    if (ns.back() > g_opt->stock_lookup_max)
        g_notes.push_back(
            "Row 3: stock Valgrind runs only up to N = " + p10(g_opt->stock_lookup_max) +
            " (--stock-lookup-max=N): its time per new function grows with N.");
    if (fp > 1.2) missed_note("Row 3");
}

// 5, counted: the instructions the Valgrind process executes per
// CODE_LOAD record it ingests (reading, decoding, registering), under the
// inner --tool=none: the slope between 10^4 and 10^5 records of the runs
// with --jit-dump=yes (waiting until the last record is registered) less
// that of the runs with --jit-dump=no, so that start-up, exit and the
// client's writing of the file cancel out.
double jitdump_instructions() {
    const unsigned long n1 = 10000, n2 = 100000;
    const double t0 = now_s();
    auto slope = [&](const std::string& on) {
        double c[2];
        int i = 0;
        for (const unsigned long n : {n1, n2})
            c[i++] = inner_instructions(g_opt->inner_patched, "none",
                                        "dump-" + on + "-" + std::to_string(n),
                                        {"--jit-dump=" + on, g_opt->jitbench, "dump",
                                         std::to_string(n), on == "yes" ? "wait" : "nowait"});
        return (c[1] - c[0]) / static_cast<double>(n2 - n1);
    };
    const double per_record = slope("yes") - slope("no");
    std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                 "5. jitdump ingestion under the inner none, counted", 2, now_s() - t0);
    return per_record;
}

// 5, derived: how much of the 100 ms that 10^6 records may take at
// 10^7 records a second the kernel takes, measured natively: the pages
// the Valgrind process faulted in over the ingestion (its getrusage)
// times what this machine charges for a fresh page (jitbench touch), plus
// reading the file from the page cache with pread (jitbench dump N read).
// What is left, at the rate the ingestion ran its instructions (counted
// instructions over user CPU time), says how many instructions a record
// may take for the target in this run (it moves with the machine's
// speed from run to run).
void kernel_part_row(unsigned long n, const std::vector<Sample>& ingest, double per_record) {
    Cmd touch{"touch-128MiB-row5", {g_opt->jitbench, "touch", "128"}};
    Cmd read{"dump-read", {g_opt->jitbench, "dump", std::to_string(n), "read"}};
    const int reps = std::max(5, g_opt->repeats);
    const auto t = rotate("5. fresh pages and reading the file, natively", {touch, read}, reps);
    const double page_us = median_of(t[0], "loop_ns") / median_of(t[0], "pages") / 1000.0;
    const double faults = median_of(ingest, "ingest_minor_faults");
    const double fault_ms = faults * page_us / 1000.0;
    const double read_ms = median_of(t[1], "read_ns") * 1e-6;
    const double kernel_ms = fault_ms + read_ms;
    const double budget_ms = static_cast<double>(n) / 1e7 * 1e3;
    const double user_ms = median_of(ingest, "ingest_user_ns") * 1e-6;
    const double left_ms = budget_ms - kernel_ms;
    const std::string fits = left_ms <= 0
                                 ? std::string("none: the kernel's part alone exceeds it")
                                 : fmt("%.0f Ir per record", per_record * left_ms / user_ms);
    g_rows.push_back(
        {"5",
         "(derived, no target) the kernel's part of ingesting " + p10(n) +
             " records, natively: the pages the process faulted in over it (" +
             fmt("%.0f", faults) + ", getrusage) at " + fmt("%.2f", page_us) +
             " us a fresh page (jitbench touch), plus reading the file with pread (jitbench dump "
             "N read); what the rest of " +
             fmt("%.0f", budget_ms) +
             " ms holds at the rate this run executed its instructions (counted Ir over user "
             "CPU time)",
         std::to_string(reps) + "+" + std::to_string(reps), "",
         fmt("%.1f ms", fault_ms) + " + " + fmt("%.1f ms", read_ms) + " = " +
             fmt("%.1f ms", kernel_ms),
         fits + fmt(" (now %.0f)", per_record), "-", "-"});
}

// 5. jitdump ingestion.
void row_jitdump() {
    const unsigned long n = 1000000;
    const std::string N = std::to_string(n);
    Cmd off{"dump-no",
            vg(g_opt->patched, "none", {"--jit-dump=no"}, {g_opt->jitbench, "dump", N, "nowait"})};
    Cmd on{"dump-yes",
           vg(g_opt->patched, "none", {"--jit-dump=yes"}, {g_opt->jitbench, "dump", N, "wait"})};
    const auto res =
        rotate("5. jitdump ingestion, " + p10(n) + " CODE_LOAD", {off, on}, g_opt->repeats);
    if (min_of(res[1], "last_ok") != 1 || min_of(res[1], "first_ok") != 1)
        throw std::runtime_error("jitdump records were not all registered (see dump-yes.log)");
    if (min_of(res[0], "last_ok") != 0)
        throw std::runtime_error("--jit-dump=no registered records (see dump-no.log)");
    // The verdict is the client's own time from mapping the file to its
    // last record registered: that is the reading, decoding and
    // registering of every record. The whole runs last about 2.5 s each
    // (the client writing 97 MB under Valgrind) and vary by more than
    // the 0.1 to 0.2 s the ingestion takes, so their difference is given
    // without a target.
    const double woff = median_wall(res[0]), won = median_wall(res[1]);
    const double inside = static_cast<double>(n) / (median_of(res[1], "ingest_ns") * 1e-9);
    const double per_record = g_opt->inner_patched.empty() ? -1 : jitdump_instructions();
    g_rows.push_back(
        {"5",
         "jitdump ingestion: " + p10(n) + " CODE_LOAD records (" +
             fmt("%.0f", median_of(res[1], "file_bytes") / 1e6) +
             " MB file), --tool=none, in the client from mmap to the last record "
             "registered (its median time; user + system CPU of the process over it: " +
             fmt("%.0f", median_of(res[1], "ingest_user_ns") * 1e-6) + " + " +
             fmt("%.0f", median_of(res[1], "ingest_sys_ns") * 1e-6) +
             " ms, the system part the kernel copying the file out and faulting in new "
             "memory)" +
             (per_record < 0 ? std::string("; counted: not run, no self-hosting build")
                             : "; counted: " + fmt("%.0f", per_record) +
                                   " Ir per record, the Valgrind process under an outer "
                                   "Cachegrind, slope from 10^4 to 10^5 records") +
             " (baseline: the same run with --jit-dump=no)",
         std::to_string(g_opt->repeats) + "+" + std::to_string(g_opt->repeats),
         fmt("%.1f ms", median_of(res[0], "ingest_ns") * 1e-6),
         fmt("%.1f ms", median_of(res[1], "ingest_ns") * 1e-6),
         fmt("%.3g rec/s", inside) +
             (per_record < 0 ? std::string() : fmt(", %.0f Ir/rec", per_record)),
         ">= 10^7 rec/s", verdict(inside >= 1e7)});
    if (per_record > 0) kernel_part_row(n, res[1], per_record);
    g_rows.push_back({"5",
                      "(no target) the same, whole runs' wall time, --jit-dump=no vs yes "
                      "(medians; the runs vary by more than the difference)",
                      std::to_string(g_opt->repeats) + "+" + std::to_string(g_opt->repeats),
                      fmt("%.2f s", woff), fmt("%.2f s", won), fmt("%+.2f s", won - woff), "-",
                      "-"});
    if (inside < 1e7) missed_note("Row 5");
}

// 6. The macro natively.
void row_native() {
    Cmd c{"native", {g_opt->jitbench, "native", "200000000"}};
    const auto res = rotate("6. VALGRIND_JIT_REGISTER natively", {c}, std::max(5, g_opt->repeats));
    const double req = median_of(res[0], "ns_per_request");
    const double empty = median_of(res[0], "ns_per_empty_iteration");
    g_rows.push_back({"6",
                      "VALGRIND_JIT_REGISTER natively: ns per loop iteration with the "
                      "request, minus the same loop without it (2*10^8 iterations, "
                      "compiler barrier)",
                      std::to_string(std::max(5, g_opt->repeats)), fmt("%.2f ns (loop)", empty),
                      fmt("%.2f ns (loop+request)", req), fmt("%.2f ns", req - empty), "<= 2 ns",
                      verdict(req - empty <= 2.0)});
    if (req - empty > 2.0) missed_note("Row 6");
}

// 7. The GDB JIT interface at scale: N objects of 10 functions each.
void row_gdb() {
    const std::vector<unsigned long> ns{100, 1000, 10000};
    std::vector<Cmd> cmds;
    for (const unsigned long n : ns)
        cmds.push_back(
            {"gdb-" + std::to_string(n),
             vg(g_opt->patched, "callgrind", {}, {g_opt->jitbench, "gdb", std::to_string(n)})});
    // The ELF ratio asks for 2%: at least 15 runs per N (about a minute).
    const int repeats = std::max(15, g_opt->repeats);
    const auto res = rotate(
        "7. GDB JIT interface, 10^2..10^4 objects of 10 functions, "
        "Callgrind, all N alternated",
        cmds, repeats);
    std::vector<double> per_fn;
    std::string per_fn_text;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        if (min_of(res[i], "objects") != static_cast<double>(ns[i]))
            throw std::runtime_error("jitbench gdb did not register every object (see gdb-" +
                                     std::to_string(ns[i]) + ".log)");
        per_fn.push_back(median_of(res[i], "loop_ns") / (10.0 * static_cast<double>(ns[i])));
        per_fn_text += (i ? " / " : "") + fmt("%.0f", per_fn.back());
    }
    const double flat = *std::max_element(per_fn.begin(), per_fn.end()) /
                        *std::min_element(per_fn.begin(), per_fn.end());
    const double n_max = static_cast<double>(ns.back());
    const double ingest_ns = median_of(res.back(), "ingest_ns");
    const double rate = n_max / (ingest_ns * 1e-9);
    const std::string runs = std::to_string(repeats);
    g_rows.push_back({"7",
                      "GDB JIT interface: " + p10(ns.back()) +
                          " relocatable objects of 10 "
                          "functions handed in one registration each (__jit_debug_register_code), "
                          "--tool=callgrind, in-client time of the loop -> objects/s",
                      runs, "", fmt("%.0f ns/object", ingest_ns / n_max), fmt("%.3g obj/s", rate),
                      ">= 10^4 obj/s", verdict(rate >= 1e4)});
    g_rows.push_back({"7",
                      "GDB JIT interface: first call of each function (translation and "
                      "name lookup under Callgrind), ns per function with " +
                          p10(ns.front()) + " / " + p10(ns[1]) + " / " + p10(ns.back()) +
                          " objects registered -> max/min",
                      runs, "", per_fn_text + " ns", fmt("%.2f x", flat), "<= 1.2 x",
                      verdict(flat <= 1.2)});
    const double elf_small = median_of(res.front(), "elf_ns");
    const double elf_large = median_of(res.back(), "elf_ns");
    const double elf_ratio = elf_large / elf_small;
    g_rows.push_back(
        {"7",
         "GDB JIT interface: first call of " + fmt("%.0f", median_of(res.back(), "elf_fns")) +
             " functions of the ELF executable (their name lookups) with " + p10(ns.back()) +
             " objects registered vs " + p10(ns.front()) + ", --tool=callgrind",
         runs, fmt("%.2f ms", elf_small * 1e-6), fmt("%.2f ms", elf_large * 1e-6),
         fmt("%.3f x", elf_ratio), "<= 1.02 x", verdict(elf_ratio <= 1.02)});
    if (rate < 1e4 || flat > 1.2 || elf_ratio > 1.02) missed_note("Row 7");
}

// 8. Names that arrive late: 10^6 functions named in a jitdump before they
// run, or only after every one of them ran (the records are read at the
// scheduler point after the write, and bound when the tool writes its
// results), under Callgrind and Cachegrind, in pairs started together;
// and 10^5 whose code is freed after their late names were read.

// `jitbench late n early` and `jitbench late n MODE` under tool, alternated:
// their samples, each checked for the right sum.
std::vector<std::vector<Sample>> early_vs(const std::string& tool, unsigned long n,
                                          const std::string& mode, const std::string& what,
                                          int reps) {
    const std::string N = std::to_string(n);
    Cmd early{mode + "-early-" + tool,
              vg(g_opt->patched, tool, {}, {g_opt->jitbench, "late", N, "early"})};
    Cmd other{mode + "-" + mode + "-" + tool,
              vg(g_opt->patched, tool, {}, {g_opt->jitbench, "late", N, mode})};
    auto res = rotate("8. " + p10(n) + " " + what + ", " + tool, {early, other}, reps);
    const double expect = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
    if (min_of(res[0], "sum") != expect || min_of(res[1], "sum") != expect)
        throw std::runtime_error("jitbench late computed a wrong sum (see " + mode + "-*-" + tool +
                                 ".log)");
    return res;
}

// The late names' time target, seconds more than early names for 10^6
// functions.
constexpr double kLateNamesMaxExtraS = 0.2;

void row_late() {
    const unsigned long n = 1000000;
    const std::string N = std::to_string(n);
    // Single runs of 30 s vary by seconds here: each early run and its
    // late partner start together, one on each CPU, as row 1's do, and
    // the figure is the median of the per-pair differences with its 95%
    // interval (at least 9 pairs: [2nd, 8th] of 9).
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    const int reps = std::max(9, g_opt->repeats);
    const std::string runs = std::to_string(reps) + "+" + std::to_string(reps);
    for (const std::string tool : {"callgrind", "cachegrind"}) {
        // Paired runs print nothing that is read: one run of each mode at
        // 10^4 checks that jitbench computes the right sum.
        (void)early_vs(tool, 10000, "late", "names early vs late (sum check)", 1);
        Cmd early{"late-pair-early-" + tool,
                  vg(g_opt->patched, tool, {}, {g_opt->jitbench, "late", N, "early"}), true};
        Cmd late{"late-pair-late-" + tool,
                 vg(g_opt->patched, tool, {}, {g_opt->jitbench, "late", N, "late"}), true};
        const double t0 = now_s();
        const auto [es, ls] = run_pairs(early, late, reps);
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("8. " + p10(n) + " names early vs late, " + tool +
                      (simultaneous ? ", pairs at once" : ""))
                         .c_str(),
                     reps, now_s() - t0);
        std::vector<double> diffs, rss_e, rss_l;
        for (int r = 0; r < reps; ++r) {
            diffs.push_back(ls[r].wall_s - es[r].wall_s);
            rss_e.push_back(es[r].maxrss_kb);
            rss_l.push_back(ls[r].maxrss_kb);
        }
        const double d = median(diffs);
        const auto [lo, hi] = median_interval(diffs, 0.95);
        const std::string v = hi <= kLateNamesMaxExtraS  ? verdict(true)
                              : lo > kLateNamesMaxExtraS ? verdict(false)
                                                         : kWithinNoise;
        const double extra_b = (median(rss_l) - median(rss_e)) * 1024.0 / static_cast<double>(n);
        g_rows.push_back({"8",
                          "Late names: " + p10(n) +
                              " functions called once, named in a "
                              "jitdump before they run vs written only after all of them ran "
                              "(just before exit; bound when the tool writes its "
                              "results), --tool=" +
                              tool +
                              ", wall time of the run; median of the per-pair differences "
                              "(95% interval)" +
                              (simultaneous ? ", each pair started together on two CPUs" : ""),
                          runs, fmt("%.2f s", median_wall(es)), fmt("%.2f s", median_wall(ls)),
                          fmt("%+.2f s", d) + fmt(" (%+.2f", lo) + fmt(" to %+.2f)", hi),
                          fmt("<= +%.1f s", kLateNamesMaxExtraS), v});
        g_rows.push_back({"8",
                          "Late names: peak memory of the same runs, late minus early, "
                          "per function (--tool=" +
                              tool + ")",
                          runs, fmt("%.0f MB", median(rss_e) / 1024.0),
                          fmt("%.0f MB", median(rss_l) / 1024.0), fmt("%.0f B", extra_b), "<= 64 B",
                          verdict(extra_b <= 64.0)});
        // Counted: what binding names late adds to the instructions of the
        // run, which the machine's phases do not move. A run's count is a
        // fixed part (start-up, reading the executable's debug information,
        // whose allocations the two modes leave in different orders: tens
        // of millions of instructions either way) plus a part per function,
        // so both modes run at two sizes and the line predicts the whole
        // run at n from the fixed part and the slope; the seconds are that
        // difference at the instruction rate of the timed early runs (an
        // inner Cachegrind or Callgrind under the outer Cachegrind runs
        // about 2,000 times slower than natively, hence the small sizes).
        bool counted_met = false;
        if (!g_opt->inner_patched.empty()) {
            const unsigned long sizes[2] = {10000, 30000};
            double ir[2][2];  // [early, late][size]
            for (int k = 0; k < 2; ++k) {
                // Counts do not depend on what else runs: both modes at once.
                const std::string NC = std::to_string(sizes[k]);
                auto count = [&](const std::string& mode) {
                    return inner_instructions(g_opt->inner_patched, tool,
                                              "late-" + mode + "-" + tool + "-" + NC,
                                              {g_opt->jitbench, "late", NC, mode});
                };
                auto late = std::async(std::launch::async, count, "late");
                ir[0][k] = count("early");
                ir[1][k] = late.get();
            }
            const double span = static_cast<double>(sizes[1] - sizes[0]);
            const double slope_e = (ir[0][1] - ir[0][0]) / span;
            const double slope_l = (ir[1][1] - ir[1][0]) / span;
            auto at_n = [&](int m, double slope) {
                return ir[m][1] + slope * static_cast<double>(n - sizes[1]);
            };
            const double early_n = at_n(0, slope_e), late_n = at_n(1, slope_l);
            const double extra_s = (late_n - early_n) / early_n * median_wall(es);
            counted_met = extra_s <= kLateNamesMaxExtraS;
            g_rows.push_back(
                {"8",
                 "Late names, counted: the instructions the Valgrind process executes, "
                 "functions named early vs late, the self-hosting build under an outer "
                 "Cachegrind, --tool=" +
                     tool + ", at " + p10(sizes[0]) + " and 3*" + p10(sizes[0]) +
                     " functions; late minus early per function (slope), and the whole run at " +
                     p10(n) +
                     " (fixed part + slope x n) in seconds at the early runs' instruction "
                     "rate above",
                 "2+2", fmt("%.1f k Ir/fn", slope_e / 1e3), fmt("%.1f k Ir/fn", slope_l / 1e3),
                 fmt("%+.0f Ir/fn; ", slope_l - slope_e) +
                     fmt("%+.3g G Ir = ", (late_n - early_n) / 1e9) + fmt("%+.3f s", extra_s),
                 fmt("<= +%.1f s", kLateNamesMaxExtraS), verdict(counted_met)});
        }
        // The time line decides when its interval lies on one side of the
        // target; when the machine's noise spans it, the counted line does.
        if (lo > kLateNamesMaxExtraS || (hi > kLateNamesMaxExtraS && !counted_met) ||
            extra_b > 64.0)
            missed_note("Row 8 (" + tool + ")");
    }
    // Late names of code freed before exit (CPython frees its trampolines
    // so): the tool binds every name from the registry's archive.
    const unsigned long nf = 100000;
    for (const std::string tool : {"callgrind", "cachegrind"}) {
        const auto res =
            early_vs(tool, nf, "freed", "names early vs late of freed code", g_opt->repeats);
        const double we = median_wall(res[0]), wf = median_wall(res[1]);
        g_rows.push_back({"8",
                          "Late names of freed code: " + p10(nf) +
                              " functions called "
                              "once, named in a jitdump before they run vs after all of them "
                              "ran, their code then unmapped before exit (names bound from "
                              "the functions the registry archived), --tool=" +
                              tool + ", wall time of the run",
                          runs, fmt("%.2f s", we), fmt("%.2f s", wf), fmt("%+.2f s", wf - we),
                          "<= +1 s", verdict(wf - we <= 1.0)});
        if (wf - we > 1.0) missed_note("Row 8, freed code (" + tool + ")");
    }
}

// 9. vg-jit export on real profiles: CPython 3.13 (-X perf_jit) and Node
// 20 (--perf-prof) programs profiled by the patched Callgrind as a user
// would (first without --separate-callers), exported to both formats.

/// The programs row 9 profiles, written into the work directory.
const char* const kExportFibPy = R"(def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def main():
    print(fib(22))

main()
)";
const char* const kExportWorkPy = R"(import json, re, collections

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def words(text):
    return collections.Counter(re.findall(r"[a-z]+", text.lower()))

def main():
    data = [{"k": i, "v": str(i) * 3} for i in range(2000)]
    s = json.dumps(data)
    back = json.loads(s)
    c = words(s * 3)
    print(fib(20), len(back), len(c))

main()
)";
const char* const kExportFibJs = R"(function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function main() { let s = 0; for (let i = 0; i < 30; i++) s += fib(18); console.log(s); }
main();
)";
const char* const kExportWorkJs = R"(function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function words(t) {
  const m = new Map();
  for (const w of t.toLowerCase().match(/[a-z]+/g) || []) m.set(w, (m.get(w) || 0) + 1);
  return m;
}
function main() {
  const data = [];
  for (let i = 0; i < 5000; i++) data.push({k: i, v: String(i).repeat(3)});
  const s = JSON.stringify(data);
  const back = JSON.parse(s);
  const c = words(s + s);
  const sorted = back.map(x => x.v).sort();
  console.log(fib(24), back.length, c.size, sorted.length);
}
main();
)";

void row_export() {
    if (g_opt->vg_jit.empty()) throw std::runtime_error("row 9 needs --vg-jit");
    struct Profile {
        std::string label, what, script, text;
        bool python;
        std::vector<std::string> callgrind;  // extra Callgrind options
    };
    const std::vector<Profile> profiles = {
        {"py-fib", "CPython 3.13 fib.py", "export-fib.py", kExportFibPy, true, {}},
        {"py-work-ctx4",
         "CPython 3.13 json/re script, --separate-callers=4",
         "export-work.py",
         kExportWorkPy,
         true,
         {"--separate-callers=4"}},
        {"node-fib", "Node 20 fib.js", "export-fib.js", kExportFibJs, false, {}},
        {"node-work", "Node 20 JSON/Map script", "export-work.js", kExportWorkJs, false, {}},
        {"node-work-ctx8",
         "Node 20 JSON/Map script, --separate-callers=8",
         "export-work.js",
         kExportWorkJs,
         false,
         {"--separate-callers=8"}},
    };
    bool missed = false;
    for (const Profile& p : profiles) {
        const std::string& program = p.python ? g_opt->python : g_opt->node;
        if (program.empty()) {
            g_notes.push_back(std::string("Row 9: no ") +
                              (p.python ? "CPython 3.13 (--python)" : "Node (--node)") + ": " +
                              p.what + " was not exported.");
            continue;
        }
        const std::string dir = g_opt->workdir + "/";
        {
            std::ofstream f(dir + p.script, std::ios::binary);
            f << p.text;
            if (!f) throw std::runtime_error("cannot write " + dir + p.script);
        }
        // The profile, taken once (its time is not measured).
        const std::string prof = dir + "export-" + p.label + ".out";
        std::vector<std::string> take{g_opt->patched, "-q", "--tool=callgrind",
                                      "--callgrind-out-file=" + prof};
        take.insert(take.end(), p.callgrind.begin(), p.callgrind.end());
        if (p.python) {
            take.insert(take.end(), {program, "-X", "perf_jit", p.script});
        } else {
            take.insert(take.end(), {program, "--perf-prof", "--no-sparkplug", p.script});
        }
        // CPython writes /tmp/jit-PID.dump whatever its directory (Node its
        // jit-PID.dump in the work directory); under Valgrind PID is the pid
        // spawn() started.  Removed, taken or not: no file is left where
        // every user's profilers write.
        pid_t taker = -1;
        try {
            run_once({"export-take-" + p.label, take, true}, &taker);
        } catch (...) {
            if (taker > 0) std::filesystem::remove("/tmp/jit-" + std::to_string(taker) + ".dump");
            throw;
        }
        std::filesystem::remove("/tmp/jit-" + std::to_string(taker) + ".dump");
        const double in_mb = static_cast<double>(std::filesystem::file_size(prof)) / 1e6;
        std::vector<Cmd> cmds;
        for (const std::string format : {"firefox", "folded"})
            cmds.push_back(
                {"export-" + p.label + "-" + format,
                 {g_opt->vg_jit, "export", "--format=" + format, prof, "-o", prof + "." + format},
                 true});
        // A profile that Callgrind wrote malformed is reported, not timed.
        try {
            run_once(cmds[0]);
        } catch (const std::exception&) {
            std::ifstream log(log_path(cmds[0]));
            std::string first;
            std::getline(log, first);
            g_notes.push_back("Row 9: " + p.what + ": the profile is not readable (" + first +
                              "), not timed.");
            continue;
        }
        const auto res = rotate("9. vg-jit export, " + p.what, cmds, g_opt->repeats);
        std::string times, sizes;
        double worst_ratio = 0, worst_wall = 0, worst_rss = 0;
        for (std::size_t i = 0; i < cmds.size(); ++i) {
            const double out_mb =
                static_cast<double>(std::filesystem::file_size(cmds[i].argv[5])) / 1e6;
            const double wall = median_wall(res[i]);
            std::vector<double> rss;
            for (const auto& x : res[i]) rss.push_back(x.maxrss_kb / 1024.0);
            worst_ratio = std::max(worst_ratio, out_mb / in_mb);
            worst_wall = std::max(worst_wall, wall);
            worst_rss = std::max(worst_rss, median(rss));
            times += (i ? " / " : "") + fmt("%.2f s", wall);
            sizes += (i ? " / " : "") + fmt("%.3g MB", out_mb);
        }
        // Counted: the instructions of the Firefox export under an outer
        // Cachegrind, per byte of profile (for the small profiles only:
        // Cachegrind runs it about 50 times slower).
        std::string counted;
        if (in_mb < 5) {
            const std::string cg_out = dir + "export-" + p.label + ".cg";
            run_once({"export-count-" + p.label,
                      {g_opt->stock, "-q", "--tool=cachegrind", "--cache-sim=no",
                       "--cachegrind-out-file=" + cg_out, g_opt->vg_jit, "export", prof, "-o",
                       prof + ".counted"},
                      true});
            counted = fmt("; %.0f instructions per profile byte (firefox, counted)",
                          cachegrind_total(cg_out) / (in_mb * 1e6));
        }
        const bool met = worst_ratio <= 4.0 && worst_wall <= std::max(1.0, in_mb);
        missed = missed || !met;
        g_rows.push_back(
            {"9",
             "vg-jit export of a " + p.what + " profile (" + fmt("%.3g MB", in_mb) +
                 "), --format=firefox / folded: wall time and output size" + counted +
                 "; peak memory " + fmt("%.0f MB", worst_rss),
             std::to_string(g_opt->repeats), fmt("%.3g MB in", in_mb), times + "; " + sizes,
             fmt("%.2f x input", worst_ratio) + ", " + fmt("%.2f s/MB", worst_wall / in_mb),
             "<= 4 x input, <= 1 s per MB (at least 1 s)", verdict(met)});
    }
    if (missed) missed_note("Row 9");
}

std::string read_first(const std::string& path, const std::string& key) {
    std::ifstream f(path);
    std::string l;
    while (std::getline(f, l))
        if (l.compare(0, key.size(), key) == 0) {
            auto p = l.find(':');
            if (p != std::string::npos) {
                std::string v = l.substr(p + 1);
                v.erase(0, v.find_first_not_of(" \t"));
                return v;
            }
        }
    return "?";
}

std::string machine() {
    const std::string model = read_first("/proc/cpuinfo", "model name");
    const std::string mem = read_first("/proc/meminfo", "MemTotal");
    std::string os = read_first("/etc/os-release", "PRETTY_NAME");
    std::ifstream osr("/etc/os-release");
    std::string l;
    while (std::getline(osr, l))
        if (l.rfind("PRETTY_NAME=", 0) == 0) os = l.substr(12);
    os.erase(std::remove(os.begin(), os.end(), '"'), os.end());
    const double gib = std::strtod(mem.c_str(), nullptr) / 1024.0 / 1024.0;
    return std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs (" + model + "), " +
           fmt("%.1f GiB", gib) + " RAM, " + os;
}

// One row of the combined table from the same row of each invocation:
// every invocation's figures side by side (" / "), and a verdict that is
// met only when every invocation met the target.
Row combine_row(const std::vector<Row>& same) {
    auto joined = [&same](std::string Row::*field) {
        std::string out;
        for (const auto& r : same) {
            if (!out.empty()) out += " / ";
            out += r.*field;
        }
        return out;
    };
    const Row& last = same.back();
    Row c = last;
    c.runs = std::to_string(same.size()) + " x " + last.runs;
    c.base = joined(&Row::base);
    c.patched = joined(&Row::patched);
    c.result = joined(&Row::result);
    if (last.verdict == "-") return c;
    std::size_t met = 0, within_noise = 0;
    bool missed = false;
    for (const auto& r : same) {
        met += r.verdict == "met";
        within_noise += r.verdict == kWithinNoise;
        missed = missed || r.verdict == verdict(false);
    }
    const std::string tally =
        " (met in " + std::to_string(met) + " of " + std::to_string(same.size()) + ")";
    if (met == same.size())
        c.verdict = "met" + tally;
    else if (met + within_noise == same.size())
        c.verdict = kWithinNoise + tally;
    else if (missed)
        c.verdict = verdict(false) + tally;
    else
        c.verdict = "**NOT RESOLVED**" + tally;
    return c;
}

// The rows of several invocations of the same rows, combined row by row.
std::vector<Row> combine(const std::vector<std::vector<Row>>& invocations) {
    std::vector<Row> out;
    for (std::size_t i = 0; i < invocations.front().size(); ++i) {
        std::vector<Row> same;
        for (const auto& rows : invocations) {
            if (rows.size() != invocations.front().size() ||
                rows[i].id != invocations.front()[i].id)
                throw std::runtime_error("invocations produced different rows");
            same.push_back(rows[i]);
        }
        out.push_back(combine_row(same));
    }
    return out;
}

std::string table() {
    std::ostringstream o;
    o << "| # | Measurement | Runs | Baseline | Patched | Result | Target | Verdict |\n"
      << "|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : g_rows)
        o << "| " << r.id << " | " << r.what << " | " << r.runs << " | " << r.base << " | "
          << r.patched << " | " << r.result << " | " << r.target << " | " << r.verdict << " |\n";
    if (!g_notes.empty()) {
        o << "\n";
        for (const auto& n : g_notes) o << "- " << n << "\n";
    }
    return o.str();
}

bool starts(const std::string& a, const char* p, std::string& rest) {
    const std::size_t n = std::strlen(p);
    if (a.compare(0, n, p) != 0) return false;
    rest = a.substr(n);
    return true;
}

/// The row a table line or note belongs to: the number its id starts with
/// ("1a" -> 1; a note "Row 8, freed code ..." -> 8); 0 if none.
int row_number(const std::string& text) {
    std::size_t i = text.compare(0, 4, "Row ") == 0 ? 4 : 0;
    return std::atoi(text.c_str() + i);
}

/// Merges the rows of this run into the results file `path`: a generated
/// preamble, then one "## Row N" section per row (its header line, its
/// table lines and notes).  Sections of rows this run measured are
/// replaced; the others are kept as the file had them.  Written to a
/// temporary file and renamed, so an interrupted run leaves the old file.
/// Returns false (with a message) if the file cannot be written.
bool merge_results(const std::string& path, const std::string& header) {
    std::map<int, std::string> sections;
    {
        std::ifstream in(path);
        std::string line;
        int cur = 0;
        while (std::getline(in, line)) {
            if (line.compare(0, 7, "## Row ") == 0) cur = std::atoi(line.c_str() + 7);
            if (cur > 0) sections[cur] += line + "\n";
        }
    }
    std::map<int, std::vector<const Row*>> rows;
    for (const auto& r : g_rows) rows[row_number(r.id)].push_back(&r);
    for (const auto& [n, list] : rows) {
        std::ostringstream o;
        o << "## Row " << n << "\n\n"
          << header << "\n\n"
          << "| # | Measurement | Runs | Baseline | Patched | Result | Target | Verdict |\n"
          << "|---|---|---|---|---|---|---|---|\n";
        for (const Row* r : list)
            o << "| " << r->id << " | " << r->what << " | " << r->runs << " | " << r->base << " | "
              << r->patched << " | " << r->result << " | " << r->target << " | " << r->verdict
              << " |\n";
        bool first = true;
        for (const auto& note : g_notes)
            if (row_number(note) == n) {
                o << (first ? "\n" : "") << "- " << note << "\n";
                first = false;
            }
        o << "\n";
        sections[n] = o.str();
    }
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << "# Benchmark results\n\n"
               "Generated by `make bench` (bench/vgbench): each section is the last run "
               "that measured its row, with that run's date, commit, machine and "
               "command. Do not edit by hand; the method and what each row measures "
               "are in [README.md](README.md).\n\n";
        for (const auto& [n, text] : sections) out << text;
        if (!out.flush()) {
            std::fprintf(stderr, "vgbench: cannot write %s\n", tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "vgbench: cannot rename %s to %s: %s\n", tmp.c_str(), path.c_str(),
                     std::strerror(errno));
        return false;
    }
    return true;
}

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "vgbench: %s\nusage: vgbench --patched=VALGRIND --stock=VALGRIND "
                 "--jitbench=PATH --bzip2=PATH --workdir=DIR [--inner-stock=VG-IN-PLACE "
                 "--inner-patched=VG-IN-PLACE] [--repeats=R>=5] [--invocations=K>=1] "
                 "[--lookup-max=N] [--stock-lookup-max=N] [--only=1,2,...] [--results=FILE] "
                 "[--flags=TEXT] [--vg-jit=PATH] [--python=PATH] [--node=PATH]\n",
                 why.c_str());
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string v;
        if (starts(a, "--patched=", v))
            opt.patched = v;
        else if (starts(a, "--stock=", v))
            opt.stock = v;
        else if (starts(a, "--jitbench=", v))
            opt.jitbench = v;
        else if (starts(a, "--bzip2=", v))
            opt.bzip2 = v;
        else if (starts(a, "--workdir=", v))
            opt.workdir = v;
        else if (starts(a, "--commit=", v))
            opt.commit = v;
        else if (starts(a, "--results=", v))
            opt.results = v;
        else if (starts(a, "--flags=", v))
            opt.flags = v;
        else if (starts(a, "--inner-stock=", v))
            opt.inner_stock = v;
        else if (starts(a, "--inner-patched=", v))
            opt.inner_patched = v;
        else if (starts(a, "--vg-jit=", v))
            opt.vg_jit = v;
        else if (starts(a, "--python=", v))
            opt.python = v;
        else if (starts(a, "--node=", v))
            opt.node = v;
        else if (starts(a, "--repeats=", v))
            opt.repeats = std::atoi(v.c_str());
        else if (starts(a, "--invocations=", v))
            opt.invocations = std::atoi(v.c_str());
        else if (starts(a, "--lookup-max=", v))
            opt.lookup_max = std::strtoul(v.c_str(), nullptr, 10);
        else if (starts(a, "--stock-lookup-max=", v))
            opt.stock_lookup_max = std::strtoul(v.c_str(), nullptr, 10);
        else if (starts(a, "--only=", v)) {
            std::istringstream in(v);
            std::string t;
            while (std::getline(in, t, ',')) opt.only.insert(std::atoi(t.c_str()));
        } else
            usage("unknown argument " + a);
    }
    if (opt.patched.empty() || opt.stock.empty() || opt.jitbench.empty() || opt.bzip2.empty() ||
        opt.workdir.empty())
        usage("missing argument");
    if (opt.repeats < 5) usage("--repeats must be at least 5");
    if (opt.invocations < 1) usage("--invocations must be at least 1");
    for (const auto* p : {&opt.patched, &opt.stock, &opt.jitbench, &opt.bzip2})
        if (access(p->c_str(), X_OK) != 0) usage(*p + " is not executable");
    if (!opt.inner_stock.empty() && opt.inner_patched.empty())
        usage("--inner-stock needs --inner-patched");
    for (const auto* p : {&opt.inner_stock, &opt.inner_patched})
        if (!p->empty() && access(p->c_str(), X_OK) != 0) usage(*p + " is not executable");
    mkdir(opt.workdir.c_str(), 0755);
    g_opt = &opt;

    const double t0 = now_s();
    std::vector<std::vector<Row>> invocations;
    try {
        for (int inv = 1; inv <= opt.invocations; ++inv) {
            std::fprintf(stderr, "vgbench: invocation %d of %d\n", inv, opt.invocations);
            g_rows.clear();
            if (wanted(1)) row_nojit();
            if (wanted(2) || wanted(4)) row_register();
            if (wanted(2) && !g_opt->inner_patched.empty()) row_register_instructions();
            if (wanted(3)) row_lookup();
            if (wanted(5)) row_jitdump();
            if (wanted(6)) row_native();
            if (wanted(7)) row_gdb();
            if (wanted(8)) row_late();
            if (wanted(9)) row_export();
            if (wanted(10)) row_creator();
            std::ofstream(opt.workdir + "/bench-table-" + std::to_string(inv) + ".md") << table();
            invocations.push_back(g_rows);
        }
        g_rows = combine(invocations);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vgbench: %s\n", e.what());
        return 1;
    }
    // A row that missed in several invocations left its note once each.
    std::sort(g_notes.begin(), g_notes.end());
    g_notes.erase(std::unique(g_notes.begin(), g_notes.end()), g_notes.end());
    std::ostringstream out;
    char date[32] = "?";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    out << "Measured " << date << (opt.commit.empty() ? "" : " at commit " + opt.commit)
        << ".  Machine: " << machine() << ".  `make bench` took " << fmt("%.0f", now_s() - t0)
        << " s.  Baseline: unpatched Valgrind 3.27.1 (build/stock-install) unless the row "
           "says otherwise; Patched: stage/bin/valgrind.  Figures are medians; Runs = "
           "invocations x runs per side, alternated; where a row has several figures, they "
           "are those of invocations 1, 2, ... in order, and its verdict is met only when "
           "every invocation met the target.\n\n"
        << table();
    std::cout << out.str();
    std::ofstream(opt.workdir + "/bench-table.md") << out.str();
    if (!opt.results.empty()) {
        const std::string cmd =
            opt.flags.empty() ? "`make bench`" : "`make bench BENCH_FLAGS='" + opt.flags + "'`";
        const std::string header =
            "Measured " + std::string(date) +
            (opt.commit.empty() ? "" : " at commit " + opt.commit) + " with " + cmd + " (" +
            std::to_string(opt.invocations) + " invocation" + (opt.invocations == 1 ? "" : "s") +
            "; figures of several invocations in order, met only if met in each). Machine: " +
            machine() + ".";
        if (!merge_results(opt.results, header)) return 1;
        std::fprintf(stderr, "vgbench: results merged into %s\n", opt.results.c_str());
    }
    return 0;
}
