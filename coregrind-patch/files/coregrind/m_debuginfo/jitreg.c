
/*--------------------------------------------------------------------*/
/*--- The JIT code registry: names, objects and line tables for    ---*/
/*--- code that a JIT announces.                         jitreg.c ---*/
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

/* Design
   ------
   A JIT function is a JitFn record of 32 bytes: [start, start+size), a
   name, the JIT object it belongs to and an optional line table.  Live
   functions never overlap.  They are kept sorted by address in chunks
   of up to FNS_PER_CHUNK records; each chunk holds the functions that
   start in its address range, the chunks' ranges partition the address
   space, and the chunks are found through an OSet (AVL tree) whose
   comparator matches any address in a chunk's range.  So a lookup is an
   AVL descent over n/FNS_PER_CHUNK nodes plus a binary search inside
   one chunk, and an ELF lookup, which m_debuginfo tries first, costs
   nothing extra.  JITs emit code upward through a code heap: a function
   above every other one is appended to the last chunk without any
   search, and a full chunk is then continued by a new one rather than
   split, so ascending registrations fill chunks completely.  Removing a
   range removes each chunk's part of it with one move of the records
   after it.

   Names live in a pool of 64 KiB chunks with a reference count, and a
   record refers to its name by a 32-bit JitNameId.  A registration whose
   name is in its slot of a small table of recently registered names (a
   JIT recompiling a hot function) shares that copy; otherwise the name
   is appended to the pool, with no search.  A name whose count drops to
   zero stays in the pool until the pool is compacted (at a safe point,
   once the dead bytes outnumber the live ones), after the symbol-name
   cache of m_debuginfo, which holds name pointers, has been
   invalidated.

   Each JIT object owns a synthetic DebugInfo (see priv_jitreg.h) holding
   its name (Callgrind's ob=) and its pool of source file names.

   Epochs: every change advances the DebugInfo epoch, exactly as loading
   or unloading an ELF object does.  A function records the epoch it was
   registered in; with --keep-debuginfo=yes a removed function is
   archived with its last epoch (and the ExeContexts that mention its
   code are pinned to that epoch), so errors recorded earlier still print
   its name.  Without it, removed functions are freed.

   Order of operations (Callgrind finds the BB to forget from the current
   names): translations of a range are discarded before the names in the
   range change.  Discarding calls the tool, which may look names up, and
   a lookup may register a function from a producer file: positions in
   the chunks are therefore found again after every discard. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_threadstate.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_oset.h"
#include "pub_core_hashtable.h"
#include "pub_core_xarray.h"
#include "pub_core_execontext.h"
#include "pub_core_transtab.h"
#include "pub_core_jitreg.h"     /* self */

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_jitreg.h"         /* self */

#include "jit.h"                 /* the client API: codes and layouts */


/*------------------------------------------------------------*/
/*--- Options and counters                                 ---*/
/*------------------------------------------------------------*/

Bool VG_(clo_trace_jit)    = False;
Bool VG_(clo_jit_perf_map) = False;
Bool VG_(clo_jit_dump)     = True;

static struct {
   ULong registered;     /* functions added */
   ULong replaced;       /* functions dropped because new code overlapped */
   ULong unregistered;   /* functions dropped by an unregister request */
   ULong unmapped;       /* functions dropped because their memory went */
   ULong refused;        /* requests refused (bad input) */
   ULong lines_dropped;  /* line-table entries dropped */
   ULong archived;       /* functions kept for old epochs */
   ULong compactions;    /* name pool compactions */
   ULong names_freed;    /* name pool bytes freed by them */
} stats;

/* At most this many refusal warnings are printed under -v. */
#define MAX_WARNINGS 100
static UInt n_warnings = 0;

/* Status of each thread's most recent JIT request, indexed by ThreadId
   (VG_N_THREADS entries, allocated on the first request). */
static UChar* last_status = NULL;

static void set_last_status ( ThreadId tid, Vg_JitStatus st )
{
   if (last_status == NULL)
      last_status = ML_(dinfo_zalloc)("di.jitreg.last_status", VG_N_THREADS);
   last_status[tid] = (UChar)st;
}


/*------------------------------------------------------------*/
/*--- Data structures                                      ---*/
/*------------------------------------------------------------*/

/* A reference to a name in the pool: 1 + (chunk index << NAME_OFFSET_BITS
   | byte offset / 4) in the name pool; 0 means none. */
typedef UInt JitNameId;

/* A function name in the name pool (4-byte aligned). */
typedef
   struct {
      UInt  refs;    /* live and archived JitFns using it; NAME_MOVED
                        once copied by a compaction */
      UInt  hash;    /* hash_name of str; once moved, the new copy's id */
      HChar str[0];  /* NUL-terminated */
   }
   JitName;

/* A JIT object: the module a function belongs to. */
typedef
   struct _JitObject {
      struct _JitObject* next;
      UWord              key;    /* hash of the name */
      const HChar*       name;   /* == di->fsm.filename */
      DebugInfo*         di;     /* synthetic, never on debugInfo_list */
      UInt               index;  /* in object_list */
   }
   JitObject;

/* One line-table entry: code from `offset` up to the next entry's offset
   (or the end of the function) comes from line `line` of the file
   `fndn_ix` (an index in the object's DebugInfo fndnpool). */
typedef
   struct {
      UInt offset;
      UInt line;
      UInt fndn_ix;
   }
   JitLine;

typedef
   struct {
      UInt    n_lines;
      JitLine lines[0];  /* sorted by offset, offsets unique */
   }
   JitLineTab;

/* A registered function: 32 bytes. */
typedef
   struct {
      Addr        start;
      UInt        size;         /* bytes, > 0; start+size never wraps */
      UInt        first_epoch;  /* epoch it was registered in */
      JitNameId   name;
      UInt        obj;          /* index in object_list */
      JitLineTab* lines;        /* or NULL */
   }
   JitFn;

/* A function removed while --keep-debuginfo=yes: still describes its
   code for epochs first_epoch..last_epoch. */
typedef
   struct {
      JitFn fn;
      UInt  last_epoch;
   }
   JitArchived;

/* Records per chunk: 64 * 32 bytes, so that a chunk is 2 KiB. */
#define FNS_PER_CHUNK 64

