
/*--------------------------------------------------------------------*/
/*--- JIT code registry: names that wait for their code to become  ---*/
/*--- executable.                                     jitpending.c ---*/
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

/* The rule is in priv_jitpending.h.  Waiting names are kept in an
   m_oset by start address, each with copies of what its registration
   pointed to; a walk over a range starts max_size bytes below it (the
   largest waiting range), so that it finds every name that intersects
   the range and no other. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_oset.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_jitreg.h"
#include "priv_jitstore.h"
#include "priv_jitcfi.h"
#include "priv_jitpending.h"     /* self */

/* Names that never became code listed by the -v summary. */
#define MAX_LISTED_AT_EXIT 5

/* Warnings about waiting names refused when their code became
   executable, at most. */
#define MAX_WARNINGS 10

/* A waiting name: its registration, with copies of what it pointed
   to. */
typedef
   struct {
      Addr        start;          /* the OSet's key */
      UWord       size;           /* bytes, > 0 */
      ULong       seq;            /* arrival order */
      HChar*      name;           /* owned, NUL-terminated */
      SizeT       name_len;
      Bool        name_is_ascii;
      Bool        may_name_unmapped;
      JitObject*  obj;            /* objects live as long as the process */
      HChar*      file;           /* owned, or NULL */
      JitSrcLine* lines;          /* owned, with owned file names; or
                                     NULL */
      UWord       n_lines;
      ULong       loaded;
      DebugInfo*  cfi;            /* owned, or NULL */
      SizeT       bytes;          /* the copies' cost, for the bound */
   }
   Pending;

UWord ML_(jit_n_pending) = 0;

static OSet* pending      = NULL;   /* of Pending, by start */
static UWord max_size     = 0;      /* no waiting range is larger */
static SizeT pending_bytes = 0;
static ULong next_seq     = 0;
static UInt  n_warnings   = 0;

static struct {
   ULong waited;        /* names that waited */
   ULong became_code;   /* registered once their code was executable */
   ULong replaced;      /* by a newer name or registration there */
   ULong refused_then;  /* refused once their code was executable */
   ULong over_bound;    /* refused: the bound was reached */
} stats;

/* A copy of the line table lines[0 .. n-1] with its own file names. */
static JitSrcLine* copy_lines ( const JitSrcLine* lines, UWord n,
                                /*OUT*/SizeT* bytes )
{
   JitSrcLine* c = ML_(dinfo_zalloc)("di.jitpending.lines",
                                     n * sizeof(JitSrcLine));
   UWord i;
   *bytes = n * sizeof(JitSrcLine);
   for (i = 0; i < n; i++) {
      c[i] = lines[i];
      if (lines[i].file != NULL && lines[i].file != JIT_SRC_FILE_UNREADABLE) {
         c[i].file = ML_(dinfo_strdup)("di.jitpending.file", lines[i].file);
         *bytes += VG_(strlen)(lines[i].file) + 1;
      }
   }
   return c;
}

/* What keeping reg would cost, in bytes (the bound's measure). */
static SizeT cost_of ( const JitRegistration* reg, SizeT name_len )
{
   SizeT b = sizeof(Pending) + name_len + 1
             + reg->n_lines * sizeof(JitSrcLine);
   UWord i;
   if (reg->file != NULL)
      b += VG_(strlen)(reg->file) + 1;
   for (i = 0; i < reg->n_lines; i++)
      if (reg->lines[i].file != NULL
          && reg->lines[i].file != JIT_SRC_FILE_UNREADABLE)
         b += VG_(strlen)(reg->lines[i].file) + 1;
   return b;
}

/* Frees what p owns and p (taken out of the set already). */
static void free_pending ( Pending* p )
{
   UWord i;
   ML_(dinfo_free)(p->name);
   if (p->file != NULL)
      ML_(dinfo_free)(p->file);
   for (i = 0; i < p->n_lines; i++)
      if (p->lines[i].file != NULL
          && p->lines[i].file != JIT_SRC_FILE_UNREADABLE)
         ML_(dinfo_free)((HChar*)(Addr)p->lines[i].file);   /* ours */
   if (p->lines != NULL)
      ML_(dinfo_free)(p->lines);
   if (p->cfi != NULL)
      ML_(free_unlisted_DebugInfo)(p->cfi);
   vg_assert(pending_bytes >= p->bytes && ML_(jit_n_pending) > 0);
   pending_bytes -= p->bytes;
   ML_(jit_n_pending)--;
   VG_(OSetGen_FreeNode)(pending, p);
}

