// jitdump_producer_records.cpp: jitdump_producer's jitdump records read
// while the program runs: a record written after its code ran (late,
// late-lookup), CODE_MOVE (move), a file cut short (truncate), malformed
// and refused records (garbage, counts), records read together with a gap
// (run-gap), names that are not text (junk-names), files that only bear
// the name (bad-named) or get their header after they were mapped
// (header-after-mapping), and a process kept running for vgdb (hold).

#include "jitdump_producer.hpp"

#include <valgrind/jit.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace jitdump_producer {

/// late: late_fn runs 1000 x before its CODE_LOAD is written, 1000 x after.
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

/// late-lookup: as late, the records read during the lookup of next_fn.
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

/// move: mover at A, then CODE_MOVE to B, run at each; a bad read at B.
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

/// truncate: three CODE_LOADs, a fourth cut in half, no CODE_CLOSE.
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

/// garbage: good records with malformed ones between them.
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

/// counts: known numbers of records of each outcome (23 after the header).
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

/// run-gap: five CODE_LOADs in two writes, one at a page that is not code.
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

/// junk-names: a function name and a line table file name that are junk.
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

/// header-after-mapping: a jitdump mapped while empty, as JavaScriptCore
/// maps it, and a mapped file that never becomes one.
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

/// hold: functions, a waiting name and a kept one, until "stop" appears.
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

}  // namespace jitdump_producer