/* A chunk of live functions: those whose start is in [lo, last],
   sorted by start.  The chunks' ranges partition the address space (the
   first has lo == 0, the last has last == ~0) and are linked in address
   order.  Only a sole chunk is ever empty. */
typedef
   struct _JitFnChunk {
      Addr                lo;     /* the OSet key */
      Addr                last;
      struct _JitFnChunk* prev;
      struct _JitFnChunk* next;
      UInt                n;      /* records in use */
      JitFn               fns[FNS_PER_CHUNK];
   }
   JitFnChunk;

/* A function's place: fns[i] of chunk c; c == NULL for none. */
typedef
   struct {
      JitFnChunk* c;
      UInt        i;
   }
   JitFnPos;

static OSet*        chunks        = NULL;  /* of JitFnChunk */
static JitFnChunk*  first_chunk   = NULL;  /* lo == 0 */
static JitFnChunk*  last_chunk    = NULL;  /* last == ~0 */
static JitFnChunk*  recent_chunk  = NULL;  /* the last one looked up */
static ULong        n_live        = 0;     /* live functions */
static VgHashTable* objects       = NULL;  /* of JitObject, by name */
static XArray*      object_list   = NULL;  /* of JitObject*, by index */
static JitObject*   recent_object = NULL;
static XArray*      archived_fns  = NULL;  /* of JitArchived */

static Word cmp_addr_in_chunk ( const void* keyV, const void* elemV )
{
   Addr              a = *(const Addr*)keyV;
   const JitFnChunk* c = elemV;
   if (a < c->lo)   return -1;
   if (a > c->last) return 1;
   return 0;
}

static void init_registry ( void )
{
   if (LIKELY(chunks != NULL))
      return;
   chunks = VG_(OSetGen_Create)(offsetof(JitFnChunk, lo), cmp_addr_in_chunk,
                                ML_(dinfo_zalloc), "di.jitreg.chunks",
                                ML_(dinfo_free));
   first_chunk = VG_(OSetGen_AllocNode)(chunks, sizeof(JitFnChunk));
   first_chunk->lo   = 0;
   first_chunk->last = ~(Addr)0;
   first_chunk->prev = first_chunk->next = NULL;
   first_chunk->n    = 0;
   VG_(OSetGen_Insert)(chunks, first_chunk);
   last_chunk = recent_chunk = first_chunk;
   objects      = VG_(HT_construct)("di.jitreg.objects");
   object_list  = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.object_list",
                             ML_(dinfo_free), sizeof(JitObject*));
   archived_fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.archived",
                             ML_(dinfo_free), sizeof(JitArchived));
}


/*------------------------------------------------------------*/
/*--- The function chunks                                  ---*/
/*------------------------------------------------------------*/

static inline JitFn* fn_at ( JitFnPos p )
{
   return &p.c->fns[p.i];
}

/* The chunk whose range contains a.  The registry exists. */
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

/* The live function containing a, or none. */
static JitFnPos fn_containing ( Addr a )
{
   JitFnPos p = floor_fn(a);
   if (p.c != NULL && a - fn_at(p)->start >= fn_at(p)->size)
      p.c = NULL;
   return p;
}

/* The first live function intersecting [a, a+len) (len > 0), or none. */
static JitFnPos first_intersecting ( Addr a, SizeT len )
{
   JitFnPos p = floor_fn(a);
   if (p.c != NULL && a - fn_at(p)->start < fn_at(p)->size)
      return p;   /* contains a */
   p = next_fn(p);
   if (p.c != NULL && fn_at(p)->start - a >= len)
      p.c = NULL;
   return p;
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
      last_chunk = c->prev;
   if (recent_chunk == c)
      recent_chunk = first_chunk;
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
   c->n    = k;
   c->last = lo - 1;
   d->prev = c;
   d->next = c->next;
   if (c->next != NULL)
      c->next->prev = d;
   else
      last_chunk = d;
   c->next = d;
   VG_(OSetGen_Insert)(chunks, d);
   return d;
}

/* Inserts *f, which intersects no live function. */
static void insert_fn_record ( const JitFn* f )
{
   JitFnChunk* c = chunk_for(f->start);
   UInt        k = count_at_or_below(c, f->start);
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
   VG_(memmove)(&c->fns[k + 1], &c->fns[k], (c->n - k) * sizeof(JitFn));
   c->fns[k] = *f;
   c->n++;
   n_live++;
}

/* Removes records [i, j) of chunk c (whose contents are already
   released or archived), merging or dropping the chunk when it runs
   low. */
static void remove_fn_records ( JitFnChunk* c, UInt i, UInt j )
{
   JitFnChunk* d = c->next;
   vg_assert(i < j && j <= c->n);
   VG_(memmove)(&c->fns[i], &c->fns[j], (c->n - j) * sizeof(JitFn));
   c->n -= j - i;
   n_live -= j - i;
   if (c->n == 0) {
      if (c->prev != NULL || c->next != NULL)
         drop_chunk(c);
   } else if (d != NULL && c->n < FNS_PER_CHUNK / 4
              && c->n + d->n <= FNS_PER_CHUNK / 2) {
      /* Two sparse neighbours: d's records move into c. */
      VG_(memcpy)(&c->fns[c->n], d->fns, d->n * sizeof(JitFn));
      c->n += d->n;
      d->n  = 0;
      drop_chunk(d);   /* gives d's range to c */
   }
}


/*------------------------------------------------------------*/
/*--- Names                                                ---*/
/*------------------------------------------------------------*/

/* Name pool chunks of 64 KiB; offsets are stored in 4-byte units. */
#define NAME_CHUNK_SHIFT 16
#define NAME_CHUNK_SIZE  (1U << NAME_CHUNK_SHIFT)
#define NAME_OFFSET_BITS (NAME_CHUNK_SHIFT - 2)
#define NAME_MAX_CHUNKS  ((1U << (32 - NAME_OFFSET_BITS)) - 1)

/* Compaction waits until at least this many bytes are dead. */
#define NAME_MIN_DEAD_BYTES (1U << 20)

/* While the pool is compacted, a copied name's refs is this and its
   hash field holds the id of the new copy. */
#define NAME_MOVED 0x80000000U

/* Slots in the table of recently registered names (a power of two). */
#define RECENT_NAMES 4096

