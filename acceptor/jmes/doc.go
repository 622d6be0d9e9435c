// Package jmes evaluates JMESPath over an attempt's stdout: the path
// matchers of --success EXPR[=VALUE], --success-all and --success-any
// (PathMatch), the --query projection (Query), and the pruning decoder that
// builds only the parts of a JSON document a set of expressions can observe
// (DecoderFor, NewDecoder, NeededPaths).
//
// Expressions are compiled by github.com/jmespath/go-jmespath; jmesast.go
// is the one file that reads the library's parsed expressions.
//
// It imports the directive core, acceptor (a PathMatch is an
// acceptor.Matcher; DecoderFor reads an acceptor.Chain), and no other
// project package; the core does not import it.
package jmes
