/* unittest.h - a minimal test harness for src/unit/test_*.c.
 *
 * Usage:
 *
 *     #include "unittest.h"
 *     int main(int argc, char **argv) {
 *         UT_BEGIN(argv[0]);
 *         TEST("sds: append") {
 *             ASSERT(sdslen(s) == 3);
 *             ASSERT_EQ_LL(x, 42);
 *             ASSERT_STREQ(s, "abc");
 *         }
 *         return UT_END();
 *     }
 *
 * A TEST block passes if none of its assertions fail; assertions do not
 * stop the block (so one run reports every failure). Each failed assertion
 * prints a line "FAIL <file>:<line> [<test>] <expression>". UT_END() prints
 * "<binary>: N passed, N failed" (N counts tests) and returns the exit
 * status: non-zero if anything failed. One test binary per source file, so
 * the state below is private to it. */
#ifndef VK_UNITTEST_H
#define VK_UNITTEST_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ut_binary = "test";
static const char *ut_test = "";
static int ut_passed, ut_failed, ut_test_failed;

static inline void utTestBegin(const char *name) {
    ut_test = name;
    ut_test_failed = 0;
}

static inline void utTestEnd(void) {
    if (ut_test_failed)
        ut_failed++;
    else
        ut_passed++;
}

static inline void utFail(const char *file, int line, const char *what) {
    printf("FAIL %s:%d [%s] %s\n", file, line, ut_test, what);
    fflush(stdout);
    ut_test_failed = 1;
}

/* True when running under valgrind (its preload library is in LD_PRELOAD).
 * Valgrind computes long double in 64-bit precision and replaces the
 * allocator, so tests of those exact behaviours skip themselves there. */
static inline int utUnderValgrind(void) {
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") != NULL;
}

/* Runs fn in a child process, its output discarded (a deliberate abort
 * logs), and returns 1 if the child died of SIGABRT: for tests of misuse
 * that must abort. */
static inline int utAbortsInChild(void (*fn)(void)) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        fn();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

#define UT_BEGIN(argv0)                                 \
    do {                                                \
        const char *slash_ = strrchr((argv0), '/');     \
        ut_binary = slash_ ? slash_ + 1 : (argv0);      \
    } while (0)

#define UT_END() (printf("%s: %d passed, %d failed\n", ut_binary, ut_passed, ut_failed), ut_failed ? 1 : 0)

/* TEST("name") { ... } runs the block once between begin/end bookkeeping. */
#define TEST(name) for (int ut_once_ = (utTestBegin(name), 1); ut_once_; ut_once_ = 0, utTestEnd())

#define ASSERT(cond)                                          \
    do {                                                      \
        if (!(cond)) utFail(__FILE__, __LINE__, #cond);       \
    } while (0)

#define ASSERT_EQ_LL(a, b)                                                                  \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ != b_) {                                                                     \
            char m_[512];                                                                   \
            snprintf(m_, sizeof(m_), "%s == %s (%lld != %lld)", #a, #b, a_, b_);            \
            utFail(__FILE__, __LINE__, m_);                                                 \
        }                                                                                   \
    } while (0)

#define ASSERT_STREQ(a, b)                                                                  \
    do {                                                                                    \
        const char *a_ = (a), *b_ = (b);                                                    \
        if (strcmp(a_, b_) != 0) {                                                          \
            char m_[512];                                                                   \
            snprintf(m_, sizeof(m_), "%s == %s (\"%.200s\" != \"%.200s\")", #a, #b, a_, b_); \
            utFail(__FILE__, __LINE__, m_);                                                 \
        }                                                                                   \
    } while (0)

/* Binary-safe comparison of a buffer with a literal. */
#define ASSERT_MEMEQ(p, len, lit) ASSERT((len) == sizeof(lit) - 1 && memcmp((p), (lit), (len)) == 0)

#endif
