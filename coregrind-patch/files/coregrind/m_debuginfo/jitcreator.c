/*--------------------------------------------------------------------*/
/*--- JIT code nobody announces, named after the code that made it ---*/
/*--- executable.                                     jitcreator.c ---*/
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

/* Most JITs announce nothing: PCRE2's (sljit) in grep -P, PHP's preg_*
   and GLib's GRegex, LuaJIT as distributions build it, libffi's
   closures.  Valgrind still sees the system call that made their
   memory executable, and the stack of the code that asked.

   When the client makes anonymous or shared memory executable (mmap,
   mprotect, pkey_mprotect, mremap), or maps a file that is not an ELF
   object with execute permission (a memfd, a file in /dev/shm), the
   range gets a creator from the running thread's stack: the first
   frame outside the C library, the dynamic linker and Valgrind's
   preload libraries.  Its function names the code (or, when that frame
   has no symbol, as in a stripped library's static functions, the
   first frame further down in the same object that has one; or else
   the object's file name; or the object's file name too when that
   function is memory management, is_memory_routine, as a large
   runtime's page allocator is), and its object names the object:

      function "[JIT code of pcre2_jit_compile_8]"
      object   "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2[jit]"

   so that Memcheck prints "at 0x...: [JIT code of pcre2_jit_compile_8]
   (in /usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2[jit])", and both
   a suppression's "obj:*libpcre2-8.so*" and its "fun:[JIT code of
   pcre2_jit_compile_8]" match the frame.  The whole range is one
   function: nothing tells where one piece of unannounced code ends.

   Code of a file.  A file of compiled code a program ships and maps
   executable, that is no ELF object (SBCL's sbcl.core, the images of
   Smalltalk, Lisp and Scheme systems), names its own code: a regular
   file, not a memfd, not in /dev/shm, not deleted, and not modified
   since the program started (else the program wrote it: JIT code) gets
   the creator "[code of sbcl.core]" in the object "/usr/lib/sbcl/
   sbcl.core", whatever the stack, so every tool names the code after
   its file, as stock Memcheck's "??? (in /usr/lib/sbcl/sbcl.core)" did.

   What wins.  Announced names always do: jitlookup.c asks here only
   after the registry (client requests, jitdump, perf map, GDB JIT
   interface) has no function at the address.  Tools that bind names
   when they write their results (Callgrind at every dump, Cachegrind
   at exit) call VG_(jit_defer_creator_names) when they start: the
   lookups then never give creator names, so the code stays unnamed
   while it runs, keeps its per-translation functions, and takes a name
   that arrives late as code without a creator does; only where no late
   name reaches it does the tool ask VG_(jit_creator_name_at) for its
   creator name, for the range that covered the address when the code
   was translated, and only where no producer ever named code at the
   address (where one did but the binding could not tell which function
   ran, the code keeps its address name).

   Lifetime.  A range keeps its creator while it stays mapped: a W^X
   JIT that flips its pages between writable and executable keeps the
   creator of the first flip, and costs one stack trace per range, not
   one per mprotect.  A new mapping over it (mmap) gets a new creator;
   munmap ends it; mremap moves it.  Ranges that ended where a tool
   translated code without a name are archived with the time they
   ended, for VG_(jit_creator_name_at); at most MAX_ARCHIVED of them
   (the oldest go first), after which such code keeps its address
   name.

   Cost.  One segment lookup per mmap or mprotect that makes nothing
   executable; per range that gets a creator, a stack trace of at most
   N_CREATOR_IPS frames and a name lookup per frame walked, and no
   stack trace at all for a range that already has a creator.  A
   creator that the two innermost frames decide is remembered by their
   addresses (jitcreatorname.c): the same call site again costs no
   stack trace and no name lookup.

   This file keeps the ranges and answers the lookups; jitcreatorname.c
   finds the creators. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcfile.h"
#include "pub_core_libcproc.h"     /* VG_(gettimeofday) */
#include "pub_core_aspacemgr.h"
#include "pub_core_options.h"
#include "pub_core_oset.h"
#include "pub_core_xarray.h"
#include "pub_core_stacktrace.h"
#include "pub_core_machine.h"      /* VG_(get_IP), VG_(get_SP) */
#include "pub_core_threadstate.h"
#include "pub_core_jitreg.h"

#include "priv_misc.h"           /* dinfo_zalloc, dinfo_free, dinfo_strdup */
#include "priv_jitreg.h"
#include "priv_jitstore.h"       /* ML_(jit_object_get) */
#include "priv_jitcreator.h"     /* self */

