/*--------------------------------------------------------------------*/
/*--- Parsers for JIT producer files and GDB JIT objects.          ---*/
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

/* ==================================================================
   API SUMMARY
   ==================================================================

   Two incremental, allocation-free parsers for the files that JIT
   runtimes write so that profilers can name their code:

   * jitdump  (Linux perf, tools/perf/Documentation/
     jitdump-specification.txt, versions 1 and 2): a binary file
     `jit-<pid>.dump` with a file header followed by records
     (CODE_LOAD, CODE_MOVE, CODE_DEBUG_INFO, CODE_CLOSE,
     CODE_UNWINDING_INFO).  Reader: JitdumpReader.

   * perf map (Linux perf, tools/perf/Documentation/
     jit-interface.txt): a text file `/tmp/perf-<pid>.map` with one
     "START SIZE name" line per function.  Reader: PerfmapReader.

   The same file declares the checks of CFI records (checkcfi.c), the
   reader of Erlang/OTP's entries of the GDB JIT interface
   (readbeamjit.c) and the rules for the ELF objects of that interface
   (readgdbelf.c); each has its own section below.

   All are written in portable C99 without any libc call and without
   Valgrind headers, so that the very same source files are compiled
   into Valgrind's core (which has no libc) and into user-space programs
   (the vg-jit tool, unit tests, fuzz targets).  Only plain C types are
   used: "u32" fields are `unsigned int`, "u64" fields are
   `unsigned long long`, buffer lengths are `unsigned long`.

   PULL MODEL (both readers).  The reader owns a little state,
   including the file offset of the next byte it has not consumed yet
   (`offset`).  The caller owns every buffer: on each call it passes
   `buf`/`len`, the bytes of the file starting exactly at the reader's
   current `offset` (as many as it has; `len` may be 0).  The reader
   returns ONE event and reports in `advance` how far its offset moved:

     - an item (a header, a record, a perf map entry): `advance` is the
       item's size in the file.  For jitdump, `advance` may be LARGER
       than `len`: the reader decoded what it needs (e.g. the fixed
       fields and the name of a CODE_LOAD) and the caller must simply
       continue reading at the new offset, skipping the rest of the
       record (e.g. the code bytes) without reading it into memory;
     - NEED_MORE: nothing was consumed; the next call must supply at
       least `need` bytes from the (unchanged) current offset.  `need`
       is always > `len`.  When the file has no more bytes yet, the
       producer may still be writing: try again later.  A truncated
       final record is therefore never an error in the reader itself
       (tools that know a file is complete may call it one);
     - a per-item ("soft") error: the item is malformed but the framing
       is intact, the reader skipped the item (`advance` > 0) and can go
       on;
     - a hard error (jitdump only): the framing is lost (bad magic,
       impossible sizes); the reader stays in its error state from now
       on and every further call returns the same error, consuming
       nothing.  Everything decoded before stays valid.

   Every call therefore consumes > 0 bytes, asks for more than the
   caller gave, or reports the (sticky) hard error: a caller loop can
   neither spin nor hang.  Offsets only grow.

   COPYING.  Readers are plain values without pointers: a caller may
   copy one to take a snapshot and assign it back to "unread" the events
   returned since (e.g. to retry a record at a safer moment).

   LIFETIME.  Pointers placed in events (names, line-table entries,
   code bytes) point INTO the caller's `buf`; they stay valid until the
   caller modifies or frees that buffer.  Names are not necessarily
   NUL-terminated for perf maps: always use the accompanying length.

   NAMES.  Functions get module-local names through ML_(), like the rest
   of m_debuginfo; user space gets the same names (vgModuleLocal_...)
   unless it defines ML_ itself before including this header.
   ================================================================== */

#ifndef __PRIV_JITFORMATS_H
#define __PRIV_JITFORMATS_H

/* Same definitions as Valgrind's pub_tool_basics.h (token for token, so
   that either include order is fine). */
#ifndef VGAPPEND
#define VGAPPEND(str1,str2) str1##str2
#endif
#ifndef ML_
#define ML_(str)    VGAPPEND(vgModuleLocal_,    str)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------
   jitdump
   ------------------------------------------------------------------ */

/* Magic number "JiTD", as read in the writer's byte order. */
#define JITDUMP_MAGIC           0x4A695444u
/* The magic as seen when the writer used the other byte order. */
#define JITDUMP_MAGIC_SWAPPED   0x4454694Au

/* Record ids (the `id` field of every record prefix). */
#define JITDUMP_CODE_LOAD            0u
#define JITDUMP_CODE_MOVE            1u
#define JITDUMP_CODE_DEBUG_INFO      2u
#define JITDUMP_CODE_CLOSE           3u
#define JITDUMP_CODE_UNWINDING_INFO  4u

/* Header flag bit 0: timestamps use an architecture clock (x86 TSC). */
#define JITDUMP_FLAG_ARCH_TIMESTAMP  1ull

/* Sizes (bytes) of the fixed parts defined by the specification. */
#define JITDUMP_HEADER_SIZE          40u  /* known header fields */
#define JITDUMP_PREFIX_SIZE          16u  /* id, total_size, timestamp */
#define JITDUMP_CODE_LOAD_FIXED      56u  /* prefix + pid..code_index */
#define JITDUMP_CODE_MOVE_FIXED      64u  /* prefix + pid..code_index */
#define JITDUMP_DEBUG_INFO_FIXED     32u  /* prefix + code_addr, nr_entry */
#define JITDUMP_UNWINDING_FIXED      40u  /* prefix + three sizes */
#define JITDUMP_DEBUG_ENTRY_MIN      17u  /* addr, line, discrim, "" */

/* Where each field lies: byte offsets from the start of the file header
   or of the record (the prefix included), and their widths (u32: 4
   bytes, u64: 8), in the writer's byte order.  The reader, vg-jit and
   every writer in tests/, bench/ and the upstream-format tests use these
   names. */
/* file header */
#define JITDUMP_HDR_MAGIC            0u   /* u32 JITDUMP_MAGIC            */
#define JITDUMP_HDR_VERSION          4u   /* u32                          */
#define JITDUMP_HDR_TOTAL_SIZE       8u   /* u32 the header's size        */
#define JITDUMP_HDR_ELF_MACH        12u   /* u32 e_machine of the code    */
#define JITDUMP_HDR_PAD1            16u   /* u32                          */
#define JITDUMP_HDR_PID             20u   /* u32                          */
#define JITDUMP_HDR_TIMESTAMP       24u   /* u64                          */
#define JITDUMP_HDR_FLAGS           32u   /* u64 JITDUMP_FLAG_*           */
/* record prefix, every record */
#define JITDUMP_REC_ID               0u   /* u32 JITDUMP_CODE_*           */
#define JITDUMP_REC_TOTAL_SIZE       4u   /* u32 the record's size        */
#define JITDUMP_REC_TIMESTAMP        8u   /* u64                          */
/* CODE_LOAD; the NUL-terminated name at JITDUMP_CODE_LOAD_FIXED, then
   the code bytes */
#define JITDUMP_LOAD_PID            16u   /* u32                          */
#define JITDUMP_LOAD_TID            20u   /* u32                          */
#define JITDUMP_LOAD_VMA            24u   /* u64                          */
#define JITDUMP_LOAD_CODE_ADDR      32u   /* u64                          */
#define JITDUMP_LOAD_CODE_SIZE      40u   /* u64                          */
#define JITDUMP_LOAD_CODE_INDEX     48u   /* u64                          */
/* CODE_MOVE */
#define JITDUMP_MOVE_PID            16u   /* u32                          */
#define JITDUMP_MOVE_TID            20u   /* u32                          */
#define JITDUMP_MOVE_VMA            24u   /* u64                          */
#define JITDUMP_MOVE_OLD_CODE_ADDR  32u   /* u64                          */
#define JITDUMP_MOVE_NEW_CODE_ADDR  40u   /* u64                          */
#define JITDUMP_MOVE_CODE_SIZE      48u   /* u64                          */
#define JITDUMP_MOVE_CODE_INDEX     56u   /* u64                          */
/* CODE_DEBUG_INFO; nr_entry entries from JITDUMP_DEBUG_INFO_FIXED on */
#define JITDUMP_DEBUG_CODE_ADDR     16u   /* u64                          */
#define JITDUMP_DEBUG_NR_ENTRY      24u   /* u64                          */
/* one debug entry, from the entry's start; the NUL-terminated file name
   at JITDUMP_ENTRY_NAME */
