/*--------------------------------------------------------------------*/
/*--- JIT code registry: registering, unregistering and moving     ---*/
/*--- functions, with their epochs.                       jitreg.c ---*/
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

/* Every change here advances the DebugInfo epoch, as loading or
   unloading an ELF object does (see priv_jitstore.h), except a
   registration made inside a lookup, which must be seen by the lookup's
   own (current) epoch.

   Order of operations (Callgrind finds the BB to forget from the current
   names): translations of a range are discarded before the names in the
   range change.  Discarding calls the tool, which may look names up, and
   a lookup may register a function from a producer file: positions in
   the store are therefore found again after every discard. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_xarray.h"
#include "pub_core_execontext.h"
#include "pub_core_transtab.h"
#include "pub_core_jitreg.h"     /* VG_(jit_print_summary) */

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"        /* DebugInfo */
#include "priv_jitreg.h"         /* self */
#include "priv_jitstore.h"
#include "priv_jitcfi.h"         /* CFI of registered functions */
#include "priv_jitcreator.h"     /* code nobody announced */
#include "priv_jitkeep.h"        /* functions kept after unregistration */
#include "priv_jitpending.h"     /* names that wait for their code */

static struct {
   ULong registered;     /* functions added */
   ULong replaced;       /* functions dropped because new code overlapped */
   ULong unregistered;   /* functions dropped by an unregister request */
   ULong unmapped;       /* functions dropped because their memory went */
   ULong archived;       /* functions kept for old epochs */
   ULong named_late;     /* records for code unmapped before they were
                            read, archived for the code that ran there
                            (JIT_STATUS_NAMED_LATE) */
} stats;

/* Ranges whose translations must be discarded at the next safe point
   (registrations made inside lookups). */
typedef struct { Addr start; UWord size; } JitRange;
static XArray* deferred_discards = NULL;   /* of JitRange */
/* Functions were registered inside a lookup since the epoch last
   advanced (see ML_(jit_catch_up_epoch)). */
static Bool epoch_behind = False;


/*------------------------------------------------------------*/
/*--- Checks                                               ---*/
/*------------------------------------------------------------*/

/* At or above the end of every live function: the highest end
   insert_fn has added (functions only become live there).  Code a JIT
   emits upward through its code heap starts at or above it. */
static Addr live_top = 0;

/* True if no live registration intersects [a, a+len) (len > 0). */
static inline Bool range_is_free ( Addr a, SizeT len )
{
   return a >= live_top || ML_(jit_first_intersecting)(a, len).c == NULL;
}

/*------------------------------------------------------------*/
/*--- Removing functions                                   ---*/
/*------------------------------------------------------------*/

static const HChar* object_name ( const JitFn* f )
{
   return ML_(jit_object_at)(f->obj)->name;
}

/* Why live functions are removed (removal_text: the word -v traces
   print for each). */
typedef
   enum {
      JitRemovedUnmapped,      /* their memory was unmapped */
      JitRemovedUnregistered,  /* an unregister request */
      JitRemovedReplaced,      /* a registration or move covered them */
      JitRemovedMoved,         /* a move took the function elsewhere */
      JitRemovedKeptEnds       /* jitkeep.c ends a kept function */
   }
   JitRemoval;

static const HChar* removal_text ( JitRemoval why )
{
   switch (why) {
      case JitRemovedUnmapped:     return "unmapped";
      case JitRemovedUnregistered: return "unregister";
      case JitRemovedReplaced:     return "replaced";
      case JitRemovedMoved:        return "moved";
      case JitRemovedKeptEnds:     return "kept name ends";
   }
   return "removed";
}

/* One removal of live functions. */
typedef
   struct {
      JitRemoval why;
      /* Why a kept function (jitkeep.c) among them ends. */
      JitKeptEnd kept_end;
      /* When their code went, in VG_(jit_time_now)'s clock: the load
         time of the code replacing it (a registration's or a move's),
         or when jitkeep.c saw it change; 0: not known, then the clock,
         read when the first function is archived (a munmap of 10^6
         functions reads it once), and kept here for the others. */
      ULong      gone;
   }
   Removal;

