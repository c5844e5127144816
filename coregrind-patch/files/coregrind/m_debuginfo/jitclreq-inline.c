/*--------------------------------------------------------------------*/
/*--- JIT code registry: a client request's unwind description     ---*/
/*--- and inline table, checked and read.        jitclreq-inline.c ---*/
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

/* VALGRIND_JIT_REGISTER_CODE's descriptor may carry an unwind
   description (.eh_frame bytes or a frame shape) and a table of inlined
   calls.  Both are copied once from client memory, checked by the rules
   of valgrind/jit.h (VG_JIT_ERR_BAD_UNWIND, VG_JIT_ERR_BAD_INLINE) and
   read into one DebugInfo for the CFI store (jitcfi.c), which
   jitclreq.c hands over once the code is registered. */

#include "pub_core_basics.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_jitreg.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitreg.h"
#include "priv_jitcfi.h"         /* unwind information, inlined calls */
#include "priv_jitclreq.h"       /* self */

/* Reads the unwind description of descriptor d (unwind_kind not
   VG_JIT_UNWIND_NONE) into di, a DebugInfo being read for the code of
   its r-x mapping; False and *why if it is refused. */
static Bool unwind_from_client ( const VgJitCode* d, DebugInfo* di,
                                 /*OUT*/const HChar** why )
{
   Addr eh = (Addr)d->eh_frame;
   switch (d->unwind_kind) {
      case VG_JIT_UNWIND_EH_FRAME:
         if (d->eh_frame_size == 0 || d->eh_frame_size > VG_JIT_MAX_EH_FRAME) {
            *why = ML_(jit_why_printf)("eh_frame_size is %lu bytes, not 1"
                                       " to %lu (VG_JIT_MAX_EH_FRAME)",
                                       (UWord)d->eh_frame_size,
                                       (UWord)VG_JIT_MAX_EH_FRAME);
            return False;
         }
         if (!ML_(jit_client_readable)(eh, d->eh_frame_size)) {
            *why = ML_(jit_why_printf)("eh_frame (%#lx, %lu bytes) is not"
                                       " readable client memory", eh,
                                       (UWord)d->eh_frame_size);
            return False;
         }
         return ML_(jit_cfi_read_eh_frame)(
                   di, (const UChar*)eh, d->eh_frame_size,
                   d->eh_frame_addr ? (Addr)d->eh_frame_addr : eh, why);
      case VG_JIT_UNWIND_FRAME_POINTER:
      case VG_JIT_UNWIND_FIXED_FRAME:
         return ML_(jit_cfi_read_shape)(di, d->unwind_kind,
                                        d->prologue_size, d->ra_offset,
                                        d->fp_offset, why);
      default:
         *why = ML_(jit_why_printf)("unknown unwind_kind %lu",
                                    (UWord)d->unwind_kind);
         return False;
   }
}
/* An entry of a client's inline table, copied and checked. */
typedef
   struct {
      UWord        lo, hi;    /* offsets in the code, lo < hi */
      UWord        parent;    /* VG_JIT_INLINE_TOP or an earlier index */
      UInt         depth;     /* 1 for a call inlined into the code's
                                 own function */
      const HChar* name;      /* client memory, checked */
      const HChar* file;      /* client memory, checked; or NULL */
      UInt         line;
   }
   InlEntry;

/* Orders inline entries by parent, then by start, so that overlapping
   siblings are neighbours. */
static Int cmp_inl_entry ( const void* aV, const void* bV )
{
   const InlEntry* a = aV;
   const InlEntry* b = bV;
   if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
   if (a->lo != b->lo)         return a->lo < b->lo ? -1 : 1;
   return 0;
}

/* Whether s (client memory, checked by ML_(jit_client_string)) is text a frame
   may show: not empty, well-formed UTF-8 without control characters. */
static Bool inl_text_ok ( const HChar* s )
{
   return s[0] != 0 && ML_(jit_text_is_clean)(s, VG_(strlen)(s));
}

