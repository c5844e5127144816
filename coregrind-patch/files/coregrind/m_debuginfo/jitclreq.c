/*--------------------------------------------------------------------*/
/*--- JIT code registry: the client requests of valgrind/jit.h,    ---*/
/*--- decoded by the scheduler.                         jitclreq.c ---*/
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

/* The scheduler decodes each request's arguments and calls one of the
   VG_(di_jit_*) functions below.  They validate every client pointer
   (readable client memory, strings terminated within their limits)
   before the registry reads it, record each thread's last status for
   VALGRIND_JIT_LAST_ERROR, and warn under -v about refusals.  Bad
   arguments never assert: they are refused with a Vg_JitStatus. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_threadstate.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_jitreg.h"     /* self */

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitreg.h"
#include "priv_jitcfi.h"          /* unwind information */
#include "priv_jitkeep.h"         /* code that stays after unregistration */
#include "priv_jitpending.h"      /* names that wait for their code */
#include "priv_jitclreq.h"        /* reading the client's arguments */

/* Status of each thread's most recent JIT request, indexed by ThreadId
   (VG_N_THREADS entries, allocated on the first request). */
static UChar* last_status = NULL;

static inline void set_last_status ( ThreadId tid, Vg_JitStatus st )
{
   /* The scheduler passes the requesting thread's id: in range. */
   vg_assert(tid < VG_N_THREADS);
   if (last_status == NULL)
      last_status = ML_(dinfo_zalloc)("di.jitclreq.last_status",
                                      VG_N_THREADS);
   last_status[tid] = (UChar)st;
}

/* At most this many warnings are printed under -v; the number not
   printed is in the exit summary. */
#define MAX_WARNINGS 100
static UInt  n_warnings = 0;
static ULong n_warnings_hidden = 0;

/* Counts for the -v exit summary: each request is applied or refused
   (register requests: reg_applied + reg_refused). */
static struct {
   ULong reg_applied, reg_refused;             /* register requests */
   ULong unreg, unreg_applied, unreg_refused;  /* unregister (range) */
} counts;

/* What a warning shows about the request: the name it registers (NULL
   if it has none that could be read) and the arguments that apply to it:
   the range (has_size False: only the start), or, for a descriptor that
   could not be read, only its address (in start, is_desc True). */
typedef
   struct {
      const HChar* what;      /* "register", "unregister", ... */
      const HChar* name;
      Addr         start;
      UWord        size;
      Bool         has_size;
      Bool         is_desc;
      const HChar* detail;    /* why, beyond the status, or NULL */
   }
   ReqDesc;

static void warn ( const ReqDesc* d, Bool refused, Int st )
{
   HChar name[JIT_PRINTABLE_BUF];
   HChar args[64];
   HChar overlap[JIT_PRINTABLE_BUF + 64];
   const HChar* detail = d->detail;
   if (VG_(clo_verbosity) < 2 && !VG_(clo_trace_jit))
      return;
   if (n_warnings >= MAX_WARNINGS) {
      n_warnings_hidden++;
      return;
   }
   n_warnings++;
   if (d->is_desc)
      VG_(sprintf)(args, "descriptor %#lx", d->start);
   else if (d->has_size)
      VG_(sprintf)(args, "start %#lx, size %lu", d->start, d->size);
   else
      VG_(sprintf)(args, "start %#lx", d->start);
   if (st == VG_JIT_ERR_OVERLAPS_OBJECT && d->has_size && detail == NULL) {
      ML_(jit_overlap_text)(d->start, d->size, overlap, sizeof(overlap));
      detail = overlap[0] != 0 ? overlap : NULL;
   }
   if (d->name != NULL) {
      ML_(jit_printable_copy)(name, d->name);
      VG_(umsg)("Warning: JIT %s%s of \"%s\" (%s): %s%s%s\n", d->what,
                refused ? " refused" : "", name, args,
                ML_(jit_status_text)(st), detail ? ": " : "",
                detail ? detail : "");
   } else {
      VG_(umsg)("Warning: JIT %s%s (%s): %s%s%s\n", d->what,
                refused ? " refused" : "", args, ML_(jit_status_text)(st),
                detail ? ": " : "", detail ? detail : "");
   }
   if (n_warnings == MAX_WARNINGS)
      VG_(umsg)("Warning: further JIT warnings are only counted\n");
}

/* Records st as tid's last status, warns about it if it is a refusal
   or a dropped line entry, and returns what the request yields: 0 if
   refused, else applied_ret. */
static UWord finish ( ThreadId tid, const ReqDesc* d, Int st,
                      UWord applied_ret )
{
   set_last_status(tid, (Vg_JitStatus)st);
   if (!ML_(jit_status_applied)(st)) {
      warn(d, True, st);
      return 0;
   }
   if (st == VG_JIT_WARN_LINES_DROPPED)
      warn(d, False, st);
   return applied_ret;
}

