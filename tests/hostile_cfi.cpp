// hostile_cfi.cpp: the hostile campaign's mutations of CFI (the program
// is described in hostile_campaign.cpp): the records of .eh_frame and
// .debug_frame and where their fields are, random CFA programs and DWARF
// expressions, and the jitdump family's CODE_UNWINDING_INFO payload.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

// ---------------------------------------------------------------------
// CFI (.eh_frame, .debug_frame): where the records' fields are.

struct CfiLayout {
    std::vector<CfiField> fields;                            // fixed-width fields
    std::vector<std::pair<std::size_t, std::size_t>> insns;  // [lo, hi) of each program
};

/// Finds the records of the CFI section at [lo, hi) of `b`; `eh` for
/// .eh_frame (CIE id 0, pc-relative 4-byte pointers), else .debug_frame.
CfiLayout cfi_layout(const Bytes& b, std::size_t lo, std::size_t hi, bool eh) {
    CfiLayout l;
    std::size_t off = lo;
    int n = 0;
    while (off + 8 <= hi && n < 64) {
        const std::uint64_t len = get_le(b, off, 4);
        const std::string rec = "rec" + std::to_string(n++);
        l.fields.push_back({off, 4, rec + ".length"});
        if (len == 0 || len == 0xffffffff || off + 4 + len > hi) break;
        const std::size_t end = off + 4 + len;
        const std::uint64_t id = get_le(b, off + 4, 4);
        l.fields.push_back({off + 4, 4, rec + ".id"});
        const bool cie = eh ? id == 0 : id == 0xffffffff;
        std::size_t p = off + 8;
        if (cie) {
            l.fields.push_back({p, 1, rec + ".version"});
            const std::uint8_t version = b[p++];
            const std::size_t aug = p;
            while (p < end && b[p]) ++p;
            l.fields.push_back({aug, 1, rec + ".augmentation"});
            const bool z = p > aug && b[aug] == 'z';
            ++p;
            if (!eh && version >= 4 && p + 2 <= end) {
                l.fields.push_back({p, 1, rec + ".address_size"});
                l.fields.push_back({p + 1, 1, rec + ".segment_size"});
                p += 2;
            }
            l.fields.push_back({p, 1, rec + ".code_align"});
            if (!uleb(b, p, end, nullptr)) goto next;
            l.fields.push_back({p, 1, rec + ".data_align"});
            if (!uleb(b, p, end, nullptr)) goto next;
            l.fields.push_back({p, 1, rec + ".ra_register"});
            if (!uleb(b, p, end, nullptr)) goto next;
            if (z) {
                std::uint64_t alen = 0;
                if (!uleb(b, p, end, &alen)) goto next;
                for (std::uint64_t i = 0; i < alen && p + i < end; ++i)
                    l.fields.push_back({p + i, 1, rec + ".augmentation_data"});
                p += alen;
            }
        } else {
            const int w = eh ? 4 : 8;
            l.fields.push_back({p, w, rec + ".pc_begin"});
            l.fields.push_back({p + w, w, rec + ".pc_range"});
            p += 2 * w;
            if (eh) {
                std::uint64_t alen = 0;
                if (!uleb(b, p, end, &alen)) goto next;
                p += alen;
            }
        }
        if (p < end) l.insns.push_back({p, end});
    next:
        off = end;
    }
    return l;
}

/// A random DWARF expression of about `n` bytes.
Bytes random_expr(Rng& r, std::size_t n) {
    Bytes e;
    while (e.size() < n) {
        switch (r.below(8)) {
        case 0:
            e.push_back(0x77);
            put_sleb(e, static_cast<std::int64_t>(r.below(64)) - 8);
            break;                         // breg7
        case 1: e.push_back(0x06); break;  // deref
        case 2:
            e.push_back(0x23);
            put_uleb(e, r.below(256));
            break;                                                                  // plus_uconst
        case 3: e.push_back(static_cast<std::uint8_t>(0x30 + r.below(32))); break;  // litN
        case 4:
            e.push_back(static_cast<std::uint8_t>(0x70 + r.below(17)));
            put_sleb(e, 8);
            break;  // bregN
        case 5:
            e.push_back(0x94);
            e.push_back(static_cast<std::uint8_t>(r.below(9)));
            break;                                                         // deref_size
        default: e.push_back(static_cast<std::uint8_t>(r.next())); break;  // any opcode
        }
    }
    return e;
}

