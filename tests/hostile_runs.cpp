// hostile_runs.cpp: the hostile campaign's runs (the program is described
// in hostile_campaign.cpp): a batch's files written and run natively and
// under Valgrind with a time limit, the signature of a failure read from
// Valgrind's output, a failing batch run again in halves down to single
// cases, reproducers saved, and saved reproducers replayed.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

// ---------------------------------------------------------------------
// Running.

struct RunResult {
    bool timed_out = false;
    int status = 0;  // waitpid status
    std::string out, err;
};

/// Runs argv in `dir` with stdout and stderr to files, killing its
/// process group after `timeout` seconds.
RunResult run(const std::vector<std::string>& argv, const fs::path& dir, unsigned timeout,
              const std::string& tag) {
    const fs::path out_path = dir / (tag + ".stdout"), err_path = dir / (tag + ".stderr");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(dir.c_str()) != 0) _exit(126);
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0) _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    setpgid(pid, pid);
    RunResult r;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
    for (;;) {
        const pid_t w = waitpid(pid, &r.status, WNOHANG);
        if (w == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            r.timed_out = true;
            kill(-pid, SIGKILL);
            waitpid(pid, &r.status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    return r;
}

std::vector<std::string> tool_args(const std::string& tool) {
    std::vector<std::string> a = {"--tool=" + tool, "-v"};
    if (tool == "callgrind") a.push_back("--callgrind-out-file=tool.out");
    if (tool == "cachegrind") a.push_back("--cachegrind-out-file=tool.out");
    if (tool == "massif") a.push_back("--massif-out-file=tool.out");
    if (tool == "dhat") a.push_back("--dhat-out-file=tool.out");
    return a;
}

/// The first frames of Valgrind's own stack in `err` after its assertion
/// and signal machinery ("fn (file:line) < caller (...) < ..."), or "".
std::string host_stack(const std::string& err, int frames = 4) {
    static const std::regex frame(R"((?:at|by) 0x[0-9A-Fa-f]+: (\S+) \(([^)]*)\))");
    const std::size_t stack = err.find("host stacktrace");
    if (stack == std::string::npos) return "";
    const std::string rest = err.substr(stack, err.find("Thread ", stack) - stack);
    std::string out;
    int n = 0;
    for (std::sregex_iterator it(rest.begin(), rest.end(), frame), end; it != end && n < frames;
         ++it) {
        const std::string fn = (*it)[1].str();
        if (fn.find("assert") != std::string::npos || fn.find("panic") != std::string::npos ||
            fn.find("show_sched") != std::string::npos ||
            fn.find("report_and_quit") != std::string::npos ||
            fn.find("signalhandler") != std::string::npos || fn == "ensure_valid" || fn == "???")
            continue;
        out += (out.empty() ? "" : " < ") + fn + " (" + (*it)[2].str() + ")";
        ++n;
    }
    return out;
}

/// What a run's failure looks like: "" when it passed.
std::string signature_of(const RunResult& r, const std::string& native_out) {
    static const std::regex assertion(
        R"(valgrind: (?:\S+/)?([^/\s]+:\d+) \(([^)]*)\): (Assertion '.*' failed\.?))");
    static const std::regex frame(R"((?:at|by) 0x[0-9A-Fa-f]+: (\S+) \(([^)]*)\))");
    static const std::regex client_signal(
        R"(Process terminating with default action of signal (\d+) \((\w+)\))");
    if (r.timed_out) return "hang (timeout)";
    std::smatch m;
    if (std::regex_search(r.err, m, assertion))
        return m[1].str() + " (" + m[2].str() + "): " + m[3].str();
    // The first frame of Valgrind's own stack after a crash or panic.
    const std::size_t impossible = r.err.find("the 'impossible' happened");
    if (impossible != std::string::npos) {
        std::string reason = r.err.substr(impossible);
        reason = reason.substr(0, reason.find("host stacktrace"));
        std::string what = "impossible";
        static const std::regex received(R"(received a signal \d+ \((\w+)\))");
        if (reason.find("Killed by fatal signal") != std::string::npos) {
            std::smatch sm;
            what = std::regex_search(r.err, sm, received) ? sm[1].str() : "fatal signal";
        } else {
            const std::size_t nl = reason.find('\n');
            what = nl != std::string::npos ? reason.substr(nl + 1) : reason;
            what = what.substr(0, what.find('\n'));
            what.erase(0, what.find_first_not_of(" \t"));
        }
        const std::size_t stack = r.err.find("host stacktrace", impossible);
        if (stack != std::string::npos) {
            std::string rest = r.err.substr(stack);
            for (std::sregex_iterator it(rest.begin(), rest.end(), frame), end; it != end; ++it) {
                const std::string fn = (*it)[1].str();
                if (fn.find("assert") != std::string::npos ||
                    fn.find("panic") != std::string::npos ||
                    fn.find("show_sched") != std::string::npos ||
                    fn.find("report_and_quit") != std::string::npos ||
                    fn.find("sync_signalhandler") != std::string::npos || fn == "???")
                    continue;
                return what + " in " + fn + " (" + (*it)[2].str() + ")";
            }
        }
        return what;
    }
    if (r.err.find("out of memory") != std::string::npos) return "out of memory";
    const std::size_t internal = r.err.find("internal error");
    if (internal != std::string::npos) {
        const std::size_t bol = r.err.rfind('\n', internal) + 1;
        std::string line = r.err.substr(bol, r.err.find('\n', internal) - bol);
        line.erase(0, line.find_first_not_of("=0123456789 -"));
        return line;
    }
    if (std::regex_search(r.err, m, client_signal)) {
        std::string where;
        const std::string rest = m.suffix().str();
        std::smatch f;
        if (std::regex_search(rest, f, frame))
            where = " at " + f[1].str() + " (" + f[2].str() + ")";
        return "client killed by " + m[2].str() + where;
    }
    if (WIFSIGNALED(r.status)) return "killed by signal " + std::to_string(WTERMSIG(r.status));
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != kClientExit)
        return "exit status " + std::to_string(WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1);
    if (r.out != native_out) return "client output differs from the native run";
    return "";
}

/// With --strict-readers: the text of the first reader failure that the
/// core's guard (jitguard.c) caught in r, a failed check or a fault inside
/// an upstream reader ("a failed check: 'dstxa' at ..."), or "".  Such an
/// input no longer kills Valgrind, but it reached a reader bug that part 1
/// of the series should fix at its root.
std::string guard_catch_of(const RunResult& r) {
    static const std::regex caught(
        R"((a failed check: [^\n]*|a fault \(signal \d+ at address [^)]*\)))");
    std::smatch m;
    if (std::regex_search(r.err, m, caught)) return "caught by the guard: " + m[1].str();
    return "";
}

}  // namespace