/* A removal for why, its code gone at time gone (0: now). */
static Removal removal ( JitRemoval why, ULong gone )
{
   Removal r;
   r.why      = why;
   r.kept_end = why == JitRemovedUnmapped ? JitKeptUnmapped
                : why == JitRemovedReplaced ? JitKeptReused
                : JitKeptOther;
   r.gone     = gone;
   return r;
}

/* What a removal removed: registered functions, and kept ones
   (jitkeep.c), which count as none of its removals (they were counted
   as unregistered already). */
typedef
   struct {
      UInt registered;
      UInt kept;
   }
   Removed;

/* Archives or frees what live function f holds (its translations are
   already discarded); the caller then removes its record.  Does not
   advance the epoch: the caller does, once per request.  Returns
   whether f was a kept function.

   f is archived with --keep-debuginfo=yes, where code ran unnamed (it
   may take this name late, jitlate.c), and, when its memory was
   unmapped, where its code may have run (VG_(may_have_translations),
   which errs towards yes), since tools bind names that arrived late to
   code that ran before (VG_(jit_late_name_epoch)), and runtimes free
   their code (CPython 3.13 its trampolines) before they exit.  Code
   that never ran is in no profile and no stack trace (an archive record
   costs about 490 instructions a function, three times what the rest of
   an unmap costs: code compiled ahead and freed unrun, or a test's heap
   of code, pays none of it). */
static Bool retire_fn ( JitFn* f, Removal* rm )
{
   ULong       loaded;
   JitLineTab* lines;
   Bool        kept = ML_(jit_kept_retired)(f, rm->kept_end);
   lines = ML_(jit_fn_take_extras)(f, &loaded);
   /* Its CFI, if it came with some, goes with it. */
   (void)ML_(jit_cfi_remove)(f->start, JitCfiFunction, f->start);
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %s %#lx-%#lx %s (%s)\n", removal_text(rm->why),
                f->start, f->start + f->size, ML_(jit_name_str)(f->name),
                object_name(f));
   if (VG_(clo_keep_debuginfo)
       || (rm->why == JitRemovedUnmapped
           && VG_(may_have_translations)(f->start, f->size))
       || ML_(jit_ran_unnamed)(f->start, f->size)) {
      if (rm->gone == 0)
         rm->gone = ML_(jit_now)();
      ML_(jit_archive_fn)(f, lines, loaded, VG_(current_DiEpoch)().n,
                          rm->gone);
      if (VG_(clo_keep_debuginfo))
         VG_(archive_ExeContext_in_range)(VG_(current_DiEpoch)(),
                                          f->start, f->size);
      stats.archived++;
   } else {
      ML_(jit_name_release)(f->name);
      if (lines)
         ML_(dinfo_free)(lines);
      f->name = 0;
   }
   return kept;
}

/* Drops every live function intersecting [a, a+len) (len > 0, a+len
   does not wrap): discards their translations, with one discard for the
   whole span (none if the caller already discarded [a, a+len) and no
   function sticks out of it), then removes them, a chunk's worth at a
   time. */
static Removed remove_range ( Addr a, SizeT len, Bool caller_discarded,
                              Removal rm )
{
   Removed  r = { 0, 0 };
   Addr     lo, hi, end = a + len;
   JitFnPos p = ML_(jit_first_intersecting)(a, len);
   JitFnPos q;
   if (p.c == NULL)
      return r;
   lo = ML_(jit_fn_at)(p)->start < a ? ML_(jit_fn_at)(p)->start : a;
   hi = end;
   q  = ML_(jit_fn_containing)(end - 1);
   if (q.c != NULL && ML_(jit_fn_at)(q)->start + ML_(jit_fn_at)(q)->size > hi)
      hi = ML_(jit_fn_at)(q)->start + ML_(jit_fn_at)(q)->size;
   if (!caller_discarded || lo < a || hi > end)
      ML_(jit_discard_translations)(lo, hi - lo, "jitreg.remove_range");
   /* The discard may have registered functions: look again. */
   while ((p = ML_(jit_first_intersecting)(a, len)).c != NULL) {
      JitFnChunk* c = p.c;
      UInt        j = p.i;
      while (j < c->n && c->fns[j].start < end) {
         if (retire_fn(&c->fns[j], &rm))
            r.kept++;
         else
            r.registered++;
         j++;
      }
      ML_(jit_remove_fns)(c, p.i, j);
   }
   return r;
}

