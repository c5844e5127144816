// analyze.cpp: see analyze.hpp.
#include "analyze.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vgjit {

std::string hex(std::uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
}

namespace {

/// Read-only window onto a file, refilled with pread as the readers move on.
class FileWindow {
public:
    explicit FileWindow(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
    ~FileWindow() { ::close(fd_); }
    FileWindow(const FileWindow&) = delete;
    FileWindow& operator=(const FileWindow&) = delete;

    std::uint64_t size() const { return size_; }

    /// Makes the bytes [off, off+want) available (fewer at the end of the
    /// file); stores their count in *got and returns a pointer to them.
    /// Returns nullptr with errno set on a read error.
    const unsigned char* at(std::uint64_t off, std::size_t want, std::size_t* got) {
        *got = 0;
        if (off >= size_) return buf_.data();
        const std::uint64_t avail = std::min<std::uint64_t>(want, size_ - off);
        if (off >= start_ && off + avail <= start_ + len_) {
            *got = static_cast<std::size_t>(avail);
            return buf_.data() + (off - start_);
        }
        const std::size_t chunk = static_cast<std::size_t>(
            std::min<std::uint64_t>(std::max<std::size_t>(want, kChunk), size_ - off));
        buf_.resize(chunk);
        std::size_t done = 0;
        while (done < chunk) {
            ssize_t n =
                ::pread(fd_, buf_.data() + done, chunk - done, static_cast<off_t>(off + done));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return nullptr;
            if (n == 0) break;  // file shrank under us
            done += static_cast<std::size_t>(n);
        }
        start_ = off;
        len_ = done;
        *got = static_cast<std::size_t>(std::min<std::uint64_t>(avail, done));
        return buf_.data();
    }

private:
    static constexpr std::size_t kChunk = 1 << 20;
    int fd_;
    std::uint64_t size_;
    std::vector<unsigned char> buf_;
    std::uint64_t start_ = 0;
    std::size_t len_ = 0;
};

Problem at_offset(Severity s, std::uint64_t off, std::string msg) {
    return Problem{s, true, false, off, std::move(msg)};
}
Problem at_line(Severity s, std::uint64_t line, std::string msg) {
    return Problem{s, true, true, line, std::move(msg)};
}
Problem whole_file(Severity s, std::string msg) {
    return Problem{s, false, false, 0, std::move(msg)};
}

/// Live code ranges, to find entries that overlap earlier ones.  A new
/// range that overlaps live ones replaces them (the runtime reused the
/// memory); only partial overlaps are worth a warning: re-announcing the
/// very same range is how runtimes replace code.
class LiveRanges {
public:
    struct Range {
        std::uint64_t end;  // exclusive; 0 means 2^64
        std::string name;
        std::uint64_t where;
    };

    /// Adds [start, start+size) and returns descriptions of the partially
    /// overlapped live ranges it replaces.
    std::vector<std::string> add(std::uint64_t start, std::uint64_t size, const std::string& name,
                                 std::uint64_t where, bool by_line) {
        std::vector<std::string> clashes;
        if (size == 0) return clashes;
        const std::uint64_t end = start + size;  // may be 0 (= 2^64)
        auto it = ranges_.upper_bound(start);
        if (it != ranges_.begin()) {
            auto prev = std::prev(it);
            if (ends_after(prev->second.end, start)) it = prev;
        }
        while (it != ranges_.end() && (end == 0 || it->first < end)) {
            if (!(it->first == start && it->second.end == end)) {
                std::ostringstream o;
                o << "range [" << hex(start) << ", " << hex(end) << ") of '" << name
                  << "' overlaps the live entry '" << it->second.name << "' [" << hex(it->first)
                  << ", " << hex(it->second.end) << ") from " << (by_line ? "line " : "offset ")
                  << it->second.where << "; the earlier entry is taken to be replaced";
                clashes.push_back(o.str());
            }
            it = ranges_.erase(it);
        }
        ranges_[start] = Range{end, name, where};
        return clashes;
    }

    /// Removes the range that starts exactly at `start`; false if none.
    bool remove(std::uint64_t start, std::uint64_t size) {
        auto it = ranges_.find(start);
        if (it == ranges_.end() || it->second.end != start + size) return false;
        ranges_.erase(it);
        return true;
    }