/* Nests entry t (number i) in its parent p (number parent): its range
   inside the parent's, at most VG_JIT_MAX_INLINE_DEPTH deep.  False and
   *why if it is not. */
static Bool nest_inline_entry ( InlEntry* t, const InlEntry* p, UWord i,
                                UWord parent, /*OUT*/const HChar** why )
{
   if (t->lo < p->lo || t->hi > p->hi) {
      *why = ML_(jit_why_printf)("entry %lu: its range (offset %lu, %lu"
                                 " bytes) is not inside its parent's (entry"
                                 " %lu)", i, t->lo, t->hi - t->lo, parent);
      return False;
   }
   if (p->depth >= VG_JIT_MAX_INLINE_DEPTH) {
      *why = ML_(jit_why_printf)("entry %lu: inlined calls nest deeper than %lu"
                                 " (VG_JIT_MAX_INLINE_DEPTH)", i,
                                 (UWord)VG_JIT_MAX_INLINE_DEPTH);
      return False;
   }
   t->depth = p->depth + 1;
   return True;
}

/* Checks entry i of a client's inline table, e (copied from the client
   once), for the code of size bytes, and fills tab[i] from it (entries
   before it are checked already): the rules of VG_JIT_ERR_BAD_INLINE in
   valgrind/jit.h.  A call_file NULL means default_file.  False and
   *why if it breaks one. */
static Bool inline_entry_from_client ( const VgJitInline* e, UWord i,
                                       InlEntry* tab, UWord size,
                                       const HChar* default_file,
                                       /*OUT*/const HChar** why )
{
   InlEntry* t = &tab[i];
   if (e->size == 0 || e->offset >= size || e->size > size - e->offset) {
      *why = ML_(jit_why_printf)("entry %lu: its range (offset %lu, %lu bytes)"
                                 " is empty or not inside the code (%lu bytes)",
                                 i, (UWord)e->offset, (UWord)e->size, size);
      return False;
   }
   if (!ML_(jit_client_string)((Addr)e->name, False, &t->name)
       || !inl_text_ok(t->name)) {
      *why = ML_(jit_why_printf)("entry %lu: the inlined function's name is"
                                 " unreadable, empty, longer than %d bytes or"
                                 " not clean text", i, VG_JIT_MAX_STRING);
      return False;
   }
   if (!ML_(jit_client_string)((Addr)e->call_file, True, &t->file)
       || (t->file != NULL && !inl_text_ok(t->file))) {
      *why = ML_(jit_why_printf)("entry %lu: the inlined call's file is"
                                 " unreadable, empty, longer than %d bytes or"
                                 " not clean text", i, VG_JIT_MAX_STRING);
      return False;
   }
   if (e->call_line == 0 || e->call_line > VG_JIT_MAX_INLINE_LINE) {
      *why = ML_(jit_why_printf)("entry %lu: the inlined call's line is %lu,"
                                 " not 1 to %lu (VG_JIT_MAX_INLINE_LINE)", i,
                                 (UWord)e->call_line,
                                 (UWord)VG_JIT_MAX_INLINE_LINE);
      return False;
   }
   if (e->parent != VG_JIT_INLINE_TOP && e->parent >= i) {
      *why = ML_(jit_why_printf)("entry %lu: its parent %lu is not an earlier"
                                 " entry", i, (UWord)e->parent);
      return False;
   }
   t->lo     = e->offset;
   t->hi     = e->offset + e->size;
   t->parent = e->parent;
   t->line   = (UInt)e->call_line;
   t->depth  = 1;
   if (t->file == NULL)
      t->file = default_file;
   if (e->parent == VG_JIT_INLINE_TOP)
      return True;
   return nest_inline_entry(t, &tab[e->parent], i, (UWord)e->parent, why);
}

/* Whether two entries of tab[0..n) with the same parent overlap (tab is
   sorted by cmp_inl_entry as a side effect); *why names them. */
