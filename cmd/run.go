package cmd

import (
	"github.com/spf13/cobra"

	"github.com/retry-dev/retry/acceptor/botocore"
	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/retry-dev/retry/cmd/internal/plan"
)

// NewCmdRun builds `retry run`, leaving the process alone (no signal
// forwarding, no subreaper): for tools that read its flags and help.
func NewCmdRun(ios *iostreams.IOStreams) *cobra.Command { return newCmdRun(ios, nil) }

// newCmdRun builds `retry run`, whose runs do proc's switches.
func newCmdRun(io *iostreams.IOStreams, proc *process) *cobra.Command {
	o := plan.NewRun(io)
	c := &cobra.Command{
		Use:   "run [flags] [--] COMMAND [ARG...] | 'COMMAND STRING' | --shell 'STRING' | --url URL | --tcp HOST:PORT",
		Short: "Re-run a command or an HTTP call until it succeeds",
		Long: `Re-run a command or an HTTP call until it succeeds.

Each attempt is classified by the acceptor flags, in command-line order, and
then by the fallbacks: exit 0 succeeds; 126/127 fail; a known throttling error
code retries (throttling); other non-zero statuses retry (server-side); an
attempt timeout retries (timeout). Every flag has an environment default
RETRY_<FLAG> (RETRY_ATTEMPTS=5); flags win.

After --, the words are the command's argv, as given. One 'COMMAND STRING'
without -- is split by POSIX shell-word rules, without a shell: operators,
expansions and wildcards (*, ?, [ closed by ]) are refused with a hint.

--shell runs /bin/sh -c, which is dash on Debian and Ubuntu: a pipeline's
status is its last command's ('make test | tee log' succeeds when make
fails) and dash has no 'set -o pipefail'. Use --shell-path bash with
'set -o pipefail; …', or run the command without a pipe.`,
		Example: `  retry run -- curl -sf https://example.com/health
  retry run -n 10 -d 500ms --retry-exit 75 -- ./deploy.sh
  retry run --shell --shell-path bash \
      'set -o pipefail; make test | tee test.log'
  retry run --url https://api.example.com/items -X POST --data @item.json \
      --idempotency-key auto`,
	}
	return wire(c, o, proc)
}

// NewCmdWait builds `retry wait`, leaving the process alone, as NewCmdRun.
func NewCmdWait(ios *iostreams.IOStreams) *cobra.Command { return newCmdWait(ios, nil) }

// newCmdWait builds `retry wait`, whose runs do proc's switches.
func newCmdWait(io *iostreams.IOStreams, proc *process) *cobra.Command {
	o := plan.NewWait(io)
	c := &cobra.Command{
		Use:   "wait [flags] [--] COMMAND [ARG...] | 'COMMAND STRING' | --shell 'STRING' | --url URL | --tcp HOST:PORT",
		Short: "Poll a command or URL whose output is JSON until acceptors reach a state",
		Long: `Poll a command or URL whose output is JSON until an acceptor reaches a
success or failure state, like AWS SDK waiters, for any CLI.

Acceptors are evaluated in command-line order (flags first, then the waiter's);
the first that matches decides. Path acceptors see only successful attempts,
error acceptors only failed ones. An unmatched failed attempt is a failure at
once; an unmatched successful one is polled again. A failed attempt that run
would call transient is polled again: HTTP 5xx (but 501 and 505), 429, 408,
throttling and transient error codes (kubectl's TooManyRequests,
ServiceUnavailable), refused or reset connections.

A wait needs an acceptor or a waiter (exit 125 without: to re-run a command
until it succeeds, use retry run), except --url and --tcp: --url without an
acceptor waits for a 2xx, polling any other status and refused connections;
--tcp waits for a connection to be accepted.

Defaults: attempts unlimited (-n 0), --max-time 10m, --mode off, and
--backoff waiter (Smithy's: a random delay between --delay 2s and
min(--max-delay 30s, 2s·2^(attempt-1))). --url and --tcp without a waiter
model are readiness checks: delays from 100ms doubling to 1s, no jitter, so a
service is noticed within about a second of coming up; -d, --max-delay,
--backoff and --jitter override them. A waiter model brings its own delays
(Smithy's default maxDelay is 120s).

Stdout: the last poll's output (or its --query projection). A poll that
--max-time or a signal stopped midway is never written: the last poll that
finished is, and when none did, nothing is (stderr says so).

--waiter SERVICE:NAME names a waiter of the botocore models built into retry
(botocore ` + botocore.Version + `; NAME as in the model or as the AWS CLI spells it:
dynamodb:table-exists); --waiter k8s:NAME a built-in Kubernetes waiter over
kubectl get KIND NAME -o json (k8s:deployment-rolled-out, k8s:job-complete,
k8s:pod-ready, k8s:deleted, …), which fail where kubectl wait would hang;
--list-waiters lists them.`,
		Example: `  retry wait --success-all 'Reservations[].Instances[].State.Name=running' \
      -- aws ec2 describe-instances --instance-ids i-0123
  retry wait --waiter ec2:instance-running -- \
      aws ec2 describe-instances --instance-ids i-0123
  retry wait --waiter dynamodb:table-exists --query Table.TableStatus \
      --output text -- aws dynamodb describe-table --table-name orders
  retry wait --waiter k8s:job-complete -- kubectl get job migrate -o json
  retry wait -q --url http://localhost:8080/health --max-time 2m
  retry wait --url http://localhost:8080/health --success 'status=ok'
  retry wait --tcp db:5432 --consecutive 3 --backoff constant -d 250ms`,
	}
	return wire(c, o, proc)
}

// wire registers o's flags on c (parsing stops at the command) and, when c
// runs, builds the plan from them, the arguments and the environment
// defaults, and runs it with proc. The flags' completions are the whole
// tree's (newCmdRoot): a command line that completes starts with cobra's
// __complete, never with run or wait.
func wire(c *cobra.Command, o plan.Command, proc *process) *cobra.Command {
	c.Flags().SetInterspersed(false)
	o.Register(c.Flags())
	plan.SetGroupedHelp(c)
	c.RunE = func(c *cobra.Command, args []string) error {
		p, err := o.Plan(c.Flags(), args, c.ArgsLenAtDash() == 0)
		if p == nil { // refused, or --list-waiters
			return err
		}
		_, err = runRetry(c.Context(), p, proc)
		return err
	}
	return c
}