/* Takes the name starting at start out of the set and frees it, if one
   waits there; returns whether one did. */
static Bool drop_at ( Addr start )
{
   Pending* p;
   if (pending == NULL)
      return False;
   p = VG_(OSetGen_Remove)(pending, &start);
   if (p == NULL)
      return False;
   free_pending(p);
   return True;
}

/* Keeps reg (refused as not code) waiting, with cfi; False if the bound
   is reached. */
static Bool wait_for_exec ( const JitRegistration* reg, DebugInfo* cfi )
{
   SizeT    name_len = reg->name_len > 0 ? reg->name_len
                                          : VG_(strlen)(reg->name);
   SizeT    bytes = cost_of(reg, name_len), line_bytes;
   Pending* p;
   if (pending == NULL)
      pending = VG_(OSetGen_Create)(offsetof(Pending, start), NULL,
                                    ML_(dinfo_zalloc), "di.jitpending.set",
                                    ML_(dinfo_free));
   /* A newer name for the same start replaces the one waiting. */
   if (drop_at(reg->start))
      stats.replaced++;
   if (ML_(jit_n_pending) >= JIT_PENDING_MAX_NAMES
       || pending_bytes + bytes > JIT_PENDING_MAX_BYTES) {
      stats.over_bound++;
      return False;
   }
   p = VG_(OSetGen_AllocNode)(pending, sizeof(Pending));
   VG_(memset)(p, 0, sizeof(*p));
   p->start = reg->start;
   p->size  = reg->size;
   p->seq   = next_seq++;
   p->name  = ML_(dinfo_zalloc)("di.jitpending.name", name_len + 1);
   VG_(memcpy)(p->name, reg->name, name_len);
   p->name_len      = name_len;
   p->name_is_ascii = reg->name_is_ascii;
   p->may_name_unmapped = reg->may_name_unmapped;
   p->obj   = reg->object_resolved != NULL
              ? reg->object_resolved : ML_(jit_object_named)(reg->object);
   p->file  = reg->file != NULL
              ? ML_(dinfo_strdup)("di.jitpending.file", reg->file) : NULL;
   if (reg->n_lines > 0 && reg->lines != NULL) {
      p->lines   = copy_lines(reg->lines, reg->n_lines, &line_bytes);
      p->n_lines = reg->n_lines;
   }
   p->loaded = reg->loaded;
   p->cfi    = cfi;
   p->bytes  = bytes;
   VG_(OSetGen_Insert)(pending, p);
   ML_(jit_n_pending)++;
   pending_bytes += bytes;
   if (reg->size > max_size)
      max_size = reg->size;
   stats.waited++;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %#lx-%#lx %.*s (%s) waits: the range is not "
                "executable client memory yet\n", reg->start,
                reg->start + reg->size, (Int)name_len, reg->name,
                p->obj->name);
   return True;
}

Int ML_(jit_register_or_wait) ( const JitRegistration* reg, JitWhere where,
                                /*MOD*/DebugInfo** cfi )
{
   Int st = ML_(jit_register)(reg, where);
   if (LIKELY(st != VG_JIT_ERR_NOT_CODE))
      return st;
   /* At exit nothing becomes executable any more. */
   if (ML_(jit_is_exiting)())
      return st;
   if (!wait_for_exec(reg, cfi != NULL ? *cfi : NULL))
      return st;
   if (cfi != NULL)
      *cfi = NULL;   /* the waiting name's */
   return JIT_STATUS_WAITING;
}

/* Appends to out the waiting names that intersect [a, a+len) (len > 0,
   clipped at the top of memory). */
static void collect_intersecting ( Addr a, SizeT len, XArray* out )
{
   Addr     last = ML_(jit_range_last)(a, len);
   Addr     from = a > max_size ? a - max_size : 0;
   Pending* p;
   VG_(OSetGen_ResetIterAt)(pending, &from);
   while ((p = VG_(OSetGen_Next)(pending)) != NULL) {
      if (p->start > last)
         break;
      if (p->start + p->size - 1 >= a)
         VG_(addToXA)(out, &p);
   }
}