/* Ranges archived for the tools' late binding, at most. */
#define MAX_ARCHIVED  65536

/* A live range: [start, last] (inclusive) with its creator. */
typedef
   struct {
      Addr  start;         /* the OSet key */
      Addr  last;
      UInt  creator;       /* ML_(jit_creator_get) index */
      UInt  first_epoch;   /* lookups in older epochs do not see it */
      ULong made;          /* ML_(jit_now) when it got its creator, if
                              a tool binds late (else 0) */
   }
   LiveRange;

/* A range that ended where code ran unnamed. */
typedef
   struct {
      Addr  start, last;
      UInt  creator;
      ULong made, gone;    /* ML_(jit_now) clock; made 0: unknown */
   }
   ArchivedRange;

static OSet*   live     = NULL;   /* of LiveRange, by start */
static XArray* archived = NULL;   /* of ArchivedRange, oldest first */
static Bool    deferred = False;  /* VG_(jit_defer_creator_names) */
/* Wall-clock seconds when the first mapping was seen (the program's
   start, near enough): files modified since were written by it. */
static ULong   started_sec = 0;

static struct {
   ULong ranges;        /* ranges that got a creator */
   ULong ended;         /* ranges (or parts) unmapped or replaced */
   ULong moved;         /* parts moved by mremap */
   ULong archive_full;  /* archived ranges dropped, oldest first */
} stats;

/*------------------------------------------------------------*/
/*--- Ranges                                               ---*/
/*------------------------------------------------------------*/

/* OSet comparison: an address against a range (equal when inside). */
static Word cmp_addr_range ( const void* key, const void* elem )
{
   Addr a = *(const Addr*)key;
   const LiveRange* r = elem;
   if (a < r->start) return -1;
   if (a > r->last)  return 1;
   return 0;
}

static void init ( void )
{
   struct vki_timeval tv;
   if (live != NULL)
      return;
   if (VG_(gettimeofday)(&tv, NULL) == 0)
      started_sec = (ULong)tv.tv_sec;
   /* Nodes from a pool: a JIT that maps a page per function makes and
      ends a range per function. */
   live = VG_(OSetGen_Create_With_Pool)(offsetof(LiveRange, start),
                                        cmp_addr_range, ML_(dinfo_zalloc),
                                        "di.jitcreator.live", ML_(dinfo_free),
                                        256, sizeof(LiveRange));
   archived = VG_(newXA)(ML_(dinfo_zalloc), "di.jitcreator.archived",
                         ML_(dinfo_free), sizeof(ArchivedRange));
}

/* first_epoch 0: a new range, stamped by stamp_epoch once the epoch has
   advanced; a part kept from an older range keeps that range's. */
static void add_live ( Addr start, Addr last, UInt creator, ULong made,
                       UInt first_epoch )
{
   LiveRange* r = VG_(OSetGen_AllocNode)(live, sizeof(LiveRange));
   r->start       = start;
   r->last        = last;
   r->creator     = creator;
   r->first_epoch = first_epoch;
   r->made        = made;
   VG_(OSetGen_Insert)(live, r);
}

static void archive ( const LiveRange* r, Addr start, Addr last, ULong now )
{
   ArchivedRange ar;
   if (!ML_(jit_ran_unnamed)(start, last - start + 1))
      return;   /* no tool translated code there without a name */
   if (VG_(sizeXA)(archived) >= MAX_ARCHIVED) {
      VG_(removeIndexXA)(archived, 0);
      stats.archive_full++;
   }
   ar.start   = start;
   ar.last    = last;
   ar.creator = r->creator;
   ar.made    = r->made;
   ar.gone    = now;
   VG_(addToXA)(archived, &ar);
}

/* Ends the creator of every part of [a, last] that has one; the parts
   of ranges outside it keep theirs.  Returns how many ranges were cut. */
static UInt end_ranges ( Addr a, Addr last )
{
   LiveRange  copies[8];
   UInt       n, i, total = 0;
   ULong      now = deferred ? ML_(jit_now)() : 0;

   do {
      LiveRange* r;
      /* Collect a few, then change the set (no change while iterating). */
      n = 0;
      VG_(OSetGen_ResetIterAt)(live, &a);
      while (n < 8 && (r = VG_(OSetGen_Next)(live)) != NULL
             && r->start <= last) {
         if (r->last >= a)
            copies[n++] = *r;
      }
      for (i = 0; i < n; i++) {
         LiveRange  c = copies[i];
         Addr       lo = c.start < a ? a : c.start;
         Addr       hi = c.last > last ? last : c.last;
         LiveRange* gone = VG_(OSetGen_Remove)(live, &c.start);
         vg_assert(gone != NULL);
         VG_(OSetGen_FreeNode)(live, gone);
         if (deferred)
            archive(&c, lo, hi, now);
         if (c.start < lo)
            add_live(c.start, lo - 1, c.creator, c.made, c.first_epoch);
         if (c.last > hi)
            add_live(hi + 1, c.last, c.creator, c.made, c.first_epoch);
         total++;
      }
   } while (n == 8);
   stats.ended += total;
   return total;
}

