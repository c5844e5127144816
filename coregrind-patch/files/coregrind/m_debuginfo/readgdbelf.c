/*--------------------------------------------------------------------*/
/*--- The rules for ELF objects of the GDB JIT interface.          ---*/
/*---                                                 readgdbelf.c ---*/
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

/* The rules are stated in priv_readgdbelf.h.  Every field is decoded
   byte by byte in the object's byte order, so the image needs no
   alignment and objects of either class can be read.  A range
   [off, off + len) is checked against a size with in_range, which
   cannot overflow; counts are bounded by the bytes they describe, so
   no input makes the reader read outside the image or loop longer
   than its tables.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike. */

#include "priv_jitbytes.h"
#include "priv_readgdbelf.h"

/* Offsets of the fields read, per class (ELF specification). */
#define EI_CLASS_AT  4
#define EI_DATA_AT   5
#define EI_NIDENT    16

#define EHDR_SIZE(c)      ((c) == 64 ? 64u : 52u)
#define EHDR_TYPE          16u
#define EHDR_MACHINE       18u
#define EHDR_SHOFF(c)     ((c) == 64 ? 40u : 32u)
#define EHDR_SHENTSIZE(c) ((c) == 64 ? 58u : 46u)
#define EHDR_SHNUM(c)     ((c) == 64 ? 60u : 48u)
#define EHDR_SHSTRNDX(c)  ((c) == 64 ? 62u : 50u)

#define SHDR_SIZE(c)      ((c) == 64 ? 64u : 40u)
#define SHDR_TYPE          4u
#define SHDR_ADDR(c)      ((c) == 64 ? 16u : 12u)
#define SHDR_OFFSET(c)    ((c) == 64 ? 24u : 16u)
#define SHDR_LINK(c)      ((c) == 64 ? 40u : 24u)
#define SHDR_ENTSIZE(c)   ((c) == 64 ? 56u : 36u)

#define SYM_SIZE(c)       ((c) == 64 ? 24u : 16u)

/* Does [off, off + len) lie within n bytes?  No overflow. */
static int in_range(unsigned long long off, unsigned long long len,
                    unsigned long long n)
{
   return off <= n && len <= n - off;
}

/* A field of `width` bytes (1, 2, 4 or 8) at img+at in the object's
   byte order.  The caller has checked that it lies in the image. */
static unsigned long long rd(const GdbElfObject* o, unsigned long long at,
                             unsigned int width)
{
   return jitformats_ld(o->img + at, width, o->big_endian);
}

/* A word of the object's class (4 or 8 bytes). */
static unsigned long long rd_word(const GdbElfObject* o,
                                  unsigned long long at)
{
   return rd(o, at, o->elf_class == 64 ? 8 : 4);
}

/* Reports a problem; returns non-zero if reading goes on.  `fatal`
   problems stop the reader whatever the callback says. */
static int problem(GdbElfObject* o, const GdbElfError* e, int fatal)
{
   int go_on = 0;
   if (o->n_problems == 0)
      o->error = *e;
   o->n_problems++;
   if (o->on_problem != 0)
      go_on = o->on_problem(o->ctx, e);
   return go_on && !fatal;
}

/* A new problem with code `code` at file offset `at`. */
static GdbElfError mk(int code, unsigned long long at)
{
   GdbElfError e;
   jitformats_zero(&e, sizeof(e));
   e.code = code;
   e.at   = at;
   return e;
}

/* File offset of section header i (the table lies in the image). */
static unsigned long long sh_at(const GdbElfObject* o, unsigned int i)
{
   return o->shoff + (unsigned long long)i * SHDR_SIZE(o->elf_class);
}

/* Checks the ELF identification of o's image: the magic, a valid class
   and byte order, and whether they are the program's.  Returns 1 to go
   on, 0 when reading stops (o->error says why). */
