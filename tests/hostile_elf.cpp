// hostile_elf.cpp: the hostile campaign's mutations of ELF objects (the
// program is described in hostile_campaign.cpp): the section headers read
// back, and the operators of mutate_object, which find the fields they
// change by parsing the seed (section and ELF headers, symbols,
// relocations, DWARF unit and line-table headers, forms, CFI).
#include <elf.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

/// Header fields of the DWARF sections, by the unit's version.
std::vector<CfiField> dwarf_header_fields(const Bytes& b, const std::string& name, std::size_t lo,
                                          std::size_t hi) {
    std::vector<CfiField> f;
    if (hi - lo < 12) return f;
    f.push_back({lo, 4, "unit_length"});
    const bool line = name == ".debug_line";
    const std::size_t v = get_le(b, lo + 4, 2);
    f.push_back({lo + 4, 2, "version"});
    if (name == ".debug_info") {
        if (v >= 5) {
            f.push_back({lo + 6, 1, "unit_type"});
            f.push_back({lo + 7, 1, "address_size"});
            f.push_back({lo + 8, 4, "debug_abbrev_offset"});
        } else {
            f.push_back({lo + 6, 4, "debug_abbrev_offset"});
            f.push_back({lo + 10, 1, "address_size"});
        }
    } else if (line) {
        std::size_t p = lo + 6;
        if (v >= 5) {
            f.push_back({p, 1, "address_size"});
            f.push_back({p + 1, 1, "segment_selector_size"});
            p += 2;
        }
        const char* names[] = {"minimum_instruction_length",
                               "maximum_operations_per_instruction",
                               "default_is_stmt",
                               "line_base",
                               "line_range",
                               "opcode_base"};
        f.push_back({p, 4, "header_length"});
        p += 4;
        for (const char* n : names) {
            if (v < 4 && std::strcmp(n, "maximum_operations_per_instruction") == 0) continue;
            f.push_back({p++, 1, n});
        }
    } else if (name == ".debug_aranges") {
        f.push_back({lo + 6, 4, "debug_info_offset"});
        f.push_back({lo + 10, 1, "address_size"});
    } else if (name == ".debug_addr" || name == ".debug_rnglists" || name == ".debug_loclists") {
        f.push_back({lo + 6, 1, "address_size"});
        f.push_back({lo + 7, 1, "segment_selector_size"});
        if (name != ".debug_addr") f.push_back({lo + 8, 4, "offset_entry_count"});
    } else if (name == ".debug_str_offsets") {
        f.push_back({lo + 6, 2, "padding"});
    }
    return f;
}

/// Offsets of the form codes in .debug_abbrev at [lo, hi).
std::vector<std::size_t> abbrev_forms(const Bytes& b, std::size_t lo, std::size_t hi) {
    std::vector<std::size_t> forms;
    std::size_t p = lo;
    for (int n = 0; n < 256 && p < hi; ++n) {
        std::uint64_t code = 0;
        if (!uleb(b, p, hi, &code) || code == 0) break;
        if (!uleb(b, p, hi, nullptr) || p >= hi) break;  // tag
        ++p;                                             // children
        for (;;) {
            std::uint64_t attr = 0, form = 0;
            if (!uleb(b, p, hi, &attr)) return forms;
            const std::size_t at = p;
            if (!uleb(b, p, hi, &form)) return forms;
            if (attr == 0 && form == 0) break;
            forms.push_back(at);
            if (form == 0x21 && !uleb(b, p, hi, nullptr)) return forms;  // implicit_const
        }
    }
    return forms;
}

/// Offsets of the form codes in the directory and file entry formats of
/// a DWARF 5 line table header at [lo, hi).
std::vector<std::size_t> line_forms(const Bytes& b, std::size_t lo, std::size_t hi) {
    std::vector<std::size_t> forms;
    if (hi - lo < 20 || get_le(b, lo + 4, 2) < 5) return forms;
    std::size_t p = lo + 17;  // opcode_base
    const std::size_t opcode_base = b[p];
    p += opcode_base;  // past the standard opcode lengths
    for (int table = 0; table < 2 && p < hi; ++table) {
        const std::size_t count = b[p++];
        for (std::size_t i = 0; i < count; ++i) {
            if (!uleb(b, p, hi, nullptr)) return forms;
            forms.push_back(p);
            if (!uleb(b, p, hi, nullptr)) return forms;
        }
        if (table == 0) {
            // The directories themselves: skip them only when every form
            // has a known size (line_strp, strp, udata, string).
            std::uint64_t dirs = 0;
            if (!uleb(b, p, hi, &dirs)) return forms;
            for (std::uint64_t d = 0; d < dirs; ++d)
                for (std::size_t k = forms.size() - count; k < forms.size(); ++k) {
                    const std::uint8_t form = b[forms[k]];
                    if (form == 0x1f || form == 0x0e)
                        p += 4;
                    else if (form == 0x0f)
                        uleb(b, p, hi, nullptr);
                    else if (form == 0x08) {
                        while (p < hi && b[p]) ++p;
                        ++p;
                    } else if (form == 0x1e)
                        p += 16;
                    else
                        return forms;
                }
        }
    }
    return forms;
}

