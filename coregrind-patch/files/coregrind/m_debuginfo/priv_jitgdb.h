
/*--------------------------------------------------------------------*/
/*--- GDB JIT interface: hooks m_debuginfo calls.   priv_jitgdb.h ---*/
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

#ifndef __PRIV_JITGDB_H
#define __PRIV_JITGDB_H

#include "pub_core_basics.h"

/* Called by VG_(di_notify_mprotect) after the address space manager
   has recorded the new protection prot of [a, a+len).  JITs register
   an object before they make its code executable (LLVM's MCJIT does);
   the functions of registered objects that were not yet executable
   client memory are registered once they are.  Costs nothing when no
   such function is waiting.  Translations may be discarded. */
extern void ML_(jit_gdb_notify_mprotect) ( Addr a, SizeT len, UInt prot );

#endif   // __PRIV_JITGDB_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
