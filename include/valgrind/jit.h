/*
   valgrind/jit.h: client requests with which a JIT compiler tells Valgrind
   about the machine code it emits, so that every Valgrind tool (Callgrind,
   Cachegrind, Memcheck, Helgrind, DRD, Massif, DHAT) names that code,
   attributes it to an object and annotates it with source lines.

   This file is part of valgrind-jit.  Unlike the rest of valgrind-jit, it is
   licensed permissively so that any program, open or closed source, may
   include it:

   Copyright (C) 2026 the valgrind-jit authors.

   Permission is hereby granted, free of charge, to any person obtaining a
   copy of this file, to deal in it without restriction, including without
   limitation the rights to use, copy, modify, merge, publish, distribute,
   sublicense, and/or sell copies of it, provided that the above copyright
   notice and this permission notice are kept in all copies.

   THIS FILE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
   IMPLIED.  IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES
   OR OTHER LIABILITY ARISING FROM THE USE OF THIS FILE.

   ------------------------------------------------------------------------

   Overview
   --------
   A JIT writes code into anonymous executable memory; Valgrind knows no
   name for it.  After emitting a function, announce it:

      #include <valgrind/jit.h>

      VALGRIND_JIT_REGISTER(code, code_size, "fib");

   or, with an object name and a line table:

      VgJitLine lines[] = { { 0, 10, NULL }, { 17, 11, NULL } };
      VgJitCode desc = VG_JIT_CODE_INITIALIZER;
      desc.start   = code;            // first byte of the code
      desc.size    = code_size;       // in bytes
      desc.name    = "fib";           // function name, mangled or not
      desc.object  = "myvm-jit";      // shown as Callgrind's ob=
      desc.file    = "/src/fib.my";   // default source file of the lines
      desc.lines   = lines;
      desc.n_lines = 2;
      VALGRIND_JIT_REGISTER_CODE(&desc);

   and before the memory is freed or reused, withdraw it:

      VALGRIND_JIT_UNREGISTER(code);

   (Unmapping or reusing the memory ends the name anyway: the name of
   code that stays mapped and unchanged stays in force until then, see
   VALGRIND_JIT_UNREGISTER.)

   Cost and portability
   --------------------
   Each macro is one Valgrind client request (valgrind.h's magic instruction
   sequence): a handful of instructions when the program does not run under
   Valgrind, and no function call.  Natively, under a Valgrind without
   valgrind-jit support, or when compiled with -DNVALGRIND, every request
   yields its documented "not recorded" value (0, or VG_JIT_ERR_NOT_RUNNING
   for VALGRIND_JIT_LAST_ERROR) and the program behaves the same.

   The header is C99 and C++ (98 and later) and depends only on
   valgrind.h, which is installed next to it: compile with
   $(pkg-config --cflags valgrind-jit) (that is, -I<prefix>/include) and
   include <valgrind/jit.h>.  C++17 code may use <valgrind/jit.hpp>, a
   layer over this header with RAII registration handles.

   Ownership and lifetime
   ----------------------
   Valgrind copies everything it keeps (names, object and file names, the
   line table) during the request.  Once the macro returns, the caller may
   free or reuse its strings, descriptor and line table.  The code bytes
   themselves are not copied: they must stay mapped and executable for as
   long as they are registered.  Unmapping memory (munmap) drops the
   registrations inside it automatically.

   Source files
   ------------
   A `file` (VgJitCode.file, VgJitLine.file) is a path, split at its last
   '/' into directory and file name as DWARF line tables are.  An absolute
   path is used as it is.  A relative path stays relative, as Valgrind
   keeps a relative DWARF path of an ELF object without a compilation
   directory (DW_AT_comp_dir): it is not joined with the program's working
   directory or any other, and no file is opened.  Tools print the file
   name ("fib.my:12"; with --fullpath-after= also the directory,
   "src/fib.my:12"), Callgrind writes the path as given ("src/fib.my"), and
   callgrind_annotate, cg_annotate and KCachegrind look for it relative to
   the directory they run in (or their --include directories).  Pass
   absolute paths when the sources should be found from anywhere.

   Threads
   -------
   The requests may be issued from any thread.  Valgrind runs one client
   thread at a time, so requests never race with each other.
   VALGRIND_JIT_LAST_ERROR reports the most recent request of the calling
   thread only.

   Request codes
   -------------
   The requests use the tool-style request base VG_USERREQ_TOOL_BASE('V','J')
   ("Valgrind JIT"), codes 0x564A0000..0x564A00FF.  Upstream Valgrind's core
   requests live below 0x10000 and its tools use their own two-letter bases
   ('M','C', 'C','G', 'C','T', 'H','G', 'D','R', 'D','r', 'D','H'); no
   upstream tool uses 'V','J'.  The numeric values below are ABI: they are
   never changed or reused, new requests are added at the end.
*/

