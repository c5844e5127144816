/* Compiles the shared rules for the DWARF sections of GDB JIT objects and
   their relocations into this directory's programs (see
   jitformats_jitdump.c for why it is included rather than listed). */
#include "readgdbelf-dwarf.c"
