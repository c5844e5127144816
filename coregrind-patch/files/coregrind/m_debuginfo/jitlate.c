
/*--------------------------------------------------------------------*/
/*--- Names that arrive late: producer files read at client exit.  ---*/
/*---                                                    jitlate.c ---*/
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

/* Producers buffer what they write (CPython 3.13's jitdump writer, V8's
   4 KiB blocks) or write their perf map only at exit (HotSpot's
   -XX:+DumpPerfMapAtExit), so many names reach the files after the code
   they describe ran.  When the client has exited, and before the tool
   writes its results (tool_fini), the core reads every followed file to
   its end and opens a perf map that appeared only now.

   Registrations made then differ from those made while the client runs:

   - No translation is discarded.  Nothing runs any more, and a discard
     would make Callgrind freeze the source positions of the discarded
     blocks as they are now, without the names that just arrived.
   - A function that replaces nothing is valid from the first epoch on
     (first_epoch 0): stack traces recorded while it ran, before its name
     arrived (Memcheck's leak check, origins), are described with it.  A
     function that replaces another one at exit is valid only from now
     on, so earlier code is never described with a name it did not have.

   Tools that bind names when they write their results (Callgrind at
   dump time, Cachegrind at exit) look them up in the epoch that
   VG_(jit_late_name_epoch) gives: the current one, or, for code the
   runtime freed before it exited (the registry keeps unmapped functions),
   the last epoch in which the address had a function.

   Code reuse.  An address may host several functions in turn, all named
   late.  Tools stamp the code they translate without a name with
   VG_(jit_time_now) (CLOCK_MONOTONIC, the clock jitdump producers stamp
   their records with), note where it is (VG_(jit_note_unnamed_code))
   and ask VG_(jit_late_name_epoch_at) for the function that was at the
   address at that time.  Functions that are replaced, unregistered or
   moved in a page where unnamed code was translated are archived with
   the time their code went (the load time of the code that replaced
   them if known, else the time of the removal), so every function such
   an address had is still known at the end.  The rule, for
   code translated at time t without a name at address a:

   - the candidates are the functions (live and archived) that covered
     a and whose code had not gone by t; code translated without a name
     means no function was registered there at t, so each candidate's
     record was read after t;
   - one candidate: its name (also if its record's timestamp is after t:
     producers that stamp a record when they write it, not when they
     load the code, still name their code);
   - several, all with load times (jitdump CODE_LOAD timestamps that
     are on this clock: the header does not flag an architecture clock,
     and the timestamp is neither 0 nor later than the moment the record
     was read; the registry keeps them for functions whose record was
     read where unnamed code had been translated, which every candidate
     is): the one loaded last at or before t, unless two were
     loaded at that same time, or the translation is still in use and
     another function was loaded at a after t (code that Valgrind does
     not translate again because its bytes did not change, such as the
     same epilogue at the same place, ran for both; a translation
     discarded before, mostly because --smc-check saw its bytes change,
     ran only code of its time);
   - otherwise (perf maps, jitdump files with TSC timestamps, client
     requests: their functions have no load time), the file order and
     read points do not tell which candidate ran: if they all have the
     same name in the same object, that name, else none: the code keeps
     its address name, never a name it may not have had. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_transtab.h"
#include "pub_core_jitreg.h"
#include "pub_core_vki.h"
#include "pub_core_libcproc.h"     /* VG_(clock_gettime) */
#include "pub_core_hashtable.h"
#include "pub_core_aspacemgr.h"    /* VG_(am_find_nsegment) */

#include "priv_misc.h"           /* dinfo_zalloc */
#include "priv_jitreg.h"
#include "priv_jitstore.h"

/* True from the start of VG_(jit_read_producers_at_exit) on. */
Bool ML_(jit_exiting) = False;
/* Functions registered at exit (counted for -v). */
static ULong n_named_at_exit = 0;

void ML_(jit_discard_translations) ( Addr a, ULong len, const HChar* who )
{
   if (ML_(jit_exiting))
      return;   /* nothing runs any more: keep what the tool knows */
   /* Code just emitted never ran: skip the call (and its debug-log
      line), which would find nothing to discard. */
   if (!VG_(may_have_translations)(a, len))
      return;
   VG_(discard_translations)(a, len, who);
}

UInt ML_(jit_first_epoch_for_new) ( Bool replaces_code )
{
   if (ML_(jit_exiting)) {
      n_named_at_exit++;
      if (!replaces_code)
         return 0;
   }
   return VG_(current_DiEpoch)().n;
}

