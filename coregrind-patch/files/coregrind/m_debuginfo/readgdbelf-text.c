/*--------------------------------------------------------------------*/
/*--- The rules for GDB JIT objects: the text of each problem,     ---*/
/*--- with its numbers.                          readgdbelf-text.c ---*/
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

/* One wording per problem code (GDBELF_ERR_*): what is wrong
   (ML_(gdbelf_strerror)) and, with the problem's numbers and the names
   of the sections it concerns, ML_(gdbelf_describe_in), which the
   core's warnings and vg-jit print alike.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike. */

#include "priv_jitbytes.h"
#include "priv_readgdbelf.h"
#include "priv_readgdbelf_fields.h"

/* The text of each problem code, indexed by code: what is wrong
   (ML_(gdbelf_strerror)), then its numbers as a template of
   jitformats_fill (ML_(gdbelf_describe_in)).  The template's fields:
   {0}..{3} the problem's num[0..3], {4} `section`, {5} `symbol`, {6}
   `symtab`; {s0} the function's name (" 'name'", or nothing), {s1}
   "file" or "function" (num[1]), {s2} and {s3} the byte order of
   EI_DATA num[0] and num[1], {s4} what a short image lacks, {s5} the
   name of section `section` (" '.name'", or nothing), {s6} that of
   section num[0], {s7} that of section num[3], {s8} that of `symtab`. */
