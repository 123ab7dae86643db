// Joining a job through a coordinator address (see CoordinatorJoin.h).
#include "runtime/CoordinatorJoin.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loom::rt::distributed::detail {
namespace {

using Clock = std::chrono::steady_clock;

pid_t serverPid = 0;

Status failure(const std::string &message) {
  return Status::error(StatusCode::Unavailable, message);
}

double joinTimeoutSeconds() {
  const char *v = std::getenv("LOOM_JOIN_TIMEOUT_S");
  double s = v ? std::atof(v) : 0;
  return s > 0 ? s : 300;
}

int millisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

/// Waits until `fd` is readable (or writable); false at the deadline.
bool ready(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, millisLeft(deadline));
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

bool sendAll(int fd, const void *data, size_t bytes) {
  auto p = static_cast<const char *>(data);
  while (bytes) {
    ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n, bytes -= static_cast<size_t>(n);
  }
  return true;
}

bool recvAll(int fd, void *data, size_t bytes, Clock::time_point deadline) {
  auto p = static_cast<char *>(data);
  while (bytes) {
    if (!ready(fd, POLLIN, deadline))
      return false;
    ssize_t n = ::recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n, bytes -= static_cast<size_t>(n);
  }
  return true;
}

bool sendString(int fd, const std::string &s) {
  uint32_t n = htonl(static_cast<uint32_t>(s.size()));
  return sendAll(fd, &n, 4) && sendAll(fd, s.data(), s.size());
}

bool recvString(int fd, std::string &s, Clock::time_point deadline) {
  uint32_t n = 0;
  if (!recvAll(fd, &n, 4, deadline))
    return false;
  s.resize(ntohl(n));
  return recvAll(fd, s.data(), s.size(), deadline);
}

/// Splits "host:port"; false if either part is missing.
bool splitAddress(const std::string &address, std::string &host, std::string &port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    return false;
  host = address.substr(0, colon), port = address.substr(colon + 1);
  return true;
}

/// Starts ompi-server (it ends with this process) and returns its URI.
Status startRendezvousServer(std::string &uri) {
  char path[] = "/tmp/loom-ompi-server-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0)
    return failure(std::string("cannot create a file for ompi-server's address: ") +
                   std::strerror(errno));
  ::close(fd);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent)
      ::_exit(1);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::execlp("ompi-server", "ompi-server", "--no-daemonize", "-r", path, nullptr);
    ::_exit(127);
  }
  if (pid < 0)
    return failure(std::string("cannot start ompi-server: ") + std::strerror(errno));
  serverPid = pid;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      serverPid = 0;
      ::unlink(path);
      return failure(WIFEXITED(status) && WEXITSTATUS(status) == 127
                         ? "cannot run ompi-server (OpenMPI's, from the openmpi-bin package): "
                           "not on PATH"
                         : "ompi-server exited at start with status " + std::to_string(status));
    }
    std::ifstream in(path);
    std::getline(in, uri);
    if (in && !uri.empty()) {
      ::unlink(path);
      return Status::ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::unlink(path);
  return failure("ompi-server gave no address within 30 s");
}

