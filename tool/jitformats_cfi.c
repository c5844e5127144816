/* Compiles the shared checks of CFI records into this directory's programs
   (see jitformats_jitdump.c for why it is included rather than listed). */
#include "checkcfi.c"
