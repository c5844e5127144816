// jitdump_producer.hpp: what the sources of jitdump_producer share: its
// code memory, the jitted "sum" functions it emits and runs (their shape
// is in jitdump_producer.cpp's header comment), the jitdump file and perf
// map it writes, and one entry point per mode (jitdump_producer.cpp lists
// the modes and dispatches them; each jitdump_producer_*.cpp holds one
// group).
#pragma once

#include "jitdump_builder.hpp"

#include "xbyak_emit.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace jitdump_producer {

using jitdump_test::DebugEntrySpec;
using jitdump_test::JitdumpBuilder;
using testjit::Emitter;

/// Reports `what` with errno's text on stderr and exits with status 2.
[[noreturn]] inline void die(const char* what) {
    std::fprintf(stderr, "jitdump_producer: %s: %s\n", what, std::strerror(errno));
    std::exit(2);
}

/// Anonymous read/write/execute memory, unmapped on destruction.
class CodeMemory {
public:
    explicit CodeMemory(std::size_t size) : size_(size) {
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("mmap code");
        base_ = static_cast<std::uint8_t*>(p);
    }
    ~CodeMemory() { munmap(base_, size_); }
    CodeMemory(const CodeMemory&) = delete;
    CodeMemory& operator=(const CodeMemory&) = delete;
    std::uint8_t* at(std::size_t offset) const { return base_ + offset; }

private:
    std::uint8_t* base_;
    std::size_t size_;
};

/// A jitted sum function (see jitdump_producer.cpp's header comment) and
/// where its lines start.
struct Fn {
    std::string name;
    std::uint8_t* addr = nullptr;
    std::size_t size = 0;
    std::size_t loop = 0;  ///< offset of the loop (line L+1)
    std::size_t tail = 0;  ///< offset after the loop (line L+2)

    /// Calls the function on n (and p, which only `mover` reads).
    long call(long n, const int* p = nullptr) const {
        return reinterpret_cast<long (*)(long, const int*)>(addr)(n, p);
    }
    /// A copy of the function's code.
    std::vector<unsigned char> bytes() const { return {addr, addr + size}; }
    /// Line table for CODE_DEBUG_INFO: absolute addresses, lines L..L+2.
    std::vector<DebugEntrySpec> lines(std::uint32_t first_line, const std::string& file) const {
        const auto a = reinterpret_cast<std::uint64_t>(addr);
        return {{a, first_line, 0, file},
                {a + loop, first_line + 1, 0, file},
                {a + tail, first_line + 2, 0, file}};
    }
};

/// A function named `name` at `where` with the shape `shape`.
inline Fn named_fn(const std::string& name, std::uint8_t* where,
                   const testjit::EmittedShape& shape) {
    Fn f;
    f.name = name;
    f.addr = where;
    f.size = shape.size;
    f.loop = shape.loop;
    f.tail = shape.tail;
    return f;
}

/// Emits a sum function with constant `k` at `where` (at most 64 bytes);
/// with `read_arg`, it also adds the int at its second argument.
inline Fn emit_sum(const std::string& name, std::uint8_t* where, int k, bool read_arg = false) {
    const Fn f = named_fn(
        name, where, testjit::emit_sum_loop(where, 64, testjit::SumStart::kConstant, k, read_arg));
    std::fprintf(stderr, "fn %s %p %zu\n", name.c_str(), static_cast<void*>(f.addr), f.size);
    return f;
}

/// Spends ~300,000 basic blocks in compiled code, so that Valgrind passes
/// at least one scheduler time slice (where it reads producer files).
void let_time_pass();

/// exit_group(0) issued right here: no library code (not even a PLT
/// stub, whose first lookup could make Valgrind read the files) runs after
/// the caller's last write.
[[noreturn]] void exit_now();

/// CLOCK_MONOTONIC in nanoseconds: the jitdump's timestamps.
inline std::uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec;
}