static struct {
   XArray* chunks;      /* of HChar*, NAME_CHUNK_SIZE bytes each */
   UInt    used;        /* bytes used in the last chunk */
   SizeT   live_bytes;  /* pool bytes of names with refs > 0 */
   SizeT   dead_bytes;  /* pool bytes of names with refs == 0 */
   /* Recently registered names, by hash: a registration whose name is
      here shares its copy.  An entry may be dead (refs == 0): it is
      revived. */
   struct { UInt hash; JitNameId id; } recent[RECENT_NAMES];
} names;

static UInt hash_name ( const HChar* s, SizeT len )
{
   /* FNV-1a, folded to 32 bits */
   ULong h = 14695981039346656037ULL;
   SizeT i;
   for (i = 0; i < len; i++) {
      h ^= (UChar)s[i];
      h *= 1099511628211ULL;
   }
   return (UInt)(h ^ (h >> 32));
}

static inline UInt name_bytes ( SizeT len )
{
   return (UInt)((sizeof(JitName) + len + 1 + 3) & ~(SizeT)3);
}

/* The name id refers to in the pool of chunks `pool`. */
static inline JitName* name_in ( const XArray* pool, JitNameId id )
{
   UInt   v     = id - 1;
   HChar* chunk = *(HChar**)VG_(indexXA)(pool, v >> NAME_OFFSET_BITS);
   return (JitName*)(chunk + ((v & ((1U << NAME_OFFSET_BITS) - 1)) << 2));
}

static inline JitName* name_at ( JitNameId id )
{
   return name_in(names.chunks, id);
}

static inline const HChar* name_str ( JitNameId id )
{
   return name_at(id)->str;
}

/* Appends a copy of s (len bytes) to the pool, with refs 0.  Returns
   its id. */
static JitNameId pool_add ( XArray* pool, /*MOD*/UInt* used,
                            const HChar* s, SizeT len, UInt hash )
{
   UInt      need = name_bytes(len);
   Word      n    = VG_(sizeXA)(pool);
   HChar*    chunk;
   JitName*  nm;
   JitNameId id;
   vg_assert(need <= NAME_CHUNK_SIZE);
   if (n == 0 || *used + need > NAME_CHUNK_SIZE) {
      if ((UWord)n >= NAME_MAX_CHUNKS)
         VG_(out_of_memory_NORETURN)("di.jitreg.namepool",
                                     NAME_CHUNK_SIZE,
                                     "too many JIT function names");
      chunk = ML_(dinfo_zalloc)("di.jitreg.namepool", NAME_CHUNK_SIZE);
      VG_(addToXA)(pool, &chunk);
      n++;
      *used = 0;
   } else {
      chunk = *(HChar**)VG_(indexXA)(pool, n - 1);
   }
   nm = (JitName*)(chunk + *used);
   nm->refs = 0;
   nm->hash = hash;
   VG_(memcpy)(nm->str, s, len);
   nm->str[len] = 0;
   id = 1 + (((UInt)(n - 1) << NAME_OFFSET_BITS) | (*used >> 2));
   *used += need;
   return id;
}

/* A copy of s (len bytes, no NUL inside) with one more reference: the
   recent copy if there is one, else a new one. */
static JitNameId intern_name ( const HChar* s, SizeT len )
{
   UInt      hash = hash_name(s, len);
   UInt      slot = hash & (RECENT_NAMES - 1);
   JitNameId id   = names.recent[slot].id;
   JitName*  nm;
   if (id != 0 && names.recent[slot].hash == hash) {
      nm = name_at(id);
      if (VG_(strncmp)(nm->str, s, len) == 0 && nm->str[len] == 0) {
         if (nm->refs == 0) {
            names.dead_bytes -= name_bytes(len);
            names.live_bytes += name_bytes(len);
         }
         nm->refs++;
         vg_assert(nm->refs < NAME_MOVED);
         return id;
      }
   }
   if (names.chunks == NULL)
      names.chunks = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.namechunks",
                                ML_(dinfo_free), sizeof(HChar*));
   id = pool_add(names.chunks, &names.used, s, len, hash);
   name_at(id)->refs = 1;
   names.live_bytes += name_bytes(len);
   names.recent[slot].hash = hash;
   names.recent[slot].id   = id;
   return id;
}

static void release_name ( JitNameId id )
{
   JitName* nm = name_at(id);
   UInt     bytes;
   vg_assert(nm->refs > 0);
   if (--nm->refs > 0)
      return;
   bytes = name_bytes(VG_(strlen)(nm->str));
   names.live_bytes -= bytes;
   names.dead_bytes += bytes;
}

/* The id of the copy of old_id in the new pool, copying it first. */
static JitNameId move_name ( XArray* pool, /*MOD*/UInt* used,
                             JitNameId old_id )
{
   JitName*  old = name_at(old_id);
   JitNameId new_id;
   if (old->refs == NAME_MOVED)
      return old->hash;
   new_id = pool_add(pool, used, old->str, VG_(strlen)(old->str), old->hash);
   name_in(pool, new_id)->refs = old->refs;
   old->refs = NAME_MOVED;
   old->hash = new_id;
   return new_id;
}

/* Moves the names in use into a fresh pool once the dead ones take
   more room than they do, and frees the old pool.  Only at a safe
   point: name pointers handed out by lookups become invalid. */
static void maybe_compact_names ( void )
{
   XArray*     pool;
   UInt        used = 0, i;
   Word        k;
   JitFnChunk* c;
   if (names.dead_bytes < NAME_MIN_DEAD_BYTES
       || names.dead_bytes < names.live_bytes)
      return;
   pool = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.namechunks",
                     ML_(dinfo_free), sizeof(HChar*));
   /* Every name in use belongs to a live or archived function.  (With
      --keep-debuginfo=yes every removed function is archived, so no
      name dies and the pool is never compacted; archived names are
      moved all the same, so that this holds whatever releases names.) */
   for (c = first_chunk; c != NULL; c = c->next)
      for (i = 0; i < c->n; i++)
         c->fns[i].name = move_name(pool, &used, c->fns[i].name);
   for (k = 0; k < VG_(sizeXA)(archived_fns); k++) {
      JitArchived* ar = VG_(indexXA)(archived_fns, k);
      ar->fn.name = move_name(pool, &used, ar->fn.name);
   }
   /* The symbol-name cache may point into the old pool. */
   ML_(invalidate_sym_name_cache_for_jit)();
   for (k = 0; k < VG_(sizeXA)(names.chunks); k++)
      ML_(dinfo_free)(*(HChar**)VG_(indexXA)(names.chunks, k));
   VG_(deleteXA)(names.chunks);
   names.chunks     = pool;
   names.used       = used;
   stats.compactions++;
   stats.names_freed += names.dead_bytes;
   names.dead_bytes = 0;
   VG_(memset)(names.recent, 0, sizeof(names.recent));
}


