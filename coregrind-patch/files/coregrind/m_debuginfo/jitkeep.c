
/*--------------------------------------------------------------------*/
/*--- JIT code registry: names of code that outlives its           ---*/
/*--- registration.                                     jitkeep.c ---*/
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

/* A name lives as long as the code it names (the rule is in
   priv_jitkeep.h).  A kept function stays a live function of the store,
   so every lookup (names, lines, objects) and the CFI store answer for
   it as for a registered one; this file only remembers which functions
   are kept, with a checksum of each KEEP_BLOCK bytes of their code, and
   ends them through the registry when their code goes or changes.

   Why checksums of blocks, checked by lookups: a tool looks a name up
   when it translates code (Callgrind, Cachegrind) or describes an
   address (every tool's errors), and new bytes at an address are
   translated before they run (--smc-check discards the translations of
   code whose bytes changed).  So a lookup that finds the block it asks
   about unchanged names code that is still the kept code, and one that
   finds it changed is the first to see new code there.  Comparing one
   block costs a hash of at most KEEP_BLOCK bytes, whatever the
   function's size. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_hashtable.h"
#include "pub_core_poolalloc.h"
#include "pub_core_xarray.h"
#include "pub_core_jitreg.h"       /* VG_(jit_note_code_changed) */

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitreg.h"
#include "priv_jitstore.h"
#include "priv_jitcfi.h"
#include "priv_jitkeep.h"        /* self */

/* Bytes of code per checksum. */
#define KEEP_BLOCK 256

/* Kept functions per block of the kept set's node pool (m_poolalloc
   wants at least 100). */
#define KEEP_NODES_PER_POOL 1024

/* The functions withdrawn together (a GDB JIT object), for their CFI. */
typedef
   struct {
      UWord       n_left;    /* kept functions not yet ended */
      Bool        has_cfi;   /* the CFI store's entry below is theirs */
      Addr        cfi_lo;
      JitCfiOwner owner;
      UWord       key;
   }
   KeptGroup;

/* A kept function (a VgHashTable node, keyed by start). */
typedef
   struct _KeptFn {
      struct _KeptFn* next;   /* the hash table's */
      Addr       start;       /* the key */
      UWord      size;
      union {
         UInt  one;         /* size <= KEEP_BLOCK: the only checksum */
         UInt* many;        /* else one per KEEP_BLOCK bytes (owned) */
      } sums;
      KeptGroup* group;     /* NULL: none (a client request's function,
                               whose CFI is its own) */
      Bool       changed;   /* a lookup found its bytes changed: it ends
                               at the next safe point */
      Bool       looked_up; /* a lookup described it since it was kept */
      Bool       by_request; /* withdrawn by a client request */
   }
   KeptFn;

/* A function whose bytes changed, to end at the next safe point. */
typedef
   struct {
      Addr  start;
      UWord size;
      ULong seen;   /* when the change was seen (VG_(jit_time_now)) */
   }
   KeptChange;

/* The kept functions by start, their nodes from kept_nodes.  Each is
   also a live function of the store, whose order serves the walks over
   a range (kept_in_range): an insert costs no search, where a tree
   of kept functions took about 35 instructions a level. */
static VgHashTable* kept       = NULL;   /* of KeptFn */
static PoolAlloc*   kept_nodes = NULL;
static XArray*      changes    = NULL;   /* of KeptChange */
/* [kept_lo, kept_hi) holds every kept function (reset when none is
   left): most lookups and mprotects are decided by it alone. */
static Addr    kept_lo = 0, kept_hi = 0;
/* True while this file ends a kept function: the lookups that the
   removal's discard makes describe the code being discarded, not code
   that may have changed (ML_(jit_kept_note_lookup) ignores them). */
static Bool ending = False;

static struct {
   ULong kept;
   ULong looked_up;
   ULong ended[JitKept_N];
   ULong kept_by_request;        /* of kept: withdrawn by client requests */
   ULong looked_up_by_request;   /* of looked_up: the same */
} stats;

static UInt block_sum ( Addr a, UWord len )
{
   return ML_(jit_hash_bytes)((const HChar*)a, len);
}

static UWord n_blocks ( UWord size )
{
   return (size + KEEP_BLOCK - 1) / KEEP_BLOCK;
}

/* k's checksums (n_blocks(k->size) of them). */
static inline const UInt* sums_of ( const KeptFn* k )
{
   return k->size <= KEEP_BLOCK ? &k->sums.one : k->sums.many;
}

/* How many functions are kept. */
static inline UInt n_kept ( void )
{
   return kept == NULL ? 0 : VG_(HT_count_nodes)(kept);
}

/* Copies of the kept functions intersecting [a, a+*len) (of KeptFn, in
   address order; the caller deletes it), or NULL if none can: removing
   them calls out, and the set changes meanwhile.  A range that wraps
   is cut at the top of the address space (*len is set to what is
   left). */
