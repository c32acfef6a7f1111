package testenv

import "os"

// lookupEnv is the one place tests read the environment: test binaries are
// the process entry point here, like main is for the server.
func lookupEnv(name string) string { return os.Getenv(name) }

// Getenv stands in for os.Getenv when a test hands a parser its environment:
// names missing from m read as unset, as they would from the process.
func Getenv(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}