/*------------------------------------------------------------*/
/*--- Objects                                              ---*/
/*------------------------------------------------------------*/

static UWord hash_string ( const HChar* s )
{
   return hash_name(s, VG_(strlen)(s));
}

static inline JitObject* obj_of ( const JitFn* f )
{
   return *(JitObject**)VG_(indexXA)(object_list, f->obj);
}

static Word cmp_object_node ( const void* aV, const void* bV )
{
   const JitObject* a = aV;
   const JitObject* b = bV;
   return VG_(strcmp)(a->name, b->name);
}

/* The JIT object called objname, created on first use.  Objects live
   until the process exits (there are few of them). */
static JitObject* get_object ( const HChar* objname )
{
   JitObject  key;
   JitObject* obj;
   DebugInfo* di;

   if (recent_object != NULL && VG_(strcmp)(recent_object->name, objname) == 0)
      return recent_object;
   key.key  = hash_string(objname);
   key.name = objname;
   obj = VG_(HT_gen_lookup)(objects, &key, cmp_object_node);
   if (obj != NULL) {
      recent_object = obj;
      return obj;
   }

   di = ML_(dinfo_zalloc)("di.jitreg.di", sizeof(DebugInfo));
   di->fsm.filename = ML_(dinfo_strdup)("di.jitreg.di.filename", objname);
   di->fsm.maps     = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.di.maps",
                                 ML_(dinfo_free), sizeof(DebugInfoMapping));
   di->soname       = ML_(dinfo_strdup)("di.jitreg.di.soname", objname);
   di->first_epoch.n = 1;     /* valid in every epoch */
   di->last_epoch    = DiEpoch_INVALID();
   di->have_dinfo   = True;
   /* The one-slot symtab and loctab that lookups fill in. */
   di->symtab      = ML_(dinfo_zalloc)("di.jitreg.di.symtab", sizeof(DiSym));
   di->symtab_used = di->symtab_size = 1;
   di->loctab      = ML_(dinfo_zalloc)("di.jitreg.di.loctab", sizeof(DiLoc));
   di->loctab_used = di->loctab_size = 1;
   di->sizeof_fndn_ix = sizeof(UInt);
   di->loctab_fndn_ix = ML_(dinfo_zalloc)("di.jitreg.di.fndn", sizeof(UInt));

   obj = ML_(dinfo_zalloc)("di.jitreg.object", sizeof(JitObject));
   obj->key   = key.key;
   obj->name  = di->fsm.filename;
   obj->di    = di;
   obj->index = (UInt)VG_(addToXA)(object_list, &obj);
   VG_(HT_add_node)(objects, obj);
   recent_object = obj;
   return obj;
}

/* Interns a source path in obj's file pool, split into directory and
   file name as DWARF line tables are. */
static UInt add_source_file ( JitObject* obj, const HChar* path )
{
   const HChar* slash = VG_(strrchr)(path, '/');
   if (slash == NULL || slash == path)
      return ML_(addFnDn)(obj->di, path, NULL);
   {
      SizeT dlen = slash - path;
      HChar dir[dlen + 1];
      VG_(memcpy)(dir, path, dlen);
      dir[dlen] = 0;
      return ML_(addFnDn)(obj->di, slash + 1, dir);
   }
}


/*------------------------------------------------------------*/
/*--- Lookups (called by m_debuginfo)                      ---*/
/*------------------------------------------------------------*/

static Bool overlaps_object_text ( Addr a, SizeT len );

/* The function describing (ep, a): the live one if it was registered by
   epoch ep, else an archived one valid at ep. */
static const JitFn* find_fn ( DiEpoch ep, Addr a )
{
   JitFnPos p = fn_containing(a);
   Word     i;

   if (p.c != NULL && fn_at(p)->first_epoch <= ep.n)
      return fn_at(p);
   /* A producer file may name it by now (not for ELF code that merely
      lacks a symbol or line here). */
   if (p.c == NULL && ep.n == VG_(current_DiEpoch)().n
       && !overlaps_object_text(a, 1)
       && ML_(jit_read_on_lookup_miss)(a)) {
      p = fn_containing(a);
      if (p.c != NULL && fn_at(p)->first_epoch <= ep.n)
         return fn_at(p);
   }
   if (archived_fns == NULL)
      return NULL;
   /* Only lookups for an epoch older than the live function (errors
      recorded before the code changed) get here; newest first. */
   for (i = VG_(sizeXA)(archived_fns) - 1; i >= 0; i--) {
      const JitArchived* ar = VG_(indexXA)(archived_fns, i);
      if (a >= ar->fn.start && a - ar->fn.start < ar->fn.size
          && ar->fn.first_epoch <= ep.n && ep.n <= ar->last_epoch)
         return &ar->fn;
   }
   return NULL;
}

Bool ML_(jit_search_symtab) ( DiEpoch ep, Addr a,
                              /*OUT*/DebugInfo** pdi, /*OUT*/Word* symno )
{
   const JitFn* f = find_fn(ep, a);
   DiSym* sym;
   if (f == NULL)
      return False;
   sym = &obj_of(f)->di->symtab[0];
   VG_(memset)(sym, 0, sizeof(*sym));
   sym->avmas.main = f->start;
   sym->pri_name   = name_str(f->name);
   sym->size       = f->size;
   sym->isText     = True;
   sym->isGlobal   = True;
   *pdi   = obj_of(f)->di;
   *symno = 0;
   return True;
}

