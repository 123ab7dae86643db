// A TCP port for a test's coordinator address.
#ifndef LOOM_TESTS_UNIT_TRAIN_FREEPORT_H
#define LOOM_TESTS_UNIT_TRAIN_FREEPORT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/// A TCP port nothing listens on now.
inline int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  socklen_t length = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &length);
  ::close(fd);
  return ntohs(a.sin_port);
}

#endif // LOOM_TESTS_UNIT_TRAIN_FREEPORT_H
