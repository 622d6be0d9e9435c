// Package waitermodel loads waiter models, botocore waiters-2.json files
// and Smithy JSON models (smithy.waiters#waitable), into named waiters:
// each an ordered list of acceptor.Acceptor, ready for an acceptor.Chain,
// with its timing (--waiter-file FILE --waiter NAME).
//
// It imports the directive core, acceptor, and acceptor/jmes for the path
// matchers of the models; neither imports it.
package waitermodel
