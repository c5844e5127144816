// jithpp_client.cpp: a client of <valgrind/jit.hpp>, run natively and under
// the staged Valgrind by integration_jithpp.  It registers x86-64 code
// through valgrind::jit::registration handles and marks the points between
// which each handle must (or must not) unregister its code: a marker is
// printed to stdout and, under Valgrind, into Valgrind's log
// (VALGRIND_PRINTF), so the order against --trace-jit=yes lines is exact.
// It also counts the allocations made while registering (operator new is
// replaced), which must be 0 natively.
#include <valgrind/jit.hpp>

#include <sys/mman.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace vj = valgrind::jit;

namespace {

unsigned long g_allocations = 0;
bool g_counting = false;

void mark(const char* what) {
    std::printf("mark %s\n", what);
    std::fflush(stdout);
    if (RUNNING_ON_VALGRIND) VALGRIND_PRINTF("mark %s\n", what);
}

void report(const char* what, const vj::registration& r) {
    std::printf("%s: registered %d, state %s\n", what, r.registered() ? 1 : 0,
                std::string(vj::to_string(r.state())).c_str());
}

/// A JIT's own line-table entry type, with the member names jit.hpp looks for.
struct OwnLine {
    unsigned offset;
    unsigned line;
};

}  // namespace

// The replacements pair malloc with free; GCC's -Wmismatched-new-delete
// cannot see that operator new here is malloc and warns about free().
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    if (g_counting) ++g_allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (g_counting) ++g_allocations;
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

int main() {
    // Six functions of 16 bytes each: mov eax, edi; ret (returns its argument).
    static const unsigned char body[] = {0x89, 0xf8, 0xc3};
    const std::size_t page = 4096;
    auto* mem = static_cast<unsigned char*>(
        mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (mem == MAP_FAILED) return 1;
    for (int i = 0; i < 6; ++i) std::memcpy(mem + 16 * i, body, sizeof body);
    if (mprotect(mem, page, PROT_READ | PROT_EXEC) != 0) return 1;
    using Fn = int (*)(int);
    auto fn = [&](int i) {
        Fn f;
        void* p = mem + 16 * i;
        std::memcpy(&f, &p, sizeof f);
        return f;
    };

    std::printf("api_version %lu\n", vj::api_version());
    int sum = 0;
    // The line tables exist before counting starts: only the layer's own
    // allocations are counted.
    const std::vector<std::pair<int, int>> lines = {{0, 41}, {2, 42}};
    const OwnLine own[] = {{0, 7}};
    const std::array<vj::line_entry, 1> one = {{{0, 1}}};
    g_counting = true;

    // 1. Lifetime: the scoped handle unregisters when its scope ends.
    mark("scope-begin");
    {
        vj::registration r({mem, 3, "hpp_scoped", "hpp-object", "hpp.src"}, lines);
        report("scoped", r);
        sum += fn(0)(1);
        mark("scope-last");
    }
    mark("scope-end");

    // 2. Moves: a -> b -> c; only c unregisters, when its scope ends.
    {
        vj::registration a({mem + 16, 3, "hpp_moved", "", "moved.src"}, own);
        vj::registration b(std::move(a));
        report("moved-from", a);
        {
            vj::registration c(std::move(b));
            report("moved-from-again", b);
            report("moved-to", c);
            sum += fn(1)(2);
            mark("c-last");
        }
        mark("c-gone");
    }
    mark("ab-gone");

    // 3. Move assignment: the old code is unregistered at the assignment;
    //    reset() unregisters the new one.
    {
        vj::registration d({mem + 32, 3, "hpp_assign_old"});
        mark("assign-before");
        d = vj::registration({mem + 48, 3, "hpp_assign_new", {}, "assign.src"}, {{0, 1}});
        mark("assign-after");
        report("assigned", d);
        const vj::status s = d.reset();
        std::printf("reset: %s, registered %d\n", std::string(vj::to_string(s)).c_str(),
                    d.registered() ? 1 : 0);
        mark("reset-after");
    }
    mark("d-gone");

    // 4. New code at the same start: Valgrind replaces it, the handle keeps
    //    only the new registration and unregisters it once.
    {
        vj::registration e({mem + 64, 3, "hpp_v1"});
        e = vj::registration({mem + 64, 3, "hpp_v2"});
        report("same-start", e);
        sum += fn(4)(3);
        mark("e-last");
    }
    mark("e-gone");

    // 5. Refused requests leave an empty handle with the reason.
    {
        vj::registration bad_range({mem + 80, 0, "hpp_empty"}, one);
        report("size-0", bad_range);
        vj::registration bad_name({mem + 80, 3, std::string_view("a\0b", 3)});
        report("nul-in-name", bad_name);
    }
    // 6. Unwind descriptions go with the registration: a fixed frame (the
    //    return address at rsp throughout) is taken, a misaligned one
    //    refused.
    {
        vj::registration shape(
            {mem + 80, 3, "hpp_fixed_frame", {}, {}, vj::unwind_info::fixed_frame(0, 0)});
        report("fixed-frame", shape);
        vj::registration bad(
            {mem + 80, 3, "hpp_bad_frame", {}, {}, vj::unwind_info::fixed_frame(0, 7)});
        report("misaligned-frame", bad);
    }
    g_counting = false;
    mark("end");
    std::printf("allocations while registering: %lu\n", g_allocations);
    std::printf("sum %d\n", sum);
    munmap(mem, page);
    return 0;
}
