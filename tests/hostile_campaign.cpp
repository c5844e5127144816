// hostile_campaign: a deterministic mutation campaign against the staged
// Valgrind's reading of debug information that the client hands in
// (`make check-hostile`; a short slice runs in `make check`).
//
// It compiles fixtures/hostile/seed.c into relocatable objects like those
// a JIT registers through the GDB JIT interface (gcc and clang-14, DWARF 4
// and 5, -O0 and -O2 with inlined calls, .eh_frame or .debug_frame), takes
// their .eh_frame sections as client-request and jitdump unwinding seeds,
// and derives every case from (--seed, case number) alone: its family, its
// tool, its seed object and its mutation.  Batches of cases run through
// hostile_client under the staged Valgrind, the tool rotating over
// memcheck, callgrind, cachegrind, helgrind, drd, massif, dhat and none; a
// run passes when it ends with the client's own exit status and the
// stdout of a native run.  A batch that fails is re-run in halves, down
// to one case per process, to name the culprits.  Each failure is printed
// as one line (case, tool, seed, mutation, signature, the first frames of
// Valgrind's own stack, reproducer) and the failures are summarised by
// signature.  Exit status: 0 when every failure is listed in
// --known (or there is none), 1 otherwise, 77 when the staged Valgrind or
// the client is missing.
//
// Families (the case number picks one, and the tool, in blocks of
// kBlock cases):
//   gdb      an ELF object for the GDB JIT interface: bytes flipped, random
//            bytes or interesting values (0, 0x7f, 0x80, 0xff, sizes, ...)
//            in any section or in the ELF or section headers, truncations,
//            and field-aware changes of section headers, the ELF header,
//            symbols, relocation entries, DWARF unit and line-table
//            headers, abbreviation and line-table forms, and CFI records
//            and instructions
//   clreq    .eh_frame bytes of VALGRIND_JIT_REGISTER_CODE, the compilers'
//            .eh_frame resolved for the code: the same operators on CFI
//   jitdump  a CODE_UNWINDING_INFO record's payload (sizes, .eh_frame and
//            .eh_frame_hdr)
//
// Usage: see usage() below, and HACKING.md ("The hostile campaign").

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "byte_io.hpp"

namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;
using byte_io::get_le;
using byte_io::put_le;

/// Cases per block: a block has one family and one tool.
constexpr std::uint64_t kBlock = 20;
/// The client's exit status when it ends normally (hostile_client.cpp).
constexpr int kClientExit = 57;

const std::vector<std::string> kAllTools = {"memcheck", "callgrind", "cachegrind", "helgrind",
                                            "drd",      "massif",    "dhat",       "none"};
/// The family of each block, in turn (objects have the most to mutate).
const std::vector<std::string> kFamilyCycle = {"gdb", "clreq", "gdb", "jitdump", "gdb"};

struct Options {
    std::uint64_t seed = 1;
    std::uint64_t first = 0;
    std::uint64_t cases = 3000;
    unsigned jobs = 2;
    std::uint64_t batch = kBlock;
    unsigned timeout = 120;
    std::vector<std::string> tools = kAllTools;
    std::set<std::string> families = {"gdb", "clreq", "jitdump"};
    std::string out = "hostile-out";
    std::string repro;  // default: OUT/repro
    std::string valgrind, client, srcdir;
    std::string cc = "gcc", clang = "clang-14";
    std::string known;
    std::vector<std::string> replay;
    bool verbose = false;
    bool keep = false;
    bool dry_run = false;
    bool strict_readers = false;
};

void usage() {
    std::printf(
        "usage: hostile_campaign [OPTIONS]\n"
        "  --seed=N        campaign seed (default 1); with the case number it fixes\n"
        "                  every case\n"
        "  --first=N       first case number (default 0)\n"
        "  --cases=N       number of cases (default 3000)\n"
        "  --case=N        only case N (same as --first=N --cases=1)\n"
        "  --families=L    comma-separated subset of gdb,clreq,jitdump (cases of\n"
        "                  other families are skipped)\n"
        "  --tools=L       comma-separated tools to rotate over (default all eight)\n"
        "  --jobs=N        Valgrind runs at a time (default 2)\n"
        "  --batch=N       cases per Valgrind run, at most %llu (default %llu)\n"
        "  --timeout=S     seconds before a run counts as a hang (default 120)\n"
        "  --out=DIR       work directory (default hostile-out)\n"
        "  --repro=DIR     where reproducers are saved (default OUT/repro)\n"
        "  --known=FILE    failures expected today: lines \"CASE\" (e.g. gdb:1234 or\n"
        "                  a replayed directory's name); # starts a comment\n"
        "  --replay=DIR    run the reproducer in DIR (a directory with list, tool and\n"
        "                  its files, as saved under --repro) instead of cases; a\n"
        "                  directory of such directories runs each; repeatable\n"
        "  --valgrind=PATH --client=PATH --srcdir=DIR --cc=CC --clang=CC\n"
        "                  (defaults from $VGJIT_STAGE, $VGJIT_TESTS_BUILDDIR,\n"
        "                  $VGJIT_SRCDIR)\n"
        "  --verbose       print every run\n"
        "  --keep          keep the work directories of passing runs (OUT/work)\n"
        "  --dry-run       print each case (number, tool, seed, mutation); run nothing\n"
        "  --strict-readers  a reader failure that the core's guard caught (a failed\n"
        "                  check or a fault inside an upstream reader, shown under -v)\n"
        "                  counts as a failure too: the reader should refuse the\n"
        "                  input by itself\n",
        static_cast<unsigned long long>(kBlock), static_cast<unsigned long long>(kBlock));
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) v.push_back(cur);
    return v;
}