#define JITDUMP_ENTRY_ADDR           0u   /* u64                          */
#define JITDUMP_ENTRY_LINE           8u   /* u32                          */
#define JITDUMP_ENTRY_DISCRIM       12u   /* u32                          */
#define JITDUMP_ENTRY_NAME          16u
/* CODE_UNWINDING_INFO; the data from JITDUMP_UNWINDING_FIXED on */
#define JITDUMP_UNWIND_SIZE         16u   /* u64 unwinding_size           */
#define JITDUMP_UNWIND_EH_HDR_SIZE  24u   /* u64 eh_frame_hdr_size        */
#define JITDUMP_UNWIND_MAPPED_SIZE  32u   /* u64 mapped_size              */

/* Sanity caps.  A record whose total_size exceeds JITDUMP_RECORD_MAX
   (1 GiB) is a hard error: no producer writes such records, so the
   framing is taken to be corrupt.  A header larger than
   JITDUMP_HEADER_MAX (1 MiB) is also a hard error.  A CODE_LOAD name
   (including its NUL) longer than JITDUMP_NAME_MAX is reported as
   unterminated.  A CODE_DEBUG_INFO record must be held in memory as a
   whole: one larger than the reader's `max_hold` (default
   JITDUMP_DEBUG_INFO_MAX, 16 MiB) is skipped with a soft error. */
#define JITDUMP_RECORD_MAX      (1ull << 30)
#define JITDUMP_HEADER_MAX      (1ull << 20)
#define JITDUMP_NAME_MAX        65536u
#define JITDUMP_DEBUG_INFO_MAX  (16ul << 20)
/* The smallest buffer a caller must be able to supply: a NEED_MORE
   event never asks for more than max(JITDUMP_MIN_BUFFER, max_hold)
   bytes, and never for more than JITDUMP_MIN_BUFFER if the caller
   passed max_hold = JITDUMP_MIN_BUFFER. */
#define JITDUMP_MIN_BUFFER      (JITDUMP_CODE_LOAD_FIXED + JITDUMP_NAME_MAX)

/* Event kinds returned by ML_(jitdump_next). */
#define JITDUMP_EV_NEED_MORE   0 /* supply >= ev->need bytes, retry     */
#define JITDUMP_EV_HEADER      1 /* ev->header decoded                  */
#define JITDUMP_EV_RECORD      2 /* ev->rec decoded (known id 0..4)     */
#define JITDUMP_EV_UNKNOWN     3 /* record with unknown id skipped;
                                    only ev->rec's prefix fields valid  */
#define JITDUMP_EV_BAD_RECORD  4 /* soft error ev->error; record skipped;
                                    ev->rec holds what was decoded      */
#define JITDUMP_EV_ERROR       5 /* hard error ev->error; reader stopped */

/* Error codes (ev->error, reader->error).  Text: ML_(jitdump_strerror).
   Hard errors stop the reader; soft ones skip one record. */
#define JITDUMP_OK                        0
/* hard */
#define JITDUMP_ERR_BAD_MAGIC             1  /* not a jitdump file        */
#define JITDUMP_ERR_FOREIGN_BYTE_ORDER    2  /* written in the other
                                                byte order: refused        */
#define JITDUMP_ERR_BAD_VERSION           3  /* version not 1 or 2        */
#define JITDUMP_ERR_HEADER_TOO_SHORT      4  /* header total_size < 40    */
#define JITDUMP_ERR_HEADER_TOO_LARGE      5  /* header total_size > cap   */
#define JITDUMP_ERR_RECORD_TOO_SHORT      6  /* total_size < fixed part   */
#define JITDUMP_ERR_RECORD_TOO_LARGE      7  /* total_size > 1 GiB        */
/* soft */
#define JITDUMP_ERR_NAME_UNTERMINATED     8  /* CODE_LOAD name has no NUL
                                                within record / name cap   */
#define JITDUMP_ERR_CODE_RANGE_WRAPS      9  /* addr+size-1 overflows    */
#define JITDUMP_ERR_DEBUG_INFO_TOO_LARGE 10  /* > reader's max_hold       */
#define JITDUMP_ERR_DEBUG_NR_ENTRY       11  /* nr_entry cannot fit       */
#define JITDUMP_ERR_DEBUG_BEYOND_RECORD  12  /* entries overrun record    */
#define JITDUMP_ERR_UNWIND_SIZES         13  /* unwind sizes inconsistent */
#define JITDUMP_ERR_MAX                  13

/* The file header.  All fields as written (converted to host order).
   `header_size` is the header's total_size: the first record starts at
   that file offset. */
typedef struct {
   unsigned int       version;      /* 1 or 2                            */
   unsigned int       header_size;  /* header total_size, >= 40           */
   unsigned int       elf_mach;     /* ELF e_machine of the code          */
   unsigned int       pad1;
   unsigned int       pid;          /* writer's process id                */
   unsigned long long timestamp;    /* file creation time (writer clock)  */
   unsigned long long flags;        /* JITDUMP_FLAG_*                     */
} JitdumpHeader;

/* CODE_LOAD: a function was emitted at [code_addr, code_addr+code_size).
   `name` points into the caller's buffer (NUL-terminated there),
   `name_len` excludes the NUL.  The code bytes that follow the name in
   the record: `code_bytes` of them (total_size - 56 - name_len - 1;
   may differ from code_size, e.g. 0 when a writer omits them, or
   include padding) starting at file offset `code_file_offset`; `code`
   points to them in the caller's buffer if the whole record was in the
   buffer, else it is 0.  code_size 0 is accepted (the specification
   allows empty functions); users that need a range must ignore it.
   `name_is_ascii` is 1 if every byte of the name is printable ASCII
   (0x20..0x7E), else 0: found in the same pass that finds the NUL, so
   that users need not scan the name again. */
typedef struct {
   unsigned int         pid, tid;
   unsigned long long   vma, code_addr, code_size, code_index;
   const char*          name;
   unsigned long        name_len;
   int                  name_is_ascii;
   const unsigned char* code;
   unsigned long long   code_bytes;
   unsigned long long   code_file_offset;
} JitdumpCodeLoad;

/* CODE_MOVE: the function loaded with `code_index` moved from
   old_code_addr to new_code_addr (code_size unchanged). */
typedef struct {
   unsigned int       pid, tid;
   unsigned long long vma, old_code_addr, new_code_addr;
   unsigned long long code_size, code_index;
} JitdumpCodeMove;

/* CODE_DEBUG_INFO: line table for the function at code_addr, which the
   NEXT CODE_LOAD with that address describes.  `entries` points into the
   caller's buffer at the first entry, `entries_len` bytes up to the end
   of the record.  The reader has already checked that `nr_entry` entries
   fit; walk them with ML_(jitdump_debug_iter_init)/_entry_next. */
typedef struct {
   unsigned long long   code_addr;
   unsigned long long   nr_entry;
   const unsigned char* entries;
   unsigned long        entries_len;
} JitdumpDebugInfo;

/* CODE_UNWINDING_INFO: eh_frame_hdr + eh_frame for the next function.
   `data` points into the caller's buffer: a record of at most the
   reader's `max_hold` bytes is asked for whole; a larger one gives 0.
   `data_len` bytes are present in the record after the fixed part,
   starting at file offset `data_file_offset`.  The reader checked
   eh_frame_hdr_size <= unwinding_size <= data_len. */
typedef struct {
   unsigned long long   unwinding_size, eh_frame_hdr_size, mapped_size;
   const unsigned char* data;
   unsigned long long   data_len;
   unsigned long long   data_file_offset;
} JitdumpUnwindingInfo;

