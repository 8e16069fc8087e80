"""A warm interpreter for the local executor's Python program steps (warm-python.ts).

Started as `python3 zygote.py <socket> [module ...]` under a step's environment, it imports the
modules once (torch and numpy: about 1.5 s of every program's start), listens on the Unix socket
and prints `ready`. Each connection is one program run, asked by client.py (the process the
executor started in the program's place): a length-prefixed JSON request {argv, cwd, env} with the
client's stdin, stdout and stderr attached. The zygote forks; the child becomes what
`python3 <argv...>` would have been (its own session, those three descriptors, the working
directory and exactly the request's environment) and runs the program. The zygote answers the
child's pid at once and its exit status when it ends, one JSON line each. A client that goes away
(killed) takes its program with it: the zygote kills the child's process group.

Only variables that nothing reads at import may differ between the zygote's environment and a
request's (the executor's zygote key says which): the kernel pins and thread counts a library
reads when it loads are the zygote's, so a program computes with the same kernels as a cold start.

stdin is the executor's pipe: at EOF the zygote stops listening, waits for its running children,
answers them and exits. Single-threaded (a select loop; SIGCHLD through a wakeup pipe), so a fork
never copies a lock held by another thread. Standard library only.
"""
import atexit
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import traceback

HEADER = struct.Struct("!I")


def receive(conn, n, got=b""):
    """Exactly n bytes (`got` already read)."""
    while len(got) < n:
        more = conn.recv(min(1 << 20, n - len(got)))
        if not more:
            raise ConnectionError("request cut short")
        got += more
    return got


def read_request(conn):
    """The request and the descriptors that came with its header."""
    conn.settimeout(30)
    head, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, 3)
    (n,) = HEADER.unpack(receive(conn, HEADER.size, head))
    body = receive(conn, n)
    conn.settimeout(None)
    if len(fds) != 3:
        raise ConnectionError(f"expected 3 descriptors, got {len(fds)}")
    return json.loads(body), fds


def exit_code(e):
    """The status a fresh interpreter exits with after SystemExit(e.code)."""
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code & 0xFF
    print(e.code, file=sys.stderr)
    return 1


def print_uncaught():
    """The traceback a fresh interpreter prints: from the program's first frame, not this file's or runpy's."""
    kind, value, tb = sys.exc_info()
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, "<frozen runpy>", runpy.__file__):
        tb = tb.tb_next
    sys.excepthook(kind, value.with_traceback(tb), tb)


def run_program(argv):
    """Runs `python3 <argv...>` in this process; returns its exit status (never raises)."""
    path = argv[0]
    sys.argv = list(argv)
    # What the interpreter itself puts first on the import path for `python3 <path>` (not an edit of a program's path).
    sys.path[0] = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    interrupted = False
    try:
        runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = exit_code(e)
    except KeyboardInterrupt:
        print_uncaught()
        code, interrupted = 130, True  # once flushed, killed by SIGINT as the interpreter ends such a program
    except BaseException:  # noqa: B036 - an uncaught error ends the program as the interpreter would
        print_uncaught()
        code = 1
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream at exit is the program's own business
                pass
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code


def become_program(req, fds, keep_closed):
    """In the forked child: the program's session, descriptors, directory and environment; never returns."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in keep_closed:
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        code = run_program(req["argv"])
    except BaseException:  # noqa: B036 - the program could not be set up (its directory gone...): say why, on its stderr
        traceback.print_exc()
    finally:
        os._exit(code)


def status_line(status):
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


def send(conn, message):
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass  # the client is gone; its program was killed when its connection closed


class Zygote:
    def __init__(self, path):
        self.path = path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "reap")
        self.sel.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
        self.children = {}  # pid -> its client's connection (None once the client is gone)
        self.listening = True

    def descriptors(self):
        """What a child must not keep: the zygote's own sockets and pipes."""
        fds = [self.wake_r, self.wake_w, self.sel.fileno()]
        if self.listening:
            fds.append(self.listener.fileno())
        return fds + [c.fileno() for c in self.children.values() if c is not None]

    def accept(self):
        conn, _ = self.listener.accept()
        try:
            req, fds = read_request(conn)
        except (OSError, ValueError) as e:
            send(conn, {"error": f"bad request: {e}"})
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            become_program(req, fds, self.descriptors() + [conn.fileno()])
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        self.sel.register(conn, selectors.EVENT_READ, pid)
        send(conn, {"pid": pid})

    def reap(self):
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:  # None: its client is gone
                self.sel.unregister(conn)
                send(conn, status_line(status))
                conn.close()

    def client_closed(self, conn, pid):
        """A client that closes before its answer was killed: its program goes with it."""
        if conn.recv(1):
            return
        self.sel.unregister(conn)
        conn.close()
        self.children[pid] = None
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop_listening(self):
        self.sel.unregister(sys.stdin.fileno())
        self.sel.unregister(self.listener)
        self.listener.close()
        self.listening = False
        try:
            os.unlink(self.path)
            os.rmdir(os.path.dirname(self.path))  # the socket's directory is the zygote's own
        except OSError:
            pass

    def serve(self):
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        while self.listening or self.children:
            for key, _ in self.sel.select():
                if key.data == "accept":
                    self.accept()
                elif key.data == "reap":
                    self.reap()
                elif key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 4096):
                        self.stop_listening()
                else:
                    self.client_closed(key.fileobj, key.data)
            self.reap()


def main():
    path, modules = sys.argv[1], sys.argv[2:]
    # Only its stdin's EOF ends it (or a kill): a Ctrl-C meant for the run must not take it down
    # under programs still running (each child restores Python's own SIGINT handling).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for m in modules:
        __import__(m)
    Zygote(path).serve()


if __name__ == "__main__":
    main()
