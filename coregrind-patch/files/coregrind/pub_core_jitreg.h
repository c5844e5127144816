
/*--------------------------------------------------------------------*/
/*--- The JIT code registry: jitted code named like ELF code.      ---*/
/*---                                             pub_core_jitreg.h ---*/
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

#ifndef __PUB_CORE_JITREG_H
#define __PUB_CORE_JITREG_H

//--------------------------------------------------------------------
// PURPOSE: a JIT announces the code it emits (client requests from
// valgrind/jit.h, or files it writes for Linux perf: jitdump and
// /tmp/perf-<pid>.map).  The registry keeps one entry per announced
// function (address range, name, object, line table) and answers the
// symbol, line and object lookups of m_debuginfo for addresses that no
// ELF DebugInfo covers, so every tool names jitted code.
//--------------------------------------------------------------------

#include "pub_core_basics.h"

/* --trace-jit=yes: print every registration, replacement and removal. */
extern Bool VG_(clo_trace_jit);

/* --jit-perf-map=yes: read /tmp/perf-<pid>.map as the client writes it. */
extern Bool VG_(clo_jit_perf_map);

/* --jit-dump=yes (default): when the client maps a file named
   jit-<pid>.dump that starts with the jitdump magic, read it. */
extern Bool VG_(clo_jit_dump);

/* Handles a client request whose code has the tool-style base
   VG_USERREQ_TOOL_BASE('V','J') (see valgrind/jit.h).  arg[0] is the
   request code, arg[1..] its arguments, as in do_client_request.
   Returns the value the request yields to the client.  Never asserts on
   client input: bad arguments are refused with a Vg_JitStatus. */
extern UWord VG_(jit_handle_client_request) ( ThreadId tid, UWord* arg );

/* Called at scheduler points (where translations may be discarded):
   discards translations of code that got its name inside a lookup, and
   reads what producers appended to the jitdump files and the perf map
   being followed.  When nothing changed it costs one fstat per file. */
extern void VG_(jit_poll_producer_files) ( void );

/* Called once when the client has exited, before the tool's fini
   (which writes profiles and runs the leak check): reads every followed
   producer file (jitdump, perf map) to its end and opens a perf map that
   the client wrote only at exit, so that names written late still name
   the results.  Bad or truncated files are reported under -v and never
   stop the exit. */
extern void VG_(jit_read_producers_at_exit) ( void );

/* Prints the one-line registry summary (registered, unregistered,
   replaced, refused) when -v is given.  Called once at exit. */
extern void VG_(jit_print_summary) ( void );

#endif   // __PUB_CORE_JITREG_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
