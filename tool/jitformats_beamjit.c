/* Compiles the shared reader of Erlang/OTP's JIT entries into this
   directory's programs (see jitformats_jitdump.c for why it is included
   rather than listed). */
#include "readbeamjit.c"
