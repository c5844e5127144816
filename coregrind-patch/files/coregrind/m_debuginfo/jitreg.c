
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
   A JIT function is a JitFn: [start, start+size), an interned name, the
   JIT object it belongs to and an optional line table.  Live functions
   never overlap; they are kept in one OSet (AVL tree) keyed by address
   whose comparator matches any address inside a function, so a lookup
   is O(log n) and an ELF lookup, which m_debuginfo tries first, costs
   nothing extra.  Nodes come from a pool allocator (no per-node malloc
   header).

   Names are interned in a hash table with reference counts: many
   registrations of one name (a JIT recompiling a hot function) share one
   copy, and a name is freed once no live or archived function uses it.
   Freed names are released in batches, after the symbol-name cache of
   m_debuginfo (which holds name pointers) has been invalidated once for
   the whole batch.

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
   range change. */

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

/* An interned function name.  The first two fields make it a
   VgHashNode; key is the string's hash. */
typedef
   struct _JitName {
      struct _JitName* next;
      UWord            key;
      UInt             refs;     /* live and archived JitFns using it */
      Bool             pending;  /* on the pending-free list */
      HChar            str[0];   /* NUL-terminated */
   }
   JitName;

/* A JIT object: the module a function belongs to. */
typedef
   struct _JitObject {
      struct _JitObject* next;
      UWord              key;    /* hash of the name */
      const HChar*       name;   /* == di->fsm.filename */
      DebugInfo*         di;     /* synthetic, never on debugInfo_list */
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

/* A registered function.  start is the OSet key. */
typedef
   struct {
      Addr        start;
      UInt        size;         /* bytes, > 0; start+size never wraps */
      UInt        first_epoch;  /* epoch it was registered in */
      JitName*    name;
      JitObject*  obj;
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

static OSet*        live_fns      = NULL;  /* of JitFn */
static VgHashTable* names         = NULL;  /* of JitName */
static VgHashTable* objects       = NULL;  /* of JitObject */
static XArray*      archived_fns  = NULL;  /* of JitArchived */
static XArray*      pending_names = NULL;  /* of JitName* with refs == 0 */

/* Names are freed in batches of this many. */
#define NAME_FREE_BATCH 256

static UWord hash_string ( const HChar* s )
{
   /* FNV-1a */
   UWord h = (UWord)14695981039346656037ULL;
   for (; *s; s++) {
      h ^= (UChar)*s;
      h *= (UWord)1099511628211ULL;
   }
   return h;
}

static Word cmp_addr_in_fn ( const void* keyV, const void* elemV )
{
   Addr         a = *(const Addr*)keyV;
   const JitFn* f = elemV;
   if (a < f->start) return -1;
   if (a - f->start >= f->size) return 1;
   return 0;
}

static void init_registry ( void )
{
   if (LIKELY(live_fns != NULL))
      return;
   live_fns = VG_(OSetGen_Create_With_Pool)(
                 offsetof(JitFn, start), cmp_addr_in_fn,
                 ML_(dinfo_zalloc), "di.jitreg.live_fns", ML_(dinfo_free),
                 1024, sizeof(JitFn));
   names   = VG_(HT_construct)("di.jitreg.names");
   objects = VG_(HT_construct)("di.jitreg.objects");
   archived_fns  = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.archived",
                              ML_(dinfo_free), sizeof(JitArchived));
   pending_names = VG_(newXA)(ML_(dinfo_zalloc), "di.jitreg.pending",
                              ML_(dinfo_free), sizeof(JitName*));
}


/*------------------------------------------------------------*/
/*--- Names and objects                                    ---*/
/*------------------------------------------------------------*/

static Word cmp_name_node ( const void* aV, const void* bV )
{
   const JitName* a = aV;
   const JitName* b = bV;
   return VG_(strcmp)(a->str, b->str);
}

/* The interned copy of s (len bytes, no NUL inside), with one more
   reference. */
static JitName* intern_name ( const HChar* s, SizeT len )
{
   /* A key node on the stack: header plus the string. */
   HChar    keybuf[sizeof(JitName) + len + 1];
   JitName* key = (JitName*)keybuf;
   JitName* n;

   VG_(memcpy)(key->str, s, len);
   key->str[len] = 0;
   key->key = hash_string(key->str);
   n = VG_(HT_gen_lookup)(names, key, cmp_name_node);
   if (n == NULL) {
      n = ML_(dinfo_zalloc)("di.jitreg.name", sizeof(JitName) + len + 1);
      n->key = key->key;
      VG_(memcpy)(n->str, key->str, len + 1);
      VG_(HT_add_node)(names, n);
   }
   n->refs++;
   return n;
}

static void flush_pending_names ( void )
{
   Word i, n = VG_(sizeXA)(pending_names);
   if (n == 0)
      return;
   /* The symbol-name cache may still point at these strings. */
   ML_(invalidate_sym_name_cache_for_jit)();
   for (i = 0; i < n; i++) {
      JitName* name = *(JitName**)VG_(indexXA)(pending_names, i);
      name->pending = False;
      if (name->refs == 0) {
         JitName* removed = VG_(HT_gen_remove)(names, name, cmp_name_node);
         vg_assert(removed == name);
         ML_(dinfo_free)(name);
      }
   }
   VG_(dropTailXA)(pending_names, n);
}

static void release_name ( JitName* name )
{
   vg_assert(name->refs > 0);
   name->refs--;
   if (name->refs == 0 && !name->pending) {
      name->pending = True;
      VG_(addToXA)(pending_names, &name);
      if (VG_(sizeXA)(pending_names) >= NAME_FREE_BATCH)
         flush_pending_names();
   }
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

   key.key  = hash_string(objname);
   key.name = objname;
   obj = VG_(HT_gen_lookup)(objects, &key, cmp_object_node);
   if (obj != NULL)
      return obj;

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
   obj->key  = key.key;
   obj->name = di->fsm.filename;
   obj->di   = di;
   VG_(HT_add_node)(objects, obj);
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
   const JitFn* f;
   Word i;

   if (live_fns != NULL) {
      f = VG_(OSetGen_Lookup)(live_fns, &a);
      if (f != NULL && f->first_epoch <= ep.n)
         return f;
   } else {
      f = NULL;
   }
   /* A producer file may name it by now (not for ELF code that merely
      lacks a symbol or line here). */
   if (f == NULL && ep.n == VG_(current_DiEpoch)().n
       && !overlaps_object_text(a, 1)
       && ML_(jit_read_on_lookup_miss)(a)) {
      f = VG_(OSetGen_Lookup)(live_fns, &a);
      if (f != NULL && f->first_epoch <= ep.n)
         return f;
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
   sym = &f->obj->di->symtab[0];
   VG_(memset)(sym, 0, sizeof(*sym));
   sym->avmas.main = f->start;
   sym->pri_name   = f->name->str;
   sym->size       = f->size;
   sym->isText     = True;
   sym->isGlobal   = True;
   *pdi   = f->obj->di;
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

   loc = &f->obj->di->loctab[0];
   loc->addr   = f->start + t->lines[lo].offset;
   loc->size   = end - t->lines[lo].offset > MAX_LOC_SIZE
                    ? MAX_LOC_SIZE : end - t->lines[lo].offset;
   loc->lineno = t->lines[lo].line;
   ((UInt*)f->obj->di->loctab_fndn_ix)[0] = t->lines[lo].fndn_ix;
   *pdi   = f->obj->di;
   *locno = 0;
   return True;
}

DebugInfo* ML_(jit_find_DebugInfo) ( DiEpoch ep, Addr a )
{
   const JitFn* f = find_fn(ep, a);
   return f ? f->obj->di : NULL;
}


/*------------------------------------------------------------*/
/*--- Adding and removing functions                        ---*/
/*------------------------------------------------------------*/

static void free_fn_contents ( JitFn* f )
{
   release_name(f->name);
   if (f->lines)
      ML_(dinfo_free)(f->lines);
   f->name  = NULL;
   f->lines = NULL;
}

/* Removes live function f (whose translations are already discarded),
   archiving or freeing it.  Does not advance the epoch: the caller does,
   once per request. */
static void remove_fn ( JitFn* f, const HChar* why )
{
   JitFn* removed = VG_(OSetGen_Remove)(live_fns, &f->start);
   vg_assert(removed == f);
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %s %#lx-%#lx %s (%s)\n", why, f->start,
                f->start + f->size, f->name->str,
                f->obj->di->fsm.filename);
   if (VG_(clo_keep_debuginfo)) {
      JitArchived ar;
      ar.fn = *f;
      ar.last_epoch = VG_(current_DiEpoch)().n;
      VG_(addToXA)(archived_fns, &ar);
      VG_(archive_ExeContext_in_range)(VG_(current_DiEpoch)(),
                                       f->start, f->size);
      stats.archived++;
   } else {
      free_fn_contents(f);
   }
   VG_(OSetGen_FreeNode)(live_fns, f);
}

/* The first live function intersecting [a, a+len), or NULL. */
static JitFn* first_intersecting ( Addr a, SizeT len )
{
   JitFn* f;
   if (live_fns == NULL || VG_(OSetGen_Size)(live_fns) == 0)
      return NULL;
   VG_(OSetGen_ResetIterAt)(live_fns, &a);
   f = VG_(OSetGen_Next)(live_fns);
   if (f != NULL && f->start - a < len)
      return f;
   if (f != NULL && f->start <= a)
      return f;   /* contains a */
   return NULL;
}

/* Drops every live function intersecting [a, a+len) (len > 0, a+len
   does not wrap): discards their translations, with one discard for the
   whole span (none if the caller already discarded [a, a+len) and no
   function sticks out of it), then removes them.  Returns how many. */
static UInt remove_range ( Addr a, SizeT len, Bool caller_discarded,
                           const HChar* why )
{
   UInt   n = 0;
   JitFn* f = first_intersecting(a, len);
   Addr   lo, hi, last = a + len - 1;
   const JitFn* g;
   if (f == NULL)
      return 0;
   lo = f->start < a ? f->start : a;
   hi = a + len;
   g  = VG_(OSetGen_Lookup)(live_fns, &last);
   if (g != NULL && g->start + g->size > hi)
      hi = g->start + g->size;
   if (!caller_discarded || lo < a || hi > a + len)
      VG_(discard_translations)(lo, hi - lo, "jitreg.remove_range");
   while ((f = first_intersecting(a, len)) != NULL) {
      remove_fn(f, why);
      n++;
   }
   return n;
}

void ML_(jit_notify_munmap) ( Addr a, SizeT len )
{
   UInt n;
   if (len == 0 || live_fns == NULL)
      return;
   if (a + len < a)
      len = ~(Addr)0 - a;
   n = remove_range(a, len, False, "unmapped");
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
   return first_intersecting(a, len) == NULL;
}

static void insert_fn ( Addr start, UWord size, JitName* name,
                        JitObject* obj, JitLineTab* lines )
{
   JitFn* f = VG_(OSetGen_AllocNode)(live_fns, sizeof(JitFn));
   f->start       = start;
   f->size        = (UInt)size;
   f->first_epoch = VG_(current_DiEpoch)().n;
   f->name        = name;
   f->obj         = obj;
   f->lines       = lines;
   VG_(OSetGen_Insert)(live_fns, f);
   stats.registered++;
}

Int ML_(jit_register) ( const JitRegistration* reg, Bool can_discard )
{
   JitObject*  obj;
   JitLineTab* lines;
   JitName*    name;
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
      VG_(discard_translations)(reg->start, reg->size, "jitreg.register");
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

   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: register %#lx-%#lx %s (%s), %u lines%s\n",
                reg->start, reg->start + reg->size, name->str,
                obj->name, lines ? lines->n_lines : 0,
                n_replaced ? ", replacing earlier code" : "");
   return st;
}

