// hostile_cases.cpp: the hostile campaign's seeds and cases (the program
// is described in hostile_campaign.cpp): fixtures/hostile/seed.c compiled
// by each compiler with each flag set and loaded as a seed, and each case
// made from the campaign seed and its number alone (make_case).
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

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

}  // namespace

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

}  // namespace hostile
