/* lua_libs.h - the libraries we write ourselves for the scripting VM.
 *
 * Each luaopen* function registers one global table in the Lua state it
 * is given and leaves it on the stack (returns 1), like a standard Lua
 * library opener. script_lua.c calls them while building a VM, before the
 * globals are made read-only. They never touch server state, so they are
 * safe on any lua_State. */
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

#endif
