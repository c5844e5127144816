
/*--------------------------------------------------------------------*/
/*--- JIT code registry: names of code that outlives its           ---*/
/*--- registration.                               priv_jitkeep.h ---*/
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

#ifndef __PRIV_JITKEEP_H
#define __PRIV_JITKEEP_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"  /* DiEpoch */
#include "priv_jitstore.h"       /* JitFn */
#include "priv_jitcfi.h"         /* JitCfiOwner */

/* Producers that unregister code which stays mapped and keeps running
   (an LLVM JIT whose memory manager outlives its execution engine, as
   Mesa's llvmpipe does through the GDB JIT interface; a runtime that
   withdraws a client request's registration but keeps the code) would
   leave that code unnamed.  jitkeep.c keeps such functions in the store, live,
   with their names, line tables, CFI and inlined calls, for as long as
   their code is there: "kept" functions.  A kept function ends when

     - its memory is unmapped (ML_(jit_notify_munmap)),
     - a registration or move covers it (its range is reused),
     - its bytes change: each KEEP_BLOCK bytes of its code have a
       checksum taken when it is kept, compared with the code's bytes
       when the scheduler discards translations there because their
       code changed (VG_(jit_note_code_changed): --smc-check, on by
       default for code outside files, found a translation's bytes
       changed), and whenever a current-epoch lookup finds the function
       (lookups are made when a tool translates the code, or describes
       an address in it; such a change ends it at the next safe point);
       an mprotect that makes the range writable or not executable ends
       it as well, as the client is about to write it.

   Both producers that withdraw code use this one mechanism: the GDB
   JIT interface (jitgdbobject.c) for an object's functions, the client
   requests (jitclreq.c) for each function they unregister.

   Kept functions are not "registered" for the -v summary (they were
   counted as unregistered when their producer withdrew them) and end
   without counting as unmapped or replaced. */

/* Why a kept function ended (for the -v summary). */
typedef
   enum {
      JitKeptUnmapped,   /* its memory was unmapped */
      JitKeptReused,     /* a registration or move covered it */
      JitKeptWritten,    /* its bytes changed, or the range was made
                            writable or not executable */
      JitKeptOther,      /* unregistered again, or removed otherwise */
      JitKept_N
   }
   JitKeptEnd;

/* Keeps the live functions that start at starts[0 .. n) (a producer
   has just withdrawn them) while their code stays: each one whose
   whole range is readable and executable client memory is kept (its
   checksums taken, its translations discarded so that the tools look
   its name up again when the code runs); the others are unregistered
   (ML_(jit_unregister)).  The CFI store's entry starting at cfi_lo that
   owner/cfi_key added (has_cfi: there is one) is removed when the last
   of these kept functions ends, or now if none is kept; the caller no
   longer owns it.  Counts every function as unregistered for the -v
   summary.  At a safe point.  Returns how many were kept. */
extern UWord ML_(jit_keep_unregistered) ( const Addr* starts, UWord n,
                                          Bool has_cfi, Addr cfi_lo,
                                          JitCfiOwner owner, UWord cfi_key );

/* VALGRIND_JIT_UNREGISTER: keeps the live function starting at start
   (as ML_(jit_keep_unregistered) does, with no group: its CFI and
   inlined calls are its own and go with it) if its whole range is
   readable and executable client memory, else unregisters it
   (ML_(jit_unregister)).  Returns VG_JIT_OK, or
   VG_JIT_ERR_NOT_REGISTERED if no function that is not kept starts
   there.  Costs a checksum of the code, so is for code that stays. */
extern Int ML_(jit_unregister_keeping_code) ( Addr start );

/* VALGRIND_JIT_UNREGISTER_RANGE: the same for every live function that
   is not kept and intersects [start, start+size) (size > 0; a range
   that wraps is cut at the end of the address space).  Returns how
   many there were (kept or unregistered). */
extern UWord ML_(jit_unregister_range_keeping_code) ( Addr start,
                                                      UWord size );

/* How many functions are kept now. */
extern ULong ML_(jit_n_kept) ( void );

/* Whether the live function starting at start is kept (it is no longer
   registered: an unregistration of it is refused). */
extern Bool ML_(jit_is_kept) ( Addr start );

/* For the symbol and line lookups (jitlookup.c), which found live
   function f for (ep, a): if f is kept, ep is the current epoch and the
   bytes of f's block holding a changed since f was kept, f is marked to
   end at the next safe point.  The lookup still describes f: it may be
   made for a translation of f's own code that is being discarded (the
   tools describe those by the names they had), and a translation made
   now of new code there is discarded when f ends.  One compare for
   functions that are not kept, a hash of at most KEEP_BLOCK bytes for
   those that are. */
extern void ML_(jit_kept_note_lookup) ( DiEpoch ep, const JitFn* f,
                                        Addr a );

/* Called by jitreg.c's retire_fn for every live function it removes:
   if f is kept, forgets it, counts why it ended (why: from the
   removal, JitKeptUnmapped for a munmap, JitKeptReused for a
   registration or move over it, JitKeptOther for an unregistration or
   a move of it; or the reason jitkeep.c gave ML_(jit_remove_for_keep))
   and removes its object's CFI with its last kept function; returns
   whether f was kept. */
extern Bool ML_(jit_kept_retired) ( const JitFn* f, JitKeptEnd why );

/* Ends the kept functions intersecting [a, a+len) (len > 0), for
   reason why (at a safe point). */
extern void ML_(jit_kept_end_range) ( Addr a, SizeT len, JitKeptEnd why );

/* Called for every mprotect of the client's: a range made writable or
   not executable ends the kept functions in it (JitKeptWritten). */
extern void ML_(jit_kept_notify_mprotect) ( Addr a, SizeT len, UInt prot );

/* Called at safe points: ends the kept functions whose bytes a lookup
   found changed. */
extern void ML_(jit_kept_at_safe_point) ( void );

/* Under -v, if any function was kept: "JIT: N unregistered functions
   kept their names while their code stayed ...". */
extern void ML_(jit_kept_print_summary) ( void );

/* ---- Implemented in jitreg.c for jitkeep.c ---- */

/* Removes the live functions intersecting [a, a+len) (discarding their
   translations first), with gone as the time their code went
   (VG_(jit_time_now)'s clock; 0: now) and why as the reason a kept
   one among them ends (ML_(jit_kept_retired)), and advances the epoch
   if any went.  Returns how many. */
extern UInt ML_(jit_remove_for_keep) ( Addr a, SizeT len, ULong gone,
                                       JitKeptEnd why );

/* Counts n functions as unregistered for the -v summary. */
extern void ML_(jit_count_unregistered) ( UWord n );

#endif   // __PRIV_JITKEEP_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
