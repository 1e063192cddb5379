// A long-poll server for trying `concur load --scenario longpoll` by hand
// with thousands of clients (the Rust test servers use a thread per
// connection, which is fine for tests but not for 8,000 clients):
//
//	go run tests/load_support/longpoll.go -port 18081 -wait 5s
//	concur load http://127.0.0.1:18081/ --scenario longpoll -c 8000 -d 30s
//
// GET /longPoll answers 200 OK after -wait; anything else answers at once.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"
)

func main() {
	port := flag.Int("port", 18081, "port on 127.0.0.1")
	wait := flag.Duration("wait", 5*time.Second, "how long /longPoll waits")
	flag.Parse()
	http.HandleFunc("/longPoll", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*wait)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "OK")
	})
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Hello, World!")
	})
	addr := fmt.Sprintf("127.0.0.1:%d", *port)
	log.Printf("listening on %s, /longPoll waits %s", addr, *wait)
	log.Fatal(http.ListenAndServe(addr, nil))
}