/* One record.  The prefix fields (`id`, `total_size`, `timestamp`) and
   `file_offset` (where the record starts) are always valid; the member
   of `u` that matches `id` is valid for JITDUMP_EV_RECORD (partially for
   JITDUMP_EV_BAD_RECORD).  CODE_CLOSE has no payload. */
typedef struct {
   unsigned int       id;
   unsigned int       total_size;
   unsigned long long timestamp;
   unsigned long long file_offset;
   union {
      JitdumpCodeLoad      load;
      JitdumpCodeMove      move;
      JitdumpDebugInfo     debug;
      JitdumpUnwindingInfo unwind;
   } u;
} JitdumpRecord;

/* The result of one ML_(jitdump_next) call.
   kind:    JITDUMP_EV_*.
   offset:  file offset of the item the event is about: the header or
            record start; for NEED_MORE the reader's current offset; for
            ERROR the start of the header or record that could not be
            framed.
   advance: how many bytes the reader's offset moved (0 for NEED_MORE
            and ERROR).  May exceed the `len` passed in: skip the rest.
   need:    NEED_MORE only: bytes required from the current offset.
   error:   BAD_RECORD / ERROR only: JITDUMP_ERR_*.
   header:  HEADER only (the reader keeps it after that: r->header).
   rec:     RECORD, BAD_RECORD and UNKNOWN only.
   Fields that an event's kind leaves out hold no meaning. */
typedef struct {
   int                kind;
   unsigned long long offset;
   unsigned long long advance;
   unsigned long      need;
   int                error;
   JitdumpHeader      header;
   JitdumpRecord      rec;
} JitdumpEvent;

/* Reader state.  Treat as opaque except for the read-only fields noted.
   Initialise with ML_(jitdump_init); no destructor (nothing allocated).*/
typedef struct {
   unsigned long long offset;        /* RO: next unconsumed file offset  */
   int                state;         /* internal                          */
   int                big_endian;    /* RO: writer (= host) byte order    */
   int                error;         /* RO: sticky hard error, or 0       */
   unsigned long long error_offset;  /* RO: file offset of hard error     */
   unsigned long      max_hold;      /* RO: largest record held in memory */
   JitdumpHeader      header;        /* RO: valid once the header event
                                        was returned (state != 0)        */
   unsigned long long n_records;     /* RO: records consumed so far       */
} JitdumpReader;

/* Reset `r` to the start of a file (offset 0, header not yet read).
   `max_hold`: the largest CODE_DEBUG_INFO record (bytes) the caller is
   willing to hold in its buffer; 0 means JITDUMP_DEBUG_INFO_MAX; values
   below JITDUMP_MIN_BUFFER are raised to it.  No NEED_MORE will ever ask
   for more than max(max_hold, JITDUMP_MIN_BUFFER) bytes. */
extern void ML_(jitdump_init)(JitdumpReader* r, unsigned long max_hold);

/* Decode the next item.  `buf` holds `len` bytes of the file starting at
   r->offset (buf may be 0 when len is 0).  Fills *ev and returns
   ev->kind (see JITDUMP_EV_*).  Pointers in ev refer into buf. */
extern int ML_(jitdump_next)(JitdumpReader* r,
                             const unsigned char* buf, unsigned long len,
                             JitdumpEvent* ev);

/* Static English text for an error code (never 0; "unknown error" for
   codes out of range).  No trailing newline. */
extern const char* ML_(jitdump_strerror)(int code);

/* Static English name of record id `id`: "CODE_LOAD", "CODE_MOVE",
   "CODE_DEBUG_INFO", "CODE_CLOSE", "CODE_UNWINDING_INFO", or "unknown". */
extern const char* ML_(jitdump_record_name)(unsigned int id);

/* Writes what the error of event ev (JITDUMP_EV_BAD_RECORD or
   JITDUMP_EV_ERROR, returned by reader r) says, with its numbers, as
   English text into buf[0..size) (NUL-terminated, cut to fit), e.g.
   "record total_size is implausibly large; the file is corrupt:
   CODE_LOAD record of total_size 2147483648, over 1 GiB".  Limits are
   printed from this header's constants.  The one wording of every
   jitdump error: the core's warnings and vg-jit use it.  Returns buf. */
extern char* ML_(jitdump_describe)(const JitdumpReader* r,
                                   const JitdumpEvent* ev, char* buf,
                                   unsigned long size);

/* Size (bytes) of the fixed part of a record with id `id`, the least a
   record's total_size may be (JITDUMP_*_FIXED; JITDUMP_PREFIX_SIZE for
   CODE_CLOSE and ids this reader does not decode). */
extern unsigned int ML_(jitdump_fixed_size)(unsigned int id);

/* Non-zero if `code` is a hard error (stops the reader). */
extern int ML_(jitdump_error_is_hard)(int code);

/* One line-table entry.  `filename` points into the caller's buffer,
   NUL-terminated there, `filename_len` excludes the NUL.  If the entry's
   name was the "\xff" marker ("same file as the previous entry", written
   by perf's JVMTI agent), `same_as_previous` is 1 and filename/len are
   those of the previous entry (or "" with length 0 for a first entry).
   If `garbled` is 1, the record's entries have names of one fixed size
   whose bytes are not a name (see ML_(jitdump_debug_iter_init)): the
   filename is "" with length 0, and the file is unknown. */
typedef struct {
   unsigned long long code_addr;  /* absolute address (V8, JVMTI)        */
   unsigned int       line;       /* 1-based source line; 0 = unknown    */
   unsigned int       discrim;    /* column / discriminator, 0 = default */
   const char*        filename;
   unsigned long      filename_len;
   int                same_as_previous;
   int                garbled;
} JitdumpDebugEntry;

/* Iterator over a CODE_DEBUG_INFO record's entries.  Opaque. */
typedef struct {
   const unsigned char* p;
   unsigned long        left;       /* bytes left in the record         */
   unsigned long long   remaining;  /* entries not yet returned         */
   int                  big_endian;
   const char*          prev_name;
   unsigned long        prev_len;
   unsigned long        stride;     /* 0: entries as the format says;
                                       else bytes per entry (name fields
                                       of one size)                     */
   int                  garbled;    /* those fields hold no names       */
} JitdumpDebugIter;

/* Start iterating over `di` (from a JITDUMP_EV_RECORD event of reader
   `r`; the buffer must still be valid).  Entries are read as the format
   says (each name up to its NUL) unless that does not end at the
   record's end (up to 7 bytes of padding) while entries of one fixed
   size do, each name field ending in a NUL: then each entry is read at
   that size, its name up to the field's first NUL.  If a field holds
   non-zero bytes after its first NUL, the names are not names (V8, in
   Node 20's --perf-prof, writes each as a field of the script name's
   size whose bytes are a stale buffer): the entries are returned with
   `garbled` set. */
extern void ML_(jitdump_debug_iter_init)(JitdumpDebugIter* it,
                                         const JitdumpReader* r,
                                         const JitdumpDebugInfo* di);

/* Store the next entry in *e.  Returns 1 for an entry, 0 at the end (all
   nr_entry entries returned), -1 if the next entry would overrun the
   record (cannot happen for records the reader accepted). */
extern int ML_(jitdump_debug_entry_next)(JitdumpDebugIter* it,
                                         JitdumpDebugEntry* e);

/* ------------------------------------------------------------------
   perf map
   ------------------------------------------------------------------ */

/* Longest line (bytes, without its '\n') the reader parses.  Longer
   lines are reported once (PERFMAP_ERR_LINE_TOO_LONG) and skipped. */
#define PERFMAP_LINE_MAX  65536u
/* A NEED_MORE event never asks for more than this many bytes. */
#define PERFMAP_MIN_BUFFER (PERFMAP_LINE_MAX + 1u)

