// jitdump_builder.hpp: builds jitdump byte streams for tests and fixtures.
//
// Layout follows Linux tools/perf/Documentation/jitdump-specification.txt:
// a 40-byte file header, then records that start with a 16-byte prefix
// (id u32, total_size u32, timestamp u64).  Every multi-byte field is
// written in the byte order chosen at construction, so tests can produce
// files "from the other machine" too.  Sizes are computed unless a test
// overrides them to build malformed input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
                           std::uint32_t magic = 0x4A695444u, std::uint32_t elf_mach = 62) {
        u32(magic).u32(version).u32(total_size ? *total_size : 40 + extra);
        u32(elf_mach).u32(0).u32(pid).u64(timestamp).u64(flags);
        return fill(extra, 0xEE);
    }

    /// Record prefix followed by `payload`; total_size defaults to
    /// 16 + payload size.
    JitdumpBuilder& record(std::uint32_t id, std::uint64_t timestamp,
                           const std::vector<unsigned char>& payload,
                           std::optional<std::uint32_t> total_size = std::nullopt) {
        u32(id).u32(total_size ? *total_size : static_cast<std::uint32_t>(16 + payload.size()));
        u64(timestamp);
        bytes.insert(bytes.end(), payload.begin(), payload.end());
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
        JitdumpBuilder p(le_);
        p.u32(pid).u32(tid).u64(addr).u64(addr).u64(size).u64(index);
        p.str(name, name_nul);
        if (code)
            p.bytes.insert(p.bytes.end(), code->begin(), code->end());
        else
            p.fill(static_cast<std::size_t>(size), 0x90);
        return record(0, timestamp, p.bytes, total_size);
    }

    JitdumpBuilder& code_move(std::uint64_t old_addr, std::uint64_t new_addr, std::uint64_t size,
                              std::uint64_t index, std::uint64_t timestamp = 3000,
                              std::uint32_t pid = 4242, std::uint32_t tid = 4243,
                              std::optional<std::uint32_t> total_size = std::nullopt) {
        JitdumpBuilder p(le_);
        p.u32(pid).u32(tid).u64(new_addr).u64(old_addr).u64(new_addr).u64(size).u64(index);
        return record(1, timestamp, p.bytes, total_size);
    }

    /// CODE_DEBUG_INFO; `nr_entry` defaults to entries.size().
    JitdumpBuilder& debug_info(std::uint64_t addr, const std::vector<DebugEntrySpec>& entries,
                               std::optional<std::uint64_t> nr_entry = std::nullopt,
                               std::uint64_t timestamp = 1500,
                               std::optional<std::uint32_t> total_size = std::nullopt,
                               std::size_t trailing_pad = 0) {
        JitdumpBuilder p(le_);
        p.u64(addr).u64(nr_entry ? *nr_entry : entries.size());
        for (const auto& e : entries) p.u64(e.addr).u32(e.line).u32(e.discrim).str(e.file);
        p.fill(trailing_pad, 0);
        return record(2, timestamp, p.bytes, total_size);
    }

    JitdumpBuilder& code_close(std::uint64_t timestamp = 9000) { return record(3, timestamp, {}); }

    /// CODE_UNWINDING_INFO with `data_len` bytes of data: the .eh_frame
    /// first (its `unwind_size - eh_hdr_size` bytes zero: a terminator,
    /// which the core accepts), then the .eh_frame_hdr and any rest
    /// (0xAB).
    JitdumpBuilder& unwinding(std::uint64_t unwind_size, std::uint64_t eh_hdr_size,
                              std::uint64_t mapped_size, std::size_t data_len,
                              std::uint64_t timestamp = 1800) {
        JitdumpBuilder p(le_);
        const std::size_t eh = unwind_size > eh_hdr_size
                                   ? std::min<std::size_t>(data_len, unwind_size - eh_hdr_size)
                                   : 0;
        p.u64(unwind_size).u64(eh_hdr_size).u64(mapped_size).fill(eh, 0).fill(data_len - eh, 0xAB);
        return record(4, timestamp, p.bytes);
    }

    /// CODE_UNWINDING_INFO carrying `eh_frame`, then an .eh_frame_hdr of
    /// `eh_hdr_size` bytes (0xAB), as perf's jitdump writers lay them out.
    JitdumpBuilder& unwinding_eh_frame(const std::vector<unsigned char>& eh_frame,
                                       std::uint64_t eh_hdr_size = 8,
                                       std::uint64_t timestamp = 1800) {
        JitdumpBuilder p(le_);
        p.u64(eh_frame.size() + eh_hdr_size).u64(eh_hdr_size).u64(eh_frame.size() + eh_hdr_size);
        p.bytes.insert(p.bytes.end(), eh_frame.begin(), eh_frame.end());
        p.fill(eh_hdr_size, 0xAB);
        return record(4, timestamp, p.bytes);
    }

private:
    void put(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) {
            int shift = le_ ? 8 * i : 8 * (n - 1 - i);
            bytes.push_back(static_cast<unsigned char>(v >> shift));
        }
    }
    bool le_;
};

}  // namespace jitdump_test
