
/*--------------------------------------------------------------------*/
/*--- Line tables of objects registered through the GDB JIT        ---*/
/*--- interface.                                    jitgdblines.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 2 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* An object registered through the GDB JIT interface carries DWARF:
   .debug_line, and the .debug_info / .debug_abbrev that say which part
   of .debug_line belongs to which compilation unit.  LLVM registers
   relocatable objects, whose debug sections are only meaningful once
   the object's relocations are applied: DW_LNE_set_address operands
   point at .text plus an addend, and DWARF 5 file names are offsets
   into .debug_line_str held in relocation addends.  A debugger applies
   them when it reads the object (GDB through BFD); so do we:

   1. Copy the debug sections the line reader needs into one buffer,
      each followed by zero padding (a string running off the end of its
      section stops there).
   2. Relocated objects only: apply the RELA relocations that target
      those sections, symbol values taken as the JIT laid the object out
      (a section's sh_addr, which the JIT rewrote to the load address
      for the sections it loaded and left 0 for the others, plus the
      symbol's st_value).  Only the absolute relocation types debug
      sections use are applied; any other refuses the line table.
   3. Read the buffer with m_debuginfo's own DWARF line reader
      (ML_(read_debuginfo_dwarf3)) into a temporary DebugInfo that is
      never listed, whose one r-x mapping is the hull of the object's
      functions, then copy its line entries out and free it.

   The object is client data.  Section headers and symbols are checked
   here and by jitgdb.c's parse_object; the DWARF inside the sections
   is left to the reader, and a read past the end of the buffer, which
   would make the image layer shut Valgrind down, is caught instead
   (ML_(img_set_overrun_handler)): the object keeps its names, its line
   table is refused. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcsetjmp.h"
#include "pub_core_xarray.h"
#include "pub_core_deduppoolalloc.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_readdwarf.h"
#include "priv_jitreg.h"
#include "priv_jitgdb.h"         /* self */

/* The sections the line reader uses, in the order of this table. */
enum { SEC_INFO, SEC_ABBREV, SEC_LINE, SEC_STR, SEC_LINE_STR, N_SECS };
static const HChar* const sec_names[N_SECS] = {
   ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
   ".debug_line_str"
};

/* Zero bytes after each copied section. */
#define SEC_PADDING 64

struct _GdbLineSet {
   XArray*         lines;   /* of GdbLine, sorted by addr */
   DedupPoolAlloc* paths;   /* the entries' source paths */
};

typedef
   struct {
      Addr         addr;
      UWord        size;    /* bytes, > 0 */
      UInt         line;    /* 1-based */
      const HChar* path;    /* in the set's paths */
   }
   GdbLine;

/* Where a section went in the buffer. */
typedef
   struct {
      UWord shndx;   /* 0: the object has no such section */
      ULong off;     /* in the buffer */
      ULong size;
   }
   CopiedSec;


/*------------------------------------------------------------*/
/*--- Section lookup and relocation                        ---*/
/*------------------------------------------------------------*/

static inline Bool in_image ( ULong off, ULong len, ULong n )
{
   return off <= n && len <= n - off;
}

/* The name of section i, or NULL if it has none readable. */
static const HChar* section_name ( const UChar* img, ULong n,
                                   const ElfXX_Ehdr* eh,
                                   const ElfXX_Shdr* sh, UWord i )
{
   const ElfXX_Shdr* strs;
   ULong k;
   if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
      return NULL;
   strs = &sh[eh->e_shstrndx];
   if (strs->sh_type != SHT_STRTAB
       || !in_image(strs->sh_offset, strs->sh_size, n)
       || sh[i].sh_name >= strs->sh_size)
      return NULL;
   for (k = sh[i].sh_name; k < strs->sh_size; k++)
      if (img[strs->sh_offset + k] == 0)
         return (const HChar*)(img + strs->sh_offset + sh[i].sh_name);
   return NULL;
}

/* Applies the relocations of RELA section rs (of a relocatable object)
   to its target, copied at buf + sec->off.  Returns NULL or why the line
   table is refused. */
