
/*--------------------------------------------------------------------*/
/*--- Line tables of objects registered through the GDB JIT        ---*/
/*--- interface.                                    jitgdbdwarf.c ---*/
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

/* An object registered through the GDB JIT interface carries DWARF:
   .debug_line, with the .debug_info / .debug_abbrev that say which part
   of it belongs to which compilation unit, and call frame information
   (.eh_frame, or .debug_frame).  LLVM registers relocatable objects,
   whose sections are only meaningful once the object's relocations are
   applied: DW_LNE_set_address operands and FDE ranges point at .text
   plus an addend, and DWARF 5 file names are offsets into
   .debug_line_str held in relocation addends.  A debugger applies them
   when it reads the object (GDB through BFD); so do we:

   1. Copy the sections the readers need into one buffer, each followed
      by zero padding (a string running off the end of its section stops
      there).
   2. Relocated objects only: apply the RELA relocations that target
      those sections, symbol values taken as the JIT laid the object out
      (a section's sh_addr, which the JIT rewrote to the load address of
      the sections it loaded, plus the symbol's st_value).  Which
      sections are read, which are refused and which relocations are
      applied is decided by readgdbelf-dwarf.c
      (ML_(gdbelf_dwarf_sections), ML_(gdbelf_dwarf_section_problem),
      ML_(gdbelf_dwarf_relocations), rules in priv_readgdbelf.h), which
      vg-jit's checker shares; this file writes the relocations it hands
      over.
   3. Line tables: m_debuginfo's own DWARF line reader
      (ML_(read_debuginfo_dwarf3)) reads the buffer into a temporary
      DebugInfo that is never listed, whose one r-x mapping is the hull of
      the object's functions; its entries are copied out, it is freed.
   4. CFI and inlined calls: m_debuginfo's own CFI reader
      (ML_(read_callframe_info_dwarf3)) reads .eh_frame (else
      .debug_frame), and under --read-inline-info=yes its DWARF 3+ reader
      (ML_(new_dwarf3_reader)) the inlined subroutines of .debug_info,
      into another unlisted DebugInfo, which is canonicalised and kept:
      jitgdbobject.c hands it to the unwinder and to the inlined-frame
      lookups for the object's code.

   The object is client data.  Section headers, symbols and relocations
   are checked by readgdbelf.c (through jitgdb.c's parse_object and the
   calls here), the CIEs' pointer encodings by
   ML_(jit_cfi_check_records) of checkcfi.c (the CFI reader asserts on
   those it does not know).  The DWARF inside the sections is left to
   the readers, each run under ML_(jit_guarded) (jitguard.c): a read
   past the end of the buffer, a failed check or a fault inside a reader
   refuses what that reader was reading (the line table, the CFI or the
   inlined calls), and the object keeps its names and the rest. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_libcsetjmp.h"
#include "pub_core_xarray.h"
#include "pub_core_deduppoolalloc.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_readdwarf.h"
#include "priv_readdwarf3.h"
#include "priv_jitreg.h"
#include "priv_jitcfi.h"         /* the checks of CFI records */
#include "priv_jitguard.h"
#include "priv_readgdbelf.h"     /* the DWARF sections and relocations */
#include "priv_checkcfi.h"       /* ML_(jit_cfi_check_records) */
#include "priv_jitgdb.h"         /* self */

/* The sections the readers use (readgdbelf-dwarf.c's GDBELF_DW_*). */
enum { SEC_INFO        = GDBELF_DW_INFO,
       SEC_ABBREV      = GDBELF_DW_ABBREV,
       SEC_LINE        = GDBELF_DW_LINE,
       SEC_STR         = GDBELF_DW_STR,
       SEC_LINE_STR    = GDBELF_DW_LINE_STR,
       SEC_STR_OFFSETS = GDBELF_DW_STR_OFFSETS,
       SEC_ADDR        = GDBELF_DW_ADDR,
       SEC_RANGES      = GDBELF_DW_RANGES,
       SEC_RNGLISTS    = GDBELF_DW_RNGLISTS,
       SEC_LOC         = GDBELF_DW_LOC,
       SEC_LOCLISTS    = GDBELF_DW_LOCLISTS,
       SEC_EH_FRAME    = GDBELF_DW_EH_FRAME,
       SEC_DEBUG_FRAME = GDBELF_DW_DEBUG_FRAME,
       N_SECS          = GDBELF_DW_N };

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
      UWord        shndx;  /* 0: the object has no such section */
      ULong        off;    /* in the buffer */
      ULong        size;
      Addr         addr;   /* where the section's bytes are taken to be */
      const HChar* why;    /* why it cannot be used, or NULL */
   }
   CopiedSec;


