/*--------------------------------------------------------------------*/
/*--- GDB JIT objects: the rules by which they are accepted        ---*/
/*--- and their DWARF sections read.             priv_readgdbelf.h ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 3 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* The rules by which an in-memory ELF object handed to the GDB JIT
   interface (the image at an entry's symfile_addr, symfile_size bytes)
   is accepted, and which of its symbols name code.  The core
   (jitgdb.c) registers what this reader accepts and refuses an object
   on the first problem; vg-jit (tool/elfobject.cpp) reads saved objects
   with the same reader and reports every problem it finds.

   The object, in either ELF class and either byte order (fields are
   decoded byte by byte, so the image needs no alignment):
     - starts with the ELF magic and a valid EI_CLASS and EI_DATA; its
       class and byte order are the program's (sizeof(void*), the host
       byte order);
     - holds a whole ELF header of its class; e_type is ET_REL, ET_EXEC
       or ET_DYN;
     - has 1 to GDBELF_MAX_SECTIONS section headers of its class's size
       (e_shentsize), the table inside the image and at an offset
       aligned to the class's word size (4 or 8 bytes);
     - has at least one symbol table (SHT_SYMTAB).  Each is a whole
       number of symbols of the class's size (sh_entsize is that size),
       lies inside the image at an aligned offset, and links (sh_link)
       to a section of type SHT_STRTAB inside the image;
     - every STT_FUNC and STT_FILE symbol but the first (index 0) has a
       name: st_name > 0, inside the string table, NUL-terminated there.

   A function is an STT_FUNC symbol with st_size > 0 defined in a
   section (0 < st_shndx < e_shnum) flagged SHF_ALLOC and SHF_EXECINSTR
   (whatever its sh_type); other symbols name no code and are skipped.
   In a relocatable object (ET_REL), the JIT wrote the section's load
   address into its sh_addr (LLVM's rule, which GDB follows): it must
   not be 0, [st_value, st_value + st_size) must lie within the
   section's sh_size bytes and the function starts at sh_addr +
   st_value.  In other objects st_value is the address: [st_value,
   st_value + st_size) must lie within [sh_addr, sh_addr + sh_size).
   No function's range may wrap around the address space.  The object's
   source file is the name of its first STT_FILE symbol with a
   non-empty name.

   Every offset, size and index is checked before anything is read
   through it, with arithmetic that cannot overflow; the reader reads
   nothing outside img[0..n), allocates nothing, and runs in time
   linear in the size of the object's section header table and symbol
   tables.

   PROBLEMS.  A rule broken is a problem: a GdbElfError with its code
   (GDBELF_ERR_*), where in the image it is and the numbers involved.
   The reader hands each to the caller's problem callback, if any;
   when that returns non-zero the reader goes on where the object's
   structure allows (past that symbol, that symbol table, or that
   header field), else, or without a callback, it stops.  Either way the
   first problem stays in the object (`error`) and the reading functions
   return its code: an object is accepted only if they return
   GDBELF_OK.

   Portable C99 without libc and without Valgrind headers
   (priv_jitbytes.h says why). */

#ifndef __PRIV_READGDBELF_H
#define __PRIV_READGDBELF_H

/* ML_ as pub_tool_basics.h defines it (token for token, so that either
   include order is fine); see priv_jitbytes.h for the names user space
   gets. */
#ifndef VGAPPEND
#define VGAPPEND(str1,str2) str1##str2
#endif
#ifndef ML_
#define ML_(str)    VGAPPEND(vgModuleLocal_,    str)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Limits on what an object may be. */
#define GDBELF_MAX_OBJECT_SIZE  (256ull << 20)  /* bytes the core copies
                                                   from a client        */
#define GDBELF_MAX_SECTIONS     65280u          /* SHN_LORESERVE        */

/* ELF constants the reader uses (values of the ELF specification). */
#define GDBELF_ET_REL        1u
#define GDBELF_ET_EXEC       2u
#define GDBELF_ET_DYN        3u
#define GDBELF_SHT_SYMTAB    2u
#define GDBELF_SHT_STRTAB    3u
#define GDBELF_SHF_ALLOC     0x2ull
#define GDBELF_SHF_EXECINSTR 0x4ull
#define GDBELF_STT_FUNC      2u
#define GDBELF_STT_FILE      4u

/* Problem codes (GdbElfError.code; static text: ML_(gdbelf_strerror);
   text with the numbers: ML_(gdbelf_describe)).  "stop" means the
   reader cannot go on whatever the callback says; the numbers each
   code fills are listed as num[0], num[1], ... */
