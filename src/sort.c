/* sort.c - SORT and SORT_RO: sorting the elements of a list, set or sorted
 * set, optionally by weights read from other keys, and returning (or
 * storing into a list) the elements or values fetched through patterns.
 *
 *   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
 *            [ASC|DESC] [ALPHA] [STORE destination]
 *
 * A pattern names other keys: its first '*' is replaced by the element
 * ("weight_*" -> "weight_42"); "hash_*->field" reads a field of a hash;
 * "#" (GET only) is the element itself. Since no key spec names the keys
 * patterns reach, BY and GET need a user that may read every key (acl.c).
 * A BY pattern without '*' turns
 * sorting off ("BY nosort"): lists and sorted sets then keep their own
 * order (reversed by DESC), sets their iteration order - except when the
 * result is STOREd, where a set is sorted ALPHA so the stored list does
 * not depend on the hash table layout.
 *
 * The flow: parse every option (syntax and LIMIT errors first), check the
 * key's type, copy the elements into a vector of sortItem, load their
 * weights (numbers unless ALPHA; a weight that is not a number is an error
 * reported after the whole vector is looked at), qsort, and emit the
 * LIMIT window. Elements are private copies, so the vector stays valid
 * when STORE overwrites the source key. Reads of the list, set, sorted set
 * and hash encodings go through their public helpers or the leaf libraries
 * (listpack, quicklist, dict); nothing here modifies another type. */
#include "server.h"

#include <errno.h>
#include <math.h>

#include "acl.h"
#include "listpack.h"
#include "quicklist.h"

/* One element being sorted. */
typedef struct sortItem {
    robj *obj;    /* The element (a string object we own). */
    double score; /* Numeric weight (0 when the BY key is missing). */
    robj *cmpobj; /* ALPHA with BY: the weight text, or NULL if missing. */
} sortItem;

/* What the comparison function needs to know (qsort gives it no context). */
static struct {
    int desc, alpha, bypattern, store;
} sortOpts;

/* ---------------------------------------------------------------------------
 * Patterns
 * ------------------------------------------------------------------------- */

/* The value of `field` in a hash, as a new string object, or NULL. */
static robj *sortHashField(robj *hash, const char *field, size_t flen) {
    return hashTypeGetValueObject(hash, field, flen);
}

/* Resolves pattern for element subst. Returns a new reference (caller
 * decrRefCount()s it) to: subst itself for "#"; the string stored at the
 * key the pattern names; or the hash field it names. NULL when the
 * pattern has no '*', the key is missing, or it holds the wrong type. */
static robj *sortLookupPattern(serverDb *db, robj *pattern, robj *subst, int writeflag) {
    robj *pat = getDecodedObject(pattern);
    const char *p = objectGetVal(pat);
    size_t plen = sdslen(objectGetVal(pat));
    robj *result = NULL;

    if (plen == 1 && p[0] == '#') {
        decrRefCount(pat);
        incrRefCount(subst);
        return subst;
    }
    const char *star = memchr(p, '*', plen);
    if (star == NULL) goto done;

    /* "->" after the star, followed by at least one byte, starts a field. */
    const char *field = NULL, *keyend = p + plen;
    const char *arrow = strstr(star + 1, "->");
    if (arrow && arrow + 2 < p + plen) {
        field = arrow + 2;
        keyend = arrow;
    }

    robj *el = getDecodedObject(subst);
    sds keyname = sdsnewlen(p, star - p);
    keyname = sdscatlen(keyname, objectGetVal(el), sdslen(objectGetVal(el)));
    keyname = sdscatlen(keyname, star + 1, keyend - (star + 1));
    decrRefCount(el);
    robj *keyobj = createObject(OBJ_STRING, keyname);
    robj *o = writeflag ? lookupKeyWrite(db, keyobj) : lookupKeyRead(db, keyobj);
    decrRefCount(keyobj);
    if (o == NULL) goto done;

    if (field) {
        if (o->type == OBJ_HASH) result = sortHashField(o, field, (size_t)(p + plen - field));
    } else if (o->type == OBJ_STRING) {
        incrRefCount(o);
        result = o;
    }
done:
    decrRefCount(pat);
    return result;
}

