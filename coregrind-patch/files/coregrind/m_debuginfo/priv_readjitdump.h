/*--------------------------------------------------------------------*/
/*--- jitdump files: their layout and an incremental reader.       ---*/
/*---                                           priv_readjitdump.h ---*/
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

/* The jitdump files of Linux perf (tools/perf/Documentation/
   jitdump-specification.txt, versions 1 and 2): a binary file
   `jit-<pid>.dump` with a file header followed by records (CODE_LOAD,
   CODE_MOVE, CODE_DEBUG_INFO, CODE_CLOSE, CODE_UNWINDING_INFO).  Their
   layout as named offsets, which every writer of the format in tests/,
   bench/ and the upstream-format tests uses too, and an incremental,
   allocation-free reader, JitdumpReader (readjitdump.c).  Portable C99
   without libc and without Valgrind headers (priv_jitbytes.h says
   why).

   PULL MODEL (this reader and the perf map's, priv_readperfmap.h).
   The reader owns a little state, including the file offset of the
   next byte it has not consumed yet (`offset`).  The caller owns every
   buffer: on each call it passes `buf`/`len`, the bytes of the file
   starting exactly at the reader's current `offset` (as many as it
   has; `len` may be 0).  The reader returns ONE event and reports in
   `advance` how far its offset moved:

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
   NUL-terminated for perf maps: always use the accompanying length. */

#ifndef __PRIV_READJITDUMP_H
#define __PRIV_READJITDUMP_H

/* ML_ as pub_tool_basics.h defines it (token for token, so that either
   include order is fine); see priv_jitbytes.h for the names user space
   gets. */
#ifndef VGAPPEND
#define VGAPPEND(str1,str2) str1##str2
#endif
#ifndef ML_
#define ML_(str)    VGAPPEND(vgModuleLocal_,    str)
#endif

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_READJITDUMP_H */

/*--------------------------------------------------------------------*/
/*--- end                                       priv_readjitdump.h ---*/
/*--------------------------------------------------------------------*/
