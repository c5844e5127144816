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

namespace {

using Fn = int (*)(int);
const std::size_t kPage = 4096;

/// A page of six functions of 16 bytes each: mov eax, edi; ret (returns
/// its argument); nullptr if it cannot be made.
unsigned char* make_functions() {
    static const unsigned char body[] = {0x89, 0xf8, 0xc3};
    auto* mem = static_cast<unsigned char*>(
        mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (mem == MAP_FAILED) return nullptr;
    for (int i = 0; i < 6; ++i) std::memcpy(mem + 16 * i, body, sizeof body);
    if (mprotect(mem, kPage, PROT_READ | PROT_EXEC) != 0) return nullptr;
    return mem;
}

/// Function `i` of make_functions()' page `mem`.
Fn function(unsigned char* mem, int i) {
    Fn f;
    void* p = mem + 16 * i;
    std::memcpy(&f, &p, sizeof f);
    return f;
}

// 1. Lifetime: the scoped handle unregisters when its scope ends.
int lifetime(unsigned char* mem, const std::vector<std::pair<int, int>>& lines) {
    int sum = 0;
    mark("scope-begin");
    {
        vj::registration r({mem, 3, "hpp_scoped", "hpp-object", "hpp.src"}, lines);
        report("scoped", r);
        sum += function(mem, 0)(1);
        mark("scope-last");
    }
    mark("scope-end");
    return sum;
}

// 2. Moves: a -> b -> c; only c unregisters, when its scope ends.
int moves(unsigned char* mem, const OwnLine (&own)[1]) {
    int sum = 0;
    {
        vj::registration a({mem + 16, 3, "hpp_moved", "", "moved.src"}, own);
        vj::registration b(std::move(a));
        report("moved-from", a);
        {
            vj::registration c(std::move(b));
            report("moved-from-again", b);
            report("moved-to", c);
            sum += function(mem, 1)(2);
            mark("c-last");
        }
        mark("c-gone");
    }
    mark("ab-gone");
    return sum;
}

// 3. Move assignment: the old code is unregistered at the assignment;
//    reset() unregisters the new one.
void move_assignment(unsigned char* mem) {
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
}

// 4. New code at the same start: Valgrind replaces it, the handle keeps
//    only the new registration and unregisters it once.
int same_start(unsigned char* mem) {
    int sum = 0;
    {
        vj::registration e({mem + 64, 3, "hpp_v1"});
        e = vj::registration({mem + 64, 3, "hpp_v2"});
        report("same-start", e);
        sum += function(mem, 4)(3);
        mark("e-last");
    }
    mark("e-gone");
    return sum;
}

// 5. Refused requests leave an empty handle with the reason.
void refused(unsigned char* mem, const std::array<vj::line_entry, 1>& one) {
    vj::registration bad_range({mem + 80, 0, "hpp_empty"}, one);
    report("size-0", bad_range);
    vj::registration bad_name({mem + 80, 3, std::string_view("a\0b", 3)});
    report("nul-in-name", bad_name);
}

// 6. Unwind descriptions go with the registration: a fixed frame (the
//    return address at rsp throughout) is taken, a misaligned one
//    refused.
void unwind_descriptions(unsigned char* mem) {
    vj::registration shape(
        {mem + 80, 3, "hpp_fixed_frame", {}, {}, vj::unwind_info::fixed_frame(0, 0)});
    report("fixed-frame", shape);
    vj::registration bad(
        {mem + 80, 3, "hpp_bad_frame", {}, {}, vj::unwind_info::fixed_frame(0, 7)});
    report("misaligned-frame", bad);
}

}  // namespace

int main() {
    unsigned char* mem = make_functions();
    if (!mem) return 1;

    std::printf("api_version %lu\n", vj::api_version());
    int sum = 0;
    // The line tables exist before counting starts: only the layer's own
    // allocations are counted.
    const std::vector<std::pair<int, int>> lines = {{0, 41}, {2, 42}};
    const OwnLine own[] = {{0, 7}};
    const std::array<vj::line_entry, 1> one = {{{0, 1}}};
    g_counting = true;
    sum += lifetime(mem, lines);
    sum += moves(mem, own);
    move_assignment(mem);
    sum += same_start(mem);
    refused(mem, one);
    unwind_descriptions(mem);
    g_counting = false;
    mark("end");
    std::printf("allocations while registering: %lu\n", g_allocations);
    std::printf("sum %d\n", sum);
    munmap(mem, kPage);
    return 0;
}
