/* fuzz_aclfile.c - libFuzzer target for the aclfile parser (acl.c: the
 * file split into lines and each line at single spaces, "(...)" selectors
 * joined across words and split inside as sdssplitargs() splits, every
 * rule's parser, the error report of a bad file, and the users replacing
 * the live ones).
 *
 * Input: the text of an ACL file, loaded as ACL LOAD loads one
 * (aclLoadUsersText). Whatever it holds, the server must not crash, leak
 * or change its users when the file is refused. When it loads, the users
 * are written out as ACL SAVE writes them (aclUsersFileText); that text
 * must load back without error and, written out again, give the same
 * text: whatever the parser accepts, the writer writes in a form the
 * parser reads back as the same users. */
#include "fuzz_server.h"

#include "acl.h"

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel warning");
    return 0;
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sds before = aclUsersFileText();
    sds err = aclLoadUsersText((const char *)data, size, "fuzz.acl");
    if (err) {
        sds after = aclUsersFileText();
        if (sdscmp(before, after) != 0) {
            fprintf(stderr, "fuzz_aclfile: a refused file changed the users (%s)\n", err);
            abort();
        }
        sdsfree(after);
        sdsfree(before);
        sdsfree(err);
        return 0;
    }
    sdsfree(before);

    sds saved = aclUsersFileText();
    err = aclLoadUsersText(saved, sdslen(saved), "saved.acl");
    if (err) {
        fprintf(stderr, "fuzz_aclfile: what ACL SAVE wrote does not load back: %s\n---\n%s\n", err, saved);
        abort();
    }
    sds again = aclUsersFileText();
    if (sdscmp(saved, again) != 0) {
        fprintf(stderr, "fuzz_aclfile: the users changed when ACL SAVE's text was loaded back:\n%s\n---\n%s\n", saved,
                again);
        abort();
    }
    sdsfree(again);
    sdsfree(saved);
    return 0;
}