void ML_(jit_clreq_print_summary) ( void )
{
   ULong reg = counts.reg_applied + counts.reg_refused;
   if (reg + counts.unreg > 0)
      VG_(umsg)("JIT: client requests: %llu register: %llu registered, "
                "%llu refused; %llu unregister: %llu applied, %llu "
                "refused\n", reg, counts.reg_applied,
                counts.reg_refused, counts.unreg, counts.unreg_applied,
                counts.unreg_refused);
   if (n_warnings_hidden > 0)
      VG_(umsg)("JIT: %llu further client request warnings were only "
                "counted\n", n_warnings_hidden);
}


/*------------------------------------------------------------*/
/*--- Registration                                         ---*/
/*------------------------------------------------------------*/

/* The status a registration that ML_(jit_register_or_wait) answered st
   ends with, and *why_out for its warning: a name waiting for its code,
   the line-table entries dropped (drops), a bad range. */
static inline Int status_of_registration ( Int st, Addr start, UWord size,
                                           const JitLineDrops* drops,
                                           /*OUT*/const HChar** why_out )
{
   if (UNLIKELY(st == JIT_STATUS_WAITING)) {
      *why_out = "the range is not executable client memory yet: the name"
                 " takes effect when it becomes so";
      return VG_JIT_WARN_PENDING;
   }
   if (UNLIKELY(st == VG_JIT_WARN_LINES_DROPPED)) {
      static HChar drops_why[400];
      ML_(jit_line_drops_text)(drops_why, sizeof(drops_why), drops, size);
      *why_out = drops_why;
   } else if (UNLIKELY(st == VG_JIT_ERR_BAD_RANGE)) {
      *why_out = ML_(jit_bad_range_why)(start, size);
   }
   return st;
}

/* Registers code described by client pointers: validates them, copies
   the client's line table into core memory
   (ML_(jit_lines_from_client)), reads the unwind description and the
   inline table of desc (if not NULL, ML_(jit_debug_info_from_client)),
   and calls ML_(jit_register_or_wait) (a W^X JIT may announce code
   before it makes it executable); the CFI and
   inlined calls are kept if the code was registered.  *why_out: why the
   registration was refused or warned about, or NULL.  Inlined into each
   request, so that a plain VALGRIND_JIT_REGISTER (no object, file,
   lines or descriptor) tests none of them. */
static inline __attribute__((always_inline))
Int register_from_client ( Addr start, UWord size, Addr name,
                           Addr object, Addr file,
                           Addr lines, UWord n_lines,
                           const VgJitCode* desc,
                           /*OUT*/const HChar** name_out,
                           /*OUT*/const HChar** why_out )
{
   JitRegistration reg;
   JitSrcLine*     tab = NULL;
   Int             st;
   DebugInfo*      cfi = NULL;
   JitLineDrops    drops;

   reg.start   = start;
   reg.size    = size;
   reg.lines   = NULL;
   reg.n_lines = 0;
   reg.drops   = NULL;
   reg.may_name_unmapped = False;
   reg.loaded  = 0;   /* client requests give no load time */
   reg.object_resolved = NULL;
   st = ML_(jit_strings_from_client)(&reg, name, object, file, name_out,
                                     why_out);
   if (st != VG_JIT_OK)
      return st;
   if (lines != 0 && n_lines > 0) {
      st = ML_(jit_lines_from_client)(lines, n_lines, &tab, why_out);
      if (st != VG_JIT_OK)
         return st;
      reg.lines   = tab;
      reg.n_lines = n_lines;
      reg.drops   = &drops;
   }
   if (desc != NULL && (desc->unwind_kind != VG_JIT_UNWIND_NONE
                        || (desc->inlines != NULL && desc->n_inlines > 0))) {
      st = ML_(jit_debug_info_from_client)(desc, &reg, &cfi, why_out);
      if (st != VG_JIT_OK)
         goto out;
   }
   st = status_of_registration(
           ML_(jit_register_or_wait)(&reg, JitAtSafePoint, &cfi),
           start, size, &drops, why_out);
   if (cfi != NULL && ML_(jit_status_applied)(st)) {
      ML_(jit_cfi_add)(start, start + size, cfi, JitCfiFunction, start);
      cfi = NULL;   /* the store's */
   }
  out:
   if (cfi != NULL)
      ML_(free_unlisted_DebugInfo)(cfi);
   if (tab)
      ML_(dinfo_free)(tab);
   return st;
}

