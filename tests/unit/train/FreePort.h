// A TCP port for a test's coordinator address.
#ifndef LOOM_TESTS_UNIT_TRAIN_FREEPORT_H
#define LOOM_TESTS_UNIT_TRAIN_FREEPORT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>

/// Whether a TCP port on the loopback address can be listened on now.
inline bool portIsFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool free = ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
  ::close(fd);
  return free;
}

/// A TCP port nothing listens on now, drawn at random below the kernel's ephemeral range: a
/// port the kernel handed out (bind to port 0) is soon handed again to some other test's
/// outgoing connection (MPI, NCCL bootstrap), which then holds it when the coordinator binds.
inline int freePort() {
  int low = 32768;
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  range >> low;
  int first = 10000, last = low > first + 1000 ? low - 1 : 29999;
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pick(first, last);
  for (int attempt = 0; attempt < 200; ++attempt)
    if (int port = pick(random); portIsFree(port))
      return port;
  return pick(random);
}

#endif // LOOM_TESTS_UNIT_TRAIN_FREEPORT_H