#define GDBELF_OK                        0
/* the header */
#define GDBELF_ERR_SHORT                 1 /* stop: num[0] the image's
                                              size, num[1] the size of an
                                              ELF identification (16) or
                                              of the class's ELF header */
#define GDBELF_ERR_NOT_ELF               2 /* stop: no ELF magic        */
#define GDBELF_ERR_BAD_CLASS             3 /* stop: num[0] EI_CLASS     */
#define GDBELF_ERR_BAD_BYTE_ORDER        4 /* stop: num[0] EI_DATA      */
#define GDBELF_ERR_FOREIGN_BYTE_ORDER    5 /* num[0] the object's
                                              EI_DATA, num[1] the
                                              program's                 */
#define GDBELF_ERR_FOREIGN_CLASS         6 /* num[0] the object's class
                                              (32, 64), num[1] the
                                              program's                 */
#define GDBELF_ERR_BAD_TYPE              7 /* num[0] e_type             */
#define GDBELF_ERR_NO_SECTIONS           8 /* stop: e_shnum is 0        */
#define GDBELF_ERR_TOO_MANY_SECTIONS     9 /* stop: num[0] e_shnum,
                                              num[1] GDBELF_MAX_SECTIONS */
#define GDBELF_ERR_SHENTSIZE            10 /* stop: num[0] e_shentsize,
                                              num[1] the class's size   */
#define GDBELF_ERR_SHDRS_OUTSIDE        11 /* stop: num[0] e_shoff,
                                              num[1] e_shnum, num[2] the
                                              table's bytes, num[3] the
                                              image's size              */
#define GDBELF_ERR_SHDRS_UNALIGNED      12 /* num[0] e_shoff, num[1] the
                                              alignment (4 or 8)        */
/* symbol tables: `section` is the table's index; `at` is its section
   header or the field at fault there */
#define GDBELF_ERR_NO_SYMTAB            13 /* no SHT_SYMTAB section     */
#define GDBELF_ERR_SYMTAB_ENTSIZE       14 /* num[0] sh_entsize,
                                              num[1] sh_size, num[2] the
                                              class's symbol size       */
#define GDBELF_ERR_SYMTAB_OUTSIDE       15 /* num[0] sh_offset,
                                              num[1] sh_size, num[2] the
                                              image's size              */
#define GDBELF_ERR_SYMTAB_UNALIGNED     16 /* num[0] sh_offset, num[1]
                                              the alignment (4 or 8);
                                              the table is still read   */
#define GDBELF_ERR_SYMTAB_NO_STRTAB     17 /* num[0] sh_link (0 or not a
                                              section)                  */
#define GDBELF_ERR_STRTAB_BAD           18 /* num[0] sh_link, num[1] its
                                              sh_type, num[2] its
                                              sh_offset, num[3] its
                                              sh_size                   */
/* symbols: `section` is the symbol table's index, `symbol` the
   symbol's; num[0] is its st_name, num[1] its type (STT_FUNC or
   STT_FILE), num[2] the string table's size */
#define GDBELF_ERR_SYM_NO_NAME          19 /* st_name is 0              */
#define GDBELF_ERR_SYM_NAME_OUTSIDE     20 /* st_name >= the table size */
#define GDBELF_ERR_SYM_NAME_UNTERMINATED 21 /* no NUL before its end    */
/* functions: `section` is the function's section (st_shndx), `symbol`
   the symbol's index; num[0] st_value, num[1] st_size, num[2] the
   section's sh_addr, num[3] its sh_size */
#define GDBELF_ERR_NO_LOAD_ADDRESS      22 /* ET_REL, sh_addr is 0      */
#define GDBELF_ERR_FN_OUTSIDE_SECTION   23 /* outside its section       */
#define GDBELF_ERR_FN_WRAPS             24 /* its range wraps around    */
/* DWARF sections (ML_(gdbelf_dwarf_section_problem)): `section` is the
   DWARF section's index, `at` its section header or the field at
   fault */
#define GDBELF_ERR_DW_COMPRESSED        25 /* num[0] sh_flags           */
#define GDBELF_ERR_DW_OUTSIDE           26 /* num[0] sh_offset, num[1]
                                              sh_size, num[2] the
                                              image's size              */
/* relocation sections (ML_(gdbelf_dwarf_relocations)): `section` is
   the relocation section's index, `symtab` its sh_link, num[3] the
   DWARF section's index; `at` its section header */