/* Removes the live function starting at a, whose translations are
   already discarded.  Returns whether there was one. */
static Bool remove_fn_at ( Addr a, Removal rm )
{
   JitFnPos p = ML_(jit_fn_starting_at)(a);
   if (p.c == NULL)
      return False;
   (void)retire_fn(ML_(jit_fn_at)(p), &rm);
   ML_(jit_remove_fns)(p.c, p.i, p.i + 1);
   return True;
}

void ML_(jit_notify_munmap) ( Addr a, SizeT len )
{
   Removed r;
   if (len == 0 || ML_(jit_n_live)() == 0)
      return;
   r = remove_range(a, ML_(jit_range_clip)(a, len), False,
                    removal(JitRemovedUnmapped, 0));
   if (r.registered > 0 || r.kept > 0) {
      stats.unmapped += r.registered;
      ML_(advance_current_DiEpoch_for_jit)();
   }
}

Int ML_(jit_unregister) ( Addr start )
{
   JitFnPos p = ML_(jit_fn_starting_at)(start);
   if (p.c == NULL || ML_(jit_is_kept)(start))
      return VG_JIT_ERR_NOT_REGISTERED;
   ML_(jit_discard_translations)(start, ML_(jit_fn_at)(p)->size,
                             "jitreg.unregister");
   (void)remove_fn_at(start, removal(JitRemovedUnregistered, 0));
   ML_(advance_current_DiEpoch_for_jit)();
   stats.unregistered++;
   return VG_JIT_OK;
}

UWord ML_(jit_unregister_range) ( Addr start, UWord size )
{
   Removed r;
   if (size == 0)
      return 0;
   r = remove_range(start, ML_(jit_range_clip)(start, size), False,
                    removal(JitRemovedUnregistered, 0));
   if (r.registered > 0 || r.kept > 0) {
      ML_(advance_current_DiEpoch_for_jit)();
      stats.unregistered += r.registered;
   }
   return r.registered;
}

UInt ML_(jit_remove_for_keep) ( Addr a, SizeT len, ULong gone,
                                JitKeptEnd why )
{
   Removal rm = removal(JitRemovedKeptEnds, gone);
   Removed r;
   if (len == 0)
      return 0;
   rm.kept_end = why;
   r = remove_range(a, len, False, rm);
   if (r.registered + r.kept > 0)
      ML_(advance_current_DiEpoch_for_jit)();
   return r.registered + r.kept;
}

void ML_(jit_count_unregistered) ( UWord n )
{
   stats.unregistered += n;
}


/*------------------------------------------------------------*/
/*--- Adding and moving functions                          ---*/
/*------------------------------------------------------------*/

/* Adds a live function, valid from epoch first_epoch on (the current
   one); [start, start+size) must be free.  Inlined: it is on the path
   of every registration. */
static inline __attribute__((always_inline))
void insert_fn ( Addr start, UWord size, JitNameId name,
                 JitObject* obj, JitLineTab* lines, ULong loaded,
                 UInt first_epoch )
{
   JitFn f;
   f.start       = start;
   f.size        = (UInt)size;
   f.first_epoch = first_epoch;
   f.name        = name;
   f.obj         = obj->index;
   f.has_extra   = 0;   /* set by the store */
   f.archived    = 0;
   if (lines != NULL || loaded != 0 || !ML_(jit_append_fn)(&f))
      ML_(jit_insert_fn)(&f, lines, loaded);
   if (start + size > live_top)
      live_top = start + size;
   stats.registered++;
   /* Names waiting for code here are older than this one. */
   if (UNLIKELY(ML_(jit_n_pending) > 0))
      ML_(jit_pending_forget)(start, size);
}

