// jitbench: the client program of `make bench` (see bench/vgbench.cpp,
// which runs it natively and under the patched and the stock Valgrind).
//
// It emits N tiny x86-64 functions (16 bytes each: `mov eax, i; ret`) into
// one anonymous executable mapping and then exercises one part of the JIT
// code registry.  Each mode times only its own loop with CLOCK_MONOTONIC
// (Valgrind's start-up and the code emission are not counted) and prints
// its results to stdout as `key=value` lines, which the driver parses:
//
//   register N jit|discard|request|unregister|none [keep]
//        one request per function, all N live at once:
//          jit      VALGRIND_JIT_REGISTER(code_i, 16, name_i)
//          discard  VALGRIND_DISCARD_TRANSLATIONS(code_i, 16) (what a JIT
//                   already issues today when it emits code)
//          request  RUNNING_ON_VALGRIND: the cheapest client request, which
//                   the core answers without any work (the floor that
//                   every request pays to leave the client's code)
//          unregister  every function registered first (not timed), then
//                   VALGRIND_JIT_UNREGISTER(code_i) for each (timed)
//          none     no request (the loop and its loads only)
//        Names are 24 characters ("jitbench_fn_%012u"), built before the
//        timed loop in every mode.  Prints loop_ns, vmhwm_kb (peak resident
//        memory of the whole process, from /proc/self/status: under
//        Valgrind that includes Valgrind's own memory) and ok (requests
//        that returned nonzero).  Then it unmaps the code (which drops
//        every registration inside) and prints unmap_ns; with `keep` it
//        leaves the code mapped (for profiling the loop alone).
//   calls N reg|noreg
//        registers every function (reg) or none (noreg), then calls each
//        once; the timed loop is the calls only, so under a tool it holds
//        the translation, instrumentation and name lookup of N new
//        functions.  Prints loop_ns, loop_user_ns and loop_sys_ns (the
//        process's user and system CPU time spent in the loop, from
//        getrusage: under Valgrind that is Valgrind's own work, and the
//        system part is mostly the kernel clearing the pages Valgrind's
//        new memory is faulted in with), sum (a checksum of the
//        results) and vmhwm_kb (peak resident memory after the loop).
//   mprotect N flip|fresh
//        makes memory executable N times and runs a `ret` there: one page
//        flipped between writable and executable (flip), or a new page
//        mapped, made executable, called and unmapped each time (fresh).
//        Prints loop_ns (the whole loop).
//   dump N wait|nowait|read
//        writes ./jit-<pid>.dump with a header and N CODE_LOAD records for
//        the N functions, closes it, maps it PROT_READ|PROT_EXEC (which is
//        how a producer tells profilers, and Valgrind, to follow it), then
//        (wait) spins in plain client code, asking after every ~10^5
//        basic blocks whether the last function is registered
//        (VALGRIND_JIT_UNREGISTER returns nonzero once it is), for at
//        most 300 s; (nowait) spins once.  Prints ingest_ns (from the mmap
//        to the moment the last record was seen registered),
//        ingest_user_ns and ingest_sys_ns (the process's user and system
//        CPU time over the same span, getrusage: the system part is the
//        kernel copying the file out and faulting in new memory),
//        ingest_minor_faults (pages the kernel mapped in over the span,
//        getrusage), first_ok, last_ok and file_bytes.  The file is removed
//        before exit; the code stays mapped until the process ends.
//   dump N read
//        natively: writes the same file, then reads it back with pread in
//        pieces of the follower's buffer size (68 KiB), from the page
//        cache as the follower does.  Prints read_ns and file_bytes: the
//        kernel's part of reading the file, which row 5 subtracts from its
//        budget.
//   gdb N
//        N relocatable ELF objects of 10 functions each (the functions of
//        the emitted code, which is already executable), built before the
//        timed loops, handed in through the GDB JIT interface
//        (__jit_debug_descriptor, __jit_debug_register_code; GDB manual,
//        "JIT Compilation Interface") one registration each, as LLVM's
//        MCJIT does, timed (ingest_ns); then every function is called
//        once, timed (loop_ns: under a tool, the translation and the name
//        lookup of 10 N new functions).  Between the two, 2000 distinct
//        functions of this executable are called once, timed (elf_ns: the
//        same for ELF code while the objects are registered).  Prints objects, ingest_ns,
//        loop_ns, elf_fns, elf_ns, sum and vmhwm_kb.
//   late N early|late|freed
//        names N functions in a jitdump file before they run (early: the
//        records are written, and read by Valgrind, first) or after
//        (late: every function runs once unnamed, then the records are
//        written and the process exits at once, so Valgrind reads them at
//        exit and the tool binds them then; freed: as late, but the
//        process waits until Valgrind has read the records, then unmaps
//        the code before it exits, as CPython frees its trampolines, so
//        the tool binds every name from functions the registry keeps
//        after their code went); each function is called once either
//        way.  The file is unlinked once mapped.  Prints sum and
//        file_bytes.  For whole-run time and peak memory, early vs late.
//   touch MIB
//        natively: maps MIB MiB of fresh anonymous memory and writes one
//        byte to each 4 KiB page, timing that loop: what the kernel
//        charges for a page a process touches for the first time
//        (clearing it, and on a virtual machine possibly the host backing
//        it), which Valgrind pays for every page of new memory in the
//        lookup row.  Prints loop_ns and pages.
//   native ITERATIONS
//        natively: a tight loop of VALGRIND_JIT_REGISTER with a compiler
//        barrier, and the same loop without the request.  Prints
//        ns_per_request and ns_per_empty_iteration.
//
// Exit status 0 on success, 2 on a usage or system error.