/* Event kinds returned by ML_(perfmap_next)/ML_(perfmap_finish). */
#define PERFMAP_EV_NEED_MORE  0 /* no complete line in buf; ev->need     */
#define PERFMAP_EV_ENTRY      1 /* ev->entry decoded                     */
#define PERFMAP_EV_BAD_LINE   2 /* ev->error for line ev->line; skipped  */
#define PERFMAP_EV_SKIPPED    3 /* blank line or part of an over-long
                                   line consumed; nothing to report      */

/* Per-line error codes (text: ML_(perfmap_strerror)). */
#define PERFMAP_OK                 0
#define PERFMAP_ERR_BAD_START      1 /* START is not a hex number        */
#define PERFMAP_ERR_BAD_SIZE       2 /* SIZE missing or not hex          */
#define PERFMAP_ERR_NUMBER_TOO_BIG 3 /* more than 64 bits                */
#define PERFMAP_ERR_MISSING_NAME   4 /* nothing after SIZE               */
#define PERFMAP_ERR_ZERO_SIZE      5 /* SIZE is 0                        */
#define PERFMAP_ERR_RANGE_WRAPS    6 /* START + SIZE - 1 overflows       */
#define PERFMAP_ERR_LINE_TOO_LONG  7 /* > PERFMAP_LINE_MAX, skipped      */
#define PERFMAP_ERR_NUL_BYTE       8 /* line contains a NUL byte         */
#define PERFMAP_ERR_MAX            8

/* One perf map line, decoded: code at [start, start+size) is `name`.
   `name` points into the caller's buffer and is NOT NUL-terminated:
   use name_len (trailing '\r' already removed; inner spaces kept). */
typedef struct {
   unsigned long long start;
   unsigned long long size;
   const char*        name;
   unsigned long      name_len;
} PerfmapEntry;

/* Result of one call.
   line:    1-based number of the line the event is about.
   offset:  file offset of that line's first byte (for NEED_MORE: the
            reader's current offset).
   advance: bytes consumed from buf (always <= len; 0 for NEED_MORE).
   need:    NEED_MORE: supply at least this many bytes (> len).
   error:   BAD_LINE: PERFMAP_ERR_*. */
typedef struct {
   int                kind;
   unsigned long long line;
   unsigned long long offset;
   unsigned long      advance;
   unsigned long      need;
   int                error;
   PerfmapEntry       entry;
} PerfmapEvent;

/* Reader state; opaque except for the read-only fields. */
typedef struct {
   unsigned long long offset;     /* RO: next unconsumed file offset     */
   unsigned long long line;       /* RO: lines fully consumed so far     */
   int                skipping;   /* internal: inside an over-long line  */
} PerfmapReader;

/* Reset `r` to the start of a file. */
extern void ML_(perfmap_init)(PerfmapReader* r);

/* Decode the next line.  `buf` holds `len` bytes of the file starting at
   r->offset.  A line is only consumed once its '\n' is in buf (the
   writer may be in the middle of it).  Returns ev->kind. */
extern int ML_(perfmap_next)(PerfmapReader* r,
                             const unsigned char* buf, unsigned long len,
                             PerfmapEvent* ev);

/* Like ML_(perfmap_next), but for a file known to be complete: if buf
   holds no '\n', the `len` bytes (> 0) are treated as a final line
   without its newline.  Returns NEED_MORE only when len == 0. */
extern int ML_(perfmap_finish)(PerfmapReader* r,
                               const unsigned char* buf, unsigned long len,
                               PerfmapEvent* ev);

/* Static English text for a perf map error code. */
extern const char* ML_(perfmap_strerror)(int code);

/* ------------------------------------------------------------------
   CFI records (checkcfi.c)
   ------------------------------------------------------------------ */

/* Checks the records of an .eh_frame (is_eh non-zero) or .debug_frame
   section, the size bytes at p (host byte order, as Valgrind's CFI
   reader takes them), for what that reader asserts on or reads past:
   every record (its length field, a CIE's augmentation and its
   operands) must lie in the section, no record may use 64-bit DWARF,
   and CIEs may use only the pointer encodings the reader decodes
   (absptr, udata2/4/8, sdata2/4/8, applied as absolute, pc-relative,
   text-relative, data-relative or function-relative, not indirect, for
   FDE addresses).  A zero length field ends the section.  Returns 0 if
   the section may be handed to the reader, else why not: a static
   English text ("a CFI record lies outside its section", ...).  Reads
   nothing outside p[0..size). */
const char* ML_(jit_cfi_check_records)(const unsigned char* p,
                                       unsigned long long size,
                                       int is_eh);

/* ------------------------------------------------------------------
   BEAM debug entries (Erlang/OTP's JIT, readbeamjit.c)
   ------------------------------------------------------------------

   Erlang/OTP's JIT (OTP 25 and later, 64-bit hosts) hands the GDB JIT
   interface one entry per loaded module in a format of its own, not an
   ELF object (OTP's erts/emulator/beam/jit/beam_jit_metadata.cpp writes
   it; OTP's GDB-side reader reads it).  All fields are in the host's
   byte order; "sizeof" sizes are those of the C structs on an LP64 host:

     debug entry (32 bytes + name):
        0  u32  header: 0 the emulator's entry (no code), 1 a module
        4       (padding)
        8  u64  base address of the module's code
       16  u32  number of ranges
       20  u32  size of the module's code, bytes
       24  u16  name length, including its NUL
       26       module name, NUL-terminated
       then, at 32 + name length, the ranges, one after the other:
     range (16 bytes + name):
        0  u32  start, bytes from the base
        4  u32  end (exclusive), bytes from the base
        8  u32  number of line entries
       12  u16  name length, including its NUL
       14       name ("module:function/arity", "module::codeHeader",
                "module:function/arity-CodeInfoPrologue"), NUL-terminated
       then, at 16 + name length, its line entries:
     line entry (12 bytes + file name):
        0  u32  start, bytes from the base (may precede the range: the
                line in effect where the range starts)
        4  u32  line number
        8  u16  file name length, including its NUL
       10       file name, NUL-terminated

   The emulator's entry is exactly 32 bytes.  A module's entry ends
   exactly after its last range: a reader that finds anything else
   (an entry shorter or longer than its contents, a range outside the
   module's code, ranges out of order, a name without its NUL or with a
   NUL inside) refuses the entry whole.  The reader works on a complete
   copy of the entry and allocates nothing. */

/* What ML_(beamjit_open) found. */
#define BEAMJIT_NOT_BEAM   0  /* not this format: neither header value  */
#define BEAMJIT_EMULATOR   1  /* the emulator's entry: no code          */
#define BEAMJIT_MODULE     2  /* a module: read its ranges              */
#define BEAMJIT_MALFORMED  3  /* claims to be a module but is not well
                                 formed (r->error says why)             */

/* Error codes (text: ML_(beamjit_strerror)). */
#define BEAMJIT_OK                 0
#define BEAMJIT_ERR_SHORT          1 /* shorter than its header          */
#define BEAMJIT_ERR_BAD_NAME       2 /* a name without its NUL, or empty */
#define BEAMJIT_ERR_NO_CODE        3 /* base address or code size is 0,
                                        or the code wraps around        */
#define BEAMJIT_ERR_RANGE_OUTSIDE  4 /* a range outside the entry        */
#define BEAMJIT_ERR_BAD_RANGE      5 /* start > end, outside the code,
                                        or before the previous range    */
#define BEAMJIT_ERR_LINE_OUTSIDE   6 /* a line entry outside the entry   */
#define BEAMJIT_ERR_TRAILING       7 /* bytes after the last range       */
#define BEAMJIT_ERR_MAX            7

/* Smallest entry of each kind. */
#define BEAMJIT_HEADER_SIZE  32u
#define BEAMJIT_RANGE_SIZE   16u
#define BEAMJIT_LINE_SIZE    12u

/* One code range of a module: [start, end) as absolute addresses.
   `name` points into the entry (NUL-terminated, name_len bytes
   without the NUL). */
typedef struct {
   unsigned long long start;
   unsigned long long end;
   unsigned int       n_lines;
   const char*        name;
   unsigned long      name_len;
} BeamJitRange;

