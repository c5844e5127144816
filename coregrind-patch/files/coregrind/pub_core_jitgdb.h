
/*--------------------------------------------------------------------*/
/*--- Reading the GDB JIT compilation interface.                   ---*/
/*---                                             pub_core_jitgdb.h ---*/
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

#ifndef __PUB_CORE_JITGDB_H
#define __PUB_CORE_JITGDB_H

//--------------------------------------------------------------------
// PURPOSE: JITs such as LLVM's MCJIT and ORC hand each module they
// compile to debuggers as an in-memory object file, through the GDB
// JIT compilation interface (GDB manual, "JIT Compilation Interface"):
// a list of code entries hanging off __jit_debug_descriptor, and a
// call of __jit_debug_register_code after each change.  The core's
// preload library wraps __jit_debug_register_code in every object and
// tells the core (VG_USERREQ__JIT_GDB_REGISTER_CODE); the core reads
// the registered objects from client memory and registers their
// functions in the JIT code registry, so every tool names them.
//--------------------------------------------------------------------

#include "pub_core_basics.h"

/* Enabled by --jit-gdb-interface=yes|no (VG_(clo_jit_gdb_interface),
   pub_core_options.h; default yes). */

/* Handles VG_USERREQ__JIT_GDB_REGISTER_CODE: thread tid is about to
   run the __jit_debug_register_code found at orig_fn (the wrapped
   function's address, which identifies the object whose
   __jit_debug_descriptor describes the change).  Reads the descriptor
   and registers or unregisters the relevant entry's object; the first
   time a descriptor is seen, every entry already on its list is
   registered.  Malformed descriptors, lists and objects are refused
   with a warning; nothing in client memory is trusted.  Called at a
   safe point (translations may be discarded). */
extern void VG_(jit_gdb_notify) ( ThreadId tid, Addr orig_fn );

/* Prints the one-line summary (descriptors, objects registered,
   unregistered and refused, functions) when -v is given and the
   interface was used.  Called once at exit. */
extern void VG_(jit_gdb_print_summary) ( void );

#endif   // __PUB_CORE_JITGDB_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