/* finish() for a registration: counts it for the summary. */
static inline UWord finish_register ( ThreadId tid, Int st, Addr start,
                               UWord size, const HChar* name, Addr desc,
                               const HChar* detail )
{
   ReqDesc d;
   if (LIKELY(st == VG_JIT_OK)) {
      /* What finish() does for a registration applied without a
         warning. */
      set_last_status(tid, VG_JIT_OK);
      counts.reg_applied++;
      return 1;
   }
   d.detail   = detail;
   d.what     = "register";
   d.name     = name;
   d.start    = st == VG_JIT_ERR_BAD_DESCRIPTOR ? desc : start;
   d.size     = size;
   d.has_size = True;
   d.is_desc  = st == VG_JIT_ERR_BAD_DESCRIPTOR;
   if (ML_(jit_status_applied)(st)) {
      counts.reg_applied++;
   } else {
      counts.reg_refused++;
      ML_(jit_note_refused)(st);
   }
   return finish(tid, &d, st, 1);
}

UWord VG_(di_jit_register) ( ThreadId tid, Addr start, SizeT size,
                             Addr name )
{
   const HChar* nm = NULL;
   const HChar* why = NULL;
   Int st = register_from_client(start, size, name, 0, 0, 0, 0, NULL,
                                 &nm, &why);
   return finish_register(tid, st, start, size, nm, 0, why);
}

UWord VG_(di_jit_register_code) ( ThreadId tid, Addr desc )
{
   VgJitCode    d;
   UWord        struct_size;
   Int          st;
   const HChar* nm = NULL;
   const HChar* why = NULL;

   VG_(memset)(&d, 0, sizeof(d));
   if (!ML_(jit_client_readable)(desc, sizeof(UWord))) {
      st  = VG_JIT_ERR_BAD_DESCRIPTOR;
      why = desc == 0 ? "the descriptor pointer is NULL"
                      : "its struct_size is not readable client memory";
   } else {
      struct_size = *(const UWord*)desc;
      if (struct_size < VG_JIT_CODE_MIN_SIZE || struct_size > 4096) {
         st  = VG_JIT_ERR_BAD_DESCRIPTOR;
         why = ML_(jit_why_printf)("struct_size is %lu, not %lu to 4096 bytes",
                                   struct_size, (UWord)VG_JIT_CODE_MIN_SIZE);
      } else if (!ML_(jit_client_readable)(desc, struct_size)) {
         st  = VG_JIT_ERR_BAD_DESCRIPTOR;
         why = ML_(jit_why_printf)("its %lu bytes (struct_size) are not"
                                   " readable client memory", struct_size);
      } else {
         /* Fields beyond what this core knows are ignored. */
         VG_(memcpy)(&d, (const void*)desc,
                     struct_size < sizeof(d) ? struct_size : sizeof(d));
         st = register_from_client((Addr)d.start, d.size, (Addr)d.name,
                                   (Addr)d.object, (Addr)d.file,
                                   (Addr)d.lines, d.n_lines, &d, &nm,
                                   &why);
      }
   }
   return finish_register(tid, st, (Addr)d.start, d.size, nm, desc, why);
}


/*------------------------------------------------------------*/
/*--- Unregistration and status                            ---*/
/*------------------------------------------------------------*/

/* finish() for an unregistration: counts it for the summary. */
static UWord finish_unregister ( ThreadId tid, const ReqDesc* d, Int st,
                                 UWord applied_ret )
{
   counts.unreg++;
   if (ML_(jit_status_applied)(st))
      counts.unreg_applied++;
   else
      counts.unreg_refused++;
   return finish(tid, d, st, applied_ret);
}

UWord VG_(di_jit_unregister) ( ThreadId tid, Addr start )
{
   ReqDesc d = { "unregister", NULL, start, 0, False, False, NULL };
   Int     st = ML_(jit_unregister_keeping_code)(start);
   return finish_unregister(tid, &d, st, 1);
}

UWord VG_(di_jit_unregister_range) ( ThreadId tid, Addr start, SizeT size )
{
   ReqDesc d = { "unregister-range", NULL, start, size, True, False,
                 NULL };
   UWord   n  = ML_(jit_unregister_range_keeping_code)(start, size);
   Int     st = n > 0 ? VG_JIT_OK : VG_JIT_ERR_NOT_REGISTERED;
   return finish_unregister(tid, &d, st, n);
}

UWord VG_(di_jit_last_status) ( ThreadId tid )
{
   vg_assert(VG_(is_valid_tid)(tid));
   return last_status ? last_status[tid] : VG_JIT_OK;
}

void VG_(di_jit_unknown_request) ( UWord code )
{
   if (VG_(clo_verbosity) > 1)
      VG_(umsg)("Warning: unknown JIT client request %#lx\n", code);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
