// Compiles vg-jit's analyze.cpp into unit_tool (keeps the object here).
#include "../tool/analyze.cpp"