/// A random CFA program of about `n` bytes (DW_CFA_*), expressions included.
Bytes random_cfa_program(Rng& r, std::size_t n) {
    Bytes p;
    while (p.size() < n) {
        const std::uint8_t reg =
            static_cast<std::uint8_t>(r.chance(80) ? r.below(17) : r.next() & 0x7f);
        switch (r.below(14)) {
        case 0:
        case 1: {  // def_cfa_expression
            Bytes e = random_expr(r, 1 + r.below(8));
            p.push_back(0x0f);
            put_uleb(p, e.size());
            p.insert(p.end(), e.begin(), e.end());
            break;
        }
        case 2: {  // expression / val_expression
            Bytes e = random_expr(r, 1 + r.below(8));
            p.push_back(r.chance(50) ? 0x10 : 0x16);
            put_uleb(p, reg);
            put_uleb(p, e.size());
            p.insert(p.end(), e.begin(), e.end());
            break;
        }
        case 3:
            p.push_back(0x0c);
            put_uleb(p, reg);
            put_uleb(p, r.below(128));
            break;  // def_cfa
        case 4:
            p.push_back(0x0e);
            put_uleb(p, r.below(4096));
            break;  // def_cfa_offset
        case 5:
            p.push_back(0x0d);
            put_uleb(p, reg);
            break;  // def_cfa_register
        case 6:
            p.push_back(static_cast<std::uint8_t>(0x80 | (reg & 0x3f)));
            put_uleb(p, r.below(16));
            break;
        case 7: p.push_back(static_cast<std::uint8_t>(0xc0 | (reg & 0x3f))); break;  // restore
        case 8: p.push_back(static_cast<std::uint8_t>(0x40 | r.below(64))); break;   // advance_loc
        case 9: p.push_back(r.chance(50) ? 0x0a : 0x0b); break;  // remember/restore_state
        case 10:
            p.push_back(0x09);
            put_uleb(p, reg);
            put_uleb(p, r.below(17));
            break;  // register
        case 11:
            p.push_back(r.chance(50) ? 0x07 : 0x08);
            put_uleb(p, reg);
            break;  // undefined/same_value
        case 12:
            p.push_back(0x2e);
            put_uleb(p, r.below(64));
            break;  // GNU_args_size
        default: p.push_back(static_cast<std::uint8_t>(r.next())); break;
        }
    }
    return p;
}

}  // namespace

void mutate_cfi(Mutator& m, std::size_t lo, std::size_t hi, bool eh, const std::string& where) {
    const CfiLayout l = cfi_layout(m.b, lo, hi, eh);
    const std::uint64_t op = m.r.below(10);
    if (op < 4 && !l.fields.empty()) {
        const CfiField& f = l.fields[m.r.below(l.fields.size())];
        m.field(f.at, f.width, hi - lo, where + "." + f.name);
    } else if (op < 7 && !l.insns.empty()) {
        const auto [plo, phi] = l.insns[m.r.below(l.insns.size())];
        const std::size_t at = plo + m.r.below(phi - plo);
        Bytes prog = random_cfa_program(m.r, 1 + m.r.below(phi - at));
        std::size_t k = 0;
        for (; k < prog.size() && at + k < phi; ++k) m.b[at + k] = prog[k];
        m.note(where + " CFA program at +" + hex(at - lo) + " replaced, " + std::to_string(k) +
               " bytes");
    } else if (op == 7) {
        m.flip(lo, hi, where);
    } else if (op == 8) {
        m.random_bytes(lo, hi, where);
    } else {
        m.interesting_at(lo, hi, where);
    }
}

void mutate_eh_frame(Mutator& m) {
    const std::size_t size = m.b.size();
    switch (m.r.below(8)) {
    case 0: m.truncate(m.r.below(size)); break;
    case 1: {  // several
        const int n = 2 + static_cast<int>(m.r.below(3));
        for (int i = 0; i < n; ++i) mutate_cfi(m, 0, m.b.size(), true, ".eh_frame");
        break;
    }
    default: mutate_cfi(m, 0, size, true, ".eh_frame"); break;
    }
}

Bytes unwinding_payload(const Bytes& eh, std::size_t code_size) {
    // The .eh_frame_hdr (version 1, pc-relative table), laid out after
    // the .eh_frame, describing its first FDE; only distances matter.
    const std::uint64_t code = 0x100000;
    const std::uint64_t eh_at = code + ((code_size + 7) & ~std::size_t{7});
    const std::uint64_t hdr_at = eh_at + eh.size();
    const std::uint64_t cie_len = eh.size() >= 4 ? get_le(eh, 0, 4) : 0;
    Bytes hdr = {1, 0x1b, 0x03, 0x3b};
    Bytes v(16);
    put_le(v, 0, 4, eh_at - (hdr_at + 4));
    put_le(v, 4, 4, 1);
    put_le(v, 8, 4, code - hdr_at);
    put_le(v, 12, 4, eh_at + 4 + cie_len - hdr_at);
    hdr.insert(hdr.end(), v.begin(), v.end());
    Bytes p(24);
    put_le(p, 0, 8, eh.size() + hdr.size());
    put_le(p, 8, 8, hdr.size());
    put_le(p, 16, 8, 0);
    p.insert(p.end(), eh.begin(), eh.end());
    p.insert(p.end(), hdr.begin(), hdr.end());
    while (p.size() % 8) p.push_back(0);
    return p;
}

}  // namespace hostile