#define GDBELF_ERR_REL_NOT_RELA         27 /* SHT_REL, not SHT_RELA     */
#define GDBELF_ERR_REL_MACHINE          28 /* num[0] e_machine, num[1]
                                              the class (not x86-64 or
                                              AArch64, 64)              */
#define GDBELF_ERR_REL_MALFORMED        29 /* num[0] sh_offset, num[1]
                                              sh_size, num[2] sh_entsize
                                              (not 24, or outside the
                                              image, or unaligned)      */
#define GDBELF_ERR_REL_NO_SYMTAB        30 /* sh_link 0 or no section   */
#define GDBELF_ERR_REL_SYMTAB_BAD       31 /* the linked section is not
                                              an aligned SHT_SYMTAB of
                                              24-byte symbols inside the
                                              image                     */
/* one relocation: as above, and `symbol` is the relocation's index in
   its section, `at` its entry */
#define GDBELF_ERR_REL_TYPE             32 /* num[0] the type           */
#define GDBELF_ERR_REL_OUTSIDE          33 /* num[0] r_offset, num[1]
                                              the width, num[2] the DWARF
                                              section's sh_size         */
#define GDBELF_ERR_REL_NO_SYMBOL        34 /* num[0] the symbol index,
                                              num[1] the symbols        */
#define GDBELF_ERR_REL_UNDEFINED        35 /* num[0] the symbol index,
                                              num[1] its st_shndx       */
#define GDBELF_ERR_REL_OVERFLOW         36 /* a 32- or 16-bit one: num[0]
                                              the value, num[1] the type */
#define GDBELF_ERR_MAX                  36

/* One problem.  `at` is the file offset of the field or structure at
   fault (a header field, a section header or one of its fields, a
   symbol), always < the image's size when the image has it (0 for the
   whole object). */
typedef struct {
   int                code;      /* GDBELF_ERR_*                        */
   unsigned long long at;        /* file offset                         */
   unsigned int       section;   /* section index (see the codes)       */
   unsigned int       symtab;    /* symbols and functions: the index of
                                    their symbol table                  */
   unsigned long long symbol;    /* symbol index (see the codes)        */
   unsigned long long num[4];    /* the numbers (see the codes)         */
   const char*        name;      /* functions: the symbol's name in the
                                    image (NUL-terminated there), else 0 */
} GdbElfError;

/* The caller's problem callback: return non-zero to go on reading. */
typedef int (*GdbElfOnProblem)(void* ctx, const GdbElfError* e);

/* A section header, decoded (ELF's Shdr fields, widened). */
typedef struct {
   unsigned int       name, type, link, info;
   unsigned long long flags, addr, offset, size, addralign, entsize;
} GdbElfSection;

/* A function the object defines (see the rules above).  `name` points
   into the image, NUL-terminated there, name_len bytes without the
   NUL. */
typedef struct {
   unsigned long long start;     /* address of its first byte           */
   unsigned long long size;      /* st_size, > 0                        */
   const char*        name;
   unsigned long      name_len;
   unsigned int       section;   /* st_shndx                            */
   unsigned int       symtab;    /* index of its symbol table           */
   unsigned long long symbol;    /* index in that table                 */
   unsigned long long at;        /* file offset of the symbol           */
   unsigned long long value;     /* st_value                            */
} GdbElfFunction;

/* The caller's function callback, once per function in symbol table
   order (tables in section order). */
typedef void (*GdbElfOnFunction)(void* ctx, const GdbElfFunction* f);

/* One object.  Fields marked RO are valid after ML_(gdbelf_open)
   returned GDBELF_OK, or a problem the callback went on from. */
typedef struct {
   const unsigned char* img;
   unsigned long long   n;
   GdbElfOnProblem      on_problem;   /* or 0: stop at the first       */
   void*                ctx;
   int                  have_header;  /* RO: the header fields below
                                         are read (the image holds a
                                         whole ELF header)              */
   int                  opened;       /* RO: the section header table
                                         can be read                    */
   unsigned int         elf_class;    /* RO: 32 or 64                   */
   int                  big_endian;   /* RO                             */
   unsigned int         type;         /* RO: e_type                     */
   unsigned int         machine;      /* RO: e_machine                  */
   unsigned long long   shoff;        /* RO: e_shoff                    */
   unsigned int         shnum;        /* RO: e_shnum                    */
   unsigned int         shentsize;    /* RO: e_shentsize                */
   unsigned int         shstrndx;     /* RO: e_shstrndx                 */
   const char*          file;         /* RO: the source file (first
                                         named STT_FILE), or 0; set by
                                         ML_(gdbelf_functions)          */
   unsigned long        file_len;     /* RO: without its NUL            */
   unsigned long long   n_problems;   /* RO: problems met               */
   GdbElfError          error;        /* RO: the first (code 0: none)   */
} GdbElfObject;

