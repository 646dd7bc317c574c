"""An OpenSSH server and a Redis server on this host's loopback, children of the calling process (so on its core when
it is pinned), for timing SPIRT's SSH tunnel from a function to a peer's Redis: spirt_ssh_tunnel.py (the tunnel's
handshake) and spirt_tunnel_bytes.py (the bytes through it). The client key is a 2,048-bit RSA key in PEM, as an EC2
.pem is; sshd has an RSA host key only. Needs openssh-server and redis-server."""
import contextlib
import os
import pwd
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Servers:
    ssh_port: int
    redis_port: int
    user: str
    user_key: str  # the client's private key file
    sshd: subprocess.Popen
    redis: subprocess.Popen


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port):
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)
    raise RuntimeError(f"nothing listens on port {port}")


@contextlib.contextmanager
def running():
    """Yields the Servers, listening; stops them on the way out."""
    with tempfile.TemporaryDirectory() as folder:
        host_key, user_key = os.path.join(folder, "host_rsa"), os.path.join(folder, "user.pem")
        for path, form in ((host_key, []), (user_key, ["-m", "PEM"])):
            subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", path] + form, check=True)
        with open(os.path.join(folder, "authorized_keys"), "w") as f, open(user_key + ".pub") as public:
            f.write(public.read())
        ssh_port, redis_port = free_port(), free_port()
        config = os.path.join(folder, "sshd_config")
        with open(config, "w") as f:
            f.write(f"Port {ssh_port}\nListenAddress 127.0.0.1\nHostKey {host_key}\n"
                    f"AuthorizedKeysFile {folder}/authorized_keys\nPidFile {folder}/sshd.pid\nUsePAM no\n"
                    "StrictModes no\nPermitRootLogin prohibit-password\nAllowTcpForwarding yes\n")
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
        sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-f", config], stderr=subprocess.DEVNULL)
        redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL)
        try:
            wait_for_port(ssh_port)
            wait_for_port(redis_port)
            user = os.environ.get("USER") or pwd.getpwuid(os.getuid()).pw_name
            yield Servers(ssh_port, redis_port, user, user_key, sshd, redis)
        finally:
            for server in (sshd, redis):
                server.terminate()
                server.wait()


def _stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def reaped_cpu_s(pids):
    """Each server's CPU with its reaped children's (sshd's per-connection processes), from /proc, in seconds; first
    waiting until each has reaped every child, so that a closed connection's CPU is counted in full."""
    for pid in pids:
        for _ in range(1000):
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                if not f.read().split():
                    break
            time.sleep(0.001)
        else:
            raise RuntimeError(f"process {pid} kept a child for a second")
    ticks = sum(int(v) for pid in pids for v in _stat_fields(pid)[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree_ticks(pid):
    ticks = sum(int(v) for v in _stat_fields(pid)[11:15])
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            ticks += sum(_tree_ticks(int(child)) for child in f.read().split())
    return ticks


def live_tree_cpu_s(pid):
    """The CPU of a process and of its living descendants (an open connection's sshd processes), with what they have
    reaped, in seconds."""
    return _tree_ticks(pid) / os.sysconf("SC_CLK_TCK")