/*------------------------------------------------------------*/
/*--- What the client maps                                 ---*/
/*------------------------------------------------------------*/

/* Whether the file mapped by seg may hold code nobody describes: a
   memfd or a deleted file (which the ELF reader cannot open), or a
   file that does not start with the ELF magic. */
static Bool file_may_hold_jit_code ( const NSegment* seg )
{
   const HChar* fname = VG_(am_get_filename)(seg);
   SysRes       fd;
   UChar        magic[4];
   Int          got;

   if (fname == NULL)
      return True;
   if (ML_(jit_has_prefix)(fname, "/memfd:") || ML_(jit_has_prefix)(fname, "/dev/shm/"))
      return True;
   fd = VG_(open)(fname, VKI_O_RDONLY, 0);
   if (sr_isError(fd))
      return False;   /* no way to tell: assume an object */
   got = VG_(read)(sr_Res(fd), magic, sizeof(magic));
   VG_(close)(sr_Res(fd));
   return got != (Int)sizeof(magic)
          || magic[0] != 0x7F || magic[1] != 'E' || magic[2] != 'L'
          || magic[3] != 'F';
}

/* The creator of a file mapping of code that is the file's own (an
   image of compiled code a program ships, as SBCL's sbcl.core): a
   regular file, not a memfd, not in /dev/shm, not deleted, and not
   modified since the program started (a JIT that writes its code to a
   file of its own and maps it is a JIT: -1). */
static Int file_creator ( const NSegment* seg )
{
   const HChar*   fname = VG_(am_get_filename)(seg);
   struct vg_stat st;
   if (fname == NULL || ML_(jit_has_prefix)(fname, "/memfd:")
       || ML_(jit_has_prefix)(fname, "/dev/shm/")
       || VG_(strstr)(fname, " (deleted)") != NULL
       || sr_isError(VG_(stat)(fname, &st))
       || !VKI_S_ISREG(st.mode) || st.mtime >= started_sec)
      return -1;
   return (Int)ML_(jit_creator_of_file)(fname);
}

static Bool segment_may_hold_jit_code ( const NSegment* seg )
{
   if (!seg->hasX)
      return False;
   switch (seg->kind) {
      case SkAnonC: case SkShmC:
         return True;
      case SkFileC:
         return !ML_(jit_overlaps_object_text)(seg->start, 1)
                && file_may_hold_jit_code(seg);
      default:
         return False;
   }
}

/* Gives the part [lo, hi] its creator (taken once per call through
   *creator, -1 until then), where it has none. */
static UInt name_gaps ( Addr lo, Addr hi, Int* creator, ULong made )
{
   Addr p = lo;
   UInt added = 0;
   while (p <= hi) {
      LiveRange* r = VG_(OSetGen_LookupWithCmp)(live, &p, cmp_addr_range);
      Addr       gap_end;
      if (r != NULL) {
         if (r->last >= hi)
            break;
         p = r->last + 1;
         continue;
      }
      /* The first range after p, if it starts before hi. */
      VG_(OSetGen_ResetIterAt)(live, &p);
      r = VG_(OSetGen_Next)(live);
      gap_end = (r != NULL && r->start <= hi) ? r->start - 1 : hi;
      if (*creator < 0)
         *creator = (Int)ML_(jit_creator_from_stack)();
      add_live(p, gap_end, (UInt)*creator, made, 0);
      added++;
      if (gap_end == hi)
         break;
      p = gap_end + 1;
   }
   return added;
}

/* Sets first_epoch of the ranges in [lo, hi] that have 0 (just made). */
static void stamp_epoch ( Addr lo, Addr hi, UInt epoch )
{
   LiveRange* r;
   VG_(OSetGen_ResetIterAt)(live, &lo);
   while ((r = VG_(OSetGen_Next)(live)) != NULL && r->start <= hi)
      if (r->first_epoch == 0)
         r->first_epoch = epoch;
}

