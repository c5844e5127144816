// eh_frame.hpp - .eh_frame bytes (DWARF call frame information in the
// layout of the LSB's .eh_frame section) for x86-64 code a JIT emits, as a
// JIT hands them to Valgrind (VgJitCode.eh_frame of <valgrind/jit.h>, or a
// jitdump CODE_UNWINDING_INFO record).
//
// Part of the valgrind-jit example JIT (minijit); the test JITs of tests/
// build their CFI with it too.  Header-only, C++17, no dependencies.
//
// A code generator records, as it emits a function, where the canonical
// frame address (CFA: the caller's rsp before the call, i.e. the address
// above the return address) is relative to rsp, and where it saved the
// caller's registers (FrameCfi).  eh_frame() turns the rows into one CIE
// and one FDE: DW_CFA_advance_loc between rows, DW_CFA_def_cfa_offset
// where the CFA moves, DW_CFA_offset / DW_CFA_restore where a register is
// saved or holds the caller's value again.  FDE addresses are PC-relative
// 4-byte (DW_EH_PE_pcrel | DW_EH_PE_sdata4), so the bytes depend on the
// address the section is taken to lie at.

#ifndef VGJIT_EH_FRAME_HPP
#define VGJIT_EH_FRAME_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace ehframe {

/// DWARF register numbers of x86-64 (System V psABI, figure 3.36).
enum Register : int {
    kRax = 0,
    kRdx = 1,
    kRcx = 2,
    kRbx = 3,
    kRsi = 4,
    kRdi = 5,
    kRbp = 6,
    kRsp = 7,
    kR8 = 8,
    kR9 = 9,
    kR10 = 10,
    kR11 = 11,
    kR12 = 12,
    kR13 = 13,
    kR14 = 14,
    kR15 = 15,
    kReturnAddress = 16  ///< the return address column
};

/// The DWARF number of the x86-64 general register with hardware encoding
/// `index` (xbyak's Reg::getIdx(): rax 0, rcx 1, rdx 2, rbx 3, rsp 4,
/// rbp 5, rsi 6, rdi 7, r8..r15 8..15).
constexpr int dwarf_register(int index) {
    constexpr int map[16] = {kRax, kRcx, kRdx, kRbx, kRsp, kRbp, kRsi, kRdi,
                             kR8,  kR9,  kR10, kR11, kR12, kR13, kR14, kR15};
    return map[index & 15];
}

/// Appends little-endian DWARF encodings (and CFA instructions whose
/// operands are factored by the CIE of FrameCfi: code alignment 1, data
/// alignment -8) to `bytes`.
class Writer {
public:
    std::vector<unsigned char> bytes;

    void u8(std::uint8_t v) { bytes.push_back(v); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    /// Overwrites the 4 bytes at `at` (a length or an offset filled in late).
    void put32(std::size_t at, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (8 * i));
    }
    void uleb(std::uint64_t v) {
        do {
            std::uint8_t b = v & 0x7f;
            v >>= 7;
            u8(v ? (b | 0x80) : b);
        } while (v);
    }
    /// DW_CFA_advance_loc* by `delta` code bytes (nothing for 0).
    void advance(std::size_t delta) {
        if (delta == 0) return;
        if (delta < 64) {
            u8(static_cast<std::uint8_t>(0x40 | delta));
        } else if (delta <= 0xff) {
            u8(0x02);  // DW_CFA_advance_loc1
            u8(static_cast<std::uint8_t>(delta));
        } else if (delta <= 0xffff) {
            u8(0x03);  // DW_CFA_advance_loc2
            u8(static_cast<std::uint8_t>(delta));
            u8(static_cast<std::uint8_t>(delta >> 8));
        } else {
            u8(0x04);  // DW_CFA_advance_loc4
            u32(static_cast<std::uint32_t>(delta));
        }
    }
    /// DW_CFA_def_cfa_offset: CFA = (the CFA register) + `offset`.
    void def_cfa_offset(std::uint64_t offset) {
        u8(0x0e);
        uleb(offset);
    }
    /// DW_CFA_offset: `reg` (< 64) is saved at CFA - `below` (a multiple of 8).
    void offset(int reg, std::uint64_t below) {
        u8(static_cast<std::uint8_t>(0x80 | reg));
        uleb(below / 8);
    }
    /// DW_CFA_restore: `reg` (< 64) is as the CIE says (the caller's value).
    void restore(int reg) { u8(static_cast<std::uint8_t>(0xc0 | reg)); }
    /// Ends the record that starts at `start` (its length field): pads it
    /// with DW_CFA_nop to a multiple of 8 bytes and fills in its length.
    void pad_record(std::size_t start) {
        while ((bytes.size() - start) % 8 != 0) u8(0);  // DW_CFA_nop
        put32(start, static_cast<std::uint32_t>(bytes.size() - start - 4));
    }
};

/// How eh_frame() lays the section out.  The defaults make correct CFI; the
/// tests change them to make it wrong on purpose.
struct Layout {
    /// The CIE's 'R' augmentation: the encoding of the FDE's addresses
    /// (which are always written as 4 bytes).
    std::uint8_t fde_encoding = 0x1b;  ///< DW_EH_PE_pcrel | DW_EH_PE_sdata4
    /// Added to the FDE's first address (pc_begin).
    std::int64_t pc_shift = 0;
    /// End the section with a zero-length record.
    bool terminator = true;
};

