// Package waitermodel parses waiter models, botocore waiters-2.json files
// and Smithy JSON models (smithy.waiters#waitable), into named waiter
// models: each an ordered list of acceptor.Acceptor, ready for an
// acceptor.Chain, with its timing (--waiter-file FILE --waiter NAME, and
// the built-in models of acceptor/botocore). It reads no files: cmd reads
// --waiter-file, bounded as every file given to a flag.
//
// It imports the directive core, acceptor, and acceptor/jmes for the path
// matchers of the models; neither imports it.
package waitermodel