#include <valgrind/jit.h>

#include <elf.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "../tests/gdb_jit_interface.hpp"
#include "../tests/jitdump_builder.hpp"

namespace {

constexpr std::size_t kFnBytes = 16;  // bytes per emitted function
constexpr std::size_t kNameLen = 24;  // characters per name

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "jitbench: %s\n", msg.c_str());
    std::exit(2);
}

std::uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// User and system CPU time of the whole process so far (getrusage), in ns.
struct CpuTimes {
    std::uint64_t user_ns, sys_ns;
    std::uint64_t minor_faults;  ///< pages the kernel mapped in (ru_minflt)
};
CpuTimes cpu_times() {
    rusage ru{};
    if (getrusage(RUSAGE_SELF, &ru) != 0) die(std::string("getrusage: ") + std::strerror(errno));
    auto ns = [](const timeval& tv) {
        return static_cast<std::uint64_t>(tv.tv_sec) * 1000000000ull +
               static_cast<std::uint64_t>(tv.tv_usec) * 1000ull;
    };
    return {ns(ru.ru_utime), ns(ru.ru_stime), static_cast<std::uint64_t>(ru.ru_minflt)};
}

// Keeps the compiler from moving memory accesses across this point or
// deleting a loop whose effects it cannot see.
inline void barrier() { asm volatile("" ::: "memory"); }

// N functions `mov eax, i; ret` (padded with int3) in one anonymous
// mapping, readable and executable; unmapped on destruction.
class Code {
public:
    explicit Code(std::size_t n) : n_(n), size_(n * kFnBytes) {
        void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die(std::string("mmap code: ") + std::strerror(errno));
        base_ = static_cast<unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) {
            unsigned char* f = base_ + i * kFnBytes;
            std::memset(f, 0xCC, kFnBytes);
            const auto v = static_cast<std::uint32_t>(i);
            f[0] = 0xB8;  // mov eax, imm32
            std::memcpy(f + 1, &v, sizeof v);
            f[5] = 0xC3;  // ret
        }
        if (mprotect(base_, size_, PROT_READ | PROT_EXEC) != 0)
            die(std::string("mprotect code: ") + std::strerror(errno));
    }
    ~Code() { unmap(); }
    Code(const Code&) = delete;
    Code& operator=(const Code&) = delete;

    // Unmaps the code now (Valgrind drops the registrations inside).
    void unmap() {
        if (base_ != nullptr) munmap(base_, size_);
        base_ = nullptr;
    }
    // Leaves the code mapped at exit: the process ends with no munmap.
    void keep() { base_ = nullptr; }

    unsigned char* fn(std::size_t i) const { return base_ + i * kFnBytes; }
    std::size_t count() const { return n_; }

private:
    std::size_t n_;
    std::size_t size_;
    unsigned char* base_;
};