/// The call frame information of one x86-64 function whose CFA is always
/// rsp plus a constant that changes along the code (no frame pointer), as
/// rows in code order: from each row's code offset on, until the next
/// row's, that row holds.  At offset 0 the CFA is rsp + 8 (the return
/// address at rsp), and every register holds the caller's value.  Rows
/// must be added in increasing (or equal) code offsets; a row at the
/// offset of the last one changes it.
class FrameCfi {
public:
    FrameCfi() { rows_.push_back(Row{}); }

    /// From code offset `at` on, CFA = rsp + `cfa_offset` (8 at entry).
    void set_cfa_offset(std::size_t at, int cfa_offset) { row_at(at).cfa = cfa_offset; }
    /// From `at` on, the caller's `reg` (a Register below 16) is saved at
    /// CFA - `below` (a positive multiple of 8).
    void save_register(std::size_t at, int reg, int below) { row_at(at).saved.at(reg) = below; }
    /// From `at` on, `reg` holds the caller's value again.
    void restore_register(std::size_t at, int reg) { row_at(at).saved.at(reg) = 0; }

    /// The CFA offset of the last row.
    int cfa_offset() const { return rows_.back().cfa; }
    /// Number of rows (1 for a function that never moves rsp).
    std::size_t rows() const { return rows_.size(); }

    /// The .eh_frame of the function at `code`, `size` bytes, for the
    /// section lying at `section_addr`: one CIE, one FDE, a terminator.
    std::vector<unsigned char> eh_frame(std::uintptr_t code, std::size_t size,
                                        std::uintptr_t section_addr,
                                        const Layout& layout = {}) const {
        Writer w;
        // CIE: version 1, "zR", code alignment 1, data alignment -8,
        // return address column 16; CFA = rsp + 8, return address at
        // CFA - 8.
        const std::size_t cie = w.bytes.size();
        w.u32(0);
        w.u32(0);  // CIE id
        w.u8(1);
        w.u8('z');
        w.u8('R');
        w.u8(0);
        w.uleb(1);
        w.u8(0x78);  // sleb128 -8
        w.u8(kReturnAddress);
        w.uleb(1);  // augmentation data: the 'R' encoding
        w.u8(layout.fde_encoding);
        w.u8(0x0c);
        w.uleb(kRsp);
        w.uleb(8);  // DW_CFA_def_cfa rsp, 8
        w.offset(kReturnAddress, 8);
        w.pad_record(cie);
        // FDE.
        const std::size_t fde = w.bytes.size();
        w.u32(0);
        w.u32(static_cast<std::uint32_t>(fde + 4 - cie));  // back to the CIE
        const std::size_t pc_field = w.bytes.size();
        const std::int64_t rel = static_cast<std::int64_t>(code) + layout.pc_shift -
                                 static_cast<std::int64_t>(section_addr + pc_field);
        w.u32(static_cast<std::uint32_t>(rel));
        w.u32(static_cast<std::uint32_t>(size));
        w.uleb(0);  // augmentation data
        Row state;  // what the CIE says, then what the FDE has said so far
        for (const Row& row : rows_) {
            if (row.cfa == state.cfa && row.saved == state.saved) continue;
            w.advance(row.at - state.at);
            if (row.cfa != state.cfa) w.def_cfa_offset(static_cast<std::uint64_t>(row.cfa));
            for (int reg = 0; reg < kRegisters; ++reg) {
                if (row.saved[reg] == state.saved[reg]) continue;
                if (row.saved[reg])
                    w.offset(reg, static_cast<std::uint64_t>(row.saved[reg]));
                else
                    w.restore(reg);
            }
            state = row;
        }
        w.pad_record(fde);
        if (layout.terminator) w.u32(0);
        return w.bytes;
    }

    /// eh_frame() for the address the returned bytes lie at (their
    /// PC-relative pointers count from the vector's data(), which moving
    /// the vector keeps): what VgJitCode.eh_frame takes with a null
    /// eh_frame_addr.  The FDE's 4-byte address reaches only code within
    /// 2 GiB of the bytes, which heap memory and a JIT's mappings need not
    /// be: section_after() is the safe choice.
    std::vector<unsigned char> eh_frame_in_place(std::uintptr_t code, std::size_t size,
                                                 const Layout& layout = {}) const {
        std::vector<unsigned char> v = eh_frame(code, size, 0, layout);
        const std::vector<unsigned char> w =
            eh_frame(code, size, reinterpret_cast<std::uintptr_t>(v.data()), layout);
        std::memcpy(v.data(), w.data(), v.size());
        return v;
    }

    /// Where perf's genelf (and so a jitdump CODE_UNWINDING_INFO) takes a
    /// function's .eh_frame to lie: at the first multiple of 8 after its
    /// `size` bytes of code at `code`.  Bytes built for it reach the code
    /// wherever they are kept (VgJitCode.eh_frame_addr names it).
    static std::uintptr_t section_after(std::uintptr_t code, std::size_t size) {
        return (code + size + 7) & ~std::uintptr_t{7};
    }

private:
    static constexpr int kRegisters = 16;
    struct Row {
        std::size_t at = 0;
        int cfa = 8;
        std::array<int, kRegisters> saved{};  ///< CFA - saved[reg], or 0: not saved
    };

    Row& row_at(std::size_t at) {
        if (at < rows_.back().at) throw std::logic_error("FrameCfi: rows out of code order");
        if (at != rows_.back().at) {
            Row next = rows_.back();
            next.at = at;
            rows_.push_back(next);
        }
        return rows_.back();
    }

    std::vector<Row> rows_;
};

}  // namespace ehframe

#endif
