// Command stormserver is the throttled service of bench/storm.sh: it
// listens on 127.0.0.1, prints its base URL, and admits at most -rate
// requests a second to /api (a token bucket of -burst, refilled at -rate);
// beyond that it answers like a service under load:
//
//	-profile 429: 429 with an AWS JSON ThrottlingException body
//	-profile 503: 503 Service Unavailable, no error code
//
//	-profile slowdown: 503 with S3's XML SlowDown error
//
// GET /stats returns {"requests":N,"successes":N,"rps":F} (rps over the time
// from the first to the last request), GET /timeline one line per request
// since the reset ("MILLISECONDS ok CLIENT" or "MILLISECONDS refused
// CLIENT", from the first request; CLIENT is the request's query parameter
// c, "-" without), and POST /reset starts over.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

type server struct {
	rate, burst float64
	profile     string

	mu              sync.Mutex
	tokens          float64
	refilled        time.Time
	requests, oks   int
	first, lastSeen time.Time
	timeline        []event
}

// event is a request of the timeline: when, and whether it was admitted.
type event struct {
	at     time.Duration
	ok     bool
	client string
}

func (s *server) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens, s.refilled = s.burst, time.Now()
	s.requests, s.oks = 0, 0
	s.first, s.lastSeen = time.Time{}, time.Time{}
	s.timeline = nil
}

// admit counts a request and reports whether the bucket lets it through.
func (s *server) admit(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.tokens = min(s.tokens+now.Sub(s.refilled).Seconds()*s.rate, s.burst)
	s.refilled = now
	s.requests++
	if s.first.IsZero() {
		s.first = now
	}
	s.lastSeen = now
	ok := s.tokens >= 1
	if ok {
		s.tokens--
		s.oks++
	}
	s.timeline = append(s.timeline, event{now.Sub(s.first), ok, client})
	return ok
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api":
		client := r.URL.Query().Get("c")
		if client == "" {
			client = "-"
		}
		if s.admit(client) {
			_, _ = w.Write([]byte("ok\n")) // a client gone is the client's end (and so below)
			return
		}
		if s.profile == "slowdown" {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
			return
		}
		if s.profile == "503" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("service unavailable\n"))
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"__type":"ThrottlingException","message":"Rate exceeded"}`))
	case "/stats":
		s.mu.Lock()
		span := s.lastSeen.Sub(s.first).Seconds()
		rps := 0.0
		if span > 0 {
			rps = float64(s.requests) / span
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"requests": s.requests, "successes": s.oks, "rps": rps})
		s.mu.Unlock()
	case "/timeline":
		s.mu.Lock()
		for _, e := range s.timeline {
			what := "refused"
			if e.ok {
				what = "ok"
			}
			fmt.Fprintf(w, "%d %s %s\n", e.at.Milliseconds(), what, e.client)
		}
		s.mu.Unlock()
	case "/reset":
		s.reset()
	default:
		http.NotFound(w, r)
	}
}

func main() {
	s := &server{}
	flag.Float64Var(&s.rate, "rate", 10, "requests admitted per second")
	flag.Float64Var(&s.burst, "burst", 10, "requests admitted at once")
	flag.StringVar(&s.profile, "profile", "429", "answer beyond the rate: 429 (ThrottlingException), 503, or slowdown (503 with S3's SlowDown)")
	flag.Parse()
	if s.profile != "429" && s.profile != "503" && s.profile != "slowdown" {
		fmt.Fprintln(os.Stderr, "stormserver: -profile 429, 503 or slowdown")
		os.Exit(2)
	}
	s.reset()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	os.Stdout.Close()
	err = http.Serve(l, s)
	fmt.Fprintln(os.Stderr, err) // the listener failed
	os.Exit(1)
}
