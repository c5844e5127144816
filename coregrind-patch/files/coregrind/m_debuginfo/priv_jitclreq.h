/*--------------------------------------------------------------------*/
/*--- JIT code registry: what the files of the client              ---*/
/*--- requests share.                              priv_jitclreq.h ---*/
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

#ifndef __PRIV_JITCLREQ_H
#define __PRIV_JITCLREQ_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"  /* DebugInfo */
#include "priv_jitreg.h"         /* JitRegistration, JitSrcLine */

/* The client requests of valgrind/jit.h are three files: jitclreq.c
   (the VG_(di_jit_*) requests, their statuses and warnings),
   jitclreq-read.c (reading client memory: strings, line tables) and
   jitclreq-inline.c (a descriptor's unwind description and inline
   table).  ML_(jit_client_readable), the check of client memory that
   jitgdb.c uses too, is declared in priv_jitreg.h. */

/* jitclreq-read.c */

/* The client string at p (0 allowed when `optional`: *s is then NULL):
   True and *s (the client's own bytes, not copied) if it is readable
   client memory terminated within VG_JIT_MAX_STRING bytes (not
   counting its NUL) and not empty; else False. */
extern Bool ML_(jit_client_string) ( Addr p, Bool optional,
                                     /*OUT*/const HChar** s );

/* A refusal's reason with numbers, formatted by VG_(vsnprintf) into a
   static buffer of 200 bytes: valid until the next call (one request
   is refused for one reason). */
extern const HChar* ML_(jit_why_printf) ( const HChar* fmt, ... )
   PRINTF_CHECK(1, 2);

/* Why the code range [start, start+size) (an address and a size in
   bytes) is no range a function can have (the checks of
   ML_(jit_register) that give VG_JIT_ERR_BAD_RANGE: a size of 0 or
   above VG_JIT_MAX_CODE_SIZE, a range that wraps), or NULL. */
extern const HChar* ML_(jit_bad_range_why) ( Addr start, UWord size );

/* Reads a registration's strings from client pointers into reg: the
   name at `name` (reg->name, reg->name_len in bytes without its NUL,
   reg->name_is_ascii; also *name_out, for the warning), the object at
   `object` and the file at `file` (0: none; reg->object, reg->file).
   VG_JIT_OK, or VG_JIT_ERR_BAD_NAME or VG_JIT_ERR_BAD_STRING with
   *why_out saying why. */
extern Int ML_(jit_strings_from_client) ( JitRegistration* reg, Addr name,
                                          Addr object, Addr file,
                                          /*OUT*/const HChar** name_out,
                                          /*OUT*/const HChar** why_out );

/* Copies the client's line table, n_lines (> 0) VgJitLine entries at
   client address `lines`, into core memory (*tab, n_lines entries; the
   caller frees it with ML_(dinfo_free)): entries with an unusable file
   pointer get JIT_SRC_FILE_UNREADABLE, so that they are dropped and
   counted.  VG_JIT_OK, or VG_JIT_ERR_BAD_LINE_TABLE (more than
   VG_JIT_MAX_LINES entries, or not readable) with *why_out (*tab
   NULL). */
extern Int ML_(jit_lines_from_client) ( Addr lines, UWord n_lines,
                                        /*OUT*/JitSrcLine** tab,
                                        /*OUT*/const HChar** why_out );

/* jitclreq-inline.c */

/* Reads the unwind description and the inline table of desc (the
   client's VgJitCode, copied into core memory; it has one of them at
   least) for the code [reg->start, reg->start + reg->size) of reg
   (whose strings are read: reg->file is the inline table's default
   file) into one DebugInfo for the CFI store (*cfi, made here; the
   caller frees it with ML_(free_unlisted_DebugInfo) unless the store
   takes it, also after a refusal).  VG_JIT_OK, or VG_JIT_ERR_BAD_RANGE,
   VG_JIT_ERR_BAD_UNWIND or VG_JIT_ERR_BAD_INLINE with *why_out. */
extern Int ML_(jit_debug_info_from_client) ( const VgJitCode* desc,
                                             const JitRegistration* reg,
                                             /*OUT*/DebugInfo** cfi,
                                             /*OUT*/const HChar** why_out );

#endif   // __PRIV_JITCLREQ_H

/*--------------------------------------------------------------------*/
/*--- end                                          priv_jitclreq.h ---*/
/*--------------------------------------------------------------------*/
