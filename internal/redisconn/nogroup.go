package redisconn

import "github.com/redis/go-redis/v9"

// NoGroup says whether err is Redis answering NOGROUP: the stream or its
// consumer group does not exist, as for a sale never warmed or since
// retired. Wrapped errors count; nil and redis.Nil do not.
func NoGroup(err error) bool { return redis.HasErrorPrefix(err, "NOGROUP") }
