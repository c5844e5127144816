
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
#include "jit.h"     // valgrind/jit.h: request codes, Vg_JitStatus

/* The client requests of valgrind/jit.h.  The scheduler decodes each
   request's arguments (arg[1..]) and calls the function below; what it
   returns is the request's value for the client.  Client pointers are
   passed as Addr and validated before use: bad arguments never assert,
   they are refused with a Vg_JitStatus that the thread's next
   VALGRIND_JIT_LAST_ERROR returns, and under -v a warning (at most
   100). */

/* VALGRIND_JIT_REGISTER(start, size, name): registers the function
   [start, start+size) (size in bytes) named by the client string at
   name, in the default object.  Returns 1 if registered (possibly
   replacing overlapping code), 0 if refused. */
extern UWord VG_(di_jit_register) ( ThreadId tid, Addr start, SizeT size,
                                    Addr name );

/* VALGRIND_JIT_REGISTER_CODE(desc): registers the function described by
   the client's VgJitCode at desc (name, object, default file, line
   table).  Returns 1 if registered, 0 if refused. */
extern UWord VG_(di_jit_register_code) ( ThreadId tid, Addr desc );

/* VALGRIND_JIT_UNREGISTER(start): unregisters the function starting
   exactly at start.  Returns 1 if there was one, else 0. */
extern UWord VG_(di_jit_unregister) ( ThreadId tid, Addr start );

/* VALGRIND_JIT_UNREGISTER_RANGE(start, size): unregisters every function
   intersecting [start, start+size).  Returns how many. */
extern UWord VG_(di_jit_unregister_range) ( ThreadId tid, Addr start,
                                            SizeT size );

/* VALGRIND_JIT_LAST_ERROR(): the Vg_JitStatus of tid's most recent
   request above (VG_JIT_OK if none). */
extern UWord VG_(di_jit_last_status) ( ThreadId tid );

/* A 'V','J' request code this core does not know (from a newer
   valgrind/jit.h): warns under -v.  The request yields 0. */
extern void VG_(di_jit_unknown_request) ( UWord code );

/* Called at scheduler points (where translations may be discarded):
   discards translations of code that got its name inside a lookup, and
   reads what producers appended to the jitdump files and the perf map
   being followed.  When nothing changed it costs one fstat per file. */
extern void VG_(jit_poll_producer_files) ( void );

/* Called by the scheduler after each client syscall has completed.  A
   producer file grows only through one (a write, or the creation of a
   perf map), so a lookup that misses in executable client memory reads
   the followed files only if a syscall completed since the last such
   read; without it, every new translation of unnamed code would cost an
   fstat per file.  Costs one increment. */
extern void VG_(jit_note_client_syscall) ( void );

/* Called once when the client has exited, before the tool's fini
   (which writes profiles and runs the leak check): reads every followed
   producer file (jitdump, perf map) to its end and opens a perf map that
   the client wrote only at exit, so that names written late still name
   the results.  Bad or truncated files are reported under -v and never
   stop the exit. */
extern void VG_(jit_read_producers_at_exit) ( void );

/* The gdbserver monitor command "v.info jit [ADDR [LEN]]" or "v.info jit
   object NAME" (m_gdbserver/server.c), its arguments still in the
   strtok_r state *ssaveptr: lists the live JIT functions (start-end
   name (object), line entries; at most 1000), all of them, those
   intersecting [ADDR, ADDR+LEN) (LEN in bytes, decimal or 0x-hex,
   default 1), or those of the object NAME (exactly as listed), then the
   producer files followed with their counts.  Prints with VG_(printf),
   which gdbserver sends to GDB or vgdb; malformed arguments get a
   message. */
extern void VG_(jit_info_command) ( HChar** ssaveptr );

/* Prints the one-line registry summary (registered, unregistered,
   replaced, refused) when -v is given.  Called once at exit. */
extern void VG_(jit_print_summary) ( void );

/* Called by the scheduler after it discarded the translations of
   [a, a+len) because their code changed (--smc-check saw it, or the
   client asked for an instruction cache invalidation): the functions
   kept there after their unregistration (m_debuginfo/jitkeep.c) whose
   bytes changed lose their names. */
extern void VG_(jit_note_code_changed) ( Addr a, SizeT len );

/* For the amd64 unwinder (m_stacktrace.c), after CFI failed: one step
   through code outside every ELF object's text that has no unwind
   information of its own (JIT code nobody describes).  Takes the frame
   pointer's frame if [%rbp+8] is a return address, else the first
   return address on the stack from %rsp up (at most 8 KiB); a return
   address is one whose preceding bytes are a call instruction in
   executable client memory.  On success updates uregs (xip: the return
   address; xsp: the caller's stack pointer; xbp: the caller's, or
   unchanged) and returns True; else leaves them and returns False.
   Never True on other platforms or with --jit-unwind-scan=no.  The
   rule: m_debuginfo/jitunwind.c. */
#include "pub_core_debuginfo.h"   // D3UnwindRegs
extern Bool VG_(jit_unwind_without_cfi) ( /*MOD*/D3UnwindRegs* uregs,
                                          Addr fp_min, Addr fp_max );

#endif   // __PUB_CORE_JITREG_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
