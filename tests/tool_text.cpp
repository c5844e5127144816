// Compiles vg-jit's text.cpp into unit_tool (keeps the object here).
#include "../tool/text.cpp"