static const JitformatsMessage gdbelf_texts[GDBELF_ERR_MAX + 1] = {
   /* GDBELF_OK */
   { "no problem", "" },
   /* GDBELF_ERR_SHORT */
   { "shorter than an ELF header", ": {0} bytes, {s4} needs {1}" },
   /* GDBELF_ERR_NOT_ELF */
   { "not an ELF object",
     ": the first 4 bytes are not the ELF magic 7f 45 4c 46" },
   /* GDBELF_ERR_BAD_CLASS */
   { "unknown ELF class", " {0}" },
   /* GDBELF_ERR_BAD_BYTE_ORDER */
   { "unknown ELF byte order", " {0}" },
   /* GDBELF_ERR_FOREIGN_BYTE_ORDER */
   { "ELF byte order differs from the program's",
     ": {s2}, the program's {s3}" },
   /* GDBELF_ERR_FOREIGN_CLASS */
   { "ELF class differs from the program's",
     ": ELFCLASS{0}, the program's ELFCLASS{1}" },
   /* GDBELF_ERR_BAD_TYPE */
   { "not a relocatable, executable or shared object", ": e_type {0}" },
   /* GDBELF_ERR_NO_SECTIONS */
   { "no section headers", ": e_shnum is 0" },
   /* GDBELF_ERR_TOO_MANY_SECTIONS */
   { "too many section headers", ": {0}, at most {1}" },
   /* GDBELF_ERR_SHENTSIZE */
   { "unexpected section header size", ": {0} bytes, not {1}" },
   /* GDBELF_ERR_SHDRS_OUTSIDE */
   { "section headers lie outside the object",
     ": {1} entries ({2} bytes) at offset {x0}, the object has {3} bytes" },
   /* GDBELF_ERR_SHDRS_UNALIGNED */
   { "section headers are not aligned",
     ": offset {x0}, not a multiple of {1}" },
   /* GDBELF_ERR_NO_SYMTAB */
   { "no symbol table", ": no section of type SHT_SYMTAB" },
   /* GDBELF_ERR_SYMTAB_ENTSIZE */
   { "symbol table is malformed",
     ": section {4}{s5} has entry size {0} and size {1}, not a whole"
     " number of {2}-byte symbols" },
   /* GDBELF_ERR_SYMTAB_OUTSIDE */
   { "symbol table lies outside the object",
     ": section {4}{s5}, {1} bytes at offset {x0}, the object has {2}"
     " bytes" },
   /* GDBELF_ERR_SYMTAB_UNALIGNED */
   { "symbol table is not aligned",
     ": section {4}{s5} at offset {x0}, not a multiple of {1}" },
   /* GDBELF_ERR_SYMTAB_NO_STRTAB */
   { "symbol table names no string table",
     ": section {4}{s5} links to section {0}" },
   /* GDBELF_ERR_STRTAB_BAD */
   { "string table lies outside the object or is not one",
     ": section {0}{s6} (type {1}, {3} bytes at offset {x2}) of symbol"
     " table {4}{s5}" },
   /* GDBELF_ERR_SYM_NO_NAME */
   { "a symbol has no name",
     ": {s1} symbol {5} of section {4}{s5}, name offset {0}, string"
     " table of {2} bytes" },
   /* GDBELF_ERR_SYM_NAME_OUTSIDE */
   { "symbol name lies outside the string table",
     ": {s1} symbol {5} of section {4}{s5}, name offset {0}, string"
     " table of {2} bytes" },
   /* GDBELF_ERR_SYM_NAME_UNTERMINATED */
   { "symbol name is not NUL-terminated in the string table",
     ": {s1} symbol {5} of section {4}{s5}, name offset {0}, string"
     " table of {2} bytes" },
   /* GDBELF_ERR_NO_LOAD_ADDRESS */
   { "a code section has no load address",
     ": symbol {5}{s0}, value {x0}, size {1}, in section {4}{s5}"
     " (address {x2}, {3} bytes)" },
   /* GDBELF_ERR_FN_OUTSIDE_SECTION */
   { "a function lies outside its section",
     ": symbol {5}{s0}, value {x0}, size {1}, in section {4}{s5}"
     " (address {x2}, {3} bytes)" },
   /* GDBELF_ERR_FN_WRAPS */
   { "a function's range wraps around",
     ": symbol {5}{s0}, value {x0}, size {1}, in section {4}{s5}"
     " (address {x2}, {3} bytes)" },
   /* GDBELF_ERR_DW_COMPRESSED */
   { "compressed DWARF sections are not read", ": section {4}{s5}" },
   /* GDBELF_ERR_DW_OUTSIDE */
   { "a DWARF section lies outside the object",
     ": section {4}{s5}, {1} bytes at offset {x0}, the object has {2}"
     " bytes" },
   /* GDBELF_ERR_REL_NOT_RELA */
   { "REL relocations are not applied",
     ": section {4}{s5} for section {3}{s7}" },
   /* GDBELF_ERR_REL_MACHINE */
   { "relocations of DWARF sections are applied in x86-64 and AArch64"
     " objects only",
     ": section {4}{s5} for section {3}{s7}, e_machine {0}, ELFCLASS{1}" },
   /* GDBELF_ERR_REL_MALFORMED */
   { "a relocation section lies outside the object",
     ": section {4}{s5} for section {3}{s7}" },
   /* GDBELF_ERR_REL_NO_SYMTAB */
   { "a relocation section names no symbol table",
     ": section {4}{s5} for section {3}{s7}, linked to section {6}{s8}" },
   /* GDBELF_ERR_REL_SYMTAB_BAD */
   { "a relocation section's symbol table is malformed",
     ": section {4}{s5} for section {3}{s7}, linked to section {6}{s8}" },
   /* GDBELF_ERR_REL_TYPE */
   { "a relocation of a type other than R_X86_64_64, _32, _32S"
     " (and _PC32, _PC64 in .eh_frame) or R_AARCH64_ABS64, _ABS32,"
     " _ABS16 (and _PREL32, _PREL64 in .eh_frame)",
     ": relocation {5} of section {4}{s5} has type {0}" },
   /* GDBELF_ERR_REL_OUTSIDE */
   { "a relocation lies outside its section",
     ": relocation {5} of section {4}{s5} writes {1} bytes at offset {x0}"
     " of a {2}-byte section" },
   /* GDBELF_ERR_REL_NO_SYMBOL */
   { "a relocation names no symbol",
     ": relocation {5} of section {4}{s5} names symbol {0}" },
   /* GDBELF_ERR_REL_UNDEFINED */
   { "a relocation names an undefined symbol",
     ": relocation {5} of section {4}{s5} names symbol {0}" },
   /* GDBELF_ERR_REL_OVERFLOW */
   { "a 32- or 16-bit relocation overflows",
     ": relocation {5} of section {4}{s5}: its value is {x0}" }
};

