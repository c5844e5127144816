// jitdump_producer: a test JIT that describes its code the way JITs do for
// Linux perf, not through <valgrind/jit.h>: a jitdump file jit-<pid>.dump in
// the current directory (mapped read+exec, as perf producers map it so that
// profilers notice it) or the text perf map /tmp/perf-<pid>.map.  The
// integration tests (integration_producers.cpp) run it natively and under
// the staged Valgrind and check what the core made of the files.
//
// Usage: jitdump_producer MODE
//   late      run late_fn 1000 x (n = 1000) before its CODE_LOAD record is
//             written, then write the record, then run it 1000 x more
//   late-lookup  like late, but the record is read while Valgrind looks
//             up other new code: late_fn runs 1000 x unnamed; the records
//             of late_fn and next_fn are written; next_fn runs at once
//             (its translation misses a name, which makes Valgrind read
//             the file in the middle of a lookup); time passes; late_fn
//             runs 1000 x more
//   move      CODE_DEBUG_INFO + CODE_LOAD for `mover` at address A, run it;
//             copy its code to B, CODE_MOVE A -> B, run it at B; finally one
//             call at B reads 4 bytes past a malloc'd block (Memcheck error)
//   truncate  three good CODE_LOAD records, then a fourth cut in half (a
//             producer that crashed mid-write); run all four functions
//   garbage   good records with malformed ones between them (name not
//             terminated within total_size, unknown record id, empty name,
//             code_size 0, wrapping range, impossible nr_entry, CODE_MOVE
//             of unknown code)
//   counts    known numbers of each outcome: 3 good CODE_LOADs; 12 refused
//             as overlapping this program's text, 1 at memory that is not
//             executable, 1 with a size above VG_JIT_MAX_CODE_SIZE, 1
//             CODE_MOVE of code nobody loaded; 2 malformed (empty name,
//             code_size 0); 3 without code (CODE_DEBUG_INFO, an unknown
//             id, CODE_CLOSE): 23 records after the header
//   run-gap   five CODE_LOAD records at rising addresses in two writes
//             (the core registers the records of a write together, and
//             one by one when it cannot): run_a and run_e (which ran 10 x
//             before its record was written); then in_gap (its page made
//             read+write: refused as not code), run_c and run_d; then
//             each of the four functions runs 10 x (n = 100)
//   junk-names  what producers write in the wild: a function name with
//             control characters and a byte that is not UTF-8
//             (junk_\x01name\x7f\xff), and a line table one of whose file
//             names is junk (\x01\xfeSY:JS:^): run each 100 x (n = 1000)
//   hold      two functions (hold_a with a 3-entry line table, hold_b) in a
//             jitdump file, and a CODE_LOAD of hold_wait for a page that is
//             not executable (its name waits); hold_kept registered by a
//             client request and unregistered while its code stays (kept);
//             prints "ready" to stderr, then runs until a file "stop"
//             appears in the current directory (at most 120 s), so that a
//             test can query the running process through vgdb
//   header-after-mapping  late_header_a and late_header_b in a jitdump
//             named as JavaScriptCore names them (jit-<N>-<pid>.dump),
//             mapped executable while still empty and only then given
//             its header, as JavaScriptCore does; and empty.bin, mapped
//             executable and never written; each function runs 10 x
//             (n = 100)
//   perfmap   /tmp/perf-<pid>.map written line by line, one line in two
//             writes with code running in between; no jitdump
//   perfmap-symlink  /tmp/perf-<pid>.map is a symlink to a map file in
//             the current directory (must be ignored)
//   perfmap-foreign  /tmp/perf-<pid>.map owned by another user (needs
//             root to chown; prints "skip: ..." to stderr otherwise)
//   names WHEN FILE  a small call graph (names_top calls names_middle 20 x,
//             names_middle calls names_leaf 10 x, then names_top calls the
//             recursive names_fib(10)), announced in FILE = dump (jitdump
//             with CODE_DEBUG_INFO line tables) or map (a perf map, no
//             lines), dump40 (a jitdump whose CODE_DEBUG_INFO addresses
//             are 0x40 past the code, as V8 and LLVM's perf listener write
//             them), WHEN = early (written before the code runs) or late
//             (written after it ran: the jitdump is mapped first and gets
//             its records at the end; the perf map is created at the end
//             and left in place, as HotSpot's -XX:+DumpPerfMapAtExit
//             does).  The profiles of both must agree.
//   names late dump TAIL  as names late dump, and after the records the
//             file gets, still at exit: TAIL = grow, 1 GiB more (1024
//             CODE_LOAD records of 1 MiB of code each, at addresses where
//             nothing is mapped, so each is refused), or corrupt, a record
//             header whose total_size is smaller than a header followed by
//             4 KiB of garbage
//   leak WHEN  names_alloc, announced in a jitdump early or late, returns
//             malloc(24), which the program then loses (Memcheck's leak
//             check must name names_alloc either way)
//   leak WHEN freed-caller  the same, names_alloc called by leak_caller,
//             a jitted function in a mapping of its own, announced before
//             it runs and unmapped after the call (under
//             --keep-debuginfo=yes the leak's stack is then described in
//             the epoch before the unmapping); late: names_alloc's records
//             are written just before the program exits
//   chained WHEN  jd_dispatch(n) jumps (jmp, not call) to jd_chained(n),
//             a sum loop that returns to jd_dispatch's caller, as JITs
//             chain their blocks; called 100 x with n = 50 and announced
//             in a jitdump early or late (as names above)
//   bad-named KIND  ./jit-<pid>.dump that is no jitdump file (KIND =
//             garbage: a line of text; short: 20 bytes of a header), mapped
//             read+exec; then bad_fn (k = 5) runs 10 x (n = 100)
//   reuse WHEN FILE  one address hosts two functions in turn: reuse_a
//             (k = 1) is emitted at X and called 30 x with n = 40, then
//             reuse_b (k = 2) is emitted over it at X and called 50 x with
//             n = 25.  Each record is made when its code is emitted (its
//             CODE_LOAD timestamp is then, CLOCK_MONOTONIC) and written
//             then (WHEN = early), both after the two ran, read while
//             the program still runs (after), or both at exit (late).
//             FILE = dump (a
//             jitdump), dump-tsc (a jitdump whose header flags
//             architecture timestamps), dump-realtime (a jitdump whose
//             timestamps are CLOCK_REALTIME), dump-lines (a jitdump with
//             a CODE_DEBUG_INFO before each CODE_LOAD: reuse_a on lines
//             100-102 of /virtual/reuse_a.src, reuse_b on lines 200-202
//             of /virtual/reuse_b.src), map (a perf map), map-same (a
//             perf map naming both reuse_same)
//   reuse-move  code reuse across a CODE_MOVE: reuse_a (k = 1) at X runs
//             30 x (n = 40); reuse_b (k = 2) at Y runs 50 x (n = 25); then
//             reuse_a's code is copied over reuse_b at Y and runs there
//             20 x (n = 10).  Each record (CODE_LOAD of each, CODE_MOVE
//             X -> Y) is stamped when its code appeared and all are
//             written at exit
//   unmapped WHEN FILE  code that is gone when its name arrives (V8
//             flushes its jitdump's last block after it unmapped its code
//             space): gone_fn (k = 4, lines 40..42) runs 40 x (n = 30),
//             and never_fn, in a mapping of its own, never runs; both
//             mappings are unmapped, and only then are the records written,
//             with gone_fn's line table: WHEN = run (while the program
//             runs, which then goes on) or exit (the last thing it does),
//             FILE = dump (a jitdump) or map (a perf map)
//
// The jitdump file is ./jit-<pid>.dump, or $JITDUMP_PRODUCER_PATH with each
// "{pid}" replaced by the pid (a file named otherwise, as Bun names its).
//
// Every jitted function here is a "sum" function, f(n) = k + n + (n-1) +
// ... + 1 for n >= 1, emitted with xbyak:
//      mov eax, k ; mov rcx, rdi          (line L)
//   l: add rax, rcx ; dec rcx ; jnz l     (line L+1)
//      [add eax, [rsi]]                   (line L+2, `mover` only)
//      ret                                (line L+2)
// so one call executes exactly 3n + 3 instructions (3n + 4 for mover).
//
// stdout: results only, identical natively and under any Valgrind tool.
// stderr: "fn NAME 0xADDR SIZE" for every function (addresses differ from
// run to run) and "skip: REASON" when a mode cannot run here.
//
// Before code runs that must carry a name written just before, the
// program spends a few hundred thousand basic blocks in ordinary compiled
// code (let_time_pass): Valgrind reads producer files at scheduler time
// slices (every 100,000 blocks), so afterwards the counts are exact.

