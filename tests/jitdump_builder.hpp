// jitdump_builder.hpp: builds jitdump byte streams for tests and fixtures.
//
// Layout follows Linux tools/perf/Documentation/jitdump-specification.txt
// as the shared reader names it (priv_jitformats.h: JITDUMP_HDR_*,
// JITDUMP_REC_*, JITDUMP_LOAD_*, ...): every field is written at its named
// offset, so the writer cannot drift from the reader.  Every multi-byte
// field is written in the byte order chosen at construction, so tests can
// produce files "from the other machine" too.  Sizes are computed unless
// a test overrides them to build malformed input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "priv_jitformats.h"

namespace jitdump_test {

/// True when this machine stores the least significant byte first.
inline bool host_little_endian() {
    const std::uint32_t one = 1;
    return *reinterpret_cast<const unsigned char*>(&one) == 1;
}

/// One CODE_DEBUG_INFO line-table entry.  `file` is written verbatim
/// followed by a NUL (pass "\xff" for the "same file as before" marker).
struct DebugEntrySpec {
    std::uint64_t addr;
    std::uint32_t line;
    std::uint32_t discrim;
    std::string file;
};

/// Appends header and records to `bytes`.  All methods return *this.
class JitdumpBuilder {
public:
    /// `little_endian`: byte order of every field (default: the host's).
    explicit JitdumpBuilder(bool little_endian = host_little_endian()) : le_(little_endian) {}

    std::vector<unsigned char> bytes;

    JitdumpBuilder& u8(std::uint8_t v) {
        bytes.push_back(v);
        return *this;
    }
    JitdumpBuilder& u32(std::uint32_t v) {
        put(v, 4);
        return *this;
    }
    JitdumpBuilder& u64(std::uint64_t v) {
        put(v, 8);
        return *this;
    }
    /// Writes the characters of `s` and, if `nul`, a terminating NUL.
    JitdumpBuilder& str(const std::string& s, bool nul = true) {
        bytes.insert(bytes.end(), s.begin(), s.end());
        if (nul) bytes.push_back(0);
        return *this;
    }
    JitdumpBuilder& fill(std::size_t n, unsigned char c) {
        bytes.insert(bytes.end(), n, c);
        return *this;
    }

    /// File header.  `total_size` defaults to 40 + extra; `extra` bytes
    /// (value 0xEE) are appended after the known fields.
    JitdumpBuilder& header(std::uint32_t version = 1, std::uint32_t pid = 4242,
                           std::uint64_t timestamp = 1000, std::uint64_t flags = 0,
                           std::uint32_t extra = 0,
                           std::optional<std::uint32_t> total_size = std::nullopt,
                           std::uint32_t magic = JITDUMP_MAGIC, std::uint32_t elf_mach = 62) {
        std::vector<unsigned char> h(JITDUMP_HEADER_SIZE);
        set32(h, JITDUMP_HDR_MAGIC, magic);
        set32(h, JITDUMP_HDR_VERSION, version);
        set32(h, JITDUMP_HDR_TOTAL_SIZE, total_size ? *total_size : JITDUMP_HEADER_SIZE + extra);
        set32(h, JITDUMP_HDR_ELF_MACH, elf_mach);
        set32(h, JITDUMP_HDR_PID, pid);
        set64(h, JITDUMP_HDR_TIMESTAMP, timestamp);
        set64(h, JITDUMP_HDR_FLAGS, flags);
        bytes.insert(bytes.end(), h.begin(), h.end());
        return fill(extra, 0xEE);
    }

    /// Record prefix followed by `payload`; total_size defaults to
    /// 16 + payload size.
    JitdumpBuilder& record(std::uint32_t id, std::uint64_t timestamp,
                           const std::vector<unsigned char>& payload,
                           std::optional<std::uint32_t> total_size = std::nullopt) {
        std::vector<unsigned char> r(JITDUMP_PREFIX_SIZE);
        r.insert(r.end(), payload.begin(), payload.end());
        return finish(id, timestamp, r, total_size);
        return *this;
    }

