// Package jmes evaluates JMESPath over an attempt's stdout: the path
// matchers of --success EXPR[=VALUE], --success-all and --success-any
// (PathMatch), the --query projection (Query), and the pruning decoder that
// builds only the parts of a JSON document the path matchers of a chain
// and a query can observe (DecoderFor).
//
// Expressions are compiled by github.com/jmespath/go-jmespath; jmesast.go
// is the one file that knows the library's insides (its parsed
// expressions, its functions' arities). Where the library disagrees with
// the JMESPath specification (its compliance suite is in testdata),
// source.go rewrites the expression so that the library reads it as the
// specification does, and exact.go keeps integers beyond 2^53 exact where
// the library does not need them as float64.
//
// It imports the directive core, acceptor (a PathMatch is an
// acceptor.Matcher; DecoderFor reads an acceptor.Chain), and no other
// project package; the core does not import it.
package jmes
