/*--------------------------------------------------------------------*/
/*--- JIT code registry: the pool of function names.   jitnames.c ---*/
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

/* Names live in a pool of 64 KiB chunks with a reference count, and a
   function refers to its name by a 32-bit JitNameId.  A registration
   whose name is in its slot of a small table of recently registered
   names (a JIT recompiling a hot function) shares that copy; otherwise
   the name is appended to the pool, with no search.  A name whose count
   drops to zero stays in the pool until the pool is compacted (at a
   safe point, once the dead bytes outnumber the live ones), after the
   symbol-name cache of m_debuginfo, which holds name pointers, has been
   invalidated. */

#include "pub_core_basics.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_mallocfree.h" /* VG_(out_of_memory_NORETURN) */
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitreg.h"
#include "priv_jitstore.h"       /* self */
#include "priv_jitbytes.h"       /* jitformats_ld64, jitformats_st64 */

/* A JitNameId is 1 + (chunk index << NAME_OFFSET_BITS | byte offset / 4)
   in the pool. */

/* A function name in the pool (4-byte aligned): 4 bytes and the name
   with its NUL, rounded up to 4 bytes (so str has room for a UInt). */
typedef
   struct {
      UInt  refs;    /* live and archived JitFns using it; NAME_MOVED
                        once copied by a compaction */
      HChar str[0];  /* NUL-terminated; once moved, its first 4 bytes
                        hold the new copy's id (moved_id) */
   }
   JitName;

/* Pool chunks of 64 KiB; offsets are stored in 4-byte units. */
#define NAME_CHUNK_SHIFT 16
#define NAME_CHUNK_SIZE  (1U << NAME_CHUNK_SHIFT)
#define NAME_OFFSET_BITS (NAME_CHUNK_SHIFT - 2)
#define NAME_MAX_CHUNKS  ((1U << (32 - NAME_OFFSET_BITS)) - 1)

/* Compaction waits until at least this many bytes are dead. */
#define NAME_MIN_DEAD_BYTES (1U << 20)

/* While the pool is compacted, a copied name's refs is this and the
   start of its str holds the id of the new copy. */
#define NAME_MOVED 0x80000000U

/* Slots in the table of recently registered names (a power of two). */
#define RECENT_NAMES 4096

/* A pool: its chunks, and where the next name goes. */
typedef
   struct {
      XArray* chunks;   /* of HChar*, NAME_CHUNK_SIZE bytes each */
      HChar*  last;     /* the last chunk (NULL: none yet) */
      UInt    last_ix;  /* its index in chunks */
      UInt    used;     /* bytes used in the last chunk */
   }
   NamePool;

static struct {
   NamePool pool;
   SizeT   live_bytes;  /* pool bytes of names with refs > 0 */
   SizeT   dead_bytes;  /* pool bytes of names with refs == 0 */
   ULong   compactions;
   ULong   bytes_freed; /* by the compactions */
   /* Recently registered names, by hash: a registration whose name is
      here shares its copy.  An entry may be dead (refs == 0): it is
      revived. */
   struct { UInt hash; JitNameId id; } recent[RECENT_NAMES];
} names;

/* The hash of ML_(jit_hash_bytes), a word at a time: each 8 bytes are
   mixed in with one multiply (the constants are the 64-bit golden ratio
   and MurmurHash3's finalizer multiplier), so a registration's name costs
   a few multiplies, not one per byte.  hash_bytes_copy hashes and copies
   in one pass. */
#define HASH_MUL 0xFF51AFD7ED558CCDULL

static inline ULong hash_start ( SizeT len )
{
   return 0x9E3779B97F4A7C15ULL ^ (ULong)len;
}

static inline ULong hash_word ( ULong h, ULong w )
{
   h = (h ^ w) * HASH_MUL;
   return h ^ (h >> 29);
}

/* tail: the last len % 8 bytes, first byte highest. */
static inline UInt hash_end ( ULong h, ULong tail )
{
   h = (h ^ tail) * HASH_MUL;
   return (UInt)(h ^ (h >> 32));
}

