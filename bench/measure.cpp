// measure.cpp: the measuring machinery of vgbench: running commands (alone,
// in rotation, in pairs started together on two CPUs) and reading what they
// print, counting a self-hosting Valgrind's instructions under an outer
// Cachegrind, and the statistics of the runs (vgbench.hpp).
#include "vgbench.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace vgbench {

double now_s() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string log_path(const Cmd& cmd) { return g_opt->workdir + "/" + cmd.log + ".log"; }

namespace {

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

}  // namespace

// Runs cmd in the work directory; throws with the log's path on failure.
// *started, if given, is the pid it ran as.
Sample run_once(const Cmd& cmd, pid_t* started) {
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

namespace {

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

}  // namespace

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

std::vector<std::string> vg(const std::string& valgrind, const std::string& tool,
                            std::vector<std::string> extra, std::vector<std::string> prog) {
    std::vector<std::string> a{valgrind, "-q", "--tool=" + tool};
    if (tool == "callgrind") a.push_back("--callgrind-out-file=/dev/null");
    if (tool == "cachegrind") a.push_back("--cachegrind-out-file=/dev/null");
    a.insert(a.end(), extra.begin(), extra.end());
    a.insert(a.end(), prog.begin(), prog.end());
    return a;
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

}  // namespace vgbench