/* Reads and checks the header and the section header table's place of
   the object img[0..n) (which must stay unchanged while `o` is used).
   on_problem may be 0.  Returns GDBELF_OK, or the code of the first
   problem (o->error); o->opened says whether the section headers and
   symbols can be read (it is 0 after a problem marked "stop"). */
extern int ML_(gdbelf_open)(GdbElfObject* o, const unsigned char* img,
                            unsigned long long n,
                            GdbElfOnProblem on_problem, void* ctx);

/* Decodes section header i (< o->shnum) of an opened object into *s.
   Returns 1, or 0 (and leaves *s zeroed) if o is not opened or i is out
   of range. */
extern int ML_(gdbelf_section)(const GdbElfObject* o, unsigned int i,
                               GdbElfSection* s);

/* Reads the symbol tables of an opened object: sets o->file, calls
   on_function (may be 0) for each function, and hands problems to the
   object's callback.  Returns GDBELF_OK if the object broke no rule so
   far (ML_(gdbelf_open)'s problems included), else the first problem's
   code: the object is refused then, and the functions reported are only
   what a reader going on past problems found. */
extern int ML_(gdbelf_functions)(GdbElfObject* o,
                                 GdbElfOnFunction on_function, void* ctx);

/* Static English text for a problem code: what is wrong, without the
   numbers ("unknown problem" for codes out of range). */
extern const char* ML_(gdbelf_strerror)(int code);

/* Writes what e says, with its numbers, as English text into
   buf[0..size) (NUL-terminated, cut to fit; nothing written when size
   is 0), e.g. "section headers lie outside the object: 13 entries (832
   bytes) at offset 0x1a0, the object has 1000 bytes"; a function's
   problem names it.  Returns buf. */
extern char* ML_(gdbelf_describe)(const GdbElfError* e, char* buf,
                                  unsigned long size);

/* As ML_(gdbelf_describe), and with o (the object e is about, opened by
   ML_(gdbelf_open); may be 0) each section the text numbers is followed
   by its name when it has a short printable one, e.g. "section 3
   '.symtab'".  A function's name is cut after 160 bytes.  The one
   wording of every problem: the core's warnings and vg-jit use it. */
extern char* ML_(gdbelf_describe_in)(const GdbElfObject* o,
                                     const GdbElfError* e, char* buf,
                                     unsigned long size);

/* ------------------------------------------------------------------
   DWARF sections of GDB JIT objects (readgdbelf-dwarf.c)
   ------------------------------------------------------------------

   Which DWARF sections the core reads from an accepted object and which
   of their relocations it applies (jitgdbdwarf.c does the reading;
   vg-jit's checker states the same rules through these functions).

   Sections: the first section not of type SHT_NOBITS with each name of
   GDBELF_DW_* (section names read from e_shstrndx, an SHT_STRTAB inside
   the image, NUL-terminated there).  The line table is read when
   .debug_line, .debug_info and .debug_abbrev are all present, the CFI
   from .eh_frame, else .debug_frame.  A section is refused when it is
   compressed (SHF_COMPRESSED) or lies outside the image, and in a
   relocatable object (ET_REL) when a relocation section targeting it
   (sh_info) breaks a rule below.  What it serves (the line table with
   .debug_info, .debug_abbrev, .debug_line, .debug_str and
   .debug_line_str; the CFI) is refused with it.

   Relocations, applied to relocatable objects only: RELA sections
   (SHT_REL is refused) of x86-64 and AArch64 objects of class 64, of
   24-byte entries inside the image at an 8-aligned offset, linked
   (sh_link) to an 8-aligned SHT_SYMTAB of 24-byte symbols inside the
   image.  Each relocation is type 0 (R_X86_64_NONE, R_AARCH64_NONE:
   skipped), in x86-64 objects R_X86_64_64, _32 or _32S, or in
   .eh_frame _PC32 or _PC64, in AArch64 ones R_AARCH64_ABS64, _ABS32 or
   _ABS16, or in .eh_frame _PREL32 or _PREL64; its width (8, 4 or 2
   bytes) lies inside the section; its symbol exists and is defined
   (SHN_ABS, or a section index below e_shnum).  Its value is the
   symbol's (st_value, plus the address of its section unless SHN_ABS)
   plus r_addend, minus the address of the relocated field for the
   PC-relative types; a narrow value must fit (_32 unsigned, _32S and
   _PC32 signed; AArch64's 32-bit ones -2^31..2^32-1, _ABS16
   -2^15..2^16-1).  A section's
   address is its sh_addr (the load address the JIT wrote), except an
   .eh_frame whose sh_addr is 0: it is taken to sit at the object's
   lowest function (code_lo), so its PC-relative pointers resolve. */