Bool ML_(jit_search_loctab) ( DiEpoch ep, Addr a,
                              /*OUT*/DebugInfo** pdi, /*OUT*/Word* locno )
{
   const JitFn*      f = find_fn(ep, a);
   const JitLineTab* t;
   UInt   off, lo, hi, end;
   DiLoc* loc;

   if (f == NULL || f->lines == NULL)
      return False;
   t   = f->lines;
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

   loc = &obj_of(f)->di->loctab[0];
   loc->addr   = f->start + t->lines[lo].offset;
   loc->size   = end - t->lines[lo].offset > MAX_LOC_SIZE
                    ? MAX_LOC_SIZE : end - t->lines[lo].offset;
   loc->lineno = t->lines[lo].line;
   ((UInt*)obj_of(f)->di->loctab_fndn_ix)[0] = t->lines[lo].fndn_ix;
   *pdi   = obj_of(f)->di;
   *locno = 0;
   return True;
}

DiEpoch VG_(jit_late_name_epoch) ( Addr a )
{
   DiEpoch ep = VG_(current_DiEpoch)();
   Word    i;
   if (chunks == NULL || fn_containing(a).c != NULL)
      return ep;
   for (i = VG_(sizeXA)(archived_fns) - 1; i >= 0; i--) {
      const JitArchived* ar = VG_(indexXA)(archived_fns, i);
      if (a >= ar->fn.start && a - ar->fn.start < ar->fn.size) {
         ep.n = ar->last_epoch;
         return ep;
      }
   }
   return ep;
}

DebugInfo* ML_(jit_find_DebugInfo) ( DiEpoch ep, Addr a )
{
   const JitFn* f = find_fn(ep, a);
   return f ? obj_of(f)->di : NULL;
}


/*------------------------------------------------------------*/
/*--- Adding and removing functions                        ---*/
/*------------------------------------------------------------*/

static void free_fn_contents ( JitFn* f )
{
   release_name(f->name);
   if (f->lines)
      ML_(dinfo_free)(f->lines);
   f->name  = 0;
   f->lines = NULL;
}

/* Archives or frees what live function f holds (its translations are
   already discarded); the caller then removes its record.  Does not
   advance the epoch: the caller does, once per request. */
/* True while ML_(jit_notify_munmap) retires functions: they are archived
   even without --keep-debuginfo=yes, since tools bind names that arrived
   late to code that ran before (VG_(jit_late_name_epoch)), and runtimes
   free their code (CPython 3.13 its trampolines) before they exit. */
static Bool archiving_unmapped = False;

static void retire_fn ( JitFn* f, const HChar* why )
{
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %s %#lx-%#lx %s (%s)\n", why, f->start,
                f->start + f->size, name_str(f->name),
                obj_of(f)->di->fsm.filename);
   if (VG_(clo_keep_debuginfo) || archiving_unmapped) {
      JitArchived ar;
      ar.fn = *f;
      ar.last_epoch = VG_(current_DiEpoch)().n;
      VG_(addToXA)(archived_fns, &ar);
      if (VG_(clo_keep_debuginfo))
         VG_(archive_ExeContext_in_range)(VG_(current_DiEpoch)(),
                                          f->start, f->size);
      stats.archived++;
   } else {
      free_fn_contents(f);
   }
}

/* Drops every live function intersecting [a, a+len) (len > 0, a+len
   does not wrap): discards their translations, with one discard for the
   whole span (none if the caller already discarded [a, a+len) and no
   function sticks out of it), then removes them, a chunk's worth at a
   time.  Returns how many. */
static UInt remove_range ( Addr a, SizeT len, Bool caller_discarded,
                           const HChar* why )
{
   UInt     n = 0;
   Addr     lo, hi, end = a + len;
   JitFnPos p = first_intersecting(a, len);
   JitFnPos q;
   if (p.c == NULL)
      return 0;
   lo = fn_at(p)->start < a ? fn_at(p)->start : a;
   hi = end;
   q  = fn_containing(end - 1);
   if (q.c != NULL && fn_at(q)->start + fn_at(q)->size > hi)
      hi = fn_at(q)->start + fn_at(q)->size;
   if (!caller_discarded || lo < a || hi > end)
      ML_(jit_discard_translations)(lo, hi - lo, "jitreg.remove_range");
   /* The discard may have registered functions (see Design): look
      again. */
   while ((p = first_intersecting(a, len)).c != NULL) {
      JitFnChunk* c = p.c;
      UInt        j = p.i;
      while (j < c->n && c->fns[j].start < end) {
         retire_fn(&c->fns[j], why);
         j++;
      }
      remove_fn_records(c, p.i, j);
      n += j - p.i;
   }
   return n;
}

void ML_(jit_notify_munmap) ( Addr a, SizeT len )
{
   UInt n;
   if (len == 0 || n_live == 0)
      return;
   if (a + len < a)
      len = ~(Addr)0 - a;
   archiving_unmapped = True;
   n = remove_range(a, len, False, "unmapped");
   archiving_unmapped = False;
   if (n > 0) {
      stats.unmapped += n;
      ML_(advance_current_DiEpoch_for_jit)();
   }
}


/*------------------------------------------------------------*/
/*--- Reading client memory safely                         ---*/
/*------------------------------------------------------------*/

static Bool client_readable ( Addr a, SizeT len )
{
   if (len == 0)
      return True;
   if (a == 0 || a + len < a)
      return False;
   return VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ);
}

/* Length of the NUL-terminated client string at s, looking at most at
   max+1 bytes and checking readability page by page.  Returns -1 if s is
   NULL, unreadable, or not terminated within max bytes. */
static Long client_strlen ( Addr s, SizeT max )
{
   Addr  ok_end = s;   /* [s, ok_end) is known readable */
   SizeT i;
   if (s == 0)
      return -1;
   for (i = 0; i <= max; i++) {
      Addr p = s + i;
      if (p < s)
         return -1;   /* wrapped */
      if (p >= ok_end) {
         Addr page_end = VG_PGROUNDDN(p) + VKI_PAGE_SIZE;
         if (page_end <= p
             || !VG_(am_is_valid_for_client)(p, page_end - p, VKI_PROT_READ))
            return -1;
         ok_end = page_end;
      }
      if (*(const HChar*)p == 0)
         return (Long)i;
   }
   return -1;
}