static XArray* kept_in_range ( Addr a, /*MOD*/SizeT* len )
{
   XArray*  todo;
   Addr     lo, hi;
   JitFnPos p;
   if (n_kept() == 0 || *len == 0 || a >= kept_hi
       || ML_(jit_range_last)(a, *len) < kept_lo)
      return NULL;
   *len = ML_(jit_range_clip)(a, *len);
   todo = VG_(newXA)(ML_(dinfo_zalloc), "di.jitkeep.todo", ML_(dinfo_free),
                     sizeof(KeptFn));
   /* Every kept function lies in [kept_lo, kept_hi) and is a live
      function of the store: the store's functions intersecting both
      ranges, in address order, are asked about. */
   lo = a > kept_lo ? a : kept_lo;
   hi = a + *len < kept_hi ? a + *len : kept_hi;
   for (p = ML_(jit_first_intersecting)(lo, hi - lo);
        p.c != NULL && ML_(jit_fn_at)(p)->start < hi; ) {
      KeptFn* k = VG_(HT_lookup)(kept, ML_(jit_fn_at)(p)->start);
      if (k != NULL)
         VG_(addToXA)(todo, k);
      if (++p.i == p.c->n) {   /* the next chunk (none is empty) */
         p.c = p.c->next;
         p.i = 0;
      }
   }
   return todo;
}

ULong ML_(jit_n_kept) ( void )
{
   return n_kept();
}

Bool ML_(jit_is_kept) ( Addr start )
{
   return kept != NULL && start >= kept_lo && start < kept_hi
          && VG_(HT_lookup)(kept, start) != NULL;
}

/* Keeps the live function [start, start+size), not kept yet, with
   group g (NULL: none) if its whole range is readable and executable
   client memory: takes its checksums and discards its translations.
   Returns whether it did (the caller then unregisters it). */
static Bool keep_fn ( Addr start, UWord size, KeptGroup* g,
                      Bool by_request )
{
   KeptFn* k;
   UInt*   sums;
   UWord   b;
   if (!VG_(am_is_valid_for_client)(start, size,
                                    VKI_PROT_EXEC | VKI_PROT_READ))
      return False;
   if (kept == NULL) {
      /* Nodes come from a pool: a JIT that withdraws every function it
         frees keeps as many as it registers, one at a time. */
      kept = VG_(HT_construct)("di.jitkeep.kept");
      kept_nodes = VG_(newPA)(sizeof(KeptFn), KEEP_NODES_PER_POOL,
                              ML_(dinfo_zalloc), "di.jitkeep.kept.nodes",
                              ML_(dinfo_free));
   }
   k = VG_(allocEltPA)(kept_nodes);
   VG_(memset)(k, 0, sizeof(*k));
   k->start      = start;
   k->size       = size;
   k->group      = g;
   k->by_request = by_request;
   /* The bytes are checksummed now, while they are the kept code: most
      functions fit one block, whose checksum needs no allocation. */
   if (size <= KEEP_BLOCK) {
      sums = &k->sums.one;
   } else {
      k->sums.many = ML_(dinfo_zalloc)("di.jitkeep.sums",
                                       n_blocks(size) * sizeof(UInt));
      sums = k->sums.many;
   }
   for (b = 0; b < n_blocks(size); b++) {
      UWord off = b * KEEP_BLOCK;
      sums[b] = block_sum(start + off, size - off < KEEP_BLOCK
                                       ? size - off : KEEP_BLOCK);
   }
   if (n_kept() == 0 || start < kept_lo)
      kept_lo = start;
   if (n_kept() == 0 || start + size > kept_hi)
      kept_hi = start + size;
   VG_(HT_add_node)(kept, k);
   if (g != NULL)
      g->n_left++;
   stats.kept++;
   if (by_request)
      stats.kept_by_request++;
   ML_(jit_count_unregistered)(1);
   /* Translated again when it runs: the tools look its name up then,
      which tells whether it ran after its withdrawal. */
   ML_(jit_discard_translations)(start, size, "jitkeep.keep");
   if (VG_(clo_trace_jit)) {
      /* As the registry's "unregister" line (jitreg.c's retire_fn),
         which readers of the trace match. */
      const JitFn* f = ML_(jit_fn_at)(ML_(jit_fn_starting_at)(start));
      VG_(dmsg)("jit: unregister %#lx-%#lx %s (%s), kept while its code"
                " stays mapped and unchanged\n", start, start + size,
                ML_(jit_name_str)(f->name), ML_(jit_object_at)(f->obj)->name);
   }
   return True;
}

