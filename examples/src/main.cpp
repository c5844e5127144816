// main.cpp - command-line driver of minijit, the valgrind-jit example JIT.
//
//   minijit [--tier-threshold N] [--no-tier1] [--no-register] [--tier-names]
//           [--no-unwind-info] [--no-bounds-checks] [--inline] [--verbose]
//           FILE.mj [ARGS...]
//
// Exit status: 0 success; 1 error in the program (compile-time
// "FILE:LINE: error: ..." or run-time "FILE:LINE: runtime error: ...") or
// unreadable file; 2 bad command line.

#include "engine.hpp"
#include "parser.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char kUsage[] =
    "usage: minijit [OPTIONS] FILE.mj [ARGS...]\n"
    "\n"
    "Compiles the MiniJit program FILE.mj to x86-64 machine code and runs its\n"
    "function main, passing the integer ARGS as main's parameters.  Jitted\n"
    "code is announced to Valgrind (valgrind/jit.h) with function names, a\n"
    "line table and how to unwind through it, so Valgrind tools name it,\n"
    "annotate FILE.mj and show whole stack traces through it.\n"
    "\n"
    "options:\n"
    "  --tier-threshold N  recompile a function at tier 1 when it has been\n"
    "                      called N times (1..2147483647, default 1000)\n"
    "  --no-tier1          never recompile: run everything at tier 0\n"
    "  --no-register       do not announce jitted code to Valgrind\n"
    "  --tier-names        register tiers as NAME.tier0 / NAME.tier1\n"
    "                      (default: both tiers are registered as NAME)\n"
    "  --no-unwind-info    register code without unwind information (tier-1\n"
    "                      code keeps no frame pointer: stack traces through\n"
    "                      it then lose frames)\n"
    "  --no-bounds-checks  do not check array indexes: an index out of bounds\n"
    "                      reads or writes outside the array (undefined\n"
    "                      behaviour; Memcheck reports it)\n"
    "  --inline            tier 1 inlines calls of small leaf functions and\n"
    "                      registers where (inlined frames in stack traces)\n"
    "  --verbose           log compilations, tier-ups and code frees on stderr\n"
    "  --help              show this help and exit\n"
    "\n"
    "exit status: 0 success, 1 error in the program, 2 bad command line\n";

int usage_error(const std::string& msg) {
    std::fprintf(stderr, "minijit: %s\nTry 'minijit --help' for more information.\n", msg.c_str());
    return 2;
}

bool parse_int(const char* s, long long& out) {
    if (!*s) return false;
    errno = 0;
    char* end = nullptr;
    out = std::strtoll(s, &end, 10);
    return errno == 0 && *end == '\0';
}

// The value of --tier-threshold (v, from "--tier-threshold=V" or the next
// argument) into opts; the exit status if it is not in 1..2147483647.
std::optional<int> set_tier_threshold(const char* v, minijit::Options& opts) {
    long long n = 0;
    if (!parse_int(v, n) || n < 1 || n > 2147483647LL)
        return usage_error(std::string("invalid --tier-threshold '") + v +
                           "' (expected 1..2147483647)");
    opts.tier_threshold = static_cast<std::uint64_t>(n);
    return std::nullopt;
}

// The options from argv[i] on into opts, `i` left at the first argument
// that is not one (after "--", if given); the exit status if main is to
// stop (--help, a bad option).
std::optional<int> parse_options(int argc, char** argv, minijit::Options& opts, int& i) {
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "--tier-threshold" || a.rfind("--tier-threshold=", 0) == 0) {
            const char* v = nullptr;
            if (a == "--tier-threshold") {
                if (++i >= argc) return usage_error("--tier-threshold needs a value");
                v = argv[i];
            } else {
                v = argv[i] + std::strlen("--tier-threshold=");
            }
            if (std::optional<int> status = set_tier_threshold(v, opts)) return status;
        } else if (a == "--no-tier1") {
            opts.tier1 = false;
        } else if (a == "--no-register") {
            opts.register_code = false;
        } else if (a == "--tier-names") {
            opts.tier_names = true;
        } else if (a == "--no-unwind-info") {
            opts.unwind_info = false;
        } else if (a == "--no-bounds-checks") {
            opts.bounds_checks = false;
        } else if (a == "--inline") {
            opts.inline_leaves = true;
        } else if (a == "--verbose" || a == "-v") {
            opts.verbose = true;
        } else if (a == "--") {
            ++i;
            break;
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("unknown option '" + a + "'");
        } else {
            break;
        }
    }
    return std::nullopt;
}

// The program's arguments argv[i..argc) into args; the exit status if one
// is not a 64-bit integer.
std::optional<int> parse_program_args(int argc, char** argv, int i,
                                      std::vector<std::int64_t>& args) {
    for (; i < argc; ++i) {
        long long v = 0;
        if (!parse_int(argv[i], v))
            return usage_error(std::string("program argument '") + argv[i] +
                               "' is not a 64-bit integer");
        args.push_back(v);
    }
    return std::nullopt;
}

// Reads, compiles and runs the program in file `path` with `args`; its
// exit status.
int run_file(const std::string& path, const std::vector<std::int64_t>& args,
             const minijit::Options& opts) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "minijit: error: cannot open '%s': %s\n", path.c_str(),
                     std::strerror(errno));
        return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();

    minijit::Program prog;
    try {
        prog = minijit::parse_program(path, text.str());
    } catch (const minijit::CompileError& e) {
        std::fprintf(stderr, "%s:%d: error: %s\n", path.c_str(), e.line(), e.what());
        return 1;
    }
    const minijit::Function& main_fn = *prog.functions[prog.main_index];
    if (static_cast<int>(args.size()) != main_fn.num_params) {
        std::fprintf(
            stderr,
            "%s:%d: error: 'main' takes %d argument%s but %zu %s given on the command line\n",
            path.c_str(), main_fn.line, main_fn.num_params, main_fn.num_params == 1 ? "" : "s",
            args.size(), args.size() == 1 ? "was" : "were");
        return 1;
    }
    try {
        minijit::Engine engine(prog, opts);
        return engine.run(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "minijit: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    minijit::Options opts;
    int i = 1;
    if (std::optional<int> status = parse_options(argc, argv, opts, i)) return *status;
    if (i >= argc) return usage_error("no program file given");
    const std::string path = argv[i++];
    std::vector<std::int64_t> args;
    if (std::optional<int> status = parse_program_args(argc, argv, i, args)) return *status;
    return run_file(path, args, opts);
}