static Int cmp_seq ( const void* x, const void* y )
{
   const Pending* p = *(Pending* const*)x;
   const Pending* q = *(Pending* const*)y;
   return p->seq < q->seq ? -1 : p->seq > q->seq ? 1 : 0;
}

/* Registers p (taken out of the set already) and frees it.  Returns
   the registry's status. */
static Int take_effect ( Pending* p, JitWhere where )
{
   JitRegistration reg;
   Int             st;
   VG_(memset)(&reg, 0, sizeof(reg));
   reg.start    = p->start;
   reg.size     = p->size;
   reg.name     = p->name;
   reg.name_len = p->name_len;
   reg.name_is_ascii = p->name_is_ascii;
   reg.object_resolved = p->obj;
   reg.object   = p->obj->name;
   reg.file     = p->file;
   reg.lines    = p->lines;
   reg.n_lines  = p->n_lines;
   reg.loaded   = p->loaded;
   st = ML_(jit_register)(&reg, where);
   if (st == JIT_STATUS_RANGE_BUSY)
      return st;   /* the caller keeps p */
   if (ML_(jit_status_applied)(st)) {
      stats.became_code++;
      if (p->cfi != NULL) {
         ML_(jit_cfi_add)(p->start, p->start + p->size, p->cfi,
                          JitCfiFunction, p->start);
         p->cfi = NULL;   /* the store's */
      }
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit: %#lx-%#lx %s (%s): the waiting name takes effect\n",
                   p->start, p->start + p->size, p->name, p->obj->name);
   } else {
      stats.refused_then++;
      if (VG_(clo_verbosity) > 1 && n_warnings++ < MAX_WARNINGS)
         VG_(umsg)("Warning: JIT: %s at %#lx (%lu bytes, %s), waiting for "
                   "its code, refused once it became executable: %s\n",
                   p->name, p->start, p->size, p->obj->name,
                   ML_(jit_status_text)(st));
   }
   return st;
}

void ML_(jit_pending_notify_exec) ( Addr a, SizeT len )
{
   XArray* ready;
   Word    i, n;
   if (LIKELY(ML_(jit_n_pending) == 0) || len == 0)
      return;
   ready = VG_(newXA)(ML_(dinfo_zalloc), "di.jitpending.ready",
                      ML_(dinfo_free), sizeof(Pending*));
   collect_intersecting(a, len, ready);
   /* Take the ready ones out of the set before any registers: registering
      discards translations, which calls the tool, and drops the names it
      supersedes from the set. */
   n = 0;
   for (i = 0; i < VG_(sizeXA)(ready); i++) {
      Pending* p = *(Pending**)VG_(indexXA)(ready, i);
      if (!VG_(am_is_valid_for_client)(p->start, p->size, VKI_PROT_EXEC))
         continue;
      (void)VG_(OSetGen_Remove)(pending, &p->start);
      *(Pending**)VG_(indexXA)(ready, n++) = p;
   }
   VG_(dropTailXA)(ready, VG_(sizeXA)(ready) - n);
   /* Oldest first: a newer name for overlapping code replaces an older
      one, as it would have had both arrived in time. */
   VG_(setCmpFnXA)(ready, cmp_seq);
   VG_(sortXA)(ready);
   for (i = 0; i < n; i++) {
      Pending* p = *(Pending**)VG_(indexXA)(ready, i);
      (void)take_effect(p, JitAtSafePoint);
      free_pending(p);
   }
   VG_(deleteXA)(ready);
}

