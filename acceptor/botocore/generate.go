package botocore

//go:generate go run ../../internal/waitergen -o .
