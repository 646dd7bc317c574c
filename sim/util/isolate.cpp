#include "isolate.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "input_error.hpp"

namespace p2psim {
namespace {

constexpr char kOk = 'O', kInput = 'I', kInternal = 'X';

void write_all(int fd, std::string_view s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Reads exactly `size` bytes; false when the pipe ends first.
bool read_all(int fd, char* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

pid_t fork_tied_to_parent(const std::string& what) {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(what + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl took effect
  }
  return pid;
}

std::string run_isolated(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // Tied to the parent: a sweep that kills a timed-out `p2psim run` must not leave its simulation running.
  const pid_t pid = fork_tied_to_parent("cannot start a simulation");
  if (pid == 0) {
    ::close(fds[0]);
    // The kind, the length, then the body, written as they are: a result can be a large share of memory (a
    // trace of 22 million rows is 700 MB), so neither side holds a second copy of it.
    char kind = kOk;
    std::string body;
    try {
      body = fn();
    } catch (const InputError& e) {
      kind = kInput;
      body = e.what();
    } catch (const std::exception& e) {
      kind = kInternal;
      body = e.what();
    }
    const std::uint64_t size = body.size();
    write_all(fds[1], std::string_view(&kind, 1));
    write_all(fds[1], std::string_view(reinterpret_cast<const char*>(&size), sizeof size));
    write_all(fds[1], body);
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  char kind = 0;
  std::uint64_t size = 0;
  std::string body;
  bool complete = read_all(fds[0], &kind, 1) && read_all(fds[0], reinterpret_cast<char*>(&size), sizeof size);
  if (complete) {
    body.resize(size);
    complete = read_all(fds[0], body.data(), size);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    throw std::runtime_error("the simulation process died with signal " + std::to_string(sig) + " (" +
                             ::strsignal(sig) + ")" +
                             (sig == SIGKILL ? ": killed from outside, most likely by the kernel's out-of-memory killer "
                                               "(docs/limits.md)" : "; SimGrid's own message, if any, is above"));
  }
  if (!complete) throw std::runtime_error("the simulation process exited without a result");
  if (kind == kInput) throw InputError("", 0, "", body);
  if (kind == kInternal) throw std::runtime_error(body);
  return body;
}

}  // namespace p2psim
