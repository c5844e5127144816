// parser_driver.hpp: drives the jitdump and perf map readers over an
// in-memory "file" the way a real caller would, with different feeding
// strategies, and renders every event as one line of text so that tests
// can compare runs and assert on decoded fields.
//
// Feeding strategies (they must all give identical event lists):
//   Whole    - the whole file is present from the start;
//   Split    - only the first `split` bytes exist at first; when the
//              reader needs more, the rest of the file appears;
//   Growing  - the file grows one byte each time the reader asks for more
//              (a producer writing byte by byte);
//   Minimal  - the caller hands over exactly `need` bytes after each
//              NEED_MORE, and nothing up front: proves `need` suffices.
#pragma once

#include "analyze.hpp"  // vgjit::hex; includes priv_jitformats.h

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace jitdump_test {

enum class Feed { Whole, Split, Growing, Minimal };

using vgjit::hex;

/// Text for one non-NEED_MORE jitdump event (code/data pointers are
/// deliberately left out: they depend on how much the caller buffered).
inline std::string describe(const JitdumpReader& r, const JitdumpEvent& ev) {
    std::ostringstream o;
    const JitdumpRecord& rec = ev.rec;
    switch (ev.kind) {
    case JITDUMP_EV_HEADER:
        o << "HEADER @" << ev.offset << " v" << ev.header.version
          << " size=" << ev.header.header_size << " mach=" << ev.header.elf_mach
          << " pid=" << ev.header.pid << " ts=" << ev.header.timestamp
          << " flags=" << ev.header.flags << " adv=" << ev.advance;
        return o.str();
    case JITDUMP_EV_ERROR: o << "ERROR @" << ev.offset << " " << ev.error; return o.str();
    case JITDUMP_EV_UNKNOWN:
        o << "UNKNOWN @" << ev.offset << " id=" << rec.id << " size=" << rec.total_size
          << " ts=" << rec.timestamp;
        return o.str();
    case JITDUMP_EV_BAD_RECORD:
        o << "BAD @" << ev.offset << " id=" << rec.id << " size=" << rec.total_size
          << " err=" << ev.error;
        return o.str();
    case JITDUMP_EV_RECORD: break;
    default: throw std::logic_error("describe: unexpected event kind");
    }
    if (ev.advance != rec.total_size) throw std::logic_error("record advance != total_size");
    switch (rec.id) {
    case JITDUMP_CODE_LOAD: {
        const JitdumpCodeLoad& l = rec.u.load;
        o << "LOAD @" << ev.offset << " ts=" << rec.timestamp << " pid=" << l.pid
          << " tid=" << l.tid << " vma=" << hex(l.vma) << " addr=" << hex(l.code_addr)
          << " size=" << hex(l.code_size) << " index=" << l.code_index << " name='"
          << std::string(l.name, l.name_len) << "' code_bytes=" << l.code_bytes
          << " code_at=" << l.code_file_offset;
        if (l.name[l.name_len] != '\0') throw std::logic_error("name not NUL-terminated in buffer");
        if (l.name_is_ascii != (std::all_of(l.name, l.name + l.name_len,
                                            [](char c) {
                                                const auto u = static_cast<unsigned char>(c);
                                                return u >= 0x20 && u <= 0x7E;
                                            })
                                    ? 1
                                    : 0))
            throw std::logic_error("name_is_ascii disagrees with the name's bytes");
        break;
    }
    case JITDUMP_CODE_MOVE: {
        const JitdumpCodeMove& m = rec.u.move;
        o << "MOVE @" << ev.offset << " ts=" << rec.timestamp << " pid=" << m.pid
          << " tid=" << m.tid << " vma=" << hex(m.vma) << " old=" << hex(m.old_code_addr)
          << " new=" << hex(m.new_code_addr) << " size=" << hex(m.code_size)
          << " index=" << m.code_index;
        break;
    }
    case JITDUMP_CODE_DEBUG_INFO: {
        const JitdumpDebugInfo& d = rec.u.debug;
        o << "DEBUG @" << ev.offset << " ts=" << rec.timestamp << " addr=" << hex(d.code_addr)
          << " n=" << d.nr_entry;
        JitdumpDebugIter it;
        JitdumpDebugEntry e;
        ML_(jitdump_debug_iter_init)(&it, &r, &d);
        int k;
        while ((k = ML_(jitdump_debug_entry_next)(&it, &e)) == 1)
            o << " [" << hex(e.code_addr) << " " << std::string(e.filename, e.filename_len) << ":"
              << e.line << ":" << e.discrim << (e.same_as_previous ? " same" : "")
              << (e.garbled ? " garbled" : "") << "]";
        if (k != 0) o << " ITER-ERROR";
        break;
    }
    case JITDUMP_CODE_CLOSE: o << "CLOSE @" << ev.offset << " ts=" << rec.timestamp; break;
    case JITDUMP_CODE_UNWINDING_INFO: {
        const JitdumpUnwindingInfo& u = rec.u.unwind;
        o << "UNWIND @" << ev.offset << " ts=" << rec.timestamp << " unwind=" << u.unwinding_size
          << " ehhdr=" << u.eh_frame_hdr_size << " mapped=" << u.mapped_size
          << " data=" << u.data_len << " data_at=" << u.data_file_offset;
        break;
    }
    default: throw std::logic_error("RECORD event with unknown id");
    }
    return o.str();
}

/// Runs a jitdump reader over `file` with the given strategy.  Returns the
/// events as text; the last line is "END @off need=N" when the reader
/// waits for bytes that never come.  Throws std::logic_error when an
/// invariant of the API is violated (progress, monotonic offsets,
/// need > len, sticky errors).
inline std::vector<std::string> run_jitdump(const std::vector<unsigned char>& file, Feed mode,
                                            std::size_t split = 0, unsigned long max_hold = 0) {
    JitdumpReader r;
    ML_(jitdump_init)(&r, max_hold);
    const std::size_t n = file.size();
    std::size_t avail = mode == Feed::Split ? split : mode == Feed::Growing ? 0 : n;
    std::size_t cap = 0;  // Minimal: bytes the caller hands over now
    std::vector<std::string> out;
    for (std::size_t guard = 0;; ++guard) {
        if (guard > 4 * n * n + 10 * n + 100) throw std::logic_error("reader does not terminate");
        const unsigned long long off = r.offset;
        std::size_t have = off < avail ? avail - static_cast<std::size_t>(off) : 0;
        if (mode == Feed::Minimal && have > cap) have = cap;
        JitdumpEvent ev;
        int kind = ML_(jitdump_next)(&r, have ? file.data() + off : nullptr, have, &ev);
        if (kind != ev.kind) throw std::logic_error("return value != ev.kind");
        if (r.offset < off) throw std::logic_error("offset went backwards");
        if (kind == JITDUMP_EV_NEED_MORE) {
            if (r.offset != off || ev.advance != 0)
                throw std::logic_error("NEED_MORE consumed bytes");
            if (ev.need <= have) throw std::logic_error("need <= len");
            if (ev.need > (max_hold ? std::max<unsigned long>(max_hold, JITDUMP_MIN_BUFFER)
                                    : JITDUMP_DEBUG_INFO_MAX))
                throw std::logic_error("need above the documented bound");
            std::size_t could = off < avail ? avail - static_cast<std::size_t>(off) : 0;
            if (mode == Feed::Minimal && could > have) {
                cap = ev.need;
                continue;
            }
            if (avail < n) {
                avail = mode == Feed::Growing ? avail + 1 : n;
                continue;
            }
            out.push_back("END @" + std::to_string(off) + " need=" + std::to_string(ev.need));
            return out;
        }
        cap = 0;
        if (kind == JITDUMP_EV_ERROR) {
            if (r.offset != off) throw std::logic_error("hard error consumed bytes");
            JitdumpEvent again;
            if (ML_(jitdump_next)(&r, file.data(), n, &again) != JITDUMP_EV_ERROR ||
                again.error != ev.error || r.offset != off)
                throw std::logic_error("hard error is not sticky");
            out.push_back(describe(r, ev));
            return out;
        }
        if (r.offset == off || r.offset - off != ev.advance)
            throw std::logic_error("event without progress");
        out.push_back(describe(r, ev));
    }
}

/// Text for one perf map event (not NEED_MORE).
inline std::string describe(const PerfmapEvent& ev) {
    std::ostringstream o;
    switch (ev.kind) {
    case PERFMAP_EV_ENTRY:
        o << "ENTRY L" << ev.line << " @" << ev.offset << " " << hex(ev.entry.start) << "+"
          << hex(ev.entry.size) << " '" << std::string(ev.entry.name, ev.entry.name_len) << "'";
        break;
    case PERFMAP_EV_BAD_LINE:
        o << "BAD L" << ev.line << " @" << ev.offset << " err=" << ev.error;
        break;
    case PERFMAP_EV_SKIPPED: o << "SKIP L" << ev.line; break;
    default: throw std::logic_error("describe: unexpected perf map event");
    }
    return o.str();
}

/// Runs a perf map reader over `file` (same strategies as run_jitdump).
/// If `finish`, the file is treated as complete at the end (a last line
/// without '\n' is parsed); otherwise the last line is "END @off".
/// SKIPPED events are merged away (their count depends on buffering).
inline std::vector<std::string> run_perfmap(const std::vector<unsigned char>& file, Feed mode,
                                            std::size_t split = 0, bool finish = false) {
    PerfmapReader r;
    ML_(perfmap_init)(&r);
    const std::size_t n = file.size();
    std::size_t avail = mode == Feed::Split ? split : mode == Feed::Growing ? 0 : n;
    std::size_t cap = 0;
    std::vector<std::string> out;
    for (std::size_t guard = 0;; ++guard) {
        if (guard > 4 * n * n + 10 * n + 100) throw std::logic_error("reader does not terminate");
        const unsigned long long off = r.offset;
        std::size_t have = off < avail ? avail - static_cast<std::size_t>(off) : 0;
        if (mode == Feed::Minimal && have > cap) have = cap;
        const bool at_end = avail == n && (mode != Feed::Minimal || have == n - off);
        PerfmapEvent ev;
        const unsigned char* p = have ? file.data() + off : nullptr;
        int kind = (finish && at_end) ? ML_(perfmap_finish)(&r, p, have, &ev)
                                      : ML_(perfmap_next)(&r, p, have, &ev);
        if (kind != ev.kind) throw std::logic_error("return value != ev.kind");
        if (kind == PERFMAP_EV_NEED_MORE) {
            if (r.offset != off || ev.advance != 0)
                throw std::logic_error("NEED_MORE consumed bytes");
            if (ev.need <= have) throw std::logic_error("need <= len");
            if (ev.need > PERFMAP_MIN_BUFFER) throw std::logic_error("need above bound");
            std::size_t could = off < avail ? avail - static_cast<std::size_t>(off) : 0;
            if (mode == Feed::Minimal && could > have) {
                cap = ev.need;
                continue;
            }
            if (avail < n) {
                avail = mode == Feed::Growing ? avail + 1 : n;
                continue;
            }
            out.push_back("END @" + std::to_string(off));
            return out;
        }
        cap = 0;
        if (ev.advance == 0 || ev.advance > have || r.offset != off + ev.advance)
            throw std::logic_error("perf map event without proper progress");
        if (kind != PERFMAP_EV_SKIPPED) out.push_back(describe(ev));
    }
}

}  // namespace jitdump_test
