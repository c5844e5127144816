/*--------------------------------------------------------------------*/
/*--- JIT code registry: the function store, live functions in     ---*/
/*--- address order, and archived ones.                 jitstore.c ---*/
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

/* Live functions are kept sorted by address in chunks of up to
   FNS_PER_CHUNK records; each chunk holds the functions that start in
   its address range, the chunks' ranges partition the address space,
   and the chunks are found through an OSet (AVL tree) whose comparator
   matches any address in a chunk's range.  So a lookup is an AVL
   descent over n/FNS_PER_CHUNK nodes plus a binary search inside one
   chunk, and an ELF lookup, which m_debuginfo tries first, costs
   nothing extra.  JITs emit code upward through a code heap: a function
   above every other one is appended to the last chunk without any
   search, and a full chunk is then continued by a new one rather than
   split, so ascending registrations fill chunks completely.  Removing a
   range removes each chunk's part of it with one move of the records
   after it.

   Line tables are rare (a JIT that gives them gives them for every
   function, but most give none): they are kept in a hash table by start
   address, which a record's has_extra bit says to look in.  Load times
   (jitdump CODE_LOAD timestamps, kept only where code ran unnamed before
   the record was read) are kept in an array of FNS_PER_CHUNK times that
   a chunk gets when the first function with one joins it, moved with
   the records: 8 bytes per function where they are kept, none
   elsewhere.

   Functions removed under --keep-debuginfo=yes are archived in an
   XArray with their last epoch and their line table; only lookups for
   old epochs search it. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_hashtable.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"   /* VG_(printf) */
#include "pub_core_mallocfree.h" /* VG_(arena_malloc) */
#include "pub_core_oset.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitstore.h"       /* self */
#include "priv_jitkeep.h"        /* kept functions, for v.info jit */

/* A function removed while --keep-debuginfo=yes: still describes its
   code for epochs fn.first_epoch .. last_epoch.  (Archived records may
   grow: live ones are the ones that count.) */
typedef
   struct {
      JitFn       fn;           /* fn.archived is set */
      UInt        last_epoch;
      JitLineTab* lines;        /* or NULL */
      ULong       loaded;       /* see ML_(jit_fn_loaded) */
      ULong       gone;         /* see ML_(jit_archive_fn) */
   }
   JitArchived;

/* The line table of the live function starting at start: a node of a
   VgHashTable (its first two fields are VgHashNode's). */
typedef
   struct _JitFnExtras {
      struct _JitFnExtras* next;
      UWord       start;        /* the key */
      JitLineTab* lines;
   }
   JitFnExtras;

static OSet*       chunks       = NULL;  /* of JitFnChunk */
static JitFnChunk* first_chunk  = NULL;  /* lo == 0 */
static JitFnChunk* recent_chunk = NULL;  /* the last one looked up */
/* The last chunk (last == ~0) and the count of live functions. */
JitStoreTail       ML_(jit_store_tail) = { NULL, 0 };
static XArray*     archived_fns = NULL;  /* of JitArchived */
/* The highest last_epoch in archived_fns: lookups of a later epoch (the
   current one, while the program runs) need not search the archive. */
static UInt        archived_last_epoch_max = 0;
static VgHashTable* fn_extras   = NULL;  /* of JitFnExtras, by start */

/* The archive by address: its entries sorted by start (then by archive
   index), each with the highest end of the entries up to it, so that
   the entries containing an address are found by a binary search and a
   walk down that stops where no earlier entry reaches the address.
   Rebuilt when the archive has grown since (archived functions are
   asked about mostly at exit, when it no longer grows). */
typedef
   struct {
      Addr start;
      Addr end;       /* start + size */
      Addr max_end;   /* of this entry and those before it */
      Word idx;       /* in archived_fns */
   }
   ArchivedSpan;

static ArchivedSpan* spans   = NULL;
static Word          n_spans = 0;

static Word cmp_addr_in_chunk ( const void* keyV, const void* elemV )
{
   Addr              a = *(const Addr*)keyV;
   const JitFnChunk* c = elemV;
   if (a < c->lo)   return -1;
   if (a > c->last) return 1;
   return 0;
}