/* Does [a, a+len) overlap the text of an object m_debuginfo knows? */
static Bool overlaps_object_text ( Addr a, SizeT len )
{
   const DebugInfo* di;
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


/*------------------------------------------------------------*/
/*--- Registration                                         ---*/
/*------------------------------------------------------------*/

const HChar* ML_(jit_status_text) ( Int st )
{
   switch (st) {
      case VG_JIT_OK:                  return "ok";
      case VG_JIT_ERR_NOT_RUNNING:     return "not running";
      case VG_JIT_ERR_BAD_DESCRIPTOR:  return "bad descriptor";
      case VG_JIT_ERR_BAD_NAME:        return "bad name";
      case VG_JIT_ERR_BAD_STRING:      return "bad object or file name";
      case VG_JIT_ERR_BAD_RANGE:       return "bad address range";
      case VG_JIT_ERR_NOT_CODE:        return "range is not executable"
                                              " client memory";
      case VG_JIT_ERR_OVERLAPS_OBJECT: return "range overlaps the text of"
                                              " a loaded object";
      case VG_JIT_ERR_BAD_LINE_TABLE:  return "bad line table";
      case VG_JIT_ERR_NOT_REGISTERED:  return "nothing registered there";
      case VG_JIT_WARN_REPLACED:       return "replaced overlapping code";
      case VG_JIT_WARN_LINES_DROPPED:  return "line-table entries dropped";
      default:                         return "unknown status";
   }
}

static void warn ( const HChar* what, Int st, Addr a, UWord size,
                   const HChar* object )
{
   if (VG_(clo_verbosity) < 2 && !VG_(clo_trace_jit))
      return;
   if (n_warnings >= MAX_WARNINGS)
      return;
   n_warnings++;
   VG_(umsg)("Warning: JIT %s (start %#lx, size %lu%s%s): %s\n",
             what, a, size, object ? ", from " : "", object ? object : "",
             ML_(jit_status_text)(st));
   if (n_warnings == MAX_WARNINGS)
      VG_(umsg)("Warning: further JIT warnings are not shown\n");
}

/* Temporary line entry while building a table. */
typedef
   struct {
      UInt offset;
      UInt line;
      UInt fndn_ix;
      UInt index;   /* position in the producer's table */
   }
   TmpLine;

static Int cmp_tmp_line ( const void* aV, const void* bV )
{
   const TmpLine* a = aV;
   const TmpLine* b = bV;
   if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
   if (a->index  != b->index)  return a->index  < b->index  ? -1 : 1;
   return 0;
}

/* Builds the line table of reg for obj: drops entries outside the code,
   with line 0 or too large, or with no file at all; sorts by offset; of
   entries with equal offsets keeps the one that came last.  Returns the
   table (NULL if nothing is left) and counts dropped entries. */
static JitLineTab* build_line_table ( const JitRegistration* reg,
                                      JitObject* obj,
                                      /*OUT*/UWord* n_dropped )
{
   TmpLine*     tmp;
   JitLineTab*  tab;
   UWord        i, n = 0, out;
   const HChar* last_file = NULL;
   UInt         last_fndn_ix = 0;
   UInt         default_fndn_ix = 0;

   *n_dropped = 0;
   if (reg->n_lines == 0 || reg->lines == NULL)
      return NULL;
   if (reg->file != NULL)
      default_fndn_ix = add_source_file(obj, reg->file);
   tmp = ML_(dinfo_zalloc)("di.jitreg.tmplines",
                           reg->n_lines * sizeof(TmpLine));
   for (i = 0; i < reg->n_lines; i++) {
      const JitSrcLine* e = &reg->lines[i];
      UInt fndn_ix;
      if (e->offset >= reg->size || e->line == 0 || e->line > MAX_LINENO) {
         (*n_dropped)++;
         continue;
      }
      if (e->file == NULL) {
         fndn_ix = default_fndn_ix;
      } else if (e->file == last_file) {
         fndn_ix = last_fndn_ix;
      } else {
         fndn_ix = e->file[0] ? add_source_file(obj, e->file) : 0;
         last_file = e->file;
         last_fndn_ix = fndn_ix;
      }
      if (fndn_ix == 0) {   /* no file at all: the line means nothing */
         (*n_dropped)++;
         continue;
      }
      tmp[n].offset  = (UInt)e->offset;
      tmp[n].line    = (UInt)e->line;
      tmp[n].fndn_ix = fndn_ix;
      tmp[n].index   = (UInt)i;
      n++;
   }
   if (n == 0) {
      ML_(dinfo_free)(tmp);
      return NULL;
   }
   VG_(ssort)(tmp, n, sizeof(TmpLine), cmp_tmp_line);
   out = 0;
   for (i = 0; i < n; i++) {
      if (i + 1 < n && tmp[i + 1].offset == tmp[i].offset)
         continue;   /* a later entry has the same offset */
      tmp[out++] = tmp[i];
   }
   tab = ML_(dinfo_zalloc)("di.jitreg.lines",
                           sizeof(JitLineTab) + out * sizeof(JitLine));
   tab->n_lines = (UInt)out;
   for (i = 0; i < out; i++) {
      tab->lines[i].offset  = tmp[i].offset;
      tab->lines[i].line    = tmp[i].line;
      tab->lines[i].fndn_ix = tmp[i].fndn_ix;
   }
   ML_(dinfo_free)(tmp);
   return tab;
}

/* Ranges whose translations must be discarded at the next safe point
   (registrations made inside lookups). */
typedef struct { Addr start; UWord size; } JitRange;
static XArray* deferred_discards = NULL;   /* of JitRange */

Bool ML_(jit_range_is_free) ( Addr a, SizeT len )
{
   return first_intersecting(a, len).c == NULL;
}

/* The live function starting exactly at a, or none. */
static JitFnPos fn_starting_at ( Addr a )
{
   JitFnPos p = floor_fn(a);
   if (p.c != NULL && fn_at(p)->start != a)
      p.c = NULL;
   return p;
}

/* Removes the live function starting at a, whose translations are
   already discarded.  Returns whether there was one. */
static Bool remove_fn_at ( Addr a, const HChar* why )
{
   JitFnPos p = fn_starting_at(a);
   if (p.c == NULL)
      return False;
   retire_fn(fn_at(p), why);
   remove_fn_records(p.c, p.i, p.i + 1);
   return True;
}

/* Adds a live function; [start, start+size) must be free. */
static void insert_fn ( Addr start, UWord size, JitNameId name,
                        JitObject* obj, JitLineTab* lines )
{
   JitFn f;
   f.start       = start;
   f.size        = (UInt)size;
   f.first_epoch = VG_(current_DiEpoch)().n;
   f.name        = name;
   f.obj         = obj->index;
   f.lines       = lines;
   insert_fn_record(&f);
   stats.registered++;
}

Int ML_(jit_register) ( const JitRegistration* reg, Bool can_discard )
{
   JitObject*  obj;
   JitLineTab* lines;
   JitNameId   name;
   UWord       n_dropped = 0;
   UInt        n_replaced = 0;
   Int         st = VG_JIT_OK;

   /* Validate everything before changing anything. */
   if (reg->size == 0 || reg->size > VG_JIT_MAX_CODE_SIZE
       || reg->start + reg->size < reg->start)
      return VG_JIT_ERR_BAD_RANGE;
   if (!VG_(am_is_valid_for_client)(reg->start, reg->size, VKI_PROT_EXEC))
      return VG_JIT_ERR_NOT_CODE;
   if (overlaps_object_text(reg->start, reg->size))
      return VG_JIT_ERR_OVERLAPS_OBJECT;
   init_registry();
   if (!can_discard && !ML_(jit_range_is_free)(reg->start, reg->size))
      return VG_JIT_ERR_OVERLAPS_OBJECT;

   /* Copy what is kept before anything calls out (discarding
      translations calls the tool). */
   obj   = get_object(reg->object);
   name  = intern_name(reg->name, VG_(strlen)(reg->name));
   lines = build_line_table(reg, obj, &n_dropped);
   if (n_dropped > 0) {
      stats.lines_dropped += n_dropped;
      st = VG_JIT_WARN_LINES_DROPPED;
   }

   if (can_discard) {
      /* Names change in [start, start+size) and in any overlapping
         function: discard translations first (Callgrind forgets its
         BBs by the names current now), then replace. */
      ML_(jit_discard_translations)(reg->start, reg->size, "jitreg.register");
      n_replaced = remove_range(reg->start, reg->size, True, "replaced");
      if (n_replaced > 0) {
         stats.replaced += n_replaced;
         if (st == VG_JIT_OK)
            st = VG_JIT_WARN_REPLACED;
      }
   } else {
      JitRange rg;
      if (deferred_discards == NULL)
         deferred_discards = VG_(newXA)(ML_(dinfo_zalloc),
                                        "di.jitreg.deferred",
                                        ML_(dinfo_free), sizeof(JitRange));
      rg.start = reg->start;
      rg.size  = reg->size;
      VG_(addToXA)(deferred_discards, &rg);
   }
   if (can_discard) {
      ML_(advance_current_DiEpoch_for_jit)();
   } else {
      /* Inside a lookup for the current epoch, which must see the new
         function: keep the epoch, forget cached "no name" answers. */
      ML_(invalidate_sym_name_cache_for_jit)();
   }
   insert_fn(reg->start, reg->size, name, obj, lines);
   if (ML_(jit_is_exiting)())
      fn_at(fn_starting_at(reg->start))->first_epoch
         = ML_(jit_first_epoch_for_new)(n_replaced > 0);

   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: register %#lx-%#lx %s (%s), %u lines%s\n",
                reg->start, reg->start + reg->size, name_str(name),
                obj->name, lines ? lines->n_lines : 0,
                n_replaced ? ", replacing earlier code" : "");
   return st;
}