/* The anonymous executable client mapping that check_code_range
   accepted last: a JIT's code heap is one mapping. */
static JitMappingMemo last_code_mapping;

/* check_code_range where last_code_mapping does not answer. */
__attribute__((noinline))
static Int check_code_range_in_segments ( Addr a, SizeT len )
{
   const NSegment* seg = VG_(am_find_nsegment)(a);
   if (seg != NULL && seg->kind == SkAnonC && seg->hasX
       && a + len - 1 <= seg->end) {
      ML_(jit_memo_set)(&last_code_mapping, seg->start, seg->end);
      return VG_JIT_OK;   /* no object's text is anonymous memory */
   }
   if (!VG_(am_is_valid_for_client)(a, len, VKI_PROT_EXEC))
      return VG_JIT_ERR_NOT_CODE;
   if (ML_(jit_overlaps_object_text)(a, len)
       && ML_(jit_elf_symbols_name)(a, len))
      return VG_JIT_ERR_OVERLAPS_OBJECT;
   return VG_JIT_OK;
}

/* Whether [a, a+len) (not wrapping) is code that may be registered:
   VG_JIT_OK, or VG_JIT_ERR_NOT_CODE (not executable client memory) or
   VG_JIT_ERR_OVERLAPS_OBJECT (ELF text).  Code in one anonymous mapping,
   what JITs register, takes at most one look-up in the segment table
   between two client system calls; the test of the one remembered is
   inline in both registration paths. */
static inline Int check_code_range ( Addr a, SizeT len )
{
   if (ML_(jit_memo_holds)(&last_code_mapping, a, a + len - 1))
      return VG_JIT_OK;
   return check_code_range_in_segments(a, len);
}

/* Whether the live function at exactly [reg->start, reg->start +
   reg->size) belongs to another object than obj and already bears reg's
   name (name_len bytes), up to one leading '$' on either side: two
   sources describing one function, as Erlang/OTP describes its code
   both in its GDB JIT entries and in its perf map, where it writes the
   same names after a '$'.  The function keeps its registration rather
   than taking a second name, unless only the live name has the '$':
   OTP writes a module's perf map lines just before it registers the
   module's entry (whose names come with line tables), and before the
   code runs, so the entry replaces them. */
static Bool described_already ( const JitRegistration* reg,
                                const JitObject* obj, SizeT name_len )
{
   JitFnPos     p = ML_(jit_fn_starting_at)(reg->start);
   const JitFn* f;
   const HChar* have;
   const HChar* name = reg->name;
   Bool         have_dollar, name_dollar;
   /* A kept function is no registration: the new one takes its place. */
   if (p.c == NULL || ML_(jit_is_kept)(reg->start))
      return False;
   f = ML_(jit_fn_at)(p);
   if (f->size != reg->size || f->obj == obj->index)
      return False;
   have = ML_(jit_name_str)(f->name);
   have_dollar = have[0] == '$';
   name_dollar = name_len > 0 && name[0] == '$';
   if (have_dollar && !name_dollar)
      return False;
   if (have_dollar)
      have++;
   if (name_dollar) {
      name++;
      name_len--;
   }
   return VG_(strlen)(have) == name_len
          && VG_(memcmp)(have, name, name_len) == 0;
}

/* The object reg names (the default object's without a call). */
static inline JitObject* object_of ( const JitRegistration* reg )
{
   if (reg->object_resolved != NULL)
      return reg->object_resolved;
   if (reg->object == NULL && ML_(jit_default_object) != NULL)
      return ML_(jit_default_object);
   return ML_(jit_object_named)(reg->object);
}