static int open_ident(GdbElfObject* o)
{
   const unsigned char* img = o->img;
   unsigned long long   n   = o->n;
   GdbElfError          e;
   unsigned int         c, cls, data;

   if (img == 0 || n < 4 || img[0] != 0x7f || img[1] != 'E'
       || img[2] != 'L' || img[3] != 'F') {
      e = mk(GDBELF_ERR_NOT_ELF, 0);
      e.num[0] = n;
      return problem(o, &e, 1);
   }
   if (n < EI_NIDENT) {
      e = mk(GDBELF_ERR_SHORT, 0);
      e.num[0] = n;
      e.num[1] = EI_NIDENT;
      return problem(o, &e, 1);
   }
   cls  = img[EI_CLASS_AT];
   data = img[EI_DATA_AT];
   if (cls != 1 && cls != 2) {
      e = mk(GDBELF_ERR_BAD_CLASS, EI_CLASS_AT);
      e.num[0] = cls;
      return problem(o, &e, 1);
   }
   if (data != 1 && data != 2) {
      e = mk(GDBELF_ERR_BAD_BYTE_ORDER, EI_DATA_AT);
      e.num[0] = data;
      return problem(o, &e, 1);
   }
   c             = cls == 2 ? 64 : 32;
   o->elf_class  = c;
   o->big_endian = data == 2;
   if (o->big_endian != jitformats_host_big_endian()) {
      e = mk(GDBELF_ERR_FOREIGN_BYTE_ORDER, EI_DATA_AT);
      e.num[0] = data;
      e.num[1] = jitformats_host_big_endian() ? 2 : 1;
      if (!problem(o, &e, 0))
         return 0;
   }
   if (c != sizeof(void*) * 8) {
      e = mk(GDBELF_ERR_FOREIGN_CLASS, EI_CLASS_AT);
      e.num[0] = c;
      e.num[1] = sizeof(void*) * 8;
      if (!problem(o, &e, 0))
         return 0;
   }
   return 1;
}

/* Reads the fields of o's ELF header (its class is known) and checks
   its type.  Returns 1 to go on, 0 when reading stops. */
static int open_header(GdbElfObject* o)
{
   unsigned long long n = o->n;
   unsigned int       c = o->elf_class;
   GdbElfError        e;

   if (n < EHDR_SIZE(c)) {
      e = mk(GDBELF_ERR_SHORT, 0);
      e.num[0] = n;
      e.num[1] = EHDR_SIZE(c);
      return problem(o, &e, 1);
   }
   o->have_header = 1;
   o->type      = (unsigned int)rd(o, EHDR_TYPE, 2);
   o->machine   = (unsigned int)rd(o, EHDR_MACHINE, 2);
   o->shoff     = rd_word(o, EHDR_SHOFF(c));
   o->shentsize = (unsigned int)rd(o, EHDR_SHENTSIZE(c), 2);
   o->shnum     = (unsigned int)rd(o, EHDR_SHNUM(c), 2);
   o->shstrndx  = (unsigned int)rd(o, EHDR_SHSTRNDX(c), 2);

   if (o->type != GDBELF_ET_REL && o->type != GDBELF_ET_EXEC
       && o->type != GDBELF_ET_DYN) {
      e = mk(GDBELF_ERR_BAD_TYPE, EHDR_TYPE);
      e.num[0] = o->type;
      if (!problem(o, &e, 0))
         return 0;
   }
   return 1;
}

/* Checks the size, entry size and place of o's section header table.
   Returns 1 if it can be read, 0 when reading stops. */
static int open_section_table(GdbElfObject* o)
{
   unsigned long long n = o->n;
   unsigned int       c = o->elf_class;
   unsigned int       align;
   unsigned long long table;
   GdbElfError        e;

   if (o->shnum == 0) {
      e = mk(GDBELF_ERR_NO_SECTIONS, EHDR_SHNUM(c));
      return problem(o, &e, 1);
   }
   if (o->shnum > GDBELF_MAX_SECTIONS) {
      e = mk(GDBELF_ERR_TOO_MANY_SECTIONS, EHDR_SHNUM(c));
      e.num[0] = o->shnum;
      e.num[1] = GDBELF_MAX_SECTIONS;
      return problem(o, &e, 1);
   }
   if (o->shentsize != SHDR_SIZE(c)) {
      e = mk(GDBELF_ERR_SHENTSIZE, EHDR_SHENTSIZE(c));
      e.num[0] = o->shentsize;
      e.num[1] = SHDR_SIZE(c);
      return problem(o, &e, 1);
   }
   table = (unsigned long long)o->shnum * SHDR_SIZE(c);
   if (!in_range(o->shoff, table, n)) {
      e = mk(GDBELF_ERR_SHDRS_OUTSIDE, EHDR_SHOFF(c));
      e.num[0] = o->shoff;
      e.num[1] = o->shnum;
      e.num[2] = table;
      e.num[3] = n;
      return problem(o, &e, 1);
   }
   align = c / 8;
   if (o->shoff % align != 0) {
      e = mk(GDBELF_ERR_SHDRS_UNALIGNED, EHDR_SHOFF(c));
      e.num[0] = o->shoff;
      e.num[1] = align;
      if (!problem(o, &e, 0))
         return 0;
   }
   return 1;
}

