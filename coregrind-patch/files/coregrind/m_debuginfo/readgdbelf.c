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

   This file holds the object's headers and its symbols (ML_(gdbelf_open),
   ML_(gdbelf_section), ML_(gdbelf_functions)); readgdbelf-dwarf.c its
   DWARF sections and their relocations, readgdbelf-text.c the text of
   each problem.  The ELF fields they read are in
   priv_readgdbelf_fields.h.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike. */

#include "priv_jitbytes.h"
#include "priv_readgdbelf.h"
#include "priv_readgdbelf_fields.h"

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

/*--------------------------------------------------------------------*/
/*--- end                                             readgdbelf.c ---*/
/*--------------------------------------------------------------------*/