/* One line entry: from absolute address `addr` on, line `line` of
   `file` (NUL-terminated in the entry, file_len bytes without it). */
typedef struct {
   unsigned long long addr;
   unsigned int       line;
   const char*        file;
   unsigned long      file_len;
} BeamJitLine;

/* Reader state over one complete entry; read-only fields after
   ML_(beamjit_open). */
typedef struct {
   const unsigned char* img;
   unsigned long        n;
   unsigned long        pos;          /* internal: next byte to read      */
   unsigned long long   base;         /* RO: the module's code            */
   unsigned int         code_size;    /* RO                               */
   unsigned int         n_ranges;     /* RO                               */
   const char*          module;       /* RO: NUL-terminated in img        */
   unsigned long        module_len;   /* RO: without the NUL              */
   unsigned int         ranges_left;  /* internal                         */
   unsigned int         lines_left;   /* internal: of the current range   */
   unsigned long long   prev_end;     /* internal                         */
   int                  error;        /* RO: BEAMJIT_ERR_* once malformed */
} BeamJitReader;

/* Starts reading the entry img[0..n) (a complete copy; img needs no
   alignment).  Returns BEAMJIT_NOT_BEAM, BEAMJIT_EMULATOR,
   BEAMJIT_MODULE (then read the ranges) or BEAMJIT_MALFORMED (r->error
   says why). */
extern int ML_(beamjit_open)(BeamJitReader* r, const unsigned char* img,
                             unsigned long n);

/* The module's next range, after the line entries of the previous one
   (those not read are skipped).  Returns 1 (*out filled), 0 when the
   ranges are done and the entry ended exactly after them, or -1 when the
   entry is malformed (r->error; sticky). */
extern int ML_(beamjit_next_range)(BeamJitReader* r, BeamJitRange* out);

/* The current range's next line entry.  Returns 1 (*out filled), 0 when
   the range has no more, -1 when malformed (r->error; sticky). */
extern int ML_(beamjit_next_line)(BeamJitReader* r, BeamJitLine* out);

/* Reads the whole entry once (every range and line entry): 0 if it is
   a well-formed module, else its BEAMJIT_ERR_* code.  r must be fresh
   from ML_(beamjit_open) returning BEAMJIT_MODULE; afterwards open it
   again to read it. */
extern int ML_(beamjit_check)(BeamJitReader* r);

/* Static English text for a BEAMJIT_ERR_* code. */
extern const char* ML_(beamjit_strerror)(int code);

/* ------------------------------------------------------------------
   ELF objects of the GDB JIT interface (readgdbelf.c)
   ------------------------------------------------------------------

   The rules by which an in-memory ELF object handed to the GDB JIT
   interface (the image at an entry's symfile_addr, symfile_size bytes)
   is accepted, and which of its symbols name code.  The core
   (jitgdb.c) registers what this reader accepts and refuses an object
   on the first problem; vg-jit (tool/elfobject.cpp) reads saved objects
   with the same reader and reports every problem it finds.

   The object, in either ELF class and either byte order (fields are
   decoded byte by byte, so the image needs no alignment):
     - starts with the ELF magic and a valid EI_CLASS and EI_DATA; its
       class and byte order are the program's (sizeof(void*), the host
       byte order);
     - holds a whole ELF header of its class; e_type is ET_REL, ET_EXEC
       or ET_DYN;
     - has 1 to GDBELF_MAX_SECTIONS section headers of its class's size
       (e_shentsize), the table inside the image and at an offset
       aligned to the class's word size (4 or 8 bytes);
     - has at least one symbol table (SHT_SYMTAB).  Each is a whole
       number of symbols of the class's size (sh_entsize is that size),
       lies inside the image at an aligned offset, and links (sh_link)
       to a section of type SHT_STRTAB inside the image;
     - every STT_FUNC and STT_FILE symbol but the first (index 0) has a
       name: st_name > 0, inside the string table, NUL-terminated there.

   A function is an STT_FUNC symbol with st_size > 0 defined in a
   section (0 < st_shndx < e_shnum) flagged SHF_ALLOC and SHF_EXECINSTR
   (whatever its sh_type); other symbols name no code and are skipped.
   In a relocatable object (ET_REL), the JIT wrote the section's load
   address into its sh_addr (LLVM's rule, which GDB follows): it must
   not be 0, [st_value, st_value + st_size) must lie within the
   section's sh_size bytes and the function starts at sh_addr +
   st_value.  In other objects st_value is the address: [st_value,
   st_value + st_size) must lie within [sh_addr, sh_addr + sh_size).
   No function's range may wrap around the address space.  The object's
   source file is the name of its first STT_FILE symbol with a
   non-empty name.

   Every offset, size and index is checked before anything is read
   through it, with arithmetic that cannot overflow; the reader reads
   nothing outside img[0..n), allocates nothing, and runs in time
   linear in the size of the object's section header table and symbol
   tables.

   PROBLEMS.  A rule broken is a problem: a GdbElfError with its code
   (GDBELF_ERR_*), where in the image it is and the numbers involved.
   The reader hands each to the caller's problem callback, if any;
   when that returns non-zero the reader goes on where the object's
   structure allows (past that symbol, that symbol table, or that
   header field), else, or without a callback, it stops.  Either way the
   first problem stays in the object (`error`) and the reading functions
   return its code: an object is accepted only if they return
   GDBELF_OK. */

/* Limits on what an object may be. */
#define GDBELF_MAX_OBJECT_SIZE  (256ull << 20)  /* bytes the core copies
                                                   from a client        */
#define GDBELF_MAX_SECTIONS     65280u          /* SHN_LORESERVE        */

/* ELF constants the reader uses (values of the ELF specification). */
#define GDBELF_ET_REL        1u
#define GDBELF_ET_EXEC       2u
#define GDBELF_ET_DYN        3u
#define GDBELF_SHT_SYMTAB    2u
#define GDBELF_SHT_STRTAB    3u
#define GDBELF_SHF_ALLOC     0x2ull
#define GDBELF_SHF_EXECINSTR 0x4ull
#define GDBELF_STT_FUNC      2u
#define GDBELF_STT_FILE      4u

/* Problem codes (GdbElfError.code; static text: ML_(gdbelf_strerror);
   text with the numbers: ML_(gdbelf_describe)).  "stop" means the
   reader cannot go on whatever the callback says; the numbers each
   code fills are listed as num[0], num[1], ... */
#define GDBELF_OK                        0
/* the header */
#define GDBELF_ERR_SHORT                 1 /* stop: num[0] the image's
                                              size, num[1] the size of an
                                              ELF identification (16) or
                                              of the class's ELF header */
#define GDBELF_ERR_NOT_ELF               2 /* stop: no ELF magic        */
#define GDBELF_ERR_BAD_CLASS             3 /* stop: num[0] EI_CLASS     */
#define GDBELF_ERR_BAD_BYTE_ORDER        4 /* stop: num[0] EI_DATA      */
#define GDBELF_ERR_FOREIGN_BYTE_ORDER    5 /* num[0] the object's
                                              EI_DATA, num[1] the
                                              program's                 */
#define GDBELF_ERR_FOREIGN_CLASS         6 /* num[0] the object's class
                                              (32, 64), num[1] the
                                              program's                 */
#define GDBELF_ERR_BAD_TYPE              7 /* num[0] e_type             */
#define GDBELF_ERR_NO_SECTIONS           8 /* stop: e_shnum is 0        */
#define GDBELF_ERR_TOO_MANY_SECTIONS     9 /* stop: num[0] e_shnum,
                                              num[1] GDBELF_MAX_SECTIONS */
#define GDBELF_ERR_SHENTSIZE            10 /* stop: num[0] e_shentsize,
                                              num[1] the class's size   */
#define GDBELF_ERR_SHDRS_OUTSIDE        11 /* stop: num[0] e_shoff,
                                              num[1] e_shnum, num[2] the
                                              table's bytes, num[3] the
                                              image's size              */