int ML_(gdbelf_open)(GdbElfObject* o, const unsigned char* img,
                     unsigned long long n,
                     GdbElfOnProblem on_problem, void* ctx)
{
   jitformats_zero(o, sizeof(*o));
   o->img        = img;
   o->n          = n;
   o->on_problem = on_problem;
   o->ctx        = ctx;
   if (open_ident(o) && open_header(o) && open_section_table(o))
      o->opened = 1;
   return o->error.code;
}

int ML_(gdbelf_section)(const GdbElfObject* o, unsigned int i,
                        GdbElfSection* s)
{
   unsigned int       c = o->elf_class;
   unsigned long long at;
   jitformats_zero(s, sizeof(*s));
   if (!o->opened || i >= o->shnum)
      return 0;
   at = sh_at(o, i);
   s->name      = (unsigned int)rd(o, at, 4);
   s->type      = (unsigned int)rd(o, at + SHDR_TYPE, 4);
   s->flags     = rd_word(o, at + 8);
   s->addr      = rd_word(o, at + SHDR_ADDR(c));
   s->offset    = rd_word(o, at + SHDR_OFFSET(c));
   s->size      = rd_word(o, at + (c == 64 ? 32u : 20u));
   s->link      = (unsigned int)rd(o, at + SHDR_LINK(c), 4);
   s->info      = (unsigned int)rd(o, at + SHDR_LINK(c) + 4, 4);
   s->addralign = rd_word(o, at + (c == 64 ? 48u : 32u));
   s->entsize   = rd_word(o, at + SHDR_ENTSIZE(c));
   return 1;
}

/* A symbol, decoded. */
typedef struct {
   unsigned int       name, type, shndx;
   unsigned long long value, size;
} Sym;

static void read_sym(const GdbElfObject* o, unsigned long long at, Sym* s)
{
   if (o->elf_class == 64) {
      s->name  = (unsigned int)rd(o, at, 4);
      s->type  = o->img[at + 4] & 0xf;
      s->shndx = (unsigned int)rd(o, at + 6, 2);
      s->value = rd(o, at + 8, 8);
      s->size  = rd(o, at + 16, 8);
   } else {
      s->name  = (unsigned int)rd(o, at, 4);
      s->value = rd(o, at + 4, 4);
      s->size  = rd(o, at + 8, 4);
      s->type  = o->img[at + 12] & 0xf;
      s->shndx = (unsigned int)rd(o, at + 14, 2);
   }
}

/* Reads the function symbol k (at file offset at) of symbol table ti,
   whose name is NUL-terminated in the string table strs.  Returns 0 to
   go on, else non-zero (the reader stops). */
static int read_function(GdbElfObject* o, unsigned int ti,
                         unsigned long long k, unsigned long long at,
                         const Sym* sym, const unsigned char* strs,
                         GdbElfOnFunction on_function, void* ctx)
{
   GdbElfSection  sec;
   GdbElfFunction f;
   GdbElfError    e;
   unsigned long long start;

   if (sym->shndx == 0 || sym->shndx >= o->shnum)
      return 0;   /* undefined, absolute or common: no code here */
   if (sym->size == 0)
      return 0;   /* no extent to name */
   (void)ML_(gdbelf_section)(o, sym->shndx, &sec);
   if (!(sec.flags & GDBELF_SHF_EXECINSTR) || !(sec.flags & GDBELF_SHF_ALLOC))
      return 0;
   e = mk(GDBELF_OK, at);
   e.section = sym->shndx;
   e.symtab  = ti;
   e.name    = (const char*)strs + sym->name;
   e.symbol  = k;
   e.num[0]  = sym->value;
   e.num[1]  = sym->size;
   e.num[2]  = sec.addr;
   e.num[3]  = sec.size;
   if (o->type == GDBELF_ET_REL) {
      /* GDB's rule for JIT objects: the section header holds the load
         address. */
      if (sec.addr == 0) {
         e.code = GDBELF_ERR_NO_LOAD_ADDRESS;
         e.at   = sh_at(o, sym->shndx) + SHDR_ADDR(o->elf_class);
         return !problem(o, &e, 0);
      }
      if (!in_range(sym->value, sym->size, sec.size)) {
         e.code = GDBELF_ERR_FN_OUTSIDE_SECTION;
         return !problem(o, &e, 0);
      }
      start = sec.addr + sym->value;
   } else {
      if (sym->value < sec.addr
          || !in_range(sym->value - sec.addr, sym->size, sec.size)) {
         e.code = GDBELF_ERR_FN_OUTSIDE_SECTION;
         return !problem(o, &e, 0);
      }
      start = sym->value;
   }
   if (start + sym->size < start) {
      e.code = GDBELF_ERR_FN_WRAPS;
      return !problem(o, &e, 0);
   }
   if (on_function != 0) {
      unsigned long len = 0;
      while (strs[sym->name + len] != 0)
         len++;
      f.start    = start;
      f.size     = sym->size;
      f.name     = (const char*)strs + sym->name;
      f.name_len = len;
      f.section  = sym->shndx;
      f.symtab   = ti;
      f.symbol   = k;
      f.at       = at;
      f.value    = sym->value;
      on_function(ctx, &f);
   }
   return 0;
}