UInt ML_(jit_hash_bytes) ( const HChar* s, SizeT len )
{
   const UChar* p = (const UChar*)s;
   ULong        h = hash_start(len);
   ULong        w = 0;
   SizeT        i = 0;
   for (; i + 8 <= len; i += 8)
      h = hash_word(h, jitformats_ld64(p + i, 0));
   for (; i < len; i++)
      w = (w << 8) | p[i];
   return hash_end(h, w);
}

/* Copies len bytes from s to d (not overlapping) and a NUL after them, 8
   bytes at a time (names are short, and VG_(memcpy) goes byte by byte
   when s is not aligned), and returns ML_(jit_hash_bytes)(s, len): one
   pass over s. */
static inline __attribute__((always_inline))
UInt hash_bytes_copy ( HChar* d, const HChar* s, SizeT len )
{
   const UChar* p = (const UChar*)s;
   ULong        h = hash_start(len);
   ULong        w = 0;
   SizeT        i = 0;
   for (; i + 8 <= len; i += 8) {
      ULong v = jitformats_ld64(p + i, 0);
      jitformats_st64((UChar*)d + i, v, 0);
      h = hash_word(h, v);
   }
   for (; i < len; i++) {
      d[i] = s[i];
      w = (w << 8) | p[i];
   }
   d[len] = 0;
   return hash_end(h, w);
}

static inline UInt name_bytes ( SizeT len )
{
   return (UInt)((sizeof(JitName) + len + 1 + 3) & ~(SizeT)3);
}

/* The length of a name in the pool, a 4-byte word at a time: its entry
   starts 4-byte aligned and takes whole words (name_bytes), so each
   word read, up to the one holding the terminator, is inside it.  A
   release of a 24-character name took about 116 instructions with
   VG_(strlen). */
static SizeT stored_len ( const JitName* nm )
{
   const UInt*  w = (const UInt*)(const void*)nm->str;
   const HChar* c;
   while (((*w - 0x01010101U) & ~*w & 0x80808080U) == 0)
      w++;
   for (c = (const HChar*)w; *c != 0; c++)
      ;
   return (SizeT)(c - nm->str);
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
   return name_in(names.pool.chunks, id);
}

const HChar* ML_(jit_name_str) ( JitNameId id )
{
   return name_at(id)->str;
}

/* Starts a new last chunk of pool (out of line: most names fit in the
   last one). */
static __attribute__((noinline))
void pool_new_chunk ( NamePool* pool )
{
   if ((UWord)VG_(sizeXA)(pool->chunks) >= NAME_MAX_CHUNKS)
      /* The ids are full: more names than 32 bits can refer to. */
      VG_(out_of_memory_NORETURN)("di.jitnames.pool (JIT function names)",
                                  NAME_CHUNK_SIZE, 0);
   /* Not zeroed: every byte handed out is written first. */
   pool->last = VG_(arena_malloc)(VG_AR_DINFO, "di.jitnames.pool",
                                  NAME_CHUNK_SIZE);
   pool->last_ix = (UInt)VG_(addToXA)(pool->chunks, &pool->last);
   pool->used = 0;
}

/* Where the next name of `need` bytes goes in pool (which has its
   XArray), starting a chunk if the last one is full.  Nothing is taken
   until pool_commit: a name written there may be dropped. */
static inline __attribute__((always_inline))
JitName* pool_reserve ( NamePool* pool, UInt need )
{
   vg_assert(need <= NAME_CHUNK_SIZE);
   if (UNLIKELY(pool->last == NULL || pool->used + need > NAME_CHUNK_SIZE))
      pool_new_chunk(pool);
   return (JitName*)(pool->last + pool->used);
}

/* Takes the `need` bytes pool_reserve gave, whose name is written, with
   refs 1.  Returns its id. */
static JitNameId pool_commit ( NamePool* pool, UInt need )
{
   JitName*  nm = (JitName*)(pool->last + pool->used);
   JitNameId id = 1 + ((pool->last_ix << NAME_OFFSET_BITS)
                       | (pool->used >> 2));
   nm->refs = 1;
   pool->used += need;
   return id;
}

/* Appends a copy of s (len bytes) to pool, with refs 1.  Returns its id;
   *nm_out is the copy. */
