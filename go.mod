module github.com/retry-dev/retry

go 1.26.8

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/jmespath/go-jmespath v0.4.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.6 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
	mvdan.cc/sh/v3 v3.10.0
)

// Start-up (issue 12): no background goroutine that re-reads the cgroup CPU
// limit every second (Go 1.25's updatemaxprocs); it costs every run a thread
// at start, and retry's GOMAXPROCS does not matter once it runs.
godebug updatemaxprocs=0