Bool ML_(jit_pending_on_lookup_miss) ( Addr a )
{
   Pending* p;
   Pending* newest = NULL;
   Addr     from;
   Int      st;
   if (LIKELY(ML_(jit_n_pending) == 0))
      return False;
   /* No allocation: misses are frequent while names wait that never
      become code. */
   from = a > max_size ? a - max_size : 0;
   VG_(OSetGen_ResetIterAt)(pending, &from);
   while ((p = VG_(OSetGen_Next)(pending)) != NULL && p->start <= a)
      if (p->start + p->size - 1 >= a
          && (newest == NULL || p->seq > newest->seq))
         newest = p;
   if (newest == NULL
       || !VG_(am_is_valid_for_client)(newest->start, newest->size,
                                       VKI_PROT_EXEC))
      return False;
   (void)VG_(OSetGen_Remove)(pending, &newest->start);
   st = take_effect(newest, JitInLookup);
   if (st == JIT_STATUS_RANGE_BUSY) {
      VG_(OSetGen_Insert)(pending, newest);   /* for the next safe point */
      return False;
   }
   free_pending(newest);
   if (!ML_(jit_status_applied)(st))
      return False;
   /* The lookup that missed must see it: forget the cached "no name"
      answers. */
   ML_(invalidate_sym_name_cache_for_jit)();
   return True;
}

/* The waiting name with the lowest start that intersects [a, last], or
   NULL: no allocation, for the registration path. */
static Pending* first_intersecting ( Addr a, Addr last )
{
   Addr     from = a > max_size ? a - max_size : 0;
   Pending* p;
   VG_(OSetGen_ResetIterAt)(pending, &from);
   while ((p = VG_(OSetGen_Next)(pending)) != NULL && p->start <= last)
      if (p->start + p->size - 1 >= a)
         return p;
   return NULL;
}

void ML_(jit_pending_forget) ( Addr a, SizeT len )
{
   Addr     last;
   Pending* p;
   if (ML_(jit_n_pending) == 0 || len == 0)
      return;
   /* Called for every registration while names wait: each hit is
      dropped as it is found (the set changes, so the walk starts
      again), and a registration that covers none costs one walk. */
   last = ML_(jit_range_last)(a, len);
   while ((p = first_intersecting(a, last)) != NULL) {
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit: %#lx-%#lx %s (%s): the waiting name is dropped: "
                   "code was registered there\n", p->start,
                   p->start + p->size, p->name, p->obj->name);
      (void)drop_at(p->start);
      stats.replaced++;
   }
}

void ML_(jit_pending_print_summary) ( void )
{
   Pending* p;
   UInt     n = 0;
   if (VG_(clo_verbosity) < 2 || stats.waited + stats.over_bound == 0)
      return;
   VG_(umsg)("JIT: %llu names waited for their code to become executable: "
             "%llu became code, %llu replaced by newer names, %llu refused "
             "then, %lu never became code; %llu refused at the bound of "
             "%u waiting names or %u MiB\n",
             stats.waited, stats.became_code, stats.replaced,
             stats.refused_then, ML_(jit_n_pending), stats.over_bound,
             (UInt)JIT_PENDING_MAX_NAMES,
             (UInt)(JIT_PENDING_MAX_BYTES / (1024 * 1024)));
   if (pending == NULL)
      return;
   VG_(OSetGen_ResetIter)(pending);
   while ((p = VG_(OSetGen_Next)(pending)) != NULL
          && n++ < MAX_LISTED_AT_EXIT)
      VG_(umsg)("JIT: never became code: %s at %#lx (%lu bytes, %s)\n",
                p->name, p->start, p->size, p->obj->name);
}

void ML_(jit_pending_print_info) ( Addr a, SizeT len, const HChar* objname )
{
   XArray* hits;
   Word    i;
   UWord   n = 0;
   if (ML_(jit_n_pending) == 0 || len == 0)
      return;
   hits = VG_(newXA)(ML_(dinfo_zalloc), "di.jitpending.info",
                     ML_(dinfo_free), sizeof(Pending*));
   collect_intersecting(a, len, hits);
   for (i = 0; i < VG_(sizeXA)(hits); i++) {
      const Pending* p = *(Pending**)VG_(indexXA)(hits, i);
      if (objname != NULL && VG_(strcmp)(p->obj->name, objname) != 0)
         continue;
      n++;
      VG_(printf)("%#lx-%#lx %s (%s), waiting: not executable yet\n",
                  p->start, p->start + p->size, p->name, p->obj->name);
   }
   VG_(deleteXA)(hits);
   if (n > 0)
      VG_(printf)("JIT: %lu names waiting for their code, listed here\n", n);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
