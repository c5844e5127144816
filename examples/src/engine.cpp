// engine.cpp - the MiniJit execution engine.

#include "engine.hpp"
#include "eh_frame.hpp"

#include <xbyak/xbyak.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <sys/resource.h>

namespace minijit {

/// Describes one place where generated code can raise a runtime error.
struct Engine::ErrorSite {
    Engine* engine;
    int line;
    RuntimeErrorKind kind;
    int array;  ///< IndexOutOfBounds: the array
    int func;   ///< the function containing the site
};

/// Describes one `print` statement.
struct Engine::PrintSite {
    Engine* engine;
    const Stmt* stmt;
    int num_values;  ///< expression items (values pushed by the code)
};

namespace vj = valgrind::jit;

std::string jit_status_name(vj::status status) { return std::string(vj::to_string(status)); }

namespace {

std::string absolute_path(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved) return path;
    std::string out(resolved);
    std::free(resolved);
    return out;
}

std::string base_name(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Bytes of native stack generated code may use below the point where the
// engine starts running it: the soft stack limit (at most 8 MiB, Valgrind's
// default main-thread stack size) minus 512 KiB left for the runtime helpers
// and the C library.
std::uintptr_t stack_budget() {
    std::uintptr_t total = 8u << 20;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < total)
        total = rl.rlim_cur;
    const std::uintptr_t reserve = 512u << 10;
    return total > reserve + (64u << 10) ? total - reserve : (64u << 10);
}

}  // namespace

Engine::Engine(const Program& program, const Options& options)
    : prog_(program),
      opts_(options),
      abs_path_(absolute_path(program.path)),
      object_("minijit:" + base_name(program.path)) {
    under_valgrind_ = RUNNING_ON_VALGRIND != 0;
    jit_supported_ = vj::api_version() >= 1;
    if (under_valgrind_ && !jit_supported_ && opts_.register_code)
        std::fprintf(stderr,
                     "minijit: note: this Valgrind has no JIT support (valgrind-jit); "
                     "jitted code will not be named\n");
    for (std::size_t i = 0; i < prog_.functions.size(); ++i) {
        auto fs = std::make_unique<FunctionState>();
        fs->engine = this;
        fs->index = static_cast<int>(i);
        funcs_.push_back(std::move(fs));
    }
    for (const auto& a : prog_.arrays) arrays_.emplace_back(static_cast<std::size_t>(a.size), 0);
}

Engine::~Engine() {
    for (auto& fs : funcs_)
        for (auto& v : fs->versions) forget(*v);
    const vj::status s = retire_stub_registration_.reset();
    if (s != vj::status::ok)
        std::fprintf(stderr, "minijit: warning: unregistering the retire stub failed: %s\n",
                     jit_status_name(s).c_str());
}

void Engine::build_env() {
    env_.program = &prog_;
    for (auto& fs : funcs_) env_.call_slots.push_back(&fs->entry);
    for (auto& a : arrays_) env_.array_bases.push_back(a.data());
    char probe = 0;
    const auto sp = reinterpret_cast<std::uintptr_t>(&probe);
    const std::uintptr_t budget = stack_budget();
    env_.stack_limit = sp > budget ? sp - budget : 0;
    env_.bounds_checks = opts_.bounds_checks;
    env_.inline_leaves = opts_.inline_leaves;
    env_.error_helper = reinterpret_cast<const void*>(&Engine::helper_error);
    env_.print_helper = reinterpret_cast<const void*>(&Engine::helper_print);
    // The code generator calls these while compiling function `compiling_`.
    env_.make_error_site = [this](int line, RuntimeErrorKind kind, int array) -> const void* {
        error_sites_.push_back(ErrorSite{this, line, kind, array, compiling_});
        return &error_sites_.back();
    };
    env_.make_print_site = [this](const Stmt& s) -> const void* {
        int n = 0;
        for (const auto& it : s.items) n += it.is_string ? 0 : 1;
        print_sites_.push_back(PrintSite{this, &s, n});
        return &print_sites_.back();
    };
}