#define GDBELF_ERR_SHDRS_UNALIGNED      12 /* num[0] e_shoff, num[1] the
                                              alignment (4 or 8)        */
/* symbol tables: `section` is the table's index; `at` is its section
   header or the field at fault there */
#define GDBELF_ERR_NO_SYMTAB            13 /* no SHT_SYMTAB section     */
#define GDBELF_ERR_SYMTAB_ENTSIZE       14 /* num[0] sh_entsize,
                                              num[1] sh_size, num[2] the
                                              class's symbol size       */
#define GDBELF_ERR_SYMTAB_OUTSIDE       15 /* num[0] sh_offset,
                                              num[1] sh_size, num[2] the
                                              image's size              */
#define GDBELF_ERR_SYMTAB_UNALIGNED     16 /* num[0] sh_offset, num[1]
                                              the alignment (4 or 8);
                                              the table is still read   */
#define GDBELF_ERR_SYMTAB_NO_STRTAB     17 /* num[0] sh_link (0 or not a
                                              section)                  */
#define GDBELF_ERR_STRTAB_BAD           18 /* num[0] sh_link, num[1] its
                                              sh_type, num[2] its
                                              sh_offset, num[3] its
                                              sh_size                   */
/* symbols: `section` is the symbol table's index, `symbol` the
   symbol's; num[0] is its st_name, num[1] its type (STT_FUNC or
   STT_FILE), num[2] the string table's size */
#define GDBELF_ERR_SYM_NO_NAME          19 /* st_name is 0              */
#define GDBELF_ERR_SYM_NAME_OUTSIDE     20 /* st_name >= the table size */
#define GDBELF_ERR_SYM_NAME_UNTERMINATED 21 /* no NUL before its end    */
/* functions: `section` is the function's section (st_shndx), `symbol`
   the symbol's index; num[0] st_value, num[1] st_size, num[2] the
   section's sh_addr, num[3] its sh_size */
#define GDBELF_ERR_NO_LOAD_ADDRESS      22 /* ET_REL, sh_addr is 0      */
#define GDBELF_ERR_FN_OUTSIDE_SECTION   23 /* outside its section       */
#define GDBELF_ERR_FN_WRAPS             24 /* its range wraps around    */
/* DWARF sections (ML_(gdbelf_dwarf_section_problem)): `section` is the
   DWARF section's index, `at` its section header or the field at
   fault */
#define GDBELF_ERR_DW_COMPRESSED        25 /* num[0] sh_flags           */
#define GDBELF_ERR_DW_OUTSIDE           26 /* num[0] sh_offset, num[1]
                                              sh_size, num[2] the
                                              image's size              */
/* relocation sections (ML_(gdbelf_dwarf_relocations)): `section` is
   the relocation section's index, `symtab` its sh_link, num[3] the
   DWARF section's index; `at` its section header */
#define GDBELF_ERR_REL_NOT_RELA         27 /* SHT_REL, not SHT_RELA     */
#define GDBELF_ERR_REL_MACHINE          28 /* num[0] e_machine, num[1]
                                              the class (not x86-64 or
                                              AArch64, 64)              */
#define GDBELF_ERR_REL_MALFORMED        29 /* num[0] sh_offset, num[1]
                                              sh_size, num[2] sh_entsize
                                              (not 24, or outside the
                                              image, or unaligned)      */
#define GDBELF_ERR_REL_NO_SYMTAB        30 /* sh_link 0 or no section   */
#define GDBELF_ERR_REL_SYMTAB_BAD       31 /* the linked section is not
                                              an aligned SHT_SYMTAB of
                                              24-byte symbols inside the
                                              image                     */
/* one relocation: as above, and `symbol` is the relocation's index in
   its section, `at` its entry */
#define GDBELF_ERR_REL_TYPE             32 /* num[0] the type           */
#define GDBELF_ERR_REL_OUTSIDE          33 /* num[0] r_offset, num[1]
                                              the width, num[2] the DWARF
                                              section's sh_size         */
#define GDBELF_ERR_REL_NO_SYMBOL        34 /* num[0] the symbol index,
                                              num[1] the symbols        */
#define GDBELF_ERR_REL_UNDEFINED        35 /* num[0] the symbol index,
                                              num[1] its st_shndx       */
#define GDBELF_ERR_REL_OVERFLOW         36 /* a 32- or 16-bit one: num[0]
                                              the value, num[1] the type */
#define GDBELF_ERR_MAX                  36

/* One problem.  `at` is the file offset of the field or structure at
   fault (a header field, a section header or one of its fields, a
   symbol), always < the image's size when the image has it (0 for the
   whole object). */
typedef struct {
   int                code;      /* GDBELF_ERR_*                        */
   unsigned long long at;        /* file offset                         */
   unsigned int       section;   /* section index (see the codes)       */
   unsigned int       symtab;    /* symbols and functions: the index of
                                    their symbol table                  */
   unsigned long long symbol;    /* symbol index (see the codes)        */
   unsigned long long num[4];    /* the numbers (see the codes)         */
   const char*        name;      /* functions: the symbol's name in the
                                    image (NUL-terminated there), else 0 */
} GdbElfError;

/* The caller's problem callback: return non-zero to go on reading. */
typedef int (*GdbElfOnProblem)(void* ctx, const GdbElfError* e);

/* A section header, decoded (ELF's Shdr fields, widened). */
typedef struct {
   unsigned int       name, type, link, info;
   unsigned long long flags, addr, offset, size, addralign, entsize;
} GdbElfSection;

/* A function the object defines (see the rules above).  `name` points
   into the image, NUL-terminated there, name_len bytes without the
   NUL. */
typedef struct {
   unsigned long long start;     /* address of its first byte           */
   unsigned long long size;      /* st_size, > 0                        */
   const char*        name;
   unsigned long      name_len;
   unsigned int       section;   /* st_shndx                            */
   unsigned int       symtab;    /* index of its symbol table           */
   unsigned long long symbol;    /* index in that table                 */
   unsigned long long at;        /* file offset of the symbol           */
   unsigned long long value;     /* st_value                            */
} GdbElfFunction;

/* The caller's function callback, once per function in symbol table
   order (tables in section order). */
typedef void (*GdbElfOnFunction)(void* ctx, const GdbElfFunction* f);

/* One object.  Fields marked RO are valid after ML_(gdbelf_open)
   returned GDBELF_OK, or a problem the callback went on from. */
typedef struct {
   const unsigned char* img;
   unsigned long long   n;
   GdbElfOnProblem      on_problem;   /* or 0: stop at the first       */
   void*                ctx;
   int                  have_header;  /* RO: the header fields below
                                         are read (the image holds a
                                         whole ELF header)              */
   int                  opened;       /* RO: the section header table
                                         can be read                    */
   unsigned int         elf_class;    /* RO: 32 or 64                   */
   int                  big_endian;   /* RO                             */
   unsigned int         type;         /* RO: e_type                     */
   unsigned int         machine;      /* RO: e_machine                  */
   unsigned long long   shoff;        /* RO: e_shoff                    */
   unsigned int         shnum;        /* RO: e_shnum                    */
   unsigned int         shentsize;    /* RO: e_shentsize                */
   unsigned int         shstrndx;     /* RO: e_shstrndx                 */
   const char*          file;         /* RO: the source file (first
                                         named STT_FILE), or 0; set by
                                         ML_(gdbelf_functions)          */
   unsigned long        file_len;     /* RO: without its NUL            */
   unsigned long long   n_problems;   /* RO: problems met               */
   GdbElfError          error;        /* RO: the first (code 0: none)   */
} GdbElfObject;

/* Reads and checks the header and the section header table's place of
   the object img[0..n) (which must stay unchanged while `o` is used).
   on_problem may be 0.  Returns GDBELF_OK, or the code of the first
   problem (o->error); o->opened says whether the section headers and
   symbols can be read (it is 0 after a problem marked "stop"). */
extern int ML_(gdbelf_open)(GdbElfObject* o, const unsigned char* img,
                            unsigned long long n,
                            GdbElfOnProblem on_problem, void* ctx);