#ifndef VALGRIND_JIT_H
#define VALGRIND_JIT_H

/* valgrind.h is installed in the same directory as this header. */
#include "valgrind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the API this header describes.  VALGRIND_JIT_QUERY()
   returns the version the running Valgrind implements.  Version 2 reads
   the unwind fields of VgJitCode (a version-1 Valgrind ignores them),
   version 3 its inline table (an older Valgrind ignores it). */
#define VG_JIT_API_VERSION 3

/* Object name used for code registered without one (VALGRIND_JIT_REGISTER,
   or a descriptor whose object is NULL). */
#define VG_JIT_DEFAULT_OBJECT "[jit]"

/* Longest accepted name, object name or file name, in bytes, not counting
   the terminating NUL.  A longer or unterminated string is refused. */
#define VG_JIT_MAX_STRING 4095

/* Names and source file names are UTF-8 text.  A function or object name
   holding a control character (U+0000..U+001F, U+007F..U+009F) or bytes
   that are not well-formed UTF-8 (RFC 3629) is registered with each such
   byte written as the four characters \xNN (lower-case hex): the request
   succeeds and tools show the escaped name.  A source file name of that
   kind is never shown: it counts as no file, so the line entries that
   use it are dropped (VG_JIT_WARN_LINES_DROPPED).  Both are counted in
   the -v exit summary.  Names read from jitdump files and perf maps are
   treated the same way. */

/* Largest accepted code range, in bytes. */
#define VG_JIT_MAX_CODE_SIZE 0xFFFFFFFFUL

/* Largest accepted line table, in entries. */
#define VG_JIT_MAX_LINES 1048576UL

/* Largest accepted VgJitCode.eh_frame, in bytes. */
#define VG_JIT_MAX_EH_FRAME 1048576UL

/* Largest accepted inline table (VgJitCode.inlines), in entries. */
#define VG_JIT_MAX_INLINES 65536UL

/* Deepest accepted nesting of inlined calls: an entry inlined into the
   registered function itself is at depth 1, one inlined into it at
   depth 2, and so on. */
#define VG_JIT_MAX_INLINE_DEPTH 1000UL

/* Largest accepted VgJitInline.call_line (Valgrind's limit on line
   numbers of inlined calls). */
#define VG_JIT_MAX_INLINE_LINE 1048575UL

/* Client request codes (ABI: never change or reuse the values). */
typedef enum {
   VG_USERREQ__JIT_QUERY            = VG_USERREQ_TOOL_BASE('V','J') + 0,
   VG_USERREQ__JIT_REGISTER         = VG_USERREQ_TOOL_BASE('V','J') + 1,
   VG_USERREQ__JIT_REGISTER_CODE    = VG_USERREQ_TOOL_BASE('V','J') + 2,
   VG_USERREQ__JIT_UNREGISTER       = VG_USERREQ_TOOL_BASE('V','J') + 3,
   VG_USERREQ__JIT_UNREGISTER_RANGE = VG_USERREQ_TOOL_BASE('V','J') + 4,
   VG_USERREQ__JIT_LAST_ERROR       = VG_USERREQ_TOOL_BASE('V','J') + 5
} Vg_JitClientRequest;

/* Status of a JIT request, as returned by VALGRIND_JIT_LAST_ERROR().
   0 means success.  Codes 1..63 mean the request was refused and nothing
   changed.  Codes 64 and above mean the request took effect, with a
   warning.  Under `valgrind -v` each non-zero status is also printed as a
   one-line warning naming the request and its arguments. */
