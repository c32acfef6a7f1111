// Package lua embeds the Redis Lua scripts. Each script's header documents its
// KEYS, ARGV and return values; Go callers wrap the sources once in
// redis.NewScript. The package sits at the top level (not under internal/)
// because go:embed cannot reach files outside its own folder.
package lua

import _ "embed"

// gcra is the rate limit that RateLimit and Reserve share: Lua scripts
// cannot include one another, so it goes in front of each of them.
//
//go:embed gcra.lua
var gcra string

//go:embed reserve.lua
var reserve string

// Reserve atomically checks a sale and reserves stock for one shopper.
var Reserve = gcra + reserve

// Release returns one reservation's stock, idempotently.
//
//go:embed release.lua
var Release string

// Adjust changes available stock by a delta, refusing to go below zero.
//
//go:embed adjust.lua
var Adjust string

//go:embed ratelimit.lua
var rateLimit string

// RateLimit counts one request against a GCRA rate limit.
var RateLimit = gcra + rateLimit

// Offer counts, passes and expires the units of a draw sale offered to
// shoppers (see its header).
//
//go:embed offer.lua
var Offer string

// Named is every script by the name its metrics carry.
var Named = map[string]string{
	"reserve": Reserve, "release": Release, "adjust": Adjust, "ratelimit": RateLimit, "room": Room, "offer": Offer,
	"lock_obtain": LockObtain, "lock_refresh": LockRefresh, "lock_release": LockRelease,
}