static JitNameId pool_add ( NamePool* pool, const HChar* s, SizeT len,
                            /*OUT*/JitName** nm_out )
{
   UInt need = name_bytes(len);
   *nm_out = pool_reserve(pool, need);
   (void)hash_bytes_copy((*nm_out)->str, s, len);
   return pool_commit(pool, need);
}

/* An empty pool. */
static void pool_init ( NamePool* pool )
{
   pool->chunks = VG_(newXA)(ML_(dinfo_zalloc), "di.jitnames.chunks",
                             ML_(dinfo_free), sizeof(HChar*));
   pool->last    = NULL;
   pool->last_ix = 0;
   pool->used    = 0;
}

JitNameId ML_(jit_name_intern) ( const HChar* s, SizeT len )
{
   UInt      need = name_bytes(len);
   JitName*  copy;
   JitName*  nm;
   UInt      hash, slot;
   JitNameId id;
   /* Copy it to the end of the pool while hashing it; the copy is kept
      only if the name is not a recent one. */
   if (names.pool.chunks == NULL)
      pool_init(&names.pool);
   copy = pool_reserve(&names.pool, need);
   hash = hash_bytes_copy(copy->str, s, len);
   slot = hash & (RECENT_NAMES - 1);
   id   = names.recent[slot].id;
   if (id != 0 && names.recent[slot].hash == hash) {
      nm = name_at(id);
      if (VG_(strcmp)(nm->str, copy->str) == 0) {
         if (nm->refs == 0) {
            names.dead_bytes -= name_bytes(len);
            names.live_bytes += name_bytes(len);
         }
         nm->refs++;
         vg_assert(nm->refs < NAME_MOVED);
         return id;
      }
   }
   id = pool_commit(&names.pool, need);
   names.live_bytes += need;
   names.recent[slot].hash = hash;
   names.recent[slot].id   = id;
   return id;
}

void ML_(jit_name_ref) ( JitNameId id )
{
   JitName* nm = name_at(id);
   vg_assert(nm->refs > 0 && nm->refs + 1 < NAME_MOVED);
   nm->refs++;
}

void ML_(jit_name_release) ( JitNameId id )
{
   JitName* nm = name_at(id);
   UInt     bytes;
   vg_assert(nm->refs > 0);
   if (--nm->refs > 0)
      return;
   bytes = name_bytes(stored_len(nm));
   names.live_bytes -= bytes;
   names.dead_bytes += bytes;
}


/*------------------------------------------------------------*/
/*--- Compaction                                           ---*/
/*------------------------------------------------------------*/

/* The pool being filled by a compaction. */
static NamePool new_pool;

/* The id of the copy of moved name nm (refs == NAME_MOVED). */
static inline JitNameId moved_id ( const JitName* nm )
{
   JitNameId id;
   VG_(memcpy)(&id, nm->str, sizeof(id));
   return id;
}

/* The id of the copy of old_id in new_pool, copying it first. */
static JitNameId move_name ( JitNameId old_id )
{
   JitName*  old = name_at(old_id);
   JitName*  copy;
   JitNameId new_id;
   if (old->refs == NAME_MOVED)
      return moved_id(old);
   new_id = pool_add(&new_pool, old->str, stored_len(old), &copy);
   copy->refs = old->refs;
   old->refs = NAME_MOVED;
   VG_(memcpy)(old->str, &new_id, sizeof(new_id));   /* see moved_id */
   return new_id;
}

void ML_(jit_names_maybe_compact) ( void )
{
   Word k;
   if (names.dead_bytes < NAME_MIN_DEAD_BYTES
       || names.dead_bytes < names.live_bytes)
      return;
   pool_init(&new_pool);
   /* Every name in use belongs to a live or archived function.  (With
      --keep-debuginfo=yes every removed function is archived, so no
      name dies and the pool is never compacted; archived names are
      moved all the same, so that this holds whatever releases names.) */
   ML_(jit_rename_all)(move_name);
   /* The symbol-name cache may point into the old pool. */
   ML_(invalidate_sym_name_cache_for_jit)();
   for (k = 0; k < VG_(sizeXA)(names.pool.chunks); k++)
      ML_(dinfo_free)(*(HChar**)VG_(indexXA)(names.pool.chunks, k));
   VG_(deleteXA)(names.pool.chunks);
   names.pool = new_pool;
   new_pool.chunks = NULL;
   names.compactions++;
   names.bytes_freed += names.dead_bytes;
   names.dead_bytes = 0;
   VG_(memset)(names.recent, 0, sizeof(names.recent));
}