/* Decodes section header i (< o->shnum) of an opened object into *s.
   Returns 1, or 0 (and leaves *s zeroed) if o is not opened or i is out
   of range. */
extern int ML_(gdbelf_section)(const GdbElfObject* o, unsigned int i,
                               GdbElfSection* s);

/* Reads the symbol tables of an opened object: sets o->file, calls
   on_function (may be 0) for each function, and hands problems to the
   object's callback.  Returns GDBELF_OK if the object broke no rule so
   far (ML_(gdbelf_open)'s problems included), else the first problem's
   code: the object is refused then, and the functions reported are only
   what a reader going on past problems found. */
extern int ML_(gdbelf_functions)(GdbElfObject* o,
                                 GdbElfOnFunction on_function, void* ctx);

/* Static English text for a problem code: what is wrong, without the
   numbers ("unknown problem" for codes out of range). */
extern const char* ML_(gdbelf_strerror)(int code);

/* Writes what e says, with its numbers, as English text into
   buf[0..size) (NUL-terminated, cut to fit; nothing written when size
   is 0), e.g. "section headers lie outside the object: 13 entries (832
   bytes) at offset 0x1a0, the object has 1000 bytes"; a function's
   problem names it.  Returns buf. */
extern char* ML_(gdbelf_describe)(const GdbElfError* e, char* buf,
                                  unsigned long size);

/* As ML_(gdbelf_describe), and with o (the object e is about, opened by
   ML_(gdbelf_open); may be 0) each section the text numbers is followed
   by its name when it has a short printable one, e.g. "section 3
   '.symtab'".  A function's name is cut after 160 bytes.  The one
   wording of every problem: the core's warnings and vg-jit use it. */
extern char* ML_(gdbelf_describe_in)(const GdbElfObject* o,
                                     const GdbElfError* e, char* buf,
                                     unsigned long size);

/* ------------------------------------------------------------------
   DWARF sections of GDB JIT objects (readgdbelf.c)
   ------------------------------------------------------------------

   Which DWARF sections the core reads from an accepted object and which
   of their relocations it applies (jitgdbdwarf.c does the reading;
   vg-jit's checker states the same rules through these functions).

   Sections: the first section not of type SHT_NOBITS with each name of
   GDBELF_DW_* (section names read from e_shstrndx, an SHT_STRTAB inside
   the image, NUL-terminated there).  The line table is read when
   .debug_line, .debug_info and .debug_abbrev are all present, the CFI
   from .eh_frame, else .debug_frame.  A section is refused when it is
   compressed (SHF_COMPRESSED) or lies outside the image, and in a
   relocatable object (ET_REL) when a relocation section targeting it
   (sh_info) breaks a rule below.  What it serves (the line table with
   .debug_info, .debug_abbrev, .debug_line, .debug_str and
   .debug_line_str; the CFI) is refused with it.

   Relocations, applied to relocatable objects only: RELA sections
   (SHT_REL is refused) of x86-64 and AArch64 objects of class 64, of
   24-byte entries inside the image at an 8-aligned offset, linked
   (sh_link) to an 8-aligned SHT_SYMTAB of 24-byte symbols inside the
   image.  Each relocation is type 0 (R_X86_64_NONE, R_AARCH64_NONE:
   skipped), in x86-64 objects R_X86_64_64, _32 or _32S, or in
   .eh_frame _PC32 or _PC64, in AArch64 ones R_AARCH64_ABS64, _ABS32 or
   _ABS16, or in .eh_frame _PREL32 or _PREL64; its width (8, 4 or 2
   bytes) lies inside the section; its symbol exists and is defined
   (SHN_ABS, or a section index below e_shnum).  Its value is the
   symbol's (st_value, plus the address of its section unless SHN_ABS)
   plus r_addend, minus the address of the relocated field for the
   PC-relative types; a narrow value must fit (_32 unsigned, _32S and
   _PC32 signed; AArch64's 32-bit ones -2^31..2^32-1, _ABS16
   -2^15..2^16-1).  A section's
   address is its sh_addr (the load address the JIT wrote), except an
   .eh_frame whose sh_addr is 0: it is taken to sit at the object's
   lowest function (code_lo), so its PC-relative pointers resolve. */

/* The DWARF sections, indices of GdbElfDwarf.shndx. */
#define GDBELF_DW_INFO          0
#define GDBELF_DW_ABBREV        1
#define GDBELF_DW_LINE          2
#define GDBELF_DW_STR           3
#define GDBELF_DW_LINE_STR      4
#define GDBELF_DW_STR_OFFSETS   5
#define GDBELF_DW_ADDR          6
#define GDBELF_DW_RANGES        7
#define GDBELF_DW_RNGLISTS      8
#define GDBELF_DW_LOC           9
#define GDBELF_DW_LOCLISTS     10
#define GDBELF_DW_EH_FRAME     11
#define GDBELF_DW_DEBUG_FRAME  12
#define GDBELF_DW_N            13

/* The DWARF sections of one object: shndx[GDBELF_DW_*] is the section's
   index, 0 if the object has none. */
typedef struct {
   unsigned int shndx[GDBELF_DW_N];
   int          want_lines;  /* .debug_line, .debug_info, .debug_abbrev */
   int          cfi;         /* GDBELF_DW_EH_FRAME, GDBELF_DW_DEBUG_FRAME,
                                or -1: none                             */
} GdbElfDwarf;

/* One relocation the core applies: write `width` bytes of `value`
   (little-endian) at `offset` in DWARF section `dwarf`
   (GDBELF_DW_*). */
typedef struct {
   unsigned int       dwarf;     /* GDBELF_DW_*                         */
   unsigned int       section;   /* the relocation section's index      */
   unsigned long long index;     /* the relocation's index there        */
   unsigned long long offset;    /* r_offset, in the DWARF section      */
   unsigned int       type;      /* R_X86_64_*, R_AARCH64_*             */
   unsigned int       width;     /* 2, 4 or 8                           */
   unsigned long long symbol_value; /* the symbol's address            */
   long long          addend;    /* r_addend                            */
   unsigned long long value;     /* what is written                     */
} GdbElfRelocation;

/* The caller's relocation callback. */
typedef void (*GdbElfOnRelocation)(void* ctx, const GdbElfRelocation* r);

/* The static English name of DWARF section s (< GDBELF_DW_N), e.g.
   ".debug_line"; 0 for others. */
extern const char* ML_(gdbelf_dwarf_name)(unsigned int s);

/* Finds the DWARF sections of an opened object into *d (all 0 if it is
   not opened). */
extern void ML_(gdbelf_dwarf_sections)(const GdbElfObject* o,
                                       GdbElfDwarf* d);

/* The address the core gives section i when it relocates: its sh_addr,
   or code_lo for an .eh_frame (d's) whose sh_addr is 0. */
extern unsigned long long ML_(gdbelf_dwarf_addr)(const GdbElfObject* o,
                                                 const GdbElfDwarf* d,
                                                 unsigned int i,
                                                 unsigned long long code_lo);

/* Whether DWARF section s of d can be copied: GDBELF_OK (also when the
   object has no such section), GDBELF_ERR_DW_COMPRESSED or
   GDBELF_ERR_DW_OUTSIDE, described in *e (zeroed when OK).  The
   object's problem callback is not called. */
extern int ML_(gdbelf_dwarf_section_problem)(const GdbElfObject* o,
                                             const GdbElfDwarf* d,
                                             unsigned int s,
                                             GdbElfError* e);

/* Checks the relocations targeting DWARF section s of d (none unless
   the object is ET_REL), relocation sections in section order, and
   calls on_relocation (may be 0) with each one the core applies.
   Returns GDBELF_OK, or at the first problem a GDBELF_ERR_REL_* code
   described in *e (zeroed when OK); the relocations already handed
   over are then to be dropped with the section.  The object's problem
   callback is not called.  Time linear in the relocations. */