/* Checks symbol table ti (section header st) and its string table
   (whose header goes into *ss).  Returns 1 if its symbols can be read;
   else 0, with *stop set if the reader stops (else it goes on to the
   next table). */
static int symtab_readable(GdbElfObject* o, unsigned int ti,
                           const GdbElfSection* st, GdbElfSection* ss,
                           int* stop)
{
   unsigned int       c  = o->elf_class;
   unsigned long long at = sh_at(o, ti);
   GdbElfError        e;

   *stop = 0;
   if (st->entsize != SYM_SIZE(c) || st->size % SYM_SIZE(c) != 0) {
      e = mk(GDBELF_ERR_SYMTAB_ENTSIZE, at + SHDR_ENTSIZE(c));
      e.section = ti;
      e.num[0]  = st->entsize;
      e.num[1]  = st->size;
      e.num[2]  = SYM_SIZE(c);
      *stop = !problem(o, &e, 0);
      return 0;
   }
   if (!in_range(st->offset, st->size, o->n)) {
      e = mk(GDBELF_ERR_SYMTAB_OUTSIDE, at);
      e.section = ti;
      e.num[0]  = st->offset;
      e.num[1]  = st->size;
      e.num[2]  = o->n;
      *stop = !problem(o, &e, 0);
      return 0;
   }
   if (st->offset % (c / 8) != 0) {
      e = mk(GDBELF_ERR_SYMTAB_UNALIGNED, at + SHDR_OFFSET(c));
      e.section = ti;
      e.num[0]  = st->offset;
      e.num[1]  = c / 8;
      if (!problem(o, &e, 0)) {
         *stop = 1;
         return 0;
      }
   }
   if (st->link == 0 || st->link >= o->shnum) {
      e = mk(GDBELF_ERR_SYMTAB_NO_STRTAB, at + SHDR_LINK(c));
      e.section = ti;
      e.num[0]  = st->link;
      *stop = !problem(o, &e, 0);
      return 0;
   }
   (void)ML_(gdbelf_section)(o, st->link, ss);
   if (ss->type != GDBELF_SHT_STRTAB
       || !in_range(ss->offset, ss->size, o->n)) {
      e = mk(GDBELF_ERR_STRTAB_BAD, sh_at(o, st->link));
      e.section = ti;
      e.num[0]  = st->link;
      e.num[1]  = ss->type;
      e.num[2]  = ss->offset;
      e.num[3]  = ss->size;
      *stop = !problem(o, &e, 0);
      return 0;
   }
   return 1;
}

/* The problem with the name of symbol k of table ti (at file offset at),
   whose string table strs has size bytes: GDBELF_OK in e->code if it
   has one (*end: the offset of its NUL in strs). */
static GdbElfError sym_name_problem(unsigned int ti, unsigned long long k,
                                    unsigned long long at, const Sym* sym,
                                    const unsigned char* strs,
                                    unsigned long long size,
                                    unsigned long long* end)
{
   GdbElfError        e = mk(GDBELF_OK, at);
   unsigned long long i;
   e.section = ti;
   e.symtab  = ti;
   e.symbol  = k;
   e.num[0]  = sym->name;
   e.num[1]  = sym->type;
   e.num[2]  = size;
   if (sym->name == 0) {
      e.code = GDBELF_ERR_SYM_NO_NAME;
      return e;
   }
   if (sym->name >= size) {
      e.code = GDBELF_ERR_SYM_NAME_OUTSIDE;
      return e;
   }
   for (i = sym->name; i < size; i++)
      if (strs[i] == 0) {
         *end = i;
         return e;
      }
   e.code = GDBELF_ERR_SYM_NAME_UNTERMINATED;
   return e;
}

/* Reads symbol table ti (section header st).  Returns 0 to go on to the
   next table, else non-zero (the reader stops). */
