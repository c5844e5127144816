// Compiles vg-jit's json.cpp into unit_tool (keeps the object here).
#include "../tool/json.cpp"