static const HChar* apply_rela ( const UChar* img, ULong n,
                                 const ElfXX_Ehdr* eh,
                                 const ElfXX_Shdr* sh,
                                 const ElfXX_Shdr* rs,
                                 UChar* buf, const CopiedSec* sec )
{
#  if defined(VGA_amd64)
   const ElfXX_Shdr* st;
   const Elf64_Sym*  syms;
   const Elf64_Rela* rels;
   UWord             n_syms, n_rels, k;

   if (rs->sh_entsize != sizeof(Elf64_Rela)
       || rs->sh_size % sizeof(Elf64_Rela) != 0
       || !VG_IS_8_ALIGNED(rs->sh_offset)
       || !in_image(rs->sh_offset, rs->sh_size, n))
      return "a relocation section lies outside the object";
   if (rs->sh_link == 0 || rs->sh_link >= eh->e_shnum)
      return "a relocation section names no symbol table";
   st = &sh[rs->sh_link];
   if (st->sh_type != SHT_SYMTAB || st->sh_entsize != sizeof(Elf64_Sym)
       || !VG_IS_8_ALIGNED(st->sh_offset)
       || !in_image(st->sh_offset, st->sh_size, n))
      return "a relocation section's symbol table is malformed";
   syms   = (const Elf64_Sym*)(img + st->sh_offset);
   n_syms = st->sh_size / sizeof(Elf64_Sym);
   rels   = (const Elf64_Rela*)(img + rs->sh_offset);
   n_rels = rs->sh_size / sizeof(Elf64_Rela);

   for (k = 0; k < n_rels; k++) {
      const Elf64_Rela* r    = &rels[k];
      UWord             type = ELF64_R_TYPE(r->r_info);
      UWord             symi = ELF64_R_SYM(r->r_info);
      ULong             s, v;
      UInt              width;
      if (type == R_X86_64_NONE)
         continue;
      if (type == R_X86_64_64)
         width = 8;
      else if (type == R_X86_64_32 || type == R_X86_64_32S)
         width = 4;
      else
         return "a debug section has a relocation of a type other than"
                " R_X86_64_64, _32 and _32S";
      if (!in_image(r->r_offset, width, sec->size))
         return "a relocation lies outside its section";
      if (symi >= n_syms)
         return "a relocation names no symbol";
      if (syms[symi].st_shndx == SHN_ABS) {
         s = syms[symi].st_value;
      } else if (syms[symi].st_shndx != SHN_UNDEF
                 && syms[symi].st_shndx < eh->e_shnum) {
         s = sh[syms[symi].st_shndx].sh_addr + syms[symi].st_value;
      } else {
         return "a relocation names an undefined symbol";
      }
      v = s + (ULong)r->r_addend;
      if (type == R_X86_64_32 && v != (ULong)(UInt)v)
         return "a 32-bit relocation overflows";
      if (type == R_X86_64_32S && (Long)v != (Long)(Int)v)
         return "a 32-bit relocation overflows";
      VG_(memcpy)(buf + sec->off + r->r_offset, &v, width);  /* LE */
   }
   return NULL;
#  else
   return "relocations of debug sections are applied on amd64 only";
#  endif
}


/*------------------------------------------------------------*/
/*--- Reading                                              ---*/
/*------------------------------------------------------------*/

static VG_MINIMAL_JMP_BUF(overrun_env);

static void on_image_overrun ( void )
{
   VG_MINIMAL_LONGJMP(overrun_env);
}

static Int cmp_line_addr ( const void* aV, const void* bV )
{
   const GdbLine* a = aV;
   const GdbLine* b = bV;
   if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
   return 0;
}