UWord ML_(jit_keep_unregistered) ( const Addr* starts, UWord n,
                                   Bool has_cfi, Addr cfi_lo,
                                   JitCfiOwner owner, UWord cfi_key )
{
   UWord      i, n_kept = 0;
   KeptGroup* g = ML_(dinfo_zalloc)("di.jitkeep.group", sizeof(KeptGroup));
   g->has_cfi = has_cfi;
   g->cfi_lo  = cfi_lo;
   g->owner   = owner;
   g->key     = cfi_key;
   for (i = 0; i < n; i++) {
      JitFnPos p = ML_(jit_fn_starting_at)(starts[i]);
      if (p.c == NULL || ML_(jit_is_kept)(starts[i]))
         continue;   /* gone, or kept already (a second withdrawal) */
      if (keep_fn(starts[i], ML_(jit_fn_at)(p)->size, g, False))
         n_kept++;
      else
         (void)ML_(jit_unregister)(starts[i]);
   }
   if (g->n_left == 0) {
      if (has_cfi)
         (void)ML_(jit_cfi_remove)(cfi_lo, owner, cfi_key);
      ML_(dinfo_free)(g);
   }
   return n_kept;
}

Int ML_(jit_unregister_keeping_code) ( Addr start )
{
   JitFnPos p = ML_(jit_fn_starting_at)(start);
   if (p.c == NULL || ML_(jit_is_kept)(start))
      return VG_JIT_ERR_NOT_REGISTERED;
   if (keep_fn(start, ML_(jit_fn_at)(p)->size, NULL, True))
      return VG_JIT_OK;
   return ML_(jit_unregister)(start);
}

UWord ML_(jit_unregister_range_keeping_code) ( Addr start, UWord size )
{
   Addr  cur, end, run_lo = 0, run_hi = 0;
   UWord n = 0;
   if (size == 0)
      return 0;
   end = start + ML_(jit_range_clip)(start, size);
   /* Functions that cannot be kept are unregistered a run at a time
      (one discard and one epoch per run, as for a plain range);
      searched afresh each time, as keeping calls out. */
   for (cur = start; cur < end; ) {
      JitFnPos p = ML_(jit_first_intersecting)(cur, end - cur);
      Addr     s;
      UWord    sz;
      if (p.c == NULL)
         break;
      s   = ML_(jit_fn_at)(p)->start;
      sz  = ML_(jit_fn_at)(p)->size;
      cur = s + sz;
      if (!ML_(jit_is_kept)(s)) {
         n++;   /* registered until now */
         if (!keep_fn(s, sz, NULL, True)) {
            if (run_hi == 0)
               run_lo = s;
            run_hi = s + sz;
            continue;
         }
      }
      /* A kept function ends a run (the run's removal would end it). */
      if (run_hi != 0)
         (void)ML_(jit_unregister_range)(run_lo, run_hi - run_lo);
      run_hi = 0;
   }
   if (run_hi != 0)
      (void)ML_(jit_unregister_range)(run_lo, run_hi - run_lo);
   return n;
}

/* Whether the bytes of k's block b are what they were when k was
   kept. */
static Bool block_intact ( const KeptFn* k, UWord b )
{
   UWord off = b * KEEP_BLOCK;
   UWord len = k->size - off < KEEP_BLOCK ? k->size - off : KEEP_BLOCK;
   return VG_(am_is_valid_for_client)(k->start + off, len, VKI_PROT_READ)
          && block_sum(k->start + off, len) == sums_of(k)[b];
}

/* Ends the kept function [start, start+size) through the registry, for
   reason why, its code gone at time gone (VG_(jit_time_now)'s clock;
   0: now). */
static void end_kept ( Addr start, UWord size, ULong gone, JitKeptEnd why )
{
   ending = True;
   (void)ML_(jit_remove_for_keep)(start, size, gone, why);
   ending = False;
}

void ML_(jit_kept_note_lookup) ( DiEpoch ep, const JitFn* f, Addr a )
{
   KeptFn*    k;
   KeptChange c;
   if (LIKELY(kept == NULL) || a < kept_lo || a >= kept_hi
       || n_kept() == 0)
      return;
   k = VG_(HT_lookup)(kept, f->start);
   /* Older epochs describe what ran then; and the lookups made while
      this file ends a function describe the code being discarded. */
   if (k == NULL || k->changed || ep.n != VG_(current_DiEpoch)().n
       || ending)
      return;
   if (block_intact(k, (a - k->start) / KEEP_BLOCK)) {
      if (!k->looked_up) {
         k->looked_up = True;
         stats.looked_up++;
         if (k->by_request)
            stats.looked_up_by_request++;
      }
      return;
   }
   c.start = k->start;
   c.size  = k->size;
   c.seen  = ML_(jit_now)();
   if (changes == NULL)
      changes = VG_(newXA)(ML_(dinfo_zalloc), "di.jitkeep.changes",
                           ML_(dinfo_free), sizeof(KeptChange));
   VG_(addToXA)(changes, &c);
   k->changed = True;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: kept %#lx-%#lx: its bytes at %#lx changed\n",
                k->start, k->start + k->size, a);
}

