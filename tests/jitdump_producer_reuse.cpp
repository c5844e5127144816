// jitdump_producer_reuse.cpp: jitdump_producer's code reuse: one address
// hosting two functions in turn, named early, after both ran or at exit
// (reuse), reuse across a CODE_MOVE (reuse-move), and code that is gone
// when its name arrives (unmapped).

#include "jitdump_producer.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jitdump_producer {

namespace {

/// The records of `reuse FILE`, each made when its function's code is
/// emitted (its CODE_LOAD timestamp is then) and written when announced:
/// CODE_LOADs in a jitdump (FILE = dump, dump-tsc with the architecture
/// timestamp flag, dump-realtime stamped with CLOCK_REALTIME, dump-lines
/// with a CODE_DEBUG_INFO before each) or lines of a perf map (map,
/// map-same).
class ReuseRecords {
public:
    /// `name_a`: the name of the first function (with dump-lines, its
    /// line table is lines 100..102 of /virtual/reuse_a.src, the other's
    /// 200..202 of /virtual/reuse_b.src).
    ReuseRecords(const std::string& file, const std::string& name_a)
        : map_(file == "map" || file == "map-same"),
          realtime_(file == "dump-realtime"),
          with_lines_(file == "dump-lines"),
          name_a_(name_a) {
        if (!map_) dump_ = std::make_unique<Jitdump>(file == "dump-tsc" ? 1 : 0);
    }

    /// Makes the record of `f`, whose code was just emitted.
    void loaded(const Fn& f) {
        if (map_)
            lines_.push_back(map_line(f));
        else if (with_lines_) {
            // Its line table, then its CODE_LOAD.
            const bool is_a = f.name == name_a_;
            JitdumpBuilder b;
            b.debug_info(
                Jitdump::addr(f),
                f.lines(is_a ? 100 : 200, is_a ? "/virtual/reuse_a.src" : "/virtual/reuse_b.src"),
                std::nullopt, now_ns());
            const JitdumpBuilder load = dump_->load(f);
            b.bytes.insert(b.bytes.end(), load.bytes.begin(), load.bytes.end());
            records_.push_back(b);
        } else if (!realtime_)
            records_.push_back(dump_->load(f));
        else {
            // Stamped with the wrong clock (CLOCK_REALTIME).
            timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            JitdumpBuilder b;
            b.code_load(Jitdump::addr(f), f.size, f.name, records_.size() + 1,
                        static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec,
                        dump_->pid(), dump_->tid(), f.bytes());
            records_.push_back(b);
        }
    }

    /// Writes record `i` (the perf map is created at the first).
    void announce(std::size_t i) {
        if (!map_) {
            dump_->put(records_.at(i));
            return;
        }
        if (map_fd_ < 0) {
            map_fd_ = ::open(perf_map_path().c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
            if (map_fd_ < 0) die("open perf map");
        }
        write_str(map_fd_, lines_.at(i));
    }

    /// Closes the perf map, or ends the jitdump with CODE_CLOSE.
    void finish() {
        if (map_fd_ >= 0) ::close(map_fd_);
        if (dump_) dump_->close_record();
    }

private:
    const bool map_, realtime_, with_lines_;
    const std::string name_a_;
    std::unique_ptr<Jitdump> dump_;
    int map_fd_ = -1;
    std::vector<std::string> lines_;
    std::vector<JitdumpBuilder> records_;
};

}  // namespace

/// reuse WHEN FILE: reuse_a and then reuse_b emitted at one address, each
/// run; their records written early, after both ran, or at exit.
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
    const std::string name_a = same ? "reuse_same" : "reuse_a";
    const std::string name_b = same ? "reuse_same" : "reuse_b";
    ReuseRecords records(file, name_a);
    if (late && map) warm_up_map_writing();
    const Fn a = emit_sum(name_a, mem.at(0), 1);
    records.loaded(a);
    if (!late && !after) records.announce(0);
    let_time_pass();
    const long ra = run(a, 40, 30);
    // Other code at the same address: the first instruction differs.
    const Fn b = emit_sum(name_b, mem.at(0), 2);
    records.loaded(b);
    if (!late && !after) records.announce(1);
    let_time_pass();
    const long rb = run(b, 25, 50);
    let_time_pass();
    if (after) {
        records.announce(0);
        records.announce(1);
        let_time_pass();
    }
    std::printf("reuse %ld %ld\n", ra, rb);
    if (late) {
        std::fflush(stdout);
        records.announce(0);
        records.announce(1);
        exit_now();
    }
    records.finish();
    return 0;
}

/// reuse-move: reuse_a moved over reuse_b, every record written at exit.
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

/// unmapped WHEN FILE: gone_fn and never_fn named after their code went.
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
    if (map) warm_up_map_writing();
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

}  // namespace jitdump_producer