std::string hex(std::uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

Bytes read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_text(const fs::path& p) {
    Bytes b = read_file(p);
    return std::string(b.begin(), b.end());
}

void write_file(const fs::path& p, const Bytes& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

void write_text(const fs::path& p, const std::string& s) {
    write_file(p, Bytes(s.begin(), s.end()));
}

// ---------------------------------------------------------------------
// Random numbers: splitmix64 (the same sequence on every platform).

struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform-enough in [0, n), n > 0.
    std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

/// Reads a ULEB128 at `at` (advanced past it); false past the end.
bool uleb(const Bytes& b, std::size_t& at, std::size_t end, std::uint64_t* v) {
    std::uint64_t r = 0;
    int shift = 0;
    while (at < end) {
        const std::uint8_t c = b[at++];
        if (shift < 64) r |= std::uint64_t(c & 0x7f) << shift;
        shift += 7;
        if (!(c & 0x80)) {
            if (v) *v = r;
            return true;
        }
    }
    return false;
}

void put_uleb(Bytes& out, std::uint64_t v) {
    do {
        std::uint8_t c = v & 0x7f;
        v >>= 7;
        if (v) c |= 0x80;
        out.push_back(c);
    } while (v);
}

void put_sleb(Bytes& out, std::int64_t v) {
    bool more = true;
    while (more) {
        std::uint8_t c = v & 0x7f;
        v >>= 7;
        if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)))
            more = false;
        else
            c |= 0x80;
        out.push_back(c);
    }
}

/// An interesting value for a field of `width` bytes whose buffer holds
/// `size` bytes and whose region holds `region` bytes.
std::uint64_t interesting(Rng& r, int width, std::uint64_t size, std::uint64_t region) {
    const std::uint64_t mask = width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
    const std::uint64_t vals[] = {0,
                                  1,
                                  0x7f,
                                  0x80,
                                  0xff,
                                  0x7fff,
                                  0x8000,
                                  0xffff,
                                  0x7fffffff,
                                  0x80000000,
                                  0xffffffff,
                                  0x7fffffffffffffffull,
                                  0x8000000000000000ull,
                                  ~0ull,
                                  size,
                                  size + 1,
                                  size - 1,
                                  region,
                                  region + 1,
                                  region - 1,
                                  2 * region,
                                  16,
                                  64};
    const std::size_t n = sizeof vals / sizeof vals[0];
    std::uint64_t v = r.chance(15) ? r.next() : vals[r.below(n)];
    return v & mask;
}

// ---------------------------------------------------------------------
// Describing a mutation as it is applied.

