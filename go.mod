module github.com/retry-dev/retry

go 1.26.8