/// The DWARF forms (1-byte codes) and a few that are not.
std::uint8_t random_form(Rng& r) {
    return r.chance(85) ? static_cast<std::uint8_t>(1 + r.below(0x2c))
                        : static_cast<std::uint8_t>(r.next() & 0x7f);
}

/// A random section of e for which pred holds, or null.
template <class Pred>
const Section* pick_section(Mutator& m, const Elf& e, Pred pred) {
    std::vector<const Section*> v;
    for (const Section& s : e.sections)
        if (pred(s)) v.push_back(&s);
    return v.empty() ? nullptr : v[m.r.below(v.size())];
}

/// Operators 0-2: flips, random bytes or interesting values in a region: a
/// section, the ELF header or the section headers.
void mutate_region(Mutator& m, const Elf& e, std::uint64_t op) {
    const std::size_t size = m.b.size();
    const std::uint64_t which = m.r.below(e.sections.size() + 2);
    std::size_t lo, hi;
    std::string where;
    if (which == e.sections.size()) {
        lo = 0;
        hi = sizeof(Elf64_Ehdr);
        where = "ehdr";
    } else if (which == e.sections.size() + 1) {
        lo = e.eh.e_shoff;
        hi = lo + e.sections.size() * sizeof(Elf64_Shdr);
        where = "shdrs";
    } else {
        const Section& s = e.sections[which];
        std::tie(lo, hi) = data_range(s, size);
        where = s.name.empty() ? "section" + std::to_string(s.index) : s.name;
        if (lo >= hi) {
            lo = s.hdr_at;
            hi = lo + sizeof(Elf64_Shdr);
            where += "(hdr)";
        }
    }
    if (op == 0)
        m.flip(lo, hi, where);
    else if (op == 1)
        m.random_bytes(lo, hi, where);
    else
        m.interesting_at(lo, hi, where);
}

/// Operator 3: truncation, anywhere or at a section's start or end.
void mutate_truncation(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    if (m.r.chance(50)) {
        m.truncate(m.r.below(size));
    } else if (const Section* s = pick_section(m, e, [&](const Section& x) {
                   return x.index != 0 && data_range(x, size).second > data_range(x, size).first;
               })) {
        auto [lo, hi] = data_range(*s, size);
        m.truncate(m.r.chance(50) ? lo + m.r.below(4) : hi - m.r.below(4));
    }
}

/// Operators 4-5: a section header field.
void mutate_shdr_field(Mutator& m, const Elf& e) {
    const Section& s = e.sections[m.r.below(e.sections.size())];
    static const struct {
        std::size_t off;
        int w;
        const char* n;
    } kF[] = {{offsetof(Elf64_Shdr, sh_name), 4, "sh_name"},
              {offsetof(Elf64_Shdr, sh_type), 4, "sh_type"},
              {offsetof(Elf64_Shdr, sh_flags), 8, "sh_flags"},
              {offsetof(Elf64_Shdr, sh_addr), 8, "sh_addr"},
              {offsetof(Elf64_Shdr, sh_offset), 8, "sh_offset"},
              {offsetof(Elf64_Shdr, sh_size), 8, "sh_size"},
              {offsetof(Elf64_Shdr, sh_link), 4, "sh_link"},
              {offsetof(Elf64_Shdr, sh_info), 4, "sh_info"},
              {offsetof(Elf64_Shdr, sh_addralign), 8, "sh_addralign"},
              {offsetof(Elf64_Shdr, sh_entsize), 8, "sh_entsize"}};
    const auto& f = kF[m.r.below(10)];
    const std::string what = "shdr[" + std::to_string(s.index) + " " + s.name + "]." + f.n;
    if (f.off == offsetof(Elf64_Shdr, sh_type) && m.r.chance(50)) {
        const std::uint32_t types[] = {SHT_NULL,   SHT_PROGBITS, SHT_SYMTAB,
                                       SHT_STRTAB, SHT_RELA,     SHT_NOBITS,
                                       SHT_REL,    SHT_DYNSYM,   SHT_X86_64_UNWIND};
        const std::uint32_t t = types[m.r.below(9)];
        put_le(m.b, s.hdr_at + f.off, 4, t);
        m.note(what + "=" + hex(t));
    } else {
        m.field(s.hdr_at + f.off, f.w, s.sh.sh_size, what);
    }
}