Int ML_(jit_move) ( Addr old_start, Addr new_start )
{
   JitFnPos    p = fn_starting_at(old_start);
   JitNameId   name;
   JitObject*  obj;
   JitLineTab* lines = NULL;
   UWord       size;
   UInt        n_replaced;

   if (p.c == NULL)
      return VG_JIT_ERR_NOT_REGISTERED;
   size = fn_at(p)->size;
   if (new_start + size < new_start)
      return VG_JIT_ERR_BAD_RANGE;
   if (!VG_(am_is_valid_for_client)(new_start, size, VKI_PROT_EXEC))
      return VG_JIT_ERR_NOT_CODE;
   if (overlaps_object_text(new_start, size))
      return VG_JIT_ERR_OVERLAPS_OBJECT;

   /* Keep what the moved function needs before the old one goes. */
   name = fn_at(p)->name;
   name_at(name)->refs++;
   obj = obj_of(fn_at(p));
   if (fn_at(p)->lines) {
      const JitLineTab* t = fn_at(p)->lines;
      SizeT sz = sizeof(JitLineTab) + t->n_lines * sizeof(JitLine);
      lines = ML_(dinfo_zalloc)("di.jitreg.lines", sz);
      VG_(memcpy)(lines, t, sz);
   }
   ML_(jit_discard_translations)(old_start, size, "jitreg.move");
   (void)remove_fn_at(old_start, "moved");
   ML_(jit_discard_translations)(new_start, size, "jitreg.move");
   n_replaced = remove_range(new_start, size, True, "replaced");
   stats.replaced += n_replaced;
   ML_(advance_current_DiEpoch_for_jit)();
   insert_fn(new_start, size, name, obj, lines);
   stats.registered--;   /* a move, not a new function */
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: move %#lx -> %#lx-%#lx %s (%s)\n", old_start,
                new_start, new_start + size, name_str(name), obj->name);
   return n_replaced ? VG_JIT_WARN_REPLACED : VG_JIT_OK;
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
   maybe_compact_names();
}


/*------------------------------------------------------------*/
/*--- Client requests                                      ---*/
/*------------------------------------------------------------*/

/* Validates a client string pointer (0 allowed when optional).
   Returns True and sets *s if usable. */
static Bool client_string ( Addr p, Bool optional, /*OUT*/const HChar** s )
{
   Long len;
   *s = NULL;
   if (p == 0)
      return optional;
   len = client_strlen(p, VG_JIT_MAX_STRING);
   if (len <= 0)
      return False;
   *s = (const HChar*)p;
   return True;
}

/* Registers code described by client pointers: validates them, copies
   the client's line table into core memory (entries with an unusable
   file pointer get line 0, so that they are dropped and counted), and
   calls ML_(jit_register). */
