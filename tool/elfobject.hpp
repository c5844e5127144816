// elfobject.hpp: reads an ELF object file of the kind a JIT hands to
// debuggers through the GDB JIT compilation interface (the image at
// symfile_addr, symfile_size bytes, saved to a file) and checks it against
// the rules the patched core applies before it trusts such an object: the
// header, section header table, symbol and string tables and every function
// inside its section by the core's own code (readgdbelf.c, shared through
// priv_jitformats.h), the DWARF sections as jitgdbdwarf.c reads them.  Used
// by `vg-jit dump` and `vg-jit check` for ELF input.
//
// The structures are glibc's <elf.h>.  Objects of both ELF classes are
// read; an object in the other byte order than this machine's is reported
// (the core refuses it) but not read further.
#pragma once

#include "analyze.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vgjit {

/// Whether `head` (a file's first bytes) starts with the ELF magic.
bool is_elf_magic(const std::vector<unsigned char>& head);

/// One section of the object (the ones `dump` lists: executable ones).
struct ElfSection {
    unsigned index = 0;        ///< in the section header table
    std::string name;          ///< from the section name table; "" if unknown
    std::uint32_t type = 0;    ///< sh_type
    std::uint64_t flags = 0;   ///< sh_flags
    std::uint64_t addr = 0;    ///< sh_addr: the load address a JIT wrote
    std::uint64_t offset = 0;  ///< sh_offset
    std::uint64_t size = 0;    ///< sh_size
};

/// A function as the core registers it: a .symtab STT_FUNC symbol with a
/// size, in an executable section.
struct ElfFunction {
    std::string name;
    std::uint64_t start = 0;   ///< sh_addr + st_value (ET_REL), else st_value
    std::uint64_t size = 0;    ///< st_size
    unsigned section = 0;      ///< its section's index
    std::uint64_t symbol = 0;  ///< its index in the symbol table
    bool lines = false;        ///< the line table covers its section
    bool cfi = false;          ///< the CFI covers its section
    bool inlined = false;      ///< .debug_info has inlined subroutines and covers its section
};

/// What the object holds and what is wrong with it.  Problems carry the
/// file offset of the structure at fault (ELF header, section header,
/// symbol) in `where`; errors are what makes the core refuse the object
/// (or, for debug sections, its line tables or CFI), warnings what it
/// accepts with a loss (e.g. overlapping functions: the later replaces the
/// earlier).
struct ElfObjectInfo {
    std::uint64_t file_size = 0;
    bool header_read = false;  ///< the fields below the header line are valid
    unsigned elf_class = 0;    ///< 32 or 64
    bool little_endian = true;
    std::uint16_t type = 0;                 ///< e_type
    std::uint16_t machine = 0;              ///< e_machine
    std::string source_file;                ///< first STT_FILE symbol's name, or ""
    std::vector<ElfSection> code_sections;  ///< SHF_ALLOC | SHF_EXECINSTR
    std::vector<ElfFunction> functions;     ///< in symbol table order
    /// ".debug_line" if the core can read the object's line table (with
    /// .debug_info and .debug_abbrev, uncompressed, inside the file, its
    /// relocations ones the core applies), else "".
    std::string line_section;
    std::uint64_t line_size = 0;
    /// ".eh_frame" (preferred, as by the core) or ".debug_frame" if the core
    /// can read it (same conditions), else "".
    std::string cfi_section;
    std::uint64_t cfi_size = 0;
    bool has_debug_info = false;  ///< .debug_info present with content
    /// .debug_abbrev declares DW_TAG_inlined_subroutine and the line table
    /// (with which the core reads inlined calls) is readable.
    bool has_inlined = false;
    std::vector<Problem> problems;
    /// Number of problems of severity Error.
    std::size_t errors() const;
    /// Number of problems of severity Warning.
    std::size_t warnings() const;
};

/// Reads and checks the object `data[0, n)`.  Never reads outside it.
ElfObjectInfo read_elf_object(const unsigned char* data, std::size_t n);

/// Reads and checks the object in file `path`.  A file that cannot be read
/// or is larger than the core accepts (256 MiB) gives one whole-file error.
ElfObjectInfo read_elf_object_file(const std::string& path);

/// "relocatable (ET_REL)", "executable (ET_EXEC)", ... for e_type `t`.
std::string elf_type_name(std::uint16_t t);

}  // namespace vgjit
