/*--------------------------------------------------------------------*/
/*--- Followers of JIT producer files: the common core and what    ---*/
/*--- each format provides.                       priv_jitfollow.h ---*/
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

#ifndef __PRIV_JITFOLLOW_H
#define __PRIV_JITFOLLOW_H

#include "pub_core_basics.h"
#include "priv_jitreg.h"         /* JitWhere */

/* A follower reads one producer file incrementally and feeds what it
   decodes into the registry, under the file's path as object name.
   jitfollow.c holds what every format shares (the list of followers,
   reading the file's new bytes into a buffer, polling, forks); one file
   per format (jitfollow-jitdump.c, jitfollow-perfmap.c) decodes the
   bytes with the shared parsers of readjitdump.c/readperfmap.c and
   registers what they describe. */

typedef struct _JitFollower JitFollower;

/* What a step did with the bytes it was given. */
typedef
   enum {
      JitStep_ADVANCE,    /* handled one item or more; *n: how far the
                             reader's offset moved (may exceed the bytes
                             given: a skip) */
      JitStep_NEED_MORE,  /* *n: how many bytes, from the reader's offset,
                             the next item needs */
      JitStep_WAIT,       /* the next item needs a safe point; the
                             follower puts the reader back as it was */
      JitStep_STOP        /* the file is unreadable: following stopped */
   }
   JitStep;

/* A format. */
typedef
   struct {
      const HChar* kind;         /* "jitdump file", for messages */
      const HChar* position;     /* "offset " or "line ": how a problem's
                                    position is printed */
      const HChar* items;        /* "records" or "lines": what the exit
                                    summary counts */
      const HChar* code_item;    /* "CODE_LOAD " or "": what names code,
                                    in warnings about a registration */
      SizeT        buf_initial;  /* read buffer size */
      SizeT        buf_max;      /* largest item held whole */
      /* Allocates the format's state (fl->state). */
      void     (*init)   ( JitFollower* fl );
      /* File offset of the reader's next unconsumed byte. */
      ULong    (*offset) ( const JitFollower* fl );
      /* The parser's state (reader_size bytes in fl->state): copied
         before an item is read inside a lookup and put back if the item
         must wait for a safe point, so that it is read again there. */
      void*    (*reader) ( JitFollower* fl );
      SizeT        reader_size;
      /* Reads one item from buf[0 .. len-1], the file's bytes at
         offset(), and registers what it describes: JitStep_ADVANCE (*n:
         how far the reader's offset moved; fl->n_items counts the item
         unless it is none, as a file's header), JitStep_NEED_MORE (*n:
         the bytes the item needs), JitStep_WAIT (only when `where` is
         JitInLookup: the item needs a safe point, and the caller puts
         the reader back) or JitStep_STOP (it stopped following fl).
         Decoding and registering are one call: the interface is paid
         once an item.  Where no item can wait (`where` is not
         JitInLookup), a format may go on through the items that follow
         in buf and report them as one JitStep_ADVANCE (the jitdump
         follower does: the interface is then paid once a buffer). */
      JitStep  (*step)   ( JitFollower* fl, const UChar* buf, SizeT len,
                           JitWhere where, /*OUT*/ULong* n );
      /* The rest may be NULL. */
      /* When the client has exited, at a safe point: reads what is left
         that is no whole item yet but is one at the end of the file (a
         perf map's last line without its '\n'). */
      void     (*finish) ( JitFollower* fl );
      /* The format's own search for files to follow (they start with
         ML_(jit_follow)), at every poll and read: for formats whose files
         the client does not announce. */
      void     (*discover) ( void );
      /* True while discover may still start a follower (a lookup miss
         reads files only if some follower or search exists). */
      Bool     (*discovering) ( void );
      /* In a forked child: the files describe the parent; never start
         following one again. */
      void     (*forked) ( void );
   }
   JitFollowerOps;

/* The formats (each defined in its jitfollow-FORMAT.c, listed in
   jitfollow.c's table; a new format adds its file and a line there). */
extern const JitFollowerOps ML_(jit_jitdump_ops);
extern const JitFollowerOps ML_(jit_perfmap_ops);

/* The jitdump format's discover, discovering and forked operations
   (jitfollow-jitdump-mapped.c, with ML_(jit_notify_mapped_file)): files
   mapped executable under another name than jit-<pid>.dump while too
   short to hold a header, looked at again until they hold one. */
extern void ML_(jit_jitdump_discover)    ( void );
extern Bool ML_(jit_jitdump_discovering) ( void );
extern void ML_(jit_jitdump_forked)      ( void );

