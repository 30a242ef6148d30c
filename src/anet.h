/* anet.h - thin, error-reporting wrappers over the BSD socket calls.
 *
 * Every function that can fail returns ANET_ERR and, when err is not NULL,
 * writes "<call>: <strerror>" into err (ANET_ERR_LEN bytes) with errno
 * left as the failing call set it, so callers can both log and branch.
 * Leaf library: used by the socket transports (conn_socket.c, conn_unix.c)
 * and by tools; never includes the server header. */
#ifndef VK_ANET_H
#define VK_ANET_H

#include <stddef.h>
#include <sys/types.h>

#define ANET_OK 0
#define ANET_ERR -1
#define ANET_ERR_LEN 256

/* anetResolve() flags. */
#define ANET_NONE 0
#define ANET_IP_ONLY (1 << 0) /* Numeric addresses only: no DNS lookup. */

/* Default listen(2) backlog when the caller passes 0 or less. */
#define ANET_DEFAULT_BACKLOG 511

int anetTcpNonBlockConnect(char *err, const char *addr, int port);
int anetTcpNonBlockBindConnect(char *err, const char *addr, int port, const char *source_addr);
int anetUnixNonBlockConnect(char *err, const char *path);
int anetResolve(char *err, const char *host, char *ipbuf, size_t ipbuf_len, int flags);
int anetTcpServer(char *err, int port, const char *bindaddr, int backlog);
int anetTcp6Server(char *err, int port, const char *bindaddr, int backlog);
int anetUnixServer(char *err, const char *path, mode_t perm, int backlog);
int anetTcpAccept(char *err, int serversock, char *ip, size_t ip_len, int *port);
int anetUnixAccept(char *err, int serversock);
int anetNonBlock(char *err, int fd);
int anetBlock(char *err, int fd);
int anetCloexec(int fd);
int anetEnableTcpNoDelay(char *err, int fd);
int anetDisableTcpNoDelay(char *err, int fd);
int anetKeepAlive(char *err, int fd, int interval);
int anetSendTimeout(char *err, int fd, long long ms);
int anetRecvTimeout(char *err, int fd, long long ms);
int anetGetError(int fd);
int anetFdToString(int fd, char *ip, size_t ip_len, int *port, int remote);
int anetFormatAddr(char *buf, size_t buf_len, const char *ip, int port);
int anetIsFifo(const char *filepath);

#endif
