// Command httpserver is the local server of bench/http.sh: it listens on
// 127.0.0.1, prints its base URL, and answers /500 with a 500 and a small
// body, and /big with a 1 GiB body of zeros, until it is killed.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	os.Stdout.Close()
	zeros := make([]byte, 1<<20)
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			for range 1 << 10 {
				if _, err := w.Write(zeros); err != nil {
					return
				}
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"message":"internal error"}`)) // a client gone is the client's end
		}
	}))
	fmt.Fprintln(os.Stderr, err) // the listener failed
	os.Exit(1)
}