void ML_(jit_creator_notify_exec) ( Addr a, SizeT len, UInt prot,
                                    Bool fresh )
{
   Addr  p, last;
   Int   creator = -1, used = -1;
   UInt  added = 0;
   ULong made;

   if (!VG_(clo_jit_creator_names) || !(prot & VKI_PROT_EXEC) || len == 0)
      return;
   last = ML_(jit_range_last)(a, len);
   ML_(jit_creator_memo_forget)(a, last);
   init();
   made = deferred ? ML_(jit_now)() : 0;
   for (p = a; p <= last; ) {
      const NSegment* seg = VG_(am_find_nsegment)(p);
      Addr            hi;
      if (seg == NULL)
         break;
      hi = seg->end < last ? seg->end : last;
      if (segment_may_hold_jit_code(seg)) {
         Int  of_file = seg->kind == SkFileC ? file_creator(seg) : -1;
         Int* which   = of_file >= 0 ? &of_file : &creator;
         UInt n;
         if (fresh)
            (void)end_ranges(p, hi);
         n = name_gaps(p, hi, which, made);
         if (n > 0) {
            ML_(jit_creator_get)((UInt)*which)->ranges += n;
            used = *which;
         }
         added += n;
      }
      if (hi == last)
         break;
      p = hi + 1;
   }
   if (added > 0) {
      JitCreator* c = ML_(jit_creator_get)((UInt)used);
      stats.ranges += added;
      /* Lookups that missed here are cached for the current epoch. */
      ML_(advance_current_DiEpoch_for_jit)();
      stamp_epoch(a, last, VG_(current_DiEpoch)().n);
      if (VG_(clo_trace_jit))
         VG_(umsg)("JIT: creator %#lx-%#lx %s (%s)\n", a, last, c->name,
                   ML_(jit_object_at)(c->obj)->name);
   }
}

void ML_(jit_creator_notify_munmap) ( Addr a, SizeT len )
{
   if (len > 0)
      ML_(jit_creator_memo_forget)(a, ML_(jit_range_last)(a, len));
   if (live == NULL || len == 0 || VG_(OSetGen_Size)(live) == 0)
      return;
   (void)end_ranges(a, ML_(jit_range_last)(a, len));
}

void ML_(jit_creator_notify_mremap) ( Addr old_a, SizeT old_len,
                                      Addr new_a, SizeT new_len )
{
   LiveRange  moved[16];
   UInt       n = 0, i;
   LiveRange* r;
   Addr       old_last, ext;
   UInt       epoch;

   if (old_len > 0)
      ML_(jit_creator_memo_forget)(old_a, ML_(jit_range_last)(old_a, old_len));
   if (new_len > 0)
      ML_(jit_creator_memo_forget)(new_a, ML_(jit_range_last)(new_a, new_len));
   if (live == NULL || VG_(OSetGen_Size)(live) == 0 || old_len == 0
       || new_len == 0 || old_a + old_len - 1 < old_a
       || new_a + new_len - 1 < new_a)
      return;
   old_last = old_a + old_len - 1;
   /* The ranges of the old mapping, clipped to it and to what moved. */
   VG_(OSetGen_ResetIterAt)(live, &old_a);
   while (n < 16 && (r = VG_(OSetGen_Next)(live)) != NULL
          && r->start <= old_last) {
      if (r->last < old_a)
         continue;
      moved[n] = *r;
      if (moved[n].start < old_a) moved[n].start = old_a;
      if (moved[n].last > old_last) moved[n].last = old_last;
      n++;
   }
   if (n == 0)
      return;
   ext = moved[n - 1].last == old_last ? moved[n - 1].creator : ~0U;
   if (new_a != old_a)
      (void)end_ranges(old_a, old_last);
   (void)end_ranges(new_a, new_a + new_len - 1);
   for (i = 0; i < n; i++) {
      Addr s = moved[i].start - old_a, e = moved[i].last - old_a;
      if (s >= new_len)
         continue;
      if (e >= new_len)
         e = new_len - 1;
      add_live(new_a + s, new_a + e, moved[i].creator, moved[i].made, 0);
      stats.moved++;
   }
   /* A mapping that grew: its new part continues the last range. */
   if (new_len > old_len && ext != ~0U)
      add_live(new_a + old_len, new_a + new_len - 1, ext,
               deferred ? ML_(jit_now)() : 0, 0);
   ML_(advance_current_DiEpoch_for_jit)();
   epoch = VG_(current_DiEpoch)().n;
   stamp_epoch(new_a, new_a + new_len - 1, epoch);
}

/*------------------------------------------------------------*/
/*--- Lookups                                              ---*/
/*------------------------------------------------------------*/