const char* ML_(gdbelf_strerror)(int code)
{
   if (code < 0 || code > GDBELF_ERR_MAX)
      return "unknown problem";
   return gdbelf_texts[code].what;
}

/* The longest section name a problem's text quotes, and the bytes of a
   function's name it quotes (a longer one is cut). */
#define NAME_QUOTED_MAX 32u
#define FN_QUOTED_MAX   160u

/* Writes " '.name'" for section i of o into buf[0..size) if o is
   opened and the name is printable ASCII of at most NAME_QUOTED_MAX
   bytes, NUL-terminated in the section name table; else "".  Returns
   buf. */
static const char* quoted_section_name(const GdbElfObject* o,
                                       unsigned long long i, char* buf,
                                       unsigned long size)
{
   GdbElfSection      strs, sec;
   JitformatsText     t;
   unsigned long long k;
   const unsigned char* p;

   jitformats_text_init(&t, buf, size);
   if (o == 0 || !o->opened || i == 0 || i >= o->shnum
       || o->shstrndx == 0 || o->shstrndx >= o->shnum)
      return buf;
   (void)ML_(gdbelf_section)(o, o->shstrndx, &strs);
   (void)ML_(gdbelf_section)(o, (unsigned int)i, &sec);
   if (strs.type != GDBELF_SHT_STRTAB || !in_range(strs.offset, strs.size, o->n)
       || sec.name >= strs.size)
      return buf;
   p = o->img + strs.offset;
   for (k = sec.name; k < strs.size && p[k] != 0; k++)
      if (p[k] < 0x20 || p[k] > 0x7e || k - sec.name >= NAME_QUOTED_MAX)
         return buf;
   if (k == strs.size || k == sec.name)
      return buf;
   jitformats_put(&t, " '");
   for (k = sec.name; p[k] != 0; k++) {
      char one[2];
      one[0] = (char)p[k];
      one[1] = 0;
      jitformats_put(&t, one);
   }
   jitformats_put(&t, "'");
   return buf;
}

char* ML_(gdbelf_describe_in)(const GdbElfObject* o, const GdbElfError* e,
                              char* buf, unsigned long size)
{
   JitformatsText     t;
   unsigned long long num[7];
   const char*        str[9];
   char               name[FN_QUOTED_MAX + 4];
   char               sec[4][NAME_QUOTED_MAX + 4];
   unsigned int       i;

   jitformats_text_init(&t, buf, size);
   jitformats_put(&t, ML_(gdbelf_strerror)(e->code));
   if (e->code < 0 || e->code > GDBELF_ERR_MAX)
      return buf;
   for (i = 0; i < 4; i++)
      num[i] = e->num[i];
   num[4] = e->section;
   num[5] = e->symbol;
   num[6] = e->symtab;
   str[0] = "";
   if (e->name != 0) {
      JitformatsText n;
      jitformats_text_init(&n, name, sizeof(name));
      jitformats_put(&n, " '");
      jitformats_put(&n, e->name);
      jitformats_put(&n, "'");
      str[0] = name;
   }
   str[1] = e->num[1] == GDBELF_STT_FILE ? "file" : "function";
   str[2] = e->num[0] == 2 ? "big-endian" : "little-endian";
   str[3] = e->num[1] == 2 ? "big-endian" : "little-endian";
   str[4] = e->num[1] == EI_NIDENT ? "its identification" : "the header";
   str[5] = quoted_section_name(o, e->section, sec[0], sizeof(sec[0]));
   str[6] = quoted_section_name(o, e->num[0], sec[1], sizeof(sec[1]));
   str[7] = quoted_section_name(o, e->num[3], sec[2], sizeof(sec[2]));
   str[8] = quoted_section_name(o, e->symtab, sec[3], sizeof(sec[3]));
   jitformats_fill(&t, gdbelf_texts[e->code].numbers, num, str);
   return buf;
}

char* ML_(gdbelf_describe)(const GdbElfError* e, char* buf,
                           unsigned long size)
{
   return ML_(gdbelf_describe_in)(0, e, buf, size);
}

/*--------------------------------------------------------------------*/
/*--- end                                        readgdbelf-text.c ---*/
/*--------------------------------------------------------------------*/
