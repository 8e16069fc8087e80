"""Run a program and copy its output, as it is written, to stdout and to a TCP socket.

Used by cspipe's Dagger executor to stream a container step's log to the host while the
step runs (docs/dagger.md, "Logs and exit status"). Standard library only, Python 3.8+.

    python3 log_tee.py --host ALIAS --port N -- PROGRAM [ARGS...]

* The program's stdout and stderr are merged into one pipe; every chunk read from it is
  written to our stdout (so the exec's own output still holds everything) and sent to
  HOST:PORT. The first line sent is "CSPIPE-LOG-STREAM 1 <token>", where the token comes
  from the CSPIPE_LOG_STREAM_TOKEN environment variable (removed from the program's env).
* Best effort: if the connection cannot be made, or breaks, the program keeps running and
  its output keeps going to stdout. One note goes to stderr.
* The exit status is the program's: its exit code, or 128 + N when signal N killed it.
  SIGTERM, SIGINT and SIGHUP received here are passed on to the program.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys

HANDSHAKE = "CSPIPE-LOG-STREAM 1 "
TOKEN_ENV = "CSPIPE_LOG_STREAM_TOKEN"
CONNECT_TIMEOUT_S = 10.0
SEND_TIMEOUT_S = 30.0
CHUNK = 65536


def note(message):
    sys.stderr.write("# cspipe log stream: " + message + "\n")
    sys.stderr.flush()


class Stream:
    """The socket side: connect once, send chunks, give up quietly on the first error."""

    def __init__(self, host, port, token):
        self.sock = None
        try:
            self.sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
            self.sock.settimeout(SEND_TIMEOUT_S)
            self.sock.sendall((HANDSHAKE + token + "\n").encode("utf-8"))
        except OSError as e:
            self.drop("cannot connect to %s:%d (%s); the log arrives when the step ends" % (host, port, e))

    def drop(self, why):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        note(why)

    def send(self, data):
        if self.sock is None:
            return
        try:
            self.sock.sendall(data)
        except OSError as e:
            self.drop("the connection broke (%s); the rest of the log arrives when the step ends" % e)

    def close(self):
        if self.sock is None:
            return
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.sock = None


def exit_status(returncode):
    return 128 - returncode if returncode < 0 else returncode


def main(argv):
    # Everything after the first "--" is the program, untouched (argparse would look inside it).
    parser = argparse.ArgumentParser(prog="log_tee.py", usage="%(prog)s --host HOST --port PORT -- PROGRAM [ARGS...]")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", required=True, type=int)
    if "--" not in argv:
        parser.error("no '--' before the program")
    cut = argv.index("--")
    args = parser.parse_args(argv[:cut])
    program = argv[cut + 1 :]
    if not program:
        parser.error("no program given after --")

    # Signals are forwarded from the start; one that comes before the program exists is
    # delivered to it as soon as it does.
    state = {"child": None, "pending": []}

    def forward(signum, _frame):
        if state["child"] is None:
            state["pending"].append(signum)
            return
        try:
            state["child"].send_signal(signum)
        except OSError:
            pass

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), forward)

    env = dict(os.environ)
    token = env.pop(TOKEN_ENV, "")
    stream = Stream(args.host, args.port, token)
    try:
        child = subprocess.Popen(program, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, bufsize=0)
    except OSError as e:
        stream.close()
        note("cannot start %s: %s" % (program[0], e))
        return 126 if isinstance(e, PermissionError) else 127
    state["child"] = child
    for signum in state["pending"]:
        forward(signum, None)

    out = sys.stdout.buffer
    fd = child.stdout.fileno()
    while True:
        try:
            data = os.read(fd, CHUNK)
        except InterruptedError:
            continue
        if not data:
            break
        out.write(data)
        out.flush()
        stream.send(data)
    child.stdout.close()
    returncode = child.wait()
    stream.close()
    return exit_status(returncode)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
