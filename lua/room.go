package lua

import _ "embed"

// Room joins a shopper to a sale's waiting room, or looks at it, after
// admitting whoever is due, in one atomic step (see its header).
//
//go:embed room.lua
var Room string