    /// CODE_LOAD with `code` bytes after the NUL-terminated name
    /// (`code` defaults to code_size bytes of 0x90 when nullopt).
    JitdumpBuilder& code_load(std::uint64_t addr, std::uint64_t size, const std::string& name,
                              std::uint64_t index = 1, std::uint64_t timestamp = 2000,
                              std::uint32_t pid = 4242, std::uint32_t tid = 4243,
                              std::optional<std::vector<unsigned char>> code = std::nullopt,
                              std::optional<std::uint32_t> total_size = std::nullopt,
                              bool name_nul = true) {
        std::vector<unsigned char> r(JITDUMP_CODE_LOAD_FIXED);
        set32(r, JITDUMP_LOAD_PID, pid);
        set32(r, JITDUMP_LOAD_TID, tid);
        set64(r, JITDUMP_LOAD_VMA, addr);
        set64(r, JITDUMP_LOAD_CODE_ADDR, addr);
        set64(r, JITDUMP_LOAD_CODE_SIZE, size);
        set64(r, JITDUMP_LOAD_CODE_INDEX, index);
        r.insert(r.end(), name.begin(), name.end());
        if (name_nul) r.push_back(0);
        if (code)
            r.insert(r.end(), code->begin(), code->end());
        else
            r.insert(r.end(), static_cast<std::size_t>(size), 0x90);
        return finish(JITDUMP_CODE_LOAD, timestamp, r, total_size);
    }

    JitdumpBuilder& code_move(std::uint64_t old_addr, std::uint64_t new_addr, std::uint64_t size,
                              std::uint64_t index, std::uint64_t timestamp = 3000,
                              std::uint32_t pid = 4242, std::uint32_t tid = 4243,
                              std::optional<std::uint32_t> total_size = std::nullopt) {
        std::vector<unsigned char> r(JITDUMP_CODE_MOVE_FIXED);
        set32(r, JITDUMP_MOVE_PID, pid);
        set32(r, JITDUMP_MOVE_TID, tid);
        set64(r, JITDUMP_MOVE_VMA, new_addr);
        set64(r, JITDUMP_MOVE_OLD_CODE_ADDR, old_addr);
        set64(r, JITDUMP_MOVE_NEW_CODE_ADDR, new_addr);
        set64(r, JITDUMP_MOVE_CODE_SIZE, size);
        set64(r, JITDUMP_MOVE_CODE_INDEX, index);
        return finish(JITDUMP_CODE_MOVE, timestamp, r, total_size);
    }

    /// CODE_DEBUG_INFO; `nr_entry` defaults to entries.size().
    JitdumpBuilder& debug_info(std::uint64_t addr, const std::vector<DebugEntrySpec>& entries,
                               std::optional<std::uint64_t> nr_entry = std::nullopt,
                               std::uint64_t timestamp = 1500,
                               std::optional<std::uint32_t> total_size = std::nullopt,
                               std::size_t trailing_pad = 0) {
        std::vector<unsigned char> r(JITDUMP_DEBUG_INFO_FIXED);
        set64(r, JITDUMP_DEBUG_CODE_ADDR, addr);
        set64(r, JITDUMP_DEBUG_NR_ENTRY, nr_entry ? *nr_entry : entries.size());
        for (const auto& e : entries) {
            std::vector<unsigned char> entry(JITDUMP_ENTRY_NAME);
            set64(entry, JITDUMP_ENTRY_ADDR, e.addr);
            set32(entry, JITDUMP_ENTRY_LINE, e.line);
            set32(entry, JITDUMP_ENTRY_DISCRIM, e.discrim);
            entry.insert(entry.end(), e.file.begin(), e.file.end());
            entry.push_back(0);
            r.insert(r.end(), entry.begin(), entry.end());
        }
        r.insert(r.end(), trailing_pad, 0);
        return finish(JITDUMP_CODE_DEBUG_INFO, timestamp, r, total_size);
    }

    JitdumpBuilder& code_close(std::uint64_t timestamp = 9000) {
        return record(JITDUMP_CODE_CLOSE, timestamp, {});
    }