    const Range* find(std::uint64_t start) const {
        auto it = ranges_.find(start);
        return it == ranges_.end() ? nullptr : &it->second;
    }

private:
    static bool ends_after(std::uint64_t end, std::uint64_t addr) { return end == 0 || end > addr; }
    std::map<std::uint64_t, Range> ranges_;
};

/// The shared reader's text of ev's error (ML_(jitdump_describe)) and what
/// it means for the rest of the file.
std::string error_text(const JitdumpReader& r, const JitdumpEvent& ev) {
    char buf[400];
    return std::string(ML_(jitdump_describe)(&r, &ev, buf, sizeof buf)) +
           (ev.kind == JITDUMP_EV_ERROR ? "; the rest of the file cannot be read"
                                        : "; record skipped");
}

/// The checks of one jitdump file across its records: each decoded event
/// goes to the step of its kind, which reports to the sink; what a later
/// record is checked against (live ranges, code indices, a pending
/// CODE_DEBUG_INFO, CODE_CLOSE) is kept here.
class JitdumpChecker {
public:
    JitdumpChecker(const std::string& path, FileWindow& file, Sink& sink)
        : file_(file), sink_(sink), name_pid_(pid_from_file_name(path)), fsize_(file.size()) {
        ML_(jitdump_init)(&r_, 0);
    }

    /// Reads the file to its end or to its first hard error.
    void run() {
        if (fsize_ == 0) {
            sink_.problem(at_offset(Severity::Error, 0, "empty file: no jitdump header"));
            return;
        }
        std::size_t want = kWindow;
        for (;;) {
            std::size_t got = 0;
            const unsigned char* p = file_.at(r_.offset, want, &got);
            if (!p) {
                sink_.problem(at_offset(Severity::Error, r_.offset,
                                        std::string("read error: ") + std::strerror(errno)));
                return;
            }
            JitdumpEvent ev;
            const int kind = ML_(jitdump_next)(&r_, got ? p : nullptr, got, &ev);
            if (kind == JITDUMP_EV_NEED_MORE) {
                const std::uint64_t left = r_.offset < fsize_ ? fsize_ - r_.offset : 0;
                if (left <= got) break;  // the end of the file
                want = ev.need;          // the window was too small: widen it
                continue;
            }
            want = kWindow;
            if (kind == JITDUMP_EV_ERROR) {
                sink_.problem(at_offset(Severity::Error, ev.offset, error_text(r_, ev)));
                return;
            }
            if (kind == JITDUMP_EV_HEADER)
                header(ev.header);
            else
                record(kind, ev);
        }
        check_end();
    }

private:
    static constexpr std::size_t kWindow = 1 << 20;  ///< bytes asked of the file at a time

    void problem(Severity s, std::uint64_t at, const std::string& msg) {
        sink_.problem(at_offset(s, at, msg));
    }

    void header(const JitdumpHeader& h) {
        sink_.jitdump_header(h);
        if (name_pid_ >= 0 && static_cast<unsigned long long>(name_pid_) != h.pid)
            problem(Severity::Error, JITDUMP_HDR_PID,
                    "header pid " + std::to_string(h.pid) + " differs from the pid " +
                        std::to_string(name_pid_) + " in the file name");
        if (h.flags & ~JITDUMP_FLAG_ARCH_TIMESTAMP)
            problem(Severity::Warning, JITDUMP_HDR_FLAGS,
                    "header flags " + hex(h.flags) + " has reserved bits set");
        last_off_ = 0;
        last_size_ = h.header_size;
        have_header_ = true;
    }

    void record(int kind, const JitdumpEvent& ev) {
        const JitdumpRecord& rec = ev.rec;
        last_off_ = rec.file_offset;
        last_size_ = rec.total_size;
        last_id_ = rec.id;
        if (kind == JITDUMP_EV_BAD_RECORD) {
            problem(Severity::Error, ev.offset, error_text(r_, ev));
            return;
        }
        if (closed_)
            problem(Severity::Warning, ev.offset,
                    record_kind_name(rec.id) + " record after the CODE_CLOSE record at offset " +
                        std::to_string(close_off_));
        if (kind == JITDUMP_EV_UNKNOWN) {
            sink_.jitdump_record(rec, false, std::string(), {});
            return;
        }
        std::string name;
        std::vector<DebugLine> lines;
        switch (rec.id) {
        case JITDUMP_CODE_LOAD: name = code_load(rec.u.load, ev.offset); break;
        case JITDUMP_CODE_MOVE: code_move(rec.u.move, ev.offset); break;
        case JITDUMP_CODE_DEBUG_INFO: lines = debug_info(rec.u.debug, ev.offset); break;
        case JITDUMP_CODE_CLOSE:
            closed_ = true;
            close_off_ = ev.offset;
            break;
        case JITDUMP_CODE_UNWINDING_INFO: unwinding_info(rec.u.unwind, ev.offset); break;
        default: break;
        }
        sink_.jitdump_record(rec, true, name, lines);
    }