extern int ML_(gdbelf_dwarf_relocations)(const GdbElfObject* o,
                                         const GdbElfDwarf* d,
                                         unsigned int s,
                                         unsigned long long code_lo,
                                         GdbElfOnRelocation on_relocation,
                                         void* ctx, GdbElfError* e);

/* ------------------------------------------------------------------
   Helpers the readers and writers share (not part of the API)
   ------------------------------------------------------------------ */

/* Zero `n` bytes at `p` (no memset: the readers run without libc). */
static inline void jitformats_zero(void* p, unsigned long n)
{
   unsigned char* q = (unsigned char*)p;
   unsigned long i;
   for (i = 0; i < n; i++)
      q[i] = 0;
}

/* Non-zero if this program is big-endian. */
static inline int jitformats_host_big_endian(void)
{
   const unsigned int one = 1;
   return *(const unsigned char*)&one == 0;
}

/* The unsigned field of `width` bytes (1 to 8) at p, big-endian if
   `big`, else little-endian.  p needs no alignment; the caller has
   checked that the bytes are there. */
static inline unsigned long long jitformats_ld(const unsigned char* p,
                                               unsigned int width, int big)
{
   unsigned long long v = 0;
   unsigned int       i;
   for (i = 0; i < width; i++)
      v = (v << 8) | p[big ? i : width - 1 - i];
   return v;
}

/* The 2-, 4- and 8-byte fields of jitformats_ld, written out byte by
   byte for each order: a compiler turns each form into one load (and a
   byte swap), where the loop of jitformats_ld costs a few instructions
   per byte.  Every field of every jitdump record is read through
   these. */
static inline unsigned int jitformats_ld16(const unsigned char* p, int big)
{
   if (big)
      return (unsigned int)p[0] << 8 | (unsigned int)p[1];
   return (unsigned int)p[1] << 8 | (unsigned int)p[0];
}
static inline unsigned int jitformats_ld32(const unsigned char* p, int big)
{
   if (big)
      return (unsigned int)p[0] << 24 | (unsigned int)p[1] << 16
             | (unsigned int)p[2] << 8 | (unsigned int)p[3];
   return (unsigned int)p[3] << 24 | (unsigned int)p[2] << 16
          | (unsigned int)p[1] << 8 | (unsigned int)p[0];
}
static inline unsigned long long jitformats_ld64(const unsigned char* p,
                                                 int big)
{
#if defined(__GNUC__)
   /* One 8-byte load (compilers do not join two 4-byte ones). */
   unsigned long long v;
   __builtin_memcpy(&v, p, sizeof(v));
   return (big != 0) == jitformats_host_big_endian() ? v
                                                     : __builtin_bswap64(v);
#else
   unsigned long long hi, lo;
   if (big) {
      hi = jitformats_ld32(p, 1);
      lo = jitformats_ld32(p + 4, 1);
   } else {
      hi = jitformats_ld32(p + 4, 0);
      lo = jitformats_ld32(p, 0);
   }
   return hi << 32 | lo;
#endif
}

/* The 2-, 4- and 8-byte fields at p in this program's byte order (the
   formats written by the process that reads them: BEAM's entries,
   .eh_frame records). */
static inline unsigned int jitformats_host16(const unsigned char* p)
{
   return jitformats_ld16(p, jitformats_host_big_endian());
}
static inline unsigned int jitformats_host32(const unsigned char* p)
{
   return jitformats_ld32(p, jitformats_host_big_endian());
}
static inline unsigned long long jitformats_host64(const unsigned char* p)
{
   return jitformats_ld64(p, jitformats_host_big_endian());
}

/* Stores the low `width` bytes (1 to 8) of v at p, big-endian if `big`,
   else little-endian: the writers' side of jitformats_ld. */
static inline void jitformats_st(unsigned char* p, unsigned int width,
                                 unsigned long long v, int big)
{
   unsigned int i;
   for (i = 0; i < width; i++)
      p[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Non-zero if the code range [addr, addr+size) does not fit below 2^64:
   its last byte addr+size-1 overflows.  A range ending exactly at 2^64
   is fine; an empty range never wraps. */
static inline int jitformats_range_wraps(unsigned long long addr,
                                         unsigned long long size)
{
   return size > 0 && addr + (size - 1) < addr;
}

/* Text written into a caller's buffer buf[0..size), NUL-terminated and
   cut to fit (nothing is written when size is 0).  The readers' texts
   with numbers (ML_(gdbelf_describe), ML_(jitdump_describe)) are built
   from one template per error code with jitformats_fill. */
typedef struct {
   char*         buf;
   unsigned long size, len;
} JitformatsText;

/* The text of one error code of a reader: what is wrong (its strerror)
   and a template of its numbers for jitformats_fill (its describe).
   Each reader keeps one table of them, indexed by code. */
typedef struct {
   const char* what;
   const char* numbers;
} JitformatsMessage;

/* Starts text output into buf[0..size). */
static inline void jitformats_text_init(JitformatsText* t, char* buf,
                                        unsigned long size)
{
   t->buf  = buf;
   t->size = size;
   t->len  = 0;
   if (size > 0)
      buf[0] = 0;
}

/* Appends the NUL-terminated string s (0 appends nothing). */
static inline void jitformats_put(JitformatsText* t, const char* s)
{
   for (; s != 0 && *s != 0; s++)
      if (t->len + 1 < t->size)
         t->buf[t->len++] = *s;
   if (t->size > 0)
      t->buf[t->len] = 0;
}

/* Appends v in decimal (base 10) or in hex with "0x" (base 16). */
static inline void jitformats_put_num(JitformatsText* t,
                                      unsigned long long v,
                                      unsigned int base)
{
   char         tmp[24];
   unsigned int i = sizeof(tmp) - 1;
   tmp[i] = 0;
   do {
      tmp[--i] = "0123456789abcdef"[v % base];
      v /= base;
   } while (v != 0);
   if (base == 16)
      jitformats_put(t, "0x");
   jitformats_put(t, tmp + i);
}

/* Appends a size of v bytes: "64 KiB", "1 MiB", "1 GiB" when v is a
   whole number of them, else "N bytes". */
static inline void jitformats_put_size(JitformatsText* t,
                                       unsigned long long v)
{
   static const char* const unit[] = { " KiB", " MiB", " GiB" };
   int u = -1;
   while (u < 2 && v >= 1024 && v % 1024 == 0) {
      v /= 1024;
      u++;
   }
   jitformats_put_num(t, v, 10);
   jitformats_put(t, u < 0 ? " bytes" : unit[u]);
}

/* Appends template `tmpl` with its fields filled: "{N}" is num[N] in
   decimal, "{xN}" num[N] in hex, "{zN}" num[N] as a size
   (jitformats_put_size), "{sN}" the string str[N] (N one digit; the
   caller's arrays must hold index N).  Other characters are copied. */
static inline void jitformats_fill(JitformatsText* t, const char* tmpl,
                                   const unsigned long long* num,
                                   const char* const* str)
{
   const char* p = tmpl;
   char        one[2];
   one[1] = 0;
   while (p != 0 && *p != 0) {
      /* Each byte looked at is read only when the one before it is not
         the NUL: a template may end anywhere. */
      char kind = p[0] == '{' ? p[1] : 0;
      int  skip = kind == 'x' || kind == 'z' || kind == 's' ? 1 : 0;
      char d    = kind == 0 ? 0 : p[1 + skip];
      if (d >= '0' && d <= '9' && p[2 + skip] == '}') {
         int i = d - '0';
         if (skip == 0)
            jitformats_put_num(t, num[i], 10);
         else if (kind == 'x')
            jitformats_put_num(t, num[i], 16);
         else if (kind == 'z')
            jitformats_put_size(t, num[i]);
         else
            jitformats_put(t, str[i]);
         p += 3 + skip;
         continue;
      }
      one[0] = *p++;
      jitformats_put(t, one);
   }
}

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_JITFORMATS_H */

/*--------------------------------------------------------------------*/
/*--- end                                        priv_jitformats.h ---*/
/*--------------------------------------------------------------------*/