/* Whether reg may be registered now (where): VG_JIT_OK, or the refusal
   ML_(jit_register) returns.  *late: reg names code unmapped before it
   was read (ML_(jit_is_late_name_for_unmapped)), to be archived for
   that code rather than registered.  Nothing changes. */
static inline Int check_registration ( const JitRegistration* reg,
                                       JitWhere where, /*OUT*/Bool* late )
{
   Int st;
   *late = False;
   if (reg->size == 0 || reg->size > VG_JIT_MAX_CODE_SIZE
       || reg->start + reg->size < reg->start)
      return VG_JIT_ERR_BAD_RANGE;
   st = check_code_range(reg->start, reg->size);
   if (st != VG_JIT_OK) {
      if (st != VG_JIT_ERR_NOT_CODE
          || !ML_(jit_is_late_name_for_unmapped)(reg))
         return st;
      if (where == JitInLookup)
         return JIT_STATUS_RANGE_BUSY;   /* it changes the epoch */
      *late = True;
      return VG_JIT_OK;
   }
   if (where == JitInLookup && !range_is_free(reg->start, reg->size))
      return JIT_STATUS_RANGE_BUSY;
   return VG_JIT_OK;
}

/* The pool's copy of reg's name (name_len bytes), escaped if it is not
   clean text: a producer's control characters are never printed. */
static inline JitNameId name_of ( const JitRegistration* reg,
                                  SizeT name_len )
{
   SizeT     e_len;
   HChar*    e;
   JitNameId name;
   if (reg->name_is_ascii || ML_(jit_text_is_clean)(reg->name, name_len))
      return ML_(jit_name_intern)(reg->name, name_len);
   e    = ML_(jit_escaped_copy)(reg->name, name_len, &e_len);
   name = ML_(jit_name_intern)(e, e_len);
   ML_(dinfo_free)(e);
   return name;
}

/* The line table of reg for obj (NULL if reg has none, or none is
   left), its dropped entries handed back through reg->drops; *st
   becomes VG_JIT_WARN_LINES_DROPPED if any was dropped. */
static JitLineTab* lines_of ( const JitRegistration* reg, JitObject* obj,
                              /*MOD*/Int* st )
{
   JitLineTab*  lines;
   JitLineDrops drops;
   if (reg->n_lines == 0)
      return NULL;
   lines = ML_(jit_line_table_build)(reg, obj, &drops);
   if (reg->drops != NULL)
      *reg->drops = drops;
   if (ML_(jit_line_drops_total)(&drops) > 0)
      *st = VG_JIT_WARN_LINES_DROPPED;
   return lines;
}

/* At a safe point, makes room for reg: names change in its range and in
   any function it overlaps, so their translations are discarded first
   (Callgrind forgets its BBs by the names current now), then the
   functions it overlaps are removed, and the epoch advances.  Returns
   how many registered functions it replaced. */
static UInt make_room_at_safe_point ( const JitRegistration* reg )
{
   UInt n_replaced = 0;
   ML_(jit_discard_translations)(reg->start, reg->size, "jitreg.register");
   /* Code emitted above every live function (a JIT's code heap) needs
      no removal. */
   if (!range_is_free(reg->start, reg->size))
      n_replaced = remove_range(reg->start, reg->size, True,
                                removal(JitRemovedReplaced,
                                        reg->loaded)).registered;
   stats.replaced += n_replaced;
   ML_(advance_current_DiEpoch_for_jit)();
   return n_replaced;
}

/* Inside a lookup for the current epoch, which must see the new
   function: queues the discard of reg's range for the next safe point
   (ML_(jit_at_safe_point)) and keeps the epoch; the follower that read
   reg forgets cached "no name" answers once its read is over
   (ML_(jit_read_on_lookup_miss)): nothing in between asks the cache.
   The epoch advances at the next safe point or at exit. */