    /// Returns the function's name.
    std::string code_load(const JitdumpCodeLoad& l, std::uint64_t at) {
        const std::string name(l.name, l.name_len);
        if (l.pid != r_.header.pid)
            problem(Severity::Error, at + JITDUMP_LOAD_PID,
                    "CODE_LOAD '" + name + "' has pid " + std::to_string(l.pid) +
                        ", the header says " + std::to_string(r_.header.pid));
        if (l.code_size == 0)
            problem(Severity::Warning, at,
                    "CODE_LOAD '" + name + "' has code_size 0: there is no code to name");
        else if (l.code_bytes < l.code_size)
            problem(Severity::Warning, at,
                    "CODE_LOAD '" + name + "' carries " + std::to_string(l.code_bytes) +
                        " code bytes but code_size is " + std::to_string(l.code_size));
        if (pending_debug_ && pending_debug_addr_ != l.code_addr)
            problem(Severity::Warning, pending_debug_off_,
                    "CODE_DEBUG_INFO for " + hex(pending_debug_addr_) +
                        " is followed by a CODE_LOAD for " + hex(l.code_addr) +
                        ", not for its address");
        pending_debug_ = false;
        for (const std::string& c : live_.add(l.code_addr, l.code_size, name, at, false))
            problem(Severity::Warning, at, c);
        if (l.code_size) index_to_addr_[l.code_index] = l.code_addr;
        return name;
    }

    void code_move(const JitdumpCodeMove& m, std::uint64_t at) {
        if (m.pid != r_.header.pid)
            problem(Severity::Error, at + JITDUMP_MOVE_PID,
                    "CODE_MOVE has pid " + std::to_string(m.pid) + ", the header says " +
                        std::to_string(r_.header.pid));
        auto it = index_to_addr_.find(m.code_index);
        std::string moved = "code_index " + std::to_string(m.code_index);
        if (it == index_to_addr_.end()) {
            problem(Severity::Warning, at,
                    "CODE_MOVE for code_index " + std::to_string(m.code_index) +
                        " that no earlier CODE_LOAD announced");
        } else {
            if (const LiveRanges::Range* rr = live_.find(it->second)) moved = rr->name;
            if (it->second != m.old_code_addr)
                problem(Severity::Warning, at,
                        "CODE_MOVE old_code_addr " + hex(m.old_code_addr) + " but code_index " +
                            std::to_string(m.code_index) + " lives at " + hex(it->second));
            live_.remove(it->second, m.code_size);
        }
        for (const std::string& c : live_.add(m.new_code_addr, m.code_size, moved, at, false))
            problem(Severity::Warning, at, c);
        if (m.code_size) index_to_addr_[m.code_index] = m.new_code_addr;
    }

    /// Returns the line table.
    std::vector<DebugLine> debug_info(const JitdumpDebugInfo& d, std::uint64_t at) {
        std::vector<DebugLine> lines;
        JitdumpDebugIter it;
        JitdumpDebugEntry e;
        ML_(jitdump_debug_iter_init)(&it, &r_, &d);
        bool warned_line0 = false;
        while (ML_(jitdump_debug_entry_next)(&it, &e) == 1) {
            lines.push_back(DebugLine{e.code_addr, e.line, e.discrim,
                                      std::string(e.filename, e.filename_len),
                                      e.same_as_previous != 0, e.garbled != 0});
            if (e.garbled && lines.size() == 1)
                problem(Severity::Warning, at,
                        "CODE_DEBUG_INFO entries carry name fields of one size that hold no "
                        "name (as V8 writes them): their file is unknown");
            if (e.line == 0 && !warned_line0) {
                warned_line0 = true;
                problem(Severity::Warning, at,
                        "CODE_DEBUG_INFO entry for " + hex(e.code_addr) +
                            " has line 0 (lines are 1-based)");
            }
            if (e.same_as_previous && lines.size() == 1)
                problem(Severity::Warning, at,
                        "first CODE_DEBUG_INFO entry says \"same file as the previous entry\" "
                        "but there is none");
        }
        if (pending_debug_) unfollowed_debug_info();
        pending_debug_ = true;
        pending_debug_addr_ = d.code_addr;
        pending_debug_off_ = at;
        return lines;
    }