// N NUL-terminated names of kNameLen characters in one buffer.
class Names {
public:
    explicit Names(std::size_t n) : buf_(n * (kNameLen + 1)) {
        for (std::size_t i = 0; i < n; ++i)
            std::snprintf(&buf_[i * (kNameLen + 1)], kNameLen + 1, "jitbench_fn_%012llu",
                          static_cast<unsigned long long>(i % 1000000000000ull));
    }
    const char* operator[](std::size_t i) const { return &buf_[i * (kNameLen + 1)]; }

private:
    std::vector<char> buf_;
};

// Peak resident set of this process in KiB (VmHWM), or -1.
long vmhwm_kb() {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return -1;
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    std::fclose(f);
    return kb;
}

std::size_t parse_count(const char* s) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v == 0 || v > 10000000000ull)
        die(std::string("bad count '") + s + "' (1..10^10)");
    return static_cast<std::size_t>(v);
}

int mode_register(std::size_t n, const std::string& how, bool keep) {
    Code code(n);
    Names names(n);
    unsigned long ok = 0;
    std::uint64_t t0 = 0, t1 = 0;
    if (how == "jit") {
        t0 = now_ns();
        for (std::size_t i = 0; i < n; ++i)
            ok += VALGRIND_JIT_REGISTER(code.fn(i), kFnBytes, names[i]) != 0;
        t1 = now_ns();
    } else if (how == "discard") {
        t0 = now_ns();
        for (std::size_t i = 0; i < n; ++i) {
            VALGRIND_DISCARD_TRANSLATIONS(code.fn(i), kFnBytes);
            // Touch the name as the jit loop does (the request reads it).
            ok += names[i][0] != 0;
        }
        t1 = now_ns();
    } else if (how == "request") {
        t0 = now_ns();
        for (std::size_t i = 0; i < n; ++i)
            ok += (RUNNING_ON_VALGRIND != 0 && names[i][0] != 0) ? 1 : 0;
        t1 = now_ns();
    } else if (how == "unregister") {
        for (std::size_t i = 0; i < n; ++i)
            if (VALGRIND_JIT_REGISTER(code.fn(i), kFnBytes, names[i]) == 0 && RUNNING_ON_VALGRIND)
                die("register: a registration was refused");
        t0 = now_ns();
        for (std::size_t i = 0; i < n; ++i) ok += VALGRIND_JIT_UNREGISTER(code.fn(i)) != 0;
        t1 = now_ns();
    } else if (how == "none") {
        t0 = now_ns();
        for (std::size_t i = 0; i < n; ++i) {
            barrier();
            ok += names[i][0] != 0 && code.fn(i) != nullptr;
        }
        t1 = now_ns();
    } else {
        die("register: mode must be jit, discard, request, unregister or none");
    }
    const long hwm = vmhwm_kb();
    std::uint64_t t2 = now_ns(), t3 = t2;
    if (keep) {
        code.keep();
    } else {
        code.unmap();
        t3 = now_ns();
    }
    std::printf("loop_ns=%llu\nok=%lu\nvmhwm_kb=%ld\nunmap_ns=%llu\n",
                static_cast<unsigned long long>(t1 - t0), ok, hwm,
                static_cast<unsigned long long>(t3 - t2));
    return 0;
}

int mode_calls(std::size_t n, const std::string& how) {
    if (how != "reg" && how != "noreg") die("calls: mode must be reg or noreg");
    Code code(n);
    if (how == "reg") {
        Names names(n);
        for (std::size_t i = 0; i < n; ++i)
            if (VALGRIND_JIT_REGISTER(code.fn(i), kFnBytes, names[i]) == 0 && RUNNING_ON_VALGRIND)
                die("calls: a registration was refused");
    }
    using Fn = std::uint32_t (*)();
    std::uint64_t sum = 0;
    const CpuTimes c0 = cpu_times();
    const std::uint64_t t0 = now_ns();
    for (std::size_t i = 0; i < n; ++i) sum += reinterpret_cast<Fn>(code.fn(i))();
    const std::uint64_t t1 = now_ns();
    const CpuTimes c1 = cpu_times();
    if (sum != static_cast<std::uint64_t>(n) * (n - 1) / 2) die("calls: wrong checksum");
    std::printf("loop_ns=%llu\nloop_user_ns=%llu\nloop_sys_ns=%llu\nsum=%llu\nvmhwm_kb=%ld\n",
                static_cast<unsigned long long>(t1 - t0),
                static_cast<unsigned long long>(c1.user_ns - c0.user_ns),
                static_cast<unsigned long long>(c1.sys_ns - c0.sys_ns),
                static_cast<unsigned long long>(sum), vmhwm_kb());
    return 0;
}