/* ---------------------------------------------------------------------------
 * Loading and comparing
 * ------------------------------------------------------------------------- */

/* Copies every element of src (a list head to tail, a set in iteration
 * order, a sorted set by ascending score) into a new zmalloc'ed array of
 * new string objects, owned by the caller; *n is set to the count. */
static robj **sortCollect(robj *src, long *n) {
    robj **out;
    *n = 0;
    if (src->type == OBJ_LIST) {
        out = zmalloc(sizeof(robj *) * (listTypeLength(src) + 1));
        if (src->encoding == OBJ_ENCODING_LISTPACK) {
            unsigned char *lp = objectGetVal(src);
            for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
                unsigned int len;
                long long ll;
                unsigned char *s = lpGetValue(p, &len, &ll);
                out[(*n)++] = s ? createStringObject((char *)s, len) : createStringObjectFromLongLong(ll);
            }
        } else {
            quicklistIter *it = quicklistGetIterator(objectGetVal(src), AL_START_HEAD);
            quicklistEntry e;
            while (quicklistNext(it, &e))
                out[(*n)++] = e.value ? createStringObject((char *)e.value, e.sz)
                                      : createStringObjectFromLongLong(e.longval);
            quicklistReleaseIterator(it);
        }
        return out;
    }
    list *l = listCreate();
    if (src->type == OBJ_SET) setTypeCollectAll(src, l);
    else zsetTypeCollectAll(src, l, 0);
    out = zmalloc(sizeof(robj *) * (listLength(l) + 1));
    listIter li;
    listNode *ln;
    listRewind(l, &li);
    while ((ln = listNext(&li)) != NULL) out[(*n)++] = createObject(OBJ_STRING, listNodeValue(ln));
    listRelease(l); /* No free method: the sds now belong to the objects. */
    return out;
}

/* qsort comparator following sortOpts. Numeric ties fall back to a binary
 * comparison of the elements so the output is deterministic. */
static int sortCompare(const void *a, const void *b) {
    const sortItem *x = a, *y = b;
    int cmp;
    if (!sortOpts.alpha) {
        if (x->score > y->score) cmp = 1;
        else if (x->score < y->score) cmp = -1;
        else cmp = compareStringObjects(x->obj, y->obj);
    } else {
        const robj *l = x->obj, *r = y->obj;
        if (sortOpts.bypattern) {
            l = x->cmpobj;
            r = y->cmpobj;
        }
        if (l == NULL || r == NULL) {
            cmp = (l == r) ? 0 : (l == NULL ? -1 : 1); /* Missing weights first. */
        } else {
            /* STORE must not depend on the locale: binary order then. */
            cmp = sortOpts.store ? compareStringObjects(l, r) : collateStringObjects(l, r);
        }
    }
    return sortOpts.desc ? -cmp : cmp;
}

/* Parses a weight the way SORT always has: strtod over the whole text
 * (so "", " 1" and "inf" are numbers), no overflow, no NaN. */
static int sortParseScore(robj *o, double *score) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *score = (double)(long)objectGetVal(o);
        return C_OK;
    }
    char *eptr;
    errno = 0;
    *score = strtod(objectGetVal(o), &eptr);
    if (*eptr != '\0' || errno == ERANGE || isnan(*score)) return C_ERR;
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

