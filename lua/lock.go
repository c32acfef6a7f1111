package lua

import _ "embed"

// LockObtain takes a named lock for an owner, reentrantly (see its header).
//
//go:embed lock_obtain.lua
var LockObtain string

// LockRefresh renews a lock's ttl if the caller still owns it.
//
//go:embed lock_refresh.lua
var LockRefresh string

// LockRelease gives back one hold of a lock, deleting it at the last one.
//
//go:embed lock_release.lua
var LockRelease string