/* Copies the entries of di's loctab into a new set. */
static GdbLineSet* collect ( DebugInfo* di )
{
   GdbLineSet* set = ML_(dinfo_zalloc)("di.jitgdblines.set",
                                       sizeof(GdbLineSet));
   UWord i;
   set->lines = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdblines.lines",
                           ML_(dinfo_free), sizeof(GdbLine));
   set->paths = VG_(newDedupPA)(4096, 1, ML_(dinfo_zalloc),
                                "di.jitgdblines.paths", ML_(dinfo_free));
   for (i = 0; i < di->loctab_used; i++) {
      const DiLoc* loc  = &di->loctab[i];
      UInt         fndn = ML_(fndn_ix)(di, i);
      const HChar* file = ML_(fndn_ix2filename)(di, fndn);
      const HChar* dir  = ML_(fndn_ix2dirname)(di, fndn);
      SizeT        flen, dlen;
      GdbLine      l;
      if (loc->lineno == 0 || file == NULL || file[0] == 0)
         continue;
      flen = VG_(strlen)(file);
      dlen = (dir != NULL && dir[0] != 0 && file[0] != '/')
                ? VG_(strlen)(dir) : 0;
      {
         HChar path[dlen + 1 + flen + 1];
         if (dlen > 0) {
            VG_(memcpy)(path, dir, dlen);
            path[dlen] = '/';
            VG_(memcpy)(path + dlen + 1, file, flen + 1);
         } else {
            VG_(memcpy)(path, file, flen + 1);
         }
         l.path = VG_(allocEltDedupPA)(set->paths,
                                       VG_(strlen)(path) + 1, path);
      }
      l.addr = loc->addr;
      l.size = loc->size;
      l.line = loc->lineno;
      VG_(addToXA)(set->lines, &l);
   }
   VG_(setCmpFnXA)(set->lines, cmp_line_addr);
   VG_(sortXA)(set->lines);
   return set;
}

GdbLineSet* ML_(jit_gdb_lines_read) ( const UChar* img, ULong n,
                                      Addr code_lo, Addr code_hi,
                                      const HChar* objname,
                                      /*OUT*/const HChar** why )
{
   const ElfXX_Ehdr* eh = (const ElfXX_Ehdr*)img;
   const ElfXX_Shdr* sh = (const ElfXX_Shdr*)(img + eh->e_shoff);
   CopiedSec         secs[N_SECS];
   UChar*            buf;
   ULong             total = 0;
   UWord             i, s;
   DiImage*          dimg;
   DebugInfo*        di;
   DebugInfoMapping  map;
   DiSlice           sli[N_SECS];
   GdbLineSet*       set;

   *why = NULL;
   VG_(memset)(secs, 0, sizeof(secs));
   for (i = 1; i < eh->e_shnum; i++) {
      const HChar* name = section_name(img, n, eh, sh, i);
      if (name == NULL || sh[i].sh_type == SHT_NOBITS)
         continue;
      for (s = 0; s < N_SECS; s++) {
         if (VG_(strcmp)(name, sec_names[s]) != 0 || secs[s].shndx != 0)
            continue;
         if (sh[i].sh_flags & SHF_COMPRESSED) {
            *why = "compressed debug sections are not read";
            return NULL;
         }
         if (!in_image(sh[i].sh_offset, sh[i].sh_size, n)) {
            *why = "a debug section lies outside the object";
            return NULL;
         }
         secs[s].shndx = i;
         secs[s].size  = sh[i].sh_size;
         secs[s].off   = total;
         total += VG_ROUNDUP(sh[i].sh_size + SEC_PADDING, 8);
      }
   }
   if (secs[SEC_LINE].shndx == 0 || secs[SEC_INFO].shndx == 0
       || secs[SEC_ABBREV].shndx == 0 || code_lo >= code_hi)
      return NULL;   /* no line table: nothing to refuse */

   buf = ML_(dinfo_zalloc)("di.jitgdblines.buf", total);
   for (s = 0; s < N_SECS; s++)
      if (secs[s].shndx != 0)
         VG_(memcpy)(buf + secs[s].off, img + sh[secs[s].shndx].sh_offset,
                     secs[s].size);
   if (eh->e_type == ET_REL) {
      for (i = 1; i < eh->e_shnum && *why == NULL; i++) {
         if (sh[i].sh_type == SHT_REL) {
            for (s = 0; s < N_SECS; s++)
               if (secs[s].shndx != 0 && secs[s].shndx == sh[i].sh_info)
                  *why = "REL relocations of debug sections are not"
                         " applied";
            continue;
         }
         if (sh[i].sh_type != SHT_RELA)
            continue;
         for (s = 0; s < N_SECS && *why == NULL; s++)
            if (secs[s].shndx != 0 && secs[s].shndx == sh[i].sh_info)
               *why = apply_rela(img, n, eh, sh, &sh[i], buf, &secs[s]);
      }
      if (*why != NULL) {
         ML_(dinfo_free)(buf);
         return NULL;
      }
   }

   dimg = ML_(img_from_memory)((Addr)buf, total, objname);
   for (s = 0; s < N_SECS; s++)
      sli[s] = secs[s].shndx != 0
                  ? mk_DiSlice(dimg, secs[s].off, secs[s].size)
                  : DiSlice_INVALID;
   di = ML_(alloc_unlisted_DebugInfo)(objname);
   VG_(memset)(&map, 0, sizeof(map));
   map.avma = code_lo;
   map.size = code_hi - code_lo;
   map.rx   = True;
   VG_(addToXA)(di->fsm.maps, &map);
   di->fsm.have_rx_map = True;
   di->text_present    = True;
   di->text_avma       = code_lo;
   di->text_size       = code_hi - code_lo;

   set = NULL;
   if (VG_MINIMAL_SETJMP(overrun_env) == 0) {
      ML_(img_set_overrun_handler)(on_image_overrun);
      ML_(read_debuginfo_dwarf3)(di, sli[SEC_INFO], DiSlice_INVALID,
                                 sli[SEC_ABBREV], sli[SEC_LINE],
                                 sli[SEC_STR], DiSlice_INVALID,
                                 sli[SEC_LINE_STR]);
      ML_(img_set_overrun_handler)(NULL);
      set = collect(di);
   } else {
      /* Whatever the reader allocated hangs off di or is lost (a few
         bytes per hostile object). */
      ML_(img_set_overrun_handler)(NULL);
      *why = "its DWARF reads past the end of its sections";
   }
   ML_(free_unlisted_DebugInfo)(di);
   ML_(img_done)(dimg);
   ML_(dinfo_free)(buf);
   if (set != NULL && VG_(sizeXA)(set->lines) == 0) {
      ML_(jit_gdb_lines_free)(set);
      set = NULL;
   }
   return set;
}