Bool ML_(jit_creator_range_has) ( Addr a )
{
   return live != NULL
          && VG_(OSetGen_LookupWithCmp)(live, &a, cmp_addr_range) != NULL;
}

Bool ML_(jit_creator_search) ( DiEpoch ep, Addr a,
                               /*OUT*/Addr* start, /*OUT*/SizeT* size,
                               /*OUT*/const HChar** name,
                               /*OUT*/UInt* obj_index )
{
   const LiveRange* r;
   JitCreator*      c;
   if (deferred || live == NULL)
      return False;
   r = VG_(OSetGen_LookupWithCmp)(live, &a, cmp_addr_range);
   if (r == NULL || r->first_epoch > ep.n)
      return False;
   c = ML_(jit_creator_get)(r->creator);
   c->named = True;
   *start     = r->start;
   *size      = r->last - r->start + 1;
   *name      = c->name;
   *obj_index = c->obj;
   return True;
}

void VG_(jit_defer_creator_names) ( void )
{
   deferred = True;
}

Bool VG_(jit_creator_name_at) ( Addr a, ULong when,
                                /*OUT*/const HChar** fnname,
                                /*OUT*/DebugInfo** di )
{
   const LiveRange* r;
   JitCreator*      c = NULL;
   Word             i, it = -1;

   if (live == NULL || !VG_(clo_jit_creator_names))
      return False;
   /* A producer named code at a, but the tool's late binding could not
      tell which function ran there (code reuse the files do not
      resolve): the code stays with the function whose context ran it,
      under its address name. */
   if (ML_(jit_fn_containing)(a).c != NULL
       || ML_(jit_archived_next_covering)(a, &it) >= 0)
      return False;
   r = VG_(OSetGen_LookupWithCmp)(live, &a, cmp_addr_range);
   if (r != NULL && (when == 0 || r->made <= when))
      c = ML_(jit_creator_get)(r->creator);
   /* Else the range that covered a at that time, newest first. */
   for (i = VG_(sizeXA)(archived) - 1; c == NULL && i >= 0; i--) {
      const ArchivedRange* ar = VG_(indexXA)(archived, i);
      if (a >= ar->start && a <= ar->last
          && (when == 0 || (ar->made <= when && when < ar->gone)))
         c = ML_(jit_creator_get)(ar->creator);
   }
   if (c == NULL)
      return False;
   c->named = True;
   *fnname = c->name;
   *di     = ML_(jit_object_at)(c->obj)->di;
   return True;
}

/*------------------------------------------------------------*/
/*--- v.info jit and -v                                    ---*/
/*------------------------------------------------------------*/

void ML_(jit_creator_print_info) ( Addr a, SizeT len )
{
   const LiveRange* r;
   Addr   last = ML_(jit_range_last)(a, len);
   UInt   shown = 0;
   ULong  total = 0;

   if (live == NULL || VG_(OSetGen_Size)(live) == 0)
      return;
   VG_(OSetGen_ResetIterAt)(live, &a);
   while ((r = VG_(OSetGen_Next)(live)) != NULL && r->start <= last) {
      const JitCreator* c;
      if (r->last < a)
         continue;
      total++;
      if (shown >= JIT_MAX_LISTED)
         continue;
      if (shown == 0)
         VG_(printf)("JIT code nobody announced, named after its creator:\n");
      c = ML_(jit_creator_get)(r->creator);
      VG_(printf)("  %#lx-%#lx %s (%s)\n", r->start, r->last, c->name,
                  ML_(jit_object_at)(c->obj)->name);
      shown++;
   }
   if (total > shown)
      VG_(printf)("  ... and %llu more\n", total - shown);
}

void ML_(jit_creator_print_summary) ( void )
{
   if (VG_(clo_verbosity) < 2 || stats.ranges == 0)
      return;
   VG_(umsg)("JIT: %llu ranges of unannounced code named after their "
             "creator (%lu creators, %llu stack traces), %llu ended, "
             "%llu moved, %lu live at exit\n",
             stats.ranges, ML_(jit_n_creators)(),
             ML_(jit_creator_n_stacks)(), stats.ended, stats.moved,
             live ? (UWord)VG_(OSetGen_Size)(live) : 0UL);
   if (stats.archive_full > 0)
      VG_(umsg)("JIT: %llu ended ranges forgotten (more than %d kept for "
                "late names)\n", stats.archive_full, MAX_ARCHIVED);
}

/*--------------------------------------------------------------------*/
/*--- end                                             jitcreator.c ---*/
/*--------------------------------------------------------------------*/