struct Mutator {
    Bytes& b;
    Rng& r;
    std::string desc;
    void note(const std::string& s) {
        if (!desc.empty()) desc += "; ";
        desc += s;
    }
    /// Writes an interesting value into the field [at, at+width) named `what`.
    void field(std::size_t at, int width, std::uint64_t region, const std::string& what) {
        if (at >= b.size()) return;
        const std::uint64_t v = interesting(r, width, b.size(), region);
        put_le(b, at, width, v);
        note(what + "=" + hex(v));
    }
    void flip(std::size_t lo, std::size_t hi, const std::string& where) {
        if (lo >= hi || lo >= b.size()) return;
        hi = std::min(hi, b.size());
        const int n = 1 + static_cast<int>(r.below(4));
        for (int i = 0; i < n; ++i) {
            const std::size_t at = lo + r.below(hi - lo);
            const int bit = static_cast<int>(r.below(8));
            b[at] ^= static_cast<std::uint8_t>(1u << bit);
            note("flip " + where + "+" + hex(at - lo) + " bit " + std::to_string(bit));
        }
    }
    void random_bytes(std::size_t lo, std::size_t hi, const std::string& where) {
        if (lo >= hi || lo >= b.size()) return;
        hi = std::min(hi, b.size());
        const std::size_t at = lo + r.below(hi - lo);
        const std::size_t n = std::min<std::size_t>(1 + r.below(16), b.size() - at);
        for (std::size_t i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(r.next());
        note("random " + where + "+" + hex(at - lo) + " x" + std::to_string(n));
    }
    void interesting_at(std::size_t lo, std::size_t hi, const std::string& where) {
        if (lo >= hi || lo >= b.size()) return;
        hi = std::min(hi, b.size());
        const int widths[] = {1, 2, 4, 8};
        const int w = widths[r.below(4)];
        const std::size_t at = lo + r.below(hi - lo);
        field(at, w, hi - lo, where + "+" + hex(at - lo) + "/" + std::to_string(w));
    }
    void truncate(std::size_t at) {
        if (at >= b.size()) return;
        note("truncated to " + hex(at) + " of " + hex(b.size()));
        b.resize(at);
    }
};

// ---------------------------------------------------------------------
// CFI (.eh_frame, .debug_frame): where the records' fields are.

struct CfiField {
    std::size_t at;
    int width;
    std::string name;
};

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

/// One mutation of the CFI section at [lo, hi).
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

// ---------------------------------------------------------------------
// ELF objects.

struct Section {
    std::string name;
    std::size_t index = 0;
    Elf64_Shdr sh{};
    std::size_t hdr_at = 0;  // file offset of its header
};

struct Elf {
    Elf64_Ehdr eh{};
    std::vector<Section> sections;
    const Section* find(const std::string& n) const {
        for (const Section& s : sections)
            if (s.name == n) return &s;
        return nullptr;
    }
};

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

/// The data of section `s`, or empty for SHT_NOBITS.
std::pair<std::size_t, std::size_t> data_range(const Section& s, std::size_t file_size) {
    if (s.sh.sh_type == SHT_NOBITS) return {0, 0};
    const std::size_t lo = std::min<std::size_t>(s.sh.sh_offset, file_size);
    return {lo, std::min<std::size_t>(lo + s.sh.sh_size, file_size)};
}

struct Seed {
    std::string name;                 // e.g. gcc-dw5-O2-eh
    fs::path object;                  // the compiled object
    Bytes image;                      // the object
    Bytes text;                       // its .text
    std::size_t entry = 0;            // hz_entry's offset in .text
    std::size_t text_addr_field = 0;  // file offset of .text's sh_addr
    Bytes eh_frame;                   // .eh_frame resolved for the code (clreq, jitdump)
    fs::path text_path;
};

/// .eh_frame of `e`, its R_X86_64_PC32 relocations resolved as if the
/// section lay at the code's end rounded up to 8 bytes (where the client
/// and the jitdump follower put it); empty if it has none or other
/// relocations.
Bytes resolved_eh_frame(const Bytes& b, const Elf& e, std::size_t text_index,
                        std::size_t text_size) {
    const Section* eh = e.find(".eh_frame");
    const Section* rela = e.find(".rela.eh_frame");
    const Section* symtab = e.find(".symtab");
    if (!eh || !rela || !symtab) return {};
    auto [lo, hi] = data_range(*eh, b.size());
    Bytes out(b.begin() + static_cast<long>(lo), b.begin() + static_cast<long>(hi));
    const std::int64_t section_at = static_cast<std::int64_t>((text_size + 7) & ~std::size_t{7});
    for (std::size_t i = 0; i < rela->sh.sh_size / sizeof(Elf64_Rela); ++i) {
        Elf64_Rela r;
        std::memcpy(&r, b.data() + rela->sh.sh_offset + i * sizeof r, sizeof r);
        Elf64_Sym sym;
        const std::size_t sym_at = symtab->sh.sh_offset + ELF64_R_SYM(r.r_info) * sizeof(Elf64_Sym);
        if (sym_at + sizeof sym > b.size()) return {};
        std::memcpy(&sym, b.data() + sym_at, sizeof sym);
        if (ELF64_R_TYPE(r.r_info) != R_X86_64_PC32 || sym.st_shndx != text_index ||
            r.r_offset + 4 > out.size())
            return {};
        const std::int64_t v = static_cast<std::int64_t>(sym.st_value) + r.r_addend - section_at -
                               static_cast<std::int64_t>(r.r_offset);
        put_le(out, r.r_offset, 4, static_cast<std::uint64_t>(v));
    }
    return out;
}

Seed load_seed(const std::string& name, const fs::path& object, const fs::path& dir) {
    Seed s;
    s.name = name;
    s.object = object;
    s.image = read_file(object);
    const Elf e = parse_elf(s.image);
    const Section* text = e.find(".text");
    const Section* symtab = e.find(".symtab");
    if (!text || !symtab || text->sh.sh_size == 0) throw std::runtime_error(name + ": no .text");
    if (e.find(".rela.text")) throw std::runtime_error(name + ": its .text needs relocation");
    auto [lo, hi] = data_range(*text, s.image.size());
    s.text.assign(s.image.begin() + static_cast<long>(lo), s.image.begin() + static_cast<long>(hi));
    s.text_addr_field = text->hdr_at + offsetof(Elf64_Shdr, sh_addr);
    const Section& strtab = e.sections.at(symtab->sh.sh_link);
    bool found = false;
    for (std::size_t i = 0; i < symtab->sh.sh_size / sizeof(Elf64_Sym); ++i) {
        Elf64_Sym sym;
        std::memcpy(&sym, s.image.data() + symtab->sh.sh_offset + i * sizeof sym, sizeof sym);
        const char* n =
            reinterpret_cast<const char*>(s.image.data() + strtab.sh.sh_offset + sym.st_name);
        if (std::strcmp(n, "hz_entry") == 0) {
            s.entry = sym.st_value;
            found = true;
        }
    }
    if (!found) throw std::runtime_error(name + ": no hz_entry");
    s.eh_frame = resolved_eh_frame(s.image, e, text->index, s.text.size());
    s.text_path = dir / (name + ".text");
    write_file(s.text_path, s.text);
    return s;
}

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

void mutate_object(Mutator& m);

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

/// One mutation of an object image (the .text header's sh_addr at
/// `addrField` holds 0: the client stores the code's address there): the
/// operator is the stream's next number below 16, as make_case's cases
/// were numbered with it.
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

/// One mutation of .eh_frame bytes (clreq, jitdump).
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

/// A jitdump CODE_UNWINDING_INFO payload for `eh`: unwinding_size,
/// eh_frame_hdr_size, mapped_size, the .eh_frame and an .eh_frame_hdr,
/// padded to 8 bytes.
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

// ---------------------------------------------------------------------
// Cases.

struct Case {
    std::uint64_t number = 0;
    std::string family, tool, seed, mutation;
    std::string id() const { return family + ":" + std::to_string(number); }
    Bytes input;
    const Seed* s = nullptr;
    long long arg = -1;
};

struct Seeds {
    std::vector<Seed> objects;    // gdb
    std::vector<const Seed*> eh;  // clreq, jitdump: distinct .eh_frames
};

std::string family_of(std::uint64_t n) { return kFamilyCycle[(n / kBlock) % kFamilyCycle.size()]; }

Case make_case(const Options& o, const Seeds& seeds, std::uint64_t n) {
    Case c;
    c.number = n;
    c.family = family_of(n);
    c.tool = o.tools[(n / kBlock) % o.tools.size()];
    Rng r(o.seed * 0x100000001B3ull + n * 0x9E3779B97F4A7C15ull + 7);
    r.next();
    if (c.family == "gdb") {
        const Seed& s = seeds.objects[r.below(seeds.objects.size())];
        c.s = &s;
        c.input = s.image;
        Mutator m{c.input, r, {}};
        mutate_object(m);
        c.mutation = m.desc;
        // The client stores the code's address in .text's sh_addr unless
        // the mutation wrote there (or cut it off).
        c.arg =
            c.input.size() >= s.text_addr_field + 8 && get_le(c.input, s.text_addr_field, 8) == 0
                ? static_cast<long long>(s.text_addr_field)
                : -1;
    } else {
        const Seed& s = *seeds.eh[r.below(seeds.eh.size())];
        c.s = &s;
        Bytes eh = s.eh_frame;
        Mutator m{eh, r, {}};
        mutate_eh_frame(m);
        c.mutation = m.desc;
        if (c.family == "clreq") {
            if (eh.empty()) eh.push_back(0);  // an empty buffer is refused before any reading
            c.input = eh;
        } else {
            c.input = unwinding_payload(eh, s.text.size());
            if (r.chance(15)) {
                Mutator h{c.input, r, {}};
                static const char* kF[] = {"unwinding_size", "eh_frame_hdr_size", "mapped_size"};
                const std::size_t f = r.below(3);
                h.field(8 * f, 8, eh.size(), std::string("record.") + kF[f]);
                c.mutation += "; " + h.desc;
            }
        }
    }
    c.seed = c.s->name;
    if (c.mutation.empty()) c.mutation = "(none applied)";
    return c;
}

// ---------------------------------------------------------------------
// Running.

struct RunResult {
    bool timed_out = false;
    int status = 0;  // waitpid status
    std::string out, err;
};

/// Runs argv in `dir` with stdout and stderr to files, killing its
/// process group after `timeout` seconds.
RunResult run(const std::vector<std::string>& argv, const fs::path& dir, unsigned timeout,
              const std::string& tag) {
    const fs::path out_path = dir / (tag + ".stdout"), err_path = dir / (tag + ".stderr");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(dir.c_str()) != 0) _exit(126);
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0) _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    setpgid(pid, pid);
    RunResult r;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
    for (;;) {
        const pid_t w = waitpid(pid, &r.status, WNOHANG);
        if (w == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            r.timed_out = true;
            kill(-pid, SIGKILL);
            waitpid(pid, &r.status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    return r;
}

std::vector<std::string> tool_args(const std::string& tool) {
    std::vector<std::string> a = {"--tool=" + tool, "-v"};
    if (tool == "callgrind") a.push_back("--callgrind-out-file=tool.out");
    if (tool == "cachegrind") a.push_back("--cachegrind-out-file=tool.out");
    if (tool == "massif") a.push_back("--massif-out-file=tool.out");
    if (tool == "dhat") a.push_back("--dhat-out-file=tool.out");
    return a;
}

/// The first frames of Valgrind's own stack in `err` after its assertion
/// and signal machinery ("fn (file:line) < caller (...) < ..."), or "".
std::string host_stack(const std::string& err, int frames = 4) {
    static const std::regex frame(R"((?:at|by) 0x[0-9A-Fa-f]+: (\S+) \(([^)]*)\))");
    const std::size_t stack = err.find("host stacktrace");
    if (stack == std::string::npos) return "";
    const std::string rest = err.substr(stack, err.find("Thread ", stack) - stack);
    std::string out;
    int n = 0;
    for (std::sregex_iterator it(rest.begin(), rest.end(), frame), end; it != end && n < frames;
         ++it) {
        const std::string fn = (*it)[1].str();
        if (fn.find("assert") != std::string::npos || fn.find("panic") != std::string::npos ||
            fn.find("show_sched") != std::string::npos ||
            fn.find("report_and_quit") != std::string::npos ||
            fn.find("signalhandler") != std::string::npos || fn == "ensure_valid" || fn == "???")
            continue;
        out += (out.empty() ? "" : " < ") + fn + " (" + (*it)[2].str() + ")";
        ++n;
    }
    return out;
}

/// What a run's failure looks like: "" when it passed.
std::string signature_of(const RunResult& r, const std::string& native_out) {
    static const std::regex assertion(
        R"(valgrind: (?:\S+/)?([^/\s]+:\d+) \(([^)]*)\): (Assertion '.*' failed\.?))");
    static const std::regex frame(R"((?:at|by) 0x[0-9A-Fa-f]+: (\S+) \(([^)]*)\))");
    static const std::regex client_signal(
        R"(Process terminating with default action of signal (\d+) \((\w+)\))");
    if (r.timed_out) return "hang (timeout)";
    std::smatch m;
    if (std::regex_search(r.err, m, assertion))
        return m[1].str() + " (" + m[2].str() + "): " + m[3].str();
    // The first frame of Valgrind's own stack after a crash or panic.
    const std::size_t impossible = r.err.find("the 'impossible' happened");
    if (impossible != std::string::npos) {
        std::string reason = r.err.substr(impossible);
        reason = reason.substr(0, reason.find("host stacktrace"));
        std::string what = "impossible";
        static const std::regex received(R"(received a signal \d+ \((\w+)\))");
        if (reason.find("Killed by fatal signal") != std::string::npos) {
            std::smatch sm;
            what = std::regex_search(r.err, sm, received) ? sm[1].str() : "fatal signal";
        } else {
            const std::size_t nl = reason.find('\n');
            what = nl != std::string::npos ? reason.substr(nl + 1) : reason;
            what = what.substr(0, what.find('\n'));
            what.erase(0, what.find_first_not_of(" \t"));
        }
        const std::size_t stack = r.err.find("host stacktrace", impossible);
        if (stack != std::string::npos) {
            std::string rest = r.err.substr(stack);
            for (std::sregex_iterator it(rest.begin(), rest.end(), frame), end; it != end; ++it) {
                const std::string fn = (*it)[1].str();
                if (fn.find("assert") != std::string::npos ||
                    fn.find("panic") != std::string::npos ||
                    fn.find("show_sched") != std::string::npos ||
                    fn.find("report_and_quit") != std::string::npos ||
                    fn.find("sync_signalhandler") != std::string::npos || fn == "???")
                    continue;
                return what + " in " + fn + " (" + (*it)[2].str() + ")";
            }
        }
        return what;
    }
    if (r.err.find("out of memory") != std::string::npos) return "out of memory";
    const std::size_t internal = r.err.find("internal error");
    if (internal != std::string::npos) {
        const std::size_t bol = r.err.rfind('\n', internal) + 1;
        std::string line = r.err.substr(bol, r.err.find('\n', internal) - bol);
        line.erase(0, line.find_first_not_of("=0123456789 -"));
        return line;
    }
    if (std::regex_search(r.err, m, client_signal)) {
        std::string where;
        const std::string rest = m.suffix().str();
        std::smatch f;
        if (std::regex_search(rest, f, frame))
            where = " at " + f[1].str() + " (" + f[2].str() + ")";
        return "client killed by " + m[2].str() + where;
    }
    if (WIFSIGNALED(r.status)) return "killed by signal " + std::to_string(WTERMSIG(r.status));
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != kClientExit)
        return "exit status " + std::to_string(WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1);
    if (r.out != native_out) return "client output differs from the native run";
    return "";
}

/// With --strict-readers: the text of the first reader failure that the
/// core's guard (jitguard.c) caught in r, a failed check or a fault inside
/// an upstream reader ("a failed check: 'dstxa' at ..."), or "".  Such an
/// input no longer kills Valgrind, but it reached a reader bug that part 1
/// of the series should fix at its root.
std::string guard_catch_of(const RunResult& r) {
    static const std::regex caught(
        R"((a failed check: [^\n]*|a fault \(signal \d+ at address [^)]*\)))");
    std::smatch m;
    if (std::regex_search(r.err, m, caught)) return "caught by the guard: " + m[1].str();
    return "";
}

struct Failure {
    std::string id, tool, seed, mutation, signature, repro, known;
};

struct Campaign {
    Options o;
    Seeds seeds;
    std::set<std::string> known;
    std::mutex mu;
    std::vector<Failure> failures;
    std::set<std::string> passed_known;
    std::atomic<std::uint64_t> runs{0}, passed{0}, total{0};

    std::vector<std::string> valgrind_argv(const std::string& tool, const std::string& list) const {
        std::vector<std::string> a = {o.valgrind};
        for (const std::string& x : tool_args(tool)) a.push_back(x);
        a.push_back(o.client);
        a.push_back(list);
        return a;
    }

    /// Writes the batch's inputs and list into `dir`.
    void write_cases(const std::vector<Case>& cases, const fs::path& dir) const {
        fs::create_directories(dir);
        std::string list;
        std::set<std::string> texts;
        for (const Case& c : cases) {
            const std::string input = c.family + "-" + std::to_string(c.number) + ".in";
            write_file(dir / input, c.input);
            const std::string text = c.seed + ".text";
            if (texts.insert(text).second) write_file(dir / text, c.s->text);
            list += c.id() + " " + c.family + " " + text + " " + std::to_string(c.s->entry) + " " +
                    input + " " + std::to_string(c.arg) + "\n";
        }
        write_text(dir / "list", list);
    }

    /// Runs the list in `dir` natively and under `tool`; the failure's
    /// signature or "".
    std::string run_list(const fs::path& dir, const std::string& tool, std::string* log) {
        const RunResult native = run({o.client, "list"}, dir, o.timeout, "native");
        if (native.timed_out || !WIFEXITED(native.status) ||
            WEXITSTATUS(native.status) != kClientExit)
            throw std::runtime_error("the client fails natively in " + dir.string() + ": " +
                                     native.err);
        const RunResult vg = run(valgrind_argv(tool, "list"), dir, o.timeout, "valgrind");
        ++runs;
        if (vg.err.find("failed to start tool") != std::string::npos)
            throw std::runtime_error("the staged Valgrind cannot start " + tool + " (" +
                                     o.valgrind + ")");
        if (log) *log = vg.err;
        const std::string sig = signature_of(vg, native.out);
        if (sig.empty() && o.strict_readers) return guard_catch_of(vg);
        return sig;
    }

    /// Saves a reproducer of `c` under the repro directory: its files, the
    /// tool, Valgrind's output and run.sh.
    std::string save_repro(const Case& c, const fs::path& from, const std::string& sig) const {
        const fs::path dir =
            fs::path(o.repro) / (c.family + "-" + std::to_string(c.number) + "-" + c.tool);
        fs::remove_all(dir);
        write_cases({c}, dir);
        write_text(dir / "tool", c.tool + "\n");
        write_text(dir / "signature", sig + "\n");
        write_text(dir / "mutation", "seed " + c.seed + ", campaign seed " +
                                         std::to_string(o.seed) + ", case " + c.id() + ": " +
                                         c.mutation + "\n");
        if (fs::exists(from / "valgrind.stderr"))
            fs::copy_file(from / "valgrind.stderr", dir / "valgrind.log",
                          fs::copy_options::overwrite_existing);
        std::string sh = "#!/bin/sh\n# Reproduces " + c.id() + " under " + c.tool + ": " + sig +
                         "\ncd \"$(dirname \"$0\")\" && exec \"${VALGRIND:-" + o.valgrind + "}\"";
        for (const std::string& a : tool_args(c.tool)) sh += " " + a;
        sh += " \"${HOSTILE_CLIENT:-../hostile_client}\" list\n";
        write_text(dir / "run.sh", sh);
        fs::permissions(dir / "run.sh",
                        fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
        return fs::absolute(dir).string();
    }

    void record(const Case& c, const std::string& sig, const std::string& repro,
                const std::string& stack) {
        std::lock_guard<std::mutex> g(mu);
        Failure f{
            c.id(), c.tool, c.seed, c.mutation, sig, repro, known.count(c.id()) ? "known" : ""};
        std::printf("%s %s %s seed=%s sig=\"%s\" from=\"%s\" mutation=\"%s\" repro=%s\n",
                    f.known.empty() ? "FAIL" : "XFAIL", f.id.c_str(), f.tool.c_str(),
                    f.seed.c_str(), sig.c_str(), stack.c_str(), c.mutation.c_str(), repro.c_str());
        std::fflush(stdout);
        failures.push_back(f);
    }

    void run_batch(const std::vector<Case>& batch, std::size_t index) {
        const fs::path dir = fs::path(o.out) / "work" / ("b" + std::to_string(index));
        fs::remove_all(dir);
        write_cases(batch, dir);
        const std::string sig = run_list(dir, batch.front().tool, nullptr);
        total += batch.size();
        if (o.verbose) {
            std::lock_guard<std::mutex> g(mu);
            std::printf("run %s..%s %s: %s\n", batch.front().id().c_str(),
                        batch.back().id().c_str(), batch.front().tool.c_str(),
                        sig.empty() ? "pass" : sig.c_str());
        }
        if (sig.empty()) {
            passed += batch.size();
            for (const Case& c : batch) note_passed(c.id());
            if (!o.keep) fs::remove_all(dir);
            return;
        }
        // Halves of the batch, recursively, down to one case per process,
        // to name the culprits.
        if (batch.size() == 1) {
            record(batch.front(), sig, save_repro(batch.front(), dir, sig),
                   host_stack(read_text(dir / "valgrind.stderr")));
            return;
        }
        if (!bisect(batch, dir)) {
            Case whole = batch.front();
            whole.mutation = "only together with the rest of its batch, up to " + batch.back().id();
            record(whole, sig + " (batch)", fs::absolute(dir).string(),
                   host_stack(read_text(dir / "valgrind.stderr")));
        }
    }

    /// Runs each half of `cases` (more than one) in its own process and
    /// each failing half's halves, down to single cases, which are
    /// recorded.  False if no case failed.
    bool bisect(const std::vector<Case>& cases, const fs::path& dir) {
        const std::size_t mid = cases.size() / 2;
        bool named = false;
        for (int h = 0; h < 2; ++h) {
            const std::vector<Case> half(cases.begin() + (h ? static_cast<long>(mid) : 0),
                                         h ? cases.end() : cases.begin() + static_cast<long>(mid));
            const fs::path sub =
                dir / (half.front().family + "-" + std::to_string(half.front().number) + "-" +
                       std::to_string(half.size()));
            write_cases(half, sub);
            const std::string s = run_list(sub, half.front().tool, nullptr);
            if (s.empty()) {
                passed += half.size();
                for (const Case& c : half) note_passed(c.id());
            } else if (half.size() == 1) {
                named = true;
                record(half.front(), s, save_repro(half.front(), sub, s),
                       host_stack(read_text(sub / "valgrind.stderr")));
            } else {
                if (!bisect(half, sub)) {
                    Case whole = half.front();
                    whole.mutation =
                        "only together with the rest of its run, up to " + half.back().id();
                    record(whole, s + " (batch)", fs::absolute(sub).string(),
                           host_stack(read_text(sub / "valgrind.stderr")));
                }
                named = true;
            }
        }
        return named;
    }

    void note_passed(const std::string& id) {
        if (!known.count(id)) return;
        std::lock_guard<std::mutex> g(mu);
        passed_known.insert(id);
    }

    /// Replays a saved reproducer (a directory with list and tool).
    void replay(const fs::path& dir) {
        std::string tool = read_text(dir / "tool");
        tool.erase(tool.find_last_not_of(" \n") + 1);
        const fs::path work = fs::path(o.out) / "replay" / dir.filename();
        fs::remove_all(work);
        fs::create_directories(work);
        for (const auto& f : fs::directory_iterator(dir))
            if (f.is_regular_file()) fs::copy_file(f.path(), work / f.path().filename());
        const std::string sig = run_list(work, tool, nullptr);
        ++total;
        Case c;
        c.family = "replay";
        const std::string name = dir.filename().string();
        if (sig.empty()) {
            ++passed;
            note_passed(name);
            if (o.verbose) std::printf("pass %s %s\n", name.c_str(), tool.c_str());
            return;
        }
        std::lock_guard<std::mutex> g(mu);
        Failure f{name,
                  tool,
                  "-",
                  "replayed " + dir.string(),
                  sig,
                  fs::absolute(dir).string(),
                  known.count(name) ? "known" : ""};
        std::printf("%s %s %s sig=\"%s\" from=\"%s\" repro=%s\n",
                    f.known.empty() ? "FAIL" : "XFAIL", name.c_str(), tool.c_str(), sig.c_str(),
                    host_stack(read_text(work / "valgrind.stderr")).c_str(), f.repro.c_str());
        failures.push_back(f);
    }
};

bool is_executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

/// Compiles the seed objects into DIR; a compiler that is missing is
/// skipped with a note.
Seeds build_seeds(const Options& o, const fs::path& dir) {
    Seeds s;
    fs::create_directories(dir);
    const fs::path src = fs::path(o.srcdir) / "tests" / "fixtures" / "hostile" / "seed.c";
    if (!fs::exists(src)) throw std::runtime_error("no " + src.string());
    std::set<std::string> eh_seen;
    for (const std::string& cc : {o.cc, o.clang}) {
        if (std::system(("command -v " + cc + " >/dev/null 2>&1").c_str()) != 0) {
            std::printf("note: no %s: its seed objects are skipped\n", cc.c_str());
            continue;
        }
        const std::string cc_name = cc.find("clang") != std::string::npos ? "clang" : "gcc";
        for (const char* dw : {"4", "5"})
            for (const char* opt : {"O0", "O2"})
                for (const char* cfi : {"eh", "df"}) {
                    const std::string name = cc_name + "-dw" + dw + "-" + opt + "-" + cfi;
                    const fs::path obj = dir / (name + ".o");
                    const std::string cmd =
                        cc + " -c -" + opt + " -gdwarf-" + dw +
                        (std::string(cfi) == "eh" ? " -fasynchronous-unwind-tables"
                                                  : " -fno-asynchronous-unwind-tables") +
                        " -fno-pic -fno-stack-protector -fcf-protection=none -fno-builtin -o " +
                        obj.string() + " " + src.string();
                    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
                    s.objects.push_back(load_seed(name, obj, dir));
                }
    }
    if (s.objects.empty()) throw std::runtime_error("no seed objects");
    for (const Seed& x : s.objects) {
        if (x.eh_frame.empty()) continue;
        const std::string key(x.eh_frame.begin(), x.eh_frame.end());
        if (eh_seen.insert(key + std::string(x.text.begin(), x.text.end())).second)
            s.eh.push_back(&x);
    }
    if (s.eh.empty()) throw std::runtime_error("no seed .eh_frame");
    return s;
}

/// The options' defaults: the staged Valgrind, the built client and the
/// source tree, from the environment or as compiled in.
Options default_options() {
    Options o;
    const char* stage = std::getenv("VGJIT_STAGE");
    const char* build = std::getenv("VGJIT_TESTS_BUILDDIR");
    const char* src = std::getenv("VGJIT_SRCDIR");
#ifdef VGJIT_STAGE
    if (!stage) stage = VGJIT_STAGE;
#endif
#ifdef VGJIT_TESTS_BUILDDIR
    if (!build) build = VGJIT_TESTS_BUILDDIR;
#endif
#ifdef VGJIT_SRCDIR
    if (!src) src = VGJIT_SRCDIR;
#endif
    if (stage) o.valgrind = std::string(stage) + "/bin/valgrind";
    if (build) o.client = std::string(build) + "/hostile_client";
    if (src) o.srcdir = src;
    return o;
}

/// Sets o from the command line.  Returns -1 to go on, else the exit
/// status (0 after --help, 2 for a usage error, which it reports).
int parse_options(Options& o, int argc, char** argv) {
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            const std::size_t eq = a.find('=');
            const std::string k = a.substr(0, eq),
                              v = eq == std::string::npos ? "" : a.substr(eq + 1);
            if (k == "--seed")
                o.seed = std::stoull(v);
            else if (k == "--first")
                o.first = std::stoull(v);
            else if (k == "--cases")
                o.cases = std::stoull(v);
            else if (k == "--case") {
                o.first = std::stoull(v.substr(v.find(':') + 1));
                o.cases = 1;
            } else if (k == "--families") {
                auto f = split(v, ',');
                o.families = std::set<std::string>(f.begin(), f.end());
            } else if (k == "--tools")
                o.tools = split(v, ',');
            else if (k == "--jobs")
                o.jobs = static_cast<unsigned>(std::max(1ull, std::stoull(v)));
            else if (k == "--batch")
                o.batch = std::clamp<std::uint64_t>(std::stoull(v), 1, kBlock);
            else if (k == "--timeout")
                o.timeout = static_cast<unsigned>(std::stoul(v));
            else if (k == "--out")
                o.out = v;
            else if (k == "--repro")
                o.repro = v;
            else if (k == "--known")
                o.known = v;
            else if (k == "--replay")
                o.replay.push_back(v);
            else if (k == "--valgrind")
                o.valgrind = v;
            else if (k == "--client")
                o.client = v;
            else if (k == "--srcdir")
                o.srcdir = v;
            else if (k == "--cc")
                o.cc = v;
            else if (k == "--clang")
                o.clang = v;
            else if (k == "--verbose")
                o.verbose = true;
            else if (k == "--keep")
                o.keep = true;
            else if (k == "--dry-run")
                o.dry_run = true;
            else if (k == "--strict-readers")
                o.strict_readers = true;
            else if (k == "--help" || k == "-h") {
                usage();
                return 0;
            } else {
                std::fprintf(stderr, "hostile_campaign: unknown option %s\n", a.c_str());
                usage();
                return 2;
            }
        }
        for (const std::string& t : o.tools)
            if (std::find(kAllTools.begin(), kAllTools.end(), t) == kAllTools.end())
                throw std::runtime_error("unknown tool " + t);
        if (o.tools.empty()) throw std::runtime_error("no tools");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hostile_campaign: %s\n", e.what());
        return 2;
    }
    return -1;
}

