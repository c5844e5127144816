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

std::string hard_error_text(const JitdumpEvent& ev) {
    std::ostringstream o;
    const JitdumpRecord& rec = ev.rec;
    switch (ev.error) {
    case JITDUMP_ERR_BAD_MAGIC:
        o << "not a jitdump file: the first 4 bytes are not the magic \"JiTD\" (0x4a695444)";
        break;
    case JITDUMP_ERR_FOREIGN_BYTE_ORDER:
        o << "the jitdump magic is byte-swapped: the file was written on a machine of the "
             "other byte order, which is not supported";
        break;
    case JITDUMP_ERR_BAD_VERSION:
        o << "unsupported jitdump version " << ev.header.version << " (versions 1 and 2 are known)";
        break;
    case JITDUMP_ERR_HEADER_TOO_SHORT:
        o << "file header total_size " << ev.header.header_size
          << " is smaller than the 40 bytes of the header fields";
        break;
    case JITDUMP_ERR_HEADER_TOO_LARGE:
        o << "file header total_size " << ev.header.header_size
          << " is implausibly large (over 1 MiB)";
        break;
    case JITDUMP_ERR_RECORD_TOO_SHORT:
        o << record_kind_name(rec.id) << " record has total_size " << rec.total_size
          << ", smaller than its fixed part of " << ML_(jitdump_fixed_size)(rec.id) << " bytes";
        break;
    case JITDUMP_ERR_RECORD_TOO_LARGE:
        o << record_kind_name(rec.id) << " record has total_size " << rec.total_size
          << " (over 1 GiB): the record framing is corrupt";
        break;
    default: o << ML_(jitdump_strerror)(ev.error); break;
    }
    o << "; the rest of the file cannot be read";
    return o.str();
}

std::string soft_error_text(const JitdumpEvent& ev, unsigned long max_hold) {
    std::ostringstream o;
    const JitdumpRecord& rec = ev.rec;
    switch (ev.error) {
    case JITDUMP_ERR_NAME_UNTERMINATED:
        o << "CODE_LOAD function name is not NUL-terminated within the record (total_size "
          << rec.total_size << ") or is longer than " << JITDUMP_NAME_MAX << " bytes";
        break;
    case JITDUMP_ERR_CODE_RANGE_WRAPS:
        if (rec.id == JITDUMP_CODE_LOAD)
            o << "CODE_LOAD code range wraps around the address space: code_addr "
              << hex(rec.u.load.code_addr) << " + code_size " << hex(rec.u.load.code_size);
        else
            o << "CODE_MOVE code range wraps around the address space: old_code_addr "
              << hex(rec.u.move.old_code_addr) << ", new_code_addr "
              << hex(rec.u.move.new_code_addr) << ", code_size " << hex(rec.u.move.code_size);
        break;
    case JITDUMP_ERR_DEBUG_INFO_TOO_LARGE:
        o << "CODE_DEBUG_INFO record of " << rec.total_size << " bytes exceeds the limit of "
          << max_hold << " bytes";
        break;
    case JITDUMP_ERR_DEBUG_NR_ENTRY:
        o << "CODE_DEBUG_INFO nr_entry " << rec.u.debug.nr_entry << " cannot fit in "
          << rec.u.debug.entries_len << " bytes of entries (each takes at least "
          << JITDUMP_DEBUG_ENTRY_MIN << ")";
        break;
    case JITDUMP_ERR_DEBUG_BEYOND_RECORD:
        o << "CODE_DEBUG_INFO entries run past the end of the record: nr_entry "
          << rec.u.debug.nr_entry << " entries do not fit in " << rec.u.debug.entries_len
          << " bytes, or a file name is not NUL-terminated";
        break;
    case JITDUMP_ERR_UNWIND_SIZES:
        o << "CODE_UNWINDING_INFO sizes are inconsistent: unwinding_size "
          << rec.u.unwind.unwinding_size << ", eh_frame_hdr_size " << rec.u.unwind.eh_frame_hdr_size
          << ", but the record holds " << rec.u.unwind.data_len << " bytes of data";
        break;
    default: o << ML_(jitdump_strerror)(ev.error); break;
    }
    o << "; record skipped";
    return o.str();
}