/* Chunks are not zeroed by their allocation: VG_(OSetGen_AllocNode)
   zeroes each one (ML_(dinfo_zalloc) zeroed their 1.5 KiB a second
   time, a twentieth of a registration's own work when a JIT fills
   chunks in order). */
static void* chunk_alloc ( const HChar* cc, SizeT szB )
{
   return VG_(arena_malloc)(VG_AR_DINFO, cc, szB);
}

static void init_store ( void )
{
   if (LIKELY(chunks != NULL))
      return;
   chunks = VG_(OSetGen_Create)(offsetof(JitFnChunk, lo), cmp_addr_in_chunk,
                                chunk_alloc, "di.jitstore.chunks",
                                ML_(dinfo_free));
   first_chunk = VG_(OSetGen_AllocNode)(chunks, sizeof(JitFnChunk));
   first_chunk->lo   = 0;
   first_chunk->last = ~(Addr)0;
   first_chunk->prev = first_chunk->next = NULL;
   first_chunk->n    = 0;
   first_chunk->loaded = NULL;
   VG_(OSetGen_Insert)(chunks, first_chunk);
   ML_(jit_store_tail).last_chunk = recent_chunk = first_chunk;
}


/*------------------------------------------------------------*/
/*--- Finding functions                                    ---*/
/*------------------------------------------------------------*/

/* The chunk whose range contains a.  The store exists. */
static JitFnChunk* chunk_for ( Addr a )
{
   JitFnChunk* c = recent_chunk;
   if (a >= c->lo && a <= c->last)
      return c;
   c = VG_(OSetGen_Lookup)(chunks, &a);
   vg_assert(c != NULL);   /* the ranges cover every address */
   recent_chunk = c;
   return c;
}

/* How many of c's functions start at or below a. */
static UInt count_at_or_below ( const JitFnChunk* c, Addr a )
{
   UInt lo = 0, hi = c->n;
   if (hi > 0 && c->fns[hi - 1].start <= a)
      return hi;   /* the common case when appending */
   while (lo < hi) {
      UInt mid = lo + (hi - lo) / 2;
      if (c->fns[mid].start <= a) lo = mid + 1; else hi = mid;
   }
   return lo;
}

/* The live function with the highest start <= a, or none. */
static JitFnPos floor_fn ( Addr a )
{
   JitFnPos    p = { NULL, 0 };
   JitFnChunk* c;
   UInt        k;
   if (chunks == NULL)
      return p;
   c = chunk_for(a);
   k = count_at_or_below(c, a);
   if (k > 0) {
      p.c = c;
      p.i = k - 1;
   } else if (c->prev != NULL) {
      /* Chunks other than a sole one are never empty. */
      p.c = c->prev;
      p.i = c->prev->n - 1;
   }
   return p;
}

/* The function after p (p == none: the first one), or none. */
static JitFnPos next_fn ( JitFnPos p )
{
   JitFnPos none = { NULL, 0 };
   if (p.c == NULL) {
      if (first_chunk == NULL || first_chunk->n == 0)
         return none;
      p.c = first_chunk;
      p.i = 0;
      return p;
   }
   if (p.i + 1 < p.c->n) {
      p.i++;
      return p;
   }
   if (p.c->next == NULL)
      return none;
   p.c = p.c->next;
   p.i = 0;
   return p;
}

JitFnPos ML_(jit_fn_containing) ( Addr a )
{
   JitFnPos p = floor_fn(a);
   if (p.c != NULL && a - ML_(jit_fn_at)(p)->start >= ML_(jit_fn_at)(p)->size)
      p.c = NULL;
   return p;
}

JitFnPos ML_(jit_fn_starting_at) ( Addr a )
{
   JitFnPos p = floor_fn(a);
   if (p.c != NULL && ML_(jit_fn_at)(p)->start != a)
      p.c = NULL;
   return p;
}