void VG_(jit_read_producers_at_exit) ( void )
{
   if (ML_(jit_exiting))
      return;
   ML_(jit_exiting) = True;
   ML_(jit_read_files_to_end)();
   ML_(jit_catch_up_epoch)();
}

DiEpoch VG_(jit_late_name_epoch) ( Addr a )
{
   DiEpoch ep = VG_(current_DiEpoch)();
   Word    it = -1, k, newest = -1;
   if (ML_(jit_fn_containing)(a).c == NULL) {
      while ((k = ML_(jit_archived_next_covering)(a, &it)) >= 0)
         if (k > newest)
            newest = k;
      if (newest >= 0) {
         /* unmapped since: the epoch it was last valid in */
         ULong gone;
         (void)ML_(jit_archived_nth)(newest, &ep.n, &gone);
      }
   }
   return ep;
}

/* The pages in which tools translated code without a name
   (VG_(jit_note_unnamed_code)), as bits indexed by page number modulo
   UNNAMED_BITS: an alias only makes a function be archived that need
   not be.  NULL until the first note. */
#define UNNAMED_PAGE_SHIFT 12
#define UNNAMED_BITS       (1 << 20)
static UChar* unnamed_pages = NULL;
/* VG_(jit_late_name_epoch_at)'s answers where an address had several
   candidates (counted for -v). */
static ULong n_reuse_by_time = 0, n_reuse_same_name = 0,
             n_reuse_unnamed = 0;

ULong ML_(jit_now) ( void )
{
#  if defined(VGO_linux) || defined(VGO_solaris) || defined(VGO_freebsd)
   struct vki_timespec ts;
   VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
   return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
#  else
   return 0;   /* Darwin: no clock_gettime in the core */
#  endif
}

/* Translations are stamped with the time they were made, for comparison
   with load times (which the client read) and removal times (which
   ML_(jit_now) read when the registry changed).  Where Valgrind does not
   map the vDSO into the client (m_initimg: Linux on x86, amd64, arm and
   arm64), the client reads the clock only through a system call, so a
   load time lies either before the last client system call completed
   or after now.  A clock value read after both the last client system
   call and the last registry change (an epoch) therefore compares with
   every load and removal time as the time now does, and serves every
   translation until the next of either: one clock_gettime system call
   per batch of translations rather than one per translation. */
ULong VG_(jit_time_now) ( void )
{
#  if defined(VGO_linux) \
      && (defined(VGA_x86) || defined(VGA_amd64) \
          || defined(VGA_arm) || defined(VGA_arm64))
   static ULong read_at  = 0;
   static ULong syscalls = 0;
   static UInt  epoch    = 0;
   ULong n  = ML_(jit_client_syscalls);
   UInt  ep = VG_(current_DiEpoch)().n;
   if (read_at == 0 || n != syscalls || ep != epoch) {
      read_at  = ML_(jit_now)();
      syscalls = n;
      epoch    = ep;
   }
   return read_at;
#  else
   return ML_(jit_now)();
#  endif
}

/* The same pages exactly (page numbers, not aliased), for the names
   that arrive after their code was unmapped: a record for memory that
   is not code takes a name only where code ran unnamed, and aliases of
   the bitmap would let records for memory that never held code do so.
   A page is looked up once per run of notes in other pages. */
static VgHashTable* unnamed_page_set = NULL;   /* of VgHashNode */
static UWord        last_noted_page  = ~(UWord)0;

void VG_(jit_note_unnamed_code) ( Addr a )
{
   UWord pg = a >> UNNAMED_PAGE_SHIFT;
   UWord b  = pg & (UNNAMED_BITS - 1);
   if (UNLIKELY(unnamed_pages == NULL)) {
      unnamed_pages = ML_(dinfo_zalloc)("di.jitlate.unnamed",
                                        UNNAMED_BITS / 8);
      unnamed_page_set = VG_(HT_construct)("di.jitlate.unnamed_set");
   }
   unnamed_pages[b >> 3] |= (UChar)(1 << (b & 7));
   if (pg != last_noted_page) {
      last_noted_page = pg;
      if (VG_(HT_lookup)(unnamed_page_set, pg) == NULL) {
         VgHashNode* n = ML_(dinfo_zalloc)("di.jitlate.unnamed_page",
                                           sizeof(VgHashNode));
         n->key = pg;
         VG_(HT_add_node)(unnamed_page_set, n);
      }
   }
}

