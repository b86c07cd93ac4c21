/* For tests/shell/serve.sh: sends standard input to HOST PORT as it is,
 * half-closes, and copies what comes back to standard output until the
 * peer closes (or 10 s pass). How malformed messages reach a server. */
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: netsend HOST PORT < BYTES\n"); return 2; }
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    if (getaddrinfo(argv[1], argv[2], &hints, &res) != 0) return 2;
    int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) { perror("connect"); return 2; }
    freeaddrinfo(res);
    char buf[65536];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0)
        if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n) break;
    shutdown(fd, SHUT_WR);
    struct pollfd p = { fd, POLLIN, 0 };
    while (poll(&p, 1, 10000) > 0 && (n = recv(fd, buf, sizeof buf, 0)) > 0)
        if (write(STDOUT_FILENO, buf, (size_t)n) != n) break;
    close(fd);
    return 0;
}