JitFnPos ML_(jit_first_intersecting) ( Addr a, SizeT len )
{
   JitFnPos    p;
   const JitFn* top;
   JitFnChunk* tail;
   init_store();
   /* Code emitted upward through a heap lies above every live function
      (they do not overlap, and none starts above the last one): nothing
      to search. */
   tail = ML_(jit_store_tail).last_chunk;
   top  = tail->n > 0 ? &tail->fns[tail->n - 1] : NULL;
   if (top == NULL || a >= top->start + top->size) {
      p.c = NULL;
      p.i = 0;
      return p;
   }
   p = floor_fn(a);
   if (p.c != NULL && a - ML_(jit_fn_at)(p)->start < ML_(jit_fn_at)(p)->size)
      return p;   /* contains a */
   p = next_fn(p);
   if (p.c != NULL && ML_(jit_fn_at)(p)->start - a >= len)
      p.c = NULL;
   return p;
}

ULong ML_(jit_n_live) ( void )
{
   return ML_(jit_store_tail).n_live;
}


/*------------------------------------------------------------*/
/*--- Adding and removing functions                        ---*/
/*------------------------------------------------------------*/

/* Gives c its array of load times (all 0) if it has none. */
static void ensure_loaded ( JitFnChunk* c )
{
   if (c->loaded == NULL)
      c->loaded = ML_(dinfo_zalloc)("di.jitstore.loaded",
                                    FNS_PER_CHUNK * sizeof(ULong));
}

/* Copies n load times from src's records [si, si+n) to dst's records
   [di, di+n) (within one chunk, the ranges may overlap), giving dst its
   array if it has none.  src has one. */
static void copy_loaded ( JitFnChunk* dst, UInt di,
                          const JitFnChunk* src, UInt si, UInt n )
{
   UInt k;
   ensure_loaded(dst);
   if (dst != src || di < si) {
      for (k = 0; k < n; k++)
         dst->loaded[di + k] = src->loaded[si + k];
   } else if (di > si) {
      for (k = n; k > 0; k--)
         dst->loaded[di + k - 1] = src->loaded[si + k - 1];
   }
}

/* Takes chunk c (empty, not the sole chunk) out: its range goes to its
   lower neighbour, or for the first chunk to the next one. */
static void drop_chunk ( JitFnChunk* c )
{
   JitFnChunk* removed = VG_(OSetGen_Remove)(chunks, &c->lo);
   vg_assert(removed == c && c->n == 0 && (c->prev || c->next));
   if (c->prev != NULL) {
      c->prev->last = c->last;
      c->prev->next = c->next;
   } else {
      c->next->lo = c->lo;   /* keeps the OSet ordered: c is gone */
      first_chunk = c->next;
   }
   if (c->next != NULL)
      c->next->prev = c->prev;
   else
      ML_(jit_store_tail).last_chunk = c->prev;
   if (recent_chunk == c)
      recent_chunk = first_chunk;
   if (c->loaded != NULL)
      ML_(dinfo_free)(c->loaded);
   VG_(OSetGen_FreeNode)(chunks, c);
}

/* Makes a chunk for the functions of c that start at or above lo
   (c->lo < lo <= c->last): moves c's records from index k on into it. */
static JitFnChunk* split_chunk ( JitFnChunk* c, Addr lo, UInt k )
{
   JitFnChunk* d = VG_(OSetGen_AllocNode)(chunks, sizeof(JitFnChunk));
   d->lo   = lo;
   d->last = c->last;
   d->n    = c->n - k;
   VG_(memcpy)(d->fns, &c->fns[k], d->n * sizeof(JitFn));
   d->loaded = NULL;
   if (c->loaded != NULL)
      copy_loaded(d, 0, c, k, d->n);
   c->n    = k;
   c->last = lo - 1;
   d->prev = c;
   d->next = c->next;
   if (c->next != NULL)
      c->next->prev = d;
   else
      ML_(jit_store_tail).last_chunk = d;
   c->next = d;
   VG_(OSetGen_Insert)(chunks, d);
   return d;
}

/* Moves n records from src to dst within one chunk (the ranges may
   overlap), a record at a time: Valgrind's VG_(memmove) goes byte by
   byte, and a chunk holds up to FNS_PER_CHUNK records. */