JitSrcLine* ML_(jit_gdb_lines_for) ( const GdbLineSet* set,
                                     Addr start, UWord size,
                                     /*OUT*/UWord* n_out )
{
   Word        lo = 0, hi, i;
   UWord       n = 0;
   JitSrcLine* out;

   *n_out = 0;
   if (set == NULL || size == 0)
      return NULL;
   /* The first entry that ends after start: entries are sorted by addr
      and, within one compilation unit, do not overlap. */
   hi = VG_(sizeXA)(set->lines);
   while (lo < hi) {
      Word mid = lo + (hi - lo) / 2;
      const GdbLine* l = VG_(indexXA)(set->lines, mid);
      if (l->addr + l->size <= start) lo = mid + 1; else hi = mid;
   }
   for (i = lo; i < VG_(sizeXA)(set->lines); i++) {
      const GdbLine* l = VG_(indexXA)(set->lines, i);
      if (l->addr >= start + size) break;
      if (l->addr + l->size > start) n++;
   }
   if (n == 0)
      return NULL;
   out = ML_(dinfo_zalloc)("di.jitgdblines.fnlines", n * sizeof(JitSrcLine));
   n = 0;
   for (i = lo; i < VG_(sizeXA)(set->lines); i++) {
      const GdbLine* l = VG_(indexXA)(set->lines, i);
      if (l->addr >= start + size) break;
      if (l->addr + l->size <= start) continue;
      out[n].offset = l->addr > start ? l->addr - start : 0;
      out[n].line   = l->line;
      out[n].file   = l->path;
      n++;
   }
   *n_out = n;
   return out;
}

DedupPoolAlloc* ML_(jit_gdb_lines_take_paths) ( GdbLineSet* set )
{
   DedupPoolAlloc* paths = set->paths;
   set->paths = NULL;
   return paths;
}

void ML_(jit_gdb_lines_free) ( GdbLineSet* set )
{
   if (set == NULL)
      return;
   VG_(deleteXA)(set->lines);
   if (set->paths != NULL)
      VG_(deleteDedupPA)(set->paths);
   ML_(dinfo_free)(set);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