struct _JitFollower {
   const JitFollowerOps* ops;
   Int    fd;
   Int    pid;          /* process that opened it */
   HChar* path;         /* object name of its functions */
   struct _JitObject* object;   /* path's object once resolved
                                   (ML_(jit_follow_object)), else NULL */
   Bool   done;         /* closed, hard error or I/O error */
   UChar* buf;
   SizeT  buf_cap;
   void*  state;        /* the format's */
   /* Counters for -v.  Every item read (a record, a line) is counted in
      n_items and in exactly one of: n_loaded (registered), n_moved,
      n_refused (by status in refused_by), n_bad (malformed, or not
      meaningful: counted by ML_(jit_follow_warn)), n_other (carries no
      code: debug info, unwinding info, close, unknown ids, blank
      lines), n_named_late (code unmapped before the item was read,
      which ran unnamed: JIT_STATUS_NAMED_LATE). */
   ULong  n_items;
   ULong  n_loaded, n_moved, n_refused, n_bad, n_other, n_named_late;
   ULong  n_waiting;   /* items whose code was not executable yet: they
                          wait (priv_jitpending.h) */
   ULong  refused_by[JIT_N_STATUS_SLOTS];
   ULong  n_warned;     /* problems seen under -v, printed or not */
   void*  snapshot;     /* ops->reader_size bytes: the reader before the
                           item being handled */
};

/* Starts following the file open on fd (owned from now on) with ops. */
extern JitFollower* ML_(jit_follow) ( const JitFollowerOps* ops, Int fd,
                                      const HChar* path );

/* The object of fl's functions (named fl->path), resolved on the first
   call: ML_(jit_object_named) once per file, not per item.  Inline: a
   record pays a load for it. */
static inline struct _JitObject* ML_(jit_follow_object) ( JitFollower* fl )
{
   if (UNLIKELY(fl->object == NULL))
      fl->object = ML_(jit_object_named)(fl->path);
   return fl->object;
}

/* Stops following fl, closing its file, and says why under -v. */
extern void ML_(jit_follow_stop) ( JitFollower* fl, const HChar* why );

/* True if a live follower reads path. */
extern Bool ML_(jit_is_followed) ( const HChar* path );

/* Counts a malformed item at position `where` (an offset or a line, as
   ops->position says) and prints `what` under -v (at most 10 per
   file). */
extern void ML_(jit_follow_warn) ( JitFollower* fl, ULong where,
                                   const HChar* what );

/* True if the code range [addr, addr+size) of fl's item at position
   `where` (a `what`: "CODE_LOAD", "CODE_MOVE", "entry") lies in this
   platform's address space.  The files carry 64-bit addresses; on a
   32-bit platform a range that reaches past 4 GiB is refused
   (VG_JIT_ERR_BAD_RANGE, counted as ML_(jit_follow_refused) does) with
   a warning under -v naming it, instead of being truncated to another
   address.  Always True on 64-bit platforms (inline there: a record
   pays nothing for it). */
#if VG_WORDSIZE == 4
extern Bool ML_(jit_follow_fits) ( JitFollower* fl, ULong where,
                                   const HChar* what, ULong addr,
                                   ULong size );
#else
static inline Bool ML_(jit_follow_fits) ( JitFollower* fl, ULong where,
                                          const HChar* what, ULong addr,
                                          ULong size )
{
   (void)fl; (void)where; (void)what; (void)addr; (void)size;
   return True;
}
#endif

/* Counts an item of fl refused by the registry with status st (here and
   in the registry's summary). */
extern void ML_(jit_follow_refused) ( JitFollower* fl, Int st );

/* True if one more problem of fl may be printed (counts it). */
extern Bool ML_(jit_follow_may_warn) ( JitFollower* fl );

/* ML_(jit_follow_registered) for any status but VG_JIT_OK. */
extern Bool ML_(jit_follow_answered) ( JitFollower* fl,
                                       const JitRegistration* reg,
                                       Int st, ULong where );

/* Counts what the registry answered (st) to reg, made from fl's item at
   position `where`, and warns (as ML_(jit_follow_warn) does) about a
   refusal or dropped line-table entries (reg->drops, if not NULL).
   Returns False if the item must wait for a safe point
   (JIT_STATUS_RANGE_BUSY), True if it was consumed.  Inlined: a
   registration applied as asked, once per record, is only counted. */
static inline Bool ML_(jit_follow_registered) ( JitFollower* fl,
                                                const JitRegistration* reg,
                                                Int st, ULong where )
{
   if (LIKELY(st == VG_JIT_OK)) {
      fl->n_loaded++;
      return True;
   }
   return ML_(jit_follow_answered)(fl, reg, st, where);
}

/* jitfollow-jitdump-mapped.c starts the jitdump followers from
   ML_(jit_notify_mapped_file) (priv_jitreg.h), jitfollow-perfmap.c
   through its discover hook. */

#endif   // __PRIV_JITFOLLOW_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