void VG_(jit_note_code_changed) ( Addr a, SizeT len )
{
   XArray* todo = kept_in_range(a, &len);
   Addr    last;
   Word    i;
   if (todo == NULL)
      return;
   last = ML_(jit_range_last)(a, len);
   for (i = 0; i < VG_(sizeXA)(todo); i++) {
      const KeptFn* t = VG_(indexXA)(todo, i);
      UWord b, lo, hi;
      Bool  intact = True;
      /* The blocks of t that [a, last] covers. */
      lo = (a > t->start ? a - t->start : 0) / KEEP_BLOCK;
      hi = (last < t->start + t->size - 1
            ? last - t->start : t->size - 1) / KEEP_BLOCK;
      for (b = lo; b <= hi && intact; b++)
         intact = block_intact(t, b);
      if (intact)
         continue;
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit: kept %#lx-%#lx: its code changed\n",
                   t->start, t->start + t->size);
      end_kept(t->start, t->size, 0, JitKeptWritten);
   }
   VG_(deleteXA)(todo);
}

Bool ML_(jit_kept_retired) ( const JitFn* f, JitKeptEnd why )
{
   KeptFn*    k;
   KeptGroup* g;
   if (n_kept() == 0)
      return False;
   k = VG_(HT_remove)(kept, f->start);
   if (k == NULL)
      return False;
   stats.ended[why]++;
   if (VG_(clo_trace_jit)) {
      static const HChar* const because[JitKept_N] = {
         "its memory was unmapped", "new code was announced there",
         "its code was written or made writable", "it was removed"
      };
      VG_(dmsg)("jit: kept %#lx-%#lx %s ends: %s\n", f->start,
                f->start + f->size, ML_(jit_name_str)(f->name),
                because[why]);
   }
   g = k->group;
   if (g != NULL && --g->n_left == 0) {
      if (g->has_cfi)
         (void)ML_(jit_cfi_remove)(g->cfi_lo, g->owner, g->key);
      ML_(dinfo_free)(g);
   }
   if (k->size > KEEP_BLOCK)
      ML_(dinfo_free)(k->sums.many);
   VG_(freeEltPA)(kept_nodes, k);
   return True;
}

void ML_(jit_kept_end_range) ( Addr a, SizeT len, JitKeptEnd why )
{
   XArray* todo = kept_in_range(a, &len);
   Word    i;
   if (todo == NULL)
      return;
   /* Removing calls out (discards): the set changes under us, so work
      from the copies. */
   for (i = 0; i < VG_(sizeXA)(todo); i++) {
      const KeptFn* t = VG_(indexXA)(todo, i);
      end_kept(t->start, t->size, 0, why);
   }
   VG_(deleteXA)(todo);
}

void ML_(jit_kept_notify_mprotect) ( Addr a, SizeT len, UInt prot )
{
   if ((prot & VKI_PROT_WRITE) || !(prot & VKI_PROT_EXEC))
      ML_(jit_kept_end_range)(a, len, JitKeptWritten);
}

void ML_(jit_kept_at_safe_point) ( void )
{
   while (changes != NULL && VG_(sizeXA)(changes) > 0) {
      Word       last = VG_(sizeXA)(changes) - 1;
      KeptChange c    = *(const KeptChange*)VG_(indexXA)(changes, last);
      KeptFn*    k;
      VG_(dropTailXA)(changes, 1);
      k = kept ? VG_(HT_lookup)(kept, c.start) : NULL;
      if (k == NULL || !k->changed)
         continue;   /* ended meanwhile */
      /* Gone when the change was seen, before the tool translated the
         new code unnamed: VG_(jit_late_name_epoch_at) never gives the
         new code this name. */
      end_kept(c.start, c.size, c.seen, JitKeptWritten);
   }
}

void ML_(jit_kept_print_summary) ( void )
{
   if (stats.kept == 0)
      return;
   VG_(umsg)("JIT: %llu unregistered functions kept their names while"
             " their code stayed mapped and unchanged, %llu of them looked"
             " up after that (their code ran or was described); ended:"
             " %llu unmapped, %llu reused, %llu written, %llu otherwise;"
             " %llu kept at exit; client requests withdrew %llu of them,"
             " %llu looked up after that\n",
             stats.kept, stats.looked_up, stats.ended[JitKeptUnmapped],
             stats.ended[JitKeptReused], stats.ended[JitKeptWritten],
             stats.ended[JitKeptOther], ML_(jit_n_kept)(),
             stats.kept_by_request, stats.looked_up_by_request);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
