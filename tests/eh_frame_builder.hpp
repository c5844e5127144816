// eh_frame_builder.hpp: .eh_frame bytes for the frameless functions of
// xbyak_emit.hpp, as a JIT hands them to Valgrind (VgJitCode.eh_frame, a
// jitdump CODE_UNWINDING_INFO record), and an .eh_frame_hdr for them.
// The CIE, the FDE and the DWARF encodings come from the example JIT's
// examples/src/eh_frame.hpp (ehframe::FrameCfi, ehframe::Writer).
#pragma once

#include "../examples/src/eh_frame.hpp"
#include "xbyak_emit.hpp"

#include <cstdint>
#include <vector>

namespace testjit {

/// Knobs that make the CFI wrong in the ways hostile tests need (the 'R'
/// pointer encoding, a shift of the FDE's pc_begin, no terminator); the
/// default builds correct CFI.
using EhFrameFaults = ehframe::Layout;

/// The CFI rows of a frameless function of shape `s`: rbp pushed, 16
/// bytes of frame reserved, released, rbp popped.
inline ehframe::FrameCfi frameless_cfi(const FramelessShape& s) {
    ehframe::FrameCfi cfi;
    cfi.set_cfa_offset(s.push_end, 16);
    cfi.save_register(s.push_end, ehframe::kRbp, 16);
    cfi.set_cfa_offset(s.frame_end, 32);
    cfi.set_cfa_offset(s.unframe, 16);
    cfi.set_cfa_offset(s.pop_end, 8);
    return cfi;
}

/// The .eh_frame of one frameless function at `code` (shape `s`), for the
/// section lying at `section_addr`: one CIE, one FDE, a terminator.
inline std::vector<unsigned char> frameless_eh_frame(std::uintptr_t code, const FramelessShape& s,
                                                     std::uintptr_t section_addr,
                                                     const EhFrameFaults& f = {}) {
    return frameless_cfi(s).eh_frame(code, s.size, section_addr, f);
}

/// An .eh_frame_hdr (LSB) for a section holding one FDE at `fde_offset`,
/// the header lying at `hdr_addr`, the section at `eh_addr`, describing
/// code at `code`.
inline std::vector<unsigned char> eh_frame_hdr(std::uintptr_t hdr_addr, std::uintptr_t eh_addr,
                                               std::uintptr_t code, std::size_t fde_offset) {
    ehframe::Writer b;
    b.u8(1);     // version
    b.u8(0x1b);  // eh_frame_ptr: pcrel sdata4
    b.u8(0x03);  // fde_count: udata4
    b.u8(0x3b);  // table: datarel sdata4
    b.u32(static_cast<std::uint32_t>(eh_addr - (hdr_addr + 4)));
    b.u32(1);
    b.u32(static_cast<std::uint32_t>(code - hdr_addr));
    b.u32(static_cast<std::uint32_t>(eh_addr + fde_offset - hdr_addr));
    return b.bytes;
}

}  // namespace testjit
