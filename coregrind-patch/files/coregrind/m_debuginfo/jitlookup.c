/*--------------------------------------------------------------------*/
/*--- JIT code registry: the symbol, line and object lookups that  ---*/
/*--- m_debuginfo makes after no ELF DebugInfo matched.            ---*/
/*---                                                  jitlookup.c ---*/
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

/* Each lookup finds the function describing (epoch, address) and fills
   the one-slot symtab or loctab of its object's synthetic DebugInfo
   (see priv_jitreg.h).  A current-epoch miss in executable client
   memory first reads what the followed producer files appended: a name
   may have arrived since the code was first translated.  Where the
   registry has no function, code that nobody announced is named after
   the code that made it executable (jitcreator.c). */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"   /* VG_(snprintf) */
#include "pub_core_aspacemgr.h"  /* VG_(am_find_nsegment) */
#include "pub_core_demangle.h"   /* VG_(demangle) */
#include "pub_core_options.h"    /* VG_(clo_show_below_main) */

#include "priv_misc.h"
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"        /* DebugInfo, DiSym, DiLoc */
#include "priv_jitreg.h"         /* self */
#include "priv_jitstore.h"
#include "priv_jitcreator.h"
#include "priv_jitkeep.h"         /* ML_(jit_kept_note_lookup) */
#include "priv_jitpending.h"      /* names that wait for their code */

/*------------------------------------------------------------*/
/*--- ELF objects' text                                    ---*/
/*------------------------------------------------------------*/

Bool ML_(jit_overlaps_object_text) ( Addr a, SizeT len )
{
   const DebugInfo* di;
   const NSegment*  seg = VG_(am_find_nsegment)(a);
   /* Anonymous memory holds no object's text: a mapping over an
      object's text discards its DebugInfo (VG_(di_notify_munmap)).  Only
      code in file mappings needs the walk over the DebugInfos. */
   if (seg != NULL && seg->kind == SkAnonC && a + len - 1 <= seg->end)
      return False;
   for (di = VG_(next_DebugInfo)(NULL); di != NULL;
        di = VG_(next_DebugInfo)(di)) {
      Addr  t  = VG_(DebugInfo_get_text_avma)(di);
      SizeT ts = VG_(DebugInfo_get_text_size)(di);
      if (!is_DiEpoch_INVALID(di->last_epoch))
         continue;   /* archived */
      if (ts > 0 && a < t + ts && t < a + len)
         return True;
   }
   return False;
}

void ML_(jit_overlap_text) ( Addr a, SizeT len, HChar* buf, SizeT size )
{
   const DebugInfo* di;
   buf[0] = 0;
   for (di = VG_(next_DebugInfo)(NULL); di != NULL;
        di = VG_(next_DebugInfo)(di)) {
      Addr         t  = VG_(DebugInfo_get_text_avma)(di);
      SizeT        ts = VG_(DebugInfo_get_text_size)(di);
      Addr         at = a > t ? a : t;   /* the first byte in both */
      const HChar* fn;
      if (!is_DiEpoch_INVALID(di->last_epoch) || ts == 0
          || !(a < t + ts && t < a + len))
         continue;
      if (VG_(get_fnname)(VG_(current_DiEpoch)(), at, &fn))
         VG_(snprintf)(buf, size, "%s, function %s at %#lx",
                       VG_(DebugInfo_get_filename)(di), fn, at);
      else
         VG_(snprintf)(buf, size, "%s at %#lx",
                       VG_(DebugInfo_get_filename)(di), at);
      return;
   }
}

Bool ML_(jit_elf_symbols_name) ( Addr a, SizeT len )
{
   Addr ends[2];
   Int  i;
   ends[0] = a;
   ends[1] = a + len - 1;
   for (i = 0; i < 2; i++) {
      /* The ELF object holding the byte, if any (a JIT object's
         synthetic DebugInfo has no text). */
      DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ends[i]);
      if (di != NULL && VG_(DebugInfo_get_text_size)(di) > 0
          && ML_(search_one_symtab)(di, ends[i], True) >= 0)
         return True;
   }
   return False;
}

/*------------------------------------------------------------*/
/*--- The registry's lookups                               ---*/
/*------------------------------------------------------------*/

/* The function describing (ep, a): the live one if it was registered by
   epoch ep, else an archived one valid at ep. */
static const JitFn* find_fn ( DiEpoch ep, Addr a )
{
   JitFnPos p = ML_(jit_fn_containing)(a);

   if (p.c != NULL && ML_(jit_fn_at)(p)->first_epoch <= ep.n)
      return ML_(jit_fn_at)(p);
   /* A producer file may name it by now: outside ELF text, or in text
      where the ELF has no symbol (a stripped executable whose runtime
      names its own code in its perf files: a perf map written just
      before the code runs is read for the first error there).  Not for
      ELF code that merely lacks a line here.  A read happens at most
      once per client syscall (jitfollow.c). */
   if (p.c == NULL && ep.n == VG_(current_DiEpoch)().n
       && ML_(jit_lookup_miss_may_read)()
       && (!ML_(jit_overlaps_object_text)(a, 1)
           || !ML_(jit_elf_symbols_name)(a, 1))
       && ML_(jit_read_on_lookup_miss)(a)) {
      p = ML_(jit_fn_containing)(a);
      if (p.c != NULL && ML_(jit_fn_at)(p)->first_epoch <= ep.n)
         return ML_(jit_fn_at)(p);
   }
   /* A name that waited for its code, which became executable without
      an mmap or mprotect the core saw. */
   if (p.c == NULL && UNLIKELY(ML_(jit_n_pending) > 0)
       && ep.n == VG_(current_DiEpoch)().n
       && ML_(jit_pending_on_lookup_miss)(a)) {
      p = ML_(jit_fn_containing)(a);
      if (p.c != NULL && ML_(jit_fn_at)(p)->first_epoch <= ep.n)
         return ML_(jit_fn_at)(p);
   }
   /* Only lookups for an epoch older than the live function (errors
      recorded before the code changed) get here. */
   return ML_(jit_find_archived)(ep, a);
}