/*------------------------------------------------------------*/
/*--- Relocation                                           ---*/
/*------------------------------------------------------------*/

/* Where relocations are written. */
typedef
   struct {
      UChar*           buf;
      const CopiedSec* secs;
   }
   ApplyArgs;

/* Writes one relocation readgdbelf-dwarf.c checked (inside its section, of
   width 2, 4 or 8) into the copy of its section, in the process's byte
   order (readgdbelf-dwarf.c refuses objects of the other one). */
static void apply_one ( void* ctx, const GdbElfRelocation* r )
{
   ApplyArgs* a = ctx;
   UInt       k, shift;
   for (k = 0; k < r->width; k++) {
#     if defined(VG_BIGENDIAN)
      shift = 8 * (r->width - 1 - k);
#     else
      shift = 8 * k;
#     endif
      a->buf[a->secs[r->dwarf].off + r->offset + k]
         = (UChar)(r->value >> shift);
   }
}


/*------------------------------------------------------------*/
/*--- Reading                                              ---*/
/*------------------------------------------------------------*/

static Int cmp_line_addr ( const void* aV, const void* bV )
{
   const GdbLine* a = aV;
   const GdbLine* b = bV;
   if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
   return 0;
}

/* Copies the entries of di's loctab into a new set (NULL if none). */
static GdbLineSet* collect_lines ( DebugInfo* di )
{
   GdbLineSet* set;
   UWord i;
   if (di->loctab_used == 0)
      return NULL;
   set = ML_(dinfo_zalloc)("di.jitgdbdwarf.set", sizeof(GdbLineSet));
   set->lines = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdbdwarf.lines",
                           ML_(dinfo_free), sizeof(GdbLine));
   set->paths = VG_(newDedupPA)(4096, 1, ML_(dinfo_zalloc),
                                "di.jitgdbdwarf.paths", ML_(dinfo_free));
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
   if (VG_(sizeXA)(set->lines) == 0) {
      ML_(jit_gdb_lines_free)(set);
      return NULL;
   }
   return set;
}

static inline DiSlice slice ( DiImage* dimg, const CopiedSec* secs,
                              UWord s )
{
   return secs[s].shndx != 0 && secs[s].why == NULL
             ? mk_DiSlice(dimg, secs[s].off, secs[s].size)
             : DiSlice_INVALID;
}

/* Why a reading failed, kept until the object's warnings are given:
   ML_(jit_guarded)'s text lasts until its next call. */
static HChar lines_why_text[256], cfi_why_text[256], inl_why_text[256];
/* Why each DWARF section was refused, in readgdbelf-text.c's words with its
   numbers (ML_(gdbelf_describe_in)); valid until the next object. */
static HChar sec_why_text[N_SECS][200];

static const HChar* keep_why ( HChar* text, SizeT size, const HChar* why )
{
   if (why == NULL)
      return NULL;
   VG_(snprintf)(text, size, "%s", why);
   return text;
}

/* The arguments of one guarded call of a reader. */
typedef
   struct {
      DebugInfo*       di;
      DiImage*         dimg;
      const CopiedSec* secs;
      UWord            frame_sec;  /* SEC_EH_FRAME or SEC_DEBUG_FRAME */
   }
   ReadArgs;

static void call_line_reader ( void* argV )
{
   const ReadArgs* a = argV;
   ML_(read_debuginfo_dwarf3)(a->di, slice(a->dimg, a->secs, SEC_INFO),
                              DiSlice_INVALID,
                              slice(a->dimg, a->secs, SEC_ABBREV),
                              slice(a->dimg, a->secs, SEC_LINE),
                              slice(a->dimg, a->secs, SEC_STR),
                              DiSlice_INVALID,
                              slice(a->dimg, a->secs, SEC_LINE_STR));
}

static void call_cfi_reader ( void* argV )
{
   const ReadArgs*  a   = argV;
   const CopiedSec* sec = &a->secs[a->frame_sec];
   Bool             is_eh = a->frame_sec == SEC_EH_FRAME;
   ML_(read_callframe_info_dwarf3)(a->di,
                                   slice(a->dimg, a->secs, a->frame_sec),
                                   is_eh ? sec->addr : 0, is_eh);
}