static int read_symtab(GdbElfObject* o, unsigned int ti,
                       const GdbElfSection* st,
                       GdbElfOnFunction on_function, void* ctx)
{
   unsigned int         c = o->elf_class;
   unsigned long long   n_syms, k;
   GdbElfSection        ss;
   const unsigned char* strs;
   int                  stop;

   if (!symtab_readable(o, ti, st, &ss, &stop))
      return stop;
   strs   = o->img + ss.offset;
   n_syms = st->size / SYM_SIZE(c);
   for (k = 1; k < n_syms; k++) {
      unsigned long long sat = st->offset + k * SYM_SIZE(c);
      unsigned long long end = 0;
      Sym                sym;
      GdbElfError        e;
      read_sym(o, sat, &sym);
      if (sym.type != GDBELF_STT_FUNC && sym.type != GDBELF_STT_FILE)
         continue;
      e = sym_name_problem(ti, k, sat, &sym, strs, ss.size, &end);
      if (e.code != GDBELF_OK) {
         if (!problem(o, &e, 0))
            return 1;
         continue;
      }
      if (sym.type == GDBELF_STT_FILE) {
         if (o->file == 0 && strs[sym.name] != 0) {
            o->file     = (const char*)strs + sym.name;
            o->file_len = (unsigned long)(end - sym.name);
         }
         continue;
      }
      if (read_function(o, ti, k, sat, &sym, strs, on_function, ctx))
         return 1;
   }
   return 0;
}

int ML_(gdbelf_functions)(GdbElfObject* o, GdbElfOnFunction on_function,
                          void* ctx)
{
   unsigned int  i;
   int           found = 0;
   GdbElfSection st;
   GdbElfError   e;

   if (!o->opened)
      return o->error.code;
   for (i = 0; i < o->shnum; i++) {
      (void)ML_(gdbelf_section)(o, i, &st);
      if (st.type != GDBELF_SHT_SYMTAB)
         continue;
      found = 1;
      if (read_symtab(o, i, &st, on_function, ctx))
         return o->error.code;
   }
   if (!found) {
      e = mk(GDBELF_ERR_NO_SYMTAB, 0);
      (void)problem(o, &e, 1);
   }
   return o->error.code;
}

/* ------------------------------------------------------------------
   DWARF sections and their relocations
   ------------------------------------------------------------------ */

#define SHT_RELA_          4u
#define SHT_NOBITS_        8u
#define SHT_REL_           9u
#define SHF_COMPRESSED_    0x800ull
#define SHN_ABS_           0xfff1u
#define EM_X86_64_         62u
#define EM_AARCH64_        183u
#define R_X86_64_NONE_     0u
#define R_X86_64_64_       1u
#define R_X86_64_PC32_     2u
#define R_X86_64_32_       10u
#define R_X86_64_32S_      11u
#define R_X86_64_PC64_     24u
#define R_AARCH64_NONE_    0u
#define R_AARCH64_ABS64_   257u
#define R_AARCH64_ABS32_   258u
#define R_AARCH64_ABS16_   259u
#define R_AARCH64_PREL64_  260u
#define R_AARCH64_PREL32_  261u
#define RELA64_SIZE        24u
#define SYM64_SIZE         24u

static const char* const dwarf_names[GDBELF_DW_N] = {
   ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
   ".debug_line_str", ".debug_str_offsets", ".debug_addr",
   ".debug_ranges", ".debug_rnglists", ".debug_loc", ".debug_loclists",
   ".eh_frame", ".debug_frame"
};

const char* ML_(gdbelf_dwarf_name)(unsigned int s)
{
   return s < GDBELF_DW_N ? dwarf_names[s] : 0;
}

/* Is the name of section sec (in the section name table strs, already
   checked to lie in the image) `want`? */
static int section_named(const GdbElfObject* o, const GdbElfSection* strs,
                         const GdbElfSection* sec, const char* want)
{
   unsigned long long k;
   const unsigned char* p;
   if (sec->name >= strs->size)
      return 0;
   p = o->img + strs->offset;
   for (k = sec->name; k < strs->size; k++, want++) {
      if (p[k] != (unsigned char)*want)
         return 0;
      if (p[k] == 0)
         return 1;
   }
   return 0;   /* not NUL-terminated in the table */
}

