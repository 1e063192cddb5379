# The fake implementation of the run tests (run_sweep, run_capacity,
# run_held, run_locust): a keep-alive HTTP/1.1 server that answers every GET
# with 200 "Hello, World!", and GET /longPoll with 200 "OK" after
# CONCUR_LONGPOLL_MS (a blocking sleep on the connection's thread); GET /db
# is 503 when the server was given no CONCUR_DB_URL (no query is made).
#
#     server.py PORT [--stall] [--capacity K] [--stall-every] [--pool K] [--only-root] [--peers FILE] MARKER
#
# --stall        only GET / answers; every other request waits a minute
# --capacity K   one request per 1/K s, the rest queued (a FIFO server of service rate K)
# --stall-every  every response due in the first 500 ms of each 2 s waits until they end
# --pool K       K threads, each serving one connection until it closes (rust-threadpool's
#                model): later connections wait, their requests unread
# --only-root    every path but / is 404
# --peers FILE   appends the address of every client that connects to FILE
# --panic-exits  GET /fault/panic ends the process (as an uncaught error ends Node's)
# --panic-pause MS  after GET /fault/panic every request is closed unanswered for MS ms
# --wedge-at N   once N connections have been accepted in all, answer nothing more and spin a thread
#                at a whole core for good (the Puma wedge of bench/RESULTS.md, in miniature)
# MARKER         an argument only one test's servers carry, to find them in /proc
#
# The fault routes of spec/SPEC.md §9 exist with CONCUR_FAULTS=1 (a panic raises
# in the handler, which closes its connection; a spin computes), else are 404.
import os, sys, time, threading, http.server


def option(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


STALL = "--stall" in sys.argv
STALL_EVERY = "--stall-every" in sys.argv
CAPACITY = float(option("--capacity")) if option("--capacity") else None
PEERS = option("--peers")
POOL = threading.BoundedSemaphore(int(option("--pool"))) if option("--pool") else None
ONLY_ROOT = "--only-root" in sys.argv
WAIT_S = int(os.environ.get("CONCUR_LONGPOLL_MS", "5000")) / 1000
FAULTS = os.environ.get("CONCUR_FAULTS") == "1"
PANIC_PAUSE_S = int(option("--panic-pause")) / 1000 if option("--panic-pause") else None
WEDGE_AT = int(option("--wedge-at")) if option("--wedge-at") else None
accepted = [0]
wedged = threading.Event()


def spin():
    while True:
        pass
paused_until = [0.0]
T0 = time.monotonic()
lock = threading.Lock()
free = [0.0]


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One send per response: an unbuffered body after the headers meets
    # Nagle and delayed ACKs, 40 ms a request, too little work to measure.
    wbufsize = 65536

    def handle(self):
        # Counted in all, not open at once: how many a burst has open at once depends on how fast
        # the machine serves them (a quick day's burst of 1,000 never had 200 open).
        if WEDGE_AT:
            with lock:
                accepted[0] += 1
                if accepted[0] >= WEDGE_AT and not wedged.is_set():
                    wedged.set()
                    threading.Thread(target=spin, daemon=True).start()
        if POOL is None:
            return super().handle()
        with POOL:
            super().handle()

    def setup(self):
        super().setup()
        if PEERS:
            with open(PEERS, "a") as f:
                f.write(self.client_address[0] + "\n")

    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def fault(self):
        path, _, query = self.path.partition("?")
        if not FAULTS or path not in ("/fault/panic", "/fault/spin"):
            return self.reply(404, b"not found")
        if path == "/fault/panic":
            if "--panic-exits" in sys.argv:
                os._exit(70)
            if PANIC_PAUSE_S:
                paused_until[0] = time.monotonic() + PANIC_PAUSE_S
            raise RuntimeError("fault: panic")
        try:
            ms = min(max(int(query[3:]), 0), 10000) if query.startswith("ms=") else 0
        except ValueError:
            ms = 0
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            pass
        self.reply(200, b"OK")

    def do_GET(self):
        if wedged.is_set():
            time.sleep(3600)
        if time.monotonic() < paused_until[0]:
            self.close_connection = True
            return
        if self.path.startswith("/fault/"):
            return self.fault()
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
        if self.path == "/db" and not os.environ.get("CONCUR_DB_URL"):
            # Given no database, as SPEC §8.4 has it (the fake answers /db without a query).
            return self.reply(503, b"database unavailable: CONCUR_DB_URL is not set")
        if ONLY_ROOT and self.path != "/":
            self.send_error(404)
            return
        if self.path == "/longPoll":
            time.sleep(WAIT_S)
            body = b"OK"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    # Thousands of clients arrive within a fraction of a second (a clients-held step):
    # socketserver's backlog of 5 would drop their SYNs.
    request_queue_size = 4096


Server(("127.0.0.1", int(sys.argv[1])), Hello).serve_forever()