std::vector<std::string> Campaign::valgrind_argv(const std::string& tool,
                                                 const std::string& list) const {
    std::vector<std::string> a = {o.valgrind};
    for (const std::string& x : tool_args(tool)) a.push_back(x);
    a.push_back(o.client);
    a.push_back(list);
    return a;
}

void Campaign::write_cases(const std::vector<Case>& cases, const fs::path& dir) const {
    fs::create_directories(dir);
    std::string list;
    std::set<std::string> texts;
    for (const Case& c : cases) {
        const std::string input = c.family + "-" + std::to_string(c.number) + ".in";
        write_file(dir / input, c.input);
        const std::string text = c.seed + ".text";
        if (texts.insert(text).second) write_file(dir / text, c.s->text);
        list += c.id() + " " + c.family + " " + text + " " + std::to_string(c.s->entry) + " " +
                input + " " + std::to_string(c.arg) + "\n";
    }
    write_text(dir / "list", list);
}

std::string Campaign::run_list(const fs::path& dir, const std::string& tool, std::string* log) {
    const RunResult native = run({o.client, "list"}, dir, o.timeout, "native");
    if (native.timed_out || !WIFEXITED(native.status) || WEXITSTATUS(native.status) != kClientExit)
        throw std::runtime_error("the client fails natively in " + dir.string() + ": " +
                                 native.err);
    const RunResult vg = run(valgrind_argv(tool, "list"), dir, o.timeout, "valgrind");
    ++runs;
    if (vg.err.find("failed to start tool") != std::string::npos)
        throw std::runtime_error("the staged Valgrind cannot start " + tool + " (" + o.valgrind +
                                 ")");
    if (log) *log = vg.err;
    const std::string sig = signature_of(vg, native.out);
    if (sig.empty() && o.strict_readers) return guard_catch_of(vg);
    return sig;
}