#include "jitdump_builder.hpp"

#include "xbyak_emit.hpp"

#include <valgrind/jit.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using jitdump_test::DebugEntrySpec;
using jitdump_test::JitdumpBuilder;

[[noreturn]] void die(const char* what) {
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

/// A jitted sum function (see the file comment) and where its lines start.
struct Fn {
    std::string name;
    std::uint8_t* addr = nullptr;
    std::size_t size = 0;
    std::size_t loop = 0;  ///< offset of the loop (line L+1)
    std::size_t tail = 0;  ///< offset after the loop (line L+2)

    long call(long n, const int* p = nullptr) const {
        return reinterpret_cast<long (*)(long, const int*)>(addr)(n, p);
    }
    std::vector<unsigned char> bytes() const { return {addr, addr + size}; }
    /// Line table for CODE_DEBUG_INFO: absolute addresses, lines L..L+2.
    std::vector<DebugEntrySpec> lines(std::uint32_t first_line, const std::string& file) const {
        const auto a = reinterpret_cast<std::uint64_t>(addr);
        return {{a, first_line, 0, file},
                {a + loop, first_line + 1, 0, file},
                {a + tail, first_line + 2, 0, file}};
    }
};

using testjit::Emitter;

/// A function named `name` at `where` with the shape `shape`.
Fn named_fn(const std::string& name, std::uint8_t* where, const testjit::EmittedShape& shape) {
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
Fn emit_sum(const std::string& name, std::uint8_t* where, int k, bool read_arg = false) {
    const Fn f = named_fn(
        name, where, testjit::emit_sum_loop(where, 64, testjit::SumStart::kConstant, k, read_arg));
    std::fprintf(stderr, "fn %s %p %zu\n", name.c_str(), static_cast<void*>(f.addr), f.size);
    return f;
}

/// Spends ~300,000 basic blocks in compiled code, so that Valgrind passes
/// at least one scheduler time slice (where it reads producer files).
__attribute__((noinline)) void let_time_pass() {
    for (int i = 0; i < 300000; ++i) __asm__ volatile("" ::: "memory");
}

std::uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec;
}

void write_all(int fd, const unsigned char* p, std::size_t n) {
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
std::string jitdump_path(std::uint32_t pid) {
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
long run(const Fn& f, long n, int times, const int* p = nullptr) {
    long acc = 0;
    for (int i = 0; i < times; ++i) acc += f.call(n, p);
    return acc;
}

int mode_late_lookup() {
    CodeMemory mem(4096);
    const Fn late = emit_sum("late_fn", mem.at(0), 7);
    const Fn next = emit_sum("next_fn", mem.at(256), 8);
    Jitdump dump;
    const long before = run(late, 1000, 1000);
    dump.put(dump.load(late));
    dump.put(dump.load(next));
    const long first = run(next, 1000, 1);
    let_time_pass();
    const long after = run(late, 1000, 1000);
    dump.close_record();
    std::printf("late_fn before %ld after %ld, next_fn %ld\n", before, after, first);
    return 0;
}

int mode_late() {
    CodeMemory mem(4096);
    const Fn late = emit_sum("late_fn", mem.at(0), 7);
    Jitdump dump;
    const long before = run(late, 1000, 1000);
    dump.put(dump.load(late));
    let_time_pass();
    const long after = run(late, 1000, 1000);
    dump.close_record();
    std::printf("late_fn before %ld after %ld\n", before, after);
    return 0;
}

int mode_move() {
    const std::string file = "/virtual/jitdump_producer.src";
    CodeMemory a(4096), b(4096);
    const Fn mover = emit_sum("mover", a.at(64), 3, true);
    Jitdump dump;
    JitdumpBuilder rec;
    rec.debug_info(Jitdump::addr(mover), mover.lines(10, file), std::nullopt, now_ns());
    dump.put(rec);
    dump.put(dump.load(mover));
    let_time_pass();
    const int one = 1;
    const long at_a = run(mover, 500, 1000, &one);

    Fn moved = mover;
    moved.addr = b.at(128);
    std::memcpy(moved.addr, mover.addr, mover.size);
    std::memset(mover.addr, 0xCC, mover.size);  // the old copy is gone
    std::fprintf(stderr, "fn mover-moved %p %zu\n", static_cast<void*>(moved.addr), moved.size);
    JitdumpBuilder mv;
    mv.code_move(Jitdump::addr(mover), Jitdump::addr(moved), mover.size, dump.index(), now_ns(),
                 dump.pid(), dump.tid());
    dump.put(mv);
    let_time_pass();
    const long at_b = run(moved, 500, 1000, &one);

    // One read past the end of a 4-byte block, inside the moved code.
    int* block = static_cast<int*>(std::malloc(sizeof(int)));
    *block = 5;
    const long bad = moved.call(1, block + 1);
    __asm__ volatile("" ::"r"(bad));
    std::free(block);
    dump.close_record();
    std::printf("mover at A %ld at B %ld\n", at_a, at_b);
    return 0;
}

int mode_truncate() {
    CodeMemory mem(4096);
    const Fn fns[] = {emit_sum("trunc_a", mem.at(0), 1), emit_sum("trunc_b", mem.at(64), 2),
                      emit_sum("trunc_c", mem.at(128), 3), emit_sum("trunc_d", mem.at(192), 4)};
    Jitdump dump;
    for (int i = 0; i < 3; ++i) dump.put(dump.load(fns[i]));
    const JitdumpBuilder last = dump.load(fns[3]);
    dump.put_prefix(last, last.bytes.size() / 2);  // the producer "crashed" here
    let_time_pass();
    long acc = 0;
    for (const Fn& f : fns) acc += run(f, 1000, 100);
    std::printf("truncate %ld\n", acc);
    return 0;  // no CODE_CLOSE
}

/// bad-named KIND: ./jit-<pid>.dump that is not a jitdump file (KIND =
/// garbage: text; short: the first 20 bytes of a header), mapped
/// PROT_READ|PROT_EXEC; then bad_fn (k = 5) runs 10 x (n = 100).
int mode_bad_named(const std::string& kind) {
    CodeMemory mem(4096);
    const Fn f = emit_sum("bad_fn", mem.at(0), 5);
    const std::string path = "jit-" + std::to_string(getpid()) + ".dump";
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) die("open");
    if (kind == "garbage") {
        const std::string text = "this file only bears the name of a jitdump file\n";
        write_all(fd, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    } else {
        JitdumpBuilder b;
        b.header(1, static_cast<std::uint32_t>(getpid()), now_ns(), 0);
        write_all(fd, b.bytes.data(), 20);
    }
    const long page = sysconf(_SC_PAGESIZE);
    void* m =
        mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) die("mmap");
    std::printf("bad-named %ld\n", run(f, 100, 10));
    munmap(m, static_cast<std::size_t>(page));
    ::close(fd);
    return 0;
}

int mode_garbage() {
    CodeMemory mem(4096);
    const Fn good1 = emit_sum("good_one", mem.at(0), 1);
    const Fn noname = emit_sum("no_name", mem.at(64), 2);
    const Fn good2 = emit_sum("good_two", mem.at(128), 3);
    Jitdump dump;
    dump.put(dump.load(good1));
    JitdumpBuilder b;
    // A CODE_LOAD whose total_size ends inside its name (fixed part 56 +
    // 4 of the 9 name bytes): the name is not NUL-terminated in the record.
    b.code_load(Jitdump::addr(noname), noname.size, "liar_name", 90, now_ns(), dump.pid(),
                dump.tid(), std::vector<unsigned char>{}, 60, false);
    b.bytes.resize(b.bytes.size() - 5);  // exactly 60 bytes were promised
    // An unknown record id with a payload: skipped by its total_size.
    b.record(42, now_ns(), std::vector<unsigned char>(24, 0x5A));
    // An empty name for real code, a zero code_size, a wrapping range.
    b.code_load(Jitdump::addr(noname), noname.size, "", 91, now_ns(), dump.pid(), dump.tid(),
                noname.bytes());
    b.code_load(Jitdump::addr(noname), 0, "zero_size", 92, now_ns(), dump.pid(), dump.tid(),
                std::vector<unsigned char>{});
    b.code_load(~std::uint64_t{0} - 0xfff, 0x2000, "wraps", 93, now_ns(), dump.pid(), dump.tid(),
                std::vector<unsigned char>(16, 0x90));
    // A line table claiming more entries than the record can hold.
    b.debug_info(Jitdump::addr(good2), good2.lines(30, "/virtual/garbage.src"), 1000000, now_ns());
    // A CODE_MOVE of code nobody loaded.
    b.code_move(0x1000, Jitdump::addr(noname), 64, 94, now_ns(), dump.pid(), dump.tid());
    dump.put(b);
    dump.put(dump.load(good2));
    let_time_pass();
    long acc = run(good1, 1000, 100) + run(noname, 1000, 100) + run(good2, 1000, 100);
    dump.close_record();
    std::printf("garbage %ld\n", acc);
    return 0;
}

std::string perf_map_path() { return "/tmp/perf-" + std::to_string(getpid()) + ".map"; }

std::string map_line(const Fn& f) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lx %zx %s\n", static_cast<unsigned long>(Jitdump::addr(f)),
                  f.size, f.name.c_str());
    return buf;
}