static void call_inline_reader ( void* argV )
{
   const ReadArgs* a = argV;
   ML_(new_dwarf3_reader)(a->di, slice(a->dimg, a->secs, SEC_INFO),
                          DiSlice_INVALID,
                          slice(a->dimg, a->secs, SEC_ABBREV),
                          slice(a->dimg, a->secs, SEC_LINE),
                          slice(a->dimg, a->secs, SEC_STR),
                          slice(a->dimg, a->secs, SEC_RANGES),
                          slice(a->dimg, a->secs, SEC_RNGLISTS),
                          slice(a->dimg, a->secs, SEC_LOCLISTS),
                          slice(a->dimg, a->secs, SEC_LOC),
                          DiSlice_INVALID, DiSlice_INVALID,
                          DiSlice_INVALID, DiSlice_INVALID,
                          slice(a->dimg, a->secs, SEC_LINE_STR),
                          slice(a->dimg, a->secs, SEC_ADDR),
                          slice(a->dimg, a->secs, SEC_STR_OFFSETS));
}

/* Reads the object's line table into *lines (NULL if it has no entry
   for the code).  Returns NULL, or why the line table is refused. */
static const HChar* read_lines ( DiImage* dimg, const CopiedSec* secs,
                                 Addr code_lo, Addr code_hi,
                                 const HChar* objname,
                                 /*OUT*/GdbLineSet** lines )
{
   ReadArgs     a;
   const HChar* why;

   *lines = NULL;
   a.di   = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   a.dimg = dimg;
   a.secs = secs;
   a.frame_sec = SEC_EH_FRAME;
   why = keep_why(lines_why_text, sizeof(lines_why_text),
                  ML_(jit_guarded)(call_line_reader, &a));
   if (why == NULL)
      *lines = collect_lines(a.di);
   ML_(free_unlisted_DebugInfo)(a.di);
   return why;
}

/* Reads the object's CFI (if want_cfi) and, under --read-inline-info=yes,
   its inlined calls (if want_inl) into a DebugInfo that is kept (*kept,
   NULL if it holds neither).  Sets *cfi_why to why the CFI was refused,
   *inl_why to why the inlined calls were (each refused as a whole; the
   other is kept). */
static void read_kept ( DiImage* dimg, const CopiedSec* secs,
                        const UChar* buf, Bool want_cfi, Bool want_inl,
                        Addr code_lo, Addr code_hi, const HChar* objname,
                        /*OUT*/DebugInfo** kept,
                        /*OUT*/const HChar** cfi_why,
                        /*OUT*/const HChar** inl_why )
{
   const CopiedSec* sec = secs[SEC_EH_FRAME].shndx != 0
                             ? &secs[SEC_EH_FRAME] : &secs[SEC_DEBUG_FRAME];
   Bool             is_eh = sec == &secs[SEC_EH_FRAME];
   ReadArgs         a;
   const HChar*     why;

   *kept = NULL;
   if (want_cfi) {
      *cfi_why = sec->why;
      if (*cfi_why == NULL)
         *cfi_why = ML_(jit_cfi_check_records)(buf + sec->off, sec->size, is_eh);
      if (*cfi_why != NULL)
         want_cfi = False;
   }
   if (!want_cfi && !want_inl)
      return;
   a.dimg = dimg;
   a.secs = secs;
   a.frame_sec = sec - secs;
  again:
   a.di = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   if (want_cfi) {
      why = ML_(jit_guarded)(call_cfi_reader, &a);
      if (why != NULL) {
         ML_(free_unlisted_DebugInfo)(a.di);
         *cfi_why = keep_why(cfi_why_text, sizeof(cfi_why_text), why);
         want_cfi = False;
         if (!want_inl)
            return;
         goto again;
      }
   }
   if (want_inl) {
      why = ML_(jit_guarded)(call_inline_reader, &a);
      if (why != NULL) {
         /* Half of the inlined calls may be in: read the CFI again, on
            its own. */
         ML_(free_unlisted_DebugInfo)(a.di);
         *inl_why = keep_why(inl_why_text, sizeof(inl_why_text), why);
         want_inl = False;
         if (!want_cfi)
            return;
         goto again;
      }
   }
   if (a.di->cfsi_used == 0 && a.di->inltab_used == 0) {
      ML_(free_unlisted_DebugInfo)(a.di);
      return;
   }
   ML_(canonicaliseTables)(a.di);
   ML_(finish_CFSI_arrays)(a.di);
   *kept = a.di;
}

/* Places the DWARF sections d found in o (a section that cannot be
   copied gets its why) one after the other in secs, at the addresses
   the relocations give them; returns the bytes they take. */
