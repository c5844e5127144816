/*--------------------------------------------------------------------*/
/*--- The rules for GDB JIT objects: which DWARF sections are      ---*/
/*--- read, which relocations applied.          readgdbelf-dwarf.c ---*/
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

/* The rules are stated in priv_readgdbelf.h ("DWARF sections of GDB
   JIT objects"): the sections found by name, those refused (compressed,
   outside the image), and the relocations applied to them, checked
   field by field (x86-64 and AArch64 RELA only) before jitgdbdwarf.c
   and vg-jit write them.  The object itself was accepted by
   readgdbelf.c; the ELF fields are read as it reads them
   (priv_readgdbelf_fields.h).

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike. */

#include "priv_jitbytes.h"
#include "priv_readgdbelf.h"
#include "priv_readgdbelf_fields.h"

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

/*--------------------------------------------------------------------*/
/*--- end                                       readgdbelf-dwarf.c ---*/
/*--------------------------------------------------------------------*/