Int ML_(jit_move) ( Addr old_start, Addr new_start )
{
   JitFn*      f;
   JitName*    name;
   JitObject*  obj;
   JitLineTab* lines = NULL;
   UWord       size;
   UInt        n_replaced;

   f = live_fns ? VG_(OSetGen_Lookup)(live_fns, &old_start) : NULL;
   if (f == NULL || f->start != old_start)
      return VG_JIT_ERR_NOT_REGISTERED;
   size = f->size;
   if (new_start + size < new_start)
      return VG_JIT_ERR_BAD_RANGE;
   if (!VG_(am_is_valid_for_client)(new_start, size, VKI_PROT_EXEC))
      return VG_JIT_ERR_NOT_CODE;
   if (overlaps_object_text(new_start, size))
      return VG_JIT_ERR_OVERLAPS_OBJECT;

   /* Keep what the moved function needs before the old one goes. */
   name = f->name;
   name->refs++;
   obj = f->obj;
   if (f->lines) {
      SizeT sz = sizeof(JitLineTab) + f->lines->n_lines * sizeof(JitLine);
      lines = ML_(dinfo_zalloc)("di.jitreg.lines", sz);
      VG_(memcpy)(lines, f->lines, sz);
   }
   VG_(discard_translations)(old_start, size, "jitreg.move");
   remove_fn(f, "moved");
   VG_(discard_translations)(new_start, size, "jitreg.move");
   n_replaced = remove_range(new_start, size, True, "replaced");
   stats.replaced += n_replaced;
   ML_(advance_current_DiEpoch_for_jit)();
   insert_fn(new_start, size, name, obj, lines);
   stats.registered--;   /* a move, not a new function */
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: move %#lx -> %#lx-%#lx %s (%s)\n", old_start,
                new_start, new_start + size, name->str, obj->name);
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
      VG_(discard_translations)(rg.start, rg.size, "jitreg.late_name");
   }
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
         JitFn* f = live_fns ? VG_(OSetGen_Lookup)(live_fns, &arg[1]) : NULL;
         what = "unregister";
         if (f == NULL || f->start != arg[1]) {
            st = VG_JIT_ERR_NOT_REGISTERED;
         } else {
            VG_(discard_translations)(f->start, f->size, "jitreg.unregister");
            remove_fn(f, "unregister");
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
             live_fns ? (ULong)VG_(OSetGen_Size)(live_fns) : 0ULL);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