    /// The .eh_frame after the .eh_frame_hdr, checked as the core checks
    /// it before its CFI reader sees it.
    void unwinding_info(const JitdumpUnwindingInfo& u, std::uint64_t at) {
        const unsigned long long eh_size = u.unwinding_size - u.eh_frame_hdr_size;
        if (u.data == nullptr || eh_size == 0) return;
        if (const char* why = ML_(jit_cfi_check_records)(u.data, eh_size, 1))
            problem(Severity::Warning, at,
                    std::string("CODE_UNWINDING_INFO's .eh_frame is refused: ") + why);
    }

    void unfollowed_debug_info() {
        problem(
            Severity::Warning, pending_debug_off_,
            "CODE_DEBUG_INFO for " + hex(pending_debug_addr_) + " is not followed by a CODE_LOAD");
    }

    /// End of the file: everything must have been consumed exactly.
    void check_end() {
        if (pending_debug_) unfollowed_debug_info();
        if (r_.offset > fsize_) {
            std::ostringstream m;
            if (last_off_ == 0)
                m << "truncated file header: its total_size " << last_size_
                  << " extends beyond the end of the file";
            else
                m << "truncated " << record_kind_name(last_id_) << " record: total_size "
                  << last_size_ << " extends " << (r_.offset - fsize_)
                  << " bytes beyond the end of the file (only " << (fsize_ - last_off_)
                  << " bytes present)";
            problem(Severity::Error, last_off_, m.str());
        } else if (r_.offset < fsize_) {
            problem(Severity::Error, r_.offset, truncated_tail(fsize_ - r_.offset));
        }
    }

    /// What the `left` bytes after the last whole record are.
    std::string truncated_tail(std::uint64_t left) {
        std::ostringstream m;
        if (!have_header_) {
            m << "truncated file header: the file has " << left << " bytes, a jitdump header needs "
              << JITDUMP_HEADER_SIZE;
        } else if (left < JITDUMP_PREFIX_SIZE) {
            m << "truncated record: the last " << left << " bytes are too few for a record prefix ("
              << JITDUMP_PREFIX_SIZE << " bytes)";
        } else {
            std::size_t got = 0;
            const unsigned char* p = file_.at(r_.offset, JITDUMP_PREFIX_SIZE, &got);
            std::uint32_t id = 0, total = 0;
            if (p && got >= JITDUMP_PREFIX_SIZE) {
                id = jitformats_ld32(p + JITDUMP_REC_ID, r_.big_endian);
                total = jitformats_ld32(p + JITDUMP_REC_TOTAL_SIZE, r_.big_endian);
            }
            m << "truncated " << record_kind_name(id) << " record: total_size " << total
              << " but only " << left << " bytes left in the file";
        }
        return m.str();
    }