static void move_fns ( JitFn* dst, const JitFn* src, UInt n )
{
   UInt k;
   if (dst < src) {
      for (k = 0; k < n; k++)
         dst[k] = src[k];
   } else if (dst > src) {
      for (k = n; k > 0; k--)
         dst[k - 1] = src[k - 1];
   }
}

void ML_(jit_insert_fn) ( const JitFn* f, JitLineTab* lines, ULong loaded )
{
   JitFnChunk* c;
   UInt        k;
   init_store();
   if (UNLIKELY(lines != NULL)) {
      JitFnExtras* fx;
      if (fn_extras == NULL)
         fn_extras = VG_(HT_construct)("di.jitstore.extras");
      fx = ML_(dinfo_zalloc)("di.jitstore.extras.1", sizeof(JitFnExtras));
      fx->start  = f->start;
      fx->lines  = lines;
      VG_(HT_add_node)(fn_extras, fx);
   }
   c = chunk_for(f->start);
   k = count_at_or_below(c, f->start);
   if (c->n == FNS_PER_CHUNK) {
      if (k == FNS_PER_CHUNK) {
         /* Above everything in c (a JIT filling its code heap upward):
            start a new chunk instead of splitting a full one. */
         c = split_chunk(c, f->start, k);
         k = 0;
      } else {
         UInt half = FNS_PER_CHUNK / 2;
         JitFnChunk* d = split_chunk(c, c->fns[half].start, half);
         if (k > half) {
            c = d;
            k -= half;
         }
      }
      recent_chunk = c;
   }
   if (k < c->n) {
      move_fns(&c->fns[k + 1], &c->fns[k], c->n - k);
      if (c->loaded != NULL)
         copy_loaded(c, k + 1, c, k, c->n - k);
   }
   c->fns[k] = *f;
   c->fns[k].has_extra = lines != NULL;
   c->fns[k].archived  = 0;
   if (UNLIKELY(loaded != 0))
      ensure_loaded(c);
   if (c->loaded != NULL)
      c->loaded[k] = loaded;
   c->n++;
   ML_(jit_store_tail).n_live++;
}

/* Merges or drops the chunk when it runs low. */
void ML_(jit_remove_fns) ( JitFnChunk* c, UInt i, UInt j )
{
   JitFnChunk* d = c->next;
   vg_assert(i < j && j <= c->n);
   move_fns(&c->fns[i], &c->fns[j], c->n - j);
   if (c->loaded != NULL)
      copy_loaded(c, i, c, j, c->n - j);
   c->n -= j - i;
   ML_(jit_store_tail).n_live -= j - i;
   if (c->n == 0) {
      if (c->prev != NULL || c->next != NULL)
         drop_chunk(c);
   } else if (d != NULL && c->n < FNS_PER_CHUNK / 4
              && c->n + d->n <= FNS_PER_CHUNK / 2) {
      /* Two sparse neighbours: d's records move into c. */
      VG_(memcpy)(&c->fns[c->n], d->fns, d->n * sizeof(JitFn));
      if (d->loaded != NULL) {
         copy_loaded(c, c->n, d, 0, d->n);
      } else if (c->loaded != NULL) {
         UInt k;
         for (k = 0; k < d->n; k++)
            c->loaded[c->n + k] = 0;
      }
      c->n += d->n;
      d->n  = 0;
      drop_chunk(d);   /* gives d's range to c */
   }
}


/*------------------------------------------------------------*/
/*--- Line tables                                          ---*/
/*------------------------------------------------------------*/

/* The archived record whose fn is *f (f->archived is set). */
static const JitArchived* archived_of ( const JitFn* f )
{
   return (const JitArchived*)((const HChar*)f - offsetof(JitArchived, fn));
}

/* The extras of live function f (f->has_extra is set). */
static JitFnExtras* extras_of ( const JitFn* f )
{
   JitFnExtras* fx = VG_(HT_lookup)(fn_extras, f->start);
   vg_assert(fx != NULL);
   return fx;
}