/// Process 0: listens on the coordinator's port; each other process sends its id and count
/// and gets the server's URI. Returns the connections by id.
Status gather(const Coordinator &c, const std::string &uri, std::vector<int> &peers,
              Clock::time_point deadline) {
  std::string host, port;
  splitAddress(c.address, host, port);
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  any.sin_port = htons(static_cast<uint16_t>(std::atoi(port.c_str())));
  if (::bind(listener, reinterpret_cast<sockaddr *>(&any), sizeof any) != 0 ||
      ::listen(listener, c.count) != 0) {
    std::string why = std::strerror(errno);
    ::close(listener);
    return failure("process 0 cannot listen on port " + port + " of the coordinator address " +
                   c.address + ": " + why);
  }
  peers.assign(c.count, -1);
  int heard = 1;
  Status error = Status::ok();
  while (heard < c.count && error.isOk()) {
    if (!ready(listener, POLLIN, deadline))
      break;
    int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0)
      continue;
    int32_t hello[2] = {0, 0}; // id, count
    if (!recvAll(fd, hello, sizeof hello, deadline)) {
      ::close(fd);
      continue;
    }
    int id = static_cast<int32_t>(ntohl(hello[0])), count = static_cast<int32_t>(ntohl(hello[1]));
    if (count != c.count)
      error = Status::error(StatusCode::InvalidArgument,
                            "process " + std::to_string(id) + " says the job has " +
                                std::to_string(count) + " processes, the coordinator (process "
                                "0) was told " + std::to_string(c.count));
    else if (id <= 0 || id >= c.count)
      error = Status::error(StatusCode::InvalidArgument,
                            "a process joined with id " + std::to_string(id) + "; ids run from "
                            "0 (the coordinator) to " + std::to_string(c.count - 1));
    else if (peers[id] >= 0)
      error = Status::error(StatusCode::InvalidArgument,
                            "two processes joined with id " + std::to_string(id));
    sendString(fd, error.isOk() ? uri : "error: " + error.message());
    if (!error.isOk()) {
      ::close(fd);
      break;
    }
    peers[id] = fd, ++heard;
  }
  ::close(listener);
  if (error.isOk() && heard < c.count) {
    std::string missing;
    for (int id = 1; id < c.count; ++id)
      if (peers[id] < 0)
        missing += (missing.empty() ? "" : ", ") + std::to_string(id);
    error = Status::error(StatusCode::DeadlineExceeded,
                          "the coordinator (process 0 at " + c.address + ") heard from " +
                              std::to_string(heard - 1) + " of the " +
                              std::to_string(c.count - 1) + " other processes within " +
                              std::to_string(static_cast<int>(joinTimeoutSeconds())) +
                              " s; missing process(es) [" + missing + "]");
  }
  if (!error.isOk())
    for (int fd : peers)
      if (fd >= 0)
        ::close(fd);
  return error;
}

/// Processes 1..: connects to the coordinator (retrying until it listens), sends id and
/// count, receives the server's URI.
Status reach(const Coordinator &c, std::string &uri, int &fd, Clock::time_point deadline) {
  std::string host, port, lastError = "no answer";
  splitAddress(c.address, host, port);
  while (Clock::now() < deadline) {
    addrinfo hints{}, *found = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
      lastError = ::gai_strerror(rc); // a pod's name may not resolve yet
    } else {
      fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
        ::freeaddrinfo(found);
        int32_t hello[2] = {static_cast<int32_t>(htonl(c.id)),
                            static_cast<int32_t>(htonl(c.count))};
        if (!sendAll(fd, hello, sizeof hello) || !recvString(fd, uri, deadline)) {
          ::close(fd);
          return failure("process " + std::to_string(c.id) + " reached the coordinator " +
                         c.address + " but got no answer");
        }
        if (uri.rfind("error: ", 0) == 0) {
          ::close(fd);
          return Status::error(StatusCode::InvalidArgument,
                               "the coordinator " + c.address + " refused process " +
                                   std::to_string(c.id) + ": " + uri.substr(7));
        }
        return Status::ok();
      }
      lastError = std::strerror(errno);
      ::close(fd);
      ::freeaddrinfo(found);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::error(StatusCode::DeadlineExceeded,
                       "process " + std::to_string(c.id) + " of " + std::to_string(c.count) +
                           " could not reach the coordinator " + c.address + " within " +
                           std::to_string(static_cast<int>(joinTimeoutSeconds())) +
                           " s: " + lastError);
}