void Engine::compile_retire_stub() {
    // rdi = the CodeVersion to free; rax = the return value of the function
    // whose frame has just been left; [rsp] = its caller's return address.
    // Keeps no frame pointer: its CFI says so.
    struct Stub : Xbyak::CodeGenerator {
        ehframe::FrameCfi cfi;
        Stub(std::size_t cap, std::uint8_t* buf) : CodeGenerator(cap, buf) {
            using namespace Xbyak::util;
            push(rax);  // also aligns rsp to 16 for the call
            cfi.set_cfa_offset(getSize(), 16);
            mov(rax, reinterpret_cast<std::uint64_t>(&Engine::helper_retire));
            call(rax);
            pop(rax);
            cfi.set_cfa_offset(getSize(), 8);
            ret();
        }
    };
    retire_stub_ = CodeBuffer(64);
    {
        Stub stub(retire_stub_.capacity(), retire_stub_.data());
        retire_stub_size_ = stub.getSize();
        const auto code = reinterpret_cast<std::uintptr_t>(retire_stub_.data());
        retire_stub_cfi_addr_ = ehframe::FrameCfi::section_after(code, retire_stub_size_);
        retire_stub_cfi_ = stub.cfi.eh_frame(code, retire_stub_size_, retire_stub_cfi_addr_);
    }
    retire_stub_.make_executable();
    if (opts_.register_code) {
        const vj::unwind_info unwind =
            opts_.unwind_info ? vj::unwind_info::eh_frame_section(
                                    retire_stub_cfi_.data(), retire_stub_cfi_.size(),
                                    reinterpret_cast<const void*>(retire_stub_cfi_addr_))
                              : vj::unwind_info::none();
        retire_stub_registration_ = vj::registration(
            {retire_stub_.data(), retire_stub_size_, "minijit_retire_stub", object_, {}, unwind});
        if (!retire_stub_registration_ && jit_supported_)
            std::fprintf(stderr, "minijit: warning: registering minijit_retire_stub failed: %s\n",
                         jit_status_name(retire_stub_registration_.state()).c_str());
    }
}

std::string Engine::describe_version(const CodeVersion& v) const {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (tier %d) at %p, %zu bytes", v.tier, v.start(), v.code.size);
    return "'" + prog_.functions[v.func]->name + "'" + buf;
}

void Engine::announce(CodeVersion& v) {
    if (!opts_.register_code) return;
    const Function& fn = *prog_.functions[v.func];
    const std::string name =
        opts_.tier_names ? fn.name + ".tier" + std::to_string(v.tier) : fn.name;
    // Tier 0 keeps a frame pointer, tier 1 brings its CFI.
    vj::unwind_info unwind;
    if (opts_.unwind_info && !v.code.eh_frame.empty())
        unwind =
            vj::unwind_info::eh_frame_section(v.code.eh_frame.data(), v.code.eh_frame.size(),
                                              reinterpret_cast<const void*>(v.code.eh_frame_addr));
    else if (opts_.unwind_info && v.code.frame_pointer_prologue)
        unwind = vj::unwind_info::frame_pointer(v.code.frame_pointer_prologue);
    // The calls tier 1 inlined, each called from the function's own file.
    std::vector<vj::inline_call> inlined;
    for (const InlinedCall& c : v.code.inlined)
        inlined.push_back({c.offset,
                           c.size,
                           prog_.functions[c.func]->name,
                           {},
                           static_cast<unsigned long>(c.call_line),
                           vj::inline_call::top});
    // The line table is v.code.lines itself: {offset, line} pairs.
    v.registration = vj::registration(
        vj::code{v.start(), v.code.size, name, object_, abs_path_, unwind}.with_inlines(inlined),
        v.code.lines);
    const vj::status status = v.registration.state();
    if (!jit_supported_) return;
    if (!v.registration)
        std::fprintf(stderr, "minijit: warning: registering %s failed: %s (%d)\n",
                     describe_version(v).c_str(), jit_status_name(status).c_str(),
                     static_cast<int>(status));
    else if (status != vj::status::ok)
        std::fprintf(stderr, "minijit: warning: registering %s: %s (%d)\n",
                     describe_version(v).c_str(), jit_status_name(status).c_str(),
                     static_cast<int>(status));
}

void Engine::forget(CodeVersion& v) {
    if (!v.registration) return;
    const vj::status status = v.registration.reset();
    if (status != vj::status::ok && jit_supported_)
        std::fprintf(stderr, "minijit: warning: unregistering %s failed: %s\n",
                     describe_version(v).c_str(), jit_status_name(status).c_str());
}

void Engine::install(FunctionState& fs, std::unique_ptr<CodeVersion> v) {
    announce(*v);
    if (opts_.verbose) {
        const std::string frame =
            v->code.eh_frame.empty()
                ? std::string("frame pointer")
                : "no frame pointer, " + std::to_string(v->code.eh_frame.size()) + " bytes of CFI";
        std::fprintf(stderr, "minijit: compiled %s, %zu line-table entries, %s%s\n",
                     describe_version(*v).c_str(), v->code.lines.size(), frame.c_str(),
                     v->registration ? ", registered" : "");
    }
    fs.entry = const_cast<void*>(v->start());
    fs.current = v.get();
    fs.versions.push_back(std::move(v));
}

void Engine::tier_up(FunctionState& fs) {
    const Function& fn = *prog_.functions[fs.index];
    if (opts_.verbose)
        std::fprintf(stderr, "minijit: '%s' reached %llu calls: recompiling at tier 1\n",
                     fn.name.c_str(), static_cast<unsigned long long>(fs.calls));
    auto v = std::make_unique<CodeVersion>();
    v->engine = this;
    v->func = fs.index;
    v->tier = 1;
    compiling_ = fs.index;
    v->code = compile_tier1(fn, env_);
    CodeVersion* old = fs.current;
    install(fs, std::move(v));
    // The caller is the old code itself (its prologue), so the old version
    // has at least one live activation: it is freed by retire() when the
    // last one returns.
    old->activation[1] = 1;
}

