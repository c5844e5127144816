
/*--------------------------------------------------------------------*/
/*--- JIT code registry: names that wait for their code to become  ---*/
/*--- executable.                                priv_jitpending.h ---*/
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

#ifndef __PRIV_JITPENDING_H
#define __PRIV_JITPENDING_H

#include "pub_core_basics.h"
#include "priv_jitreg.h"         /* JitRegistration */

/* A JIT that keeps its code memory W^X writes code while the memory is
   writable and not executable, announces it (a perf map line, a jitdump
   record, a client request), and only then makes the memory executable
   (PHP's opcache JIT flips its buffer with mprotect around every
   compilation; HotSpot with W^X, Firefox and .NET do the same).  A name
   for memory that is not executable client memory at that moment (or
   not mapped yet) waits here, and is registered when an mmap or
   mprotect makes its whole range executable, or when a lookup misses in
   it once it is.  A name that arrives for the same start replaces the
   one waiting; a registration that succeeds over a waiting name's range
   drops it (the JIT said something newer about that memory).

   Waiting names cost nothing to code that never waits: every hook tests
   one counter first.  They are bounded (JIT_PENDING_MAX_NAMES names and
   JIT_PENDING_MAX_BYTES bytes of copies), so that a map of garbage
   cannot grow memory without limit: past the bound a name is refused
   as VG_JIT_ERR_NOT_CODE, as it would have been without this file.
   Under -v the summary counts names that waited, became code, were
   replaced, were refused when their code became executable, and never
   became code (still waiting at exit, the first few listed). */

#define JIT_PENDING_MAX_NAMES 65536
#define JIT_PENDING_MAX_BYTES (16 * 1024 * 1024)

/* What ML_(jit_register_or_wait) answers when the name waits (besides
   ML_(jit_register)'s statuses).  Client requests report it as
   VG_JIT_WARN_PENDING. */
#define JIT_STATUS_WAITING (-3)

/* Waiting names now (read inline by every hook). */
extern UWord ML_(jit_n_pending);

/* ML_(jit_register)(reg, where), except that a registration refused as
   VG_JIT_ERR_NOT_CODE waits here if the bound allows: then
   JIT_STATUS_WAITING is returned, and *cfi (if cfi and *cfi are not
   NULL: the CFI store's reading DebugInfo of a client request's unwind
   and inline tables) is taken over (set to NULL), to be added to the
   CFI store with the function.  reg is copied (name, object, file and
   line table); its drops are not reported again when the name takes
   effect. */
extern Int ML_(jit_register_or_wait) ( const JitRegistration* reg,
                                       JitWhere where,
                                       /*MOD*/DebugInfo** cfi );

/* [a, a+len) may have become executable client memory (an mmap or
   mprotect with PROT_EXEC: at a safe point): registers the waiting
   names whose whole range is code now, oldest first. */
extern void ML_(jit_pending_notify_exec) ( Addr a, SizeT len );

/* A current-epoch lookup found no function at a: if a waiting name
   covers a and its range is code now, registers it (JitInLookup: only
   if nothing is registered there).  Returns True if it did. */
extern Bool ML_(jit_pending_on_lookup_miss) ( Addr a );

/* A function was registered at [a, a+len): waiting names that
   intersect it are dropped (counted as replaced).  Called by the
   registry for every registration while names wait. */
extern void ML_(jit_pending_forget) ( Addr a, SizeT len );

/* Under -v: the counts, and the first names that never became code. */
extern void ML_(jit_pending_print_summary) ( void );

/* For v.info jit: the waiting names intersecting [a, a+len) (len > 0),
   with objname's only (NULL: any); prints nothing if none waits. */
extern void ML_(jit_pending_print_info) ( Addr a, SizeT len,
                                          const HChar* objname );

#endif   // __PRIV_JITPENDING_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