/// Operator 6: an ELF header field.
void mutate_ehdr_field(Mutator& m, const Elf& e) {
    static const struct {
        std::size_t off;
        int w;
        const char* n;
    } kF[] = {{EI_CLASS, 1, "e_ident[EI_CLASS]"},
              {EI_DATA, 1, "e_ident[EI_DATA]"},
              {offsetof(Elf64_Ehdr, e_type), 2, "e_type"},
              {offsetof(Elf64_Ehdr, e_machine), 2, "e_machine"},
              {offsetof(Elf64_Ehdr, e_shoff), 8, "e_shoff"},
              {offsetof(Elf64_Ehdr, e_shentsize), 2, "e_shentsize"},
              {offsetof(Elf64_Ehdr, e_shnum), 2, "e_shnum"},
              {offsetof(Elf64_Ehdr, e_shstrndx), 2, "e_shstrndx"},
              {offsetof(Elf64_Ehdr, e_ehsize), 2, "e_ehsize"},
              {offsetof(Elf64_Ehdr, e_phnum), 2, "e_phnum"}};
    const auto& f = kF[m.r.below(10)];
    m.field(f.off, f.w, e.sections.size(), std::string("ehdr.") + f.n);
}

/// Operators 7-8: a relocation entry.
void mutate_relocation(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    const Section* s = pick_section(m, e, [&](const Section& x) {
        return x.sh.sh_type == SHT_RELA && x.sh.sh_size >= sizeof(Elf64_Rela);
    });
    if (!s) return;
    const std::size_t n = s->sh.sh_size / sizeof(Elf64_Rela);
    const std::size_t i = m.r.below(n);
    const std::size_t at = s->sh.sh_offset + i * sizeof(Elf64_Rela);
    const std::string what = s->name + "[" + std::to_string(i) + "]";
    switch (m.r.below(4)) {
    case 0:
        m.field(at + offsetof(Elf64_Rela, r_offset), 8, s->sh.sh_size, what + ".r_offset");
        break;
    case 1: {
        const std::uint32_t types[] = {
            R_X86_64_NONE,     R_X86_64_64,       R_X86_64_PC32,
            R_X86_64_32,       R_X86_64_32S,      R_X86_64_PC64,
            R_X86_64_GOTPCREL, R_X86_64_DTPOFF32, static_cast<std::uint32_t>(m.r.next())};
        const std::uint32_t t = types[m.r.below(9)];
        put_le(m.b, at + offsetof(Elf64_Rela, r_info), 4, t);
        m.note(what + ".type=" + hex(t));
        break;
    }
    case 2:
        m.field(at + offsetof(Elf64_Rela, r_info) + 4, 4, e.sections.size(), what + ".sym");
        break;
    default: m.field(at + offsetof(Elf64_Rela, r_addend), 8, size, what + ".r_addend"); break;
    }
}

/// Operator 9: a symbol's field.
void mutate_symbol(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    const Section* s = e.find(".symtab");
    if (!s || s->sh.sh_size < sizeof(Elf64_Sym)) return;
    const std::size_t i = m.r.below(s->sh.sh_size / sizeof(Elf64_Sym));
    const std::size_t at = s->sh.sh_offset + i * sizeof(Elf64_Sym);
    const std::string what = ".symtab[" + std::to_string(i) + "]";
    switch (m.r.below(5)) {
    case 0: m.field(at + offsetof(Elf64_Sym, st_name), 4, size, what + ".st_name"); break;
    case 1: m.field(at + offsetof(Elf64_Sym, st_info), 1, 0, what + ".st_info"); break;
    case 2:
        m.field(at + offsetof(Elf64_Sym, st_shndx), 2, e.sections.size(), what + ".st_shndx");
        break;
    case 3: m.field(at + offsetof(Elf64_Sym, st_value), 8, size, what + ".st_value"); break;
    default: m.field(at + offsetof(Elf64_Sym, st_size), 8, size, what + ".st_size"); break;
    }
}

/// Operators 10-11: a DWARF header field.
void mutate_dwarf_header(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    const Section* s = pick_section(m, e, [&](const Section& x) {
        return !dwarf_header_fields(m.b, x.name, data_range(x, size).first,
                                    data_range(x, size).second)
                    .empty();
    });
    if (!s) return;
    auto [lo, hi] = data_range(*s, size);
    const std::vector<CfiField> f = dwarf_header_fields(m.b, s->name, lo, hi);
    const CfiField& x = f[m.r.below(f.size())];
    m.field(x.at, x.width, hi - lo, s->name + "." + x.name);
}