typedef enum {
   VG_JIT_OK                  = 0,  /* done */
   VG_JIT_ERR_NOT_RUNNING     = 1,  /* not under a Valgrind with JIT
                                       support (only ever seen natively) */
   VG_JIT_ERR_BAD_DESCRIPTOR  = 2,  /* descriptor pointer NULL or
                                       unreadable, or struct_size below
                                       VG_JIT_CODE_MIN_SIZE or above 4096 */
   VG_JIT_ERR_BAD_NAME        = 3,  /* name NULL, unreadable, empty, or not
                                       NUL-terminated within
                                       VG_JIT_MAX_STRING bytes */
   VG_JIT_ERR_BAD_STRING      = 4,  /* object or file name unreadable or
                                       not NUL-terminated within
                                       VG_JIT_MAX_STRING bytes */
   VG_JIT_ERR_BAD_RANGE       = 5,  /* size 0, start+size wraps around the
                                       address space, or size above
                                       VG_JIT_MAX_CODE_SIZE */
   VG_JIT_ERR_NOT_CODE        = 6,  /* part of the range is not mapped
                                       client memory with execute
                                       permission */
   VG_JIT_ERR_OVERLAPS_OBJECT = 7,  /* the range overlaps the text of an
                                       object Valgrind already has debug
                                       info for (an ELF executable or
                                       shared library) whose symbols
                                       name its first or last byte
                                       (where they name neither, as in
                                       a stripped executable, the code
                                       is registered) */
   VG_JIT_ERR_BAD_LINE_TABLE  = 8,  /* lines unreadable, or n_lines above
                                       VG_JIT_MAX_LINES (the code is not
                                       registered: fix the table) */
   VG_JIT_ERR_NOT_REGISTERED  = 9,  /* unregister: no registered code
                                       starts at (or intersects) the given
                                       address range */
   VG_JIT_ERR_BAD_UNWIND      = 10, /* the unwind description is refused
                                       (the code is not registered): an
                                       unknown unwind_kind, eh_frame
                                       unreadable, empty or above
                                       VG_JIT_MAX_EH_FRAME bytes, CFI that
                                       Valgrind's reader cannot read
                                       safely (records running off the
                                       bytes, 64-bit DWARF, unknown pointer
                                       encodings) or that describes none
                                       of the code, or a frame shape whose
                                       offsets describe no frame */
   VG_JIT_ERR_BAD_INLINE      = 11, /* the inline table is refused (the
                                       code is not registered): inlines
                                       unreadable, n_inlines above
                                       VG_JIT_MAX_INLINES, or an entry
                                       with size 0 or a range outside the
                                       code, a name or call_file that is
                                       not the text VgJitInline asks for
                                       (a NULL name too), call_line 0
                                       or above VG_JIT_MAX_INLINE_LINE, a
                                       parent that is not an earlier
                                       entry, a range not inside its
                                       parent's or overlapping a range of
                                       the same parent, or a depth above
                                       VG_JIT_MAX_INLINE_DEPTH */

   VG_JIT_WARN_REPLACED       = 64, /* registered; it overlapped earlier
                                       registrations, which were dropped
                                       (the JIT reused the memory) */
   VG_JIT_WARN_LINES_DROPPED  = 65, /* registered; some line-table entries
                                       were dropped (offset >= size, line
                                       0, or unreadable file name) */
   VG_JIT_WARN_PENDING        = 66  /* accepted, not yet registered: part
                                       of the range is not executable
                                       client memory yet (a W^X JIT that
                                       announces code before its mprotect
                                       to PROT_EXEC); the name, lines and
                                       unwind information take effect
                                       when the whole range becomes
                                       executable, unless a later
                                       registration covers it first.  At
                                       most 65536 names wait; past that,
                                       VG_JIT_ERR_NOT_CODE */
} Vg_JitStatus;

/* One line-table entry: the code from `offset` up to the next entry's
   offset (or to the end of the code) comes from source line `line` of
   `file`.  Entries may come in any order; Valgrind sorts them by offset.
   When two entries have the same offset, the later one in the table wins. */
typedef struct {
   unsigned long offset;  /* bytes from the code's start; < size */
   unsigned long line;    /* 1-based source line; 0 is invalid */
   const char*   file;    /* source file, NULL for the descriptor's file;
                             relative paths: see "Source files" above */
} VgJitLine;