/// The case ids of a --known file (one a line, `#` starts a comment).
std::set<std::string> read_known(const std::string& path) {
    std::set<std::string> known;
    std::istringstream in(read_text(path));
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        std::istringstream w(line);
        std::string id;
        if (w >> id) known.insert(id);
    }
    return known;
}

/// Builds the seeds and makes the campaign's cases (each a function of
/// the campaign seed and its number), in batches of one block and family
/// (--dry-run lists them instead).
std::vector<std::vector<Case>> plan_batches(const Options& o, Campaign& c) {
    std::vector<std::vector<Case>> batches;
    c.seeds = build_seeds(o, fs::path(o.out) / "seeds");
    std::printf(
        "seeds: %zu objects, %zu .eh_frame; campaign seed %llu, cases %llu..%llu, tools "
        "%zu\n",
        c.seeds.objects.size(), c.seeds.eh.size(), static_cast<unsigned long long>(o.seed),
        static_cast<unsigned long long>(o.first),
        static_cast<unsigned long long>(o.first + o.cases - 1), o.tools.size());
    std::fflush(stdout);
    for (std::uint64_t n = o.first; n < o.first + o.cases; ++n) {
        if (!o.families.count(family_of(n))) continue;
        Case k = make_case(o, c.seeds, n);
        if (o.dry_run) {
            std::printf("%s %s %s %s\n", k.id().c_str(), k.tool.c_str(), k.seed.c_str(),
                        k.mutation.c_str());
            continue;
        }
        if (batches.empty() || batches.back().size() >= o.batch ||
            batches.back().front().number / kBlock != n / kBlock)
            batches.emplace_back();
        batches.back().push_back(std::move(k));
    }
    return batches;
}

