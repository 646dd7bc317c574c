#include "isolate.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "input_error.hpp"

namespace p2psim {
namespace {

constexpr char kOk = 'O', kInput = 'I', kInternal = 'X';

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
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
    std::string reply;
    try {
      reply = kOk + fn();
    } catch (const InputError& e) {
      reply = kInput + std::string(e.what());
    } catch (const std::exception& e) {
      reply = kInternal + std::string(e.what());
    }
    write_all(fds[1], reply);
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string reply;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
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
  if (reply.empty()) throw std::runtime_error("the simulation process exited without a result");
  const std::string body = reply.substr(1);
  if (reply[0] == kInput) throw InputError("", 0, "", body);
  if (reply[0] == kInternal) throw std::runtime_error(body);
  return body;
}

}  // namespace p2psim