void write_str(int fd, const std::string& s) {
    write_all(fd, reinterpret_cast<const unsigned char*>(s.data()), s.size());
}

int mode_perfmap() {
    CodeMemory mem(4096);
    const Fn one = emit_sum("pm_one", mem.at(0), 1);
    const Fn two = emit_sum("pm_two (tier 2) [x.js:7]", mem.at(64), 2);
    const std::string path = perf_map_path();
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open perf map");
    write_str(fd, map_line(one));
    const std::string second = map_line(two);
    const std::size_t cut = second.size() / 2;
    write_str(fd, second.substr(0, cut));  // a line in progress
    let_time_pass();
    long acc = run(one, 1000, 100) + run(two, 1000, 100);
    write_str(fd, second.substr(cut));
    let_time_pass();
    acc += run(one, 1000, 100) + run(two, 1000, 100);
    ::close(fd);
    ::unlink(path.c_str());
    std::printf("perfmap %ld\n", acc);
    return 0;
}

int mode_perfmap_symlink() {
    CodeMemory mem(4096);
    const std::string path = perf_map_path();
    const std::string real = "real-" + std::to_string(getpid()) + ".map";
    const Fn f = emit_sum("symlinked_map", mem.at(0), 1);
    const int fd = ::open(real.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open map");
    write_str(fd, map_line(f));
    ::close(fd);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) die("getcwd");
    ::unlink(path.c_str());
    if (symlink((std::string(cwd) + "/" + real).c_str(), path.c_str()) != 0) die("symlink");
    let_time_pass();
    let_time_pass();
    const long acc = run(f, 1000, 100);
    ::unlink(path.c_str());
    std::printf("symlinked_map %ld\n", acc);
    return 0;
}

