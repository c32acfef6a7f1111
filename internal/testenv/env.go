package testenv

import "os"

// lookupEnv is the one place tests read the environment: test binaries are
// the process entry point here, like main is for the server.
func lookupEnv(name string) string { return os.Getenv(name) }
