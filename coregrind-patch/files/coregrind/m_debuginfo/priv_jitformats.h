/*--------------------------------------------------------------------*/
/*--- Parsers for JIT producer files and GDB JIT objects, all in   ---*/
/*--- one header, for the command-line tool and the tests.         ---*/
/*---                                            priv_jitformats.h ---*/
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

/* For the command-line tool and the tests: vg-jit (tool/), the unit
   tests and fuzz targets (tests/) and the benchmarks (bench/) include
   every shared reader under this one name.  The core's files include
   only the headers they need:

     priv_jitbytes.h     byte readers and writers, text from templates
                         (and the conventions every reader follows)
     priv_readjitdump.h  jitdump files (readjitdump.c)
     priv_readperfmap.h  perf maps (readperfmap.c)
     priv_readbeamjit.h  Erlang/OTP's entries of the GDB JIT interface
                         (readbeamjit.c)
     priv_readgdbelf.h   the rules for the GDB JIT interface's ELF
                         objects and their DWARF sections (readgdbelf*.c)
     priv_checkcfi.h     the checks of CFI records (checkcfi.c) */

#ifndef __PRIV_JITFORMATS_H
#define __PRIV_JITFORMATS_H

#include "priv_jitbytes.h"
#include "priv_readjitdump.h"
#include "priv_readperfmap.h"
#include "priv_readbeamjit.h"
#include "priv_readgdbelf.h"
#include "priv_checkcfi.h"

#endif /* __PRIV_JITFORMATS_H */

/*--------------------------------------------------------------------*/
/*--- end                                        priv_jitformats.h ---*/
/*--------------------------------------------------------------------*/