Bool ML_(jit_ran_unnamed_exactly) ( Addr a, SizeT len )
{
   UWord lo, hi, pg;
   if (unnamed_page_set == NULL || len == 0)
      return False;
   lo = a >> UNNAMED_PAGE_SHIFT;
   hi = (a + len - 1) >> UNNAMED_PAGE_SHIFT;
   for (pg = lo; pg <= hi; pg++)
      if (VG_(HT_lookup)(unnamed_page_set, pg) != NULL)
         return True;
   return False;
}

Bool ML_(jit_ran_unnamed) ( Addr a, SizeT len )
{
   Addr lo, hi, pg;
   if (unnamed_pages == NULL || len == 0)
      return False;
   lo = a >> UNNAMED_PAGE_SHIFT;
   hi = (a + len - 1) >> UNNAMED_PAGE_SHIFT;
   if (hi - lo >= UNNAMED_BITS)
      return True;
   for (pg = lo; pg <= hi; pg++) {
      UWord b = pg & (UNNAMED_BITS - 1);
      if (unnamed_pages[b >> 3] & (1 << (b & 7)))
         return True;
   }
   return False;
}

/*------------------------------------------------------------*/
/*--- Names of code unmapped before they were read         ---*/
/*------------------------------------------------------------*/

/* Whether no byte of [a, a+len) (not wrapping, len > 0) is executable
   client memory: the code there was unmapped, or its pages now hold
   data.  (Code made not executable for a while, as W^X JITs do while
   they write it, is in a mapping that the registry's check of a code
   range refuses as a whole: it is still refused.) */
static Bool range_holds_no_code ( Addr a, SizeT len )
{
   Addr p = a, last = a + len - 1;
   for (;;) {
      const NSegment* seg = VG_(am_find_nsegment)(p);
      if (seg == NULL)
         return True;
      if (seg->hasX && (seg->kind == SkAnonC || seg->kind == SkFileC
                        || seg->kind == SkShmC))
         return False;
      if (seg->end >= last)
         return True;
      p = seg->end + 1;
   }
}

Bool ML_(jit_is_late_name_for_unmapped) ( const JitRegistration* reg )
{
   return reg->may_name_unmapped
          && ML_(jit_ran_unnamed)(reg->start, reg->size)
          && ML_(jit_first_intersecting)(reg->start, reg->size).c == NULL
          && range_holds_no_code(reg->start, reg->size)
          && ML_(jit_ran_unnamed_exactly)(reg->start, reg->size);
}

void ML_(jit_archive_late_name) ( const JitRegistration* reg,
                                  JitNameId name, JitObject* obj,
                                  JitLineTab* lines )
{
   JitFn f;
   UInt  now = VG_(current_DiEpoch)().n;
   f.start       = reg->start;
   f.size        = (UInt)reg->size;
   f.first_epoch = ML_(jit_archived_overlaps)(reg->start, reg->size)
                   ? now : 0;
   f.name        = name;
   f.obj         = obj->index;
   f.has_extra   = 0;   /* set by the archive */
   f.archived    = 0;
   ML_(jit_archive_fn)(&f, lines, reg->loaded, now, ML_(jit_now)());
   /* Lookups of the code's addresses in the epochs it now has a name in
      found none before: forget those cached answers. */
   ML_(invalidate_sym_name_cache_for_jit)();
   ML_(advance_current_DiEpoch_for_jit)();
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: late name %#lx-%#lx %s (%s), %u lines, for code "
                "unmapped before its record was read\n", reg->start,
                reg->start + reg->size, ML_(jit_name_str)(name), obj->name,
                lines ? lines->n_lines : 0);
}

/*------------------------------------------------------------*/
/*--- Code reuse                                           ---*/
/*------------------------------------------------------------*/

/* One function an address had, as VG_(jit_late_name_epoch_at) weighs
   it. */
typedef
   struct {
      JitFn fn;          /* a copy */
      Bool  live;
      UInt  last_epoch;  /* archived ones */
      ULong loaded;      /* ML_(jit_fn_loaded) of the original */
   }
   Candidate;

static Bool same_function ( const JitFn* f, const JitFn* g )
{
   return f->obj == g->obj
          && VG_(strcmp)(ML_(jit_name_str)(f->name),
                         ML_(jit_name_str)(g->name)) == 0;
}

