/* module.c - the MODULE command of a server without a module system.
 *
 * This server cannot load Valkey modules (there is no module API). MODULE
 * still exists so that tools probing for modules get Valkey's answers: LIST
 * is an empty array, LOAD and LOADEX fail the way a module that cannot be
 * loaded fails in Valkey (the reason goes to the log), UNLOAD finds no
 * module of that name. Like Valkey, every subcommand but HELP is protected
 * by enable-module-command (checked by processCommand() through
 * moduleCommandAllowed()). A `loadmodule` line in the config file stops
 * start-up (config.c). Runs in the event loop. */
#include "server.h"
#include "config.h"

extern struct serverCommand moduleCommands[];

/* Returns 0 if c->cmd is a protected MODULE subcommand that
 * enable-module-command does not allow for this client ("no": never,
 * "local": only local connections), 1 otherwise. Event loop. */
int moduleCommandAllowed(client *c) {
    struct serverCommand *cmd = c->cmd;
    if (cmd == NULL || cmd->parent != &moduleCommands[0] || !(cmd->flags & CMD_PROTECTED)) return 1;
    if (server.enable_module_cmd == PROTECTED_ACTION_ALLOWED_YES) return 1;
    if (server.enable_module_cmd == PROTECTED_ACTION_ALLOWED_LOCAL)
        return c->conn == NULL || connIsLocal(c->conn);
    return 0;
}

static void moduleListCommand(client *c) {
    addReplyArrayLen(c, 0); /* No module is ever loaded. */
}

/* LOAD and LOADEX: the path is never opened. */
static void moduleLoadCommand(client *c) {
    serverLog(LL_WARNING, "Module %s failed to load: this server is built without module support",
              (char *)objectGetVal(c->argv[2]));
    addReplyError(c, "Error loading the extension. Please check the server logs.");
}

static void moduleUnloadCommand(client *c) {
    addReplyError(c, "Error unloading module: no such module with that name");
}

static void moduleHelpCommand(client *c) {
    const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL,
    };
    addReplyHelp(c, help);
}

#define MODULE_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_PROTECTED)

static struct serverCommand moduleSubcommands[] = {
    {.name = "list", .proc = moduleListCommand, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_PROTECTED,
     .acl_categories = ACL_CATEGORY_SLOW, .group = "server", .since = "4.0.0",
     .summary = "Returns all loaded modules.", .complexity = "O(N) where N is the number of loaded modules."},
    {.name = "load", .proc = moduleLoadCommand, .arity = -3, .flags = MODULE_FLAGS | CMD_NO_ASYNC_LOADING,
     .acl_categories = ACL_CATEGORY_SLOW, .group = "server", .since = "4.0.0",
     .summary = "Loads a module.", .complexity = "O(1)", .args = "path [arg [arg ...]]"},
    {.name = "loadex", .proc = moduleLoadCommand, .arity = -3, .flags = MODULE_FLAGS | CMD_NO_ASYNC_LOADING,
     .acl_categories = ACL_CATEGORY_SLOW, .group = "server", .since = "7.0.0",
     .summary = "Loads a module using extended parameters.", .complexity = "O(1)",
     .args = "path [CONFIG name value [CONFIG name value ...]] [ARGS args [args ...]]"},
    {.name = "unload", .proc = moduleUnloadCommand, .arity = 3, .flags = MODULE_FLAGS | CMD_NO_ASYNC_LOADING,
     .acl_categories = ACL_CATEGORY_SLOW, .group = "server", .since = "4.0.0",
     .summary = "Unloads a module.", .complexity = "O(1)", .args = "name"},
    {.name = "help", .proc = moduleHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_CATEGORY_SLOW, .group = "server", .since = "5.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = NULL},
};

struct serverCommand moduleCommands[] = {
    {.name = "module", .arity = -2, .flags = 0, .group = "server", .since = "4.0.0",
     .summary = "A container for module commands.", .complexity = "Depends on subcommand.",
     .subcommands = moduleSubcommands},
    {.name = NULL},
};