/* How Valgrind unwinds the stack through registered code
   (VgJitCode.unwind_kind).  Memcheck, Helgrind, DRD, Massif and DHAT
   unwind by call frame information (CFI), else by the frame pointer;
   code that keeps no frame pointer and has no CFI ends the stack trace
   (its callers are lost).  The shapes are implemented on amd64, x86 and
   arm64 (on other architectures they are refused with
   VG_JIT_ERR_BAD_UNWIND and, under -v, a warning saying so); eh_frame
   works on every architecture Valgrind reads CFI for.  On x86 the
   shapes read as on amd64 with %esp and %ebp for %rsp and %rbp and
   4-byte slots (FRAME_POINTER: "push %ebp; mov %esp,%ebp", prologue_size
   3; ra_offset and fp_offset multiples of 4).  On arm64 the shapes read:
   FRAME_POINTER, the code starts with "stp x29, x30, [sp, #-16]!; mov
   x29, sp" (prologue_size 8, or more when instructions come between
   the two) and keeps x29 as frame pointer; FIXED_FRAME, after the
   prologue the return address is at sp + ra_offset and the caller's
   x29 at sp + fp_offset, before it the return address is in x30.
   prologue_size is then a multiple of 4. */
typedef enum {
   VG_JIT_UNWIND_NONE          = 0, /* nothing declared (version 1) */
   VG_JIT_UNWIND_EH_FRAME      = 1, /* CFI: eh_frame, eh_frame_size,
                                       eh_frame_addr */
   VG_JIT_UNWIND_FRAME_POINTER = 2, /* the code starts with
                                       "push %rbp; mov %rsp,%rbp" (the
                                       first prologue_size bytes) and
                                       keeps %rbp as frame pointer */
   VG_JIT_UNWIND_FIXED_FRAME   = 3  /* after its first prologue_size
                                       bytes the return address is at
                                       %rsp + ra_offset, and the caller's
                                       %rbp at %rsp + fp_offset (or %rbp
                                       is never changed: fp_offset ==
                                       VG_JIT_UNWIND_FP_KEPT); before,
                                       at %rsp */
} Vg_JitUnwindKind;

/* VgJitCode.fp_offset of code that never changes the frame pointer. */
#define VG_JIT_UNWIND_FP_KEPT (~0UL)

/* VgJitInline.parent of a call inlined into the registered function
   itself. */
#define VG_JIT_INLINE_TOP (~0UL)

/* One inlined call (version 3, VgJitCode.inlines): the code bytes
   [offset, offset+size) of the registered function come from the
   function `name`, inlined at line `call_line` of `call_file` into its
   parent: the registered function (parent VG_JIT_INLINE_TOP) or the
   inlined function of an earlier entry (parent: that entry's index),
   whose range must hold this one.  Nesting is expressed by parents, to
   any depth up to VG_JIT_MAX_INLINE_DEPTH.  A call whose code is in
   several pieces has one entry per piece; the ranges of entries with
   the same parent must not overlap.

   Memcheck, Helgrind, DRD, Massif and DHAT (with --read-inline-info=yes,
   their default) show one frame per inlined level at an address inside
   an inlined range, as for inlined calls in ELF code: the innermost
   function at the address's line (from the line table), then each
   caller at its call site's file and line.  Callgrind and Cachegrind
   keep attributing the code to the registered function, with the lines
   of the line table. */
typedef struct {
   unsigned long offset;    /* bytes from the code's start; < size */
   unsigned long size;      /* bytes of inlined code, > 0;
                               offset+size <= the code's size */
   const char*   name;      /* the inlined function: non-empty UTF-8
                               text without control characters,
                               NUL-terminated within VG_JIT_MAX_STRING
                               bytes (unlike a registered function's
                               name it is refused, not escaped) */
   const char*   call_file; /* file of the call site in the parent
                               (the same rules as name; see "Source
                               files" above), NULL for the descriptor's
                               file */
   unsigned long call_line; /* line of the call site in the parent,
                               1..VG_JIT_MAX_INLINE_LINE */
   unsigned long parent;    /* VG_JIT_INLINE_TOP, or the index of an
                               earlier entry in the table */
} VgJitInline;

/* Descriptor for VALGRIND_JIT_REGISTER_CODE.  Initialise it with
   VG_JIT_CODE_INITIALIZER, which sets struct_size; later versions of this
   header may append fields, and Valgrind reads only the fields that
   struct_size covers (fields it does not know are ignored). */
