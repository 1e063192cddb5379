# The fake implementation of the run tests (run_sweep, run_capacity,
# run_locust): a keep-alive HTTP/1.1 server that answers every GET with 200
# "Hello, World!".
#
#     server.py PORT [--stall] [--capacity K] [--stall-every] [--peers FILE] MARKER
#
# --stall        only GET / answers; every other request waits a minute
# --capacity K   one request per 1/K s, the rest queued (a FIFO server of service rate K)
# --stall-every  every response due in the first 500 ms of each 2 s waits until they end
# --peers FILE   appends the address of every client that connects to FILE
# MARKER         an argument only one test's servers carry, to find them in /proc
import sys, time, threading, http.server


def option(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


STALL = "--stall" in sys.argv
STALL_EVERY = "--stall-every" in sys.argv
CAPACITY = float(option("--capacity")) if option("--capacity") else None
PEERS = option("--peers")
T0 = time.monotonic()
lock = threading.Lock()
free = [0.0]


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One send per response: an unbuffered body after the headers meets
    # Nagle and delayed ACKs, 40 ms a request, too little work to measure.
    wbufsize = 65536

    def setup(self):
        super().setup()
        if PEERS:
            with open(PEERS, "a") as f:
                f.write(self.client_address[0] + "\n")

    def do_GET(self):
        if STALL and self.path != "/":
            time.sleep(60)
        if CAPACITY:
            with lock:
                now = time.monotonic()
                turn = max(now, free[0])
                free[0] = turn + 1.0 / CAPACITY
            if turn > now:
                time.sleep(turn - now)
        if STALL_EVERY:
            phase = (time.monotonic() - T0) % 2.0
            if phase < 0.5:
                time.sleep(0.5 - phase)
        body = b"Hello, World!"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hello).serve_forever()