void ML_(gdbelf_dwarf_sections)(const GdbElfObject* o, GdbElfDwarf* d)
{
   GdbElfSection strs, sec;
   unsigned int  i, s;

   jitformats_zero(d, sizeof(*d));
   d->cfi = -1;
   if (!o->opened || o->shstrndx == 0 || o->shstrndx >= o->shnum)
      return;
   (void)ML_(gdbelf_section)(o, o->shstrndx, &strs);
   if (strs.type != GDBELF_SHT_STRTAB
       || !in_range(strs.offset, strs.size, o->n))
      return;
   for (i = 1; i < o->shnum; i++) {
      (void)ML_(gdbelf_section)(o, i, &sec);
      if (sec.type == SHT_NOBITS_)
         continue;
      for (s = 0; s < GDBELF_DW_N; s++)
         if (d->shndx[s] == 0 && section_named(o, &strs, &sec, dwarf_names[s]))
            d->shndx[s] = i;
   }
   d->want_lines = d->shndx[GDBELF_DW_LINE] != 0
                   && d->shndx[GDBELF_DW_INFO] != 0
                   && d->shndx[GDBELF_DW_ABBREV] != 0;
   if (d->shndx[GDBELF_DW_EH_FRAME] != 0)
      d->cfi = GDBELF_DW_EH_FRAME;
   else if (d->shndx[GDBELF_DW_DEBUG_FRAME] != 0)
      d->cfi = GDBELF_DW_DEBUG_FRAME;
}

unsigned long long ML_(gdbelf_dwarf_addr)(const GdbElfObject* o,
                                          const GdbElfDwarf* d,
                                          unsigned int i,
                                          unsigned long long code_lo)
{
   GdbElfSection sec;
   (void)ML_(gdbelf_section)(o, i, &sec);
   if (sec.addr == 0 && i != 0 && i == d->shndx[GDBELF_DW_EH_FRAME])
      return code_lo;
   return sec.addr;
}

int ML_(gdbelf_dwarf_section_problem)(const GdbElfObject* o,
                                      const GdbElfDwarf* d,
                                      unsigned int s, GdbElfError* e)
{
   GdbElfSection sec;
   unsigned int  i = s < GDBELF_DW_N ? d->shndx[s] : 0;

   jitformats_zero(e, sizeof(*e));
   if (i == 0 || !ML_(gdbelf_section)(o, i, &sec))
      return GDBELF_OK;
   if (sec.flags & SHF_COMPRESSED_) {
      *e = mk(GDBELF_ERR_DW_COMPRESSED, sh_at(o, i) + 8);
      e->section = i;
      e->num[0]  = sec.flags;
   } else if (!in_range(sec.offset, sec.size, o->n)) {
      *e = mk(GDBELF_ERR_DW_OUTSIDE, sh_at(o, i) + SHDR_OFFSET(o->elf_class));
      e->section = i;
      e->num[0]  = sec.offset;
      e->num[1]  = sec.size;
      e->num[2]  = o->n;
   }
   return e->code;
}

/* The relocation types applied in DWARF sections, by machine: the
   field's width in bytes, whether the value is PC-relative (applied in
   .eh_frame only), and the range the value must fit (FIT_*).  Sources:
   the System V x86-64 psABI (4.4.1, "Relocation Types") and ARM's ELF
   for the Arm 64-bit Architecture (AAELF64, 5.7.6 "Static Data
   relocations": ABS32/PREL32 overflow unless -2^31 <= X < 2^32,
   ABS16 unless -2^15 <= X < 2^16). */
#define FIT_ANY  0   /* the width holds any value             */
#define FIT_U32  1   /* 0 <= X < 2^32                         */
#define FIT_S32  2   /* -2^31 <= X < 2^31                     */
#define FIT_32   3   /* -2^31 <= X < 2^32                     */
#define FIT_16   4   /* -2^15 <= X < 2^16                     */
typedef struct {
   unsigned int  machine;
   unsigned int  type;
   unsigned char width;
   unsigned char pcrel;
   unsigned char fit;
} RelRule;
static const RelRule rel_rules[] = {
   { EM_X86_64_,  R_X86_64_64_,      8, 0, FIT_ANY },
   { EM_X86_64_,  R_X86_64_32_,      4, 0, FIT_U32 },
   { EM_X86_64_,  R_X86_64_32S_,     4, 0, FIT_S32 },
   { EM_X86_64_,  R_X86_64_PC32_,    4, 1, FIT_S32 },
   { EM_X86_64_,  R_X86_64_PC64_,    8, 1, FIT_ANY },
   { EM_AARCH64_, R_AARCH64_ABS64_,  8, 0, FIT_ANY },
   { EM_AARCH64_, R_AARCH64_ABS32_,  4, 0, FIT_32  },
   { EM_AARCH64_, R_AARCH64_ABS16_,  2, 0, FIT_16  },
   { EM_AARCH64_, R_AARCH64_PREL64_, 8, 1, FIT_ANY },
   { EM_AARCH64_, R_AARCH64_PREL32_, 4, 1, FIT_32  },
};