static ULong place_sections ( GdbElfObject* o, const GdbElfDwarf* d,
                              Addr code_lo, /*OUT*/CopiedSec* secs )
{
   GdbElfError   e;
   GdbElfSection sec;
   ULong         total = 0;
   UWord         s;
   for (s = 0; s < N_SECS; s++) {
      if (d->shndx[s] == 0)
         continue;
      secs[s].shndx = d->shndx[s];
      if (ML_(gdbelf_dwarf_section_problem)(o, d, s, &e) != GDBELF_OK) {
         secs[s].why = ML_(gdbelf_describe_in)(o, &e, sec_why_text[s],
                                               sizeof(sec_why_text[s]));
         continue;
      }
      (void)ML_(gdbelf_section)(o, d->shndx[s], &sec);
      secs[s].size = sec.size;
      secs[s].off  = total;
      secs[s].addr = ML_(gdbelf_dwarf_addr)(o, d, d->shndx[s], code_lo);
      total += VG_ROUNDUP(sec.size + SEC_PADDING, 8);
   }
   return total;
}

/* A copy of the sections placed in secs (total bytes, and padding), with
   the relocations readgdbelf-dwarf.c accepts applied; a section whose
   relocations are refused gets its why.  The caller frees it. */
static UChar* copy_and_relocate ( GdbElfObject* o, const GdbElfDwarf* d,
                                  const UChar* img, Addr code_lo,
                                  ULong total, /*MOD*/CopiedSec* secs )
{
   GdbElfError   e;
   GdbElfSection sec;
   ApplyArgs     aa;
   UWord         s;
   UChar*        buf = ML_(dinfo_zalloc)("di.jitgdbdwarf.buf",
                                         total + SEC_PADDING);
   for (s = 0; s < N_SECS; s++) {
      if (secs[s].shndx == 0 || secs[s].why != NULL)
         continue;
      (void)ML_(gdbelf_section)(o, secs[s].shndx, &sec);
      VG_(memcpy)(buf + secs[s].off, img + sec.offset, secs[s].size);
   }
   aa.buf  = buf;
   aa.secs = secs;
   for (s = 0; s < N_SECS; s++) {
      if (secs[s].shndx == 0 || secs[s].why != NULL)
         continue;
      if (ML_(gdbelf_dwarf_relocations)(o, d, s, code_lo, apply_one, &aa,
                                        &e) != GDBELF_OK)
         secs[s].why = ML_(gdbelf_describe_in)(o, &e, sec_why_text[s],
                                               sizeof(sec_why_text[s]));
   }
   return buf;
}

void ML_(jit_gdb_dwarf_read) ( const UChar* img, ULong n,
                               Addr code_lo, Addr code_hi,
                               const HChar* objname,
                               /*OUT*/GdbDwarf* out )
{
   GdbElfObject      o;
   GdbElfDwarf       d;
   CopiedSec         secs[N_SECS];
   UChar*            buf;
   ULong             total;
   UWord             s;
   DiImage*          dimg;
   Bool              want_lines, want_cfi, want_inl = False;

   VG_(memset)(out, 0, sizeof(*out));
   VG_(memset)(secs, 0, sizeof(secs));
   if (code_lo >= code_hi)
      return;
   /* The object was accepted by jitgdb.c's parse_object. */
   if (ML_(gdbelf_open)(&o, img, n, NULL, NULL) != GDBELF_OK)
      return;
   ML_(gdbelf_dwarf_sections)(&o, &d);
   total = place_sections(&o, &d, code_lo, secs);
   want_lines = d.want_lines;
   want_cfi   = d.cfi >= 0;
   if (!want_lines && !want_cfi)
      return;

   buf  = copy_and_relocate(&o, &d, img, code_lo, total, secs);
   dimg = ML_(img_from_memory)((Addr)buf, total + SEC_PADDING, objname);
   if (want_lines) {
      static const UWord line_secs[] = { SEC_INFO, SEC_ABBREV, SEC_LINE,
                                         SEC_STR, SEC_LINE_STR };
      for (s = 0; s < sizeof(line_secs) / sizeof(line_secs[0])
                  && out->lines_why == NULL; s++)
         out->lines_why = secs[line_secs[s]].why;
      if (out->lines_why == NULL)
         out->lines_why = read_lines(dimg, secs, code_lo, code_hi,
                                     objname, &out->lines);
   }
   if (want_lines && out->lines_why == NULL && VG_(clo_read_inline_info))
      want_inl = True;
   read_kept(dimg, secs, buf, want_cfi, want_inl, code_lo, code_hi,
             objname, &out->kept, &out->cfi_why, &out->inl_why);
   ML_(img_done)(dimg);
   ML_(dinfo_free)(buf);
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
   out = ML_(dinfo_zalloc)("di.jitgdbdwarf.fnlines",
                           n * sizeof(JitSrcLine));
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
