
/*--------------------------------------------------------------------*/
/*--- Reading debug information that the client handed in.         ---*/
/*---                                               priv_jitguard.h ---*/
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

#ifndef __PRIV_JITGUARD_H
#define __PRIV_JITGUARD_H

#include "pub_core_basics.h"

/* The trust boundary of m_debuginfo's readers.  DWARF line tables, CFI
   and inlined-call information that come from the client (GDB JIT
   interface objects, jitdump CODE_UNWINDING_INFO records, the .eh_frame
   of VALGRIND_JIT_REGISTER_CODE) are read by readers written for files
   on disk, which end Valgrind on what they cannot handle: a read past
   the end of the image, a failed vg_assert, a core panic, a fault.
   Every such read runs under ML_(jit_guarded), which turns each of
   these into a failure of that one read.  The rule is in jitguard.c's
   header comment. */

/* Runs fn(arg), a call of one of m_debuginfo's readers on bytes that
   came from the client.  Returns NULL if it completed, else why it
   failed: a text valid until the next call, for a warning ("a read past
   the end of its section", "a failed check: 'dstxa' at
   m_debuginfo/readdwarf.c:2858 (copy_convert_CfiExpr_tree)", ...).  A
   failed read returns early: what the reader built so far may be half
   done, and whatever it allocated outside the DebugInfo it reads into is
   lost.  The caller drops that DebugInfo (ML_(free_unlisted_DebugInfo)).
   Must not be nested. */
extern const HChar* ML_(jit_guarded) ( void (*fn)(void* arg), void* arg );

/* For a reader with its own recovery point (readdwarf3.c's barf): while
   a guarded read is in progress, makes a failure call fail(why) (which
   must not return) instead of ending the guarded call; fail == NULL
   undoes that.  A failure while fail runs ends the guarded call.
   Returns False, and does nothing, when no guarded read is in progress
   (the reader is reading a file). */
extern Bool ML_(jit_guard_divert) ( void (*fail)(const HChar* why) );

/* For a reader that gave up by itself (ML_(symerr) with serious set,
   which readdwarf3.c's barf also reaches): if a guarded read is in
   progress, makes it return why (copied; the first failure reported
   wins) although fn returned, and returns True (the caller of the guard
   warns: the reader need not print).  Returns False, and does nothing,
   when no guarded read is in progress. */
extern Bool ML_(jit_guard_note_failure) ( const HChar* why );

#endif /* ndef __PRIV_JITGUARD_H */

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