/* Is machine one whose relocations are applied? */
static int rel_machine(unsigned int machine)
{
   return machine == EM_X86_64_ || machine == EM_AARCH64_;
}

/* The rule for relocation `type` of `machine` in DWARF section s, or 0
   when it is not applied there. */
static const RelRule* rel_rule(unsigned int machine, unsigned int type,
                               unsigned int s)
{
   unsigned int k;
   for (k = 0; k < sizeof(rel_rules) / sizeof(rel_rules[0]); k++)
      if (rel_rules[k].machine == machine && rel_rules[k].type == type)
         return rel_rules[k].pcrel && s != GDBELF_DW_EH_FRAME
                ? 0 : &rel_rules[k];
   return 0;
}

/* Does v fit the range `fit`? */
static int rel_fits(unsigned long long v, unsigned int fit)
{
   long long sv = (long long)v;
   switch (fit) {
      case FIT_U32: return v <= 0xffffffffull;
      case FIT_S32: return sv >= -0x80000000ll && sv <= 0x7fffffffll;
      case FIT_32:  return sv >= -0x80000000ll && sv <= 0xffffffffll;
      case FIT_16:  return sv >= -0x8000ll && sv <= 0xffffll;
      default:      return 1;
   }
}

/* Checks relocation section rs as a whole: RELA entries of an x86-64 or
   AArch64 object of class 64, inside the image, linked to a symbol table
   of 24-byte symbols inside the image (its header into *st).  Returns
   e->code (*e describes the section; the caller made it). */
static int check_rel_section(const GdbElfObject* o, const GdbElfSection* rs,
                             GdbElfSection* st, GdbElfError* e)
{
   if (rs->type == SHT_REL_) {
      e->code = GDBELF_ERR_REL_NOT_RELA;
      return e->code;
   }
   if (!rel_machine(o->machine) || o->elf_class != 64) {
      e->code   = GDBELF_ERR_REL_MACHINE;
      e->num[0] = o->machine;
      e->num[1] = o->elf_class;
      return e->code;
   }
   if (rs->entsize != RELA64_SIZE || rs->size % RELA64_SIZE != 0
       || rs->offset % 8 != 0 || !in_range(rs->offset, rs->size, o->n)) {
      e->code   = GDBELF_ERR_REL_MALFORMED;
      e->num[0] = rs->offset;
      e->num[1] = rs->size;
      e->num[2] = rs->entsize;
      return e->code;
   }
   if (rs->link == 0 || rs->link >= o->shnum) {
      e->code = GDBELF_ERR_REL_NO_SYMTAB;
      return e->code;
   }
   (void)ML_(gdbelf_section)(o, rs->link, st);
   if (st->type != GDBELF_SHT_SYMTAB || st->entsize != SYM64_SIZE
       || st->offset % 8 != 0 || !in_range(st->offset, st->size, o->n)) {
      e->code = GDBELF_ERR_REL_SYMTAB_BAD;
      return e->code;
   }
   return GDBELF_OK;
}

/* Reads the relocation at file offset at, for DWARF section s (header
   ts, at address t_addr) with the symbol table st, into *rel: its rule
   (rel_rule), its field inside ts, its symbol defined, its value (which
   must fit).  Returns GDBELF_OK (rel->type 0 for a relocation that does
   nothing) or e->code. */