void Engine::retire(CodeVersion& v) {
    FunctionState& fs = *funcs_[v.func];
    if (opts_.verbose)
        std::fprintf(stderr, "minijit: freeing %s: no activation left\n",
                     describe_version(v).c_str());
    forget(v);
    auto it = std::find_if(fs.versions.begin(), fs.versions.end(),
                           [&](const std::unique_ptr<CodeVersion>& p) { return p.get() == &v; });
    if (it != fs.versions.end()) fs.versions.erase(it);  // unmaps the code
}

void Engine::helper_error(const ErrorSite* site, std::int64_t value) {
    Engine& e = *site->engine;
    e.failure_ = e.runtime_message(*site, value);
    e.jump_out();
}

void Engine::helper_print(const PrintSite* site, const std::int64_t* values) {
    Engine& e = *site->engine;
    int k = 0;
    for (const auto& item : site->stmt->items) {
        if (item.is_string) {
            e.out_ += item.text;
        } else {
            char buf[24];
            auto r = std::to_chars(buf, buf + sizeof buf, values[site->num_values - 1 - k++]);
            e.out_.append(buf, r.ptr);
        }
    }
    e.out_ += '\n';
    if (e.out_.size() >= (1u << 16)) e.flush();
}

void Engine::helper_tier_up(FunctionState* fs) {
    Engine& e = *fs->engine;
    bool failed = false;
    try {
        e.tier_up(*fs);
    } catch (const std::exception& ex) {
        // No exception may unwind through generated code: record it and
        // leave through jump_out() once the handler has finished.
        e.failure_ = e.prog_.path + ":" + std::to_string(e.prog_.functions[fs->index]->line) +
                     ": runtime error: internal error: tier-1 compilation of '" +
                     e.prog_.functions[fs->index]->name + "' failed: " + ex.what() + "\n";
        failed = true;
    }
    if (failed) e.jump_out();
}

void Engine::helper_retire(CodeVersion* version) { version->engine->retire(*version); }

std::string Engine::runtime_message(const ErrorSite& site, std::int64_t value) const {
    std::string msg = prog_.path + ":" + std::to_string(site.line) + ": runtime error: ";
    switch (site.kind) {
    case RuntimeErrorKind::DivisionByZero: msg += "division by zero"; break;
    case RuntimeErrorKind::IndexOutOfBounds: {
        const ArrayDecl& a = prog_.arrays[site.array];
        msg += "index " + std::to_string(value) + " is out of bounds for array '" + a.name +
               "' of size " + std::to_string(a.size);
        break;
    }
    case RuntimeErrorKind::StackOverflow:
        msg += "stack overflow in function '" + prog_.functions[site.func]->name +
               "' (recursion too deep)";
        break;
    }
    return msg + "\n";
}

void Engine::jump_out() { std::longjmp(fail_jump_, 1); }

void Engine::flush() {
    if (!out_.empty()) std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
    std::fflush(stdout);
}

int Engine::run(const std::vector<std::int64_t>& args) {
    if (args.size() > static_cast<std::size_t>(kMaxParams))
        throw std::invalid_argument("too many arguments for main");
    build_env();
    compile_retire_stub();
    const std::uint64_t threshold = opts_.tier1 ? opts_.tier_threshold : 0;
    for (auto& fsp : funcs_) {
        FunctionState& fs = *fsp;
        auto v = std::make_unique<CodeVersion>();
        v->engine = this;
        v->func = fs.index;
        v->tier = 0;
        Tier0Hooks hooks;
        hooks.call_counter = &fs.calls;
        hooks.threshold = threshold;
        hooks.tier_up_helper = reinterpret_cast<const void*>(&Engine::helper_tier_up);
        hooks.tier_up_arg = &fs;
        hooks.activation = v->activation;
        hooks.retire_stub = retire_stub_.data();
        hooks.retire_arg = v.get();
        compiling_ = fs.index;
        v->code = compile_tier0(*prog_.functions[fs.index], env_, hooks);
        install(fs, std::move(v));
    }
    std::int64_t a[kMaxParams] = {0, 0, 0, 0, 0, 0};
    std::copy(args.begin(), args.end(), a);
    using Entry = std::int64_t (*)(std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                   std::int64_t, std::int64_t);
    const auto entry = reinterpret_cast<Entry>(funcs_[prog_.main_index]->entry);
    if (setjmp(fail_jump_) != 0) {
        // A runtime error: generated code called helper_error (or tier-up
        // failed).  Every frame above this one has been abandoned.
        flush();
        std::fputs(failure_.c_str(), stderr);
        return 1;
    }
    entry(a[0], a[1], a[2], a[3], a[4], a[5]);
    flush();
    return 0;
}

}  // namespace minijit