static void sortGenericCommand(client *c, int readonly) {
    int desc = 0, alpha = 0, dontsort = 0, getops = 0;
    long limit_start = 0, limit_count = -1;
    robj *sortby = NULL, *storekey = NULL;
    robj **getpat = zmalloc(sizeof(robj *) * c->argc);
    sortItem *vector = NULL;
    long vlen = 0;

    for (int j = 2; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        int left = c->argc - j - 1;
        if (!strcasecmp(opt, "asc")) {
            desc = 0;
        } else if (!strcasecmp(opt, "desc")) {
            desc = 1;
        } else if (!strcasecmp(opt, "alpha")) {
            alpha = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &limit_start, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &limit_count, NULL) != C_OK)
                goto cleanup;
            j += 2;
        } else if (!readonly && !strcasecmp(opt, "store") && left >= 1) {
            storekey = c->argv[++j];
        } else if (!strcasecmp(opt, "by") && left >= 1) {
            /* BY and GET read keys the key specs do not name: only for a
             * user who may read every key (acl.c). */
            if (!aclClientReadsAnyKey(c)) {
                addReplyError(c, "BY option of SORT denied due to insufficient ACL permissions.");
                goto cleanup;
            }
            sortby = c->argv[++j];
            robj *pat = getDecodedObject(sortby);
            if (memchr(objectGetVal(pat), '*', sdslen(objectGetVal(pat))) == NULL) dontsort = 1;
            decrRefCount(pat);
        } else if (!strcasecmp(opt, "get") && left >= 1) {
            if (!aclClientReadsAnyKey(c)) {
                addReplyError(c, "GET option of SORT denied due to insufficient ACL permissions.");
                goto cleanup;
            }
            getpat[getops++] = c->argv[++j];
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto cleanup;
        }
    }

    robj *src = storekey ? lookupKeyWrite(c->db, c->argv[1]) : lookupKeyRead(c->db, c->argv[1]);
    if (src && src->type != OBJ_LIST && src->type != OBJ_SET && src->type != OBJ_ZSET) {
        addReplyErrorObject(c, shared.wrongtypeerr);
        goto cleanup;
    }

    /* A set has no order of its own: a stored result is sorted ALPHA so it
     * is the same on every server (and replica). */
    if (src && dontsort && src->type == OBJ_SET && (storekey || (c->flags & CLIENT_SCRIPT))) {
        dontsort = 0;
        alpha = 1;
        sortby = NULL;
    }

    /* Load every element. */
    long n = 0;
    robj **els = src ? sortCollect(src, &n) : zmalloc(sizeof(robj *));

    /* The LIMIT window [start, end] over n elements (empty: end < start). */
    long start = limit_start < 0 ? 0 : limit_start, end;
    if (start >= n) {
        start = n - 1;
        end = n - 2;
    } else if (limit_count < 0 || limit_count > n - start) {
        end = n - 1;
    } else {
        end = start + limit_count - 1;
    }

    vlen = n;
    vector = zcalloc(sizeof(sortItem) * (n ? n : 1));
    if (dontsort && src && (src->type == OBJ_LIST || src->type == OBJ_ZSET)) {
        /* Native order, reversed by DESC, window applied while loading. */
        for (long j = 0; j < n; j++) {
            long pos = desc ? n - 1 - j : j;
            if (j >= start && j <= end) vector[j - start].obj = els[pos];
            else decrRefCount(els[pos]);
        }
        vlen = end >= start ? end - start + 1 : 0;
        end -= start;
        start = 0;
    } else {
        for (long j = 0; j < n; j++) vector[j].obj = els[j];
    }
    zfree(els);

    /* Weights, then sort. */
    int bad_score = 0;
    if (!dontsort) {
        for (long j = 0; j < vlen; j++) {
            robj *byval = sortby ? sortLookupPattern(c->db, sortby, vector[j].obj, storekey != NULL) : vector[j].obj;
            if (byval == NULL) continue;
            if (alpha) {
                if (sortby) vector[j].cmpobj = getDecodedObject(byval);
            } else if (sortParseScore(byval, &vector[j].score) != C_OK) {
                bad_score = 1;
            }
            if (sortby) decrRefCount(byval);
        }
        sortOpts.desc = desc;
        sortOpts.alpha = alpha;
        sortOpts.bypattern = sortby != NULL;
        sortOpts.store = storekey != NULL;
        if (!bad_score && vlen > 1) qsort(vector, vlen, sizeof(sortItem), sortCompare);
    }

    long outlen = (end - start + 1) * (getops ? getops : 1);
    if (bad_score) {
        addReplyError(c, "One or more scores can't be converted into double");
    } else if (storekey == NULL) {
        addReplyArrayLen(c, outlen);
        for (long j = start; j <= end; j++) {
            if (!getops) addReplyBulk(c, vector[j].obj);
            for (int g = 0; g < getops; g++) {
                robj *val = sortLookupPattern(c->db, getpat[g], vector[j].obj, 0);
                if (val) {
                    addReplyBulk(c, val);
                    decrRefCount(val);
                } else {
                    addReplyNull(c);
                }
            }
        }
    } else {
        quicklist *ql = quicklistCreate(server.list_max_listpack_size, server.list_compress_depth);
        for (long j = start; j <= end; j++) {
            for (int g = 0; g < (getops ? getops : 1); g++) {
                robj *val = getops ? sortLookupPattern(c->db, getpat[g], vector[j].obj, 1) : vector[j].obj;
                if (getops && val == NULL) {
                    quicklistPushTail(ql, "", 0); /* A missing GET stores "". */
                    continue;
                }
                robj *dec = getDecodedObject(val);
                quicklistPushTail(ql, objectGetVal(dec), sdslen(objectGetVal(dec)));
                decrRefCount(dec);
                if (getops) decrRefCount(val);
            }
        }
        if (outlen > 0) {
            robj *lobj;
            if (ql->len == 1) {
                /* One node fits the listpack limits: store it compact. */
                lobj = createObject(OBJ_LIST, lpDup(ql->head->lp));
                lobj->encoding = OBJ_ENCODING_LISTPACK;
                quicklistRelease(ql);
            } else {
                lobj = createObject(OBJ_LIST, ql);
                lobj->encoding = OBJ_ENCODING_QUICKLIST;
            }
            setKey(c, c->db, storekey, lobj, 0);
            decrRefCount(lobj);
            notifyKeyspaceEvent(NOTIFY_LIST, "sortstore", storekey, c->db->id);
            server.dirty += outlen;
        } else {
            quicklistRelease(ql);
            if (dbDelete(c->db, storekey)) {
                signalModifiedKey(c, c->db, storekey);
                notifyKeyspaceEvent(NOTIFY_GENERIC, "del", storekey, c->db->id);
                server.dirty++;
            }
        }
        addReplyLongLong(c, outlen);
    }

