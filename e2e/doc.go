// Package e2e holds the end-to-end tests of the ll-* commands; see
// e2e_test.go.
package e2e