const JitFn* ML_(jit_fn_for_lookup) ( DiEpoch ep, Addr a )
{
   return find_fn(ep, a);
}

/* Fills the one-slot symtab of obj's DebugInfo with a function. */
static DebugInfo* fill_symtab ( UInt obj, Addr start, SizeT size,
                                const HChar* name )
{
   DebugInfo* di  = ML_(jit_object_at)(obj)->di;
   DiSym*     sym = &di->symtab[0];
   VG_(memset)(sym, 0, sizeof(*sym));
   sym->avmas.main = start;
   sym->pri_name   = name;
   /* A range may be larger than a symbol can say. */
   sym->size       = size > 0xFFFFFFFFUL ? 0xFFFFFFFFU : (UInt)size;
   sym->isText     = True;
   sym->isGlobal   = True;
   return di;
}

Bool ML_(jit_search_symtab) ( DiEpoch ep, Addr a,
                              /*OUT*/DebugInfo** pdi, /*OUT*/Word* symno )
{
   const JitFn* f = find_fn(ep, a);
   if (f != NULL) {
      ML_(jit_kept_note_lookup)(ep, f, a);
      *pdi = fill_symtab(f->obj, f->start, f->size,
                         ML_(jit_name_str)(f->name));
   } else {
      Addr start;
      SizeT size;
      const HChar* name;
      UInt obj;
      if (!ML_(jit_creator_search)(ep, a, &start, &size, &name, &obj))
         return False;
      *pdi = fill_symtab(obj, start, size, name);
   }
   *symno = 0;
   return True;
}

Bool ML_(jit_search_loctab) ( DiEpoch ep, Addr a,
                              /*OUT*/DebugInfo** pdi, /*OUT*/Word* locno )
{
   const JitFn*      f = find_fn(ep, a);
   const JitLineTab* t;
   DebugInfo*        di;
   UInt   off, lo, hi, end;
   DiLoc* loc;

   if (f == NULL || (t = ML_(jit_fn_lines)(f)) == NULL)
      return False;
   ML_(jit_kept_note_lookup)(ep, f, a);
   off = (UInt)(a - f->start);
   if (off < t->lines[0].offset)
      return False;
   /* The last entry whose offset is <= off. */
   lo = 0;
   hi = t->n_lines;
   while (hi - lo > 1) {
      UInt mid = lo + (hi - lo) / 2;
      if (t->lines[mid].offset <= off) lo = mid; else hi = mid;
   }
   end = lo + 1 < t->n_lines ? t->lines[lo + 1].offset : f->size;

   di  = ML_(jit_object_at)(f->obj)->di;
   loc = &di->loctab[0];
   loc->addr   = f->start + t->lines[lo].offset;
   loc->size   = end - t->lines[lo].offset > MAX_LOC_SIZE
                    ? MAX_LOC_SIZE : end - t->lines[lo].offset;
   loc->lineno = t->lines[lo].line;
   ((UInt*)di->loctab_fndn_ix)[0] = t->lines[lo].fndn_ix;
   *pdi   = di;
   *locno = 0;
   return True;
}

DebugInfo* ML_(jit_find_DebugInfo) ( DiEpoch ep, Addr a )
{
   const JitFn* f = find_fn(ep, a);
   Addr         start;
   SizeT        size;
   const HChar* name;
   UInt         obj;
   if (f != NULL)
      return ML_(jit_object_at)(f->obj)->di;
   if (ML_(jit_creator_search)(ep, a, &start, &size, &name, &obj))
      return ML_(jit_object_at)(obj)->di;
   return NULL;
}

const HChar* ML_(jit_shown_fnname) ( const HChar* raw )
{
   const HChar* shown;
   VG_(demangle)(True/*C++*/, True/*Z*/, raw, &shown);
   if (!VG_(clo_show_below_main)
       && VG_(get_fnname_kind)(shown) == Vg_FnNameBelowMain)
      shown = "(below main)";
   return shown;
}

/* One look-up of the function for the name and one for the line, where
   VG_(find_DebugInfo), VG_(get_fnname) and VG_(get_filename_linenum)
   would each search every object's tables first (about 2,700
   instructions a function of late-named code under Callgrind). */
Bool VG_(jit_get_fnname_linenum) ( DiEpoch ep, Addr a,
                                   /*OUT*/DebugInfo** pdi,
                                   /*OUT*/const HChar** fnname,
                                   /*OUT*/const HChar** filename,
                                   /*OUT*/const HChar** dirname,
                                   /*OUT*/UInt* line )
{
   DebugInfo* di;
   Word       sno, locno;

   if (!ML_(jit_search_symtab)(ep, a, &di, &sno))
      return False;
   *pdi    = di;
   *fnname = ML_(jit_shown_fnname)(di->symtab[sno].pri_name);
   if (ML_(jit_search_loctab)(ep, a, &di, &locno)) {
      UInt fndn_ix = ML_(fndn_ix)(di, locno);
      *filename = ML_(fndn_ix2filename)(di, fndn_ix);
      *dirname  = ML_(fndn_ix2dirname)(di, fndn_ix);
      *line     = di->loctab[locno].lineno;
   } else {
      *filename = "???";
      *dirname  = "";
      *line     = 0;
   }
   return True;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