int mode_perfmap_foreign() {
    CodeMemory mem(4096);
    const Fn f = emit_sum("foreign_map", mem.at(0), 1);
    const std::string path = perf_map_path();
    // Written and given away under another name, then renamed into place
    // (atomically): Valgrind never sees the map owned by this user.
    const std::string temp = path + ".tmp";
    const int fd = ::open(temp.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open perf map");
    write_str(fd, map_line(f));
    if (fchown(fd, 65534, 65534) != 0)
        std::fprintf(stderr, "skip: cannot give the map to another user: %s\n",
                     std::strerror(errno));
    ::close(fd);
    if (rename(temp.c_str(), path.c_str()) != 0) die("rename perf map");
    let_time_pass();
    let_time_pass();
    const long acc = run(f, 1000, 100);
    ::unlink(path.c_str());
    std::printf("foreign_map %ld\n", acc);
    return 0;
}

/// Emits names_leaf(n) = n + (n-1) + ... + 1 (lines 100..102).
Fn emit_names_leaf(std::uint8_t* where, std::vector<DebugEntrySpec>& lines,
                   const std::string& file) {
    const Fn f =
        named_fn("names_leaf", where, testjit::emit_sum_loop(where, 64, testjit::SumStart::kZero));
    lines = f.lines(100, file);
    return f;
}

/// Emits a function that calls `callee`(its argument) `times` times and
/// adds the results (lines L: prologue, L+1: the loop, L+2: the rest);
/// with `fib`, it then adds fib(10).
Fn emit_names_caller(const std::string& name, std::uint8_t* where, const void* callee, int times,
                     const void* fib, std::uint32_t first_line, std::vector<DebugEntrySpec>& lines,
                     const std::string& file) {
    const Fn f =
        named_fn(name, where, testjit::emit_repeat_caller(where, 192, callee, times, fib, 10));
    lines = f.lines(first_line, file);
    return f;
}

/// Emits the recursive names_fib(n) (lines 500: test, 501: recursion,
/// 502: the base case).
Fn emit_names_fib(std::uint8_t* where, std::vector<DebugEntrySpec>& lines,
                  const std::string& file) {
    const Fn f = named_fn("names_fib", where, testjit::emit_fib(where, 128));
    lines = f.lines(500, file);
    return f;
}

/// exit_group(0) issued right here: no library code (not even a PLT
/// stub, whose first lookup could make Valgrind read the files) runs after
/// the caller's last write.
[[noreturn]] void exit_now() {
    __asm__ volatile("mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall" ::
                         : "rax", "rdi", "rcx", "r11", "memory");
    __builtin_unreachable();
}

/// What `names late dump TAIL` appends to the jitdump after its records.
void write_tail(Jitdump& dump, const std::string& tail) {
    if (tail == "grow") {
        const std::vector<unsigned char> code(1 << 20, 0xC3);
        for (std::uint64_t i = 0; i < 1024; ++i) {
            JitdumpBuilder rec;
            rec.code_load(0x10000000000ull + (i << 20), code.size(), "grow_" + std::to_string(i),
                          1000 + i, now_ns(), dump.pid(), dump.tid(), code);
            dump.put(rec);
        }
    } else if (tail == "corrupt") {
        JitdumpBuilder rec;
        rec.u32(0);  // CODE_LOAD
        rec.u32(4);  // total_size below a record header's 16 bytes
        rec.u64(now_ns());
        for (int i = 0; i < 4096; ++i) rec.bytes.push_back(static_cast<unsigned char>(i * 37 + 11));
        dump.put(rec);
    }
}

int mode_names(const std::string& when, const std::string& file, const std::string& tail = "") {
    const bool late = when == "late";
    const bool map = file == "map";
    const bool plus40 = file == "dump40";
    if ((!late && when != "early") || (!map && !plus40 && file != "dump") ||
        (!tail.empty() && (!late || file != "dump" || (tail != "grow" && tail != "corrupt")))) {
        std::fprintf(stderr,
                     "jitdump_producer: names early|late dump|dump40|map, "
                     "names late dump grow|corrupt\n");
        return 2;
    }
    const std::string src = "/virtual/names.src";
    // Kept until exit, as JITs keep their code: names read at exit can
    // only name code that is still mapped then.
    CodeMemory& mem = *new CodeMemory(4096);
    std::vector<DebugEntrySpec> l_leaf, l_mid, l_fib, l_top;
    const Fn leaf = emit_names_leaf(mem.at(0), l_leaf, src);
    const Fn fib = emit_names_fib(mem.at(512), l_fib, src);
    const Fn middle =
        emit_names_caller("names_middle", mem.at(128), leaf.addr, 10, nullptr, 200, l_mid, src);
    const Fn top =
        emit_names_caller("names_top", mem.at(256), middle.addr, 20, fib.addr, 300, l_top, src);
    const std::pair<const Fn*, const std::vector<DebugEntrySpec>*> all[] = {
        {&leaf, &l_leaf}, {&middle, &l_mid}, {&fib, &l_fib}, {&top, &l_top}};
    for (const auto& f : all)
        std::fprintf(stderr, "fn %s %p %zu\n", f.first->name.c_str(),
                     static_cast<void*>(f.first->addr), f.first->size);

    std::unique_ptr<Jitdump> dump;
    if (!map) dump = std::make_unique<Jitdump>();  // mapped before anything runs
    auto write_map = [&](const std::string& path) {
        const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open perf map");
        for (const auto& f : all) write_str(fd, map_line(*f.first));
        ::close(fd);
    };
    // The same map written elsewhere first: the library code (and PLT
    // stubs) that writes it then runs before the real map exists, so that
    // no lookup of new code reads the real map before the process exits.
    if (late && map) write_map("warmup-" + std::to_string(getpid()) + ".map");
    auto announce = [&] {
        if (map) {
            write_map(perf_map_path());
            return;
        }
        for (const auto& f : all) {
            JitdumpBuilder rec;
            std::vector<DebugEntrySpec> entries = *f.second;
            if (plus40)
                for (auto& en : entries) en.addr += 0x40;
            rec.debug_info(Jitdump::addr(*f.first), entries, std::nullopt, now_ns());
            dump->put(rec);
            dump->put(dump->load(*f.first));
        }
    };
    if (!late) announce();
    let_time_pass();
    const long result = top.call(40);
    let_time_pass();
    std::printf("names %ld\n", result);
    if (late) {
        // The names are the last thing the process writes: nothing runs
        // after them (no destructor, no atexit handler), so only a reader
        // that reads the files at exit sees them.
        std::fflush(stdout);
        announce();
        if (dump) write_tail(*dump, tail);
        exit_now();
    }
    if (dump) dump->close_record();
    return 0;
}

/// Pointer that loses the block names_alloc returned (a leak).
void* volatile g_leaked = nullptr;

int mode_leak(const std::string& when, const std::string& how = "") {
    const bool late = when == "late";
    const bool freed_caller = how == "freed-caller";
    if ((!late && when != "early") || (!how.empty() && !freed_caller)) {
        std::fprintf(stderr, "jitdump_producer: leak early|late [freed-caller]\n");
        return 2;
    }
    // names_alloc() = malloc(24) (lines 700: prologue, 701: the call,
    // 702: the rest), announced with a line table in a jitdump.
    CodeMemory& mem = *new CodeMemory(4096);  // kept until exit
    Emitter e(mem.at(0), 64);
    Fn f;
    f.name = "names_alloc";
    f.addr = mem.at(0);
    // A frame pointer, so that stack traces lead on to its caller.
    e.push(e.rbp);
    e.mov(e.rbp, e.rsp);
    e.mov(e.edi, 24);
    f.loop = e.getSize();
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);
    f.tail = e.getSize();
    e.pop(e.rbp);
    e.ret();
    e.ready();
    f.size = e.getSize();
    std::fprintf(stderr, "fn %s %p %zu\n", f.name.c_str(), static_cast<void*>(f.addr), f.size);
    Jitdump dump;
    auto announce = [&] {
        JitdumpBuilder rec;
        rec.debug_info(Jitdump::addr(f), f.lines(700, "/virtual/names.src"), std::nullopt,
                       now_ns());
        dump.put(rec);
        dump.put(dump.load(f));
    };
    if (!late) announce();
    if (freed_caller) {
        // leak_caller() calls names_alloc() and returns its result: a
        // jitted function of its own mapping, announced at once, whose
        // mapping is unmapped after the call.
        auto* caller_mem = static_cast<std::uint8_t*>(mmap(
            nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (caller_mem == MAP_FAILED) die("mmap code");
        Emitter c(caller_mem, 64);
        c.push(c.rbp);
        c.mov(c.rbp, c.rsp);
        c.mov(c.rax, reinterpret_cast<std::uintptr_t>(f.addr));
        c.call(c.rax);
        c.pop(c.rbp);
        c.ret();
        c.ready();
        Fn caller;
        caller.name = "leak_caller";
        caller.addr = caller_mem;
        caller.size = c.getSize();
        std::fprintf(stderr, "fn %s %p %zu\n", caller.name.c_str(), static_cast<void*>(caller.addr),
                     caller.size);
        dump.put(dump.load(caller));
        let_time_pass();
        g_leaked = reinterpret_cast<void* (*)()>(caller.addr)();
        g_leaked = nullptr;  // the block is lost
        munmap(caller_mem, 4096);
    } else {
        let_time_pass();
        g_leaked = reinterpret_cast<void* (*)()>(f.addr)();
        g_leaked = nullptr;  // the block is lost
    }
    let_time_pass();
    if (late && freed_caller) {
        // Read when the client exits, nothing running in between.
        std::printf("leak done\n");
        std::fflush(stdout);
        announce();
        exit_now();
    }
    if (late) announce();
    dump.close_record();
    std::printf("leak done\n");
    return 0;
}

int mode_counts() {
    CodeMemory mem(4096);
    const Fn fns[] = {emit_sum("count_a", mem.at(0), 1), emit_sum("count_b", mem.at(64), 2),
                      emit_sum("count_c", mem.at(128), 3)};
    Jitdump dump;
    JitdumpBuilder b;
    b.debug_info(Jitdump::addr(fns[0]), fns[0].lines(40, "/virtual/counts.src"), std::nullopt,
                 now_ns());
    const JitdumpBuilder first = dump.load(fns[0]);
    b.bytes.insert(b.bytes.end(), first.bytes.begin(), first.bytes.end());
    // This program's own text: an ELF object's, refused.
    const auto text = reinterpret_cast<std::uint64_t>(&let_time_pass);
    for (int i = 0; i < 12; ++i)
        b.code_load(text, 16, "in_elf_text_" + std::to_string(i), 100 + i, now_ns(), dump.pid(),
                    dump.tid(), std::vector<unsigned char>{});
    static int not_code[64];
    b.code_load(reinterpret_cast<std::uint64_t>(not_code), sizeof not_code, "in_data", 120,
                now_ns(), dump.pid(), dump.tid(), std::vector<unsigned char>{});
    b.code_load(Jitdump::addr(fns[1]), 0x100000000ull, "too_big", 121, now_ns(), dump.pid(),
                dump.tid(), std::vector<unsigned char>{});
    b.code_move(0x1000, Jitdump::addr(fns[2]) + 32, 16, 122, now_ns(), dump.pid(), dump.tid());
    b.code_load(Jitdump::addr(fns[1]), fns[1].size, "", 123, now_ns(), dump.pid(), dump.tid(),
                fns[1].bytes());
    b.code_load(Jitdump::addr(fns[1]), 0, "zero_size", 124, now_ns(), dump.pid(), dump.tid(),
                std::vector<unsigned char>{});
    b.record(42, now_ns(), std::vector<unsigned char>(8, 0x5A));
    dump.put(b);
    dump.put(dump.load(fns[1]));
    dump.put(dump.load(fns[2]));
    let_time_pass();
    long acc = 0;
    for (const Fn& f : fns) acc += run(f, 100, 10);
    dump.close_record();
    std::printf("counts %ld\n", acc);
    return 0;
}

int mode_run_gap() {
    CodeMemory mem(3 * 4096);
    const Fn a = emit_sum("run_a", mem.at(0), 1);
    const Fn e = emit_sum("run_e", mem.at(128), 2);
    const Fn c = emit_sum("run_c", mem.at(2 * 4096), 3);
    const Fn d = emit_sum("run_d", mem.at(2 * 4096 + 128), 4);
    if (mprotect(mem.at(4096), 4096, PROT_READ | PROT_WRITE) != 0) die("mprotect");
    Jitdump dump;
    long acc = run(e, 100, 10);
    JitdumpBuilder first, second;
    for (const Fn* f : {&a, &e}) {
        const JitdumpBuilder one = dump.load(*f);
        first.bytes.insert(first.bytes.end(), one.bytes.begin(), one.bytes.end());
    }
    dump.put(first);
    let_time_pass();
    second.code_load(reinterpret_cast<std::uint64_t>(mem.at(4096)), 64, "in_gap", 200, now_ns(),
                     dump.pid(), dump.tid(), std::vector<unsigned char>{});
    for (const Fn* f : {&c, &d}) {
        const JitdumpBuilder one = dump.load(*f);
        second.bytes.insert(second.bytes.end(), one.bytes.begin(), one.bytes.end());
    }
    dump.put(second);
    let_time_pass();
    for (const Fn* f : {&a, &e, &c, &d}) acc += run(*f, 100, 10);
    dump.close_record();
    std::printf("run-gap %ld\n", acc);
    return 0;
}

int mode_junk_names() {
    CodeMemory mem(4096);
    const std::string junk_name = "junk_\x01name\x7f\xff";
    const Fn named = emit_sum(junk_name, mem.at(0), 1);
    const Fn lined = emit_sum("junk_file", mem.at(64), 2);
    Jitdump dump;
    dump.put(dump.load(named));
    // The middle entry's file name is junk: the other two keep theirs.
    auto lines = lined.lines(50, "/virtual/ok.src");
    lines[1].file = std::string("\x01\xfeSY:JS:^", 9);
    JitdumpBuilder b;
    b.debug_info(Jitdump::addr(lined), lines, std::nullopt, now_ns());
    dump.put(b);
    dump.put(dump.load(lined));
    let_time_pass();
    const long acc = run(named, 1000, 100) + run(lined, 1000, 100);
    dump.close_record();
    std::printf("junk-names %ld\n", acc);
    return 0;
}

int mode_header_after_mapping() {
    CodeMemory mem(4096);
    const Fn a = emit_sum("late_header_a", mem.at(0), 1);
    const Fn b = emit_sum("late_header_b", mem.at(256), 2);
    // A file mapped executable that never becomes a jitdump.
    const int other = ::open("empty.bin", O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (other < 0) die("open empty.bin");
    void* other_map = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, other, 0);
    if (other_map == MAP_FAILED) die("mmap empty.bin");
    // JavaScriptCore's name and order: jit-<tid>-<pid>.dump, mapped empty.
    const std::string path =
        "jit-" + std::to_string(syscall(SYS_gettid) + 1) + "-" + std::to_string(getpid()) + ".dump";
    Jitdump dump(path, true);
    dump.put(dump.load(a));
    dump.put(dump.load(b));
    let_time_pass();
    long acc = run(a, 100, 10) + run(b, 100, 10);
    dump.close_record();
    munmap(other_map, 4096);
    ::close(other);
    std::printf("header-after-mapping %ld\n", acc);
    return 0;
}

int mode_hold() {
    CodeMemory mem(4096);
    const Fn a = emit_sum("hold_a", mem.at(0), 1);
    const Fn b = emit_sum("hold_b", mem.at(256), 2);
    Jitdump dump;
    JitdumpBuilder rec;
    rec.debug_info(Jitdump::addr(a), a.lines(60, "/virtual/hold.src"), std::nullopt, now_ns());
    dump.put(rec);
    dump.put(dump.load(a));
    dump.put(dump.load(b));
    // A name for a page that stays writable and not executable: it waits.
    void* data = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) die("mmap data");
    JitdumpBuilder waiting;
    waiting.code_load(reinterpret_cast<std::uint64_t>(data), 64, "hold_wait", 3, now_ns(),
                      dump.pid(), dump.tid(), std::vector<unsigned char>{});
    dump.put(waiting);
    // Unregistered while its code stays mapped: kept.
    const Fn c = emit_sum("hold_kept", mem.at(512), 3);
    (void)VALGRIND_JIT_REGISTER(c.addr, c.size, "hold_kept");
    (void)VALGRIND_JIT_UNREGISTER(c.addr);
    let_time_pass();
    long acc = run(a, 10, 1) + run(b, 10, 1) + run(c, 10, 1);
    std::fprintf(stderr, "ready\n");
    const std::uint64_t start = now_ns();
    while (::access("stop", F_OK) != 0 && now_ns() - start < 120000000000ull) {
        acc += run(a, 10, 1);
        let_time_pass();
    }
    dump.close_record();
    std::printf("hold %s\n", acc > 0 ? "done" : "failed");
    return 0;
}

int mode_chained(const std::string& when) {
    const bool late = when == "late";
    if (!late && when != "early") {
        std::fprintf(stderr, "jitdump_producer: chained early|late\n");
        return 2;
    }
    CodeMemory& mem = *new CodeMemory(4096);  // kept until exit
    const Fn chained = named_fn("jd_chained", mem.at(64),
                                testjit::emit_sum_loop(mem.at(64), 64, testjit::SumStart::kZero));
    Emitter e(mem.at(0), 64);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(chained.addr));
    e.jmp(e.rax);
    e.ready();
    Fn dispatch;
    dispatch.name = "jd_dispatch";
    dispatch.addr = mem.at(0);
    dispatch.size = e.getSize();
    for (const Fn* f : {static_cast<const Fn*>(&dispatch), &chained})
        std::fprintf(stderr, "fn %s %p %zu\n", f->name.c_str(), static_cast<void*>(f->addr),
                     f->size);
    Jitdump dump;
    auto announce = [&] {
        for (const Fn* f : {static_cast<const Fn*>(&dispatch), &chained}) dump.put(dump.load(*f));
    };
    if (!late) announce();
    let_time_pass();
    long acc = 0;
    for (int i = 0; i < 100; ++i) acc += dispatch.call(50);
    let_time_pass();
    std::printf("chained %ld\n", acc);
    if (late) {
        std::fflush(stdout);
        announce();
        exit_now();
    }
    dump.close_record();
    return 0;
}

