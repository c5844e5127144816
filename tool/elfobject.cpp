// elfobject.cpp: reading and checking in-memory JIT objects (elfobject.hpp).
#include "elfobject.hpp"

#include "priv_jitformats.h"
#include <valgrind/jit.h>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

namespace vgjit {

namespace {

/// Whether [off, off + len) lies within n bytes, without overflow.
bool in_range(std::uint64_t off, std::uint64_t len, std::uint64_t n) {
    return off <= n && len <= n - off;
}

/// The 32-bit structures of <elf.h> and their accessors.
struct Elf32Types {
    using Ehdr = Elf32_Ehdr;
    using Shdr = Elf32_Shdr;
    using Sym = Elf32_Sym;
    using Rel = Elf32_Rel;
    using Rela = Elf32_Rela;
    static const unsigned kBits = 32;
    static unsigned sym_type(const Sym& s) { return ELF32_ST_TYPE(s.st_info); }
    static std::uint64_t rel_sym(std::uint64_t info) { return ELF32_R_SYM(info); }
};

/// The 64-bit structures of <elf.h> and their accessors.
struct Elf64Types {
    using Ehdr = Elf64_Ehdr;
    using Shdr = Elf64_Shdr;
    using Sym = Elf64_Sym;
    using Rel = Elf64_Rel;
    using Rela = Elf64_Rela;
    static const unsigned kBits = 64;
    static unsigned sym_type(const Sym& s) { return ELF64_ST_TYPE(s.st_info); }
    static std::uint64_t rel_sym(std::uint64_t info) { return ELF64_R_SYM(info); }
};

/// What kind of debug data a relocation section feeds (by target name).
enum class DebugKind { None, Lines, Cfi, Info };

DebugKind debug_kind(const std::string& name) {
    if (name == ".debug_line") return DebugKind::Lines;
    if (name == ".eh_frame" || name == ".debug_frame") return DebugKind::Cfi;
    if (name == ".debug_info" || name == ".debug_addr" || name == ".debug_ranges" ||
        name == ".debug_rnglists")
        return DebugKind::Info;
    return DebugKind::None;
}

/// Reads an unsigned LEB128 number at `p` (before `end`); false if it runs
/// off the end or does not fit 64 bits.
bool read_uleb(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
    v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        const unsigned char b = *p++;
        if (shift >= 64) return false;
        v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

/// Whether the abbreviation tables in [p, end) declare an entry with tag
/// DW_TAG_inlined_subroutine (0x1d).  `ok` is false if they are malformed.
bool abbrevs_declare_inlined(const unsigned char* p, const unsigned char* end, bool& ok) {
    ok = true;
    while (p < end) {
        std::uint64_t code = 0, tag = 0;
        if (!read_uleb(p, end, code)) {
            ok = false;
            return false;
        }
        if (code == 0) continue;  // end of one unit's table
        if (!read_uleb(p, end, tag) || p >= end) {
            ok = false;
            return false;
        }
        if (tag == 0x1d) return true;
        ++p;  // DW_CHILDREN_yes / _no
        for (;;) {
            std::uint64_t attr = 0, form = 0, dummy = 0;
            if (!read_uleb(p, end, attr) || !read_uleb(p, end, form)) {
                ok = false;
                return false;
            }
            if (attr == 0 && form == 0) break;
            if (form == 0x21 && !read_uleb(p, end, dummy)) {  // DW_FORM_implicit_const: SLEB value
                ok = false;
                return false;
            }
        }
    }
    return false;
}

/// Reads and checks one object of ELF class T whose header and section
/// header table the shared reader has checked (see read_elf_object).  The
/// rules the core applies come from that reader (readgdbelf.c); this class
/// turns its problems into vg-jit's messages and adds what only vg-jit
/// reports, marked "vg-jit's own check" below.
template <class T>
class Reader {
public:
    Reader(const unsigned char* data, std::size_t n, ElfObjectInfo& info, GdbElfObject& o)
        : d_(data), n_(n), info_(info), o_(o) {}

    void run() {
        std::memcpy(&eh_, d_, sizeof eh_);
        is_rel_ = eh_.e_type == ET_REL;
        read_section_headers();
        read_section_names();
        read_sections();
        read_symbols();
        read_debug();
        check_overlaps();
    }

private:
    void add(Severity s, std::uint64_t where, const std::string& msg) {
        info_.problems.push_back(Problem{s, true, false, where, msg});
    }
    void error(std::uint64_t where, const std::string& msg) { add(Severity::Error, where, msg); }
    void warning(std::uint64_t where, const std::string& msg) {
        add(Severity::Warning, where, msg);
    }

    /// File offset of section header `i` (valid once the table is checked).
    std::uint64_t sh_at(std::uint64_t i) const {
        return eh_.e_shoff + i * sizeof(typename T::Shdr);
    }

    /// "section N 'NAME'" (or without the name if it is unknown).
    std::string section_label(std::uint64_t i) const {
        std::string s = "section " + std::to_string(i);
        if (i < names_.size() && !names_[i].empty()) s += " '" + names_[i] + "'";
        return s;
    }

    /// Copies the section header table (inside the file: the shared reader
    /// opened the object).
    void read_section_headers() {
        sh_.resize(eh_.e_shnum);
        for (std::size_t i = 0; i < sh_.size(); ++i)
            std::memcpy(&sh_[i], d_ + sh_at(i), sizeof(typename T::Shdr));
        names_.assign(sh_.size(), std::string());
        contents_ok_.assign(sh_.size(), false);
    }

    /// The section names, for messages and the DWARF sections (vg-jit's
    /// own checks: the core's object rules do not read them).
    void read_section_names() {
        const unsigned idx = eh_.e_shstrndx;
        if (idx == SHN_UNDEF) return;
        if (idx >= sh_.size()) {
            warning(offsetof(typename T::Ehdr, e_shstrndx),
                    "the section name table index " + std::to_string(idx) +
                        " is not a section: sections are listed without names");
            return;
        }
        const typename T::Shdr& s = sh_[idx];
        if (s.sh_type != SHT_STRTAB || !in_range(s.sh_offset, s.sh_size, n_)) {
            warning(sh_at(idx), "the section name table (section " + std::to_string(idx) +
                                    ") is not a string table inside the file: sections are "
                                    "listed without names");
            return;
        }
        const char* strs = reinterpret_cast<const char*>(d_ + s.sh_offset);
        if (s.sh_size == 0 || strs[s.sh_size - 1] != '\0')
            warning(sh_at(idx), "the section name table (section " + std::to_string(idx) +
                                    ") does not end with a NUL byte");
        for (std::size_t i = 0; i < sh_.size(); ++i) {
            const std::uint64_t off = sh_[i].sh_name;
            if (off >= s.sh_size) {
                if (off != 0 || s.sh_size != 0)
                    warning(sh_at(i) + offsetof(typename T::Shdr, sh_name),
                            "section " + std::to_string(i) + ": name offset " +
                                std::to_string(off) + " lies outside the section name table");
                continue;
            }
            const void* nul = std::memchr(strs + off, '\0', s.sh_size - off);
            if (!nul) {
                warning(sh_at(i) + offsetof(typename T::Shdr, sh_name),
                        "section " + std::to_string(i) +
                            ": name is not NUL-terminated in the "
                            "section name table");
                continue;
            }
            names_[i] = std::string(strs + off);
        }
    }

    void read_sections() {
        for (std::size_t i = 0; i < sh_.size(); ++i) {
            const typename T::Shdr& s = sh_[i];
            if (i == 0) continue;
            // The core takes code from any section flagged executable, even
            // of type SHT_NULL; those have no content to check.  vg-jit's
            // own check: a section past the end of the file (the core reads
            // only the sections the shared reader and jitgdbdwarf.c check).
            const bool nobits = s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL;
            if (!nobits && !in_range(s.sh_offset, s.sh_size, n_))
                error(sh_at(i) + offsetof(typename T::Shdr, sh_offset),
                      section_label(i) + " (offset " + hex(s.sh_offset) + ", " +
                          std::to_string(s.sh_size) + " bytes) lies past the end of the file (" +
                          std::to_string(n_) + " bytes)");
            else
                contents_ok_[i] = !nobits;
            if ((s.sh_flags & SHF_ALLOC) && (s.sh_flags & SHF_EXECINSTR)) {
                ElfSection e;
                e.index = static_cast<unsigned>(i);
                e.name = names_[i];
                e.type = s.sh_type;
                e.flags = s.sh_flags;
                e.addr = s.sh_addr;
                e.offset = s.sh_offset;
                e.size = s.sh_size;
                info_.code_sections.push_back(e);
            }
        }
    }

    void read_symbols() {
        // vg-jit's own check: a string table not ending with a NUL byte (the
        // core refuses only the names that run off its end).
        for (std::size_t i = 0; i < sh_.size(); ++i) {
            if (sh_[i].sh_type != SHT_SYMTAB) continue;
            const unsigned link = sh_[i].sh_link;
            if (link == 0 || link >= sh_.size() || !contents_ok_[link] ||
                sh_[link].sh_type != SHT_STRTAB)
                continue;
            const typename T::Shdr& ss = sh_[link];
            if (ss.sh_size == 0 || d_[ss.sh_offset + ss.sh_size - 1] != '\0')
                warning(sh_at(link), "the string table " + section_label(link) +
                                         " does not end with a NUL byte");
        }
        o_.on_problem = &Reader::symbol_problem;
        o_.ctx = this;
        ML_(gdbelf_functions)(&o_, &Reader::add_function, this);
        if (o_.file) info_.source_file.assign(o_.file, o_.file_len);
    }

    /// "the symbol table (section N 'NAME')".
    std::string symtab_label(unsigned i) const {
        return "the symbol table (" + section_label(i) + ")";
    }

    /// The shared reader's problems with symbol tables and symbols, as
    /// vg-jit's errors; reading goes on past each.
    static int symbol_problem(void* ctx, const GdbElfError* e) {
        Reader& r = *static_cast<Reader*>(ctx);
        const std::string k = std::to_string(e->symbol);
        const std::string what =
            std::string(e->num[1] == GDBELF_STT_FILE ? "file" : "function") + " symbol " + k;
        const std::string fn = "function '" + std::string(e->name ? e->name : "") + "' (symbol " +
                               k + ", value " + hex(e->num[0]) + ", size " +
                               std::to_string(e->num[1]) + ")";
        switch (e->code) {
        case GDBELF_ERR_NO_SYMTAB:
            r.error(e->at, "no symbol table (.symtab): the core refuses objects without one");
            break;
        case GDBELF_ERR_SYMTAB_ENTSIZE:
            r.error(e->at,
                    r.symtab_label(e->section) + " has entry size " + std::to_string(e->num[0]) +
                        " and size " + std::to_string(e->num[1]) + ", not a whole number of " +
                        std::to_string(e->num[2]) + "-byte symbols: the core refuses the object");
            break;
        case GDBELF_ERR_SYMTAB_OUTSIDE:
            r.error(e->at, r.symtab_label(e->section) + " lies outside the file (offset " +
                               hex(e->num[0]) + ", " + std::to_string(e->num[1]) +
                               " bytes): the core refuses the object");
            break;
        case GDBELF_ERR_SYMTAB_UNALIGNED:
            r.error(e->at, r.symtab_label(e->section) + " is not aligned to " +
                               std::to_string(e->num[1]) + " bytes: the core refuses the object");
            break;
        case GDBELF_ERR_SYMTAB_NO_STRTAB:
            r.error(e->at, r.symtab_label(e->section) + " links to section " +
                               std::to_string(e->num[0]) +
                               ", not a string table: the core refuses the object");
            break;
        case GDBELF_ERR_STRTAB_BAD:
            r.error(e->at, "the string table of " + r.symtab_label(e->section) + " (" +
                               r.section_label(e->num[0]) +
                               ") is not a string table inside the file: the core refuses "
                               "the object");
            break;
        case GDBELF_ERR_SYM_NO_NAME:
            r.error(e->at, what + " has no name (name offset 0): the core refuses the object");
            break;
        case GDBELF_ERR_SYM_NAME_OUTSIDE:
            r.error(e->at, what + ": name offset " + std::to_string(e->num[0]) +
                               " lies outside the string table (" + std::to_string(e->num[2]) +
                               " bytes): the core refuses the object");
            break;
        case GDBELF_ERR_SYM_NAME_UNTERMINATED:
            r.error(e->at, what + ": name at offset " + std::to_string(e->num[0]) +
                               " is not NUL-terminated within the string table: the core "
                               "refuses the object");
            break;
        case GDBELF_ERR_NO_LOAD_ADDRESS:
            // Once per section, not per function.
            if (r.no_address_reported_.insert(e->section).second)
                r.error(e->at, r.section_label(e->section) +
                                   " holds functions but has no load address (sh_addr 0; a JIT "
                                   "writes where it loaded the code there): the core refuses "
                                   "the object");
            break;
        case GDBELF_ERR_FN_OUTSIDE_SECTION:
            if (r.is_rel_)
                r.error(e->at, fn + " lies outside its " + r.section_label(e->section) + " (" +
                                   std::to_string(e->num[3]) +
                                   " bytes): the core refuses the object");
            else
                r.error(e->at, fn + " lies outside its " + r.section_label(e->section) + " [" +
                                   hex(e->num[2]) + ", " + hex(e->num[2] + e->num[3]) +
                                   "): the core refuses the object");
            break;
        case GDBELF_ERR_FN_WRAPS:
            r.error(e->at, fn + ": its range wraps around the address space: the core refuses "
                                "the object");
            break;
        default: {
            char buf[200];
            r.error(e->at, std::string(ML_(gdbelf_describe)(e, buf, sizeof buf)) +
                               ": the core refuses the object");
        }
        }
        return 1;
    }

    /// A function the shared reader accepted.
    static void add_function(void* ctx, const GdbElfFunction* g) {
        Reader& r = *static_cast<Reader*>(ctx);
        ElfFunction f;
        f.name.assign(g->name, g->name_len);
        f.start = g->start;
        f.size = g->size;
        f.section = g->section;
        f.symbol = g->symbol;
        // vg-jit's own check of a rule of the registry (jitreg.c), which
        // refuses the function, not the object.
        if (f.name.size() > VG_JIT_MAX_STRING)
            r.warning(g->at, "function '" + f.name.substr(0, 30) + "' (symbol " +
                                 std::to_string(g->symbol) + ", value " + hex(g->value) +
                                 ", size " + std::to_string(g->size) + ")...: the name is " +
                                 std::to_string(f.name.size()) +
                                 " bytes long; the core refuses functions whose name is longer "
                                 "than " +
                                 std::to_string(VG_JIT_MAX_STRING) + " bytes");
        r.info_.functions.push_back(f);
        r.fn_offsets_.push_back(g->at);
    }

    /// The section called `name` with readable content, or -1.
    long find_section(const char* name) const {
        for (std::size_t i = 0; i < sh_.size(); ++i)
            if (names_[i] == name && contents_ok_[i] && sh_[i].sh_size > 0) return long(i);
        return -1;
    }

    /// The DWARF sections as the core reads them: which sections, and why
    /// one is refused, come from the shared reader (readgdbelf.c's
    /// ML_(gdbelf_dwarf_*), which jitgdbdwarf.c calls too); the wording
    /// and the coverage of the functions are vg-jit's.
    void read_debug() {
        code_lo_ = ~std::uint64_t(0);
        for (const ElfFunction& f : info_.functions) code_lo_ = std::min(code_lo_, f.start);
        ML_(gdbelf_dwarf_sections)(&o_, &dw_);
        // The sections the core copies and relocates with the line table.
        static const unsigned kLineGroup[] = {GDBELF_DW_INFO, GDBELF_DW_ABBREV, GDBELF_DW_LINE,
                                              GDBELF_DW_STR, GDBELF_DW_LINE_STR};
        const long line = find_section(".debug_line");
        const long info = find_section(".debug_info");
        const long abbrev = find_section(".debug_abbrev");
        const long cfi =
            dw_.cfi >= 0 && sh_[dw_.shndx[dw_.cfi]].sh_size > 0 ? long(dw_.shndx[dw_.cfi]) : -1;
        info_.has_debug_info = info >= 0;
        if (info >= 0 && abbrev >= 0) {
            bool ok = true;
            const unsigned char* p = d_ + sh_[abbrev].sh_offset;
            info_.has_inlined = abbrevs_declare_inlined(p, p + sh_[abbrev].sh_size, ok);
            if (!ok)
                warning(sh_at(abbrev), section_label(abbrev) +
                                           " is malformed (an abbreviation runs past its end)");
        }
        // The core reads a line table only with .debug_info and .debug_abbrev.
        std::string lines_why, cfi_why;
        std::uint64_t lines_at = 0, cfi_at = 0;
        if (line >= 0) {
            for (const unsigned s : kLineGroup) {
                if (dw_.shndx[s] == 0) continue;
                const std::string why = unusable(s);
                if (!why.empty() && lines_why.empty()) {
                    lines_why = why;
                    lines_at = problem_at_;
                }
            }
            if (!dw_.want_lines)
                warning(sh_at(line), section_label(line) +
                                         " without .debug_info and .debug_abbrev: the core "
                                         "reads no line table from it");
            else if (!lines_why.empty())
                warning(lines_at, lines_why + ": the core refuses the object's line table");
            else {
                info_.line_section = ".debug_line";
                info_.line_size = sh_[line].sh_size;
            }
        }
        if (cfi >= 0) {
            cfi_why = unusable(unsigned(dw_.cfi));
            cfi_at = problem_at_;
            if (!cfi_why.empty())
                warning(cfi_at, cfi_why + ": the core refuses the object's CFI");
            else {
                info_.cfi_section = names_[cfi];
                info_.cfi_size = sh_[cfi].sh_size;
            }
        }
        if (info_.line_section.empty()) info_.has_inlined = false;  // read with the line table

        // Which code sections the debug data covers, from the relocations a
        // relocatable object carries against them.
        std::map<DebugKind, std::set<unsigned>> covered;
        std::set<DebugKind> relocated;
        if (is_rel_) {
            for (std::size_t i = 0; i < sh_.size(); ++i) {
                const typename T::Shdr& r = sh_[i];
                if (r.sh_type != SHT_RELA && r.sh_type != SHT_REL) continue;
                if (r.sh_info >= sh_.size()) continue;
                const DebugKind kind = debug_kind(names_[r.sh_info]);
                if (kind == DebugKind::None) continue;
                if (!contents_ok_[i] || r.sh_link == 0 || r.sh_link >= sh_.size() ||
                    !contents_ok_[r.sh_link] || sh_[r.sh_link].sh_type != SHT_SYMTAB)
                    continue;
                relocated.insert(kind);
                const std::uint64_t ent =
                    r.sh_type == SHT_RELA ? sizeof(typename T::Rela) : sizeof(typename T::Rel);
                const typename T::Shdr& symtab = sh_[r.sh_link];
                const std::uint64_t nsyms = symtab.sh_size / sizeof(typename T::Sym);
                for (std::uint64_t k = 0; k < r.sh_size / ent; ++k) {
                    typename T::Rel rel;  // r_offset and r_info lead both layouts
                    std::memcpy(&rel, d_ + r.sh_offset + k * ent, sizeof rel);
                    const std::uint64_t si = T::rel_sym(rel.r_info);
                    if (si == 0 || si >= nsyms) continue;
                    typename T::Sym sym;
                    std::memcpy(&sym, d_ + symtab.sh_offset + si * sizeof sym, sizeof sym);
                    covered[kind].insert(sym.st_shndx);
                }
            }
        }
        auto covers = [&](DebugKind k, unsigned sec) {
            return !relocated.count(k) || covered[k].count(sec) > 0;
        };
        for (ElfFunction& f : info_.functions) {
            f.lines = !info_.line_section.empty() && covers(DebugKind::Lines, f.section);
            f.cfi = !info_.cfi_section.empty() && covers(DebugKind::Cfi, f.section);
            f.inlined = info_.has_inlined && covers(DebugKind::Info, f.section);
        }
    }

    /// Why the core cannot use DWARF section `s` (GDBELF_DW_*; "" if it
    /// can), as the shared reader says: compressed, outside the file, or
    /// (in a relocatable object) relocations it does not apply.  Sets
    /// problem_at_ to the offset the reason is about.
    std::string unusable(unsigned s) {
        const unsigned i = dw_.shndx[s];
        GdbElfError e;
        problem_at_ = sh_at(i);
        switch (ML_(gdbelf_dwarf_section_problem)(&o_, &dw_, s, &e)) {
        case GDBELF_OK: break;
        case GDBELF_ERR_DW_COMPRESSED:
            problem_at_ = e.at;
            return section_label(i) + " is compressed";
        default: return section_label(i) + " lies outside the file";
        }
        if (ML_(gdbelf_dwarf_relocations)(&o_, &dw_, s, code_lo_, nullptr, nullptr, &e) ==
            GDBELF_OK)
            return "";
        problem_at_ = e.at;
        return section_label(e.section) + ": " + relocation_problem(e);
    }

    /// vg-jit's wording of a relocation problem of the shared reader.
    std::string relocation_problem(const GdbElfError& e) const {
        const std::string k = "relocation " + std::to_string(e.symbol);
        switch (e.code) {
        case GDBELF_ERR_REL_NOT_RELA: return "REL relocations (the core applies only RELA ones)";
        case GDBELF_ERR_REL_MACHINE:
            return "relocations of a " + elf_machine_name(static_cast<unsigned>(e.num[0])) +
                   " object (the core applies DWARF relocations of x86-64 and AArch64 objects "
                   "only)";
        case GDBELF_ERR_REL_MALFORMED:
            return "the relocation section is malformed or lies outside the file";
        case GDBELF_ERR_REL_NO_SYMTAB:
        case GDBELF_ERR_REL_SYMTAB_BAD:
            return "the relocation section names no well-formed symbol table";
        case GDBELF_ERR_REL_TYPE:
            return k + " has type " + std::to_string(e.num[0]) +
                   ", not R_X86_64_64, _32, _32S (or _PC32, _PC64 in .eh_frame) in an x86-64 "
                   "object, R_AARCH64_ABS64, _ABS32, _ABS16 (or _PREL32, _PREL64 in "
                   ".eh_frame) in an AArch64 one";
        case GDBELF_ERR_REL_OUTSIDE: return k + " lies outside its section";
        case GDBELF_ERR_REL_NO_SYMBOL: return k + " names no symbol";
        case GDBELF_ERR_REL_UNDEFINED: return k + " names an undefined symbol";
        case GDBELF_ERR_REL_OVERFLOW:
            return k + " (a 32- or 16-bit one) overflows: its value is " + hex(e.num[0]);
        default: {
            char buf[200];
            return ML_(gdbelf_describe)(&e, buf, sizeof buf);
        }
        }
    }

    void check_overlaps() {
        std::vector<std::size_t> order(info_.functions.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        const auto& fns = info_.functions;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return fns[a].start < fns[b].start; });
        // The function reaching furthest among those seen so far.
        std::size_t reach = 0;
        bool have = false;
        for (std::size_t i : order) {
            const ElfFunction& f = fns[i];
            if (have && f.start < fns[reach].start + fns[reach].size) {
                const ElfFunction& g = fns[reach];
                const ElfFunction& later = i > reach ? f : g;
                const ElfFunction& earlier = i > reach ? g : f;
                const std::string range = "function '" + later.name + "' [" + hex(later.start) +
                                          ", " + hex(later.start + later.size) + ")";
                if (f.start == g.start && f.size == g.size)
                    warning(fn_offsets_[std::max(i, reach)],
                            range + " has the same range as '" + earlier.name +
                                "' (an alias): the core registers both, the later replacing "
                                "the earlier, so only '" +
                                later.name + "' is named");
                else
                    warning(fn_offsets_[std::max(i, reach)],
                            range + " overlaps function '" + earlier.name + "' [" +
                                hex(earlier.start) + ", " + hex(earlier.start + earlier.size) +
                                "): the core registers both, the later replacing the earlier");
            }
            if (!have || f.start + f.size > fns[reach].start + fns[reach].size) reach = i;
            have = true;
        }
    }

    const unsigned char* d_;
    std::uint64_t n_;
    ElfObjectInfo& info_;
    GdbElfObject& o_;                         ///< opened by the shared reader
    std::set<unsigned> no_address_reported_;  ///< sections without a load address
    typename T::Ehdr eh_{};
    bool is_rel_ = false;
    std::vector<typename T::Shdr> sh_;
    std::vector<std::string> names_;
    std::vector<bool> contents_ok_;          ///< content inside the file (and not NOBITS)
    std::vector<std::uint64_t> fn_offsets_;  ///< file offset of each function's symbol
    std::uint64_t problem_at_ = 0;           ///< where unusable() found its reason
    GdbElfDwarf dw_{};                       ///< the DWARF sections (read_debug)
    std::uint64_t code_lo_ = 0;              ///< lowest function start (read_debug)
};

}  // namespace

bool is_elf_magic(const std::vector<unsigned char>& head) {
    return head.size() >= SELFMAG && std::memcmp(head.data(), ELFMAG, SELFMAG) == 0;
}

std::size_t ElfObjectInfo::errors() const {
    return std::count_if(problems.begin(), problems.end(),
                         [](const Problem& p) { return p.severity == Severity::Error; });
}

std::size_t ElfObjectInfo::warnings() const { return problems.size() - errors(); }

std::string elf_type_name(std::uint16_t t) {
    switch (t) {
    case ET_NONE: return "none (ET_NONE)";
    case ET_REL: return "relocatable (ET_REL)";
    case ET_EXEC: return "executable (ET_EXEC)";
    case ET_DYN: return "shared (ET_DYN)";
    case ET_CORE: return "core (ET_CORE)";
    default: return "type " + std::to_string(t);
    }
}

namespace {

/// The shared reader's problems with the header and the section header
/// table, as vg-jit's errors.  A foreign byte order stops the reading (the
/// rest of this file reads the structures in this machine's order).
int header_problem(void* ctx, const GdbElfError* e) {
    ElfObjectInfo& info = *static_cast<ElfObjectInfo*>(ctx);
    const auto n = std::to_string(e->num[0]);
    std::string msg;
    int go_on = 1;
    switch (e->code) {
    case GDBELF_ERR_NOT_ELF:
        msg = e->num[0] < SELFMAG
                  ? "the file is " + n +
                        " bytes, shorter than an ELF identification (16 bytes): the core "
                        "refuses it"
                  : "not an ELF object: the first 4 bytes are not the ELF magic 7f 45 4c 46";
        break;
    case GDBELF_ERR_SHORT:
        msg = e->num[1] == EI_NIDENT
                  ? "the file is " + n +
                        " bytes, shorter than an ELF identification (16 bytes): the core "
                        "refuses it"
                  : "the file is " + n + " bytes, shorter than an ELF" +
                        std::to_string(info.elf_class) + " header (" + std::to_string(e->num[1]) +
                        " bytes): the core refuses it";
        break;
    case GDBELF_ERR_BAD_CLASS: msg = "unknown ELF class " + n; break;
    case GDBELF_ERR_BAD_BYTE_ORDER: msg = "unknown ELF byte order " + n; break;
    case GDBELF_ERR_FOREIGN_BYTE_ORDER:
        msg = std::string("the object is ") + (e->num[0] == ELFDATA2LSB ? "little" : "big") +
              "-endian, unlike this machine: the core refuses objects of another byte order "
              "than the program's";
        go_on = 0;
        break;
    case GDBELF_ERR_FOREIGN_CLASS:
        msg = "the object is ELFCLASS" + n + ", this machine's programs ELFCLASS" +
              std::to_string(e->num[1]) +
              ": the core refuses objects of another class than the program's";
        break;
    case GDBELF_ERR_BAD_TYPE:
        msg = "object type " + elf_type_name(static_cast<std::uint16_t>(e->num[0])) +
              " is not relocatable, executable or shared: the core refuses it";
        break;
    case GDBELF_ERR_NO_SECTIONS:
        msg = "no section header table (e_shnum 0): the core refuses objects without one";
        break;
    case GDBELF_ERR_TOO_MANY_SECTIONS:
        msg = n + " sections, more than the core accepts (" + std::to_string(e->num[1]) + ")";
        break;
    case GDBELF_ERR_SHENTSIZE:
        msg = "section header size " + n + " is not " + std::to_string(e->num[1]) +
              ": the core refuses it";
        break;
    case GDBELF_ERR_SHDRS_OUTSIDE:
        msg = "the section header table (offset " + hex(e->num[0]) + ", " +
              std::to_string(e->num[1]) + " entries, " + std::to_string(e->num[2]) +
              " bytes) lies past the end of the file (" + std::to_string(e->num[3]) +
              " bytes): the core refuses it";
        break;
    case GDBELF_ERR_SHDRS_UNALIGNED:
        msg = "the section header table's offset " + hex(e->num[0]) + " is not aligned to " +
              std::to_string(e->num[1]) + " bytes: the core refuses it";
        break;
    default: {
        char buf[200];
        msg = std::string(ML_(gdbelf_describe)(e, buf, sizeof buf)) + ": the core refuses it";
    }
    }
    info.problems.push_back(Problem{Severity::Error, true, false, e->at, msg});
    return go_on;
}

}  // namespace

ElfObjectInfo read_elf_object(const unsigned char* data, std::size_t n) {
    ElfObjectInfo info;
    info.file_size = n;
    GdbElfObject o;
    // The header's checks set elf_class before any problem that names it.
    if (n > EI_DATA && (data[EI_CLASS] == ELFCLASS32 || data[EI_CLASS] == ELFCLASS64))
        info.elf_class = data[EI_CLASS] == ELFCLASS64 ? 64 : 32;
    ML_(gdbelf_open)(&o, data, n, &header_problem, &info);
    if (o.elf_class != 0) {
        info.elf_class = o.elf_class;
        info.little_endian = !o.big_endian;
    }
    if (!o.have_header) return info;
    info.type = static_cast<std::uint16_t>(o.type);
    info.machine = static_cast<std::uint16_t>(o.machine);
    info.header_read = true;
    if (!o.opened) return info;
    if (o.elf_class == 64)
        Reader<Elf64Types>(data, n, info, o).run();
    else
        Reader<Elf32Types>(data, n, info, o).run();
    return info;
}

ElfObjectInfo read_elf_object_file(const std::string& path) {
    ElfObjectInfo info;
    auto fail = [&](const std::string& msg) {
        info.problems.push_back(Problem{Severity::Error, false, false, 0, msg});
        return info;
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail("not a regular file");
    }
    if (static_cast<std::uint64_t>(st.st_size) > GDBELF_MAX_OBJECT_SIZE) {
        ::close(fd);
        info.file_size = st.st_size;
        return fail("the object is " + std::to_string(st.st_size) +
                    " bytes, more than the core accepts (" +
                    std::to_string(GDBELF_MAX_OBJECT_SIZE >> 20) + " MiB)");
    }
    std::vector<unsigned char> bytes(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    ::close(fd);
    bytes.resize(got);
    return read_elf_object(bytes.data(), bytes.size());
}

}  // namespace vgjit