// Spins in plain client code for about 10^5 basic blocks (one scheduler
// time slice under Valgrind).
void spin() {
    volatile std::uint64_t x = 0;
    for (int i = 0; i < 100000; ++i) x = x + 1;
}

// A jitdump header (version 1) in this machine's byte order.
void jitdump_header(jitdump_test::JitdumpBuilder& b, std::uint32_t pid) {
    b.header(1, pid, now_ns(), 0);
}

// For each function of `code`, a CODE_LOAD record carrying its name and
// code bytes.
void jitdump_loads(jitdump_test::JitdumpBuilder& b, const Code& code, const Names& names,
                   std::uint32_t pid) {
    const std::size_t n = code.count();
    b.bytes.reserve(b.bytes.size() + n * (JITDUMP_CODE_LOAD_FIXED + kNameLen + 1 + kFnBytes));
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* fn = code.fn(i);
        b.code_load(reinterpret_cast<std::uint64_t>(fn), kFnBytes, std::string(names[i], kNameLen),
                    i, i, pid, pid, std::vector<unsigned char>(fn, fn + kFnBytes));
    }
}

void write_bytes(int fd, const jitdump_test::JitdumpBuilder& b, const std::string& path) {
    for (std::size_t off = 0; off < b.bytes.size();) {
        const ssize_t w = write(fd, b.bytes.data() + off, b.bytes.size() - off);
        if (w <= 0) die("write " + path + ": " + std::strerror(errno));
        off += static_cast<std::size_t>(w);
    }
}

// dump N read: reads the file back with pread in pieces of the follower's
// buffer size, natively, and times that.
void time_reading(int fd, std::size_t bytes) {
    std::vector<unsigned char> buf(64 * 1024 + 4096);
    const std::uint64_t t0 = now_ns();
    std::size_t off = 0;
    while (off < bytes) {
        const ssize_t r = pread(fd, buf.data(), buf.size(), static_cast<off_t>(off));
        if (r <= 0) die(std::string("pread: ") + std::strerror(errno));
        off += static_cast<std::size_t>(r);
    }
    const std::uint64_t t1 = now_ns();
    std::printf("read_ns=%llu\nfile_bytes=%zu\n", static_cast<unsigned long long>(t1 - t0), bytes);
}

int mode_dump(std::size_t n, const std::string& how) {
    if (how != "wait" && how != "nowait" && how != "read")
        die("dump: mode must be wait, nowait or read");
    Code code(n);
    Names names(n);
    const auto pid = static_cast<std::uint32_t>(getpid());
    const std::string path = "jit-" + std::to_string(pid) + ".dump";

    jitdump_test::JitdumpBuilder b;
    jitdump_header(b, pid);
    jitdump_loads(b, code, names, pid);
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open " + path + ": " + std::strerror(errno));
    write_bytes(fd, b, path);
    if (how == "read") {
        time_reading(fd, b.bytes.size());
        close(fd);
        unlink(path.c_str());
        return 0;
    }

    const CpuTimes c0 = cpu_times();
    const std::uint64_t t0 = now_ns();
    void* map = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) die("mmap " + path + ": " + std::strerror(errno));
    unsigned long last_ok = 0;
    std::uint64_t t1 = t0;
    for (;;) {
        spin();
        last_ok = VALGRIND_JIT_UNREGISTER(code.fn(n - 1));
        t1 = now_ns();
        if (last_ok != 0 || how == "nowait" || !RUNNING_ON_VALGRIND ||
            t1 - t0 > 300ull * 1000000000ull)
            break;
    }
    const CpuTimes c1 = cpu_times();
    const unsigned long first_ok = VALGRIND_JIT_UNREGISTER(code.fn(0));
    std::printf(
        "ingest_ns=%llu\ningest_user_ns=%llu\ningest_sys_ns=%llu\ningest_minor_faults=%llu\n"
        "first_ok=%lu\nlast_ok=%lu\nfile_bytes=%zu\n",
        static_cast<unsigned long long>(t1 - t0),
        static_cast<unsigned long long>(c1.user_ns - c0.user_ns),
        static_cast<unsigned long long>(c1.sys_ns - c0.sys_ns),
        static_cast<unsigned long long>(c1.minor_faults - c0.minor_faults), first_ok, last_ok,
        b.bytes.size());
    munmap(map, 4096);
    close(fd);
    unlink(path.c_str());
    // Exit with the code still mapped: unmapping it would drop the
    // registrations one by one and add that to the measured run.
    code.keep();
    return 0;
}