static void defer_discard ( const JitRegistration* reg )
{
   JitRange rg;
   if (deferred_discards == NULL)
      deferred_discards = VG_(newXA)(ML_(dinfo_zalloc),
                                     "di.jitreg.deferred",
                                     ML_(dinfo_free), sizeof(JitRange));
   rg.start = reg->start;
   rg.size  = reg->size;
   VG_(addToXA)(deferred_discards, &rg);
   epoch_behind = True;
}

Int ML_(jit_register) ( const JitRegistration* reg, JitWhere where )
{
   JitObject*  obj;
   JitLineTab* lines;
   JitNameId   name;
   UInt        n_replaced = 0;
   SizeT       name_len;
   Bool        late;
   Int         st = check_registration(reg, where, &late);

   if (st != VG_JIT_OK)
      return st;
   /* Copy what is kept before anything calls out (discarding
      translations calls the tool). */
   obj = object_of(reg);
   name_len = reg->name_len > 0 ? reg->name_len : VG_(strlen)(reg->name);
   if (!late && where == JitAtSafePoint
       && !range_is_free(reg->start, reg->size)
       && described_already(reg, obj, name_len)) {
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit: register %#lx-%#lx (%s): named so already\n",
                   reg->start, reg->start + reg->size, obj->name);
      return VG_JIT_OK;
   }
   name  = name_of(reg, name_len);
   lines = lines_of(reg, obj, &st);
   if (late) {
      ML_(jit_archive_late_name)(reg, name, obj, lines);
      stats.named_late++;
      return JIT_STATUS_NAMED_LATE;
   }

   if (where == JitAtSafePoint) {
      n_replaced = make_room_at_safe_point(reg);
      if (n_replaced > 0 && st == VG_JIT_OK)
         st = VG_JIT_WARN_REPLACED;
   } else {
      defer_discard(reg);
   }
   /* A load time only decides which function code translated without
      a name ran (jitlate.c), and only for functions read after that
      translation, which noted its page: elsewhere it is not kept. */
   insert_fn(reg->start, reg->size, name, obj, lines,
             reg->loaded != 0 && ML_(jit_ran_unnamed)(reg->start, reg->size)
                ? reg->loaded : 0,
             VG_(current_DiEpoch)().n);
   if (ML_(jit_is_exiting)())
      ML_(jit_fn_at)(ML_(jit_fn_starting_at)(reg->start))->first_epoch
         = ML_(jit_first_epoch_for_new)(n_replaced > 0
                                        || ML_(jit_archived_overlaps)(
                                              reg->start, reg->size));

   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: register %#lx-%#lx %s (%s), %u lines%s\n",
                reg->start, reg->start + reg->size, ML_(jit_name_str)(name),
                obj->name, lines ? lines->n_lines : 0,
                n_replaced ? ", replacing earlier code" : "");
   return st;
}

Bool ML_(jit_register_run) ( const JitRunFn* fns, UInt n, JitObject* obj )
{
   Addr lo = fns[0].start, hi = lo;
   UInt i, epoch;
   Bool ran_unnamed;
   if (VG_(clo_trace_jit) || ML_(jit_is_exiting)() || lo < live_top)
      return False;
   for (i = 0; i < n; i++) {
      const JitRunFn* f = &fns[i];
      if (f->start < hi || f->size == 0 || f->size > VG_JIT_MAX_CODE_SIZE
          || f->start + f->size < f->start)
         return False;
      hi = f->start + f->size;
   }
   if (check_code_range(lo, hi - lo) != VG_JIT_OK)
      return False;
   /* Names change in the span: one discard for it (code between the
      functions is translated again, no more). */
   ML_(jit_discard_translations)(lo, hi - lo, "jitreg.register_run");
   if (lo < live_top)
      return False;   /* the tool registered code meanwhile: one by one */
   ran_unnamed = ML_(jit_ran_unnamed)(lo, hi - lo);
   ML_(advance_current_DiEpoch_for_jit)();
   epoch = VG_(current_DiEpoch)().n;
   for (i = 0; i < n; i++) {
      const JitRunFn* f = &fns[i];
      insert_fn(f->start, f->size,
                ML_(jit_name_intern)(f->name, f->name_len), obj, NULL,
                ran_unnamed && f->loaded != 0
                   && ML_(jit_ran_unnamed)(f->start, f->size)
                   ? f->loaded : 0,
                epoch);
   }
   return True;
}