/// The reproducer directories --replay names (each, or those under it).
std::vector<fs::path> find_replays(const Options& o) {
    std::vector<fs::path> replays;
    for (const std::string& r : o.replay) {
        if (fs::exists(fs::path(r) / "list"))
            replays.push_back(r);
        else
            for (const auto& d : fs::directory_iterator(r))
                if (fs::exists(d.path() / "list")) replays.push_back(d.path());
    }
    std::sort(replays.begin(), replays.end());
    return replays;
}

/// Runs the batches (or the replays) on o.jobs threads; throws what broke
/// the campaign itself (not a failing case).
void run_all(const Options& o, Campaign& c, std::vector<std::vector<Case>>& batches,
             const std::vector<fs::path>& replays) {
    std::atomic<std::size_t> next{0}, finished{0};
    std::atomic<bool> broken{false};
    std::string broken_why;
    auto worker = [&] {
        for (;;) {
            const std::size_t i = next++;
            if (broken) return;
            try {
                if (o.replay.empty()) {
                    if (i >= batches.size()) return;
                    c.run_batch(batches[i], i);
                    const std::size_t done = ++finished,
                                      step = std::max<std::size_t>(1, batches.size() / 10);
                    if (done % step == 0 && done < batches.size()) {
                        std::lock_guard<std::mutex> g(c.mu);
                        std::printf("progress: %zu of %zu runs\n", done, batches.size());
                        std::fflush(stdout);
                    }
                } else {
                    if (i >= replays.size()) return;
                    c.replay(replays[i]);
                }
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> g(c.mu);
                broken = true;
                broken_why = e.what();
            }
        }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < o.jobs; ++j) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
    if (broken) throw std::runtime_error(broken_why);
}

