// elf_edit.hpp: a 64-bit ELF object in memory for unit_objdump, read and
// edited in place: its sections, symbols and the functions the core would
// register, a section's load address set as a JIT sets it, and headers and
// tables damaged on purpose.
#pragma once

#include "test_support.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace objdump_test {

/// A 64-bit ELF object in memory, with just enough reading and editing to
/// set load addresses and damage it.
struct Object {
    std::string bytes;

    /// The T at file offset `off`.
    template <class T>
    T get(std::uint64_t off) const {
        if (off + sizeof(T) > bytes.size()) throw std::runtime_error("read past the object");
        T v;
        std::memcpy(&v, bytes.data() + off, sizeof v);
        return v;
    }
    /// Writes `v` at file offset `off`.
    template <class T>
    void put(std::uint64_t off, const T& v) {
        if (off + sizeof(T) > bytes.size()) throw std::runtime_error("write past the object");
        std::memcpy(&bytes[off], &v, sizeof v);
    }
    /// The ELF header, section header `i` and its offset, section `i`'s
    /// name, and the index of the section called `name`.
    Elf64_Ehdr ehdr() const { return get<Elf64_Ehdr>(0); }
    std::uint64_t sh_offset_of(unsigned i) const { return ehdr().e_shoff + i * sizeof(Elf64_Shdr); }
    Elf64_Shdr sh(unsigned i) const { return get<Elf64_Shdr>(sh_offset_of(i)); }
    void set_sh(unsigned i, const Elf64_Shdr& s) { put(sh_offset_of(i), s); }
    std::string section_name(unsigned i) const {
        const Elf64_Shdr names = sh(ehdr().e_shstrndx);
        return std::string(bytes.c_str() + names.sh_offset + sh(i).sh_name);
    }
    unsigned section(const std::string& name) const {
        for (unsigned i = 0; i < ehdr().e_shnum; ++i)
            if (section_name(i) == name) return i;
        throw std::runtime_error("no section " + name);
    }
    /// File offset of the .symtab symbol called `name`.
    std::uint64_t symbol_offset(const std::string& name) const {
        const Elf64_Shdr st = sh(section(".symtab"));
        const Elf64_Shdr ss = sh(st.sh_link);
        for (std::uint64_t off = st.sh_offset; off < st.sh_offset + st.sh_size;
             off += sizeof(Elf64_Sym)) {
            const Elf64_Sym s = get<Elf64_Sym>(off);
            if (s.st_name && name == bytes.c_str() + ss.sh_offset + s.st_name) return off;
        }
        throw std::runtime_error("no symbol " + name);
    }
    Elf64_Sym symbol(const std::string& name) const { return get<Elf64_Sym>(symbol_offset(name)); }
    /// Index in .symtab of the symbol called `name`.
    std::uint64_t symbol_index(const std::string& name) const {
        return (symbol_offset(name) - sh(section(".symtab")).sh_offset) / sizeof(Elf64_Sym);
    }
    /// Sets the load address of section `name`, as a JIT does.
    void load_at(const std::string& name, std::uint64_t addr) {
        Elf64_Shdr s = sh(section(name));
        s.sh_addr = addr;
        set_sh(section(name), s);
    }
    /// The functions as the core registers them: name -> (start, size).
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> functions() const {
        std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;
        const Elf64_Shdr st = sh(section(".symtab"));
        const Elf64_Shdr ss = sh(st.sh_link);
        for (std::uint64_t off = st.sh_offset; off < st.sh_offset + st.sh_size;
             off += sizeof(Elf64_Sym)) {
            const Elf64_Sym s = get<Elf64_Sym>(off);
            if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_size == 0 || s.st_shndx == SHN_UNDEF ||
                s.st_shndx >= SHN_LORESERVE)
                continue;
            out[bytes.c_str() + ss.sh_offset + s.st_name] = {sh(s.st_shndx).sh_addr + s.st_value,
                                                             s.st_size};
        }
        return out;
    }
    /// Writes the object to the file `path`.
    void write(const std::string& path) const { std::ofstream(path, std::ios::binary) << bytes; }
};

/// The object in the file `path`.
inline Object read_object(const std::string& path) { return Object{vgjit::test::read_file(path)}; }

}  // namespace objdump_test