Int ML_(jit_move) ( Addr old_start, Addr new_start, ULong moved_at )
{
   JitFnPos    p = ML_(jit_fn_starting_at)(old_start);
   const JitFn* f;
   JitNameId   name;
   JitObject*  obj;
   JitLineTab* lines = NULL;
   UWord       size;
   UInt        n_replaced;
   ULong       loaded;
   JitCfiDetached* cfi;

   if (p.c == NULL)
      return VG_JIT_ERR_NOT_REGISTERED;
   f    = ML_(jit_fn_at)(p);
   size = f->size;
   if (new_start + size < new_start)
      return VG_JIT_ERR_BAD_RANGE;
   if (!VG_(am_is_valid_for_client)(new_start, size, VKI_PROT_EXEC))
      return VG_JIT_ERR_NOT_CODE;
   if (ML_(jit_overlaps_object_text)(new_start, size)
       && ML_(jit_elf_symbols_name)(new_start, size))
      return VG_JIT_ERR_OVERLAPS_OBJECT;

   /* Keep what the moved function needs before the old one goes. */
   name = f->name;
   ML_(jit_name_ref)(name);
   obj = ML_(jit_object_at)(f->obj);
   if (ML_(jit_fn_lines)(f))
      lines = ML_(jit_line_table_copy)(ML_(jit_fn_lines)(f));
   /* Its code appeared at new_start when it moved: that is its load
      time there, for code reuse (jitlate.c), and when the code it
      leaves and the code it replaces went.  Without the move's time,
      the time it was loaded first. */
   loaded = moved_at != 0 ? moved_at : ML_(jit_fn_loaded)(f);
   /* Its CFI, if any, moves with it (retire_fn would free it). */
   cfi = ML_(jit_cfi_detach)(old_start, JitCfiFunction, old_start);
   ML_(jit_discard_translations)(old_start, size, "jitreg.move");
   (void)remove_fn_at(old_start, removal(JitRemovedMoved, moved_at));
   ML_(jit_discard_translations)(new_start, size, "jitreg.move");
   n_replaced = remove_range(new_start, size, True,
                             removal(JitRemovedReplaced,
                                     moved_at)).registered;
   stats.replaced += n_replaced;
   ML_(advance_current_DiEpoch_for_jit)();
   insert_fn(new_start, size, name, obj, lines,
             loaded != 0 && ML_(jit_ran_unnamed)(new_start, size)
                ? loaded : 0,
             VG_(current_DiEpoch)().n);
   if (cfi != NULL)
      ML_(jit_cfi_reattach)(cfi, new_start);
   stats.registered--;   /* a move, not a new function */
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: move %#lx -> %#lx-%#lx %s (%s)\n", old_start,
                new_start, new_start + size, ML_(jit_name_str)(name),
                obj->name);
   return n_replaced ? VG_JIT_WARN_REPLACED : VG_JIT_OK;
}

void ML_(jit_catch_up_epoch) ( void )
{
   if (!epoch_behind)
      return;
   epoch_behind = False;
   ML_(advance_current_DiEpoch_for_jit)();
}

void ML_(jit_at_safe_point) ( void )
{
   /* Pop one range at a time: discarding calls the tool, which may look
      names up and so queue more ranges. */
   while (deferred_discards != NULL && VG_(sizeXA)(deferred_discards) > 0) {
      Word     last = VG_(sizeXA)(deferred_discards) - 1;
      JitRange rg   = *(const JitRange*)VG_(indexXA)(deferred_discards, last);
      VG_(dropTailXA)(deferred_discards, 1);
      ML_(jit_discard_translations)(rg.start, rg.size, "jitreg.late_name");
   }
   ML_(jit_catch_up_epoch)();
   ML_(jit_kept_at_safe_point)();
   ML_(jit_names_maybe_compact)();
}