int mode_reuse(const std::string& when, const std::string& file) {
    const bool late = when == "late";
    const bool after = when == "after";
    const bool map = file == "map" || file == "map-same";
    const bool same = file == "map-same";
    const bool realtime = file == "dump-realtime";
    const bool with_lines = file == "dump-lines";
    if ((!late && !after && when != "early") ||
        (!map && file != "dump" && file != "dump-tsc" && !realtime && !with_lines)) {
        std::fprintf(stderr,
                     "jitdump_producer: reuse early|late|after "
                     "dump|dump-tsc|dump-realtime|dump-lines|map|map-same\n");
        return 2;
    }
    // Kept until exit, as JITs keep their code.
    CodeMemory& mem = *new CodeMemory(4096);
    std::unique_ptr<Jitdump> dump;
    if (!map) dump = std::make_unique<Jitdump>(file == "dump-tsc" ? 1 : 0);
    const std::string name_a = same ? "reuse_same" : "reuse_a";
    const std::string name_b = same ? "reuse_same" : "reuse_b";
    if (late && map) {
        // The library code that writes a map runs once before the real
        // map exists (see mode_names).
        const int fd = ::open(("warmup-" + std::to_string(getpid()) + ".map").c_str(),
                              O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open warmup map");
        write_str(fd, "0 1 warmup\n");
        ::close(fd);
    }
    int map_fd = -1;
    // A record is made when its code is loaded (its CODE_LOAD timestamp
    // is then), and written then (early) or at exit (late).
    std::vector<std::string> lines;
    std::vector<JitdumpBuilder> records;
    auto loaded = [&](const Fn& f) {
        if (map)
            lines.push_back(map_line(f));
        else if (with_lines) {
            // Its line table, then its CODE_LOAD.
            const bool is_a = f.name == name_a;
            JitdumpBuilder b;
            b.debug_info(
                Jitdump::addr(f),
                f.lines(is_a ? 100 : 200, is_a ? "/virtual/reuse_a.src" : "/virtual/reuse_b.src"),
                std::nullopt, now_ns());
            const JitdumpBuilder load = dump->load(f);
            b.bytes.insert(b.bytes.end(), load.bytes.begin(), load.bytes.end());
            records.push_back(b);
        } else if (!realtime)
            records.push_back(dump->load(f));
        else {
            // Stamped with the wrong clock (CLOCK_REALTIME).
            timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            JitdumpBuilder b;
            b.code_load(Jitdump::addr(f), f.size, f.name, records.size() + 1,
                        static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec,
                        dump->pid(), dump->tid(), f.bytes());
            records.push_back(b);
        }
    };
    auto announce = [&](std::size_t i) {
        if (!map) {
            dump->put(records.at(i));
            return;
        }
        if (map_fd < 0) {
            map_fd = ::open(perf_map_path().c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
            if (map_fd < 0) die("open perf map");
        }
        write_str(map_fd, lines.at(i));
    };
    const Fn a = emit_sum(name_a, mem.at(0), 1);
    loaded(a);
    if (!late && !after) announce(0);
    let_time_pass();
    const long ra = run(a, 40, 30);
    // Other code at the same address: the first instruction differs.
    const Fn b = emit_sum(name_b, mem.at(0), 2);
    loaded(b);
    if (!late && !after) announce(1);
    let_time_pass();
    const long rb = run(b, 25, 50);
    let_time_pass();
    if (after) {
        announce(0);
        announce(1);
        let_time_pass();
    }
    std::printf("reuse %ld %ld\n", ra, rb);
    if (late) {
        std::fflush(stdout);
        announce(0);
        announce(1);
        exit_now();
    }
    if (map_fd >= 0) ::close(map_fd);
    if (dump) dump->close_record();
    return 0;
}

int mode_reuse_move() {
    CodeMemory& mem = *new CodeMemory(4096);  // kept until exit
    Jitdump dump;
    const Fn a = emit_sum("reuse_a", mem.at(0), 1);
    JitdumpBuilder records = dump.load(a);
    let_time_pass();
    const long ra = run(a, 40, 30);
    const Fn b = emit_sum("reuse_b", mem.at(1024), 2);
    const JitdumpBuilder load_b = dump.load(b);
    records.bytes.insert(records.bytes.end(), load_b.bytes.begin(), load_b.bytes.end());
    let_time_pass();
    const long rb = run(b, 25, 50);
    Fn moved = a;
    moved.addr = b.addr;
    std::memcpy(moved.addr, a.addr, a.size);
    std::fprintf(stderr, "fn reuse_a-moved %p %zu\n", static_cast<void*>(moved.addr), moved.size);
    JitdumpBuilder mv;
    mv.code_move(Jitdump::addr(a), Jitdump::addr(moved), a.size, 1, now_ns(), dump.pid(),
                 dump.tid());
    records.bytes.insert(records.bytes.end(), mv.bytes.begin(), mv.bytes.end());
    let_time_pass();
    const long rm = run(moved, 10, 20);
    std::printf("reuse-move %ld %ld %ld\n", ra, rb, rm);
    std::fflush(stdout);
    dump.put(records);
    exit_now();
}

int mode_unmapped(const std::string& when, const std::string& file) {
    const bool at_exit = when == "exit";
    const bool map = file == "map";
    if ((!at_exit && when != "run") || (!map && file != "dump")) {
        std::fprintf(stderr, "jitdump_producer: unmapped run|exit dump|map\n");
        return 2;
    }
    const std::string src = "/virtual/unmapped.src";
    std::unique_ptr<Jitdump> dump;
    if (!map) dump = std::make_unique<Jitdump>();
    if (map) {
        // The library code that writes a map runs once before the real
        // map exists (see mode_names).
        const int fd = ::open(("warmup-" + std::to_string(getpid()) + ".map").c_str(),
                              O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open warmup map");
        write_str(fd, "0 1 warmup\n");
        ::close(fd);
    }
    auto* code = new CodeMemory(4096);
    auto* other = new CodeMemory(4096);
    const Fn gone = emit_sum("gone_fn", code->at(0), 4);
    const Fn never = emit_sum("never_fn", other->at(0), 5);
    // Made when the code is emitted (their timestamps are then), written
    // after it is gone.
    JitdumpBuilder records;
    std::string lines;
    if (dump) {
        records.debug_info(Jitdump::addr(gone), gone.lines(40, src), std::nullopt, now_ns());
        records.code_load(Jitdump::addr(gone), gone.size, gone.name, 1, now_ns(), dump->pid(),
                          dump->tid(), gone.bytes());
        records.code_load(Jitdump::addr(never), never.size, never.name, 2, now_ns(), dump->pid(),
                          dump->tid(), never.bytes());
    } else {
        lines = map_line(gone) + map_line(never);
    }
    let_time_pass();
    const long acc = run(gone, 30, 40);
    delete code;
    delete other;
    std::printf("unmapped %ld\n", acc);
    std::fflush(stdout);
    auto announce = [&] {
        if (dump) {
            dump->put(records);
            return;
        }
        const int fd = ::open(perf_map_path().c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open perf map");
        write_str(fd, lines);
        ::close(fd);
    };
    announce();
    if (at_exit) exit_now();
    let_time_pass();
    let_time_pass();
    if (dump) dump->close_record();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "leak") return mode_leak(argv[2]);
    if (argc == 4 && std::string(argv[1]) == "leak") return mode_leak(argv[2], argv[3]);
    if (argc == 3 && std::string(argv[1]) == "chained") return mode_chained(argv[2]);
    if (argc == 3 && std::string(argv[1]) == "bad-named") return mode_bad_named(argv[2]);
    if (argc == 4 && std::string(argv[1]) == "names") return mode_names(argv[2], argv[3]);
    if (argc == 4 && std::string(argv[1]) == "reuse") return mode_reuse(argv[2], argv[3]);
    if (argc == 4 && std::string(argv[1]) == "unmapped") return mode_unmapped(argv[2], argv[3]);
    if (argc == 5 && std::string(argv[1]) == "names") return mode_names(argv[2], argv[3], argv[4]);
    if (argc != 2) {
        std::fprintf(stderr,
                     "usage: jitdump_producer "
                     "late|late-lookup|move|truncate|garbage|counts|junk-names|hold|perfmap|"
                     "perfmap-symlink|perfmap-foreign | names early|late dump|dump40|map | names "
                     "late dump grow|corrupt | "
                     "leak early|late [freed-caller] | "
                     "chained early|late | bad-named garbage|short | reuse early|late "
                     "dump|dump-tsc|dump-realtime|dump-lines|map|map-same\n");
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "late") return mode_late();
    if (mode == "reuse-move") return mode_reuse_move();
    if (mode == "late-lookup") return mode_late_lookup();
    if (mode == "move") return mode_move();
    if (mode == "truncate") return mode_truncate();
    if (mode == "garbage") return mode_garbage();
    if (mode == "counts") return mode_counts();
    if (mode == "run-gap") return mode_run_gap();
    if (mode == "junk-names") return mode_junk_names();
    if (mode == "hold") return mode_hold();
    if (mode == "header-after-mapping") return mode_header_after_mapping();
    if (mode == "perfmap") return mode_perfmap();
    if (mode == "perfmap-symlink") return mode_perfmap_symlink();
    if (mode == "perfmap-foreign") return mode_perfmap_foreign();
    std::fprintf(stderr, "jitdump_producer: unknown mode %s\n", mode.c_str());
    return 2;
}