const JitLineTab* ML_(jit_fn_lines) ( const JitFn* f )
{
   if (LIKELY(!f->has_extra))
      return NULL;
   if (f->archived)
      return archived_of(f)->lines;
   return extras_of(f)->lines;
}

/* The load time of live function f (a record of the store, not a
   copy). */
static ULong live_loaded ( const JitFn* f )
{
   const JitFnChunk* c = chunk_for(f->start);
   vg_assert(f >= c->fns && f < c->fns + c->n);
   return c->loaded != NULL ? c->loaded[f - c->fns] : 0;
}

ULong ML_(jit_fn_loaded) ( const JitFn* f )
{
   if (f->archived)
      return archived_of(f)->loaded;
   return live_loaded(f);
}

JitLineTab* ML_(jit_fn_take_extras) ( JitFn* f, /*OUT*/ULong* loaded )
{
   JitFnExtras* fx;
   JitLineTab*  lines;
   vg_assert(!f->archived);
   *loaded = live_loaded(f);
   if (LIKELY(!f->has_extra))
      return NULL;
   fx = VG_(HT_remove)(fn_extras, f->start);
   vg_assert(fx != NULL);
   lines   = fx->lines;
   ML_(dinfo_free)(fx);
   f->has_extra = 0;
   return lines;
}


/*------------------------------------------------------------*/
/*--- Archived functions                                   ---*/
/*------------------------------------------------------------*/

void ML_(jit_archive_fn) ( const JitFn* f, JitLineTab* lines,
                           ULong loaded, UInt last_epoch, ULong gone )
{
   JitArchived ar;
   if (archived_fns == NULL)
      archived_fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitstore.archived",
                                ML_(dinfo_free), sizeof(JitArchived));
   VG_(memset)(&ar, 0, sizeof(ar));
   ar.fn           = *f;
   ar.fn.has_extra = lines != NULL;
   ar.fn.archived  = 1;
   ar.last_epoch   = last_epoch;
   ar.lines        = lines;
   ar.loaded       = loaded;
   ar.gone         = gone;
   VG_(addToXA)(archived_fns, &ar);
   if (last_epoch > archived_last_epoch_max)
      archived_last_epoch_max = last_epoch;
}

Word ML_(jit_n_archived) ( void )
{
   return archived_fns == NULL ? 0 : VG_(sizeXA)(archived_fns);
}

const JitFn* ML_(jit_archived_nth) ( Word i, /*OUT*/UInt* last_epoch,
                                     /*OUT*/ULong* gone )
{
   const JitArchived* ar = VG_(indexXA)(archived_fns, i);
   *last_epoch = ar->last_epoch;
   *gone       = ar->gone;
   return &ar->fn;
}

static Int cmp_span ( const void* va, const void* vb )
{
   const ArchivedSpan* a = va;
   const ArchivedSpan* b = vb;
   if (a->start != b->start) return a->start < b->start ? -1 : 1;
   if (a->idx != b->idx)     return a->idx < b->idx ? -1 : 1;
   return 0;
}

static void update_spans ( void )
{
   Word i, n = ML_(jit_n_archived)();
   if (n == n_spans)
      return;
   if (spans != NULL)
      ML_(dinfo_free)(spans);
   spans = ML_(dinfo_zalloc)("di.jitstore.spans", n * sizeof(ArchivedSpan));
   for (i = 0; i < n; i++) {
      const JitArchived* ar = VG_(indexXA)(archived_fns, i);
      spans[i].start = ar->fn.start;
      spans[i].end   = ar->fn.start + ar->fn.size;
      spans[i].idx   = i;
   }
   VG_(ssort)(spans, n, sizeof(ArchivedSpan), cmp_span);
   for (i = 0; i < n; i++)
      spans[i].max_end = i > 0 && spans[i - 1].max_end > spans[i].end
                            ? spans[i - 1].max_end : spans[i].end;
   n_spans = n;
}

/* How many spans start below `below`. */
static Word spans_starting_below ( Addr below )
{
   Word lo = 0, hi = n_spans;
   while (lo < hi) {
      Word mid = lo + (hi - lo) / 2;
      if (spans[mid].start < below) lo = mid + 1; else hi = mid;
   }
   return lo;
}