/*------------------------------------------------------------*/
/*--- The gdbserver monitor command v.info jit              ---*/
/*------------------------------------------------------------*/

void VG_(jit_info_command) ( HChar** ssaveptr )
{
   HChar*       w = VG_(strtok_r)(NULL, " ", ssaveptr);
   Addr         a = 0;
   SizeT        len = ~(SizeT)0;
   const HChar* objname = NULL;

   if (w != NULL && VG_(strcmp)(w, "object") == 0) {
      objname = VG_(strtok_r)(NULL, "", ssaveptr);   /* the rest */
      if (objname == NULL || objname[0] == 0) {
         VG_(printf)("v.info jit object: missing object name\n");
         return;
      }
   } else if (w != NULL) {
      const HChar* q = w;
      HChar*       endp;
      if (!VG_(parse_Addr)(&q, &a) || *q != 0) {
         VG_(printf)("v.info jit: malformed address %s\n", w);
         return;
      }
      len = 1;
      w = VG_(strtok_r)(NULL, " ", ssaveptr);
      if (w != NULL) {
         len = (w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
               ? VG_(strtoull16)(w, &endp) : VG_(strtoull10)(w, &endp);
         if (*endp != 0 || len == 0) {
            VG_(printf)("v.info jit: malformed length %s\n", w);
            return;
         }
      }
   }
   len = ML_(jit_range_clip)(a, len);
   if (len == 0)
      len = 1;
   ML_(jit_print_live_fns)(a, len, objname);
   ML_(jit_pending_print_info)(a, len, objname);
   if (objname == NULL)
      ML_(jit_creator_print_info)(a, len);
   ML_(jit_follow_print_files)();
}

void VG_(jit_print_summary) ( void )
{
   ML_(jit_creator_print_hints)(stats.registered + ML_(jit_n_refused)()
                                + stats.named_late > 0
                                || ML_(jit_n_pending) > 0);
   if (VG_(clo_verbosity) < 2)
      return;
   if (stats.registered + ML_(jit_n_refused)() + stats.named_late > 0
       || VG_(clo_trace_jit)) {
      VG_(umsg)("JIT: %llu registered, %llu unregistered, %llu replaced, "
                "%llu unmapped, %llu refused, %llu line entries dropped, "
                "%llu live at exit\n",
                stats.registered, stats.unregistered, stats.replaced,
                stats.unmapped, ML_(jit_n_refused)(),
                ML_(jit_lines_dropped)(),
                ML_(jit_n_live)() - ML_(jit_n_kept)());
      ML_(jit_print_refusal_summary)();
      ML_(jit_lines_print_summary)();
      if (stats.named_late > 0)
         VG_(umsg)("JIT: %llu names for code unmapped before its record "
                   "was read, kept for the code that ran there\n",
                   stats.named_late);
      if (ML_(jit_n_names_escaped)() + ML_(jit_bad_files)() > 0)
         VG_(umsg)("JIT: %llu names escaped and %llu source file names "
                   "ignored (not UTF-8, or with control characters)\n",
                   ML_(jit_n_names_escaped)(), ML_(jit_bad_files)());
   }
   ML_(jit_kept_print_summary)();
   ML_(jit_pending_print_summary)();
   ML_(jit_clreq_print_summary)();
   ML_(jit_cfi_print_summary)();
   ML_(jit_follow_print_summary)();
   if (stats.registered + ML_(jit_n_refused)() > 0 || VG_(clo_trace_jit))
      ML_(jit_names_print_stats)();
   ML_(jit_print_late_summary)();
   ML_(jit_creator_print_summary)();
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