    FileWindow& file_;
    Sink& sink_;
    JitdumpReader r_;
    const long long name_pid_;
    const std::uint64_t fsize_;
    LiveRanges live_;
    std::map<std::uint64_t, std::uint64_t> index_to_addr_;  ///< code_index -> live code_addr
    std::uint64_t last_off_ = 0, last_size_ = 0;            ///< the last header or record read
    std::uint32_t last_id_ = 0;
    bool have_header_ = false;
    bool closed_ = false;  ///< a CODE_CLOSE was read, at close_off_
    std::uint64_t close_off_ = 0;
    bool pending_debug_ = false;  ///< a CODE_DEBUG_INFO awaits its CODE_LOAD
    std::uint64_t pending_debug_addr_ = 0, pending_debug_off_ = 0;
};

void analyze_jitdump(const std::string& path, FileWindow& file, Sink& sink) {
    JitdumpChecker(path, file, sink).run();
}

void analyze_perfmap(FileWindow& file, Sink& sink) {
    PerfmapReader r;
    ML_(perfmap_init)(&r);
    const std::uint64_t fsize = file.size();
    std::size_t want = 1 << 20;
    LiveRanges live;
    for (;;) {
        std::size_t got = 0;
        const unsigned char* p = file.at(r.offset, want, &got);
        if (!p) {
            sink.problem(at_line(Severity::Error, r.line + 1,
                                 std::string("read error: ") + std::strerror(errno)));
            return;
        }
        const std::uint64_t left = r.offset < fsize ? fsize - r.offset : 0;
        const bool at_end = got == left;
        PerfmapEvent ev;
        const int kind = at_end ? ML_(perfmap_finish)(&r, got ? p : nullptr, got, &ev)
                                : ML_(perfmap_next)(&r, p, got, &ev);
        if (kind == PERFMAP_EV_NEED_MORE) {
            if (left > got) {
                want = ev.need;
                continue;
            }
            break;
        }
        want = 1 << 20;
        const bool unterminated = ev.offset + ev.advance == fsize && p[ev.advance - 1] != '\n' &&
                                  kind != PERFMAP_EV_SKIPPED;
        if (kind == PERFMAP_EV_BAD_LINE) {
            std::string msg = ML_(perfmap_strerror)(ev.error);
            switch (ev.error) {
            case PERFMAP_ERR_LINE_TOO_LONG: break;
            case PERFMAP_ERR_BAD_START:
            case PERFMAP_ERR_BAD_SIZE:
            case PERFMAP_ERR_NUMBER_TOO_BIG:
            case PERFMAP_ERR_MISSING_NAME:
                msg += "; line skipped (expected \"START SIZE name\", START and SIZE in hex)";
                break;
            default: msg += "; line skipped"; break;
            }
            sink.problem(at_line(Severity::Error, ev.line, msg));
        } else if (kind == PERFMAP_EV_ENTRY) {
            const std::string name(ev.entry.name, ev.entry.name_len);
            sink.perfmap_entry(ev.line, ev.offset, ev.entry, name);
            for (const std::string& c :
                 live.add(ev.entry.start, ev.entry.size, name, ev.line, true))
                sink.problem(at_line(Severity::Warning, ev.line, c));
        }
        if (unterminated)
            sink.problem(at_line(Severity::Error, ev.line,
                                 "last line has no terminating newline (truncated file, or "
                                 "the writer was still writing it)"));
    }
}

}  // namespace

std::string record_kind_name(std::uint32_t id) {
    if (id > JITDUMP_CODE_UNWINDING_INFO) return "id " + std::to_string(id);
    return ML_(jitdump_record_name)(id);
}

std::string elf_machine_name(std::uint32_t mach) {
    switch (mach) {
    case 3: return "x86";
    case 8: return "MIPS";
    case 20: return "PowerPC";
    case 21: return "PowerPC64";
    case 22: return "S/390";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    case 258: return "LoongArch";
    default: return "machine " + std::to_string(mach);
    }
}

long long pid_from_file_name(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string digits;
    auto take = [&](const std::string& prefix, const std::string& suffix) {
        if (base.size() <= prefix.size() + suffix.size()) return false;
        if (base.compare(0, prefix.size(), prefix) != 0) return false;
        if (base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
        digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
        return digits.size() <= 10 && std::all_of(digits.begin(), digits.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; });
    };
    if (take("jit-", ".dump") || take("perf-", ".map")) return std::stoll(digits);
    return -1;
}

Format detect_format(const std::string& path, const std::vector<unsigned char>& head) {
    if (head.size() >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
        return Format::Elf;
    if (head.size() >= 4) {
        const bool le = head[0] == 0x44 && head[1] == 0x54 && head[2] == 0x69 && head[3] == 0x4A;
        const bool be = head[0] == 0x4A && head[1] == 0x69 && head[2] == 0x54 && head[3] == 0x44;
        if (le || be) return Format::Jitdump;
    }
    const std::string suffix = ".dump";
    if (path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
        return Format::Jitdump;
    return Format::Perfmap;
}

bool analyze_file(const std::string& path, const AnalyzeOptions& opts, Sink& sink) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sink.problem(
            whole_file(Severity::Error, std::string("cannot open: ") + std::strerror(errno)));
        return false;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        sink.problem(whole_file(Severity::Error, std::string("cannot stat: ") + std::strerror(e)));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        sink.problem(whole_file(Severity::Error, S_ISDIR(st.st_mode)
                                                     ? "is a directory"
                                                     : "not a regular file (a pipe or device?)"));
        return false;
    }
    FileWindow file(fd, static_cast<std::uint64_t>(st.st_size));
    Format fmt = opts.format;
    if (fmt == Format::Auto) {
        std::size_t got = 0;
        const unsigned char* p = file.at(0, 4, &got);
        if (!p) {
            sink.problem(
                whole_file(Severity::Error, std::string("read error: ") + std::strerror(errno)));
            return false;
        }
        fmt = detect_format(path, std::vector<unsigned char>(p, p + got));
    }
    if (fmt == Format::Elf) {
        sink.problem(whole_file(Severity::Error, "an ELF object, not a jitdump file or perf map"));
        return true;
    }
    sink.format(fmt);
    if (fmt == Format::Jitdump)
        analyze_jitdump(path, file, sink);
    else
        analyze_perfmap(file, sink);
    return true;
}

}  // namespace vgjit