Word ML_(jit_archived_next_covering) ( Addr a, /*MOD*/Word* it )
{
   if (*it == -1) {
      update_spans();
      *it = spans_starting_below(a + 1);   /* spans[*it - 1] next */
   }
   while (*it > 0 && spans[*it - 1].max_end > a) {
      const ArchivedSpan* sp = &spans[--(*it)];
      if (sp->end > a)
         return sp->idx;
   }
   *it = 0;   /* done: later calls find nothing either */
   return -1;
}

Bool ML_(jit_archived_overlaps) ( Addr a, SizeT len )
{
   Word i;
   update_spans();
   for (i = spans_starting_below(a + len) - 1;
        i >= 0 && spans[i].max_end > a; i--)
      if (spans[i].end > a)
         return True;
   return False;
}

const JitFn* ML_(jit_find_archived) ( DiEpoch ep, Addr a )
{
   Word it = -1, k, newest = -1;
   /* Every lookup of code without a live function gets here: only
      those of an epoch some archived function was valid in (errors
      recorded before the code changed, late names of freed code) look
      in the archive. */
   if (archived_fns == NULL || ep.n > archived_last_epoch_max)
      return NULL;
   while ((k = ML_(jit_archived_next_covering)(a, &it)) >= 0) {
      const JitArchived* ar = VG_(indexXA)(archived_fns, k);
      if (k > newest && ar->fn.first_epoch <= ep.n && ep.n <= ar->last_epoch)
         newest = k;
   }
   return newest < 0 ? NULL
                     : &((JitArchived*)VG_(indexXA)(archived_fns, newest))->fn;
}

void ML_(jit_rename_all) ( JitNameId (*remap)(JitNameId) )
{
   JitFnChunk* c;
   UInt        i;
   Word        k;
   for (c = first_chunk; c != NULL; c = c->next)
      for (i = 0; i < c->n; i++)
         c->fns[i].name = remap(c->fns[i].name);
   for (k = 0; archived_fns != NULL && k < VG_(sizeXA)(archived_fns); k++) {
      JitArchived* ar = VG_(indexXA)(archived_fns, k);
      ar->fn.name = remap(ar->fn.name);
   }
}


void ML_(jit_print_live_fns) ( Addr a, SizeT len, const HChar* objname )
{
   JitFnPos p;
   ULong    n_match = 0;
   ULong    n_kept  = ML_(jit_n_kept)();
   Addr     end = ML_(jit_range_last)(a, len);
   for (p = ML_(jit_first_intersecting)(a, len); p.c != NULL;
        p = next_fn(p)) {
      const JitFn*     f = ML_(jit_fn_at)(p);
      const JitObject* obj;
      if (f->start > end)
         break;
      obj = ML_(jit_object_at)(f->obj);
      if (objname == NULL || VG_(strcmp)(obj->name, objname) == 0) {
         n_match++;
         if (n_match <= JIT_MAX_LISTED)
            VG_(printf)("%#lx-%#lx %s (%s), %u line entries%s\n", f->start,
                        f->start + f->size, ML_(jit_name_str)(f->name),
                        obj->name, ML_(jit_fn_lines)(f)
                                   ? ML_(jit_fn_lines)(f)->n_lines : 0,
                        n_kept > 0 && ML_(jit_is_kept)(f->start)
                           ? ", kept after its unregistration (code still"
                             " mapped)" : "");
      }
   }
   if (n_match > JIT_MAX_LISTED)
      VG_(printf)("... %llu more (give an address range or an object)\n",
                  n_match - JIT_MAX_LISTED);
   if (n_kept == 0)
      VG_(printf)("JIT: %llu functions live, %llu listed here\n",
                  ML_(jit_n_live)(), n_match);
   else
      VG_(printf)("JIT: %llu functions live and %llu kept after their "
                  "unregistration, %llu listed here\n",
                  ML_(jit_n_live)() - n_kept, n_kept, n_match);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
