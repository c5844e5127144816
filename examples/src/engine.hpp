// engine.hpp - the MiniJit execution engine: compiles, tiers up, registers
// jitted code with Valgrind and runs the program.
//
// Part of the valgrind-jit example JIT (minijit).
//
// Life cycle of a function's code:
//   1. At start-up every function is compiled at tier 0 into its own
//      CodeBuffer, announced to Valgrind through a registration handle of
//      <valgrind/jit.hpp> (CodeVersion::registration) with how to unwind
//      through it (tier 0: its frame-pointer prologue; tier 1: its
//      .eh_frame), and its call slot (FunctionState::entry) pointed at it.
//   2. Tier-0 code counts its calls.  The call that makes the count equal to
//      the threshold first calls Engine::tier_up, which compiles tier 1,
//      registers it, re-points the call slot and marks the tier-0 version
//      retired.  That call then finishes in tier-0 code; every later call,
//      including recursive calls made by older tier-0 frames, goes through
//      the slot to tier 1.
//   3. Tier-0 code also counts its live activations.  The return that brings
//      the count of a retired version to zero leaves its frame and
//      tail-jumps to a small permanent stub, which calls Engine::retire:
//      only then, when no frame can execute it any more, is the old code
//      unregistered (the handle's reset()) and unmapped.  Versions still
//      live at exit (or after a runtime error) are freed by the destructor.

#ifndef MINIJIT_ENGINE_HPP
#define MINIJIT_ENGINE_HPP

#include "ast.hpp"
#include "code_buffer.hpp"
#include "codegen.hpp"

#include <valgrind/jit.hpp>

#include <csetjmp>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace minijit {

/// Engine settings (command-line options of minijit).
struct Options {
    /// Calls after which a function is recompiled at tier 1 (1..2^31-1).
    std::uint64_t tier_threshold = 1000;
    /// false: never leave tier 0 (--no-tier1).
    bool tier1 = true;
    /// false: do not announce code to Valgrind (--no-register).
    bool register_code = true;
    /// true: register tier-suffixed names "fib.tier0" / "fib.tier1"
    /// (--tier-names); default: both tiers are registered as "fib".
    bool tier_names = false;
    /// true: log compilations, registrations and frees on stderr (--verbose).
    bool verbose = false;
    /// false: register code without unwind information (--no-unwind-info):
    /// stack traces through tier-1 code then lose frames.
    bool unwind_info = true;
    /// false: do not check array indexes (--no-bounds-checks).
    bool bounds_checks = true;
    /// true: tier 1 inlines small leaf functions (--inline) and tells
    /// Valgrind where (VgJitCode's inline table).
    bool inline_leaves = false;
};

class Engine;

/// One compiled version (tier) of a function.  Owns its code mapping.
struct CodeVersion {
    /// Updated by the version's own code (tier 0): [0] live activations,
    /// [1] retired flag.  See Tier0Hooks::activation.
    std::uint64_t activation[2] = {0, 0};
    Engine* engine = nullptr;
    int func = -1;  ///< index into Program::functions
    int tier = 0;
    CompiledCode code;
    /// The code's registration with Valgrind (empty if not announced, or
    /// natively).  Declared after `code`, so it is destroyed first: the code
    /// is unregistered before it is unmapped.
    valgrind::jit::registration registration;

    const void* start() const { return code.buffer.data(); }
};

/// Per-function runtime state.  `entry` is the call slot all callers jump
/// through; it must stay at a fixed address (the object is never moved).
struct FunctionState {
    void* entry = nullptr;    ///< current code (call slot)
    std::uint64_t calls = 0;  ///< calls made to tier-0 code
    Engine* engine = nullptr;
    int index = -1;
    CodeVersion* current = nullptr;
    /// Every version not yet freed (the current one and retired ones whose
    /// frames are still on the stack).
    std::vector<std::unique_ptr<CodeVersion>> versions;
};

/// Compiles and runs one Program.  Not copyable; one run per engine.
class Engine {
public:
    /// `program` must outlive the engine.  Its `path` (as given by the
    /// user) prefixes runtime diagnostics; the registrations use the
    /// absolute form of it as source file and "minijit:<basename>" as
    /// object name.
    Engine(const Program& program, const Options& options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    /// Compiles every function at tier 0 and calls main with `args` (as
    /// many as main has parameters).  Flushes the program's output.
    /// Returns 0 on success; on a runtime error prints
    /// "FILE:LINE: runtime error: ..." on stderr and returns 1.
    int run(const std::vector<std::int64_t>& args);

    // Entry points of the runtime helpers called from generated code.
    struct ErrorSite;
    struct PrintSite;
    [[noreturn]] static void helper_error(const ErrorSite* site, std::int64_t value);
    static void helper_print(const PrintSite* site, const std::int64_t* values);
    static void helper_tier_up(FunctionState* fs);
    static void helper_retire(CodeVersion* version);

private:
    void build_env();
    void compile_retire_stub();
    void install(FunctionState& fs, std::unique_ptr<CodeVersion> v);
    void announce(CodeVersion& v);
    void forget(CodeVersion& v);
    void tier_up(FunctionState& fs);
    void retire(CodeVersion& v);
    void flush();
    [[noreturn]] void jump_out();
    std::string runtime_message(const ErrorSite& site, std::int64_t value) const;
    std::string describe_version(const CodeVersion& v) const;

    const Program& prog_;
    Options opts_;
    std::string abs_path_;
    std::string object_;
    bool under_valgrind_ = false;
    bool jit_supported_ = false;
    std::vector<std::unique_ptr<FunctionState>> funcs_;
    std::vector<std::vector<std::int64_t>> arrays_;
    std::deque<ErrorSite> error_sites_;
    std::deque<PrintSite> print_sites_;
    CodegenEnv env_;
    CodeBuffer retire_stub_;
    std::size_t retire_stub_size_ = 0;
    std::vector<unsigned char> retire_stub_cfi_;  ///< built for retire_stub_cfi_addr_
    std::uintptr_t retire_stub_cfi_addr_ = 0;
    valgrind::jit::registration retire_stub_registration_;  ///< after retire_stub_
    int compiling_ = -1;   ///< function being compiled (error sites)
    std::string out_;      ///< buffered program output
    std::string failure_;  ///< runtime error message for run()
    std::jmp_buf fail_jump_;
};

/// Name of a status for messages ("not_code", ...): valgrind::jit::to_string.
std::string jit_status_name(valgrind::jit::status status);

}  // namespace minijit

#endif