/// Prints the failures by signature and the known failures that pass now;
/// returns the exit status (1 if a failure is not in --known).
int print_summary(const Options& o, const Campaign& c, double secs) {
    std::map<std::string, std::vector<const Failure*>> by_sig;
    std::size_t unexpected = 0;
    for (const Failure& f : c.failures) {
        by_sig[f.signature].push_back(&f);
        if (f.known.empty()) ++unexpected;
    }
    std::printf(
        "\n%llu cases in %llu Valgrind runs, %.0f s: %llu passed, %zu failed (%zu not in --known), "
        "%zu distinct signatures\n",
        static_cast<unsigned long long>(c.total.load()),
        static_cast<unsigned long long>(c.runs.load()), secs,
        static_cast<unsigned long long>(c.passed.load()), c.failures.size(), unexpected,
        by_sig.size());
    for (const auto& [sig, fs_] : by_sig) {
        std::set<std::string> tools;
        for (const Failure* f : fs_) tools.insert(f->tool);
        std::string t;
        for (const std::string& x : tools) t += (t.empty() ? "" : ",") + x;
        std::printf("  %4zu  %s\n        tools %s; first %s, reproducer %s\n", fs_.size(),
                    sig.c_str(), t.c_str(), fs_.front()->id.c_str(), fs_.front()->repro.c_str());
    }
    for (const std::string& id : c.passed_known)
        std::printf("XPASS %s: listed in --known but passes now (remove it from %s)\n", id.c_str(),
                    o.known.c_str());
    return unexpected == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options o = default_options();
    if (const int status = parse_options(o, argc, argv); status >= 0) return status;
    if (!is_executable(o.valgrind) || !is_executable(o.client)) {
        std::printf("SKIP: no staged Valgrind (%s) or client (%s)\n", o.valgrind.c_str(),
                    o.client.c_str());
        return 77;
    }
    if (o.repro.empty()) o.repro = (fs::path(o.out) / "repro").string();
    o.out = fs::absolute(o.out).string();
    o.repro = fs::absolute(o.repro).string();
    o.valgrind = fs::absolute(o.valgrind).string();
    o.client = fs::absolute(o.client).string();

    Campaign c;
    c.o = o;
    const auto start = std::chrono::steady_clock::now();
    try {
        fs::create_directories(o.out);
        fs::create_directories(o.repro);
        // The reproducers' run.sh runs ../hostile_client.
        fs::copy_file(o.client, fs::path(o.repro) / "hostile_client",
                      fs::copy_options::overwrite_existing);
        if (!o.known.empty()) c.known = read_known(o.known);
        std::vector<std::vector<Case>> batches;
        std::vector<fs::path> replays;
        if (o.replay.empty())
            batches = plan_batches(o, c);
        else
            replays = find_replays(o);
        run_all(o, c, batches, replays);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hostile_campaign: %s\n", e.what());
        return 2;
    }
    return print_summary(
        o, c, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}
