package backoff_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/retry-dev/retry/backoff"
)

// The default backoff of retry run: exponential from 1s, capped at 20s, then
// full jitter. A nil Rand shows the ceiling of each delay.
func Example() {
	b := backoff.WithJitter(backoff.WithCap(backoff.Exponential(time.Second, 2), 20*time.Second), backoff.Full)
	var ceilings []time.Duration
	for a := 1; a <= 7; a++ {
		ceilings = append(ceilings, b.Delay(backoff.Step{Attempt: a}, nil))
	}
	fmt.Println(ceilings)
	r := rand.New(rand.NewPCG(1, 2))
	fmt.Println(b.Delay(backoff.Step{Attempt: 7}, r))
	// Output:
	// [1s 2s 4s 8s 16s 20s 20s]
	// 15.387465388s
}

func ExampleWaiter() {
	b := backoff.Waiter(2*time.Second, 120*time.Second)
	var ds []time.Duration
	for a := 1; a <= 8; a++ {
		ds = append(ds, b.Delay(backoff.Step{Attempt: a}, nil))
	}
	fmt.Println(ds)
	// 5s left: sleeping 4s would leave less than minDelay, so sleep 3s and
	// leave the last attempt minDelay (2s) to run.
	fmt.Println(b.Delay(backoff.Step{Attempt: 2, Budgeted: true, Remaining: 5 * time.Second}, nil))
	// Output:
	// [2s 4s 8s 16s 32s 1m4s 2m0s 2m0s]
	// 3s
}

func ExampleParseSchedule() {
	sc, err := backoff.ParseSchedule("3 5s 30s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Attempts, "attempts:", sc)
	var ds []time.Duration
	for a := 1; a < sc.Attempts; a++ {
		ds = append(ds, sc.Backoff.Delay(backoff.Step{Attempt: a}, nil))
	}
	fmt.Println(ds)
	_, err = backoff.ParseSchedule("5m 10s")
	fmt.Println(err)
	// Output:
	// 4 attempts: 3 5s 30s
	// [5s 10s 20s]
	// invalid schedule "5m 10s": MIN 5m0s is longer than MAX 10s
}

func ExampleParseDuration() {
	for _, s := range []string{"10", "0.5", "1h2m", "-1s", "ten"} {
		d, err := backoff.ParseDuration(s)
		fmt.Println(d, err)
	}
	// Output:
	// 10s <nil>
	// 500ms <nil>
	// 1h2m0s <nil>
	// 0s "-1s" is negative: want 0 or more
	// 0s "ten" is not a duration: want seconds (10, 0.5) or a number with a unit ns, us, ms, s, m or h (1.5s, 250ms, 1h2m)
}

func ExampleDecorrelated() {
	b := backoff.Decorrelated(time.Second, 20*time.Second)
	var ds []time.Duration
	var prev time.Duration
	for a := 1; a <= 5; a++ {
		prev = b.Delay(backoff.Step{Attempt: a, Previous: prev}, nil)
		ds = append(ds, prev)
	}
	fmt.Println(ds)
	// Output:
	// [3s 9s 20s 20s 20s]
}