static Int register_from_client ( Addr start, UWord size, Addr name,
                                  Addr object, Addr file,
                                  Addr lines, UWord n_lines )
{
   JitRegistration reg;
   JitSrcLine*     tab = NULL;
   Int             st;
   UWord           i;

   VG_(memset)(&reg, 0, sizeof(reg));
   reg.start = start;
   reg.size  = size;
   if (!client_string(name, False, &reg.name))
      return VG_JIT_ERR_BAD_NAME;
   if (!client_string(object, True, &reg.object)
       || !client_string(file, True, &reg.file))
      return VG_JIT_ERR_BAD_STRING;
   if (reg.object == NULL)
      reg.object = VG_JIT_DEFAULT_OBJECT;
   if (lines == 0)
      n_lines = 0;
   if (n_lines > VG_JIT_MAX_LINES
       || (n_lines > 0 && !client_readable(lines,
                                           n_lines * sizeof(VgJitLine))))
      return VG_JIT_ERR_BAD_LINE_TABLE;
   if (n_lines > 0) {
      const VgJitLine* in = (const VgJitLine*)lines;
      tab = ML_(dinfo_zalloc)("di.jitreg.clientlines",
                              n_lines * sizeof(JitSrcLine));
      for (i = 0; i < n_lines; i++) {
         VgJitLine e = in[i];   /* one read of the client's entry */
         tab[i].offset = e.offset;
         tab[i].line   = e.line;
         if (e.file != NULL
             && !client_string((Addr)e.file, False, &tab[i].file))
            tab[i].line = 0;   /* unusable file: dropped */
      }
      reg.lines   = tab;
      reg.n_lines = n_lines;
   }
   st = ML_(jit_register)(&reg, True);
   if (tab)
      ML_(dinfo_free)(tab);
   return st;
}

/* Reads a client VgJitCode and registers it. */
static Int register_descriptor ( Addr desc, /*OUT*/Addr* start,
                                 /*OUT*/UWord* size )
{
   VgJitCode d;
   UWord     struct_size;
   *start = 0;
   *size  = 0;
   if (!client_readable(desc, sizeof(UWord)))
      return VG_JIT_ERR_BAD_DESCRIPTOR;
   struct_size = *(const UWord*)desc;
   if (struct_size < VG_JIT_CODE_MIN_SIZE || struct_size > 4096
       || !client_readable(desc, struct_size))
      return VG_JIT_ERR_BAD_DESCRIPTOR;
   /* Fields beyond what this core knows are ignored. */
   VG_(memset)(&d, 0, sizeof(d));
   VG_(memcpy)(&d, (const void*)desc,
               struct_size < sizeof(d) ? struct_size : sizeof(d));
   *start = (Addr)d.start;
   *size  = d.size;
   return register_from_client((Addr)d.start, d.size, (Addr)d.name,
                               (Addr)d.object, (Addr)d.file,
                               (Addr)d.lines, d.n_lines);
}

UWord VG_(jit_handle_client_request) ( ThreadId tid, UWord* arg )
{
   Int          st;
   Addr         start = arg[1];
   UWord        size  = 0;
   UWord        ret   = 1;
   const HChar* what  = "register";

   vg_assert(VG_(is_valid_tid)(tid));
   switch (arg[0]) {
      case VG_USERREQ__JIT_QUERY:
         return VG_JIT_API_VERSION;

      case VG_USERREQ__JIT_LAST_ERROR:
         return last_status ? last_status[tid] : VG_JIT_OK;

      case VG_USERREQ__JIT_REGISTER:
         size = arg[2];
         st = register_from_client(arg[1], arg[2], arg[3], 0, 0, 0, 0);
         break;

      case VG_USERREQ__JIT_REGISTER_CODE:
         st = register_descriptor(arg[1], &start, &size);
         break;

      case VG_USERREQ__JIT_UNREGISTER: {
         JitFnPos p = fn_starting_at(arg[1]);
         what = "unregister";
         if (p.c == NULL) {
            st = VG_JIT_ERR_NOT_REGISTERED;
         } else {
            ML_(jit_discard_translations)(arg[1], fn_at(p)->size,
                                      "jitreg.unregister");
            (void)remove_fn_at(arg[1], "unregister");
            ML_(advance_current_DiEpoch_for_jit)();
            stats.unregistered++;
            st = VG_JIT_OK;
         }
         break;
      }

      case VG_USERREQ__JIT_UNREGISTER_RANGE: {
         UWord n = 0;
         what = "unregister-range";
         size = arg[2];
         if (arg[2] > 0) {
            SizeT len = arg[1] + arg[2] < arg[1] ? ~(Addr)0 - arg[1] : arg[2];
            n = remove_range(arg[1], len, False, "unregister");
         }
         if (n > 0) {
            ML_(advance_current_DiEpoch_for_jit)();
            stats.unregistered += n;
            st = VG_JIT_OK;
         } else {
            st = VG_JIT_ERR_NOT_REGISTERED;
         }
         ret = n;
         break;
      }

      default:
         /* An unknown 'V','J' request (from a newer header). */
         if (VG_(clo_verbosity) > 1)
            VG_(umsg)("Warning: unknown JIT client request %#lx\n", arg[0]);
         return 0;
   }

   set_last_status(tid, st);
   if (st != VG_JIT_OK && st < VG_JIT_WARN_REPLACED) {
      /* Refused: nothing changed. */
      if (arg[0] == VG_USERREQ__JIT_REGISTER
          || arg[0] == VG_USERREQ__JIT_REGISTER_CODE) {
         stats.refused++;
         what = "register refused";
      }
      warn(what, st, start, size, NULL);
      return 0;
   }
   if (st == VG_JIT_WARN_LINES_DROPPED)
      warn(what, st, start, size, NULL);
   return ret;
}

void VG_(jit_print_summary) ( void )
{
   if (VG_(clo_verbosity) < 2)
      return;
   if (stats.registered + stats.refused == 0 && !VG_(clo_trace_jit))
      return;
   VG_(umsg)("JIT: %llu registered, %llu unregistered, %llu replaced, "
             "%llu unmapped, %llu refused, %llu line entries dropped, "
             "%llu live at exit\n",
             stats.registered, stats.unregistered, stats.replaced,
             stats.unmapped, stats.refused, stats.lines_dropped,
             n_live);
   VG_(umsg)("JIT: name pool: %lu bytes in use, %lu bytes unused, "
             "%llu compactions freed %llu bytes\n",
             names.live_bytes, names.dead_bytes,
             stats.compactions, stats.names_freed);
   ML_(jit_print_late_summary)();
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