/* The DWARF sections, indices of GdbElfDwarf.shndx. */
#define GDBELF_DW_INFO          0
#define GDBELF_DW_ABBREV        1
#define GDBELF_DW_LINE          2
#define GDBELF_DW_STR           3
#define GDBELF_DW_LINE_STR      4
#define GDBELF_DW_STR_OFFSETS   5
#define GDBELF_DW_ADDR          6
#define GDBELF_DW_RANGES        7
#define GDBELF_DW_RNGLISTS      8
#define GDBELF_DW_LOC           9
#define GDBELF_DW_LOCLISTS     10
#define GDBELF_DW_EH_FRAME     11
#define GDBELF_DW_DEBUG_FRAME  12
#define GDBELF_DW_N            13

/* The DWARF sections of one object: shndx[GDBELF_DW_*] is the section's
   index, 0 if the object has none. */
typedef struct {
   unsigned int shndx[GDBELF_DW_N];
   int          want_lines;  /* .debug_line, .debug_info, .debug_abbrev */
   int          cfi;         /* GDBELF_DW_EH_FRAME, GDBELF_DW_DEBUG_FRAME,
                                or -1: none                             */
} GdbElfDwarf;

/* One relocation the core applies: write `width` bytes of `value`
   (little-endian) at `offset` in DWARF section `dwarf`
   (GDBELF_DW_*). */
typedef struct {
   unsigned int       dwarf;     /* GDBELF_DW_*                         */
   unsigned int       section;   /* the relocation section's index      */
   unsigned long long index;     /* the relocation's index there        */
   unsigned long long offset;    /* r_offset, in the DWARF section      */
   unsigned int       type;      /* R_X86_64_*, R_AARCH64_*             */
   unsigned int       width;     /* 2, 4 or 8                           */
   unsigned long long symbol_value; /* the symbol's address            */
   long long          addend;    /* r_addend                            */
   unsigned long long value;     /* what is written                     */
} GdbElfRelocation;

/* The caller's relocation callback. */
typedef void (*GdbElfOnRelocation)(void* ctx, const GdbElfRelocation* r);

/* The static English name of DWARF section s (< GDBELF_DW_N), e.g.
   ".debug_line"; 0 for others. */
extern const char* ML_(gdbelf_dwarf_name)(unsigned int s);

/* Finds the DWARF sections of an opened object into *d (all 0 if it is
   not opened). */
extern void ML_(gdbelf_dwarf_sections)(const GdbElfObject* o,
                                       GdbElfDwarf* d);

/* The address the core gives section i when it relocates: its sh_addr,
   or code_lo for an .eh_frame (d's) whose sh_addr is 0. */
extern unsigned long long ML_(gdbelf_dwarf_addr)(const GdbElfObject* o,
                                                 const GdbElfDwarf* d,
                                                 unsigned int i,
                                                 unsigned long long code_lo);

/* Whether DWARF section s of d can be copied: GDBELF_OK (also when the
   object has no such section), GDBELF_ERR_DW_COMPRESSED or
   GDBELF_ERR_DW_OUTSIDE, described in *e (zeroed when OK).  The
   object's problem callback is not called. */
extern int ML_(gdbelf_dwarf_section_problem)(const GdbElfObject* o,
                                             const GdbElfDwarf* d,
                                             unsigned int s,
                                             GdbElfError* e);

/* Checks the relocations targeting DWARF section s of d (none unless
   the object is ET_REL), relocation sections in section order, and
   calls on_relocation (may be 0) with each one the core applies.
   Returns GDBELF_OK, or at the first problem a GDBELF_ERR_REL_* code
   described in *e (zeroed when OK); the relocations already handed
   over are then to be dropped with the section.  The object's problem
   callback is not called.  Time linear in the relocations. */
extern int ML_(gdbelf_dwarf_relocations)(const GdbElfObject* o,
                                         const GdbElfDwarf* d,
                                         unsigned int s,
                                         unsigned long long code_lo,
                                         GdbElfOnRelocation on_relocation,
                                         void* ctx, GdbElfError* e);

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_READGDBELF_H */

/*--------------------------------------------------------------------*/
/*--- end                                        priv_readgdbelf.h ---*/
/*--------------------------------------------------------------------*/