/// Writes the `n` bytes at `p` to `fd`, all of them (or dies).
inline void write_all(int fd, const unsigned char* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

/// The jitdump file's path: ./jit-<pid>.dump, or $JITDUMP_PRODUCER_PATH
/// with each "{pid}" replaced by the pid, as producers that name the file
/// otherwise do (Bun writes jit-<N>-<pid>.dump); its directory must exist.
inline std::string jitdump_path(std::uint32_t pid) {
    const char* tmpl = std::getenv("JITDUMP_PRODUCER_PATH");
    std::string path = tmpl ? tmpl : "jit-{pid}.dump";
    for (std::size_t at; (at = path.find("{pid}")) != std::string::npos;)
        path.replace(at, 5, std::to_string(pid));
    return path;
}

/// A jitdump file (jitdump_path), written unbuffered with write(2), and
/// mapped PROT_READ|PROT_EXEC while open (what perf's producers do).
class Jitdump {
public:
    /// `flags`: the header's flags (1: JITDUMP_FLAGS_ARCH_TIMESTAMP).
    explicit Jitdump(std::uint64_t flags = 0)
        : Jitdump(jitdump_path(static_cast<std::uint32_t>(getpid())), false, flags) {}
    /// The file `path`, mapped before its header is written if
    /// `map_first` (as JavaScriptCore does).
    Jitdump(const std::string& path, bool map_first, std::uint64_t flags = 0)
        : pid_(static_cast<std::uint32_t>(getpid())),
          tid_(static_cast<std::uint32_t>(syscall(SYS_gettid))) {
        fd_ = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
        if (fd_ < 0) die("open jitdump");
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        if (map_first) map_marker();
        JitdumpBuilder b;
        b.header(1, pid_, now_ns(), flags);
        put(b);
        if (!map_first) map_marker();
    }
    ~Jitdump() {
        munmap(marker_, page_);
        ::close(fd_);
    }
    Jitdump(const Jitdump&) = delete;
    Jitdump& operator=(const Jitdump&) = delete;

    /// Writes `b.bytes` (records built with JitdumpBuilder) to the file.
    void put(const JitdumpBuilder& b) { write_all(fd_, b.bytes.data(), b.bytes.size()); }
    /// Writes only the first `n` bytes of `b`.
    void put_prefix(const JitdumpBuilder& b, std::size_t n) { write_all(fd_, b.bytes.data(), n); }

    JitdumpBuilder load(const Fn& f) {
        JitdumpBuilder b;
        b.code_load(addr(f), f.size, f.name, ++index_, now_ns(), pid_, tid_, f.bytes());
        return b;
    }
    void close_record() {
        JitdumpBuilder b;
        b.code_close(now_ns());
        put(b);
    }
    std::uint32_t pid() const { return pid_; }
    std::uint32_t tid() const { return tid_; }
    std::uint64_t index() const { return index_; }
    static std::uint64_t addr(const Fn& f) { return reinterpret_cast<std::uint64_t>(f.addr); }

private:
    void map_marker() {
        marker_ = mmap(nullptr, page_, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd_, 0);
        if (marker_ == MAP_FAILED) die("mmap jitdump");
    }

    std::uint32_t pid_, tid_;
    int fd_ = -1;
    std::size_t page_ = 0;
    void* marker_ = nullptr;
    std::uint64_t index_ = 0;
};

/// Calls f(n) `times` times; returns the sum of the results.
inline long run(const Fn& f, long n, int times, const int* p = nullptr) {
    long acc = 0;
    for (int i = 0; i < times; ++i) acc += f.call(n, p);
    return acc;
}

/// /tmp/perf-<pid>.map, the perf map of this process.
inline std::string perf_map_path() { return "/tmp/perf-" + std::to_string(getpid()) + ".map"; }

/// The perf map line of `f`: "START SIZE NAME" (hexadecimal numbers).
inline std::string map_line(const Fn& f) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lx %zx %s\n", static_cast<unsigned long>(Jitdump::addr(f)),
                  f.size, f.name.c_str());
    return buf;
}

/// Writes the characters of `s` to `fd`, all of them (or dies).
inline void write_str(int fd, const std::string& s) {
    write_all(fd, reinterpret_cast<const unsigned char*>(s.data()), s.size());
}

/// Writes a map of its own ("warmup-<pid>.map" in the current directory)
/// the way the real perf map is written later, so that the library code
/// (and PLT stubs) that writes a map runs before the real map exists: no
/// lookup of new code then reads the real map before the process exits.
inline void warm_up_map_writing() {
    const int fd = ::open(("warmup-" + std::to_string(getpid()) + ".map").c_str(),
                          O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open warmup map");
    write_str(fd, "0 1 warmup\n");
    ::close(fd);
}

// The modes (jitdump_producer.cpp's header comment says what each does).

// jitdump_producer_records.cpp: jitdump records read while the program runs.
int mode_late();
int mode_late_lookup();
int mode_move();
int mode_truncate();
int mode_garbage();
int mode_counts();
int mode_run_gap();
int mode_junk_names();
int mode_bad_named(const std::string& kind);
int mode_header_after_mapping();
int mode_hold();

// jitdump_producer_perfmap.cpp: perf maps, and where the core must not
// read one.
int mode_perfmap();
int mode_perfmap_symlink();
int mode_perfmap_foreign();

// jitdump_producer_late.cpp: names written before or after the code ran,
// up to the process's exit.
int mode_names(const std::string& when, const std::string& file, const std::string& tail = "");
int mode_leak(const std::string& when, const std::string& how = "");
int mode_chained(const std::string& when);

// jitdump_producer_reuse.cpp: one address hosting two functions in turn,
// and code gone before its name arrives.
int mode_reuse(const std::string& when, const std::string& file);
int mode_reuse_move();
int mode_unmapped(const std::string& when, const std::string& file);

}  // namespace jitdump_producer
