/* lua_libs.h - the libraries we write ourselves for the scripting VM.
 *
 * Each luaopen* function but luaopenStrmatch registers one global table in
 * the Lua state it is given and leaves it on the stack (returns 1), like a
 * standard Lua library opener; luaopenStrmatch replaces functions of the
 * `string` table. script_lua.c calls them while building a VM, before the
 * globals are made read-only. They never touch server state (the matcher
 * only calls back the checkpoint it is given), so they are safe on any
 * lua_State. */
#ifndef VK_LUA_LIBS_H
#define VK_LUA_LIBS_H

#include <lua.h>

/* `bit`: LuaBitOp's 32-bit operations (lua_bit.c). */
int luaopenBit(lua_State *L);

/* `cmsgpack`: MessagePack pack/unpack (lua_cmsgpack.c). */
int luaopenCmsgpack(lua_State *L);

/* `struct`: binary packing by format string, pack/unpack/size
 * (lua_struct.c). */
int luaopenStruct(lua_State *L);

/* Called by the pattern matcher every so many steps with the running
 * state; it may raise a Lua error (lua_error) to stop the script. */
typedef void (*strmatchCheckpoint)(lua_State *L);

/* Replaces string.find/match/gmatch/gsub in the `string` table with the
 * bounded, interruptible matcher of lua_strmatch.c; checkpoint (may be
 * NULL) is shared by every state. Pushes nothing. */
void luaopenStrmatch(lua_State *L, strmatchCheckpoint checkpoint);

#endif