void ML_(jit_names_print_stats) ( void )
{
   VG_(umsg)("JIT: name pool: %lu bytes in use, %lu bytes unused, "
             "%llu compactions freed %llu bytes\n",
             names.live_bytes, names.dead_bytes,
             names.compactions, names.bytes_freed);
}

/*------------------------------------------------------------*/
/*--- Names that are not clean text                        ---*/
/*------------------------------------------------------------*/

SizeT ML_(jit_clean_char_len) ( const UChar* s, SizeT len )
{
   UChar c = s[0];
   UChar lo = 0x80, hi = 0xBF;
   SizeT n, i;
   if (c < 0x80)
      return (c < 0x20 || c == 0x7F) ? 0 : 1;
   if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
      if (c == 0xC2) lo = 0xA0;          /* U+0080..U+009F: C1 controls */
   } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;          /* overlong */
      if (c == 0xED) hi = 0x9F;          /* surrogates */
   } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;          /* overlong */
      if (c == 0xF4) hi = 0x8F;          /* above U+10FFFF */
   } else {
      return 0;
   }
   if (len < n || s[1] < lo || s[1] > hi)
      return 0;
   for (i = 2; i < n; i++)
      if (s[i] < 0x80 || s[i] > 0xBF)
         return 0;
   return n;
}

Bool ML_(jit_text_is_clean) ( const HChar* s, SizeT len )
{
   SizeT i = 0;
   while (i < len) {
      UChar c = (UChar)s[i];
      SizeT n;
      /* Printable ASCII a word at a time where s + i is aligned (an
         aligned word inside [s, s+len) never reads past the text). */
      if (((Addr)(s + i) & (sizeof(UWord) - 1)) == 0) {
         while (i + sizeof(UWord) <= len
                && ML_(jit_word_is_printable_ascii)(*(const UWord*)(s + i)))
            i += sizeof(UWord);
         if (i >= len)
            break;
         c = (UChar)s[i];
      }
      if (LIKELY(ML_(jit_is_printable_ascii)(c))) {
         i++;
         continue;
      }
      n = ML_(jit_clean_char_len)((const UChar*)s + i, len - i);
      if (n == 0)
         return False;
      i += n;
   }
   return True;
}

void ML_(jit_printable_copy) ( HChar* buf, const HChar* s )
{
   Int i;
   for (i = 0; s[i] != 0 && i < JIT_PRINTABLE_BUF - 4; i++)
      buf[i] = ML_(jit_is_printable_ascii)((UChar)s[i]) ? s[i] : '?';
   if (s[i] != 0)
      VG_(strcpy)(buf + i, "...");
   else
      buf[i] = 0;
}

/* Names escaped by ML_(jit_escaped_copy), for the -v summary. */
static ULong n_escaped = 0;

ULong ML_(jit_n_names_escaped) ( void )
{
   return n_escaped;
}

HChar* ML_(jit_escaped_copy) ( const HChar* name, SizeT len,
                              /*OUT*/SizeT* out_len )
{
   static const HChar hex[] = "0123456789abcdef";
   HChar* e = ML_(dinfo_zalloc)("di.jitreg.escaped", 4 * len + 1);
   SizeT  i = 0, o = 0;
   n_escaped++;
   while (i < len) {
      SizeT n = ML_(jit_clean_char_len)((const UChar*)name + i, len - i);
      if (n == 0) {
         UChar c = (UChar)name[i];
         e[o++] = '\\';
         e[o++] = 'x';
         e[o++] = hex[c >> 4];
         e[o++] = hex[c & 15];
         i++;
      } else {
         VG_(memcpy)(e + o, name + i, n);
         o += n;
         i += n;
      }
   }
   e[o] = 0;
   *out_len = o;
   return e;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