typedef struct {
   unsigned long    struct_size; /* sizeof(VgJitCode) of the caller's
                                    header version; set by the
                                    initializer */
   const void*      start;       /* address of the code's first byte */
   unsigned long    size;        /* length of the code, in bytes, > 0 */
   const char*      name;        /* function name (mangled C++/Rust names
                                    are demangled under --demangle=yes) */
   const char*      object;      /* object (module) the code belongs to, as
                                    Callgrind's ob= and Memcheck's "in";
                                    NULL for VG_JIT_DEFAULT_OBJECT */
   const char*      file;        /* default source file for the lines, or
                                    NULL (relative paths: see "Source
                                    files" above) */
   const VgJitLine* lines;       /* line table, or NULL */
   unsigned long    n_lines;     /* entries in lines; 0 if lines is NULL */

   /* Version 2 (VG_JIT_CODE_V2_SIZE): how to unwind through the code.
      Valgrind copies what it keeps; the CFI is used for [start,
      start+size) only, and goes when the code is unregistered,
      replaced or unmapped (a moved function loses it). */
   unsigned long    unwind_kind; /* a Vg_JitUnwindKind; 0: none */
   const void*      eh_frame;    /* EH_FRAME: the code's CFI as the
                                    contents of an .eh_frame section
                                    (CIEs and FDEs, in the byte order and
                                    word size of the process; a zero
                                    terminator is optional); FDEs for
                                    code outside [start, start+size) are
                                    ignored */
   unsigned long    eh_frame_size; /* EH_FRAME: bytes at eh_frame, 1..
                                    VG_JIT_MAX_EH_FRAME */
   const void*      eh_frame_addr; /* EH_FRAME: the address the bytes'
                                    PC-relative pointers (DW_EH_PE_pcrel)
                                    count from, i.e. where the section is
                                    taken to lie; NULL: eh_frame itself */
   unsigned long    prologue_size; /* FRAME_POINTER, FIXED_FRAME: bytes
                                    of prologue at start (FRAME_POINTER:
                                    1 for the push, plus the mov; 4 on
                                    amd64) */
   unsigned long    ra_offset;   /* FIXED_FRAME: bytes from %rsp to the
                                    return address after the prologue;
                                    a multiple of 8 (x86: of 4) */
   unsigned long    fp_offset;   /* FIXED_FRAME: bytes from %rsp to the
                                    caller's saved %rbp after the
                                    prologue (a multiple of 8; x86: of
                                    4), or VG_JIT_UNWIND_FP_KEPT */

   /* Version 3 (VG_JIT_CODE_V3_SIZE): the calls inlined into the code.
      Valgrind copies what it keeps; the table goes with the code when
      it is unregistered, replaced or unmapped. */
   const VgJitInline* inlines;   /* inline table, or NULL */
   unsigned long    n_inlines;   /* entries in inlines, 0..
                                    VG_JIT_MAX_INLINES; 0 if inlines is
                                    NULL */
} VgJitCode;

/* Smallest struct_size Valgrind accepts (the version-1 layout). */
#define VG_JIT_CODE_MIN_SIZE (8 * sizeof(unsigned long))

/* struct_size of the version-2 layout (with the unwind fields). */
#define VG_JIT_CODE_V2_SIZE (15 * sizeof(unsigned long))

/* struct_size of the version-3 layout (with the inline table). */
#define VG_JIT_CODE_V3_SIZE (17 * sizeof(unsigned long))

/* Initial value for a VgJitCode: sets struct_size, all else zero/NULL
   (fp_offset 0 too: set it to VG_JIT_UNWIND_FP_KEPT for a fixed frame
   that keeps %rbp). */
#define VG_JIT_CODE_INITIALIZER \
   { sizeof(VgJitCode), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* VALGRIND_JIT_QUERY(): which version of the JIT API the running Valgrind
   implements.  Returns VG_JIT_API_VERSION (or a later version) under a
   Valgrind with valgrind-jit support, 0 otherwise (natively, or under a
   stock Valgrind).  Type: unsigned long. */
#define VALGRIND_JIT_QUERY()                                              \
   ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0,                     \
       VG_USERREQ__JIT_QUERY, 0, 0, 0, 0, 0))