cleanup:
    for (long j = 0; j < vlen; j++) {
        if (vector[j].obj) decrRefCount(vector[j].obj);
        if (vector[j].cmpobj) decrRefCount(vector[j].cmpobj);
    }
    zfree(vector);
    zfree(getpat);
}

/* SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
 * [ALPHA] [STORE destination] */
void sortCommand(client *c) {
    sortGenericCommand(c, 0);
}

/* SORT_RO: SORT without STORE (a read-only command). */
void sortroCommand(client *c) {
    sortGenericCommand(c, 1);
}

/* Key positions of SORT: the sorted key and, with STORE, the destination
 * (the last STORE wins, as in the command). Options are skipped with their
 * arguments so a GET pattern spelled "store" is not mistaken for one. */
static int sortGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    int n = 0, store = 0;
    if (maxkeys > 0) keys[n++] = 1;
    for (int j = 2; j < argc; j++) {
        const char *opt = objectGetVal(argv[j]);
        if (!strcasecmp(opt, "limit")) j += 2;
        else if (!strcasecmp(opt, "get") || !strcasecmp(opt, "by")) j += 1;
        else if (!strcasecmp(opt, "store") && j + 1 < argc) store = ++j;
    }
    if (store && n < maxkeys) keys[n++] = store;
    return n;
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define SORT_ACL (ACL_CATEGORY_SET | ACL_CATEGORY_SORTEDSET | ACL_CATEGORY_LIST | ACL_CATEGORY_DANGEROUS)

struct serverCommand sortCommands[] = {
    {.name = "sort", .proc = sortCommand, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS,
     .acl_categories = SORT_ACL, .key = {1, 1, 1}, .getkeys_proc = sortGetKeys, .group = "generic",
     .since = "1.0.0",
     .summary = "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number "
                   "of returned elements. When the elements are not sorted, complexity is O(N).",
     .args = "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [order=[ASC | DESC]] "
             "[sorting=ALPHA] [STORE destination]"},
    {.name = "sort_ro", .proc = sortroCommand, .arity = -2, .flags = CMD_READONLY, .acl_categories = SORT_ACL,
     .key = {1, 1, 1}, .group = "generic", .since = "7.0.0",
     .summary = "Returns the sorted elements of a list, a set, or a sorted set.",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number "
                   "of returned elements. When the elements are not sorted, complexity is O(N).",
     .args = "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [order=[ASC | DESC]] "
             "[sorting=ALPHA]"},
    {0},
};
