// eh_frame_builder.hpp: .eh_frame bytes (DWARF call frame information in
// the layout of the LSB's .eh_frame section) for the frameless functions
// of xbyak_emit.hpp, as a JIT hands them to Valgrind (VgJitCode.eh_frame,
// a jitdump CODE_UNWINDING_INFO record).  x86-64: DWARF register 7 is
// rsp, 6 rbp, 16 the return address.  FDE addresses are PC-relative
// 4-byte (DW_EH_PE_pcrel | DW_EH_PE_sdata4), so the bytes depend on the
// address the section is taken to lie at.
#pragma once

#include "xbyak_emit.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace testjit {

/// Knobs that make the CFI wrong in the ways hostile tests need; the
/// default builds correct CFI.
struct EhFrameFaults {
    std::uint8_t fde_encoding = 0x1b;     ///< the CIE's 'R' pointer encoding
    std::int64_t fde_pc_shift = 0;         ///< added to the FDE's pc_begin
    bool terminator = true;                ///< a zero-length record at the end
};

class EhFrameBuilder {
public:
    std::vector<unsigned char> bytes;

    void u8(std::uint8_t v) { bytes.push_back(v); }
    void u32(std::uint32_t v) { for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i))); }
    void put32(std::size_t at, std::uint32_t v) { std::memcpy(&bytes[at], &v, 4); }
    void uleb(std::uint64_t v) {
        do {
            std::uint8_t b = v & 0x7f;
            v >>= 7;
            u8(v ? (b | 0x80) : b);
        } while (v);
    }
    void advance(std::size_t delta) {
        if (delta == 0) return;
        if (delta < 64) {
            u8(static_cast<std::uint8_t>(0x40 | delta));
        } else {
            u8(0x02);  // DW_CFA_advance_loc1
            u8(static_cast<std::uint8_t>(delta));
        }
    }
    void def_cfa_offset(std::uint8_t off) { u8(0x0e); uleb(off); }
    void pad_record(std::size_t start) {
        while ((bytes.size() - start) % 8 != 0) u8(0);  // DW_CFA_nop
        put32(start, static_cast<std::uint32_t>(bytes.size() - start - 4));
    }
};

/// The .eh_frame of one frameless function at `code` (shape `s`), for the
/// section lying at `section_addr`: one CIE, one FDE, a terminator.
inline std::vector<unsigned char> frameless_eh_frame(std::uintptr_t code, const FramelessShape& s,
                                                     std::uintptr_t section_addr,
                                                     const EhFrameFaults& f = {}) {
    EhFrameBuilder b;
    // CIE: version 1, "zR", code alignment 1, data alignment -8, return
    // address column 16; CFA = rsp+8, return address at CFA-8.
    const std::size_t cie = b.bytes.size();
    b.u32(0);
    b.u32(0);
    b.u8(1);
    b.u8('z'); b.u8('R'); b.u8(0);
    b.uleb(1);
    b.u8(0x78);
    b.u8(16);
    b.uleb(1);
    b.u8(f.fde_encoding);
    b.u8(0x0c); b.uleb(7); b.uleb(8);   // DW_CFA_def_cfa rsp, 8
    b.u8(0x80 | 16); b.uleb(1);         // DW_CFA_offset r16, cfa-8
    b.pad_record(cie);
    // FDE.
    const std::size_t fde = b.bytes.size();
    b.u32(0);
    b.u32(static_cast<std::uint32_t>(fde + 4 - cie));  // back to the CIE
    const std::size_t pc_field = b.bytes.size();
    const std::int64_t rel = static_cast<std::int64_t>(code) + f.fde_pc_shift -
                             static_cast<std::int64_t>(section_addr + pc_field);
    b.u32(static_cast<std::uint32_t>(rel));
    b.u32(static_cast<std::uint32_t>(s.size));
    b.uleb(0);                                 // augmentation data
    b.advance(s.push_end);
    b.def_cfa_offset(16);
    b.u8(0x80 | 6); b.uleb(2);                // DW_CFA_offset rbp, cfa-16
    b.advance(s.frame_end - s.push_end);
    b.def_cfa_offset(32);
    b.advance(s.unframe - s.frame_end);
    b.def_cfa_offset(16);
    b.advance(s.pop_end - s.unframe);
    b.def_cfa_offset(8);
    b.pad_record(fde);
    if (f.terminator) b.u32(0);
    return b.bytes;
}

/// An .eh_frame_hdr (LSB) for a section holding one FDE at `fde_offset`,
/// the header lying at `hdr_addr`, the section at `eh_addr`, describing
/// code at `code`.
inline std::vector<unsigned char> eh_frame_hdr(std::uintptr_t hdr_addr, std::uintptr_t eh_addr,
                                               std::uintptr_t code, std::size_t fde_offset) {
    EhFrameBuilder b;
    b.u8(1);      // version
    b.u8(0x1b);   // eh_frame_ptr: pcrel sdata4
    b.u8(0x03);   // fde_count: udata4
    b.u8(0x3b);   // table: datarel sdata4
    b.u32(static_cast<std::uint32_t>(eh_addr - (hdr_addr + 4)));
    b.u32(1);
    b.u32(static_cast<std::uint32_t>(code - hdr_addr));
    b.u32(static_cast<std::uint32_t>(eh_addr + fde_offset - hdr_addr));
    return b.bytes;
}

}  // namespace testjit