/// Operator 12: a form: .debug_abbrev or a DWARF 5 line table's entry
/// formats.
void mutate_form(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    // A DWARF 5 line table's few forms as often as the abbreviations'.
    std::vector<std::pair<std::size_t, std::string>> forms;
    const bool line = m.r.chance(50);
    if (const Section* l = e.find(".debug_line"); l && line) {
        auto [lo, hi] = data_range(*l, size);
        for (std::size_t at : line_forms(m.b, lo, hi))
            forms.push_back({at, ".debug_line+" + hex(at - lo)});
    }
    if (const Section* a = e.find(".debug_abbrev"); a && forms.empty()) {
        auto [lo, hi] = data_range(*a, size);
        for (std::size_t at : abbrev_forms(m.b, lo, hi))
            forms.push_back({at, ".debug_abbrev+" + hex(at - lo)});
    }
    if (forms.empty()) return;
    const auto& [at, what] = forms[m.r.below(forms.size())];
    const std::uint8_t form = random_form(m.r);
    m.b[at] = form;
    m.note(what + " form=" + hex(form));
}

/// Operators 13-14: CFI records and programs.
void mutate_object_cfi(Mutator& m, const Elf& e) {
    const std::size_t size = m.b.size();
    const Section* s = pick_section(
        m, e, [](const Section& x) { return x.name == ".eh_frame" || x.name == ".debug_frame"; });
    if (!s) return;
    auto [lo, hi] = data_range(*s, size);
    mutate_cfi(m, lo, hi, s->name == ".eh_frame", s->name);
}

/// Operator 15: several at once.
void mutate_several(Mutator& m) {
    const int n = 2 + static_cast<int>(m.r.below(3));
    for (int i = 0; i < n && m.b.size() >= sizeof(Elf64_Ehdr); ++i) {
        try {
            mutate_object(m);
        } catch (const std::exception&) {
            break;  // the headers no longer parse: stop here
        }
    }
}

}  // namespace

Elf parse_elf(const Bytes& b) {
    Elf e;
    if (b.size() < sizeof(Elf64_Ehdr)) throw std::runtime_error("short ELF");
    std::memcpy(&e.eh, b.data(), sizeof e.eh);
    if (std::memcmp(e.eh.e_ident, ELFMAG, SELFMAG) != 0 || e.eh.e_type != ET_REL ||
        e.eh.e_shoff + std::uint64_t(e.eh.e_shnum) * sizeof(Elf64_Shdr) > b.size() ||
        e.eh.e_shstrndx >= e.eh.e_shnum)
        throw std::runtime_error("not a relocatable 64-bit ELF object");
    std::vector<Elf64_Shdr> sh(e.eh.e_shnum);
    std::memcpy(sh.data(), b.data() + e.eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
    const Elf64_Shdr& names = sh[e.eh.e_shstrndx];
    for (std::size_t i = 0; i < sh.size(); ++i) {
        Section s;
        s.index = i;
        s.sh = sh[i];
        s.hdr_at = e.eh.e_shoff + i * sizeof(Elf64_Shdr);
        if (names.sh_offset + sh[i].sh_name < b.size())
            s.name = reinterpret_cast<const char*>(b.data() + names.sh_offset + sh[i].sh_name);
        e.sections.push_back(s);
    }
    return e;
}

std::pair<std::size_t, std::size_t> data_range(const Section& s, std::size_t file_size) {
    if (s.sh.sh_type == SHT_NOBITS) return {0, 0};
    const std::size_t lo = std::min<std::size_t>(s.sh.sh_offset, file_size);
    return {lo, std::min<std::size_t>(lo + s.sh.sh_size, file_size)};
}

void mutate_object(Mutator& m) {
    const Elf e = parse_elf(m.b);
    const std::uint64_t op = m.r.below(16);
    switch (op) {
    case 0:
    case 1:
    case 2: mutate_region(m, e, op); break;
    case 3: mutate_truncation(m, e); break;
    case 4:
    case 5: mutate_shdr_field(m, e); break;
    case 6: mutate_ehdr_field(m, e); break;
    case 7:
    case 8: mutate_relocation(m, e); break;
    case 9: mutate_symbol(m, e); break;
    case 10:
    case 11: mutate_dwarf_header(m, e); break;
    case 12: mutate_form(m, e); break;
    case 13:
    case 14: mutate_object_cfi(m, e); break;
    default: mutate_several(m); break;
    }
}

}  // namespace hostile