/* VALGRIND_JIT_REGISTER(start, size, name): announce that the `size` bytes
   of code at address `start` are the function `name`, in object
   VG_JIT_DEFAULT_OBJECT, without line information.
     start: const void*, the first byte of the code
     size:  bytes, 1..VG_JIT_MAX_CODE_SIZE
     name:  const char*, NUL-terminated; copied
   Registered code that overlaps earlier registrations replaces them.
   Returns (unsigned long) nonzero iff recorded; VALGRIND_JIT_LAST_ERROR()
   then tells why not, or which warning applied. */
#define VALGRIND_JIT_REGISTER(start, size, name)                          \
   ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0,                     \
       VG_USERREQ__JIT_REGISTER, (start), (size), (name), 0, 0))

/* VALGRIND_JIT_REGISTER_CODE(desc): announce code described by a
   VgJitCode (name, object, source file, line table, how to unwind
   through it, and the calls inlined into it).
     desc: const VgJitCode*; the descriptor and everything it points to is
           copied and may be freed when the macro returns
   An unwind description Valgrind cannot use refuses the whole request
   (VG_JIT_ERR_BAD_UNWIND; under -v a warning says why); bad CFI is never
   trusted.  So does a bad inline table (VG_JIT_ERR_BAD_INLINE).
   Returns (unsigned long) nonzero iff recorded; VALGRIND_JIT_LAST_ERROR()
   then tells why not, or which warning applied. */
#define VALGRIND_JIT_REGISTER_CODE(desc)                                  \
   ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0,                     \
       VG_USERREQ__JIT_REGISTER_CODE, (desc), 0, 0, 0, 0))

/* VALGRIND_JIT_UNREGISTER(start): withdraw the registration of the code
   registered at exactly address `start` (const void*).
   If the code's memory is still readable and executable, its name, line
   table, CFI and inlined calls stay in force for as long as the memory
   stays mapped and its bytes stay the same (a JIT may keep running code
   whose registration it withdrew): the name ends when the range is
   unmapped, covered by a new registration (or a producer's record),
   written (Valgrind compares a checksum of the code taken now with the
   bytes it finds when it discards translations of changed code or looks
   the name up), or made writable or not executable by mprotect.  Else
   (the memory is no longer executable, e.g. a JIT about to rewrite it)
   the name goes at once.  Either way the translations of the code are
   discarded, and the registration is withdrawn: a second unregistration
   of the same start is refused.  Then, as for code that is gone, errors
   recorded while the name was in force print it with
   --keep-debuginfo=yes.  Costs a checksum of the code's bytes when it
   stays executable.
   Returns (unsigned long) nonzero iff something was registered there
   (else VALGRIND_JIT_LAST_ERROR() is VG_JIT_ERR_NOT_REGISTERED). */
#define VALGRIND_JIT_UNREGISTER(start)                                    \
   ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0,                     \
       VG_USERREQ__JIT_UNREGISTER, (start), 0, 0, 0, 0))

/* VALGRIND_JIT_UNREGISTER_RANGE(start, size): withdraw every registration
   that intersects [start, start+size) (e.g. before freeing a whole code
   heap), each as VALGRIND_JIT_UNREGISTER does (names of code that stays
   mapped, executable and unchanged stay in force).  size in bytes.
   Returns (unsigned long) the number of registrations withdrawn; 0
   natively or if none intersected. */
#define VALGRIND_JIT_UNREGISTER_RANGE(start, size)                        \
   ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0,                     \
       VG_USERREQ__JIT_UNREGISTER_RANGE, (start), (size), 0, 0, 0))

/* VALGRIND_JIT_LAST_ERROR(): the Vg_JitStatus of the calling thread's most
   recent JIT request (VG_JIT_OK if it had none).  Natively and under a
   Valgrind without JIT support: VG_JIT_ERR_NOT_RUNNING.
   Type: Vg_JitStatus. */
#define VALGRIND_JIT_LAST_ERROR()                                         \
   ((Vg_JitStatus)VALGRIND_DO_CLIENT_REQUEST_EXPR(VG_JIT_ERR_NOT_RUNNING, \
       VG_USERREQ__JIT_LAST_ERROR, 0, 0, 0, 0, 0))

#ifdef __cplusplus
}
#endif

#endif /* VALGRIND_JIT_H */
