/* fuzz_driver.h - what the parser fuzz targets share: the trap on a broken
   invariant, the event bound, and the libFuzzer entry point that feeds one
   input three ways (whole, split at an input-derived position, and in the
   smallest pieces the reader asks for) and requires identical events.

   A target defines its event type EV and
     static int RUN(const uint8_t* data, size_t size, int mode,
                    size_t split, EV* out);
   (mode 0 whole, 1 split at `split`, 2 minimal pieces; returns the number
   of events written to out, at most FUZZ_MAX_EVENTS), then writes
   FUZZ_DEFINE_ENTRY_POINT(EV, RUN). */

#ifndef VGJIT_FUZZ_DRIVER_H
#define VGJIT_FUZZ_DRIVER_H

#include <stdint.h>
#include <string.h>

#define FUZZ_MAX_EVENTS 8192

static void fail(void) { __builtin_trap(); }

#define FUZZ_DEFINE_ENTRY_POINT(EV, RUN)                                  \
   static EV ev_whole[FUZZ_MAX_EVENTS], ev_split[FUZZ_MAX_EVENTS],        \
             ev_min[FUZZ_MAX_EVENTS];                                     \
   int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);          \
   int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)           \
   {                                                                      \
      size_t split = 0, i;                                                \
      int n0, n1, n2;                                                     \
      for (i = 0; i < size; i++)                                          \
         split = split * 131 + data[i];                                   \
      split = size ? split % (size + 1) : 0;                              \
      n0 = RUN(data, size, 0, 0, ev_whole);                               \
      n1 = RUN(data, size, 1, split, ev_split);                           \
      n2 = RUN(data, size, 2, 0, ev_min);                                 \
      if (n0 != n1 || n0 != n2) fail();                                   \
      if (memcmp(ev_whole, ev_split, (size_t)n0 * sizeof(EV)) != 0)       \
         fail();                                                          \
      if (memcmp(ev_whole, ev_min, (size_t)n0 * sizeof(EV)) != 0)         \
         fail();                                                          \
      return 0;                                                           \
   }

#endif