/// Adds the processes after `from` to `world` one at a time: the current members accept
/// (process 0 hands the new process the port over its TCP connection), the new one
/// connects, and the merge ranks it last.
Status grow(const Coordinator &c, int from, const std::vector<int> &peers, MPI_Comm &world,
            Clock::time_point deadline, int coordinatorFd) {
  char port[MPI_MAX_PORT_NAME] = {0};
  if (c.id == 0 && c.count > 1)
    MPI_Open_port(MPI_INFO_NULL, port);
  for (int next = from + 1; next < c.count; ++next) {
    MPI_Comm inter, merged;
    if (c.id == next) { // joining
      std::string name;
      if (!recvString(coordinatorFd, name, deadline))
        return failure("process " + std::to_string(c.id) + " got no port from the coordinator " +
                       c.address);
      if (MPI_Comm_connect(name.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter) != MPI_SUCCESS)
        return failure("process " + std::to_string(c.id) + " could not connect to the job");
    } else { // a member
      if (c.id == 0 && !sendString(peers[next], port))
        return failure("the coordinator lost process " + std::to_string(next));
      if (MPI_Comm_accept(port, MPI_INFO_NULL, 0, world, &inter) != MPI_SUCCESS)
        return failure("process " + std::to_string(next) + " did not join the job");
    }
    MPI_Intercomm_merge(inter, c.id == next, &merged);
    MPI_Comm_free(&inter);
    if (world != MPI_COMM_SELF)
      MPI_Comm_free(&world);
    world = merged;
  }
  if (c.id == 0 && c.count > 1)
    MPI_Close_port(port);
  return Status::ok();
}

} // namespace

std::optional<Coordinator> coordinatorFromEnvironment(Status &error) {
  const char *address = std::getenv("LOOM_COORDINATOR_ADDRESS");
  if (!address || !*address)
    return std::nullopt;
  Coordinator c;
  c.address = address;
  auto number = [&](const char *name, int &out) {
    const char *v = std::getenv(name);
    char *end = nullptr;
    long n = v ? std::strtol(v, &end, 10) : -1;
    if (!v || !*v || *end || n < 0) {
      error = Status::error(StatusCode::InvalidArgument,
                            std::string("LOOM_COORDINATOR_ADDRESS is set, so ") + name +
                                " must be a number, got " + (v ? "'" + std::string(v) + "'"
                                                              : "nothing"));
      return false;
    }
    out = static_cast<int>(n);
    return true;
  };
  if (!number("LOOM_NUM_PROCESSES", c.count) || !number("LOOM_PROCESS_ID", c.id))
    return std::nullopt;
  return c;
}

Status joinThroughCoordinator(const Coordinator &c, int required, int &provided,
                              MPI_Comm &world) {
  std::string host, port;
  if (!splitAddress(c.address, host, port))
    return Status::error(StatusCode::InvalidArgument,
                         "the coordinator address must be host:port, got '" + c.address + "'");
  if (c.count < 1 || c.id < 0 || c.id >= c.count)
    return Status::error(StatusCode::InvalidArgument,
                         "process id " + std::to_string(c.id) + " is not one of the " +
                             std::to_string(c.count) + " processes (0 to " +
                             std::to_string(c.count - 1) + ")");
  auto deadline = Clock::now() + std::chrono::milliseconds(
                                     static_cast<int64_t>(joinTimeoutSeconds() * 1000));
  std::string uri;
  std::vector<int> peers;
  int coordinatorFd = -1;
  if (c.count > 1) {
    Status s = c.id == 0 ? startRendezvousServer(uri) : reach(c, uri, coordinatorFd, deadline);
    if (s.isOk() && c.id == 0)
      s = gather(c, uri, peers, deadline);
    if (!s.isOk()) {
      stopRendezvousServer();
      return s;
    }
    ::setenv("OMPI_MCA_pmix_server_uri", uri.c_str(), 1);
  }
  if (MPI_Init_thread(nullptr, nullptr, required, &provided) != MPI_SUCCESS)
    return failure("MPI_Init_thread failed");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  world = MPI_COMM_SELF;
  // Process k joins in round k and then accepts the ones after it.
  Status s = grow(c, c.id == 0 ? 0 : c.id - 1, peers, world, deadline, coordinatorFd);
  for (int fd : peers)
    if (fd >= 0)
      ::close(fd);
  if (coordinatorFd >= 0)
    ::close(coordinatorFd);
  return s;
}

void stopRendezvousServer() {
  if (serverPid > 0) {
    ::kill(serverPid, SIGTERM);
    ::waitpid(serverPid, nullptr, 0);
    serverPid = 0;
  }
}

} // namespace loom::rt::distributed::detail