// kElfFns distinct functions of this executable (ELF code with symbols),
// for timing the name lookups of ELF code while JIT objects are registered.
constexpr int kElfFns = 2000;
template <int I>
__attribute__((noinline)) int elf_fn(int x) {
    asm volatile("" ::: "memory");
    return x + I;
}
template <int... Is>
constexpr std::array<int (*)(int), sizeof...(Is)> elf_table(std::integer_sequence<int, Is...>) {
    return {&elf_fn<Is>...};
}
constexpr auto kElfTable = elf_table(std::make_integer_sequence<int, kElfFns>{});

// An ELF64 relocatable object whose .text (sh_addr = the load address, as
// LLVM rewrites it for debuggers) holds `count` functions of kFnBytes at
// `code`, named gdbobj<object>_fn<i> in its .symtab.
std::vector<char> gdb_object(const unsigned char* code, std::size_t count, std::size_t object) {
    std::string strtab(1, '\0');
    std::vector<Elf64_Sym> syms(1);  // the null symbol
    for (std::size_t i = 0; i < count; ++i) {
        Elf64_Sym s{};
        s.st_name = static_cast<Elf64_Word>(strtab.size());
        s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
        s.st_shndx = 1;
        s.st_value = i * kFnBytes;
        s.st_size = kFnBytes;
        syms.push_back(s);
        strtab += "gdbobj" + std::to_string(object) + "_fn" + std::to_string(i);
        strtab += '\0';
    }
    const std::string shstrtab = std::string("\0.text\0.symtab\0.strtab\0.shstrtab\0", 33);
    // Layout: header, symbols, strings, section names, section headers.
    const std::size_t sym_off = sizeof(Elf64_Ehdr);
    const std::size_t str_off = sym_off + syms.size() * sizeof(Elf64_Sym);
    const std::size_t shstr_off = str_off + strtab.size();
    const std::size_t sh_off = (shstr_off + shstrtab.size() + 7) & ~std::size_t(7);
    std::vector<char> img(sh_off + 5 * sizeof(Elf64_Shdr));
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_REL;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_shoff = sh_off;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 5;
    eh.e_shstrndx = 4;
    std::memcpy(img.data(), &eh, sizeof eh);
    std::memcpy(img.data() + sym_off, syms.data(), syms.size() * sizeof(Elf64_Sym));
    std::memcpy(img.data() + str_off, strtab.data(), strtab.size());
    std::memcpy(img.data() + shstr_off, shstrtab.data(), shstrtab.size());
    Elf64_Shdr sh[5]{};
    sh[1].sh_name = 1;  // .text
    sh[1].sh_type = SHT_PROGBITS;
    sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
    sh[1].sh_addr = reinterpret_cast<std::uintptr_t>(code);
    sh[1].sh_size = count * kFnBytes;
    sh[2].sh_name = 7;  // .symtab
    sh[2].sh_type = SHT_SYMTAB;
    sh[2].sh_offset = sym_off;
    sh[2].sh_size = syms.size() * sizeof(Elf64_Sym);
    sh[2].sh_link = 3;
    sh[2].sh_info = 1;
    sh[2].sh_entsize = sizeof(Elf64_Sym);
    sh[3].sh_name = 15;  // .strtab
    sh[3].sh_type = SHT_STRTAB;
    sh[3].sh_offset = str_off;
    sh[3].sh_size = strtab.size();
    sh[4].sh_name = 23;  // .shstrtab
    sh[4].sh_type = SHT_STRTAB;
    sh[4].sh_offset = shstr_off;
    sh[4].sh_size = shstrtab.size();
    std::memcpy(img.data() + sh_off, sh, sizeof sh);
    return img;
}