/* An epoch in which lookups of a describe c's function. */
static Bool epoch_of ( const Candidate* c, Addr a, /*OUT*/DiEpoch* ep )
{
   UInt tries[2];
   Int  k;
   if (c->live) {
      *ep = VG_(current_DiEpoch)();
      return True;
   }
   tries[0] = c->last_epoch;
   tries[1] = c->fn.first_epoch;
   for (k = 0; k < 2; k++) {
      DiEpoch      e;
      const JitFn* g;
      e.n = tries[k];
      g = ML_(jit_fn_for_lookup)(e, a);
      if (g != NULL && g->start == c->fn.start && g->name == c->fn.name
          && g->first_epoch == c->fn.first_epoch) {
         *ep = e;
         return True;
      }
   }
   return False;
}

/* The next function (live or archived) that covered a, after the one
   *i stood for: archived ones, newest start first, then the live one.
   Start with *i = -1 (ML_(jit_archived_next_covering)'s start); -2
   once the live one was looked at. */
static Bool next_candidate ( Addr a, /*MOD*/Word* i, /*OUT*/Candidate* c,
                             /*OUT*/ULong* gone )
{
   if (*i != -2) {
      Word     k = ML_(jit_archived_next_covering)(a, i);
      JitFnPos p;
      if (k >= 0) {
         const JitFn* f = ML_(jit_archived_nth)(k, &c->last_epoch, gone);
         c->fn     = *f;
         c->loaded = ML_(jit_fn_loaded)(f);
         c->live   = False;
         return True;
      }
      p  = ML_(jit_fn_containing)(a);
      *i = -2;   /* done */
      if (p.c != NULL) {
         c->fn     = *ML_(jit_fn_at)(p);
         c->loaded = ML_(jit_fn_loaded)(ML_(jit_fn_at)(p));
         c->live   = True;
         c->last_epoch = 0;
         *gone = 0;
         return True;
      }
   }
   return False;
}

Bool VG_(jit_late_name_epoch_at) ( Addr a, ULong when, Bool still_translated,
                                   /*OUT*/DiEpoch* ep )
{
   Candidate best, first, c;
   Word      i = -1;
   ULong     gone;
   UInt      n_all = 0, n_left = 0;
   Bool      all_timed = True, same_name = True, have_best = False;
   Bool      tie = False;

   VG_(memset)(&best, 0, sizeof(best));
   VG_(memset)(&first, 0, sizeof(first));
   while (next_candidate(a, &i, &c, &gone)) {
      n_all++;
      /* Its code had gone before the code at a was translated. */
      if (when != 0 && gone != 0 && gone <= when)
         continue;
      if (n_left == 0)
         first = c;
      else if (!same_function(&first.fn, &c.fn))
         same_name = False;
      n_left++;
      if (c.loaded == 0) {
         all_timed = False;
      } else if (when != 0 && c.loaded <= when) {
         if (!have_best || c.loaded > best.loaded) {
            best = c;
            have_best = True;
            tie = False;
         } else if (c.loaded == best.loaded
                    && !same_function(&best.fn, &c.fn)) {
            tie = True;
         }
      }
   }

   if (n_left == 0)
      return False;
   if (n_left == 1) {
      if (!epoch_of(&first, a, ep))
         return False;
      if (n_all > 1)
         n_reuse_by_time++;   /* the others' code had gone by then */
      return True;
   }
   if (all_timed && have_best && !tie && still_translated) {
      /* A translation still in use may also have run code loaded
         later, if that code has the same bytes there: only if no other
         function was loaded at a since is it best's alone. */
      i = -1;
      while (next_candidate(a, &i, &c, &gone))
         if (c.loaded > when && !same_function(&best.fn, &c.fn)) {
            have_best = False;
            break;
         }
   }
   if (all_timed && have_best && !tie) {
      if (!epoch_of(&best, a, ep)) {
         n_reuse_unnamed++;
         return False;
      }
      n_reuse_by_time++;
      return True;
   }
   if (same_name && epoch_of(&first, a, ep)) {
      n_reuse_same_name++;
      return True;
   }
   n_reuse_unnamed++;
   return False;
}

void ML_(jit_print_late_summary) ( void )
{
   if (VG_(clo_verbosity) < 2)
      return;
   if (ML_(jit_exiting))
      VG_(umsg)("JIT: %llu functions named at exit (from producer files "
                "read to their end)\n", n_named_at_exit);
   if (n_reuse_by_time + n_reuse_same_name + n_reuse_unnamed > 0)
      VG_(umsg)("JIT: code that ran unnamed where an address had several "
                "functions: %llu pieces named by load time, %llu by a name "
                "they all had, %llu left unnamed (the producer files do "
                "not tell which function ran)\n", n_reuse_by_time,
                n_reuse_same_name, n_reuse_unnamed);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