static Bool inline_siblings_overlap ( InlEntry* tab, UWord n,
                                      /*OUT*/const HChar** why )
{
   UWord i;
   VG_(ssort)(tab, n, sizeof(InlEntry), cmp_inl_entry);
   for (i = 1; i < n; i++) {
      if (tab[i].parent == tab[i-1].parent && tab[i].lo < tab[i-1].hi) {
         *why = ML_(jit_why_printf)("the inlined ranges at offsets %lu and %lu"
                                    " of the same parent overlap",
                                    tab[i-1].lo, tab[i].lo);
         return True;
      }
   }
   return False;
}

/* Reads the inline table of descriptor d (d->n_inlines > 0) for the
   code [start, start+size) into di (being read): every entry is copied
   once from client memory, then checked (the rules of
   VG_JIT_ERR_BAD_INLINE in valgrind/jit.h).  An entry's call_file NULL
   means the descriptor's file, default_file.  False and *why if the
   table is refused (di then holds part of it). */
static Bool inlines_from_client ( const VgJitCode* d, DebugInfo* di,
                                  Addr start, UWord size,
                                  const HChar* default_file,
                                  /*OUT*/const HChar** why )
{
   const VgJitInline* in = d->inlines;
   UWord              n  = d->n_inlines;
   InlEntry*          tab;
   UWord              i;
   Bool               ok = True;

   if (n > VG_JIT_MAX_INLINES) {
      *why = ML_(jit_why_printf)("n_inlines is %lu, above the limit of %lu"
                                 " (VG_JIT_MAX_INLINES)", n,
                                 (UWord)VG_JIT_MAX_INLINES);
      return False;
   }
   if (!ML_(jit_client_readable)((Addr)in, n * sizeof(VgJitInline))) {
      *why = ML_(jit_why_printf)("inlines (%#lx, %lu entries) is not readable"
                                 " client memory", (Addr)in, n);
      return False;
   }
   tab = ML_(dinfo_zalloc)("di.jitclreq.inlines", n * sizeof(InlEntry));
   for (i = 0; ok && i < n; i++) {
      VgJitInline e = in[i];   /* one read of the client's entry */
      ok = inline_entry_from_client(&e, i, tab, size, default_file, why);
   }
   if (ok) {
      /* Entries in table order are added to di; the sorted copy only
         finds siblings that overlap. */
      for (i = 0; i < n; i++)
         ML_(jit_cfi_add_inlined)(di, start + tab[i].lo, start + tab[i].hi,
                                  tab[i].name, tab[i].file, tab[i].line,
                                  tab[i].depth);
      ok = !inline_siblings_overlap(tab, n, why);
   }
   ML_(dinfo_free)(tab);
   return ok;
}

/* Reads the unwind description and the inline table of desc, which has
   one of them at least, for the code of reg into one DebugInfo for the
   CFI store (*cfi, made here; the caller frees it unless the store takes
   it, also after a refusal).  VG_JIT_OK, or the refusal with *why_out. */
Int ML_(jit_debug_info_from_client) ( const VgJitCode* desc,
                                      const JitRegistration* reg,
                                      /*OUT*/DebugInfo** cfi,
                                      /*OUT*/const HChar** why_out )
{
   if ((*why_out = ML_(jit_bad_range_why)(reg->start, reg->size)) != NULL)
      return VG_JIT_ERR_BAD_RANGE;
   *cfi = ML_(jit_cfi_new_reading_di)(reg->name, reg->start,
                                      reg->start + reg->size);
   if (desc->unwind_kind != VG_JIT_UNWIND_NONE
       && !unwind_from_client(desc, *cfi, why_out)) {
      ML_(jit_cfi_note_refused)();
      return VG_JIT_ERR_BAD_UNWIND;
   }
   if (desc->inlines != NULL && desc->n_inlines > 0
       && !inlines_from_client(desc, *cfi, reg->start, reg->size,
                               reg->file, why_out))
      return VG_JIT_ERR_BAD_INLINE;
   ML_(jit_cfi_finish_reading)(*cfi);
   return VG_JIT_OK;
}

/*--------------------------------------------------------------------*/
/*--- end                                        jitclreq-inline.c ---*/
/*--------------------------------------------------------------------*/