int mode_gdb(std::size_t n) {
    constexpr std::size_t kPerObject = 10;
    Code code(n * kPerObject);
    std::vector<std::vector<char>> images;
    images.reserve(n);
    for (std::size_t k = 0; k < n; ++k)
        images.push_back(gdb_object(code.fn(k * kPerObject), kPerObject, k));
    std::vector<jit_code_entry> entries(n);
    const std::uint64_t t0 = now_ns();
    for (std::size_t k = 0; k < n; ++k) {
        jit_code_entry& e = entries[k];
        e.symfile_addr = images[k].data();
        e.symfile_size = images[k].size();
        e.prev_entry = nullptr;
        e.next_entry = __jit_debug_descriptor.first_entry;
        if (e.next_entry != nullptr) e.next_entry->prev_entry = &e;
        __jit_debug_descriptor.first_entry = &e;
        __jit_debug_descriptor.relevant_entry = &e;
        __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
        __jit_debug_register_code();
    }
    const std::uint64_t t1 = now_ns();
    // ELF code first called now, with the objects registered (before any
    // of their code ran).
    long elf_sum = 0;
    const std::uint64_t t4 = now_ns();
    for (int i = 0; i < kElfFns; ++i) elf_sum += kElfTable[static_cast<std::size_t>(i)](1);
    const std::uint64_t t5 = now_ns();
    if (elf_sum != static_cast<long>(kElfFns) * (kElfFns - 1) / 2 + kElfFns)
        die("gdb: wrong ELF checksum");
    using Fn = std::uint32_t (*)();
    std::uint64_t sum = 0;
    const std::size_t fns = n * kPerObject;
    const std::uint64_t t2 = now_ns();
    for (std::size_t i = 0; i < fns; ++i) sum += reinterpret_cast<Fn>(code.fn(i))();
    const std::uint64_t t3 = now_ns();
    if (sum != static_cast<std::uint64_t>(fns) * (fns - 1) / 2) die("gdb: wrong checksum");
    std::printf(
        "objects=%zu\ningest_ns=%llu\nloop_ns=%llu\nelf_fns=%d\nelf_ns=%llu\nsum=%llu\n"
        "vmhwm_kb=%ld\n",
        n, static_cast<unsigned long long>(t1 - t0), static_cast<unsigned long long>(t3 - t2),
        kElfFns, static_cast<unsigned long long>(t5 - t4), static_cast<unsigned long long>(sum),
        vmhwm_kb());
    return 0;
}

int mode_late(std::size_t n, const std::string& when) {
    if (when != "early" && when != "late" && when != "freed")
        die("late: mode must be early, late or freed");
    Code code(n);
    Names names(n);
    const auto pid = static_cast<std::uint32_t>(getpid());
    const std::string path = "jit-" + std::to_string(pid) + ".dump";
    jitdump_test::JitdumpBuilder head, loads;
    jitdump_header(head, pid);
    jitdump_loads(loads, code, names, pid);
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open " + path + ": " + std::strerror(errno));
    write_bytes(fd, head, path);
    if (when == "early") write_bytes(fd, loads, path);
    void* map = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) die("mmap " + path + ": " + std::strerror(errno));
    // Valgrind follows the file through its own descriptor from the mmap
    // on: the name can go (no file is left behind).
    unlink(path.c_str());
    if (when == "early" && RUNNING_ON_VALGRIND) {
        // Wait until the last record is registered (the probe removes it:
        // it is registered again under its name).
        const std::uint64_t t0 = now_ns();
        while (VALGRIND_JIT_UNREGISTER(code.fn(n - 1)) == 0 &&
               now_ns() - t0 < 300ull * 1000000000ull)
            spin();
        VALGRIND_JIT_REGISTER(code.fn(n - 1), kFnBytes, names[n - 1]);
    }
    using Fn = std::uint32_t (*)();
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += reinterpret_cast<Fn>(code.fn(i))();
    std::printf("sum=%llu\nfile_bytes=%zu\n", static_cast<unsigned long long>(sum),
                head.bytes.size() + loads.bytes.size());
    std::fflush(stdout);
    if (when == "freed") {
        write_bytes(fd, loads, path);
        // Wait until the last record is registered (the probe removes
        // it), then free the code: every function goes to the registry's
        // archive (unnamed code ran in its pages).
        const std::uint64_t t0 = now_ns();
        while (RUNNING_ON_VALGRIND && VALGRIND_JIT_UNREGISTER(code.fn(n - 1)) == 0 &&
               now_ns() - t0 < 300ull * 1000000000ull)
            spin();
        code.unmap();
        _exit(0);
    }
    // Exit right after the records are written, with the code mapped and
    // the file open: Valgrind reads them at exit.
    code.keep();
    if (when == "late") write_bytes(fd, loads, path);
    _exit(0);
}