static int read_relocation(const GdbElfObject* o, const GdbElfDwarf* d,
                           unsigned int s, const GdbElfSection* ts,
                           unsigned long long t_addr,
                           const GdbElfSection* st,
                           unsigned long long at,
                           unsigned long long code_lo,
                           GdbElfRelocation* rel, GdbElfError* e)
{
   unsigned long long info   = rd(o, at + 8, 8);
   unsigned long long si     = info >> 32;
   unsigned long long n_syms = st->size / SYM64_SIZE;
   unsigned long long v;
   Sym                sym;
   const RelRule*     rule;

   jitformats_zero(rel, sizeof(*rel));
   rel->type = (unsigned int)(info & 0xffffffffull);
   if (rel->type == R_X86_64_NONE_)   /* = R_AARCH64_NONE_ */
      return GDBELF_OK;
   rule = rel_rule(o->machine, rel->type, s);
   if (rule == 0) {
      e->code   = GDBELF_ERR_REL_TYPE;
      e->num[0] = rel->type;
      return e->code;
   }
   rel->width  = rule->width;
   rel->offset = rd(o, at, 8);
   rel->addend = (long long)rd(o, at + 16, 8);
   if (!in_range(rel->offset, rel->width, ts->size)) {
      e->code   = GDBELF_ERR_REL_OUTSIDE;
      e->num[0] = rel->offset;
      e->num[1] = rel->width;
      e->num[2] = ts->size;
      return e->code;
   }
   if (si >= n_syms) {
      e->code   = GDBELF_ERR_REL_NO_SYMBOL;
      e->num[0] = si;
      e->num[1] = n_syms;
      return e->code;
   }
   read_sym(o, st->offset + si * SYM64_SIZE, &sym);
   if (sym.shndx == SHN_ABS_)
      rel->symbol_value = sym.value;
   else if (sym.shndx != 0 && sym.shndx < o->shnum)
      rel->symbol_value = ML_(gdbelf_dwarf_addr)(o, d, sym.shndx, code_lo)
                          + sym.value;
   else {
      e->code   = GDBELF_ERR_REL_UNDEFINED;
      e->num[0] = si;
      e->num[1] = sym.shndx;
      return e->code;
   }
   v = rel->symbol_value + (unsigned long long)rel->addend;
   if (rule->pcrel)
      v -= t_addr + rel->offset;
   if (!rel_fits(v, rule->fit)) {
      e->code   = GDBELF_ERR_REL_OVERFLOW;
      e->num[0] = v;
      e->num[1] = rel->type;
      return e->code;
   }
   rel->value = v;
   return GDBELF_OK;
}

/* Checks relocation section r (header rs) targeting DWARF section s
   (header ts) and hands over its relocations.  Returns e->code. */
static int relocate(const GdbElfObject* o, const GdbElfDwarf* d,
                    unsigned int s, const GdbElfSection* ts,
                    unsigned int r, const GdbElfSection* rs,
                    unsigned long long code_lo,
                    GdbElfOnRelocation on_relocation, void* ctx,
                    GdbElfError* e)
{
   GdbElfSection      st;
   GdbElfRelocation   rel;
   unsigned long long n_rels, k;
   unsigned long long t_addr = ML_(gdbelf_dwarf_addr)(o, d, d->shndx[s],
                                                      code_lo);

   *e = mk(GDBELF_OK, sh_at(o, r));
   e->section = r;
   e->symtab  = rs->link;
   e->num[3]  = d->shndx[s];
   if (check_rel_section(o, rs, &st, e) != GDBELF_OK)
      return e->code;
   n_rels = rs->size / RELA64_SIZE;
   for (k = 0; k < n_rels; k++) {
      unsigned long long at = rs->offset + k * RELA64_SIZE;
      e->at     = at;
      e->symbol = k;
      if (read_relocation(o, d, s, ts, t_addr, &st, at, code_lo, &rel, e)
          != GDBELF_OK)
         return e->code;
      if (rel.type == R_X86_64_NONE_)
         continue;
      rel.dwarf   = s;
      rel.section = r;
      rel.index   = k;
      if (on_relocation != 0)
         on_relocation(ctx, &rel);
   }
   return GDBELF_OK;
}

int ML_(gdbelf_dwarf_relocations)(const GdbElfObject* o,
                                  const GdbElfDwarf* d, unsigned int s,
                                  unsigned long long code_lo,
                                  GdbElfOnRelocation on_relocation,
                                  void* ctx, GdbElfError* e)
{
   GdbElfSection ts, rs;
   unsigned int  i;

   jitformats_zero(e, sizeof(*e));
   if (s >= GDBELF_DW_N || d->shndx[s] == 0 || o->type != GDBELF_ET_REL
       || !ML_(gdbelf_section)(o, d->shndx[s], &ts))
      return GDBELF_OK;
   for (i = 1; i < o->shnum; i++) {
      (void)ML_(gdbelf_section)(o, i, &rs);
      if ((rs.type != SHT_RELA_ && rs.type != SHT_REL_)
          || rs.info != d->shndx[s])
         continue;
      if (relocate(o, d, s, &ts, i, &rs, code_lo, on_relocation, ctx, e)
          != GDBELF_OK)
         return e->code;
   }
   jitformats_zero(e, sizeof(*e));
   return GDBELF_OK;
}

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
/*--- end                                             readgdbelf.c ---*/
/*--------------------------------------------------------------------*/