    /// CODE_UNWINDING_INFO with `data_len` bytes of data: the .eh_frame
    /// first (its `unwind_size - eh_hdr_size` bytes zero: a terminator,
    /// which the core accepts), then the .eh_frame_hdr and any rest
    /// (0xAB).
    JitdumpBuilder& unwinding(std::uint64_t unwind_size, std::uint64_t eh_hdr_size,
                              std::uint64_t mapped_size, std::size_t data_len,
                              std::uint64_t timestamp = 1800) {
        const std::size_t eh = unwind_size > eh_hdr_size
                                   ? std::min<std::size_t>(data_len, unwind_size - eh_hdr_size)
                                   : 0;
        std::vector<unsigned char> r = unwinding_fixed(unwind_size, eh_hdr_size, mapped_size);
        r.insert(r.end(), eh, 0);
        r.insert(r.end(), data_len - eh, 0xAB);
        return finish(JITDUMP_CODE_UNWINDING_INFO, timestamp, r);
    }

    /// CODE_UNWINDING_INFO carrying `eh_frame`, then an .eh_frame_hdr of
    /// `eh_hdr_size` bytes (0xAB), as perf's jitdump writers lay them out.
    JitdumpBuilder& unwinding_eh_frame(const std::vector<unsigned char>& eh_frame,
                                       std::uint64_t eh_hdr_size = 8,
                                       std::uint64_t timestamp = 1800) {
        std::vector<unsigned char> r = unwinding_fixed(eh_frame.size() + eh_hdr_size, eh_hdr_size,
                                                       eh_frame.size() + eh_hdr_size);
        r.insert(r.end(), eh_frame.begin(), eh_frame.end());
        r.insert(r.end(), static_cast<std::size_t>(eh_hdr_size), 0xAB);
        return finish(JITDUMP_CODE_UNWINDING_INFO, timestamp, r);
    }

private:
    void put(std::uint64_t v, unsigned n) {
        bytes.resize(bytes.size() + n);
        jitformats_st(&bytes[bytes.size() - n], n, v, !le_);
    }
    /// Sets the field of `n` bytes at offset `at` of r (inside r).
    void set(std::vector<unsigned char>& r, unsigned at, unsigned n, std::uint64_t v) const {
        jitformats_st(&r.at(at + n - 1) - (n - 1), n, v, !le_);
    }
    void set32(std::vector<unsigned char>& r, unsigned at, std::uint32_t v) const {
        set(r, at, 4, v);
    }
    void set64(std::vector<unsigned char>& r, unsigned at, std::uint64_t v) const {
        set(r, at, 8, v);
    }
    /// A CODE_UNWINDING_INFO's fixed part.
    std::vector<unsigned char> unwinding_fixed(std::uint64_t unwind_size, std::uint64_t eh_hdr_size,
                                               std::uint64_t mapped_size) const {
        std::vector<unsigned char> r(JITDUMP_UNWINDING_FIXED);
        set64(r, JITDUMP_UNWIND_SIZE, unwind_size);
        set64(r, JITDUMP_UNWIND_EH_HDR_SIZE, eh_hdr_size);
        set64(r, JITDUMP_UNWIND_MAPPED_SIZE, mapped_size);
        return r;
    }
    /// Sets the prefix of record r (its first JITDUMP_PREFIX_SIZE bytes;
    /// total_size r's size unless given) and appends r.
    JitdumpBuilder& finish(std::uint32_t id, std::uint64_t timestamp, std::vector<unsigned char>& r,
                           std::optional<std::uint32_t> total_size = std::nullopt) {
        set32(r, JITDUMP_REC_ID, id);
        set32(r, JITDUMP_REC_TOTAL_SIZE,
              total_size ? *total_size : static_cast<std::uint32_t>(r.size()));
        set64(r, JITDUMP_REC_TIMESTAMP, timestamp);
        bytes.insert(bytes.end(), r.begin(), r.end());
        return *this;
    }
    bool le_;
};

}  // namespace jitdump_test