int mode_native(std::size_t iters) {
    if (RUNNING_ON_VALGRIND) die("native: must not run under Valgrind");
    Code code(1);
    const char* name = "jitbench_native_function";
    unsigned long sum = 0;
    // Each iteration passes a different address, so nothing can be hoisted.
    auto* base = code.fn(0);
    const std::uint64_t t0 = now_ns();
    for (std::size_t i = 0; i < iters; ++i) {
        sum += VALGRIND_JIT_REGISTER(base + (i & 15), kFnBytes, name);
        barrier();
    }
    const std::uint64_t t1 = now_ns();
    for (std::size_t i = 0; i < iters; ++i) {
        sum += reinterpret_cast<std::uintptr_t>(base + (i & 15)) == 0;
        barrier();
    }
    const std::uint64_t t2 = now_ns();
    std::printf("ns_per_request=%.3f\nns_per_empty_iteration=%.3f\nsum=%lu\n",
                static_cast<double>(t1 - t0) / static_cast<double>(iters),
                static_cast<double>(t2 - t1) / static_cast<double>(iters), sum);
    return 0;
}

}  // namespace

// mprotect N flip|fresh: makes memory executable N times, as JITs that
// announce nothing do, and runs a `ret` there each time: flip (one page
// flipped between writable and executable, a W^X JIT) or fresh (a new
// page each time: mmap, mprotect, call, munmap).  The timed loop is all
// of it.  Prints loop_ns.
int mode_mprotect(std::size_t n, const std::string& how) {
    if (how != "flip" && how != "fresh") die("mprotect: mode must be flip or fresh");
    const std::size_t page = 4096;
    auto map_page = [&]() {
        void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die(std::string("mmap: ") + std::strerror(errno));
        return static_cast<unsigned char*>(p);
    };
    unsigned char* code = how == "flip" ? map_page() : nullptr;
    const std::uint64_t t0 = now_ns();
    for (std::size_t i = 0; i < n; ++i) {
        if (how == "fresh")
            code = map_page();
        else if (mprotect(code, page, PROT_READ | PROT_WRITE) != 0)
            die("mprotect RW");
        code[0] = 0xC3;  // ret
        if (mprotect(code, page, PROT_READ | PROT_EXEC) != 0) die("mprotect RX");
        reinterpret_cast<void (*)()>(code)();
        if (how == "fresh") munmap(code, page);
    }
    const std::uint64_t t1 = now_ns();
    std::printf("loop_ns=%llu\n", static_cast<unsigned long long>(t1 - t0));
    return 0;
}

int mode_touch(std::size_t mib) {
    const std::size_t bytes = mib << 20, page = 4096;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die(std::string("mmap: ") + std::strerror(errno));
    auto* c = static_cast<volatile unsigned char*>(p);
    const std::uint64_t t0 = now_ns();
    for (std::size_t off = 0; off < bytes; off += page) c[off] = 1;
    const std::uint64_t t1 = now_ns();
    munmap(p, bytes);
    std::printf("loop_ns=%llu\npages=%zu\n", static_cast<unsigned long long>(t1 - t0),
                bytes / page);
    return 0;
}

int main(int argc, char** argv) {
    const std::string usage =
        "usage: jitbench register N jit|discard|request|unregister|none [keep] | calls N reg|noreg "
        "|"
        " dump N wait|nowait|read | late N early|late|freed | mprotect N flip|fresh | gdb N | "
        "touch MIB "
        "|"
        " native ITERATIONS";
    if (argc < 3) die(usage);
    const std::string mode = argv[1];
    const std::size_t n = parse_count(argv[2]);
    if (mode == "native" && argc == 3) return mode_native(n);
    if (mode == "touch" && argc == 3) return mode_touch(n);
    if (mode == "gdb" && argc == 3) return mode_gdb(n);
    if (mode == "register" && argc == 5 && std::string(argv[4]) == "keep")
        return mode_register(n, argv[3], true);
    if (argc != 4) die(usage);
    if (mode == "register") return mode_register(n, argv[3], false);
    if (mode == "calls") return mode_calls(n, argv[3]);
    if (mode == "dump") return mode_dump(n, argv[3]);
    if (mode == "late") return mode_late(n, argv[3]);
    if (mode == "mprotect") return mode_mprotect(n, argv[3]);
    die(usage);
}