std::string Campaign::save_repro(const Case& c, const fs::path& from,
                                 const std::string& sig) const {
    const fs::path dir =
        fs::path(o.repro) / (c.family + "-" + std::to_string(c.number) + "-" + c.tool);
    fs::remove_all(dir);
    write_cases({c}, dir);
    write_text(dir / "tool", c.tool + "\n");
    write_text(dir / "signature", sig + "\n");
    write_text(dir / "mutation", "seed " + c.seed + ", campaign seed " + std::to_string(o.seed) +
                                     ", case " + c.id() + ": " + c.mutation + "\n");
    if (fs::exists(from / "valgrind.stderr"))
        fs::copy_file(from / "valgrind.stderr", dir / "valgrind.log",
                      fs::copy_options::overwrite_existing);
    std::string sh = "#!/bin/sh\n# Reproduces " + c.id() + " under " + c.tool + ": " + sig +
                     "\ncd \"$(dirname \"$0\")\" && exec \"${VALGRIND:-" + o.valgrind + "}\"";
    for (const std::string& a : tool_args(c.tool)) sh += " " + a;
    sh += " \"${HOSTILE_CLIENT:-../hostile_client}\" list\n";
    write_text(dir / "run.sh", sh);
    fs::permissions(dir / "run.sh",
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    return fs::absolute(dir).string();
}

void Campaign::record(const Case& c, const std::string& sig, const std::string& repro,
                      const std::string& stack) {
    std::lock_guard<std::mutex> g(mu);
    Failure f{c.id(), c.tool, c.seed, c.mutation, sig, repro, known.count(c.id()) ? "known" : ""};
    std::printf("%s %s %s seed=%s sig=\"%s\" from=\"%s\" mutation=\"%s\" repro=%s\n",
                f.known.empty() ? "FAIL" : "XFAIL", f.id.c_str(), f.tool.c_str(), f.seed.c_str(),
                sig.c_str(), stack.c_str(), c.mutation.c_str(), repro.c_str());
    std::fflush(stdout);
    failures.push_back(f);
}

void Campaign::run_batch(const std::vector<Case>& batch, std::size_t index) {
    const fs::path dir = fs::path(o.out) / "work" / ("b" + std::to_string(index));
    fs::remove_all(dir);
    write_cases(batch, dir);
    const std::string sig = run_list(dir, batch.front().tool, nullptr);
    total += batch.size();
    if (o.verbose) {
        std::lock_guard<std::mutex> g(mu);
        std::printf("run %s..%s %s: %s\n", batch.front().id().c_str(), batch.back().id().c_str(),
                    batch.front().tool.c_str(), sig.empty() ? "pass" : sig.c_str());
    }
    if (sig.empty()) {
        passed += batch.size();
        for (const Case& c : batch) note_passed(c.id());
        if (!o.keep) fs::remove_all(dir);
        return;
    }
    // Halves of the batch, recursively, down to one case per process,
    // to name the culprits.
    if (batch.size() == 1) {
        record(batch.front(), sig, save_repro(batch.front(), dir, sig),
               host_stack(read_text(dir / "valgrind.stderr")));
        return;
    }
    if (!bisect(batch, dir)) {
        Case whole = batch.front();
        whole.mutation = "only together with the rest of its batch, up to " + batch.back().id();
        record(whole, sig + " (batch)", fs::absolute(dir).string(),
               host_stack(read_text(dir / "valgrind.stderr")));
    }
}

bool Campaign::bisect(const std::vector<Case>& cases, const fs::path& dir) {
    const std::size_t mid = cases.size() / 2;
    bool named = false;
    for (int h = 0; h < 2; ++h) {
        const std::vector<Case> half(cases.begin() + (h ? static_cast<long>(mid) : 0),
                                     h ? cases.end() : cases.begin() + static_cast<long>(mid));
        const fs::path sub =
            dir / (half.front().family + "-" + std::to_string(half.front().number) + "-" +
                   std::to_string(half.size()));
        write_cases(half, sub);
        const std::string s = run_list(sub, half.front().tool, nullptr);
        if (s.empty()) {
            passed += half.size();
            for (const Case& c : half) note_passed(c.id());
        } else if (half.size() == 1) {
            named = true;
            record(half.front(), s, save_repro(half.front(), sub, s),
                   host_stack(read_text(sub / "valgrind.stderr")));
        } else {
            if (!bisect(half, sub)) {
                Case whole = half.front();
                whole.mutation =
                    "only together with the rest of its run, up to " + half.back().id();
                record(whole, s + " (batch)", fs::absolute(sub).string(),
                       host_stack(read_text(sub / "valgrind.stderr")));
            }
            named = true;
        }
    }
    return named;
}

void Campaign::note_passed(const std::string& id) {
    if (!known.count(id)) return;
    std::lock_guard<std::mutex> g(mu);
    passed_known.insert(id);
}

void Campaign::replay(const fs::path& dir) {
    std::string tool = read_text(dir / "tool");
    tool.erase(tool.find_last_not_of(" \n") + 1);
    const fs::path work = fs::path(o.out) / "replay" / dir.filename();
    fs::remove_all(work);
    fs::create_directories(work);
    for (const auto& f : fs::directory_iterator(dir))
        if (f.is_regular_file()) fs::copy_file(f.path(), work / f.path().filename());
    const std::string sig = run_list(work, tool, nullptr);
    ++total;
    Case c;
    c.family = "replay";
    const std::string name = dir.filename().string();
    if (sig.empty()) {
        ++passed;
        note_passed(name);
        if (o.verbose) std::printf("pass %s %s\n", name.c_str(), tool.c_str());
        return;
    }
    std::lock_guard<std::mutex> g(mu);
    Failure f{name,
              tool,
              "-",
              "replayed " + dir.string(),
              sig,
              fs::absolute(dir).string(),
              known.count(name) ? "known" : ""};
    std::printf("%s %s %s sig=\"%s\" from=\"%s\" repro=%s\n", f.known.empty() ? "FAIL" : "XFAIL",
                name.c_str(), tool.c_str(), sig.c_str(),
                host_stack(read_text(work / "valgrind.stderr")).c_str(), f.repro.c_str());
    failures.push_back(f);
}

}  // namespace hostile