void analyze_jitdump(const std::string& path, FileWindow& file, Sink& sink) {
    JitdumpReader r;
    ML_(jitdump_init)(&r, 0);
    const long long name_pid = pid_from_file_name(path);
    const std::uint64_t fsize = file.size();
    std::size_t want = 1 << 20;
    LiveRanges live;
    std::map<std::uint64_t, std::uint64_t> index_to_addr;  // code_index -> live code_addr
    std::uint64_t last_off = 0, last_size = 0;
    std::uint32_t last_id = 0;
    bool have_header = false;
    bool closed = false;
    std::uint64_t close_off = 0;
    std::uint64_t pending_debug_addr = 0, pending_debug_off = 0;
    bool pending_debug = false;

    if (fsize == 0) {
        sink.problem(at_offset(Severity::Error, 0, "empty file: no jitdump header"));
        return;
    }
    for (;;) {
        std::size_t got = 0;
        const unsigned char* p = file.at(r.offset, want, &got);
        if (!p) {
            sink.problem(at_offset(Severity::Error, r.offset,
                                   std::string("read error: ") + std::strerror(errno)));
            return;
        }
        JitdumpEvent ev;
        const int kind = ML_(jitdump_next)(&r, got ? p : nullptr, got, &ev);
        if (kind == JITDUMP_EV_NEED_MORE) {
            const std::uint64_t left = r.offset < fsize ? fsize - r.offset : 0;
            if (left > got) {  // the window was too small: widen it
                want = ev.need;
                continue;
            }
            break;
        }
        want = 1 << 20;
        if (kind == JITDUMP_EV_ERROR) {
            sink.problem(at_offset(Severity::Error, ev.offset, hard_error_text(ev)));
            return;
        }
        if (kind == JITDUMP_EV_HEADER) {
            const JitdumpHeader& h = ev.header;
            sink.jitdump_header(h);
            if (name_pid >= 0 && static_cast<unsigned long long>(name_pid) != h.pid)
                sink.problem(at_offset(Severity::Error, 20,
                                       "header pid " + std::to_string(h.pid) +
                                           " differs from the pid " + std::to_string(name_pid) +
                                           " in the file name"));
            if (h.flags & ~JITDUMP_FLAG_ARCH_TIMESTAMP)
                sink.problem(at_offset(Severity::Warning, 32,
                                       "header flags " + hex(h.flags) + " has reserved bits set"));
            last_off = 0;
            last_size = h.header_size;
            have_header = true;
            continue;
        }
        const JitdumpRecord& rec = ev.rec;
        last_off = rec.file_offset;
        last_size = rec.total_size;
        last_id = rec.id;
        if (kind == JITDUMP_EV_BAD_RECORD) {
            sink.problem(at_offset(Severity::Error, ev.offset, soft_error_text(ev, r.max_hold)));
            continue;
        }
        if (closed)
            sink.problem(at_offset(Severity::Warning, ev.offset,
                                   record_kind_name(rec.id) +
                                       " record after the CODE_CLOSE record at offset " +
                                       std::to_string(close_off)));
        if (kind == JITDUMP_EV_UNKNOWN) {
            sink.jitdump_record(rec, false, std::string(), {});
            continue;
        }
        std::string name;
        std::vector<DebugLine> lines;
        const std::uint32_t hpid = r.header.pid;
        switch (rec.id) {
        case JITDUMP_CODE_LOAD: {
            const JitdumpCodeLoad& l = rec.u.load;
            name.assign(l.name, l.name_len);
            if (l.pid != hpid)
                sink.problem(at_offset(Severity::Error, ev.offset + 16,
                                       "CODE_LOAD '" + name + "' has pid " + std::to_string(l.pid) +
                                           ", the header says " + std::to_string(hpid)));
            if (l.code_size == 0)
                sink.problem(at_offset(
                    Severity::Warning, ev.offset,
                    "CODE_LOAD '" + name + "' has code_size 0: there is no code to name"));
            else if (l.code_bytes < l.code_size)
                sink.problem(
                    at_offset(Severity::Warning, ev.offset,
                              "CODE_LOAD '" + name + "' carries " + std::to_string(l.code_bytes) +
                                  " code bytes but code_size is " + std::to_string(l.code_size)));
            if (pending_debug && pending_debug_addr != l.code_addr)
                sink.problem(at_offset(Severity::Warning, pending_debug_off,
                                       "CODE_DEBUG_INFO for " + hex(pending_debug_addr) +
                                           " is followed by a CODE_LOAD for " + hex(l.code_addr) +
                                           ", not for its address"));
            pending_debug = false;
            for (const std::string& c : live.add(l.code_addr, l.code_size, name, ev.offset, false))
                sink.problem(at_offset(Severity::Warning, ev.offset, c));
            if (l.code_size) index_to_addr[l.code_index] = l.code_addr;
            break;
        }
        case JITDUMP_CODE_MOVE: {
            const JitdumpCodeMove& m = rec.u.move;
            if (m.pid != hpid)
                sink.problem(at_offset(Severity::Error, ev.offset + 16,
                                       "CODE_MOVE has pid " + std::to_string(m.pid) +
                                           ", the header says " + std::to_string(hpid)));
            auto it = index_to_addr.find(m.code_index);
            std::string moved = "code_index " + std::to_string(m.code_index);
            if (it == index_to_addr.end()) {
                sink.problem(at_offset(Severity::Warning, ev.offset,
                                       "CODE_MOVE for code_index " + std::to_string(m.code_index) +
                                           " that no earlier CODE_LOAD announced"));
            } else {
                if (const LiveRanges::Range* rr = live.find(it->second)) moved = rr->name;
                if (it->second != m.old_code_addr)
                    sink.problem(at_offset(Severity::Warning, ev.offset,
                                           "CODE_MOVE old_code_addr " + hex(m.old_code_addr) +
                                               " but code_index " + std::to_string(m.code_index) +
                                               " lives at " + hex(it->second)));
                live.remove(it->second, m.code_size);
            }
            for (const std::string& c :
                 live.add(m.new_code_addr, m.code_size, moved, ev.offset, false))
                sink.problem(at_offset(Severity::Warning, ev.offset, c));
            if (m.code_size) index_to_addr[m.code_index] = m.new_code_addr;
            break;
        }
        case JITDUMP_CODE_DEBUG_INFO: {
            JitdumpDebugIter it;
            JitdumpDebugEntry e;
            ML_(jitdump_debug_iter_init)(&it, &r, &rec.u.debug);
            bool warned_line0 = false;
            while (ML_(jitdump_debug_entry_next)(&it, &e) == 1) {
                lines.push_back(DebugLine{e.code_addr, e.line, e.discrim,
                                          std::string(e.filename, e.filename_len),
                                          e.same_as_previous != 0, e.garbled != 0});
                if (e.garbled && lines.size() == 1)
                    sink.problem(at_offset(Severity::Warning, ev.offset,
                                           "CODE_DEBUG_INFO entries carry name fields of one size "
                                           "that hold no name (as V8 writes them): their file is "
                                           "unknown"));
                if (e.line == 0 && !warned_line0) {
                    warned_line0 = true;
                    sink.problem(at_offset(Severity::Warning, ev.offset,
                                           "CODE_DEBUG_INFO entry for " + hex(e.code_addr) +
                                               " has line 0 (lines are 1-based)"));
                }
                if (e.same_as_previous && lines.size() == 1)
                    sink.problem(at_offset(Severity::Warning, ev.offset,
                                           "first CODE_DEBUG_INFO entry says \"same file as "
                                           "the previous entry\" but there is none"));
            }
            if (pending_debug)
                sink.problem(at_offset(Severity::Warning, pending_debug_off,
                                       "CODE_DEBUG_INFO for " + hex(pending_debug_addr) +
                                           " is not followed by a CODE_LOAD"));
            pending_debug = true;
            pending_debug_addr = rec.u.debug.code_addr;
            pending_debug_off = ev.offset;
            break;
        }
        case JITDUMP_CODE_CLOSE:
            closed = true;
            close_off = ev.offset;
            break;
        case JITDUMP_CODE_UNWINDING_INFO: {
            // The .eh_frame after the .eh_frame_hdr, checked as the core
            // checks it before its CFI reader sees it.
            const JitdumpUnwindingInfo& u = rec.u.unwind;
            const unsigned long long eh_size = u.unwinding_size - u.eh_frame_hdr_size;
            if (u.data != nullptr && eh_size > 0) {
                if (const char* why = ML_(jit_cfi_check_records)(u.data, eh_size, 1))
                    sink.problem(at_offset(
                        Severity::Warning, ev.offset,
                        std::string("CODE_UNWINDING_INFO's .eh_frame is refused: ") + why));
            }
            break;
        }
        default: break;
        }
        sink.jitdump_record(rec, true, name, lines);
    }

    // End of the file: everything must have been consumed exactly.
    if (pending_debug)
        sink.problem(at_offset(
            Severity::Warning, pending_debug_off,
            "CODE_DEBUG_INFO for " + hex(pending_debug_addr) + " is not followed by a CODE_LOAD"));
    if (r.offset > fsize) {
        std::ostringstream m;
        if (last_off == 0)
            m << "truncated file header: its total_size " << last_size
              << " extends beyond the end of the file";
        else
            m << "truncated " << record_kind_name(last_id) << " record: total_size " << last_size
              << " extends " << (r.offset - fsize) << " bytes beyond the end of the file (only "
              << (fsize - last_off) << " bytes present)";
        sink.problem(at_offset(Severity::Error, last_off, m.str()));
    } else if (r.offset < fsize) {
        const std::uint64_t left = fsize - r.offset;
        std::ostringstream m;
        if (!have_header)
            m << "truncated file header: the file has " << left << " bytes, a jitdump header needs "
              << JITDUMP_HEADER_SIZE;
        else if (left < JITDUMP_PREFIX_SIZE)
            m << "truncated record: the last " << left
              << " bytes are too few for a record prefix (16 bytes)";
        else {
            std::size_t got = 0;
            const unsigned char* p = file.at(r.offset, JITDUMP_PREFIX_SIZE, &got);
            std::uint32_t id = 0, total = 0;
            if (p && got >= 8) {
                std::memcpy(&id, p, 4);
                std::memcpy(&total, p + 4, 4);
            }
            m << "truncated " << record_kind_name(id) << " record: total_size " << total
              << " but only " << left << " bytes left in the file";
        }
        sink.problem(at_offset(Severity::Error, r.offset, m.str()));
    }
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
    switch (id) {
    case JITDUMP_CODE_LOAD: return "CODE_LOAD";
    case JITDUMP_CODE_MOVE: return "CODE_MOVE";
    case JITDUMP_CODE_DEBUG_INFO: return "CODE_DEBUG_INFO";
    case JITDUMP_CODE_CLOSE: return "CODE_CLOSE";
    case JITDUMP_CODE_UNWINDING_INFO: return "CODE_UNWINDING_INFO";
    default: return "id " + std::to_string(id);
    }
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
